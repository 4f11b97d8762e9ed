"""MultiHeadAttention in `.keras` files, both ways between Keras 3 and lamina (skipped
without Keras): Keras's sublayer names (`query_dense`, ...), its `build_config`
(`shapes_dict`) and its constructor arguments (`use_gate`, `sliding_window`)."""

import json
import os
import zipfile

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(0)
SEQ = RNG.standard_normal((3, 5, 4)).astype("float32")
MEMORY = RNG.standard_normal((3, 6, 3)).astype("float32")
TOKENS = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0], [6, 7, 1, 2, 3]], "int32")


def _keras_self_attention(**kwargs):
    x = keras.Input((5, 4))
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, **kwargs)
    return keras.Model(x, mha(x, x, use_causal_mask=True))


def _keras_cross_attention():
    q, v = keras.Input((5, 4)), keras.Input((6, 3))
    # dropout > 0 keeps Keras on its explicit einsum path: its fused jax path refuses
    # value_dim != key_dim (Keras 3.15). Inference ignores the dropout.
    mha = keras.layers.MultiHeadAttention(
        num_heads=2, key_dim=3, value_dim=2, output_shape=7, dropout=0.1
    )
    return keras.Model([q, v], mha(q, v, key=v))


def _keras_masked_self_attention():
    x = keras.Input((5,), dtype="int32")
    h = keras.layers.Embedding(9, 4, mask_zero=True)(x)
    return keras.Model(x, keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)(h, h))


def _perturb_biases(model):
    # Biases start at zero; give them values so a bias left unloaded shows.
    for w in model.weights:
        w.assign(np.asarray(w) + RNG.standard_normal(tuple(w.shape)).astype("float32") * 0.1)


@pytest.mark.parametrize(
    "build, data",
    [
        (_keras_self_attention, SEQ),
        (lambda: _keras_self_attention(use_gate=True, sliding_window=2), SEQ),
        (_keras_cross_attention, [SEQ, MEMORY]),
        (_keras_masked_self_attention, TOKENS),
    ],
    ids=["self-causal", "gate-sliding-window", "cross-key", "embedding-mask"],
)
def test_keras_mha_file_loads_in_lamina(tmp_path, build, data):
    model = build()
    _perturb_biases(model)
    path = str(tmp_path / "from_keras.keras")
    model.save(path)
    loaded = lamina.models.load_model(path)
    mha = [layer for layer in loaded.layers if type(layer).__name__ == "MultiHeadAttention"][0]
    assert mha.query_dense is not None and mha.output_dense is not None
    np.testing.assert_allclose(
        loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
    )


def _lamina_model(masked):
    L = lamina.layers
    if masked:
        x = lamina.Input((5,), dtype="int32")
        h = L.Embedding(9, 4, mask_zero=True)(x)
        return lamina.Model(x, L.MultiHeadAttention(num_heads=2, key_dim=3)(h, h))
    q, v = lamina.Input((5, 4)), lamina.Input((6, 3))
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, use_gate=True, output_shape=7)
    return lamina.Model([q, v], mha(q, v, key=v, use_causal_mask=True))


@pytest.mark.parametrize("masked", [False, True], ids=["cross-gate-causal", "embedding-mask"])
def test_lamina_mha_file_loads_in_keras(tmp_path, masked):
    model = _lamina_model(masked)
    _perturb_biases(model)
    data = TOKENS if masked else [SEQ, MEMORY]
    path = str(tmp_path / "from_lamina.keras")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    layer = [c for c in config["config"]["layers"] if c["class_name"] == "MultiHeadAttention"][0]
    shapes = layer["build_config"]["shapes_dict"]
    assert shapes["query_shape"][1:] == ([5, 4] if masked else [5, 4])
    assert ("key_shape" in shapes) is not masked
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(
        loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
    )
