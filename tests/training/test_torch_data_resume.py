"""A `torch.utils.data.DataLoader` resumes mid-epoch exactly, as arrays do (issue 13,
item 5): `fit` with `BackupAndRestore(save_freq=<int>)`, interrupted by an exception
from a callback and run again on a fresh model and a fresh loader built the same way,
ends with the weights of an uninterrupted run.

A loader in a fixed order, and one that shuffles with a seeded `torch.Generator`, are
exact: the backup records the generator's state at the start of the epoch and the
resumed run puts it back before drawing that epoch's order. A loader that shuffles from
torch's global generator cannot be put back, and resuming one mid-epoch says so.
(Keras 3 itself restarts an interrupted epoch from its first batch.)

The reference runs carry no callback, so they also pin that a `BackupAndRestore` leaves
the order a seeded loader draws alone (it looks at the first batch before training).
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import lamina  # noqa: E402
from lamina import callbacks, layers  # noqa: E402

_RNG = np.random.RandomState(4)
X = _RNG.standard_normal((24, 4)).astype("float32")
Y = (X @ _RNG.standard_normal((4, 1))).astype("float32")
EPOCHS = 3


class _Interrupt(Exception):
    pass


class _StopAt(callbacks.Callback):
    """Raise (as a crash would) after batch `batch` of epoch `epoch` (or, with
    `batch=None`, as epoch `epoch` begins)."""

    def __init__(self, epoch, batch):
        super().__init__()
        self.at = (epoch, batch)

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch
        if self.at == (epoch, None):
            raise _Interrupt

    def on_train_batch_end(self, batch, logs=None):
        if self.at == (self.epoch, batch):
            raise _Interrupt


def _model():
    lamina.utils.set_random_seed(3)
    model = lamina.Sequential(
        [lamina.Input((4,)), layers.Dense(3, activation="relu"), layers.Dense(1)]
    )
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    return model


def _loader(shuffle):
    """A fresh loader, built as a restarted program would build it."""
    data = TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
    if shuffle:
        return DataLoader(
            data, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5)
        )
    return DataLoader(data, batch_size=4)


def _weights(model):
    return [np.asarray(w) for w in model.get_weights()]


def _uninterrupted(shuffle, **fit_kwargs):
    model = _model()
    history = model.fit(_loader(shuffle), epochs=EPOCHS, verbose=0, **fit_kwargs)
    return _weights(model), history.history


@functools.cache
def _reference(shuffle):
    """The uninterrupted run without callbacks (computed once: tests share it)."""
    return _uninterrupted(shuffle)


def _interrupted_then_resumed(tmp_path, shuffle, save_freq, stop_at, **fit_kwargs):
    backup_dir = str(tmp_path / "backup")
    with pytest.raises(_Interrupt):
        _model().fit(
            _loader(shuffle),
            epochs=EPOCHS,
            verbose=0,
            callbacks=[
                callbacks.BackupAndRestore(backup_dir, save_freq=save_freq),
                _StopAt(*stop_at),
            ],
            **fit_kwargs,
        )
    assert os.path.isdir(backup_dir)
    model = _model()
    history = model.fit(
        _loader(shuffle),
        epochs=EPOCHS,
        verbose=0,
        callbacks=[callbacks.BackupAndRestore(backup_dir, save_freq=save_freq)],
        **fit_kwargs,
    )
    assert not os.path.exists(backup_dir)  # a finished run deletes its backup
    return _weights(model), history.history


def _assert_same_weights(got, expected):
    # The same batches in the same order on the same engine: bitwise equal.
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shuffle", [False, True], ids=["fixed_order", "seeded_shuffle"])
def test_a_loader_resumed_mid_epoch_ends_with_the_uninterrupted_weights(tmp_path, shuffle):
    expected, reference = _reference(shuffle)
    # Backups after batches 2 and 4 of epoch 1; the run dies after batch 5 (index 4),
    # so the resumed run repeats that batch from the backup after 4.
    got, history = _interrupted_then_resumed(tmp_path, shuffle, save_freq=2, stop_at=(1, 4))
    _assert_same_weights(got, expected)
    assert history["loss"] == pytest.approx(reference["loss"][1:], rel=1e-5)


def test_a_seeded_shuffle_resumed_at_an_epoch_start_draws_that_epochs_order(tmp_path):
    # The backup from the end of epoch 1: the restarted loader must shuffle epoch 2 as
    # the third pass of its generator, not the first.
    expected, _ = _reference(True)
    got, _ = _interrupted_then_resumed(tmp_path, True, save_freq="epoch", stop_at=(2, None))
    _assert_same_weights(got, expected)


def test_a_seeded_shuffle_resumed_mid_pass_with_steps_per_epoch(tmp_path):
    # With steps_per_epoch=4 over the loader's 6 batches, epoch 0 reads batches 0-3 of
    # the first pass, epoch 1 batches 4-5 (the pass ends it), epoch 2 a second pass.
    # Interrupted after epoch 1's first batch, the resumed run must redraw the first
    # pass, skip its 5 batches read, and then draw the second pass as it was drawn.
    expected, _ = _uninterrupted(True, steps_per_epoch=4)
    got, _ = _interrupted_then_resumed(tmp_path, True, 1, (1, 0), steps_per_epoch=4)
    _assert_same_weights(got, expected)


def test_resuming_mid_epoch_on_a_loader_shuffled_by_the_global_generator_warns(tmp_path):
    def loader():
        return DataLoader(
            TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=4, shuffle=True
        )

    backup_dir = str(tmp_path / "backup")
    with pytest.raises(_Interrupt):
        _model().fit(
            loader(),
            epochs=2,
            verbose=0,
            callbacks=[callbacks.BackupAndRestore(backup_dir, save_freq=2), _StopAt(0, 2)],
        )
    with pytest.warns(UserWarning, match=r"torch\.Generator\(\)\.manual_seed"):
        _model().fit(
            loader(),
            epochs=2,
            verbose=0,
            callbacks=[callbacks.BackupAndRestore(backup_dir, save_freq=2)],
        )
