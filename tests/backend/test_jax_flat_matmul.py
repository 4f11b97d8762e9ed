"""A stack of rows times a matrix on JAX's CPU (a Dense layer on a sequence or an image)
runs as one 2-D product over the flattened rows (`numpy_products._flat_matmul`): the
values NumPy's matmul gives, the gradients JAX derives for the rank-3 product itself, the
dtypes `jnp.matmul` gives, and `jnp.matmul` kept for every other pair of ranks."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.engine("jax")

jax = pytest.importorskip("jax")
jnp = jax.numpy

from lamina.backend.jax import numpy_products  # noqa: E402


def _dot_operand_ranks(fn, *args):
    return [
        tuple(v.aval.ndim for v in eqn.invars)
        for eqn in jax.make_jaxpr(fn)(*args).eqns
        if eqn.primitive.name == "dot_general"
    ]


@pytest.mark.parametrize("shape", [(4, 5, 6), (2, 3, 4, 6), (1, 1, 6), (0, 3, 6)])
def test_values_and_gradients_of_the_flat_product(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype("float32")
    w = rng.standard_normal((6, 7)).astype("float32")
    got = numpy_products.matmul(x, w)
    assert got.shape == shape[:-1] + (7,)
    np.testing.assert_allclose(np.asarray(got), x @ w, rtol=1e-5, atol=1e-5)
    assert _dot_operand_ranks(numpy_products.matmul, x, w) == [(2, 2)]

    def loss(fn):
        return lambda a, b: jnp.sum(jnp.sin(fn(a, b)))

    ours = jax.grad(loss(numpy_products.matmul), (0, 1))(x, w)
    xlas = jax.grad(loss(jnp.matmul), (0, 1))(x, w)
    for a, b in zip(ours, xlas, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_dtypes_are_jnp_matmuls():
    x = np.ones((2, 3, 4))
    for a, b in [
        (x.astype("bfloat16"), np.ones((4, 5), "bfloat16")),
        (x.astype("int32"), np.ones((4, 5), "int32")),
        (x.astype("float16"), np.ones((4, 5), "float32")),
        (x.astype("int8"), np.ones((4, 5), "int8")),  # int8 accumulates in int32
    ]:
        want = jnp.matmul(a, b, preferred_element_type=jnp.int32 if a.dtype == "int8" else None)
        got = numpy_products.matmul(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got, "float32"), np.asarray(want, "float32"))


def test_other_ranks_keep_jnp_matmul():
    rng = np.random.default_rng(1)
    pairs = [
        ((3, 4), (4, 5)),  # a matrix product already
        ((2, 3, 4), (2, 4, 5)),  # a batch of products
        ((4,), (4, 5)),
        ((2, 3, 4), (4,)),
    ]
    for s1, s2 in pairs:
        a, b = rng.standard_normal(s1).astype("float32"), rng.standard_normal(s2).astype("float32")
        np.testing.assert_allclose(
            np.asarray(numpy_products.matmul(a, b)), np.matmul(a, b), rtol=1e-5, atol=1e-5
        )
        ranks = _dot_operand_ranks(numpy_products.matmul, a, b)
        assert ranks == _dot_operand_ranks(jnp.matmul, a, b)


def test_a_dense_layer_on_a_sequence_trains_as_keras_does():
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    import lamina

    x = np.random.default_rng(2).standard_normal((3, 5, 4)).astype("float32")
    ours, theirs = lamina.layers.Dense(6), keras.layers.Dense(6)
    ours.build(x.shape), theirs.build(x.shape)
    theirs.set_weights(ours.get_weights())

    def grads(layer):
        def loss(ws, a):
            return jnp.sum(jnp.sin(layer.stateless_call(ws, [], a)[0]))

        return jax.grad(loss, (0, 1))([v.value for v in layer.trainable_variables], x)

    for a, b in zip(jax.tree.leaves(grads(ours)), jax.tree.leaves(grads(theirs)), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
    # The product and the bias on the flattened rows (the bias's gradient a sum over one
    # axis), the layer's output shaped back.
    weights = [v.value for v in ours.trainable_variables]
    jaxpr = jax.make_jaxpr(lambda ws, a: ours.stateless_call(ws, [], a)[0])(weights, x)
    adds = [e for e in jaxpr.eqns if e.primitive.name == "add"]
    assert adds and all(e.outvars[0].aval.ndim == 2 for e in adds)
    assert jaxpr.out_avals[0].shape == (3, 5, 6)


# Einsums that are products of flattened axes -----------------------------------------
FLAT_EINSUMS = [
    ("abc,cd->abd", (2, 3, 4), (4, 5)),  # EinsumDense as Dense
    ("abc,cde->abde", (2, 3, 4), (4, 2, 3)),  # attention's query/key/value projection
    ("abcd,cde->abe", (2, 3, 2, 3), (2, 3, 4)),  # attention's output projection
    ("ab,bcd->acd", (3, 4), (4, 2, 5)),
    ("abc, cd -> abd", (0, 3, 4), (4, 5)),  # spaces, no rows
]


@pytest.mark.parametrize("subscripts, s1, s2", FLAT_EINSUMS)
def test_flat_einsums_give_numpys_values_and_xlas_gradients(subscripts, s1, s2):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(s1).astype("float32"), rng.standard_normal(s2).astype("float32")
    got = numpy_products.einsum(subscripts, a, b)
    np.testing.assert_allclose(np.asarray(got), np.einsum(subscripts, a, b), rtol=1e-5, atol=1e-5)
    assert _dot_operand_ranks(lambda x, y: numpy_products.einsum(subscripts, x, y), a, b) == [
        (2, 2)
    ]

    def loss(fn):
        return lambda x, y: jnp.sum(jnp.sin(fn(subscripts, x, y)))

    ours = jax.grad(loss(numpy_products.einsum), (0, 1))(a, b)
    xlas = jax.grad(loss(jnp.einsum), (0, 1))(a, b)
    for x, y in zip(ours, xlas, strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "subscripts, s1, s2",
    [
        ("abc,acd->abd", (2, 3, 4), (2, 4, 5)),  # a batch axis shared: not flat
        ("abc,dc->abd", (2, 3, 4), (5, 4)),  # the contracted axis last on the right
        ("bac,cd->abd", (3, 2, 4), (4, 5)),  # the output reorders the rows' axes
        ("...c,cd->...d", (2, 3, 4), (4, 5)),
        ("ij,jk->ik", (3, 4), (4, 5)),  # a matrix product already
        ("abc,cd->abd", (2, 3, 4), (6, 5)),  # sizes that disagree: jnp.einsum's error
    ],
)
def test_other_einsums_keep_jnp_einsum(subscripts, s1, s2):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(s1).astype("float32"), rng.standard_normal(s2).astype("float32")
    assert numpy_products._flat_einsum(subscripts, a, b) is None
    try:
        want = np.einsum(subscripts, a, b)
    except ValueError:
        with pytest.raises((ValueError, TypeError)):
            numpy_products.einsum(subscripts, a, b)
        return
    np.testing.assert_allclose(
        np.asarray(numpy_products.einsum(subscripts, a, b)), want, rtol=1e-5, atol=1e-5
    )


def test_einsum_options_and_int8_keep_jnp_einsum():
    a, b = np.ones((2, 3, 4), "int8"), np.ones((4, 5), "int8")
    assert numpy_products.einsum("abc,cd->abd", a, b).dtype == jnp.int32
    x = np.ones((2, 3, 4), "float32")
    out = numpy_products.einsum("abc,cd->abd", x, np.ones((4, 5), "float32"), precision="highest")
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3, 5), 4.0))
