"""`.keras` files: round trips, resumed training, atomic writes, and hostile files."""

import zipfile

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, callbacks, layers, models

X = np.random.default_rng(0).random((48, 4)).astype("float32")
Y = np.random.default_rng(1).integers(0, 3, 48)


def _sequential():
    model = Sequential(
        [
            Input((4,)),
            layers.Dense(8, activation="relu"),
            layers.Dropout(0.2),
            layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def _functional():
    inner_in = Input((4,), name="inner_in")
    inner = Model(
        inner_in, layers.Dense(4, activation="tanh", name="inner_dense")(inner_in), name="inner"
    )
    x = Input((4,), name="x")
    shared = layers.Dense(4, name="shared")
    h = shared(inner(shared(x)))
    out = layers.Dense(3, activation="softmax", name="out")(layers.Concatenate()([h, x]))
    model = Model(x, out, name="graph")
    model.compile(
        optimizer=lamina.optimizers.SGD(0.1, momentum=0.9), loss="sparse_categorical_crossentropy"
    )
    return model


@pytest.mark.parametrize("build", [_sequential, _functional], ids=["sequential", "functional"])
def test_round_trip_predicts_and_resumes_training_identically(tmp_path, build):
    model = build()
    model.fit(X, Y, epochs=2, batch_size=16, verbose=0, shuffle=False)
    path = tmp_path / "model.keras"
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
    loaded = models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert type(loaded.optimizer) is type(model.optimizer)
    assert int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
    model.fit(X, Y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    loaded.fit(X, Y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    for a, b in zip(model.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_model_checkpoint_writes_keras_files(tmp_path):
    model = _sequential()
    model.fit(
        X,
        Y,
        epochs=2,
        verbose=0,
        callbacks=[callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))],
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-1.keras", "m-2.keras"]
    loaded = models.load_model(tmp_path / "m-2.keras")
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))


def test_failed_save_leaves_previous_file_intact(tmp_path, monkeypatch):
    model = _sequential()
    path = tmp_path / "model.keras"
    model.save(path)
    before = path.read_bytes()
    original = zipfile.ZipFile.writestr

    def crash(self, name, data, *args, **kwargs):
        if name == "model.weights.h5":
            raise OSError("disk full (simulated)")
        return original(self, name, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", crash)
    model.fit(X, Y, epochs=1, verbose=0)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.keras"]


def test_not_a_keras_file(tmp_path):
    path = tmp_path / "x.keras"
    path.write_text("hello")
    with pytest.raises(ValueError, match="is not a .keras"):
        models.load_model(path)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        _sequential().save(tmp_path / "x.txt")
