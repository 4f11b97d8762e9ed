"""BackupAndRestore: resume an interrupted `fit` exactly where it stopped."""

from __future__ import annotations

import os
import shutil
import warnings

import numpy as np

from lamina.callbacks.callback import Callback

# With `double_checkpoint`, the backup before the latest, in this subdirectory.
PREVIOUS = "previous"


def _finite(model) -> bool:
    return all(np.isfinite(w).all() for w in model.get_weights())


class BackupAndRestore(Callback):
    """Back up training state so a killed run, started again, resumes where it stopped.

    The backup holds weights, optimizer and metric state, seed-generator state, the epoch
    and the step within it, and the data order; running the same `fit` again after the
    process died continues from the last backup and ends with the same weights as an
    uninterrupted run. Backups of non-finite weights are never written. With a generator
    or `PyDataset` the resumed run skips the batches the interrupted epoch had trained,
    so the data must come in the same order when started again (arrays are redrawn in
    the recorded order). Metrics continue from the backup mid-epoch and start afresh at
    an epoch's start. Each backup replaces the last only once it is completely written,
    so a crash or a full disk while writing leaves the previous one whole; a training
    that ends on non-finite weights keeps its backup (the last finite weights).

    Args:
        backup_dir: directory for the backup file (one per run).
        save_freq: `"epoch"` or an int: back up every that many batches.
        double_checkpoint: also keep the backup before the latest (in
            `backup_dir/previous/`), restored when the latest cannot be read (a file
            damaged on disk). Takes twice the space.
        delete_checkpoint: delete the backup when training finishes normally.
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

    def on_train_begin(self, logs=None):
        self._batches = 0
        previous = os.path.join(self.backup_dir, PREVIOUS)
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
            tmp = os.path.join(previous, f".copying-{name}")
            try:
                shutil.copyfile(os.path.join(self.backup_dir, name), tmp)
                os.replace(tmp, os.path.join(previous, name))
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)

    def _save(self, epoch, step, rng_state):
        try:
            if self.double_checkpoint and _finite(self.model):
                self._keep_previous()
            written = self.model._write_backup(self.backup_dir, epoch, step, rng_state)
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

    def on_train_end(self, logs=None):
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
        if os.path.isdir(previous):
            self.model._delete_backup(previous)
        self.model._delete_backup(self.backup_dir)
