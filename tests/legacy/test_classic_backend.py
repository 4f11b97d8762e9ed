"""Classic backend idioms of issue 32: `K.zeros_like`/`K.ones_like` of concrete tensors
(item 8), the learning phase and the image data format (item 12), CTC on the engine's
own kernel (item 13) and `K.batch_dot`'s semantics (item 14)."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend as K
from lamina import layers, ops
from lamina.ops import ctc as ctc_ops


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


# Item 8 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, fill", [(K.zeros_like, 0.0), (K.ones_like, 1.0)])
def test_zeros_and_ones_like_of_concrete_values_are_tensors(fn, fill):
    for x in (np.ones((2, 3), "float32"), K.constant(np.ones((2, 3))), K.variable(np.ones((2, 3)))):
        out = fn(x)
        assert K.is_tensor(out) and not isinstance(out, lamina.Variable)
        assert not isinstance(out, lamina.KerasTensor)
        np.testing.assert_array_equal(_np(out), np.full((2, 3), fill))
        # Arithmetic computes at once: nothing symbolic to leak into `fit`.
        assert not isinstance(out * 2.0 + 1.0, lamina.KerasTensor)
    assert K.dtype(fn(np.ones(3, "int32"))) == "int32"
    assert K.dtype(fn(np.ones(3), dtype="float16")) == "float16"
    symbolic = fn(lamina.Input((3,)))
    assert isinstance(symbolic, lamina.KerasTensor) and symbolic.shape == (None, 3)


def test_a_constant_from_ones_like_trains_inside_a_lambda():
    scale = K.ones_like(np.ones((3,), "float32")) * 2.0  # classic: a constant for the graph
    inputs = lamina.Input((3,))
    outputs = layers.Dense(1)(layers.Lambda(lambda x: x * scale)(inputs))
    model = lamina.Model(inputs, outputs)
    model.compile("sgd", "mse")
    history = model.fit(np.ones((8, 3)), np.zeros((8, 1)), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


# Item 12 --------------------------------------------------------------------------------
def _dropout_model():
    inputs = lamina.Input((200,))
    return lamina.Model(inputs, layers.Dropout(0.5)(inputs))


def test_learning_phase_as_a_k_function_input():
    model = _dropout_model()
    f = K.function([model.input, K.learning_phase()], [model.output])
    data = np.ones((2, 200), "float32")
    assert 0.3 < (f([data, 1])[0] == 0).mean() < 0.7
    assert (f([data, 0])[0] == 0).mean() == 0.0


def test_set_learning_phase_fixes_k_function():
    model = _dropout_model()
    data = np.ones((2, 200), "float32")
    K.set_learning_phase(1)
    try:
        assert K.learning_phase() == 1
        f = K.function([model.input], [model.output])
        assert 0.3 < (f([data])[0] == 0).mean() < 0.7
        assert _np(K.in_train_phase(K.constant(1.0), K.constant(0.0))) == 1.0
        K.set_learning_phase(0)
        assert (f([data])[0] == 0).mean() == 0.0
    finally:
        K.set_learning_phase(None)
    assert isinstance(K.learning_phase(), lamina.KerasTensor)
    K.set_learning_phase(1)
    K.clear_session()  # as in Keras 2, a new session follows the calls again
    assert isinstance(K.learning_phase(), lamina.KerasTensor)


def test_set_learning_phase_reaches_model_and_layer_calls_predict_and_fit():
    # Keras 2: the fixed phase is the one every layer runs in unless a call passes
    # `training=` itself (MC dropout at inference; training with dropout off).
    model = _dropout_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    data = np.ones((2, 200), "float32")

    def dropped(x):
        return (_np(x) == 0).mean()

    K.set_learning_phase(1)
    try:
        assert 0.3 < dropped(model.predict(data, verbose=0)) < 0.7
        assert 0.3 < dropped(model(data)) < 0.7
        assert 0.3 < dropped(model.predict_on_batch(data)) < 0.7
        assert 0.3 < dropped(layers.Dropout(0.5)(data)) < 0.7
        assert dropped(model(data, training=False)) == 0.0  # an explicit flag wins
        K.set_learning_phase(0)
        assert dropped(model.predict(data, verbose=0)) == 0.0
        # Trained in the fixed inference phase: no dropout, so the same loss each step.
        dense = lamina.Model(model.input, layers.Dense(1)(model.output))
        dense.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
        history = dense.fit(data, np.zeros((2, 1)), epochs=3, verbose=0)
        assert len(set(np.round(history.history["loss"], 6))) == 1
    finally:
        K.set_learning_phase(None)
    # Released, the calls choose again (programs compiled for a phase are not reused).
    assert dropped(model.predict(data, verbose=0)) == 0.0
    assert dropped(model(data)) == 0.0
    history = dense.fit(data, np.zeros((2, 1)), epochs=3, verbose=0)
    assert len(set(np.round(history.history["loss"], 6))) == 3


def test_channels_first_is_honoured_by_layers_built_after_it():
    previous = K.image_data_format()
    K.set_image_data_format("channels_first")
    try:
        assert K.image_data_format() == "channels_first"
        model = lamina.Sequential(
            [
                layers.Input((1, 8, 8)),
                layers.Conv2D(4, 3, padding="same"),
                layers.MaxPooling2D(),
                layers.UpSampling2D(),
                layers.ZeroPadding2D(1),
                layers.Conv2D(2, 3),
                layers.GlobalAveragePooling2D(),
            ]
        )
        assert all(
            layer.data_format == "channels_first"
            for layer in model.layers
            if hasattr(layer, "data_format")
        )
        assert model.output_shape == (None, 2)
        assert model.layers[0].output.shape == (None, 4, 8, 8)
        model.compile("sgd", "mse")
        model.fit(np.ones((4, 1, 8, 8)), np.zeros((4, 2)), verbose=0)
    finally:
        K.set_image_data_format(previous)
    assert layers.Conv2D(1, 1).data_format == previous


# Item 13 --------------------------------------------------------------------------------
def _ctc_case(batch=6, steps=12, labels=5, classes=6, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, steps, classes)).astype("float32")
    target = rng.integers(0, classes - 1, size=(batch, labels)).astype("int32")
    target[0, 1] = target[0, 0]  # a repeat needs a blank between
    label_length = rng.integers(1, labels + 1, size=(batch,)).astype("int32")
    output_length = rng.integers(labels * 2, steps + 1, size=(batch,)).astype("int32")
    return target, logits, label_length, output_length


def test_ctc_loss_matches_the_forward_algorithm_forward_and_backward():
    target, logits, label_length, output_length = _ctc_case()
    blank = logits.shape[-1] - 1
    own = _np(ctc_ops._ctc_loss(target, logits, label_length, output_length, blank))
    got = _np(ops.ctc_loss(target, logits, label_length, output_length, blank))
    np.testing.assert_allclose(got, own, rtol=1e-5)
    if K.backend() == "torch":
        import torch

        grads = []
        for fn in (ops.ctc_loss, ctc_ops._ctc_loss):
            z = torch.tensor(logits, requires_grad=True)
            ops.sum(fn(target, z, label_length, output_length, blank)).backward()
            grads.append(z.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-6)
    # An impossible alignment: large and finite on every engine.
    impossible = _np(ops.ctc_loss(np.array([[1, 1, 1]]), np.zeros((1, 3, 3), "float32"), [3], [3]))
    assert np.isfinite(impossible).all() and impossible[0] > 1e4


@pytest.mark.engine("torch")
def test_ctc_on_torch_runs_torchs_kernel():
    import torch

    target, logits, label_length, output_length = _ctc_case()
    z = torch.tensor(logits, requires_grad=True)
    y_pred = torch.softmax(z, -1)
    cost = K.ctc_batch_cost(target, y_pred, output_length[:, None], label_length[:, None])
    assert tuple(cost.shape) == (len(logits), 1)
    # The autograd graph holds torch's CTC backward, not a loop of small ops.
    seen, stack = set(), [cost.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions)
    assert any("CtcLoss" in type(fn).__name__ for fn in seen)
    cost.sum().backward()
    assert np.isfinite(z.grad.numpy()).all()


# Item 14 --------------------------------------------------------------------------------
def test_batch_dot_follows_keras_2_2_5_and_its_documented_examples():
    # The docstring's examples (Keras 2.2.5 and later).
    out = K.batch_dot(K.ones((32, 20, 1)), K.ones((32, 30, 20)), axes=(1, 2))
    assert K.int_shape(out) == (32, 1, 30)
    x, y = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0]])
    np.testing.assert_array_equal(_np(K.batch_dot(x, y, axes=1)), [[17.0], [53.0]])
    assert K.int_shape(K.batch_dot(np.ones((100, 20)), np.ones((100, 30, 20)), axes=(1, 2))) == (
        100,
        30,
    )
    # Rank > 3, where 2.2.5 changed the rule: every axis but the batch and the contracted
    # ones is kept, x's first, then y's (2.2.4 ran a batched matmul over leading axes).
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 5, 6))
    np.testing.assert_allclose(
        _np(K.batch_dot(a, b, axes=(3, 1))), np.einsum("bijk,bkl->bijl", a, b), rtol=1e-5
    )
    c = rng.normal(size=(2, 3, 7))
    np.testing.assert_allclose(
        _np(K.batch_dot(a, c, axes=(1, 1))), np.einsum("bijk,bil->bjkl", a, c), rtol=1e-5
    )
    # The default axes: x's last with y's second-to-last (y's last when y is 2-D).
    assert K.int_shape(K.batch_dot(a, b)) == (2, 3, 4, 6)
    # On graph tensors too.
    symbolic = K.batch_dot(lamina.Input((3, 4, 5)), lamina.Input((5, 6)), axes=(3, 1))
    assert symbolic.shape == (None, 3, 4, 6)


def test_batch_dot_on_capsule_routing_shapes_follows_keras_2_2_5():
    # Keras 2.2.5's cifar10_cnn_capsule.py routing: `batch_dot(c, u_hat, [2, 2])` keeps
    # both capsule axes (its rule), so the next `batch_dot(o, u_hat, [2, 3])` meets
    # sizes 10 and 16, the error Keras 2.2.5 gave on its own example
    # (keras-team/keras#13599).
    rng = np.random.default_rng(1)
    c, u_hat = rng.normal(size=(2, 10, 5)), rng.normal(size=(2, 10, 5, 16))
    o = K.batch_dot(c, u_hat, [2, 2])
    np.testing.assert_allclose(_np(o), np.einsum("bin,bjnd->bijd", c, u_hat), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"x.shape\[2\] != y.shape\[3\] \(10 != 16\)"):
        K.batch_dot(o, u_hat, [2, 3])


def test_k_function_feeds_a_list_of_arrays_as_one_array_as_a_session_did():
    # Keras 2.2.5's conv_filter_visualization calls `iterate([[image]])`: TensorFlow's
    # feed turned the list `[image]` into one array of the placeholder's dtype, a batch
    # of one; so does lamina, for every input given as a (nested) list or tuple.
    image = np.random.default_rng(0).random((5, 5, 3))  # float64, as PIL and NumPy give
    x = lamina.Input((5, 5, 3))
    conv = layers.Conv2D(2, 3, kernel_initializer="ones", bias_initializer="zeros")
    f = K.function([x], [conv(x)])
    expected = np.array(
        [
            [[image[i : i + 3, j : j + 3].sum() for _ in range(2)] for j in range(3)]
            for i in range(3)
        ]
    )
    (out,) = f([[image]])
    assert out.shape == (1, 3, 3, 2) and out.dtype == np.float32
    np.testing.assert_allclose(out[0], expected, rtol=1e-5)
    np.testing.assert_array_equal(f([[image]])[0], f([image[None].astype("float32")])[0])
    with pytest.raises(ValueError, match="Input 0 of this function .*not one rectangular"):
        f([[image, image[:4]]])
