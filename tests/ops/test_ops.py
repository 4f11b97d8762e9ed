"""Every op against NumPy, eagerly and symbolically, and some gradients."""

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import Input, Model, backend, ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3)).astype("float32")
Y = RNG.standard_normal((2, 3)).astype("float32")
P = np.abs(X) + 0.5
M = RNG.standard_normal((3, 4)).astype("float32")


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# (name, op call on tensor args, numpy reference, args)
CASES = [
    ("add", lambda a, b: ops.add(a, b), np.add, (X, Y)),
    ("subtract", lambda a, b: ops.subtract(a, b), np.subtract, (X, Y)),
    ("multiply", lambda a, b: ops.multiply(a, b), np.multiply, (X, Y)),
    ("divide", lambda a, b: ops.divide(a, b), np.divide, (X, P)),
    ("power", lambda a: ops.power(a, 2.0), lambda a: a**2, (X,)),
    ("maximum", lambda a, b: ops.maximum(a, b), np.maximum, (X, Y)),
    ("minimum", lambda a, b: ops.minimum(a, b), np.minimum, (X, Y)),
    ("greater", lambda a, b: ops.greater(a, b), np.greater, (X, Y)),
    ("equal", lambda a: ops.equal(a, a), lambda a: np.equal(a, a), (X,)),
    ("abs", ops.abs, np.abs, (X,)),
    ("sqrt", ops.sqrt, np.sqrt, (P,)),
    ("exp", ops.exp, np.exp, (X,)),
    ("log", ops.log, np.log, (P,)),
    ("tanh", ops.tanh, np.tanh, (X,)),
    ("sign", ops.sign, np.sign, (X,)),
    ("matmul", ops.matmul, np.matmul, (X, M)),
    ("dot", ops.dot, np.dot, (X, M)),
    (
        "einsum",
        lambda a, b: ops.einsum("ij,jk->ik", a, b),
        lambda a, b: np.einsum("ij,jk->ik", a, b),
        (X, M),
    ),
    (
        "tensordot",
        lambda a, b: ops.tensordot(a, b, axes=1),
        lambda a, b: np.tensordot(a, b, axes=1),
        (X, M),
    ),
    ("sum", lambda a: ops.sum(a, axis=1), lambda a: a.sum(axis=1), (X,)),
    (
        "mean",
        lambda a: ops.mean(a, axis=0, keepdims=True),
        lambda a: a.mean(axis=0, keepdims=True),
        (X,),
    ),
    ("max", lambda a: ops.max(a, axis=-1), lambda a: a.max(axis=-1), (X,)),
    ("min", lambda a: ops.min(a), np.min, (X,)),
    ("prod", lambda a: ops.prod(a, axis=1), lambda a: a.prod(axis=1), (X,)),
    ("std", lambda a: ops.std(a, axis=1), lambda a: a.std(axis=1), (X,)),
    ("var", lambda a: ops.var(a), np.var, (X,)),
    ("argmax", lambda a: ops.argmax(a, axis=1), lambda a: a.argmax(axis=1), (X,)),
    ("argmin", lambda a: ops.argmin(a, axis=1), lambda a: a.argmin(axis=1), (X,)),
    ("cumsum", lambda a: ops.cumsum(a, axis=1), lambda a: a.cumsum(axis=1), (X,)),
    ("reshape", lambda a: ops.reshape(a, (3, 2)), lambda a: a.reshape(3, 2), (X,)),
    ("transpose", ops.transpose, np.transpose, (X,)),
    ("expand_dims", lambda a: ops.expand_dims(a, 1), lambda a: np.expand_dims(a, 1), (X,)),
    ("squeeze", lambda a: ops.squeeze(ops.expand_dims(a, 0), 0), lambda a: a, (X,)),
    (
        "concatenate",
        lambda a, b: ops.concatenate([a, b], axis=1),
        lambda a, b: np.concatenate([a, b], 1),
        (X, Y),
    ),
    ("stack", lambda a, b: ops.stack([a, b], axis=0), lambda a, b: np.stack([a, b]), (X, Y)),
    ("split", lambda a: ops.split(a, 3, axis=1)[1], lambda a: np.split(a, 3, axis=1)[1], (X,)),
    (
        "take",
        lambda a: ops.take(a, np.array([2, 0]), axis=1),
        lambda a: np.take(a, [2, 0], axis=1),
        (X,),
    ),
    ("where", lambda a, b: ops.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b), (X, Y)),
    ("pad", lambda a: ops.pad(a, ((0, 0), (1, 2))), lambda a: np.pad(a, ((0, 0), (1, 2))), (X,)),
    ("tile", lambda a: ops.tile(a, (1, 2)), lambda a: np.tile(a, (1, 2)), (X,)),
    ("repeat", lambda a: ops.repeat(a, 2, axis=0), lambda a: np.repeat(a, 2, axis=0), (X,)),
    ("cast", lambda a: ops.cast(a, "int32"), lambda a: a.astype("int32"), (P * 3,)),
    ("clip", lambda a: ops.clip(a, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5), (X,)),
    ("sort", lambda a: ops.sort(a, axis=1), lambda a: np.sort(a, axis=1), (X,)),
    ("argsort", lambda a: ops.argsort(a, axis=1), lambda a: np.argsort(a, axis=1), (X,)),
    ("top_k", lambda a: ops.top_k(a, 2)[0], lambda a: -np.sort(-a, axis=1)[:, :2], (X,)),
    ("softmax", ops.softmax, _softmax, (X,)),
    ("log_softmax", ops.log_softmax, lambda a: np.log(_softmax(a)), (X,)),
    ("logsumexp", lambda a: ops.logsumexp(a, axis=1), lambda a: special.logsumexp(a, axis=1), (X,)),
    ("relu", ops.relu, lambda a: np.maximum(a, 0), (X,)),
    ("sigmoid", ops.sigmoid, special.expit, (X,)),
    ("one_hot", lambda a: ops.one_hot(a, 4), lambda a: np.eye(4)[a], (np.array([0, 3, 1]),)),
    ("erf", ops.erf, special.erf, (X,)),
    (
        "digitize",
        lambda a: ops.digitize(a, np.array([-0.5, 0.0, 0.5], "float32")),
        lambda a: np.digitize(a, [-0.5, 0.0, 0.5]),
        (X,),
    ),
    (
        "searchsorted",
        lambda a: ops.searchsorted(np.array([-1.0, 0.0, 1.0], "float32"), a, side="right"),
        lambda a: np.searchsorted([-1.0, 0.0, 1.0], a, side="right"),
        (X,),
    ),
    (
        "bincount",
        lambda a: ops.bincount(a, minlength=5),
        lambda a: np.stack([np.bincount(row, minlength=5) for row in a]),
        (np.array([[0, 1, 1, 4], [3, 3, 3, 0]], "int32"),),
    ),
    (
        "get_item",
        lambda a: a[:, 0] if not isinstance(a, np.ndarray) else a[:, 0],
        lambda a: a[:, 0],
        (X,),
    ),
]


@pytest.mark.parametrize("name, op, reference, args", CASES, ids=[c[0] for c in CASES])
def test_op_eager_and_symbolic(name, op, reference, args):
    expected = reference(*args)
    tensors = [ops.convert_to_tensor(a) for a in args]
    eager = op(*tensors)
    np.testing.assert_allclose(ops.convert_to_numpy(eager), expected, rtol=1e-5, atol=1e-6)
    inputs = [Input(batch_shape=(None,) + a.shape[1:], dtype=str(a.dtype)) for a in args]
    if name in ("matmul", "dot", "tensordot", "einsum", "min", "var", "reshape", "bincount"):
        inputs = [Input(batch_shape=a.shape, dtype=str(a.dtype)) for a in args]
    symbolic = op(*inputs)
    assert isinstance(symbolic, lamina.graph.KerasTensor)
    got = ops.convert_to_numpy(eager).shape
    assert len(symbolic.shape) == len(got)
    assert all(s is None or s == g for s, g in zip(symbolic.shape, got, strict=True))
    assert symbolic.dtype == backend.standardize_dtype(ops.convert_to_numpy(eager).dtype)
    model = Model(inputs, symbolic)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model(list(args))), expected, rtol=1e-5, atol=1e-6
    )


def test_unknown_batch_dimension_is_none():
    x = Input((3,))
    assert ops.matmul(x, M).shape == (None, 4)
    assert ops.reshape(x, (-1, 3, 1)).shape == (None, 3, 1)
    assert ops.sum(x, axis=0).shape == (3,)


def _numeric_grad(f, x, eps=1e-3):
    grad = np.zeros_like(x, dtype="float64")
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (float(f(up)) - float(f(down))) / (2 * eps)
    return grad


@pytest.mark.parametrize(
    "name, fn",
    [
        (
            "softmax",
            lambda a: ops.sum(ops.multiply(ops.softmax(a), np.arange(3.0, dtype="float32"))),
        ),
        ("logsumexp", lambda a: ops.sum(ops.logsumexp(a, axis=1))),
        ("matmul", lambda a: ops.sum(ops.square(ops.matmul(a, M)))),
        ("tanh", lambda a: ops.sum(ops.tanh(a) * a)),
        ("sqrt", lambda a: ops.sum(ops.sqrt(ops.abs(a) + 1.0))),
    ],
)
def test_gradients_match_finite_differences(name, fn):
    x = X.astype("float32")
    _, grad = backend.value_and_grad(fn)(ops.convert_to_tensor(x))
    numeric = _numeric_grad(
        lambda a: fn(ops.convert_to_tensor(a.astype("float32"))), x.astype("float64")
    )
    np.testing.assert_allclose(ops.convert_to_numpy(grad), numeric, rtol=2e-2, atol=2e-3)


def test_control_flow_ops():
    out = ops.cond(ops.convert_to_tensor(True), lambda: 1.0, lambda: 2.0)
    assert float(out) == 1.0
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, ops.convert_to_tensor(np.arange(4.0)))
    assert float(carry) == 6.0
    np.testing.assert_allclose(ops.convert_to_numpy(ys), [0.0, 0.0, 2.0, 9.0])
    assert int(ops.fori_loop(0, 5, lambda i, v: v + i, 0)) == 10
    assert int(ops.while_loop(lambda v: v < 10, lambda v: v * 2, 1)) == 16
    assert float(ops.sum(ops.stop_gradient(ops.ones(3)))) == 3.0
    x = Input(batch_shape=(3, 4))
    _, ys = ops.scan(lambda c, v: (c + v, c), ops.zeros((4,)), x)
    assert ys.shape == (3, 4)


def test_variables_flow_into_ops():
    v = lamina.Variable(np.ones((3, 4), "float32"))
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.matmul(X, v)), X @ np.ones((3, 4)), rtol=1e-6
    )


def _affine_reference(image, t, order, mode, cval):
    """Keras's projective-transform rule, resampled with SciPy (an independent engine)."""
    from scipy import ndimage

    height, width = image.shape[:2]
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    k = t[6] * cols + t[7] * rows + 1.0
    src_x = (t[0] * cols + t[1] * rows + t[2]) / k
    src_y = (t[3] * cols + t[4] * rows + t[5]) / k
    scipy_mode = {"constant": "grid-constant", "nearest": "nearest", "wrap": "grid-wrap"}[mode]
    return np.stack(
        [
            ndimage.map_coordinates(
                image[..., c].astype("float64"),
                [src_y, src_x],
                order=order,
                mode=scipy_mode,
                cval=cval,
            )
            for c in range(image.shape[-1])
        ],
        axis=-1,
    )


@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap"])
@pytest.mark.parametrize("interpolation, order", [("bilinear", 1), ("nearest", 0)])
def test_affine_transform_matches_scipy(mode, interpolation, order):
    images = RNG.uniform(0, 10, (2, 5, 7, 2)).astype("float32")
    angle = 0.3
    transforms = np.array(
        [
            [np.cos(angle), -np.sin(angle), 1.5, np.sin(angle), np.cos(angle), -0.7, 0, 0],
            [1.2, 0.1, -0.4, 0.0, 0.8, 0.6, 0.01, 0.0],
        ],
        "float32",
    )
    got = ops.convert_to_numpy(
        ops.image.affine_transform(
            images, transforms, interpolation=interpolation, fill_mode=mode, fill_value=-1.0
        )
    )
    for image, t, out in zip(images, transforms, got, strict=True):
        expected = _affine_reference(image, t, order, mode, -1.0)
        np.testing.assert_allclose(out, expected, atol=1e-4)
    channels_first = ops.image.affine_transform(
        np.moveaxis(images, -1, 1), transforms, interpolation, mode, -1.0, "channels_first"
    )
    np.testing.assert_allclose(
        np.moveaxis(ops.convert_to_numpy(channels_first), 1, -1), got, atol=1e-5
    )


def test_affine_transform_and_resize_refuse_bad_arguments():
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        ops.image.affine_transform(np.ones((4, 4, 1)), np.zeros(8), fill_mode="edge")
    with pytest.raises(ValueError, match="unknown interpolation 'cubic'"):
        ops.image.affine_transform(np.ones((4, 4, 1)), np.zeros(8), interpolation="cubic")
    with pytest.raises(ValueError, match=r"one transform of 8 numbers per image, shape \(2, 8\)"):
        ops.image.affine_transform(np.ones((2, 4, 4, 1)), np.zeros((3, 8)))
    with pytest.raises(ValueError, match="rank 3.*rank 4"):
        ops.image.affine_transform(np.ones((4, 4)), np.zeros(8))
    with pytest.raises(ValueError, match="unknown interpolation 'area'"):
        ops.image.resize(np.ones((1, 4, 4, 1)), (2, 2), interpolation="area")
