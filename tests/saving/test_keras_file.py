"""`.keras` files: round trips, resumed training, atomic writes, and hostile files."""

import io
import json
import tempfile
import zipfile

import h5py
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


# Hostile files, each built here and each refused ------------------------------------
def _parts_of(model):
    """The entries of a valid .keras file of `model`, to tamper with."""
    with tempfile.TemporaryDirectory() as tmp:
        model.save(f"{tmp}/m.keras")
        with zipfile.ZipFile(f"{tmp}/m.keras") as zf:
            return {name: zf.read(name) for name in zf.namelist()}


def _good_parts():
    return _parts_of(_sequential())


def _write_zip(path, parts, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return path


def _hostile_weights(mutate):
    parts = _good_parts()
    buf = io.BytesIO(parts["model.weights.h5"])
    with h5py.File(buf, "a") as f:
        mutate(f)
    parts["model.weights.h5"] = buf.getvalue()
    return parts


def _config(parts):
    return json.loads(parts["config.json"])


def _with_config(parts, config):
    parts = dict(parts)
    parts["config.json"] = json.dumps(config).encode()
    return parts


def _deep_config():
    parts = _good_parts()
    config = _config(parts)
    node = config["config"]["layers"][1]["config"]
    for _ in range(200):
        node["nested"] = {}
        node = node["nested"]
    return _with_config(parts, config)


def _function_reference(name):
    parts = _good_parts()
    config = _config(parts)
    config["config"]["layers"][1]["config"]["activation"] = {
        "module": "keras.utils",
        "class_name": "function",
        "config": name,
        "registered_name": "function",
    }
    return _with_config(parts, config)


def _class_reference(module, class_name):
    parts = _good_parts()
    config = _config(parts)
    config["config"]["layers"][1] = {
        "module": module,
        "class_name": class_name,
        "config": {},
        "registered_name": None,
    }
    return _with_config(parts, config)


def _lambda_model():
    return _parts_of(Sequential([Input((4,)), layers.Lambda(lambda t: t * 2.0)]))


HOSTILE = {
    "absolute_path": (lambda: {**_good_parts(), "/etc/evil": b"x"}, "not a plain relative name"),
    "parent_traversal": (
        lambda: {**_good_parts(), "../evil.txt": b"x"},
        "not a plain relative name",
    ),
    "unexpected_entry": (
        lambda: {**_good_parts(), "payload.py": b"import os"},
        "unexpected zip entry",
    ),
    "zip_bomb": (lambda: {**_good_parts(), "assets/bomb": b"\0" * (20 * 1024 * 1024)}, "zip bomb"),
    "h5_external_link": (
        lambda: _hostile_weights(
            lambda f: f.__setitem__("evil", h5py.ExternalLink("/etc/passwd", "/"))
        ),
        "ExternalLink",
    ),
    "h5_external_dataset": (
        lambda: _hostile_weights(
            lambda f: f.create_dataset(
                "ext", shape=(4,), dtype="float32", external=[("/etc/hostname", 0, 16)]
            )
        ),
        "outside the file",
    ),
    "weight_shape_mismatch": (
        lambda: _hostile_weights(
            lambda f: (
                f["layers"]["dense"]["vars"].__delitem__("0"),
                f["layers"]["dense"]["vars"].create_dataset(
                    "0", data=np.zeros((400, 8), "float32")
                ),
            )
        ),
        r"has shape \(4, 8\), but the file holds shape \(400, 8\)",
    ),
    "config_too_deep": (_deep_config, "nested deeper than"),
    "file_download_function": (
        lambda: _function_reference("keras.utils.get_file"),
        "Unknown function",
    ),
    "config_switch_function": (
        lambda: _function_reference("enable_unsafe_deserialization"),
        "Unknown function",
    ),
    "plotting_class": (
        lambda: _class_reference("keras.utils", "plot_model"),
        "Unknown layer class 'plot_model'",
    ),
    "lambda_bytecode": (_lambda_model, "safe mode"),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_files_are_refused(tmp_path, attack):
    make, message = HOSTILE[attack]
    hostile_dir = tmp_path / "hostile"
    hostile_dir.mkdir()
    path = _write_zip(hostile_dir / f"{attack}.keras", make())
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match=message):
        models.load_model(path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written anywhere


def test_lambda_loads_with_safe_mode_off(tmp_path):
    path = _write_zip(tmp_path / "lambda.keras", _lambda_model())
    model = models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(model.predict(np.ones((1, 4), "float32"), verbose=0), [[2.0] * 4])


def test_not_a_keras_file(tmp_path):
    path = tmp_path / "x.keras"
    path.write_text("hello")
    with pytest.raises(ValueError, match="is not a .keras"):
        models.load_model(path)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        _sequential().save(tmp_path / "x.h5")
