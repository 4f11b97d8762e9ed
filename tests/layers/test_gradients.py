"""Gradients of the parametric layers against central finite differences.

Each check takes a fixed random linear readout `loss = sum(R * layer(x))` and compares
the engine's gradient, with respect to the weights and the input together, with
`(loss(p + eps d) - loss(p - eps d)) / 2 eps` along a few random directions `d`. The
layers run in float32, so eps is moderate and the tolerance loose; a wrong gradient
(a missing term, a transposed kernel) is off by far more.
"""

import numpy as np
import pytest

from lamina import backend, layers, ops

RNG = np.random.default_rng(7)
EPS = 1e-2


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _check_gradient(layer, inputs, training=False, directions=3, rtol=2e-2, **call_kwargs):
    inputs = [np.asarray(x, "float32") for x in inputs]
    # Built from shapes and run only compiled: one compilation per check keeps it fast.
    layer.build(*[tuple(x.shape) for x in inputs])
    if isinstance(layer, layers.MultiHeadAttention):
        out_shape = inputs[0].shape
    else:
        out_shape = layer.compute_output_shape(inputs[0].shape)
    readout = _rand(*tuple(out_shape))
    weights = layer.trainable_weights
    assert weights, f"{layer.name} has no trainable weights"

    def loss(params):
        values, xs = params[: len(weights)], params[len(weights) :]
        with backend.StatelessScope(list(zip(weights, values, strict=True))):
            kwargs = dict(call_kwargs)
            if layer._call_has_training_arg:
                kwargs["training"] = training
            y = layer(*xs, **kwargs)
        return ops.sum(ops.multiply(y, readout))

    grad_fn = backend.jit(backend.value_and_grad(loss))

    def value(params):
        return float(grad_fn([ops.convert_to_tensor(p.astype("float32")) for p in params])[0])

    params = [ops.convert_to_numpy(w.value) for w in weights] + inputs
    _, grads = grad_fn([ops.convert_to_tensor(p) for p in params])
    grads = [ops.convert_to_numpy(g).astype("float64") for g in grads]
    for _ in range(directions):
        d = [RNG.standard_normal(p.shape) for p in params]
        norm = np.sqrt(sum((x**2).sum() for x in d))
        d = [x / norm for x in d]
        plus = value([p + EPS * x for p, x in zip(params, d, strict=True)])
        minus = value([p - EPS * x for p, x in zip(params, d, strict=True)])
        numeric = (plus - minus) / (2 * EPS)
        analytic = sum(float((g * x).sum()) for g, x in zip(grads, d, strict=True))
        scale = max(1.0, abs(numeric), abs(analytic))
        assert abs(numeric - analytic) <= rtol * scale, (
            f"{layer.name}: directional derivative {analytic:.6f} (gradient) vs "
            f"{numeric:.6f} (finite differences)"
        )


CASES = {
    "conv2d-strided": (lambda: layers.Conv2D(2, 3, strides=(1, 2), padding="same"), [(2, 5, 5, 3)]),
    "conv2d-groups-channels-first": (
        lambda: layers.Conv2D(4, 2, groups=2, data_format="channels_first"),
        [(1, 4, 4, 5)],
    ),
    "conv1d-transpose": (
        lambda: layers.Conv1DTranspose(3, 3, strides=2, output_padding=1),
        [(2, 4, 2)],
    ),
    "depthwise-conv2d": (
        lambda: layers.DepthwiseConv2D(2, depth_multiplier=2, padding="same"),
        [(2, 4, 4, 3)],
    ),
    "separable-conv2d": (lambda: layers.SeparableConv2D(3, 2, depth_multiplier=2), [(2, 4, 4, 2)]),
    "lstm": (lambda: layers.LSTM(3, return_sequences=True), [(2, 4, 3)]),
    "gru": (lambda: layers.GRU(3, reset_after=True), [(2, 4, 3)]),
    "layer-normalization": (lambda: layers.LayerNormalization(), [(3, 5)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    make, shapes = CASES[name]
    _check_gradient(make(), [_rand(*s) for s in shapes])


def test_batch_normalization_training_gradient_matches_finite_differences():
    # In training the batch statistics depend on the input: their gradient terms count.
    layer = layers.BatchNormalization(momentum=0.5)
    _check_gradient(layer, [_rand(6, 3) * 2 + 1], training=True)


def test_mha_gradient_matches_finite_differences():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3)
    _check_gradient(layer, [_rand(2, 3, 4), _rand(2, 4, 4)], use_causal_mask=True)
