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
