"""BackupAndRestore: a run killed with SIGKILL mid-epoch resumes to bitwise-equal weights."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lamina import Input, Sequential, callbacks, layers

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    import numpy as np
    import lamina
    from lamina import Input, Sequential, callbacks, layers

    backup_dir, out, kill_epoch, kill_batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    lamina.utils.set_random_seed(7)
    rng = np.random.RandomState(0)
    x = rng.standard_normal((60, 4)).astype("float32")
    y = (x @ rng.standard_normal((4, 1))).astype("float32")
    model = Sequential([Input((4,)), layers.Dense(16, activation="relu"), layers.Dropout(0.3), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])

    class Killer(callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.epoch = epoch

        def on_train_batch_end(self, batch, logs=None):
            if self.epoch == kill_epoch and batch == kill_batch:
                os.kill(os.getpid(), signal.SIGKILL)

    cbs = [callbacks.BackupAndRestore(backup_dir, save_freq=3), Killer()]
    model.fit(x, y, batch_size=8, epochs=3, shuffle=True, callbacks=cbs, verbose=0)
    np.savez(out, *model.get_weights())
    """
)


def _run(tmp_path, backup, out, kill_epoch=-1, kill_batch=-1):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, str(script), str(backup), str(out), str(kill_epoch), str(kill_batch)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _weights(path):
    with np.load(path) as data:
        return [data[k] for k in sorted(data.files, key=lambda k: int(k.split("_")[1]))]


def test_killed_run_resumes_to_bitwise_equal_weights(tmp_path):
    reference = _run(tmp_path, tmp_path / "backup_ref", tmp_path / "ref.npz")
    assert reference.returncode == 0, reference.stderr
    backup = tmp_path / "backup"
    killed = _run(tmp_path, backup, tmp_path / "resumed.npz", kill_epoch=1, kill_batch=4)
    assert killed.returncode == -signal.SIGKILL
    assert (backup / "backup.h5").exists() and not (tmp_path / "resumed.npz").exists()
    resumed = _run(tmp_path, backup, tmp_path / "resumed.npz")
    assert resumed.returncode == 0, resumed.stderr
    for a, b in zip(
        _weights(tmp_path / "ref.npz"), _weights(tmp_path / "resumed.npz"), strict=True
    ):
        assert np.array_equal(a, b)
    assert not backup.exists()  # delete_checkpoint=True removes it after a finished run


def test_non_finite_weights_are_never_backed_up(tmp_path):
    import h5py

    x = np.ones((16, 2), "float32")
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

    class Explode(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.model.optimizer.learning_rate = 1e30  # the next epoch diverges to NaN

    backup = callbacks.BackupAndRestore(str(tmp_path / "b"), delete_checkpoint=False)
    with pytest.warns(UserWarning, match="not finite"):
        model.fit(
            x,
            np.full((16, 1), 3.0, "float32"),
            epochs=2,
            batch_size=4,
            verbose=0,
            callbacks=[backup, Explode()],
        )
    assert not np.isfinite(model.layers[0].kernel.numpy()).all()
    with h5py.File(tmp_path / "b" / "backup.h5") as f:
        assert '"epoch": 1' in f.attrs["meta"]  # still the backup from the end of epoch 1
        assert np.isfinite(f["layers/dense/vars/0"][()]).all()
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.BackupAndRestore(str(tmp_path), save_freq=0)


class _Interrupt(Exception):
    pass


class _StopAt(callbacks.Callback):
    """Raise (as a crash would) at a given epoch and batch."""

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


def _small_model():
    import lamina

    lamina.utils.set_random_seed(3)
    model = Sequential([Input((4,)), layers.Dense(3, activation="relu"), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    return model


def _data():
    rng = np.random.RandomState(1)
    x = rng.standard_normal((24, 4)).astype("float32")
    return x, (x @ rng.standard_normal((4, 1))).astype("float32")


def _fit_interrupted(tmp_path, make_data, save_freq, stop_at, epochs=3, **fit_kwargs):
    """Fit once uninterrupted, then interrupted and resumed on a fresh model; both histories."""
    reference = _small_model().fit(*make_data(), epochs=epochs, verbose=0, **fit_kwargs)
    backup = callbacks.BackupAndRestore(str(tmp_path / "b"), save_freq=save_freq)
    with pytest.raises(_Interrupt):
        _small_model().fit(
            *make_data(),
            epochs=epochs,
            verbose=0,
            callbacks=[backup, _StopAt(*stop_at)],
            **fit_kwargs,
        )
    model = _small_model()
    resumed = model.fit(*make_data(), epochs=epochs, verbose=0, callbacks=[backup], **fit_kwargs)
    return reference, resumed, model


def test_resume_after_an_epoch_backup_starts_metrics_afresh(tmp_path):
    # The backup at the end of epoch 0 holds that epoch's metric totals; epoch 1 of the
    # resumed run must not add to them.
    ref, resumed, _ = _fit_interrupted(
        tmp_path, _data, "epoch", (1, None), batch_size=8, shuffle=False
    )
    assert resumed.epoch == [1, 2]
    for key in ("loss", "mae"):
        np.testing.assert_allclose(resumed.history[key], ref.history[key][1:], rtol=1e-5)


def test_resume_mid_epoch_continues_the_epoch_metrics(tmp_path):
    ref, resumed, _ = _fit_interrupted(tmp_path, _data, 2, (1, 2), batch_size=4, shuffle=False)
    assert resumed.epoch == [1, 2]
    np.testing.assert_allclose(resumed.history["loss"], ref.history["loss"][1:], rtol=1e-5)


def _generator_data():
    x, y = _data()

    def gen():
        while True:
            for i in range(0, 24, 8):
                yield x[i : i + 8], y[i : i + 8]

    return (gen(),)


def _pydataset_data():
    from lamina.utils import PyDataset

    x, y = _data()

    class Batches(PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return x[i * 8 : (i + 1) * 8], y[i * 8 : (i + 1) * 8]

    return (Batches(),)


@pytest.mark.parametrize(
    ("make_data", "fit_kwargs"),
    [(_generator_data, {"steps_per_epoch": 3}), (_pydataset_data, {})],
    ids=["generator", "pydataset"],
)
def test_resume_with_a_generator_or_pydataset(tmp_path, make_data, fit_kwargs):
    ref, resumed, model = _fit_interrupted(tmp_path, make_data, 2, (1, 1), **fit_kwargs)
    assert resumed.epoch == [1, 2]
    np.testing.assert_allclose(resumed.history["loss"], ref.history["loss"][1:], rtol=1e-5)
    reference_model = _small_model()
    reference_model.fit(*make_data(), epochs=3, verbose=0, **fit_kwargs)
    for a, b in zip(reference_model.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_backup_another_process_removed_first_is_no_error(tmp_path, monkeypatch):
    # The processes of a multi-process job share one backup directory, and each removes
    # the backup (and the data-order record) as its fit ends: whichever removes a file
    # second must not fail (the two-process torch test did, now and then, in CI).
    real_remove = os.remove

    def another_process_first(path):
        if os.path.exists(path):
            real_remove(path)  # the other process wins the race
        real_remove(path)

    backup_dir = tmp_path / "b"
    model = _small_model()
    monkeypatch.setattr(os, "remove", another_process_first)
    history = model.fit(
        *_data(),
        batch_size=8,
        epochs=2,
        verbose=0,
        callbacks=[callbacks.BackupAndRestore(str(backup_dir), save_freq=2)],
    )
    assert history.epoch == [0, 1]
    assert not backup_dir.exists()  # deleted as the fit ended normally
