"""TensorBoard with Keras 2's arguments (issue 32): `embeddings_layer_names`,
`embeddings_data` and `batch_size` project layer outputs on data, as Keras 2.2.4's
`tensorboard_embeddings_mnist.py` asks; `write_grads` (and a `batch_size` with nothing to
batch) are accepted and ignored with one warning — never a TypeError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.callbacks import TensorBoard

pytest.importorskip("tensorboardX")
projector_config_pb2 = pytest.importorskip("tensorboard.plugins.projector.projector_config_pb2")
text_format = pytest.importorskip("google.protobuf.text_format")

RNG = np.random.default_rng(5)


def _config(log_dir):
    config = projector_config_pb2.ProjectorConfig()
    text_format.Parse((log_dir / "projector_config.pbtxt").read_text(), config)
    return {e.tensor_name: e for e in config.embeddings}


def test_the_keras2_projector_of_layer_outputs_on_data(tmp_path):
    x = RNG.uniform(size=(10, 4)).astype("float32")
    y = np.eye(3, dtype="float32")[RNG.integers(0, 3, size=10)]
    model = lamina.Sequential()
    model.add(layers.Dense(5, activation="relu", name="features", input_shape=(4,)))
    model.add(layers.Dropout(0.5))
    model.add(layers.Dense(3, activation="softmax"))
    model.compile(loss="categorical_crossentropy", optimizer="adadelta")
    board = TensorBoard(
        tmp_path,
        batch_size=4,  # three batches, the last one short
        embeddings_freq=1,
        embeddings_layer_names=["features"],
        embeddings_metadata="metadata.tsv",
        embeddings_data=x,
    )
    model.fit(x, y, batch_size=5, epochs=2, verbose=0, callbacks=[board])
    (entry,) = _config(tmp_path).values()
    assert entry.tensor_name == "features_embedding"
    assert entry.metadata_path == "metadata.tsv"
    table = np.loadtxt(tmp_path / entry.tensor_path, delimiter="\t")
    kernel, bias = model.get_layer("features").get_weights()
    # The last epoch's outputs, in inference mode (no dropout after the layer anyway).
    np.testing.assert_allclose(table, np.maximum(x @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    for epoch in (0, 1):
        assert (tmp_path / "train" / f"keras_embedding.ckpt-{epoch}.weights.h5").is_file()


def test_layer_names_choose_the_embedding_weights_without_data(tmp_path):
    model = lamina.Sequential(
        [
            lamina.Input((2,), dtype="int32"),
            layers.Embedding(5, 3, name="words"),
            layers.Embedding(4, 3, name="unused"),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.array([[0, 1], [2, 3]], "int32"), np.zeros((2, 2, 1), "float32")
    board = TensorBoard(tmp_path, embeddings_freq=1, embeddings_layer_names="words")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[board])
    assert list(_config(tmp_path)) == ["words/embeddings"]
    table = np.loadtxt(tmp_path / "train" / "words.embeddings.tsv", delimiter="\t")
    np.testing.assert_allclose(table, model.get_layer("words").get_weights()[0], rtol=1e-6)
    with pytest.raises(ValueError, match=r"\['nope'\], which are not layers"):
        TensorBoard(tmp_path, embeddings_freq=1, embeddings_layer_names=["nope"]).set_model(model)
    with pytest.raises(ValueError, match="not Embedding layers.*embeddings_data"):
        TensorBoard(
            tmp_path, embeddings_freq=1, embeddings_layer_names=[model.layers[-1].name]
        ).set_model(model)


def test_write_grads_and_an_idle_batch_size_warn_once_and_change_nothing(tmp_path):
    with pytest.warns(UserWarning, match="write_grads.*batch_size") as caught:
        board = TensorBoard(tmp_path, histogram_freq=1, write_grads=True, batch_size=32)
    assert len(caught) == 1
    assert board.write_grads and board.batch_size == 32
    x = RNG.uniform(size=(4, 2)).astype("float32")
    model = lamina.Sequential([lamina.Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x, x[:, :1], epochs=1, verbose=0, callbacks=[board])
    assert (tmp_path / "train").is_dir()
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        TensorBoard(tmp_path, batch_size=0)
