"""Every save is atomic: a save that fails halfway leaves the previous file
byte-identical and no temporary file behind; saved files get ordinary permissions."""

import os
import sys
import zipfile

import h5py
import numpy as np
import pytest

from lamina import Input, Sequential, callbacks, layers, utils
from lamina.saving import atomic

X = np.random.default_rng(0).random((32, 4)).astype("float32")
Y = np.random.default_rng(1).integers(0, 3, 32)


def _model():
    # Seeded: an unlucky draw (about 1 in 20) trains to NaN, which changes what is saved.
    utils.set_random_seed(0)
    model = Sequential([Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(3)])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def _crash_zip_at_weights(monkeypatch):
    """The .keras writer dies after writing metadata and config into its temp file."""
    original = zipfile.ZipFile.writestr

    def crash(self, name, data, *args, **kwargs):
        if name == "model.weights.h5":
            raise OSError("disk full (simulated)")
        return original(self, name, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", crash)


def _crash_h5_after(monkeypatch, datasets):
    """The HDF5 writer dies after writing `datasets` datasets into its temp file."""
    original = h5py.Group.create_dataset
    count = {"n": 0}

    def crash(self, *args, **kwargs):
        count["n"] += 1
        if count["n"] > datasets:
            raise OSError("disk full (simulated)")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(h5py.Group, "create_dataset", crash)


def _assert_intact(path, before):
    assert path.read_bytes() == before
    leftovers = [p.name for p in path.parent.iterdir() if p.name != path.name]
    assert leftovers == []


def test_model_save_failing_halfway(tmp_path, monkeypatch):
    model = _model()
    path = tmp_path / "m.keras"
    model.save(path)
    before = path.read_bytes()
    model.fit(X, Y, epochs=1, verbose=0)
    _crash_zip_at_weights(monkeypatch)
    with pytest.raises(OSError, match="disk full") as info:
        model.save(path)
    _assert_intact(path, before)
    assert "the file there from before is unchanged" in "\n".join(info.value.__notes__)


def test_save_weights_failing_halfway(tmp_path, monkeypatch):
    model = _model()
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    before = path.read_bytes()
    model.fit(X, Y, epochs=1, verbose=0)
    _crash_h5_after(monkeypatch, 2)
    with pytest.raises(OSError, match="disk full") as info:
        model.save_weights(path)
    _assert_intact(path, before)
    assert "the file there from before is unchanged" in "\n".join(info.value.__notes__)


def test_backup_failing_halfway(tmp_path, monkeypatch):
    model = _model()
    backup_dir = tmp_path / "backup"
    backup = callbacks.BackupAndRestore(backup_dir, delete_checkpoint=False)
    model.fit(X, Y, epochs=1, batch_size=16, verbose=0, callbacks=[backup])
    path = backup_dir / "backup.h5"
    before = path.read_bytes()
    _crash_h5_after(monkeypatch, 3)
    with pytest.raises(OSError, match="disk full"):
        model.fit(X, Y, epochs=2, batch_size=16, verbose=0, callbacks=[backup])
    _assert_intact(path, before)


def test_model_checkpoint_failing_halfway(tmp_path, monkeypatch):
    model = _model()
    path = tmp_path / "ckpt.keras"
    checkpoint = callbacks.ModelCheckpoint(str(path))
    model.fit(X, Y, epochs=1, verbose=0, callbacks=[checkpoint])
    before = path.read_bytes()
    _crash_zip_at_weights(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        model.fit(X, Y, epochs=1, verbose=0, callbacks=[checkpoint])
    _assert_intact(path, before)


def test_data_is_fsynced_before_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd)))
    monkeypatch.setattr(
        atomic.os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))
    )
    _model().save(tmp_path / "m.keras")
    assert events[:2] == ["fsync", "replace"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_saved_files_respect_the_umask(tmp_path, umask, mode):
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0)
    old = os.umask(umask)
    try:
        model.save(tmp_path / "m.keras")
        model.save_weights(tmp_path / "m.weights.h5")
        model._write_backup(str(tmp_path / "backup"), 1, 0, np.random.get_state())
    finally:
        os.umask(old)
    for path in (tmp_path / "m.keras", tmp_path / "m.weights.h5", tmp_path / "backup/backup.h5"):
        assert oct(path.stat().st_mode & 0o777) == oct(mode), path.name
