"""Cropping, UpSampling and ZeroPadding layers: conformance and numerics against NumPy."""

import numpy as np
import pytest

from lamina import layers
from lamina.ops import image as ops_image
from lamina.testing import check_layer

CONFORMANCE = [
    (layers.Cropping1D, {"cropping": (1, 2)}, (2, 6, 3), (2, 3, 3)),
    (layers.Cropping2D, {"cropping": ((1, 0), (2, 1))}, (2, 5, 6, 3), (2, 4, 3, 3)),
    (
        layers.Cropping2D,
        {"cropping": (1, 2), "data_format": "channels_first"},
        (2, 3, 5, 6),
        (2, 3, 3, 2),
    ),
    (layers.Cropping3D, {"cropping": 1}, (1, 4, 4, 4, 2), (1, 2, 2, 2, 2)),
    (layers.UpSampling1D, {"size": 3}, (2, 4, 5), (2, 12, 5)),
    (layers.UpSampling2D, {"size": (2, 3)}, (1, 2, 2, 4), (1, 4, 6, 4)),
    (layers.UpSampling2D, {"interpolation": "bilinear"}, (1, 3, 3, 2), (1, 6, 6, 2)),
    (
        layers.UpSampling2D,
        {"data_format": "channels_first", "interpolation": "bilinear"},
        (1, 2, 3, 3),
        (1, 2, 6, 6),
    ),
    (layers.UpSampling3D, {"size": 2}, (1, 1, 2, 3, 4), (1, 2, 4, 6, 4)),
    (layers.ZeroPadding1D, {"padding": (1, 2)}, (2, 3, 4), (2, 6, 4)),
    (layers.ZeroPadding2D, {"padding": ((1, 0), (2, 1))}, (1, 2, 2, 3), (1, 3, 5, 3)),
    (
        layers.ZeroPadding2D,
        {"padding": 1, "data_format": "channels_first"},
        (1, 3, 2, 2),
        (1, 3, 4, 4),
    ),
    (layers.ZeroPadding3D, {"padding": (1, 0, 2)}, (1, 2, 2, 2, 3), (1, 4, 2, 6, 3)),
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


def _x(shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_cropping_matches_slicing(data_format):
    cl = data_format == "channels_last"
    x = _x((2, 5, 6, 3) if cl else (2, 3, 5, 6))
    out = np.asarray(layers.Cropping2D(((1, 2), (0, 3)), data_format=data_format)(x))
    want = x[:, 1:3, 0:3, :] if cl else x[:, :, 1:3, 0:3]
    np.testing.assert_array_equal(out, want)
    x = _x((1, 4, 5, 6, 2) if cl else (1, 2, 4, 5, 6))
    out = np.asarray(layers.Cropping3D(((1, 1), (0, 2), (3, 0)), data_format=data_format)(x))
    want = x[:, 1:3, 0:3, 3:6] if cl else x[:, :, 1:3, 0:3, 3:6]
    np.testing.assert_array_equal(out, want)
    x = _x((2, 6, 3))
    np.testing.assert_array_equal(np.asarray(layers.Cropping1D((2, 1))(x)), x[:, 2:5])


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_zero_padding_matches_np_pad(data_format):
    cl = data_format == "channels_last"
    x = _x((2, 3, 4, 2) if cl else (2, 2, 3, 4))
    out = np.asarray(layers.ZeroPadding2D(((1, 2), (3, 0)), data_format=data_format)(x))
    width = ((0, 0), (1, 2), (3, 0), (0, 0)) if cl else ((0, 0), (0, 0), (1, 2), (3, 0))
    np.testing.assert_array_equal(out, np.pad(x, width))
    x = _x((1, 2, 3, 2, 2) if cl else (1, 2, 2, 3, 2))
    out = np.asarray(layers.ZeroPadding3D(1, data_format=data_format)(x))
    width = [(1, 1)] * 5
    width[0] = (0, 0)
    width[-1 if cl else 1] = (0, 0)
    np.testing.assert_array_equal(out, np.pad(x, width))
    x = _x((2, 3, 4) if cl else (2, 4, 3))
    out = np.asarray(layers.ZeroPadding1D((2, 1), data_format=data_format)(x))
    width = ((0, 0), (2, 1), (0, 0)) if cl else ((0, 0), (0, 0), (2, 1))
    np.testing.assert_array_equal(out, np.pad(x, width))


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_upsampling_nearest_matches_np_repeat(data_format):
    cl = data_format == "channels_last"
    x = _x((2, 3, 4, 2) if cl else (2, 2, 3, 4))
    out = np.asarray(layers.UpSampling2D((2, 3), data_format=data_format)(x))
    a, b = (1, 2) if cl else (2, 3)
    np.testing.assert_array_equal(out, np.repeat(np.repeat(x, 2, axis=a), 3, axis=b))
    x = _x((1, 2, 2, 3, 2) if cl else (1, 2, 2, 2, 3))
    out = np.asarray(layers.UpSampling3D((1, 2, 3), data_format=data_format)(x))
    a = 1 if cl else 2
    want = np.repeat(np.repeat(np.repeat(x, 1, a), 2, a + 1), 3, a + 2)
    np.testing.assert_array_equal(out, want)
    x = _x((2, 3, 4))
    np.testing.assert_array_equal(np.asarray(layers.UpSampling1D(2)(x)), np.repeat(x, 2, 1))


def _linear_matrix(n, s):
    """Interpolation matrix (n * s, n) of half-pixel-centered linear upsampling."""
    m = np.zeros((n * s, n))
    for i in range(n * s):
        src = min(max((i + 0.5) / s - 0.5, 0.0), n - 1.0)
        lo = int(np.floor(src))
        hi = min(lo + 1, n - 1)
        w = src - lo
        m[i, lo] += 1 - w
        m[i, hi] += w
    return m


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_upsampling_bilinear_matches_reference(data_format):
    cl = data_format == "channels_last"
    x = _x((2, 3, 4, 2))
    mh, mw = _linear_matrix(3, 2), _linear_matrix(4, 3)
    want = np.einsum("ih,jw,bhwc->bijc", mh, mw, x)
    inp = x if cl else np.moveaxis(x, -1, 1)
    layer = layers.UpSampling2D((2, 3), data_format=data_format, interpolation="bilinear")
    out = np.asarray(layer(inp))
    np.testing.assert_allclose(out if cl else np.moveaxis(out, 1, -1), want, atol=1e-5)


def test_hand_computed_bilinear_row():
    x = np.array([0.0, 4.0], "float32").reshape(1, 1, 2, 1)
    out = np.asarray(ops_image.resize(x, (1, 4), interpolation="bilinear"))
    np.testing.assert_allclose(out.ravel(), [0.0, 1.0, 3.0, 4.0], atol=1e-6)


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match="Cropping2D"):
        layers.Cropping2D(1, data_format="nhwc")
    with pytest.raises(ValueError, match="ZeroPadding3D"):
        layers.ZeroPadding3D((1, 2))
    with pytest.raises(ValueError, match="UpSampling2D"):
        layers.UpSampling2D(2, interpolation="lanczos9")
    with pytest.raises(ValueError, match="Cropping1D.*smaller than the input"):
        layers.Cropping1D((2, 2))(np.ones((1, 4, 2), "float32"))
    with pytest.raises(ValueError, match="Cropping2D"):
        from lamina import Input

        layers.Cropping2D(((3, 0), (0, 0)))(Input((3, 5, 1)))
