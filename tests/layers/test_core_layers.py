"""Core layers: conformance (check_layer) and numerics against NumPy."""

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

CONFORMANCE = [
    (layers.Dense, {"units": 4}, (2, 3), "float32", (2, 4), 2, 0, True),
    (
        layers.Dense,
        {"units": 2, "activation": "relu", "use_bias": False},
        (2, 5, 3),
        "float32",
        (2, 5, 2),
        1,
        0,
        True,
    ),
    (layers.Activation, {"activation": "tanh"}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.Dropout, {"rate": 0.5}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.Identity, {}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.Flatten, {}, (2, 3, 4), "float32", (2, 12), 0, 0, None),
    (layers.Reshape, {"target_shape": (2, -1)}, (2, 6), "float32", (2, 2, 3), 0, 0, None),
    (layers.Permute, {"dims": (2, 1)}, (2, 3, 4), "float32", (2, 4, 3), 0, 0, None),
    (layers.RepeatVector, {"n": 3}, (2, 4), "float32", (2, 3, 4), 0, 0, None),
    (layers.Embedding, {"input_dim": 5, "output_dim": 3}, (2, 4), "int32", (2, 4, 3), 1, 0, False),
    (layers.Masking, {"mask_value": 0.0}, (2, 3, 4), "float32", (2, 3, 4), 0, 0, True),
    (layers.ReLU, {"max_value": 1.0}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.LeakyReLU, {"negative_slope": 0.1}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.ELU, {"alpha": 0.5}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.PReLU, {}, (2, 3), "float32", (2, 3), 1, 0, True),
    (layers.Softmax, {}, (2, 3), "float32", (2, 3), 0, 0, True),
    (layers.Add, {}, [(2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Subtract, {}, [(2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Multiply, {}, [(2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Average, {}, [(2, 3), (2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Maximum, {}, [(2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Minimum, {}, [(2, 3), (2, 3)], "float32", (2, 3), 0, 0, True),
    (layers.Concatenate, {"axis": -1}, [(2, 3), (2, 2)], "float32", (2, 5), 0, 0, True),
    (layers.Dot, {"axes": 1}, [(2, 3), (2, 3)], "float32", (2, 1), 0, 0, False),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, dtype, out_shape, n_train, n_non_train, masking",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, dtype, out_shape, n_train, n_non_train, masking):
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        input_dtype=dtype,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=n_train,
        expected_num_non_trainable_weights=n_non_train,
        supports_masking=masking,
    )


@lamina.utils.register_keras_serializable(package="tests")
def double(x):
    return x * 2.0


def test_lambda_conformance_and_safe_mode():
    check_layer(
        layers.Lambda, {"function": double}, input_shape=(2, 3), expected_output_shape=(2, 3)
    )
    layer = layers.Lambda(lambda x: x * 2.0)
    config = layer.get_config()
    with pytest.raises(ValueError, match="safe mode"):
        layers.Lambda.from_config(config)
    revived = layers.Lambda.from_config(config, safe_mode=False)
    np.testing.assert_allclose(
        ops.convert_to_numpy(revived(np.ones((1, 2), "float32"))), [[2.0, 2.0]]
    )


def test_embedding_mask_zero_conformance():
    check_layer(
        layers.Embedding,
        {"input_dim": 5, "output_dim": 3, "mask_zero": True},
        input_shape=(2, 4),
        input_dtype="int32",
        input_data=np.array([[1, 2, 0, 0], [3, 0, 0, 0]]),
        expected_output_shape=(2, 4, 3),
        expected_mask_shape=(2, 4),
    )


X = np.random.default_rng(1).standard_normal((4, 3)).astype("float32")


def test_dense_numerics():
    layer = layers.Dense(2, activation="sigmoid")
    out = ops.convert_to_numpy(layer(X))
    np.testing.assert_allclose(
        out, special.expit(X @ layer.kernel.numpy() + layer.bias.numpy()), rtol=1e-5
    )


def test_activation_layer_numerics():
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.ReLU(max_value=0.5, negative_slope=0.1, threshold=0.2)(X)),
        np.where(X >= 0.2, np.minimum(X, 0.5), 0.1 * (X - 0.2)),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.LeakyReLU()(X)), np.where(X > 0, X, 0.3 * X), rtol=1e-6
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.ELU(alpha=0.7)(X)),
        np.where(X > 0, X, 0.7 * np.expm1(X)),
        rtol=1e-5,
    )
    prelu = layers.PReLU(alpha_initializer="ones")
    np.testing.assert_allclose(ops.convert_to_numpy(prelu(X)), X, rtol=1e-6)
    soft = ops.convert_to_numpy(layers.Softmax()(X, mask=np.array([[1, 1, 0]] * 4, bool)))
    e = np.exp(X[:, :2] - X[:, :2].max(1, keepdims=True))
    np.testing.assert_allclose(soft[:, :2], e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(soft[:, 2], 0, atol=1e-6)


def test_merge_numerics():
    a, b = X, X[::-1].copy()
    np.testing.assert_allclose(ops.convert_to_numpy(layers.Subtract()([a, b])), a - b)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.Average()([a, b])), (a + b) / 2, rtol=1e-6
    )
    np.testing.assert_allclose(ops.convert_to_numpy(layers.Maximum()([a, b])), np.maximum(a, b))
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.Dot(axes=1)([a, b])), (a * b).sum(1, keepdims=True), rtol=1e-5
    )
    na = a / np.linalg.norm(a, axis=1, keepdims=True)
    nb = b / np.linalg.norm(b, axis=1, keepdims=True)
    np.testing.assert_allclose(
        ops.convert_to_numpy(layers.Dot(axes=1, normalize=True)([a, b])),
        (na * nb).sum(1, keepdims=True),
        rtol=1e-5,
    )
    x1, x2 = Input((3,)), Input((3,))
    for fn in (
        layers.add,
        layers.subtract,
        layers.multiply,
        layers.average,
        layers.maximum,
        layers.minimum,
        layers.concatenate,
    ):
        assert fn([x1, x2]).shape[0] is None
    assert layers.dot([x1, x2], axes=1).shape == (None, 1)


def test_merge_errors():
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([X, X, X])
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([np.zeros((2, 3)), np.zeros((2, 4))])
    with pytest.raises(ValueError, match="must be called on a list"):
        layers.Add()(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="match except on the concat axis"):
        layers.Concatenate(axis=1)([np.zeros((2, 3)), np.zeros((3, 3))])


def test_masking_layer_and_concatenate_masks():
    data = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]], "float32")
    masking = layers.Masking()
    np.testing.assert_array_equal(
        ops.convert_to_numpy(masking.compute_mask(data)), [[True, False, True]]
    )
    x = Input((3,), dtype="int32")
    e1 = layers.Embedding(5, 2, mask_zero=True)(x)
    e2 = layers.Embedding(5, 2, mask_zero=True)(x)
    merged = layers.Concatenate()([e1, e2])
    assert merged._keras_mask is not None
    model = Model(x, merged)
    out_mask = model.compute_mask(np.array([[1, 0, 2]]), None)
    np.testing.assert_array_equal(ops.convert_to_numpy(out_mask), [[True, False, True]])
    # As Keras 3: a step is kept where any concatenated feature is, so an unmasked
    # input keeps every step.
    unmasked = layers.Concatenate()([e1, layers.Embedding(5, 2)(x)])
    out_mask = Model(x, unmasked).compute_mask(np.array([[1, 0, 2]]), None)
    np.testing.assert_array_equal(ops.convert_to_numpy(out_mask), [[True, True, True]])


def test_reshape_and_permute_errors():
    with pytest.raises(ValueError, match="cannot reshape"):
        layers.Reshape((4, -1))(Input((6,)))
    with pytest.raises(ValueError, match="permutation"):
        layers.Permute((1, 3))
    with pytest.raises(ValueError, match="rank 3"):
        layers.Permute((2, 1))(Input((3,)))


def test_dropout_training_only_and_rate_check():
    d = layers.Dropout(0.5, seed=0)
    ones = np.ones((1, 1000), "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(d(ones)), ones)
    out = ops.convert_to_numpy(d(ones, training=True))
    assert set(np.unique(out)) <= {0.0, 2.0}
    with pytest.raises(ValueError, match=r"rate` in \[0, 1\)"):
        layers.Dropout(1.5)


def test_input_spec_dtype_error_names_the_layer():
    layer = layers.Dense(2, name="strict")
    layer.input_spec = layers.InputSpec(dtype="int32", min_ndim=2)
    with pytest.raises(
        ValueError, match=r"Dense 'strict' expected input of dtype int32, received dtype float32"
    ):
        layer(Input((3,)))


def test_lambda_over_a_list_of_inputs_with_output_shape():
    # A siamese distance: Lambda over [a, b] with a tuple or callable output_shape.
    a, b = Input((4,)), Input((4,))
    dist = layers.Lambda(
        lambda t: ops.sum(ops.abs(t[0] - t[1]), axis=1, keepdims=True), output_shape=(1,)
    )([a, b])
    prod = layers.Lambda(lambda t: t[0] * t[1], output_shape=lambda s: s[0])([a, b])
    assert dist.shape == (None, 1) and prod.shape == (None, 4)
    model = Model([a, b], [dist, prod])
    x = np.arange(8, dtype="float32").reshape(2, 4)
    y = np.ones((2, 4), "float32")
    d, p = model.predict([x, y], verbose=0)
    np.testing.assert_allclose(d, np.abs(x - y).sum(1, keepdims=True))
    np.testing.assert_allclose(p, x * y)
    revived = Model.from_config(model.get_config(), safe_mode=False)
    d2, p2 = revived.predict([x, y], verbose=0)
    np.testing.assert_allclose(d2, d)
    np.testing.assert_allclose(p2, p)


def test_compute_output_shape_takes_a_list_of_shapes():
    assert layers.Concatenate().compute_output_shape([(None, 3), (None, 4)]) == (None, 7)
    assert layers.Add().compute_output_shape([[None, 3], [None, 3]]) == (None, 3)
    assert layers.Dense(5).compute_output_shape((None, 2, 3)) == (None, 2, 5)
