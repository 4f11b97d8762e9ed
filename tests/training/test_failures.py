"""Failures during training (issue 18 item 4): nothing half-written, nothing left behind,
one clear message.

A data worker's exception reaches the caller as it was raised (type, message, the
user's line in the traceback) and no worker outlives the call; Ctrl-C during `fit`
leaves the variables at a complete step; a NaN loss stops with the last finite weights
kept by `BackupAndRestore`; a full disk while saving keeps the previous file and says so.
(Atomic saves under a generic failing write are pinned in
`tests/saving/test_atomic_writes.py`; resuming in `tests/callbacks/test_backup_and_restore.py`.)
"""

import errno
import functools
import multiprocessing
import os
import signal
import threading
import traceback
import warnings

import h5py
import numpy as np
import pytest

import lamina
from lamina import callbacks, layers

X = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
Y = np.random.default_rng(1).normal(size=(16, 2)).astype("float32")


def _model(constraint=None):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential(
        [
            lamina.Input((4,)),
            layers.Dense(3, activation="tanh", kernel_constraint=constraint),
            layers.Dense(2, kernel_constraint=lamina.constraints.NonNeg()),
        ]
    )
    model.compile(lamina.optimizers.Adam(0.05), "mse")
    return model


@functools.cache
def _after_steps(steps):
    """Weights of an uninterrupted run over the first `steps` batches of 2 rows."""
    model = _model()
    model.fit(X[: 2 * steps], Y[: 2 * steps], batch_size=2, shuffle=False, verbose=0)
    return model.get_weights()


def _assert_weights(model, want):
    for got, ref in zip(model.get_weights(), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)


# Data workers -------------------------------------------------------------------------
class Broken(lamina.utils.PyDataset):
    """Batch 3 cannot be read."""

    def __len__(self):
        return 6

    def __getitem__(self, index):
        if index == 3:
            raise FileNotFoundError(f"shard-{index}.npz is missing")  # the user's line
        return X[2 * index : 2 * index + 2], Y[2 * index : 2 * index + 2]


def _workers_alive():
    return [t for t in threading.enumerate() if t is not threading.current_thread()]


@pytest.mark.parametrize(
    "how, options",
    [
        ("fit", dict(workers=3)),
        ("evaluate", dict(workers=2, use_multiprocessing=True)),
        ("predict", dict(workers=3)),
        ("fit_generator", dict(workers=3)),
        ("fit_generator", dict(workers=2, use_multiprocessing=True)),
    ],
    ids=str,
)
def test_a_failing_worker_surfaces_the_original_exception_and_leaves_nothing(options, how):
    threads_before = set(_workers_alive())
    data = Broken(**options)
    model = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fit_generator's deprecation, processes as threads
        with pytest.raises(FileNotFoundError, match=r"^shard-3\.npz is missing$") as info:
            if how == "fit_generator":
                model.fit_generator(data, epochs=1, verbose=0, **options)
            elif how == "predict":
                model.predict(data, verbose=0)
            else:
                getattr(model, how)(data, verbose=0)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(
        f.name == "__getitem__" and "the user's line" in (f.line or "") for f in frames
    ) or any(f.name == "__getitem__" and f.filename == __file__ for f in frames)
    left = [t for t in _workers_alive() if t not in threads_before]
    for t in left:  # a pool shutting down gets a moment, never a leak
        t.join(5)
    assert [t.name for t in left if t.is_alive()] == []
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize(
    "options", [dict(workers=3), dict(workers=2, use_multiprocessing=True)], ids=str
)
def test_workers_reading_ahead_keep_order_and_leave_no_thread_on_failure(options):
    """`read_in_order`: how a PyDataset's workers read ahead (for the data adapter)."""
    from lamina.common.py_dataset import read_in_order

    before = set(threading.enumerate())
    got = []
    with pytest.raises(FileNotFoundError, match="shard-3") as info:
        for x, _ in read_in_order(Broken(**options), 0, 6):
            got.append(x)
    np.testing.assert_array_equal(np.concatenate(got), X[:6])  # batches 0-2, in order
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.name == "__getitem__" and f.filename == __file__ for f in frames)
    reader = read_in_order(Broken(**options), 0, 3)
    next(reader)
    reader.close()  # a loop that stops early
    assert [t.name for t in threading.enumerate() if t not in before] == []


# Ctrl-C -------------------------------------------------------------------------------
def test_keyboard_interrupt_from_a_callback_leaves_a_complete_step():
    class Interrupt(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 2:
                raise KeyboardInterrupt

    model = _model()
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, Y, batch_size=2, shuffle=False, verbose=0, callbacks=[Interrupt()])
    _assert_weights(model, _after_steps(3))
    # Nothing was left donated or locked: training and predicting go on.
    model.fit(X, Y, batch_size=2, epochs=1, verbose=0)
    assert model.predict(X[:2], verbose=0).shape == (2, 2)


def test_keyboard_interrupt_inside_a_data_generator_leaves_a_complete_step():
    def batches():
        for i in range(3):
            yield X[2 * i : 2 * i + 2], Y[2 * i : 2 * i + 2]
        raise KeyboardInterrupt  # Ctrl-C while the generator reads the 4th batch

    model = _model()
    with pytest.raises(KeyboardInterrupt):
        model.fit(batches(), steps_per_epoch=8, verbose=0)
    _assert_weights(model, _after_steps(3))
    model.fit(X, Y, batch_size=2, epochs=1, verbose=0)


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread()
    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="Ctrl-C is handled in the main thread, under Python's own SIGINT handler",
)
def test_ctrl_c_in_the_middle_of_a_step_lets_the_step_finish():
    sent = []

    def ctrl_c_halfway(w):
        # Runs inside the optimizer's update, before the second layer's constraint is
        # applied (torch applies them one by one, on the live variables).
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        return w

    model = _model(constraint=ctrl_c_halfway)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, Y, batch_size=2, shuffle=False, verbose=0)
    assert sent
    _assert_weights(model, _after_steps(1))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# NaN ----------------------------------------------------------------------------------
def _poisoned(step):
    x = X.copy()
    x[2 * step] = np.nan
    return x


@pytest.mark.parametrize("raise_error", [False, True])
def test_a_nan_loss_stops_cleanly_and_the_backup_keeps_the_last_finite_weights(
    tmp_path, raise_error
):
    backup_dir = tmp_path / "backup"
    model = _model()
    stop = callbacks.TerminateOnNaN(raise_error=raise_error)
    run = [callbacks.BackupAndRestore(backup_dir, save_freq=1), stop]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if raise_error:
            with pytest.raises(RuntimeError, match="TerminateOnNaN: the loss is nan at batch 3"):
                model.fit(_poisoned(3), Y, batch_size=2, shuffle=False, verbose=0, callbacks=run)
        else:
            history = model.fit(
                _poisoned(3), Y, batch_size=2, epochs=3, shuffle=False, verbose=0, callbacks=run
            )
            assert len(history.epoch) == 1  # stopped in the first epoch
    assert not np.isfinite(model.get_weights()[0]).all()  # step 3 made them NaN
    messages = " ".join(str(w.message) for w in caught)
    assert "not finite" in messages  # the NaN step's backup was refused
    assert any(backup_dir.iterdir()), "the last good backup was deleted"

    # The backup restores the weights after steps 0-2, the last finite ones.
    restored = {}

    class Look(callbacks.Callback):
        def on_train_begin(self, logs=None):
            restored["weights"] = self.model.get_weights()

    fresh = _model()
    fresh.fit(
        X, Y, batch_size=2, epochs=1, shuffle=False, verbose=0,
        callbacks=[callbacks.BackupAndRestore(backup_dir, save_freq=1), Look()],
    )  # fmt: skip
    for got, want in zip(restored["weights"], _after_steps(3), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("double_checkpoint", [True, False])
def test_a_backup_damaged_on_disk_falls_back_to_the_previous_one(tmp_path, double_checkpoint):
    backup_dir = tmp_path / "backup"

    def backup():  # Keras's positional order: backup_dir, save_freq, double_checkpoint
        return callbacks.BackupAndRestore(backup_dir, 1, double_checkpoint, False)

    # Stopped after 4 steps: the latest backup holds step 4, the previous one step 3.
    _model().fit(X[:8], Y[:8], batch_size=2, shuffle=False, verbose=0, callbacks=[backup()])
    latest = backup_dir / "backup.h5"
    latest.write_bytes(b"\0" * 64)  # damaged on disk
    restored = {}

    class Look(callbacks.Callback):
        def on_train_begin(self, logs=None):
            restored["weights"] = self.model.get_weights()

    run = dict(batch_size=2, shuffle=False, verbose=0, callbacks=[backup(), Look()])
    if not double_checkpoint:
        with pytest.raises(OSError):
            _model().fit(X, Y, **run)
        return
    with pytest.warns(UserWarning, match="resuming from the previous one"):
        _model().fit(X, Y, **run)
    for got, want in zip(restored["weights"], _after_steps(3), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# A full disk --------------------------------------------------------------------------
def _disk_full_on_h5_datasets(monkeypatch, after):
    """HDF5 writes fail with ENOSPC once `after` datasets were written (as on a full disk)."""
    original = h5py.Group.create_dataset
    count = [0]

    def create(self, *args, **kwargs):
        count[0] += 1
        if count[0] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(h5py.Group, "create_dataset", create)


def _only(path):
    return sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("target", ["save", "save_weights", "checkpoint", "backup"])
def test_a_full_disk_keeps_the_previous_file_and_says_so(tmp_path, monkeypatch, target):
    model = _model()
    if target == "save":
        path, write = tmp_path / "m.keras", lambda: model.save(path)
    elif target == "save_weights":
        path, write = tmp_path / "m.weights.h5", lambda: model.save_weights(path)
    elif target == "checkpoint":
        path = tmp_path / "ckpt.weights.h5"
        checkpoint = callbacks.ModelCheckpoint(str(path), save_weights_only=True)

        def write():
            model.fit(X, Y, batch_size=4, verbose=0, callbacks=[checkpoint])
    else:
        path = tmp_path / "backup" / "backup.h5"
        backup = callbacks.BackupAndRestore(path.parent, delete_checkpoint=False)
        runs = []

        def write():  # each run resumes from the backup: one epoch more each time
            runs.append(1)
            model.fit(X, Y, batch_size=4, epochs=len(runs), verbose=0, callbacks=[backup])

    write()
    before, names = path.read_bytes(), _only(path)
    model.fit(X, Y, batch_size=4, verbose=0)  # the weights change
    _disk_full_on_h5_datasets(monkeypatch, after=1)
    with pytest.raises(OSError) as info:
        write()
    assert info.value.errno == errno.ENOSPC
    assert path.read_bytes() == before and _only(path) == names  # no temporary file left
    said = "".join(traceback.format_exception(info.value))
    assert "No space left on device" in said
    if target in ("checkpoint", "backup"):
        assert "unchanged" in said and str(path.parent) in said
