"""`K.gradients` with respect to any tensor of the graph, the Keras 2 way (issue 32,
item 1): the classic loops that differentiate a loss with respect to an input image
(gradient ascent, style transfer driven by SciPy's L-BFGS), gradients with respect to
intermediate tensors, and a gradient inside a `Lambda` trained with `fit`.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina.layers import Conv2D, Dense, Input, Lambda, MaxPooling2D, Multiply
from lamina.models import Model

RNG = np.random.default_rng(32)


def test_gradients_with_respect_to_inputs_intermediates_and_weights():
    x = K.placeholder(shape=(None, 2))
    dense = Dense(3, use_bias=False)
    h = dense(x)
    kernel = RNG.normal(size=(2, 3)).astype("float32")
    dense.set_weights([kernel])
    loss = K.sum(K.square(h))
    # One target (not a list) gives a one-element list, as in Keras 2.
    (dx,) = K.gradients(loss, x)
    dh, dkernel, dx_again = K.gradients(loss, [h, dense.kernel, x])
    data = RNG.normal(size=(4, 2)).astype("float32")
    values = K.function([x], [dx, dh, dkernel, dx_again])([data])
    hidden = data @ kernel
    np.testing.assert_allclose(values[0], 2 * hidden @ kernel.T, rtol=1e-5)
    np.testing.assert_allclose(values[1], 2 * hidden, rtol=1e-5)
    np.testing.assert_allclose(values[2], 2 * data.T @ hidden, rtol=1e-5)
    np.testing.assert_allclose(values[3], values[0])
    with pytest.raises(ValueError, match="floating-point"):
        K.gradients(loss, K.placeholder(shape=(None, 2), dtype="int32"))


def test_gradient_ascent_on_an_input_image():
    # As Keras 2's conv_filter_visualization: maximise one filter's mean activation.
    image = Input(shape=(8, 8, 1))
    model = Model(image, Conv2D(4, 3, activation="relu", name="block1_conv")(image))
    layer_output = model.get_layer("block1_conv").output
    loss = K.mean(layer_output[:, :, :, 2])
    grads = K.gradients(loss, model.input)[0]
    grads /= K.sqrt(K.mean(K.square(grads))) + K.epsilon()
    iterate = K.function([model.input], [loss, grads])
    data = RNG.uniform(0.4, 0.6, size=(1, 8, 8, 1)).astype("float32")
    losses = []
    for _ in range(6):
        loss_value, grads_value = iterate([data])
        data += 0.2 * grads_value
        losses.append(float(loss_value))
    assert all(b > a for a, b in zip(losses, losses[1:])), losses
    assert iterate.trace_count == 1


def test_style_transfer_with_scipy_lbfgs():
    from scipy.optimize import fmin_l_bfgs_b

    rows = cols = 6
    base = K.variable(RNG.uniform(size=(1, rows, cols, 3)))
    style = K.variable(RNG.uniform(size=(1, rows, cols, 3)))
    combination = K.placeholder((1, rows, cols, 3))
    input_tensor = K.concatenate([base, style, combination], axis=0)
    features = Conv2D(4, 3, padding="same", activation="relu", name="block1")(input_tensor)

    def gram_matrix(x):
        flat = K.batch_flatten(K.permute_dimensions(x, (2, 0, 1)))
        return K.dot(flat, K.transpose(flat))

    content = K.sum(K.square(features[2] - features[0]))
    style_loss = K.sum(K.square(gram_matrix(features[1]) - gram_matrix(features[2])))
    variation = K.sum(K.square(combination[:, 1:, :, :] - combination[:, :-1, :, :]))
    loss = content + 0.01 * style_loss / (4.0 * 16 * (rows * cols) ** 2) + 0.1 * variation
    outputs = [loss] + K.gradients(loss, combination)
    f_outputs = K.function([combination], outputs)

    def loss_and_grads(flat):
        loss_value, grad_values = f_outputs([flat.reshape((1, rows, cols, 3)).astype("float32")])
        return float(loss_value), grad_values.flatten().astype("float64")

    start = RNG.uniform(size=rows * cols * 3)
    # The gradient is the loss's: a central difference along a random direction.
    direction = RNG.normal(size=start.shape)
    step = 1e-3
    slope = (
        loss_and_grads(start + step * direction)[0] - loss_and_grads(start - step * direction)[0]
    ) / (2 * step)
    np.testing.assert_allclose(loss_and_grads(start)[1] @ direction, slope, rtol=2e-2)
    first = loss_and_grads(start)[0]
    found, value, _ = fmin_l_bfgs_b(loss_and_grads, start, maxfun=20)
    assert value < 0.5 * first
    assert found.shape == start.shape


def test_a_gradient_penalty_inside_a_lambda_trains_with_fit():
    # The gradient of one Lambda input with respect to another (summed, as Keras 2's
    # `K.gradients` did) is part of the compiled step, so `fit` differentiates it again.
    x = Input(shape=(3,))
    hidden = Dense(4, activation="tanh")(x)
    y = Dense(1)(hidden)

    def gradient_norm(args):
        output, inputs = args
        gradients = K.gradients(output, inputs)[0]
        return K.sqrt(K.sum(K.square(gradients), axis=1, keepdims=True))

    penalty = Lambda(gradient_norm)([y, x])
    model = Model(x, [y, penalty])
    w0, b0 = RNG.normal(size=(3, 4)), RNG.normal(size=(4,)) * 0.1
    w1, b1 = RNG.normal(size=(4, 1)), RNG.normal(size=(1,)) * 0.1
    model.set_weights([w.astype("float32") for w in (w0, b0, w1, b1)])
    data = RNG.normal(size=(8, 3))
    target = data[:, :1]

    def total_loss(weights):
        w0, b0, w1, b1 = weights
        activation = np.tanh(data @ w0 + b0)
        output = activation @ w1 + b1
        jacobian = ((1 - activation**2) * w1[:, 0]) @ w0.T  # d output / d input, per row
        norm = np.linalg.norm(jacobian, axis=1, keepdims=True)
        return np.mean((output - target) ** 2) + np.mean((norm - 1.0) ** 2)

    weights = [w0, b0, w1, b1]
    expected = []
    for i, w in enumerate(weights):
        grad = np.zeros_like(w)
        for index in np.ndindex(w.shape):
            for sign in (1, -1):
                moved = [v.copy() for v in weights]
                moved[i][index] += sign * 1e-6
                grad[index] += sign * total_loss(moved) / 2e-6
        expected.append(w - 0.1 * grad)
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss=["mse", "mse"])
    np.testing.assert_allclose(
        model.predict(data.astype("float32"), verbose=0)[1][:, 0],
        np.linalg.norm(((1 - np.tanh(data @ w0 + b0) ** 2) * w1[:, 0]) @ w0.T, axis=1),
        rtol=1e-4,
    )
    model.fit(data.astype("float32"), [target, np.ones((8, 1))], batch_size=8, verbose=0)
    for got, want in zip(model.get_weights(), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    with pytest.raises(TypeError, match="already computed"):
        Lambda(lambda t: K.gradients(K.sum(t * 2.0), t)[0])(np.ones((2, 3), "float32"))


def _pooling_switches(values):
    """1 where each 2x2 window (channels last) has its maximum, 0 elsewhere (NumPy)."""
    b, h, w, c = values.shape
    windows = values.reshape(b, h // 2, 2, w // 2, 2, c)
    top = windows.max(axis=(2, 4), keepdims=True)
    return (windows == top).astype("float32").reshape(b, h, w, c)


def test_the_gradient_of_a_sum_taken_inside_a_lambda_trains_with_fit():
    # Keras 2.2.5's mnist_swwae: `K.gradients(K.sum(y_postpool), y_prepool)` inside a
    # Lambda, `y_postpool` the max pooling of `y_prepool`: the pooling's switches (1 at
    # each window's maximum), which the decoder multiplies into its upsampled tensors.
    # A mean is the sum over its count; sums of sums chain.
    x = Input(shape=(4, 4, 1))
    conv = Conv2D(2, 1, use_bias=False)
    pre = conv(x)
    post = MaxPooling2D(2)(pre)

    def getwhere(args):
        y_prepool, y_postpool = args
        return K.gradients(K.sum(y_postpool), y_prepool)

    where = Lambda(getwhere, output_shape=lambda shapes: shapes[0])([pre, post])
    mean_where = Lambda(lambda a: K.gradients(K.mean(a[1]), a[0])[0])([pre, post])
    chained = Lambda(lambda a: K.gradients(K.sum(K.sum(a[1], axis=1)), a[0])[0])([pre, post])
    # A mean over the pooled rows and columns: each sum over 2 x 2 of them.
    spatial = Lambda(lambda a: K.gradients(K.mean(a[1], axis=(1, 2)), a[0])[0])([pre, post])
    decoded = Multiply()([where, pre])
    model = Model(x, [decoded, mean_where, chained, spatial])
    kernel = RNG.normal(size=(1, 1, 1, 2)).astype("float32")
    conv.set_weights([kernel])
    data = RNG.normal(size=(3, 4, 4, 1)).astype("float32")
    pre_values = data * kernel[0, 0]  # the 1x1 convolution
    switches = _pooling_switches(pre_values)
    count = 3 * 2 * 2 * 2  # elements of the pooled tensor
    for got in (model.predict(data, verbose=0), [K.eval(v) for v in model(data)]):
        np.testing.assert_allclose(got[0], switches * pre_values, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], switches / count, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got[2], switches, rtol=1e-5)
        np.testing.assert_allclose(got[3], switches / 4, rtol=1e-5)
    # In fit's step the switches are constant (a max's gradient is piecewise constant):
    # one SGD step on the mean squared error of `decoded` against a target.
    target = RNG.normal(size=(3, 4, 4, 2)).astype("float32")
    residual = switches * pre_values - target
    grad = 2 * np.einsum("bhwo,bhwo,bhw->o", residual, switches, data[..., 0]) / residual.size
    # Reductions of other values in a running graph are plain reductions.
    shifted = Lambda(lambda t: t + K.mean([[1.0, 3.0]], axis=-1))(pre)
    np.testing.assert_allclose(
        Model(x, shifted).predict(data, verbose=0), pre_values + 2.0, rtol=1e-6
    )
    # A loss computed otherwise in the layer is not a graph tensor: refused, saying so.
    squared = Lambda(lambda a: K.gradients(K.sum(K.square(a[1])), a[0])[0])([pre, post])
    with pytest.raises(TypeError, match="already computed"):
        Model(x, squared).predict(data, verbose=0)
    trained = Model(x, decoded)
    trained.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    trained.fit(data, target, batch_size=3, verbose=0)
    np.testing.assert_allclose(
        trained.get_weights()[0], kernel - 0.1 * grad.reshape(kernel.shape), rtol=1e-4, atol=1e-6
    )
