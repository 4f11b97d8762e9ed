"""Adaptive pooling layers: NumPy bins (PyTorch's formula, non-divisible sizes and
outputs larger than the input included), Keras 3 with the same inputs, configs,
`.keras` files both ways, and the errors for bad arguments."""

import itertools
import json
import os

import numpy as np
import pytest

import lamina
from lamina import Input, layers, ops
from lamina.testing import check_layer

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(7)
NAMES = {
    ("average", 1): "AdaptiveAveragePooling1D",
    ("average", 2): "AdaptiveAveragePooling2D",
    ("average", 3): "AdaptiveAveragePooling3D",
    ("max", 1): "AdaptiveMaxPooling1D",
    ("max", 2): "AdaptiveMaxPooling2D",
    ("max", 3): "AdaptiveMaxPooling3D",
}


def _bins(length, size):
    """Output i pools `[floor(i L / n), ceil((i + 1) L / n))` (PyTorch's adaptive bins)."""
    return [
        (int(np.floor(i * length / size)), int(np.ceil((i + 1) * length / size)))
        for i in range(size)
    ]


def _reference(x, output_size, mode, channels_first):
    """Adaptive pooling by explicit loops over the bins of each spatial axis."""
    reduce = np.mean if mode == "average" else np.max
    if channels_first:
        x = np.moveaxis(x, 1, -1)
    spatial = x.shape[1:-1]
    out = np.zeros((x.shape[0], *output_size, x.shape[-1]), x.dtype)
    bins = [_bins(length, size) for length, size in zip(spatial, output_size, strict=True)]
    for index in itertools.product(*[range(n) for n in output_size]):
        window = tuple(slice(*bins[axis][i]) for axis, i in enumerate(index))
        patch = x[(slice(None), *window)]
        out[(slice(None), *index)] = reduce(patch, axis=tuple(range(1, len(spatial) + 1)))
    return np.moveaxis(out, -1, 1) if channels_first else out


def _keras():
    return pytest.importorskip("keras")


CASES = [
    # (rank, input spatial shape, output_size, data_format): divisible, non-divisible
    # (overlapping bins) and larger-than-input sizes, both layouts.
    (1, (7,), 3, "channels_last"),
    (1, (5,), 8, "channels_first"),
    (2, (7, 5), (3, 2), "channels_first"),
    (3, (3, 4, 5), (2, 3, 2), "channels_last"),
]


def test_matches_numpy_bins():
    # One test item for all cases: each item pays the suite's fresh-session setup.
    for rank, spatial, output_size, data_format in CASES:
        sizes = (output_size,) * rank if isinstance(output_size, int) else tuple(output_size)
        channels_first = data_format == "channels_first"
        shape = (2, 3, *spatial) if channels_first else (2, *spatial, 3)
        x = RNG.standard_normal(shape).astype("float32")
        for mode in ("average", "max"):
            name = NAMES[(mode, rank)]
            layer = getattr(layers, name)(output_size, data_format=data_format)
            got = ops.convert_to_numpy(layer(x))
            np.testing.assert_allclose(
                got,
                _reference(x, sizes, mode, channels_first),
                rtol=1e-5,
                atol=1e-6,
                err_msg=f"{name}({output_size}, {data_format}) on shape {shape}",
            )
            assert layer.compute_output_shape(shape) == got.shape
    # An output as long as the input pools one element per bin: the identity.
    x = RNG.standard_normal((2, 7, 3)).astype("float32")
    for cls in (layers.AdaptiveAveragePooling1D, layers.AdaptiveMaxPooling1D):
        np.testing.assert_allclose(ops.convert_to_numpy(cls(7)(x)), x, rtol=1e-6)


def test_config_matches_keras_and_round_trips():
    keras = _keras()
    for (_mode, rank), name in NAMES.items():
        kwargs = {"output_size": 2 if rank != 2 else (3, 2), "data_format": "channels_first"}
        theirs = getattr(keras.layers, name)(**kwargs, name="pool")
        ours = getattr(layers, name)(**kwargs, name="pool")
        keras_config = json.loads(json.dumps(keras.layers.serialize(theirs)))
        our_config = json.loads(json.dumps(lamina.layers.serialize(ours)))
        assert set(our_config["config"]) == set(keras_config["config"])
        assert our_config["config"]["output_size"] == keras_config["config"]["output_size"]
        revived = lamina.layers.deserialize(keras_config)
        assert type(revived) is type(ours)
        assert revived.get_config() == ours.get_config()
        again = type(ours).from_config(ours.get_config())
        assert again.output_size == ours.output_size and again.data_format == "channels_first"


def test_conformance_defaults_and_symbolic_unknown_sizes():
    layer = layers.AdaptiveMaxPooling2D(2)
    assert layer.data_format == lamina.config.image_data_format() == "channels_last"
    assert layers.AdaptiveAveragePooling3D(1).get_config()["output_size"] == (1, 1, 1)
    check_layer(
        layers.AdaptiveAveragePooling2D,
        {"output_size": (2, 3)},
        input_shape=(2, 5, 7, 3),
        expected_output_shape=(2, 2, 3, 3),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
    )
    inputs = Input((None, None, 4))
    assert layers.AdaptiveMaxPooling2D(3)(inputs).shape == (None, 3, 3, 4)


def test_keras_round_trip_and_keras_file(tmp_path):
    # Also the comparison with Keras's numbers: non-divisible sizes, both reductions.
    # (Keras 3.15 returns NaN when an output size is a multiple of the input length,
    # e.g. 7 -> 7 or 7 -> 14; lamina follows the bins formula there.)
    keras = _keras()
    x = RNG.standard_normal((2, 9, 6, 2)).astype("float32")
    # Written by Keras, read by lamina.
    k_in = keras.Input((9, 6, 2))
    k_h = keras.layers.AdaptiveAveragePooling2D((4, 3))(k_in)
    k_out = keras.layers.AdaptiveMaxPooling2D(2)(k_h)
    keras_model = keras.Model(k_in, keras.layers.Dense(3)(keras.layers.Flatten()(k_out)))
    keras_path = str(tmp_path / "keras.keras")
    keras_model.save(keras_path)
    loaded = lamina.models.load_model(keras_path)
    expected = keras_model.predict(x, verbose=0)
    np.testing.assert_allclose(ops.convert_to_numpy(loaded(x)), expected, rtol=1e-5, atol=1e-5)
    # Written again by lamina, read by lamina.
    path = str(tmp_path / "lamina.keras")
    loaded.save(path)
    again = lamina.models.load_model(path)
    pools = [layer for layer in again.layers if "Adaptive" in type(layer).__name__]
    assert [(type(p).__name__, p.output_size) for p in pools] == [
        ("AdaptiveAveragePooling2D", (4, 3)),
        ("AdaptiveMaxPooling2D", (2, 2)),
    ]
    np.testing.assert_allclose(ops.convert_to_numpy(again(x)), expected, rtol=1e-5, atol=1e-5)


BAD_ARGUMENTS = [
    (layers.AdaptiveAveragePooling1D, {"output_size": "3"}, TypeError, "received '3'"),
    (layers.AdaptiveAveragePooling1D, {"output_size": (2, 2)}, ValueError, "tuple of 1"),
    (layers.AdaptiveMaxPooling2D, {"output_size": (2, 0)}, ValueError, "positive"),
    (layers.AdaptiveMaxPooling3D, {"output_size": 2.5}, TypeError, "output_size"),
    (
        layers.AdaptiveMaxPooling2D,
        {"output_size": 2, "data_format": "nhwc"},
        ValueError,
        "AdaptiveMaxPooling2D",
    ),
]


def test_errors():
    for cls, kwargs, error, match in BAD_ARGUMENTS:
        with pytest.raises(error, match=match):
            cls(**kwargs)
    with pytest.raises(ValueError, match="ndim"):
        layers.AdaptiveAveragePooling2D(2)(np.ones((2, 5, 3), "float32"))
