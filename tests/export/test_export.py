"""Model.export / ExportArchive: the artefact runs in its own runtime and gives predict's
outputs; export runs inference, leaves the model as it was, and refuses what it cannot do.

The reference is `model.predict` (lamina's ordinary inference path, not the export code).
On jax the `.stablehlo` file is run in a fresh process that imports only jax and NumPy
(`jax.export.deserialize`); on torch the `.pt2` runs through `torch.export.load` and the
`.onnx` through ONNX Runtime's `InferenceSession`, without lamina in between (ONNX from
jax needs the optional `jax2onnx`: without it the test checks the error that says so).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina import backend, export, layers, ops
from lamina.layers import InputSpec

ENGINE = backend.backend()
NATIVE = {"jax": "stablehlo", "torch": "torch"}[ENGINE]
SUFFIX = {"stablehlo": ".stablehlo", "torch": ".pt2", "onnx": ".onnx"}
# Weights are set at random after building: zeros build fast (no orthogonal draws).
ZEROS = {"kernel_initializer": "zeros"}


def _randomize(model, seed=0):
    """Weights drawn at random; BatchNormalization's moving statistics far from 0/1, so
    inference with the moving statistics differs from training with batch statistics."""
    rng = np.random.default_rng(seed)
    values = []
    for w in model.weights:
        value = rng.normal(scale=0.5, size=w.shape)
        if "moving_variance" in w.path:
            value = rng.uniform(0.5, 2.0, size=w.shape)
        values.append(value.astype(w.dtype))
    model.set_weights(values)


def _multi_io_model(lstm=True):
    """Two inputs, two outputs: Conv2D, BatchNormalization, Dropout, Dense (and an LSTM)."""
    image = lamina.Input((6, 6, 2), name="image")
    features = lamina.Input((5, 3), name="features")
    y = layers.Conv2D(3, 3, activation="relu", **ZEROS)(image)
    y = layers.BatchNormalization()(y)
    y = layers.GlobalAveragePooling2D()(y)
    y = layers.Dropout(0.9)(y)
    z = (
        layers.LSTM(4, recurrent_initializer="zeros", **ZEROS)(features)
        if lstm
        else layers.Flatten()(features)
    )
    z = layers.Dropout(0.5)(z)
    joined = layers.Concatenate()([y, z])
    logits = layers.Dense(2, name="logits", **ZEROS)(joined)
    score = layers.Dense(1, activation="sigmoid", name="score", **ZEROS)(z)
    model = lamina.Model([image, features], [logits, score])
    _randomize(model)
    return model


def _data(batch, seed=1):
    rng = np.random.default_rng(seed)
    return [
        rng.normal(size=(batch, 6, 6, 2)).astype("float32"),
        rng.normal(size=(batch, 5, 3)).astype("float32"),
    ]


def _numpy(x):
    return np.asarray(ops.convert_to_numpy(x))


def _state(model):
    return [np.array(ops.convert_to_numpy(w)) for w in model.weights]


# The engine's own program format ----------------------------------------------------------
_RUN_STABLEHLO = textwrap.dedent(
    """
    import sys
    import numpy as np
    from jax import export

    program, inputs, outputs = sys.argv[1:]
    exported = export.deserialize(bytearray(open(program, "rb").read()))
    with np.load(inputs) as data:
        results = {}
        for batch in (3, 7):
            got = exported.call([data[f"image_{batch}"], data[f"features_{batch}"]])
            for i, value in enumerate(got):
                results[f"{i}_{batch}"] = np.asarray(value)
    np.savez(outputs, **results)
    assert not any(name.startswith("lamina") for name in sys.modules)
    """
)


def test_native_program_runs_in_its_runtime_like_predict(tmp_path):
    model = _multi_io_model()
    before = _state(model)
    nodes = len(model._inbound_nodes)
    path = tmp_path / f"model{SUFFIX[NATIVE]}"
    model.export(str(path), format=NATIVE, verbose=False)
    assert path.exists() and not list(tmp_path.glob("*partial*"))

    # Export runs inference and changes nothing: same weights, no new graph nodes.
    assert all(np.array_equal(a, b) for a, b in zip(before, _state(model), strict=True))
    assert len(model._inbound_nodes) == nodes

    inputs = {3: _data(3), 7: _data(7, seed=2)}  # one program for every batch size
    # One predict over both batches (one compiled program), split back per batch.
    joined = model.predict([np.concatenate(p) for p in zip(*inputs.values())], verbose=0)
    expected = {3: [e[:3] for e in joined], 7: [e[3:] for e in joined]}
    if ENGINE == "jax":
        script = tmp_path / "run.py"
        script.write_text(_RUN_STABLEHLO)
        feed = {f"{k}_{b}": v for b, x in inputs.items() for k, v in zip(("image", "features"), x)}
        np.savez(tmp_path / "in.npz", **feed)
        subprocess.run(
            [
                sys.executable,
                str(script),
                str(path),
                str(tmp_path / "in.npz"),
                str(tmp_path / "out.npz"),
            ],
            check=True,
            timeout=120,
        )
        with np.load(tmp_path / "out.npz") as out:
            got = {b: [out[f"{i}_{b}"] for i in range(2)] for b in inputs}
    else:
        import torch

        program = torch.export.load(str(path)).module()
        with torch.no_grad():
            got = {
                b: [_numpy(v) for v in program([torch.from_numpy(a) for a in x])]
                for b, x in inputs.items()
            }
    for batch in inputs:
        for g, e in zip(got[batch], expected[batch], strict=True):
            assert g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)

    # lamina's own loader runs the same file.
    reloaded = export.load(path)
    for g, e in zip(reloaded.serve(inputs[3]), expected[3], strict=True):
        np.testing.assert_allclose(_numpy(g), e, rtol=1e-5, atol=1e-5)


def test_a_free_time_axis_stays_free_or_is_refused_by_name(tmp_path):
    x = lamina.Input((None, 3), name="steps")
    lstm = layers.LSTM(4, recurrent_initializer="zeros", **ZEROS)
    model = lamina.Model(x, layers.Dense(2, **ZEROS)(lstm(x)))
    _randomize(model, seed=6)
    path = tmp_path / f"model{SUFFIX[NATIVE]}"
    if ENGINE == "torch":
        # torch's LSTM loop runs in Python, so its time axis cannot stay dynamic: the
        # error names the input and axis instead of writing a fixed-length program.
        with pytest.raises(ValueError, match="steps_axis1"):
            model.export(str(path), format=NATIVE, verbose=False)
        assert not path.exists()
        return
    model.export(str(path), format=NATIVE, verbose=False)
    serve = export.load(path).serve  # a jax scan over a symbolic length
    for steps in (2, 6):
        data = np.random.default_rng(steps).normal(size=(3, steps, 3)).astype("float32")
        np.testing.assert_allclose(
            _numpy(serve(data)), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
        )


def test_export_archive_writes_endpoints_and_collections(tmp_path, capsys):
    x = lamina.Input((4,), name="x")
    hidden = layers.Dense(3, activation="tanh", name="hidden", **ZEROS)(x)
    model = lamina.Model(x, layers.Dense(2, name="out", **ZEROS)(hidden))
    _randomize(model, seed=3)
    features = lamina.Model(x, hidden)

    archive = export.ExportArchive()
    spec = [InputSpec(shape=(None, 4), dtype="float32")]
    archive.add_endpoint("serve", model.call, input_signature=spec)  # tracks the model
    archive.add_endpoint("features", lambda t: features(t), input_signature=spec)
    archive.add_variable_collection("hidden_weights", model.get_layer("hidden").weights)
    with pytest.raises(ValueError, match="already taken"):
        archive.add_endpoint("serve", model, input_signature=spec)
    archive.write_out(str(tmp_path / "archive"))
    assert "Endpoints:" in capsys.readouterr().out

    manifest = json.loads((tmp_path / "archive" / "manifest.json").read_text())
    assert manifest["format"] == NATIVE and sorted(manifest["endpoints"]) == ["features", "serve"]
    reloaded = export.load(str(tmp_path / "archive"))
    data = np.random.default_rng(4).normal(size=(5, 4)).astype("float32")
    np.testing.assert_allclose(
        _numpy(reloaded.serve(data)), model.predict(data, verbose=0), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        _numpy(reloaded.features(data)), features.predict(data, verbose=0), rtol=1e-5, atol=1e-6
    )
    kernel, bias = (_numpy(w) for w in model.get_layer("hidden").weights)
    np.testing.assert_array_equal(reloaded.hidden_weights[0], kernel)
    np.testing.assert_array_equal(reloaded.hidden_weights[1], bias)


def test_onnx_runs_in_onnxruntime_like_predict(tmp_path):
    onnxruntime = pytest.importorskip("onnxruntime")
    path = tmp_path / "model.onnx"
    if ENGINE == "jax" and importlib.util.find_spec("jax2onnx") is None:
        # ONNX from jax needs the jax2onnx converter, an optional extra.
        with pytest.raises(ImportError, match="pip install jax2onnx"):
            _small_model().export(str(path), format="onnx", verbose=False)
        assert not path.exists()
        return
    model = _multi_io_model(lstm=False)
    model.export(str(path), format="onnx", verbose=False)
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["image", "features"]
    assert [o.name for o in session.get_outputs()] == ["logits", "score"]
    for batch in (3, 5):
        data = _data(batch, seed=batch)
        got = session.run(None, {"image": data[0], "features": data[1]})
        for g, e in zip(got, model.predict(data, verbose=0), strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


# Refusals ---------------------------------------------------------------------------------
def _small_model():
    x = lamina.Input((3,))
    return lamina.Model(x, layers.Dense(2, **ZEROS)(x))


def test_formats_lamina_does_not_write_are_refused_with_what_to_use(tmp_path):
    model = _small_model()
    path = str(tmp_path / "model")
    mine = {"jax": "'stablehlo', 'onnx'", "torch": "'torch', 'onnx'"}[ENGINE]
    with pytest.raises(ValueError, match="needs TensorFlow") as info:
        model.export(path)  # Keras's default, tf_saved_model
    assert mine in str(info.value)
    with pytest.raises(ValueError, match="Unknown export format 'savedmodel'") as info:
        model.export(path, format="savedmodel")
    assert mine in str(info.value)
    other, format = {"jax": ("torch", "torch"), "torch": ("jax", "stablehlo")}[ENGINE]
    with pytest.raises(ValueError, match=f"LAMINA_BACKEND={other}"):
        model.export(path, format=format)
    if ENGINE == "torch":
        with pytest.raises(ValueError, match="'.pt2'"):
            model.export(path, format="torch")
    assert not list(tmp_path.iterdir())


def test_archive_misuse_is_explained(tmp_path):
    archive = export.ExportArchive()
    with pytest.raises(ValueError, match="has not been built"):
        archive.track(layers.Dense(2))
    with pytest.raises(ValueError, match="no endpoint"):
        archive.write_out(str(tmp_path / "a"))
    model = _small_model()
    archive.track(model)
    with pytest.raises(ValueError, match="needs an `input_signature`"):
        archive.add_endpoint("serve", model)
    with pytest.raises(ValueError, match="Python identifier"):
        archive.add_endpoint(
            "serve me", model, input_signature=[InputSpec(shape=(None, 3), dtype="float32")]
        )
    with pytest.raises(TypeError, match="InputSpec"):
        archive.add_endpoint("serve", model, input_signature=["float32"])
    with pytest.raises(ValueError, match="shape` and `dtype"):
        archive.add_endpoint("serve", model, input_signature=[InputSpec(shape=(None, 3))])
    with pytest.raises(FileNotFoundError):
        export.load(str(tmp_path / "missing.stablehlo"))


class _Counting(layers.Layer):
    """Counts its calls in a variable: state an exported program cannot carry."""

    def build(self, input_shape):
        self.count = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, x):
        self.count.assign(self.count + 1.0)
        return x


def test_an_endpoint_that_assigns_state_is_refused(tmp_path):
    x = lamina.Input((3,))
    model = lamina.Model(x, _Counting()(layers.Dense(2, **ZEROS)(x)))
    with pytest.raises(ValueError, match="assigns variables"):
        model.export(str(tmp_path / f"m{SUFFIX[NATIVE]}"), format=NATIVE, verbose=False)
    assert float(_numpy(model.layers[-1].count)) == 0.0
    assert not list(tmp_path.iterdir())


def test_subclassed_model_exports_with_its_build_shape(tmp_path):
    class TwoLayers(lamina.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = layers.Dense(4, activation="relu")
            self.out = layers.Dense(1)

        def call(self, x, training=None):
            return self.out(self.hidden(x))

    model = TwoLayers()
    with pytest.raises(ValueError, match="has not been built"):
        model.export(str(tmp_path / f"m{SUFFIX[NATIVE]}"), format=NATIVE)
    data = np.random.default_rng(5).normal(size=(6, 3)).astype("float32")
    model(data[:2])
    path = tmp_path / f"m{SUFFIX[NATIVE]}"
    model.export(str(path), format=NATIVE, verbose=False)
    np.testing.assert_allclose(
        _numpy(export.load(str(path)).serve(data)),
        model.predict(data, verbose=0),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.engine("jax")
def test_stablehlo_lowers_for_the_platforms_asked(tmp_path):
    from jax import export as jax_export

    path = tmp_path / "model.stablehlo"
    model = _small_model()
    with pytest.raises(ValueError, match=r"Unknown option\(s\) \['opset_version'\]"):
        model.export(str(path), format="stablehlo", opset_version=17)
    model.export(str(path), format="stablehlo", verbose=False, platforms=("cpu", "cuda"))
    exported = jax_export.deserialize(bytearray(path.read_bytes()))
    assert exported.platforms == ("cpu", "cuda")  # served on a GPU by a CUDA jaxlib
    (aval,) = exported.in_avals
    assert str(aval.shape[0]) == "batch" and aval.shape[1] == 3
