"""Ops on symbolic tensors are written as Keras's op classes, so Keras 3 loads the file.

`x + y`, `ops.cast(x, ...)`, `x[:, 0]` in a lamina functional model become entries such
as `{"module": "keras.src.ops.numpy", "class_name": "Add", ...}`, the op's constructor
arguments in the entry's config and only the call arguments in the node; ops Keras has
no class for keep lamina's own `lamina.ops` form. Skipped without Keras.
"""

import json
import os
import zipfile

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.applications.inception_resnet_v2 import CustomScaleLayer  # noqa: E402

# File format, the same on both engines.
pytestmark = [
    pytest.mark.engine("jax"),
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
]

RNG = np.random.default_rng(0)
A = RNG.random((3, 4)).astype("float32")
B = RNG.random((3, 4)).astype("float32")


def _model():
    x = lamina.Input((4,), name="x")
    y = lamina.Input((4,), name="y")
    square = ops.reshape(x, (-1, 2, 2))
    outputs = [
        (x * 2.0 - y) / 3.0 + 1.0,  # operators with tensors and scalars, both sides
        1.0 - x**2,
        ops.cast((x > y) & (x <= 0.5), "float32"),  # comparisons, logical and, cast
        ops.cast(x != y, "int32"),
        x[:, 0],  # `[...]`: an index, slices, None, an ellipsis
        x[:, None, 1::2],
        x[..., 1:3],
        ops.concatenate([x, y], axis=-1),
        ops.concatenate((x, y)),  # a tuple of tensors is written as Keras's list
        ops.stack([x, y], 1),
        ops.transpose(square, (0, 2, 1)),
        ops.sum(square, axis=(1, 2), keepdims=True),  # a tuple axis comes back as a list
        ops.max(x, 1),
        ops.argmax(x, axis=1),
        ops.expand_dims(x, 1),
        ops.take(x, [0, 2], axis=1),
        ops.where(x > y, x, y),
        ops.clip(x, 0.2, 0.8),
        ops.einsum("ij,ij->i", x, y),
        ops.softmax(abs(x - y)),
        ops.round(x, 1),
        ops.log1p(x),  # no Keras class in lamina's table: lamina's own form
    ]
    return lamina.Model([x, y], outputs)


def _entries(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("config.json"))["config"]["layers"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    model = _model()
    path = str(tmp_path_factory.mktemp("ops") / "ops.keras")
    model.save(path)
    return model.predict([A, B], verbose=0), path


def _assert_same(expected, received):
    assert len(expected) == len(received)
    for e, r in zip(expected, received):
        np.testing.assert_allclose(np.asarray(r), np.asarray(e), rtol=1e-6, atol=1e-6)


def test_ops_are_written_as_keras_op_classes(saved):
    by_class = {e["class_name"]: e for e in _entries(saved[1])}
    add = by_class["Add"]
    assert add["module"] == "keras.src.ops.numpy" and add["registered_name"] == "Add"
    assert add["config"] == {"name": add["name"]}
    cast = by_class["Cast"]  # the last one: `ops.cast(x != y, "int32")`
    assert cast["module"] == "keras.src.ops.core" and cast["config"]["dtype"] == "int32"
    assert len(cast["inbound_nodes"][0]["args"]) == 1  # dtype is not a call argument
    assert by_class["Softmax"]["module"] == "keras.src.ops.nn"
    assert by_class["Sum"]["config"] == {
        "name": by_class["Sum"]["name"],
        "axis": [1, 2],
        "keepdims": True,
    }
    assert by_class["Einsum"]["config"]["subscripts"] == "ij,ij->i"
    assert by_class["Absolute"]["module"] == "keras.src.ops.numpy"  # Python's abs(x)
    assert by_class["log1p"]["module"] == "lamina.ops"
    assert not any(
        e["module"] == "lamina.ops" and e["class_name"] != "log1p" for e in _entries(saved[1])
    )


def test_keras_loads_the_file_and_predicts_the_same(saved):
    predictions, path = saved  # lamina's predictions and its file
    # Keras cannot run lamina's own `log1p` entry: it loads the file without that output.
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        parts = {name: archive.read(name) for name in names}
    config = json.loads(parts["config.json"])
    inner = config["config"]
    inner["layers"] = [e for e in inner["layers"] if e["module"] != "lamina.ops"]
    inner["output_layers"] = inner["output_layers"][:-1]
    parts["config.json"] = json.dumps(config).encode()
    keras_path = path.replace(".keras", "_keras.keras")
    with zipfile.ZipFile(keras_path, "w") as archive:
        for name in names:
            archive.writestr(name, parts[name])
    expected = predictions[:-1]
    received = keras.saving.load_model(keras_path).predict([A, B], verbose=0)
    _assert_same(expected, received)


def test_lamina_loads_its_file_back(saved):
    predictions, path = saved
    loaded = lamina.saving.load_model(path)
    _assert_same(predictions, loaded.predict([A, B], verbose=0))
    # Op nodes are not layers after loading either (as in Keras): only the inputs are.
    assert [layer.name for layer in loaded.layers] == ["x", "y"]
    # And it writes the same entries again.
    assert loaded.get_config()["layers"] == _entries(path)


def test_lamina_reads_its_old_op_form():
    x = lamina.Input((4,), name="x")
    model = lamina.Model(x, ops.cast(x * 2.0, "int32"))
    config = model.get_config()
    for entry in config["layers"][1:]:
        # Before, ops were written as lamina's op, every argument in the node.
        function = {"Multiply": "multiply", "Cast": "cast"}[entry["class_name"]]
        dtype = entry["config"].get("dtype")
        entry.update(module="lamina.ops", class_name=function, registered_name=None)
        entry["config"] = {"name": entry["name"], "function": function}
        if dtype is not None:
            entry["inbound_nodes"][0]["args"].append(dtype)
    loaded = lamina.Model.from_config(config)
    np.testing.assert_array_equal(np.asarray(loaded.predict(A, verbose=0)), (A * 2).astype("int32"))


def test_custom_scale_layer_is_written_for_keras(tmp_path):
    x = lamina.Input((3,))
    y = lamina.Input((3,))
    model = lamina.Model([x, y], CustomScaleLayer(0.5)([x, y]))
    path = str(tmp_path / "scale.keras")
    model.save(path)
    entry = _entries(path)[-1]
    assert entry["module"] == "keras.src.applications.inception_resnet_v2"
    assert entry["class_name"] == entry["registered_name"] == "CustomScaleLayer"
    expected = A[:, :3] + 0.5 * B[:, :3]
    _assert_same(
        [expected], [keras.saving.load_model(path).predict([A[:, :3], B[:, :3]], verbose=0)]
    )
    _assert_same(
        [expected], [lamina.saving.load_model(path).predict([A[:, :3], B[:, :3]], verbose=0)]
    )
