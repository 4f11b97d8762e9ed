"""lamina.quantizers against NumPy formulas: abs-max quantization, TF's fake quant (with
its gradients), the float8 scale helpers, int4 packing, and Keras's signatures."""

import inspect
import os

import numpy as np
import pytest

import lamina
from lamina import backend, ops, quantizers

os.environ.setdefault("KERAS_BACKEND", "jax")

RNG = np.random.default_rng(3)
EPS = 1e-7


def _np(x):
    return ops.convert_to_numpy(x)


def _compiled(fn, *args):
    """`fn(*args)` as one compiled program (on JAX one compilation, not one per op)."""
    return backend.jit(fn)(*[ops.convert_to_tensor(a) for a in args])


def _abs_max_reference(x, axis, low=-127, high=127):
    scale = high / (np.max(np.abs(x), axis=axis, keepdims=True) + EPS)
    return np.clip(np.round(x * scale), low, high).astype("int8"), scale.astype(x.dtype)


@pytest.mark.parametrize("axis, to_numpy", [(0, False), ((0, 2), False), (-1, True)])
def test_abs_max_quantize_matches_the_formula(axis, to_numpy):
    x = RNG.normal(size=(3, 4, 5)).astype("float32")
    if to_numpy:
        q, scale = quantizers.abs_max_quantize(x, axis, to_numpy=True)
    else:
        q, scale = _compiled(lambda v: quantizers.abs_max_quantize(v, axis), x)
    ref_q, ref_scale = _abs_max_reference(x, axis)
    assert backend.standardize_dtype(q.dtype) == "int8"
    assert backend.standardize_dtype(scale.dtype) == "float32"
    np.testing.assert_allclose(_np(scale), ref_scale, rtol=1e-6)
    # A value exactly halfway may round either way after the float32 product.
    assert np.abs(_np(q).astype(int) - ref_q).max() <= 1
    assert (_np(q) == ref_q).mean() > 0.97
    np.testing.assert_allclose(_np(q) / _np(scale), x, atol=np.abs(x).max() / 127)


def test_abs_max_quantizer_defaults_config_and_range_check():
    x = RNG.normal(size=(2, 6)).astype("float32")
    quantizer = quantizers.AbsMaxQuantizer(value_range=(-8, 7))
    q, scale = _compiled(quantizer, x)
    ref_q, ref_scale = _abs_max_reference(x, -1, -8, 7)
    np.testing.assert_array_equal(_np(q), ref_q)
    np.testing.assert_allclose(_np(scale), ref_scale, rtol=1e-6)
    again = quantizers.AbsMaxQuantizer.from_config(quantizers.AbsMaxQuantizer(axis=0).get_config())
    assert again.axis == (0,) and again.value_range == (-127, 127)
    assert quantizers.deserialize(quantizers.serialize(again)).get_config() == again.get_config()
    assert lamina.Quantizer is quantizers.Quantizer
    with pytest.raises(ValueError, match=r"\[-128, 127\]"):
        quantizers.AbsMaxQuantizer(value_range=(-200, 127))


def _fake_quant_reference(x, low, high, num_bits, narrow_range):
    """TF's FakeQuantWithMinMaxVars in NumPy (nudged so 0.0 is exact), in float32 as
    Keras computes it (127.5 in float64 is 127.49999 in float32: the zero point differs)."""
    x, low, high = (np.asarray(v, "float32") for v in (x, low, high))
    quant_min, quant_max = (1 if narrow_range else 0), 2**num_bits - 1
    scale = (high - low) / (quant_max - quant_min)
    zero = np.round(np.clip(quant_min - low / scale, quant_min, quant_max))
    nudged_low, nudged_high = (quant_min - zero) * scale, (quant_max - zero) * scale
    clamped = np.clip(x, nudged_low, nudged_high)
    out = np.floor((clamped - nudged_low) / scale + 0.5) * scale + nudged_low
    return out, nudged_low, nudged_high


def test_fake_quant_per_tensor_and_per_channel():
    x = RNG.uniform(-1.5, 1.5, size=(4, 3)).astype("float32")
    lows = np.array([-1.0, -0.5, -2.0], "float32")
    highs = np.array([1.0, 0.7, 0.3], "float32")

    def both(x, lows, highs):
        per_tensor = quantizers.fake_quant_with_min_max_vars(x, -1.0, 0.8)
        per_channel = quantizers.fake_quant_with_min_max_vars(x, lows, highs, 4, True, axis=1)
        return per_tensor, per_channel

    per_tensor, per_channel = _compiled(both, x, lows, highs)
    ref, _, _ = _fake_quant_reference(x, -1.0, 0.8, 8, False)
    np.testing.assert_allclose(_np(per_tensor), ref, atol=1e-5)
    ref, _, _ = _fake_quant_reference(x, lows, highs, 4, True)
    np.testing.assert_allclose(_np(per_channel), ref, atol=1e-5)


def test_fake_quant_gradients_pass_inside_and_go_to_the_clipped_bound():
    x = np.array([[-2.0, 0.1], [0.5, 3.0], [-0.2, -5.0]], "float32")
    lows, highs = np.array([-1.0, -1.0], "float32"), np.array([1.0, 1.0], "float32")
    upstream = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32")

    def loss(params):
        out = quantizers.fake_quant_with_min_max_vars(*params, axis=1)
        return ops.sum(ops.multiply(out, upstream))

    _, grads = _compiled(lambda *v: backend.value_and_grad(loss)(list(v)), x, lows, highs)
    _, nudged_low, nudged_high = _fake_quant_reference(x, -1.0, 1.0, 8, False)
    inside = (x >= nudged_low) & (x <= nudged_high)
    np.testing.assert_allclose(_np(grads[0]), np.where(inside, upstream, 0.0))
    np.testing.assert_allclose(_np(grads[1]), np.where(x <= nudged_low, upstream, 0.0).sum(0))
    np.testing.assert_allclose(_np(grads[2]), np.where(x >= nudged_high, upstream, 0.0).sum(0))


def test_float8_helpers_match_the_formulas():
    amax = np.array([2.0, 0.0, np.inf], "float32")
    scale = np.array([0.5, 0.25, 4.0], "float32")
    out = _compiled(
        lambda a, s: quantizers.compute_float8_scale(a, s, 448.0, margin=1), amax, scale
    )
    expected = np.array([1 / (448.0 / 2.0 / 2), 0.25, 4.0], "float32")
    np.testing.assert_allclose(_np(out), expected, rtol=1e-6)
    history = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    x = np.array([[-7.0, 2.0]], "float32")
    np.testing.assert_allclose(
        _np(_compiled(quantizers.compute_float8_amax_history, x, history)), [7.0, 3.0, 4.0, 1.0]
    )


@pytest.mark.engine("jax")  # lamina's torch engine has no float8 dtypes
def test_quantize_and_dequantize_rounds_through_float8():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    values = np.array([0.1, -3.3, 1000.0], "float32")
    out = _compiled(
        lambda v: quantizers.quantize_and_dequantize(v, 2.0, "float8_e4m3fn", "float32"), values
    )
    quantized = np.clip(values / 2.0, -448, 448).astype(ml_dtypes.float8_e4m3fn)
    np.testing.assert_allclose(_np(out), quantized.astype("float32") * 2.0)


@pytest.mark.parametrize("axis, dtype", [(0, "int8"), (1, "uint8"), (-1, "int8")])
def test_int4_packing_round_trips_with_nibbles_in_order(axis, dtype):
    low, high = (-8, 8) if dtype == "int8" else (0, 16)
    values = RNG.integers(low, high, size=(3, 5)).astype(dtype)
    packed, packed_shape, length = quantizers.pack_int4(values, axis=axis, dtype=dtype)
    assert length == values.shape[axis] and tuple(packed.shape) == packed_shape
    moved = np.moveaxis(values, axis, 0).astype("int64")
    if moved.shape[0] % 2:
        moved = np.concatenate([moved, np.zeros((1,) + moved.shape[1:], "int64")])
    expected = (moved[::2] & 0x0F) | ((moved[1::2] & 0x0F) << 4)
    expected = np.moveaxis(expected.astype("uint8").view(dtype), 0, axis)
    np.testing.assert_array_equal(_np(packed), expected)
    unpacked = _compiled(lambda p: quantizers.unpack_int4(p, length, axis, dtype), packed)
    np.testing.assert_array_equal(_np(unpacked), values)
    with pytest.raises(TypeError, match="Expected"):
        quantizers.pack_int4(values.astype("int32"), dtype=dtype)


@pytest.mark.engine("jax")
def test_signatures_are_keras_s():
    keras = pytest.importorskip("keras")
    for name in (
        "AbsMaxQuantizer",
        "Quantizer",
        "abs_max_quantize",
        "quantize_and_dequantize",
        "compute_float8_scale",
        "compute_float8_amax_history",
        "fake_quant_with_min_max_vars",
        "pack_int4",
        "unpack_int4",
    ):
        ours = inspect.signature(getattr(quantizers, name)).parameters
        theirs = inspect.signature(getattr(keras.quantizers, name)).parameters
        assert list(ours) == list(theirs), name
        for key in ours:
            assert ours[key].default == theirs[key].default, (name, key)
