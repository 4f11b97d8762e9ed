"""callbacks.TensorBoard: event files read back with TensorBoard's own reader."""

from __future__ import annotations

import io
import json
import os
import sys

import numpy as np
import pytest

import lamina
from lamina import backend, layers, ops

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

EVERYTHING = {"scalars": 0, "histograms": 0, "images": 0, "tensors": 0, "compressedHistograms": 0}


def _read(folder):
    accumulator = event_accumulator.EventAccumulator(str(folder), size_guidance=EVERYTHING)
    accumulator.Reload()
    return accumulator


def _scalars(accumulator, tag):
    events = accumulator.Scalars(tag)
    return [e.step for e in events], [e.value for e in events]


def _data(n=24, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 3).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")
    return x, y


def _f32(values):
    # Event files hold scalars as float32; the logs are float32 results too.
    return [float(np.float32(v)) for v in values]


def test_scalars_per_epoch_per_batch_and_evaluation(tmp_path):
    x, y = _data()
    inp = lamina.Input((3,), name="x")
    model = lamina.Model(inp, layers.Dense(1, name="out")(layers.Dense(4, name="hidden")(inp)))
    schedule = lamina.optimizers.schedules.ExponentialDecay(0.05, decay_steps=3, decay_rate=0.5)
    model.compile(optimizer=lamina.optimizers.SGD(schedule), loss="mse", metrics=["mae"])
    batch_logs = []
    record = lamina.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: batch_logs.append(dict(logs))
    )
    board = lamina.callbacks.TensorBoard(
        tmp_path, update_freq=2, write_steps_per_second=True, write_graph=False
    )
    history = model.fit(
        x,
        y,
        batch_size=8,  # 3 batches per epoch
        epochs=3,
        validation_data=(x[:16], y[:16]),
        callbacks=[record, board],
        verbose=0,
    ).history
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train, val = _read(tmp_path / "train"), _read(tmp_path / "validation")

    for name in ("loss", "mae"):
        assert _scalars(train, f"epoch_{name}") == ([0, 1, 2], _f32(history[name]))
        assert _scalars(val, f"epoch_{name}") == ([0, 1, 2], _f32(history[f"val_{name}"]))
        # After each validation, at the optimizer's step count (3 steps per epoch).
        assert _scalars(val, f"evaluation_{name}_vs_iterations") == (
            [3, 6, 9],
            _f32(history[f"val_{name}"]),
        )
    # The schedule's rate at the step count reached by the end of each epoch.
    steps, rates = _scalars(train, "epoch_learning_rate")
    assert steps == [0, 1, 2]
    np.testing.assert_allclose(
        rates, [0.05 * 0.5 ** (3 * (e + 1) / 3) for e in range(3)], rtol=1e-6
    )
    steps, speeds = _scalars(train, "epoch_steps_per_second")
    assert steps == [0, 1, 2] and all(s > 0 for s in speeds)

    # update_freq=2: batches 2, 4, 6, 8 of the 9, counted across epochs from 1.
    assert len(batch_logs) == 9
    for name in ("loss", "mae"):
        assert _scalars(train, f"batch_{name}") == (
            [2, 4, 6, 8],
            _f32([batch_logs[i - 1][name] for i in (2, 4, 6, 8)]),
        )
    assert _scalars(train, "batch_steps_per_second")[0] == [2, 4, 6, 8]
    assert "batch_loss" not in val.Tags()["scalars"]

    # A later evaluate() adds its own point at the current step count.
    loss, mae = model.evaluate(x, y, batch_size=8, callbacks=[board], verbose=0)
    val = _read(tmp_path / "validation")
    assert _scalars(val, "evaluation_loss_vs_iterations") == (
        [3, 6, 9, 9],
        _f32([*history["val_loss"], loss]),
    )


def test_epoch_mode_writes_no_batch_scalars_and_no_validation_folder(tmp_path):
    x, y = _data(8)
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(
        x,
        y,
        batch_size=4,
        epochs=2,
        callbacks=[lamina.callbacks.TensorBoard(tmp_path, write_graph=False)],
        verbose=0,
    ).history
    assert os.listdir(tmp_path) == ["train"]
    train = _read(tmp_path / "train")
    assert sorted(train.Tags()["scalars"]) == ["epoch_learning_rate", "epoch_loss"]
    assert _scalars(train, "epoch_loss") == ([0, 1], _f32(history["loss"]))
    assert _scalars(train, "epoch_learning_rate") == ([0, 1], _f32([0.01, 0.01]))


def _conv_model():
    inp = lamina.Input((6, 3), name="seq")
    conv = layers.Conv1D(5, 2, name="conv")(inp)
    flat = layers.Flatten(name="flat")(conv)
    side = layers.Dense(4, name="side")(layers.Flatten(name="flat_in")(inp))
    doubled = ops.multiply(side, 2.0)  # an op node
    merged = layers.Concatenate(name="merge")([flat, doubled])
    model = lamina.Model(inp, layers.Dense(1, name="head")(merged), name="net")
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_histograms_images_and_graph(tmp_path):
    from PIL import Image

    model = _conv_model()
    rng = np.random.RandomState(1)
    x, y = rng.rand(8, 6, 3).astype("float32"), rng.rand(8, 1).astype("float32")
    model.fit(
        x,
        y,
        batch_size=4,
        epochs=3,
        verbose=0,
        callbacks=[lamina.callbacks.TensorBoard(tmp_path, histogram_freq=2, write_images=True)],
    )
    train = _read(tmp_path / "train")
    weights = {w.path: ops.convert_to_numpy(w) for w in model.weights}
    assert set(weights) == {
        "conv/kernel",
        "conv/bias",
        "side/kernel",
        "side/bias",
        "head/kernel",
        "head/bias",
    }
    for path, value in weights.items():
        events = train.Histograms(f"{path}/histogram")
        assert [e.step for e in events] == [0, 2]  # epochs 0 and 2 of 0..2
        for event in events:
            histo = event.histogram_value
            assert histo.num == value.size == sum(histo.bucket)
        last = events[-1].histogram_value  # written after the last epoch: the final weights
        assert last.min == pytest.approx(value.min()) and last.max == pytest.approx(value.max())
        assert last.sum == pytest.approx(value.astype("float64").sum(), abs=1e-6)

    def image(tag):
        event = train.Images(tag)[-1]
        assert event.step == 2
        picture = Image.open(io.BytesIO(event.encoded_image_string))
        array = np.asarray(picture)
        assert (event.height, event.width) == array.shape[:2]
        return array

    # A dense kernel lies wide; values are drawn as tf.summary.image draws floats.
    kernel = weights["side/kernel"]  # (18, 4): transposed to 4 x 18
    pixels = image("side/kernel/image")
    assert pixels.shape == (4, 18)
    np.testing.assert_array_equal(pixels, np.clip(kernel.T * 255.5, 0, 255).astype("uint8"))
    assert image("side/bias/image").shape == (4, 1)  # a bias is a column
    # A 1-D convolution kernel (2, 3, 5): one 2 x 3 image per filter, at most 3.
    conv_tags = sorted(t for t in train.Tags()["images"] if t.startswith("conv/kernel"))
    assert conv_tags == [f"conv/kernel/image/{i}" for i in range(3)]
    np.testing.assert_array_equal(
        image("conv/kernel/image/1"),
        np.clip(weights["conv/kernel"][:, :, 1] * 255.5, 0, 255).astype("uint8"),
    )

    # The graph: one node per layer, an edge per connection, with output shapes.
    graph = train.Graph()
    nodes = {n.name: n for n in graph.node}
    (multiply,) = [name for name, node in nodes.items() if node.op == "multiply"]
    assert set(nodes) == {"seq", "conv", "flat", "flat_in", "side", multiply, "merge", "head"}
    assert nodes["seq"].op == "InputLayer" and list(nodes["seq"].input) == []
    assert nodes["conv"].op == "Conv1D" and list(nodes["conv"].input) == ["seq"]
    assert list(nodes[multiply].input) == ["side"]
    assert list(nodes["merge"].input) == ["flat", multiply]
    assert list(nodes["head"].input) == ["merge"]
    dims = nodes["conv"].attr["_output_shapes"].list.shape[0].dim
    assert [d.size for d in dims] == [-1, 5, 5]
    # ... and the model's config for TensorBoard's conceptual graph, as Keras writes it.
    (config_event,) = train.Tensors("keras")
    assert config_event.step == 0
    assert json.loads(config_event.tensor_proto.string_val[0]) == json.loads(model.to_json())
    assert train.summary_metadata["keras"].plugin_data.plugin_name == "graph_keras_model"


def test_profile_batch_traces_the_batch_range(tmp_path):
    x, y = _data(16)
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)], name="profiled")
    model.compile(optimizer="sgd", loss="mse")
    model.fit(
        x,
        y,
        batch_size=4,
        epochs=1,
        verbose=0,
        callbacks=[lamina.callbacks.TensorBoard(tmp_path, profile_batch=(2, 3))],
    )
    runs = list((tmp_path / "train" / "plugins" / "profile").iterdir())
    assert len(runs) == 1
    suffix = ".xplane.pb" if backend.backend() == "jax" else ".pt.trace.json"
    (trace,) = [p for p in runs[0].iterdir() if p.name.endswith(suffix)]
    # The train step is named in the trace (lamina's programs annotate their calls).
    assert b"train" in trace.read_bytes()


def test_embeddings_projector_config_and_checkpoints(tmp_path):
    model = lamina.Sequential(
        [lamina.Input((2,), dtype="int32"), layers.Embedding(5, 3, name="words"), layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.array([[0, 1], [2, 4]], "int32"), np.zeros((2, 2, 1), "float32")
    board = lamina.callbacks.TensorBoard(
        tmp_path, embeddings_freq=1, embeddings_metadata={"words": "words.tsv"}
    )
    model.fit(x, y, epochs=2, verbose=0, callbacks=[board])
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "words/embeddings"' in config and 'metadata_path: "words.tsv"' in config
    assert 'tensor_path: "train/words.embeddings.tsv"' in config
    for epoch in (0, 1):
        assert (tmp_path / "train" / f"keras_embedding.ckpt-{epoch}.weights.h5").is_file()
    table = np.loadtxt(tmp_path / "train" / "words.embeddings.tsv", delimiter="\t")
    np.testing.assert_allclose(table, ops.convert_to_numpy(model.layers[0].embeddings), rtol=1e-7)
    with pytest.raises(ValueError, match="not Embedding layers"):
        lamina.callbacks.TensorBoard(
            tmp_path, embeddings_freq=1, embeddings_metadata={"nope": "a.tsv"}
        ).set_model(model)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"update_freq": "sometimes"}, "update_freq"),
        ({"update_freq": 0}, "update_freq"),
        ({"profile_batch": (3, 1)}, "profile_batch"),
        ({"profile_batch": -1}, "profile_batch"),
        ({"profile_batch": "a,b"}, "profile_batch"),
        ({"histogram_freq": -1}, "histogram_freq"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lamina.callbacks.TensorBoard(**kwargs)


def test_profile_batch_forms():
    board = lamina.callbacks.TensorBoard(profile_batch="2,4")
    assert (board._start_batch, board._stop_batch) == (2, 4)
    board = lamina.callbacks.TensorBoard(profile_batch=5, update_freq="batch")
    assert (board._start_batch, board._stop_batch, board.update_freq) == (5, 5, 1)


def test_without_tensorboardx_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"pip install lamina\[tensorboard\]"):
        lamina.callbacks.TensorBoard()


def test_no_lamina_module_imports_tensorboardx_when_imported():
    # Only constructing the callback imports it: no module-level import in the package.
    import ast
    import pathlib

    offenders = []
    for path in pathlib.Path(lamina.__file__).parent.rglob("*.py"):
        source = path.read_text()
        if "tensorboardX" not in source:
            continue
        for node in ast.parse(source).body:
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if any(name.split(".")[0] == "tensorboardX" for name in names):
                offenders.append(str(path))
    assert offenders == []
