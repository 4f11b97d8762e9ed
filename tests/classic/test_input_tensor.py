"""`Input(tensor=t)` with a computed `t`, Keras 2's way (issue 32): the input is fed by
`t` whenever the graph runs, so `K.function`, `fit` and `predict` take no data for it
(Keras 2.2.4's `neural_doodle.py` builds its mask model on `Input(tensor=masks)`).
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina.layers import AveragePooling2D, Dense, Input
from lamina.models import Model

RNG = np.random.default_rng(11)


def _pool2(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).mean(axis=(2, 4))


def test_a_mask_model_on_variables_feeds_a_k_function():
    """neural_doodle's idiom: a model on `Input(tensor=<concatenated variables>)`, whose
    layer outputs enter a loss that `K.function` computes from a placeholder alone."""
    style, target = RNG.uniform(size=(2, 1, 4, 4, 2)).astype("float32")
    style_mask, target_mask = K.variable(style), K.variable(target)
    masks = K.concatenate([style_mask, target_mask], axis=0)
    mask_input = Input(tensor=masks, shape=(None, None, None), name="mask_input")
    pooled = AveragePooling2D((2, 2), name="mask_pool")(mask_input)
    mask_model = Model(mask_input, pooled)
    assert [layer.name for layer in mask_model.layers] == ["mask_input", "mask_pool"]
    assert mask_model.inputs == []  # Keras 2's feed inputs: nothing to give
    image = K.placeholder(shape=(1, 2, 2, 2))
    loss = K.sum(K.square(mask_model.layers[1].output[1] - image[0]))
    f = K.function([image], [loss])
    value = RNG.uniform(size=(1, 2, 2, 2)).astype("float32")
    expected = np.sum((_pool2(target)[0] - value[0]) ** 2)
    assert float(f([value])[0]) == pytest.approx(expected, rel=1e-5)
    # The input is computed at each run: a new value of the variable is seen.
    K.set_value(target_mask, 2 * target)
    expected = np.sum((_pool2(2 * target)[0] - value[0]) ** 2)
    assert float(f([value])[0]) == pytest.approx(expected, rel=1e-5)


def test_a_model_with_a_variable_fed_input_fits_and_predicts_on_its_other_input():
    x_in = Input(shape=(3,))
    offsets = K.variable(RNG.normal(size=(1, 3)).astype("float32"))
    fed = Input(tensor=offsets)
    dense = Dense(2)
    model = Model([x_in, fed], dense(lamina.layers.Add()([x_in, fed])))
    assert model.inputs == [x_in]
    x = RNG.normal(size=(8, 3)).astype("float32")
    kernel, bias = (np.asarray(w) for w in dense.get_weights())
    expected = (x + K.get_value(offsets)) @ kernel + bias
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(model(x)), expected, rtol=1e-5, atol=1e-6
    )
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, x[:, :2], epochs=3, batch_size=4, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_constant_and_layer_output_fed_inputs():
    table = RNG.normal(size=(1, 3)).astype("float32")
    x_in = Input(shape=(3,))
    const = Input(tensor=K.constant(table))
    hidden_layer = Dense(3, name="hidden")
    from_layer = Input(tensor=hidden_layer(x_in))  # fed by another layer's output
    model = Model([x_in, const, from_layer], lamina.layers.Add()([const, from_layer]))
    assert model.inputs == [x_in]
    x = RNG.normal(size=(4, 3)).astype("float32")
    kernel, bias = (np.asarray(w) for w in hidden_layer.get_weights())
    np.testing.assert_allclose(
        model.predict(x, verbose=0), table + x @ kernel + bias, rtol=1e-5, atol=1e-6
    )
    # An Input's own tensor stays what it was: the input itself.
    plain = Input(shape=(2,))
    assert Input(tensor=plain) is plain
    with pytest.raises(TypeError, match="Input\\(tensor=...\\) takes a graph tensor"):
        Input(tensor="not a tensor")


def test_a_model_fed_only_by_tensors_takes_x_none_with_steps():
    """Keras 2's idiom for a model whose every input a tensor feeds: `predict(None,
    steps=1)`, and `fit`/`evaluate` with `x=None` and a step count (Keras 2.2.4's
    training.py): each step feeds no data, and the whole `y` when one is given."""
    data = RNG.normal(size=(4, 3)).astype("float32")
    source = K.variable(data)
    fed = Input(tensor=source * 2.0)
    dense = Dense(1, kernel_initializer="ones", bias_initializer="zeros")
    model = Model(fed, dense(fed))
    assert model.inputs == []
    np.testing.assert_allclose(
        model.predict(None, steps=1, verbose=0), 2 * data @ np.ones((3, 1)), rtol=1e-5
    )
    # Steps are concatenated, as Keras 2's predict loop did; the variable is read anew.
    K.set_value(source, -data)
    twice = model.predict(None, steps=2, verbose=0)
    np.testing.assert_allclose(
        twice, np.tile(-2 * data.sum(axis=1, keepdims=True), (2, 1)), rtol=1e-5
    )
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(model.predict_on_batch(None)), twice[:4], rtol=1e-5
    )
    with pytest.raises(ValueError, match=r"every input is fed by a tensor.*`steps=`"):
        model.predict(None, verbose=0)

    # A loss of the graph alone (add_loss, no targets), as a Keras 2 program trains one.
    model.add_loss(K.mean(K.square(model.outputs[0] - 1.0)))
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss=None)
    inputs = -2 * data
    expected = np.mean((inputs.sum(axis=1) - 1.0) ** 2)
    assert model.evaluate(None, steps=2, verbose=0) == pytest.approx(expected, rel=1e-5)
    with pytest.raises(ValueError, match=r"`steps_per_epoch=`"):
        model.fit(None, epochs=1, verbose=0)
    model.fit(None, steps_per_epoch=1, epochs=1, verbose=0)
    residual = inputs.sum(axis=1) - 1.0  # d/dw of mean(r^2) is 2 * mean(r * x)
    kernel = 1.0 - 0.05 * 2 * (residual[:, None] * inputs).mean(axis=0)
    bias = 0.0 - 0.05 * 2 * residual.mean()
    np.testing.assert_allclose(np.asarray(dense.get_weights()[0]).ravel(), kernel, rtol=1e-4)
    np.testing.assert_allclose(float(np.asarray(dense.get_weights()[1])[0]), bias, rtol=1e-4)

    # With targets: the whole `y` each step (the model's batch is its tensor's).
    model.compile(optimizer="sgd", loss="mse")
    y = RNG.normal(size=(4, 1)).astype("float32")
    out = model.predict(None, steps=1, verbose=0)
    added = np.mean((out - 1.0) ** 2)
    assert model.evaluate(None, y, steps=1, verbose=0) == pytest.approx(
        np.mean((out - y) ** 2) + added, rel=1e-5
    )
