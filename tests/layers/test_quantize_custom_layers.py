"""A user's quantizable layer, written as Keras's guide "Writing quantization-compatible
layers" says: `quantize()` marks `_is_quantized` and sets the int8 policy itself, and
the base Layer sends a quantized layer's calls to `_int8_call`.

Reference: Keras 3 itself for which method runs and how often `quantize` is called;
NumPy for the int8 numbers (abs-max per channel, as `quantizers.abs_max_quantize`).
"""

import os

import numpy as np
import pytest

import lamina
from lamina import ops

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _marker_class(K):
    class Marker(K.layers.Layer):
        """`call` gives 1, `_int8_call` gives 8: which one ran."""

        def call(self, x):
            return K.ops.zeros_like(x) + 1.0

        def _int8_call(self, x, training=None):
            return K.ops.zeros_like(x) + 8.0

    return Marker


def _scale_class(K):
    class SimpleScale(K.layers.Layer):
        """The guide's layer: a per-feature scale, quantized to int8 with its scale."""

        def build(self, input_shape):
            self._kernel = self.add_weight(name="kernel", shape=(input_shape[-1],))

        def call(self, x):
            return x * self._kernel

        def quantize(self, mode, **kwargs):
            self.quantize_calls = getattr(self, "quantize_calls", 0) + 1
            q, scale = K.quantizers.abs_max_quantize(
                self._kernel, axis=0, dtype="int8", to_numpy=True
            )
            scale = K.ops.squeeze(scale, axis=0)
            shape = self._kernel.shape
            del self._kernel
            self._kernel = self.add_weight(
                name="kernel", shape=shape, initializer="zeros", dtype="int8", trainable=False
            )
            self.scale = self.add_weight(name="scale", initializer="ones", trainable=False)
            self._kernel.assign(q)
            self.scale.assign(scale)
            self._is_quantized = True
            if self.dtype_policy.quantization_mode is None:
                self.dtype_policy = K.dtype_policies.get(f"{mode}_from_{self.dtype_policy.name}")

        def _int8_call(self, x, training=None):
            return x * K.ops.divide(K.ops.cast(self._kernel, x.dtype), self.scale)

    return SimpleScale


@pytest.mark.parametrize("how", ["eager", "functional", "predict"])
def test_a_quantized_user_layer_runs_its_int8_call(how):
    ran = {}
    for K in (keras, lamina):
        layer = _marker_class(K)(dtype="int8_from_float32")
        x = np.ones((2, 3), "float32")
        if how == "eager":
            out = layer(x)
        else:
            inputs = K.Input((3,))
            model = K.Model(inputs, layer(inputs))
            out = model(x) if how == "functional" else model.predict(x, verbose=0)
        ran[K.__name__] = float(ops.convert_to_numpy(out)[0, 0])
    assert ran == {"keras": 8.0, "lamina": 8.0}


def test_a_float_user_layer_still_runs_its_call():
    layer = _marker_class(lamina)()
    assert float(ops.convert_to_numpy(layer(np.ones((1, 2), "float32")))[0, 0]) == 1.0


def test_quantize_that_sets_the_policy_itself_runs_once_and_computes_int8():
    calls = {}
    x = np.random.default_rng(0).standard_normal((4, 5)).astype("float32")
    for K in (keras, lamina):
        layer = _scale_class(K)()
        layer(x)  # built by a call, as in the guide
        kernel = np.array(ops.convert_to_numpy(layer._kernel))
        layer.quantize("int8")
        calls[K.__name__] = (layer.quantize_calls, layer.dtype_policy.name)
        scale = 127.0 / np.max(np.abs(kernel))
        expected = x * (np.round(kernel * scale) / scale)  # int8 kernel, dequantized
        got = np.asarray(ops.convert_to_numpy(layer(x)))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, x * kernel, atol=np.abs(x).max() / scale)
    assert calls["lamina"] == calls["keras"] == (1, "int8_from_float32")


def test_setting_an_int8_policy_on_a_built_user_layer_quantizes_it_once():
    """Keras sets the policy, then calls `quantize` (which may set it again)."""
    for K in (keras, lamina):
        layer = _scale_class(K)()
        layer(np.ones((2, 3), "float32"))
        layer.dtype_policy = "int8_from_float32"
        assert layer.quantize_calls == 1 and layer.quantization_mode == "int8", K
