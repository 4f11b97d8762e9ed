"""Pooling layers: conformance (check_layer), numerics against NumPy loops, masks, errors."""

import itertools

import numpy as np
import pytest

from lamina import Input, layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(3)

CONFORMANCE = [
    (layers.MaxPooling1D, {}, (2, 7, 3), (2, 3, 3)),
    (layers.MaxPooling1D, {"pool_size": 3, "strides": 2, "padding": "same"}, (2, 7, 3), (2, 4, 3)),
    (
        layers.MaxPooling2D,
        {"pool_size": (2, 3), "data_format": "channels_first"},
        (2, 3, 5, 7),
        (2, 3, 2, 2),
    ),
    (layers.MaxPooling3D, {"padding": "same"}, (1, 3, 4, 5, 2), (1, 2, 2, 3, 2)),
    (layers.AveragePooling1D, {"pool_size": 3, "padding": "same"}, (2, 7, 3), (2, 3, 3)),
    (layers.AveragePooling2D, {"strides": 1}, (2, 4, 5, 3), (2, 3, 4, 3)),
    (
        layers.AveragePooling3D,
        {"data_format": "channels_first", "padding": "same"},
        (1, 2, 3, 4, 5),
        (1, 2, 2, 2, 3),
    ),
    (layers.GlobalMaxPooling1D, {}, (2, 7, 3), (2, 3)),
    (layers.GlobalMaxPooling2D, {"keepdims": True}, (2, 4, 5, 3), (2, 1, 1, 3)),
    (layers.GlobalMaxPooling3D, {"data_format": "channels_first"}, (1, 2, 3, 4, 5), (1, 2)),
    (layers.GlobalAveragePooling1D, {"data_format": "channels_first"}, (2, 3, 7), (2, 3)),
    (layers.GlobalAveragePooling2D, {}, (2, 4, 5, 3), (2, 3)),
    (layers.GlobalAveragePooling3D, {"keepdims": True}, (1, 2, 3, 4, 5), (1, 1, 1, 1, 5)),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, out_shape",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, out_shape):
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
    )


def test_global_average_pooling_1d_mask_conformance():
    check_layer(
        layers.GlobalAveragePooling1D,
        {},
        input_shape=(2, 5, 3),
        expected_output_shape=(2, 3),
        supports_masking=True,
    )


def ref_pool(x, pool, strides, padding, mode):
    """Channels-last pooling by explicit loops; "same" windows keep only valid elements."""
    spatial = x.shape[1:-1]
    outs, starts = [], []
    for n, p, s in zip(spatial, pool, strides, strict=True):
        if padding == "valid":
            out, before = (n - p) // s + 1, 0
        else:
            out = -(-n // s)
            before = max((out - 1) * s + p - n, 0) // 2
        outs.append(out)
        starts.append([o * s - before for o in range(out)])
    y = np.zeros((x.shape[0], *outs, x.shape[-1]))
    for pos in itertools.product(*[range(o) for o in outs]):
        idx = tuple(
            slice(max(st[o], 0), min(st[o] + p, n))
            for st, o, p, n in zip(starts, pos, pool, spatial, strict=True)
        )
        window = x[(slice(None),) + idx + (slice(None),)].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None),) + pos] = window.max(1) if mode == "max" else window.mean(1)
    return y


@pytest.mark.parametrize(
    "rank, shape, kwargs, data_format",
    [
        (1, (2, 9, 3), {"pool_size": 4, "strides": 3}, "channels_last"),
        (1, (2, 9, 3), {"pool_size": 4, "strides": 2, "padding": "same"}, "channels_first"),
        (2, (2, 7, 5, 3), {"pool_size": (3, 2), "padding": "same"}, "channels_last"),
        (2, (1, 7, 6, 2), {"pool_size": 3, "strides": (2, 1), "padding": "same"}, "channels_first"),
        (2, (1, 7, 6, 2), {"pool_size": (2, 3), "strides": 2}, "channels_last"),
        (3, (1, 5, 4, 3, 2), {"pool_size": 2, "padding": "same"}, "channels_last"),
        (3, (1, 5, 4, 3, 2), {"pool_size": (3, 2, 2), "strides": 1}, "channels_first"),
    ],
)
@pytest.mark.parametrize("mode", ["max", "average"])
def test_pooling_numerics(rank, shape, kwargs, data_format, mode):
    x = RNG.standard_normal(shape).astype("float32")
    name = f"{'Max' if mode == 'max' else 'Average'}Pooling{rank}D"
    layer = getattr(layers, name)(data_format=data_format, **kwargs)
    x_in = x if data_format == "channels_last" else np.moveaxis(x, -1, 1)
    out = ops.convert_to_numpy(layer(x_in))
    assert out.shape == layer.compute_output_shape(x_in.shape)
    if data_format == "channels_first":
        out = np.moveaxis(out, 1, -1)
    want = ref_pool(x, layer.pool_size, layer.strides, layer.padding, mode)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_same_average_pooling_counts_only_valid_elements():
    x = np.ones((1, 5, 1), "float32")
    out = ops.convert_to_numpy(layers.AveragePooling1D(3, strides=2, padding="same")(x))
    np.testing.assert_allclose(out, np.ones((1, 3, 1)))
    x = np.arange(4, dtype="float32").reshape(1, 4, 1)
    # pool 3, stride 3: one pad each side, windows {0, 1} and {2, 3} -> means 0.5, 2.5.
    out = ops.convert_to_numpy(layers.AveragePooling1D(3, padding="same")(x))
    np.testing.assert_allclose(out[0, :, 0], [0.5, 2.5])


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_global_pooling_numerics(data_format):
    x = RNG.standard_normal((2, 4, 5, 3)).astype("float32")
    axes = (1, 2) if data_format == "channels_last" else (2, 3)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.GlobalAveragePooling2D(data_format)(x)), x.mean(axes), rtol=1e-5
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.GlobalMaxPooling2D(data_format, keepdims=True)(x)),
        x.max(axes, keepdims=True),
    )


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_masked_global_average_pooling_1d(data_format):
    x = RNG.standard_normal((3, 6, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1], [0, 1, 0, 1, 0, 0]], bool)
    want = np.stack([x[i, mask[i]].mean(0) for i in range(3)])
    layer = layers.GlobalAveragePooling1D(data_format=data_format)
    x_in = x if data_format == "channels_last" else np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x_in, mask=mask)), want, rtol=1e-5, atol=1e-6
    )
    assert layer.supports_masking and layer.compute_mask(x_in, mask) is None
    keep = layers.GlobalAveragePooling1D(data_format=data_format, keepdims=True)
    assert keep(x_in, mask=mask).shape == (
        (3, 1, 4) if data_format == "channels_last" else (3, 4, 1)
    )


def test_masked_global_average_pooling_after_embedding():
    from lamina import Model

    inputs = Input(shape=(5,), dtype="int32")
    emb = layers.Embedding(10, 3, mask_zero=True, embeddings_initializer="ones")
    x = emb(inputs)
    out = layers.GlobalAveragePooling1D()(x)
    assert getattr(out, "_keras_mask", None) is None
    model = Model(inputs, out)
    ids = np.array([[1, 2, 0, 0, 0], [3, 0, 0, 0, 0]])
    emb.set_weights([np.arange(30, dtype="float32").reshape(10, 3)])
    table = np.arange(30, dtype="float32").reshape(10, 3)
    want = np.stack([table[[1, 2]].mean(0), table[[3]].mean(0)])
    np.testing.assert_allclose(ops.convert_to_numpy(model(ids)), want, rtol=1e-6)


def test_pooling_errors():
    with pytest.raises(ValueError, match=r"MaxPooling2D.*larger than the input.*\(1, 2, 5, 1\)"):
        layers.MaxPooling2D(3)(Input(batch_shape=(1, 2, 5, 1)))
    with pytest.raises(ValueError, match="AveragePooling1D.*padding"):
        layers.AveragePooling1D(padding="causal")
    with pytest.raises(ValueError, match="MaxPooling2D.*data_format"):
        layers.MaxPooling2D(data_format="nhwc")
    with pytest.raises(ValueError, match="pool_size"):
        layers.MaxPooling2D((2, 2, 2))
    with pytest.raises(ValueError, match="MaxPooling1D.*rank 3"):
        layers.MaxPooling1D()(np.zeros((2, 4, 4, 1), "float32"))
    with pytest.raises(ValueError, match="GlobalAveragePooling2D.*rank 4"):
        layers.GlobalAveragePooling2D()(np.zeros((2, 4, 1), "float32"))


def test_convnet_with_pooling_learns_with_fit():
    # Max/AveragePooling after trainable layers inside the jitted train step: the
    # pooling's gradient must flow (it once failed to linearize under `jit`).
    from lamina import Model, optimizers

    rng = np.random.default_rng(0)
    n = 128
    x = 0.3 * rng.standard_normal((n, 8, 8, 1)).astype("float32")
    labels = rng.integers(0, 2, n).astype("int32")
    for i in range(n):  # class 0: a horizontal bar, class 1: a vertical bar
        pos = rng.integers(1, 7)
        if labels[i]:
            x[i, :, pos, 0] += 1.5
        else:
            x[i, pos, :, 0] += 1.5
    inp = Input(shape=(8, 8, 1))
    h = layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    h = layers.MaxPooling2D()(h)
    h = layers.Conv2D(8, 3, padding="same", activation="relu")(h)
    h = layers.AveragePooling2D()(h)
    h = layers.GlobalAveragePooling2D()(h)
    out = layers.Dense(2, activation="softmax")(h)
    model = Model(inp, out)
    model.compile(
        optimizer=optimizers.Adam(learning_rate=0.02),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    history = model.fit(x, labels, epochs=5, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.5 * losses[0]
    preds = ops.convert_to_numpy(model.predict(x, verbose=0)).argmax(-1)
    assert (preds == labels).mean() > 0.9


def test_eager_pooling_past_the_input_and_bad_masks_are_clear_errors():
    with pytest.raises(ValueError, match=r"'pool_big': pool_size \(4, 4\).*\(1, 3, 3, 1\)"):
        layers.MaxPooling2D(4, name="pool_big")(np.zeros((1, 3, 3, 1), "float32"))
    x = np.zeros((2, 5, 3), "float32")
    with pytest.raises(ValueError, match=r"mask must have shape.*\(2, 5\).*\(2, 4\)"):
        layers.GlobalAveragePooling1D()(x, mask=np.ones((2, 4), bool))
