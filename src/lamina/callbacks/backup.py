"""BackupAndRestore: resume an interrupted `fit` exactly where it stopped."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import threading
import warnings
import weakref

import numpy as np

from lamina.callbacks.callback import Callback

# With `double_checkpoint`, the backup before the latest, in this subdirectory.
PREVIOUS = "previous"
# Beside the backup: the state a DataLoader's own generators had as each recent epoch
# began (what its order was drawn from). Written before the backup, so a crash between
# the two leaves the older backup's epoch still recorded.
DATA_ORDER = "data_order.npz"

# The BackupAndRestore callbacks of the `fit`s running in this thread, innermost last.
_running = threading.local()


def _temp_beside(path: str, verb: str) -> str:
    """A hidden temporary name beside `path` that no other process picks: the
    processes of a multi-process job share one backup directory and write alike."""
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{verb}-{os.getpid()}-{secrets.token_hex(4)}-{name}")


def _remove(path: str) -> None:
    """Remove `path` if it is there: another process of the job may remove it first."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


def data_epoch_begins(batches) -> None:
    """Called by `fit`'s batches as each epoch begins, before the epoch's order is drawn
    (`data_adapter`): the `BackupAndRestore` of that `fit`, if any, records (or, when
    resuming, puts back) the state the data draws its order from."""
    keepers = [k for k in getattr(_running, "keepers", ()) if k._fit_running()]
    _running.keepers = keepers
    for keeper in reversed(keepers):
        if keeper._data is not None and keeper._data() is batches:
            keeper._data_epoch_begins(batches)
            return
    # A `fit` reaches its first epoch after its callbacks' `on_train_begin`: its
    # callback is the innermost not yet bound to data (a `fit` run inside another's
    # callback finds the outer one bound already).
    for keeper in reversed(keepers):
        if keeper._data is None:
            keeper._data = weakref.ref(batches)
            keeper._data_epoch_begins(batches)
            return


def _finite(model) -> bool:
    return all(np.isfinite(w).all() for w in model.get_weights())


def _running_fit(model):
    """The live state of the `fit` running on `model` (its runtime record holds one per
    running `fit`), or None."""
    record = getattr(model, "_runtime", None)
    return None if record is None else record.live


class BackupAndRestore(Callback):
    """Back up training state so a killed run, started again, resumes where it stopped.

    The backup holds weights, optimizer and metric state, seed-generator state, the epoch
    and the step within it, and the data order; running the same `fit` again after the
    process died continues from the last backup and ends with the same weights as an
    uninterrupted run. Backups of non-finite weights are never written. With a generator,
    `PyDataset` or `torch.utils.data.DataLoader` the resumed run skips the batches read
    before the backup (in the interrupted epoch, and with `steps_per_epoch` in the
    earlier epochs of the same pass), so the data must come in the same order when
    started again (arrays are redrawn in the recorded order). A DataLoader that
    shuffles with a `generator=torch.Generator().manual_seed(n)` of its own does: the
    backup records that generator's state as the pass began and the resumed run puts
    it back. One
    that shuffles from torch's global generator (`shuffle=True` and no `generator`)
    cannot be put back, and resuming it warns (Keras 3 itself restarts an interrupted
    epoch from its first batch in a new order). Metrics continue from the backup
    mid-epoch and start afresh at an epoch's start. Each backup replaces the last only
    once it is completely written, so a crash or a full disk while writing leaves the
    previous one whole; a training that ends on non-finite weights keeps its backup
    (the last finite weights).

    Args:
        backup_dir: directory for the backup file (one per run).
        save_freq: `"epoch"` or an int: back up every that many batches.
        double_checkpoint: also keep the backup before the latest (in
            `backup_dir/previous/`), restored when the latest cannot be read (a file
            damaged on disk). Takes twice the space.
        delete_checkpoint: delete the backup when training finishes normally.

    >>> import os, tempfile, numpy as np, lamina
    >>> backup_dir = os.path.join(tempfile.mkdtemp(), "backup")
    >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    >>> model.compile(optimizer="adam", loss="mse")
    >>> callback = BackupAndRestore(backup_dir, save_freq=2, delete_checkpoint=False)
    >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=2, epochs=2, verbose=0,
    ...               callbacks=[callback])
    >>> os.listdir(backup_dir)  # a finished run's backup is kept with delete_checkpoint=False
    ['backup.h5']
    """

    def __init__(
        self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True
    ):
        super().__init__()
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(
                f"save_freq must be 'epoch' or a positive int; received {save_freq!r}."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = delete_checkpoint
        self._batches = 0
        self._epoch = 0
        self._fit_token = None  # the running fit's live state (see `_fit_running`)
        self._data = None  # a weak reference to the running fit's batches
        self._data_states = {}  # epoch -> the data's generator states as it began
        self._resuming = None  # (directory, epoch, step) of the backup being resumed

    def on_train_begin(self, logs=None):
        self._batches = 0
        previous = os.path.join(self.backup_dir, PREVIOUS)
        restored_from = self.backup_dir
        try:
            self.model._restore_backup(self.backup_dir)
        except (OSError, ValueError, KeyError, TypeError) as error:
            if not (self.double_checkpoint and os.path.isdir(previous)):
                raise
            warnings.warn(
                f"BackupAndRestore: the latest backup in {self.backup_dir!r} cannot be "
                f"read ({type(error).__name__}: {error}); resuming from the previous one "
                "(double_checkpoint=True).",
                stacklevel=2,
            )
            self.model._restore_backup(previous)
            restored_from = previous
        model = self._model
        resume = getattr(model, "_resume_point", None)
        self._resuming = None
        if resume is not None:
            self._resuming = (restored_from, resume["epoch"], resume["step"])
        self._data = None
        self._data_states = {}
        self._fit_token = _running_fit(model)
        keepers = [k for k in getattr(_running, "keepers", ()) if k is not self]
        _running.keepers = [*keepers, self]

    def _fit_running(self) -> bool:
        """Whether the `fit` this callback began is still running (not ended, not
        crashed): the trainer keeps one live-state object per running `fit`."""
        model = self._model
        return (
            self._fit_token is not None
            and model is not None
            and _running_fit(model) is self._fit_token
        )

    def _data_epoch_begins(self, batches) -> None:
        """Record the state the epoch's order is drawn from; on the first epoch of a
        resumed run, first put back the one recorded for the epoch resumed."""
        if self._resuming is not None:
            directory, epoch, step = self._resuming
            self._resuming = None
            self._put_back_data_order(batches, directory, epoch, step)
        state = getattr(batches, "order_state", None)
        self._data_states[self._epoch] = state() if state is not None else None

    def _put_back_data_order(self, batches, directory, epoch, step) -> None:
        if getattr(batches, "order_state", None) is None:
            return  # arrays: `fit` redraws their order from the backup's NumPy state
        where = f"epoch {epoch}" + (f", after its batch {step}" if step else "")
        states = _read_data_order(directory).get(epoch)
        problem = None
        if states is not None:
            try:
                batches.set_order_state(states)
                return
            except ValueError as error:
                problem = f"the backup {error}"
        elif batches.order_state() is not None:
            problem = (
                "the backup holds no record of where the data stood (its position in a "
                "pass, its generators' state)"
            )
        elif batches.shuffles_unrecorded():
            problem = (
                "the DataLoader shuffles from torch's global generator, whose state no "
                "backup records"
            )
        if problem is None or (epoch == 0 and step == 0):
            return
        consequence = (
            f"the resumed epoch skips the first {step} batches of what the data gives "
            "now, so it may repeat some samples and miss others"
            if step
            else "the epochs from here may read other batches than the interrupted run's"
        )
        warnings.warn(
            f"BackupAndRestore: resuming at {where} from {directory!r}, but {problem}: "
            f"{consequence}. For an exact resume, build the data the same way each run "
            "and give a shuffling DataLoader a seeded generator of its own, e.g. "
            "DataLoader(..., shuffle=True, generator=torch.Generator().manual_seed(0)).",
            stacklevel=3,
        )

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches += 1
        if self._batches % self.save_freq == 0:
            self._save(self._epoch, batch + 1, self.model._epoch_rng_state)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0, np.random.get_state())

    def _keep_previous(self) -> None:
        """Copy the current backup's files into `previous/`, each replaced only once
        completely copied."""
        if not os.path.isdir(self.backup_dir):
            return
        names = [
            name
            for name in os.listdir(self.backup_dir)
            if not name.startswith(".") and os.path.isfile(os.path.join(self.backup_dir, name))
        ]
        if not names:
            return
        previous = os.path.join(self.backup_dir, PREVIOUS)
        os.makedirs(previous, exist_ok=True)
        for name in names:
            tmp = _temp_beside(os.path.join(previous, name), "copying")
            try:
                shutil.copyfile(os.path.join(self.backup_dir, name), tmp)
                os.replace(tmp, os.path.join(previous, name))
            except FileNotFoundError:
                # Another process of the job replaced or removed it meanwhile; what it
                # keeps in `previous/` is the same backup.
                continue
            finally:
                _remove(tmp)

    def _save(self, epoch, step, rng_state):
        try:
            if self.double_checkpoint and _finite(self.model):
                self._keep_previous()
            if step == 0:  # at an epoch's end: the next epoch's order is drawn from now
                batches = self._data() if self._data is not None else None
                state = getattr(batches, "order_state", None)
                self._data_states[epoch] = state() if state is not None else None
            self._write_data_order()
            written = self.model._write_backup(self.backup_dir, epoch, step, rng_state)
            if written:  # older epochs' states are no longer needed by any backup
                self._data_states = {e: s for e, s in self._data_states.items() if e >= epoch}
        except OSError as error:  # a full disk: the previous backup is still whole
            error.add_note(
                f"BackupAndRestore could not write its backup in {self.backup_dir!r} "
                f"(epoch {epoch}, step {step}); the previous backup there, if any, is "
                "unchanged (backups replace it only once complete), so running fit again "
                "with this callback resumes from it. Free disk space and run fit again."
            )
            raise
        if not written:
            warnings.warn(
                f"BackupAndRestore: the weights are not finite at epoch {epoch}, step {step}; "
                "keeping the previous backup.",
                stacklevel=2,
            )

    def _write_data_order(self) -> None:
        """Write the recorded data-order states beside the backup (replaced only once
        complete), or remove the file when there are none."""
        path = os.path.join(self.backup_dir, DATA_ORDER)
        arrays = {
            f"{epoch}/{i}": state
            for epoch, states in self._data_states.items()
            if states is not None
            for i, state in enumerate(states)
        }
        if not arrays:
            _remove(path)
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        tmp = _temp_beside(path, "writing")
        try:
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, path)
        finally:
            _remove(tmp)

    def on_train_end(self, logs=None):
        _running.keepers = [k for k in getattr(_running, "keepers", ()) if k is not self]
        self._data = self._fit_token = None
        if not self.delete_checkpoint or getattr(self.model, "_failed", False):
            return
        if not _finite(self.model):
            # Training ended on NaN/inf weights (TerminateOnNaN's graceful stop): the
            # backup holds the last finite ones, the only good copy left.
            warnings.warn(
                "BackupAndRestore: training ended with non-finite weights, so the backup "
                f"in {self.backup_dir!r} (the last finite weights) is kept rather than "
                "deleted; fit again with this callback to resume from it.",
                stacklevel=2,
            )
            return
        previous = os.path.join(self.backup_dir, PREVIOUS)
        for directory in (previous, self.backup_dir):
            _remove(os.path.join(directory, DATA_ORDER))
        if os.path.isdir(previous):
            self.model._delete_backup(previous)
        self.model._delete_backup(self.backup_dir)


def _read_data_order(directory) -> dict:
    """epoch -> the list of generator states recorded beside the backup in `directory`."""
    path = os.path.join(directory, DATA_ORDER)
    if not os.path.exists(path):
        return {}
    found = {}
    with np.load(path) as data:
        for key in data.files:
            epoch, index = (int(part) for part in key.split("/"))
            found.setdefault(epoch, {})[index] = data[key]
    return {epoch: [states[i] for i in sorted(states)] for epoch, states in found.items()}
