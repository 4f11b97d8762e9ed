"""The NumPy long tail added to match Keras 3, each against Keras 3 on JAX.

Values and dtypes for every case, symbolic shapes where shapes do not depend on values,
gradients for a sample of the differentiable ones; NumPy itself for a few.
"""

from __future__ import annotations

import numpy as np
import pytest
from gaps_harness import case, check, groups, rand

from lamina import ops

X = rand(3, 4, low=-3.0, high=3.0)
POS = rand(3, 4, low=0.5, high=3.0)
Y = rand(3, 4, low=-3.0, high=3.0)
INTS = np.array([[12, 18, 7, 0], [5, 9, 16, 3], [2, 4, 8, 1]], "int32")
SHIFTS = np.array([[1, 2, 0, 3], [0, 1, 1, 2], [3, 0, 2, 1]], "int32")
NANS = np.where(rand(3, 4) > 0.3, np.nan, X).astype("float32")
SPECIAL = np.array(
    [[0.0, -0.0, np.inf, -np.inf], [1.5, -2.5, np.nan, 3.0], [0.0, 1.0, -1.0, 2.0]], "float32"
)
VEC, VEC2 = rand(5), rand(3)
CUBE = rand(2, 3, 4)

NUMPY = {
    # (f, inputs, grad, symbolic)
    "allclose": (lambda o, x: o.allclose(x, x + 1e-6), (X,), False, True),
    "amax": (lambda o, x: o.amax(x, axis=1), (X,), True, True),
    "amin": (lambda o, x: o.amin(x, axis=0, keepdims=True), (X,), True, True),
    "angle": (lambda o, x: o.angle(x), (X,), False, True),
    "array": (lambda o, x: o.array(x, dtype="float16"), (X,), False, False),
    "array_split": (lambda o, x: o.array_split(x, 3, axis=1), (X,), True, True),
    "bartlett": (lambda o, n: o.bartlett(n), (7,), False, False),
    "bitwise": (
        lambda o, a, b: [
            o.bitwise_and(a, b),
            o.bitwise_or(a, b),
            o.bitwise_xor(a, b),
            o.bitwise_invert(a),
            o.bitwise_not(a),
            o.bitwise_left_shift(a, b),
            o.left_shift(a, b),
            o.bitwise_right_shift(a, b),
            o.right_shift(a, b),
        ],
        (INTS, SHIFTS),
        False,
        True,
    ),
    "blackman": (lambda o, n: o.blackman(n), (6,), False, False),
    "cbrt": (lambda o, x: o.cbrt(x), (X,), True, True),
    "conj": (lambda o, x: [o.conj(x), o.conjugate(x), o.real(x), o.imag(x)], (X,), False, True),
    "corrcoef": (lambda o, x: o.corrcoef(x), (X,), True, False),
    # One variable (a 1-D x): NumPy's and Keras's scalar 1.0.
    "corrcoef_1d": (lambda o, x: o.corrcoef(x), (VEC,), False, True),
    "correlate": (
        lambda o, x: [
            o.correlate(x, VEC2),
            o.correlate(x, VEC2, "same"),
            o.correlate(x, VEC2, "full"),
        ],
        (VEC,),
        False,
        False,
    ),
    "deg2rad": (lambda o, x: [o.deg2rad(x), o.rad2deg(x)], (X,), True, True),
    "diagflat": (lambda o, x: o.diagflat(x, k=1), (rand(2, 2),), False, False),
    "diff": (lambda o, x: [o.diff(x), o.diff(x, n=2, axis=0)], (X,), True, False),
    "divide_no_nan": (
        lambda o, x: o.divide_no_nan(x, np.where(Y > 0, Y, 0).astype("float32")),
        (X,),
        False,
        False,
    ),
    "dsplit": (lambda o, x: o.dsplit(x, 2), (rand(2, 2, 4),), False, True),
    "stacks": (
        lambda o, x: [o.hstack([x, x]), o.vstack([x, x]), o.dstack([x, x])],
        (X,),
        True,
        False,
    ),
    "stack_vectors": (
        lambda o, x: [o.hstack([x, x]), o.vstack([x, x]), o.dstack([x, x])],
        (VEC,),
        False,
        False,
    ),
    "empty": (lambda o, x: [o.empty((2, 3)), o.empty_like(x, dtype="int32")], (X,), False, False),
    "exp2": (lambda o, x: [o.exp2(x), o.exp2(INTS)], (X,), True, False),
    "fabs": (lambda o, x: [o.fabs(x), o.fabs(INTS)], (X,), True, False),
    "flips": (lambda o, x: [o.fliplr(x), o.flipud(x)], (X,), True, True),
    "fmax": (lambda o, x: [o.fmax(x, NANS), o.fmin(NANS, x)], (X,), False, False),
    "fmod": (lambda o, a, b: [o.fmod(a, b + 1), o.fmod(X, Y)], (INTS, SHIFTS), False, False),
    "gcd": (lambda o, a, b: [o.gcd(a, b), o.lcm(a, b)], (INTS, SHIFTS + 1), False, True),
    "geomspace": (lambda o, x: o.geomspace(1.0, 100.0, num=5), (X,), False, False),
    "hamming": (lambda o, n: [o.hamming(n), o.hanning(n), o.kaiser(n, 3.0)], (5,), False, False),
    "heaviside": (lambda o, x: o.heaviside(x, 0.5), (np.round(X),), False, True),
    "histogram": (lambda o, x: o.histogram(x, bins=4), (VEC,), False, False),
    "histogram_range": (
        lambda o, x: o.histogram(x, bins=3, range=(-0.5, 0.5)),
        (VEC,),
        False,
        False,
    ),
    "hsplit": (lambda o, x: [o.hsplit(x, 2), o.vsplit(x, [1])], (X,), True, True),
    "hypot": (lambda o, x: o.hypot(x, Y), (X,), True, False),
    "i0": (lambda o, x: o.i0(x), (X,), True, True),
    "inner": (lambda o, x: [o.inner(x, Y), o.vdot(x, Y)], (X,), True, False),
    "isin": (
        lambda o, x: [o.isin(x, [0, 7, 9]), o.isin(x, [0, 7], invert=True)],
        (INTS,),
        False,
        True,
    ),
    "isinf": (
        lambda o, x: [o.isneginf(x), o.isposinf(x), o.isreal(x), o.signbit(x)],
        (SPECIAL,),
        False,
        True,
    ),
    "kron": (lambda o, x: o.kron(x, rand(2, 3)[:1] * 0 + np.float32(2)), (X,), True, False),
    "kron_vectors": (lambda o, x: o.kron(x, VEC2), (VEC,), False, False),
    "ldexp": (lambda o, x: o.ldexp(x, SHIFTS), (X,), True, False),
    "logaddexp2": (lambda o, x: o.logaddexp2(x, Y), (X,), True, False),
    "logspace": (lambda o, x: o.logspace(0.0, 2.0, num=4, base=2), (X,), False, False),
    "median": (lambda o, x: [o.median(x), o.median(x, axis=1, keepdims=True)], (X,), True, True),
    "quantile": (
        lambda o, x: [
            o.quantile(x, 0.3, axis=0),
            o.quantile(x, [0.2, 0.9], axis=1, method="nearest"),
        ],
        (X,),
        False,
        False,
    ),
    "percentile": (
        lambda o, x: [
            o.percentile(x, 40.0),
            o.percentile(x, 75.0, axis=1, method="lower", keepdims=True),
        ],
        (X,),
        False,
        False,
    ),
    "nan_reductions": (
        lambda o, x: [
            o.nansum(x, axis=1),
            o.nanprod(x),
            o.nanmean(x, axis=0),
            o.nanvar(x, axis=1),
            o.nanstd(x),
            o.nanmax(x, axis=0),
            o.nanmin(x, axis=1, keepdims=True),
            o.nanargmax(x, axis=1),
            o.nanargmin(x),
            o.nancumsum(x, axis=1),
            o.nancumprod(x),
        ],
        (NANS,),
        False,
        False,
    ),
    "nan_quantiles": (
        lambda o, x: [
            o.nanmedian(x, axis=1),
            o.nanquantile(x, 0.4, axis=0),
            o.nanpercentile(x, 60.0),
        ],
        (NANS,),
        False,
        False,
    ),
    "nextafter": (lambda o, x: o.nextafter(x, Y), (X,), False, False),
    "nonzero": (lambda o, x: o.nonzero(x), (INTS,), False, False),
    "ptp": (lambda o, x: o.ptp(x, axis=1), (X,), True, True),
    "rot90": (
        lambda o, x: [o.rot90(x, k) for k in range(-1, 4)] + [o.rot90(CUBE, axes=(2, 0))],
        (X,),
        True,
        False,
    ),
    "select": (
        lambda o, x: o.select([x < -1, x > 1], [x * 2, x * 3], default=-1.0),
        (X,),
        False,
        False,
    ),
    "sinc": (lambda o, x: o.sinc(x), (np.round(X),), True, True),
    "trapezoid": (
        lambda o, y: [
            o.trapezoid(y),
            o.trapezoid(y, dx=0.5, axis=0),
            o.trapezoid(y, x=np.array([0.0, 1.0, 3.0, 4.0], "float32")),
        ],
        (X,),
        True,
        False,
    ),
    "trunc": (lambda o, x: o.trunc(x), (X,), False, True),
    "unique": (
        lambda o, x: o.unique(x, return_index=True, return_inverse=True, return_counts=True),
        (INTS % 5,),
        False,
        False,
    ),
    "unique_sized": (lambda o, x: o.unique(x, size=12, fill_value=-1), (INTS % 5,), False, False),
    "unravel_index": (
        lambda o, x: o.unravel_index(x, (3, 5)),
        (np.array([0, 7, 14], "int32"),),
        False,
        True,
    ),
    "vander": (lambda o, x: [o.vander(x), o.vander(x, 3, increasing=True)], (VEC2,), False, False),
    "view": (lambda o, x: o.view(x, "int32"), (X,), False, True),
    "view_as_real": (lambda o, x: o.view_as_real(o.view_as_complex(x)), (rand(3, 2),), False, True),
    "slogdet": (lambda o, x: o.slogdet(x), (rand(2, 3, 3),), False, True),
}


# Gradients are checked for the engine primitives and the compositions whose gradient
# needs care (masked, normalized, stable forms); the rest differentiate through these.
GRADIENT_CASES = {
    "cbrt",
    "corrcoef",
    "hypot",
    "logaddexp2",
    "median",
    "rot90",
    "sinc",
    "trapezoid",
}


@pytest.mark.parametrize("names", groups(NUMPY))
def test_numpy_matches_keras(names):
    for name in names:
        with case(name):
            f, inputs, grad, symbolic = NUMPY[name]
            check(
                f,
                *inputs,
                grad=grad and name in GRADIENT_CASES,
                rtol=1e-5,
                atol=1e-5,
                symbolic=symbolic,
            )


def test_argpartition_partitions():
    got = ops.convert_to_numpy(ops.argpartition(X, 2, axis=1))
    parted = np.take_along_axis(X, got, axis=1)
    assert (parted[:, :2] <= parted[:, 2:3]).all() and (parted[:, 3:] >= parted[:, 2:3]).all()
    assert sorted(got[0].tolist()) == [0, 1, 2, 3]


def test_vectorize_broadcasts_like_numpy():
    add_scaled = ops.vectorize(lambda a, b: a * 2.0 + b)
    got = ops.convert_to_numpy(add_scaled(rand(3, 1), rand(4)))
    assert got.shape == (3, 4)
    matvec = ops.vectorize(lambda m, v: ops.matmul(m, v), signature="(n,n),(n)->(n)")
    m, v = rand(2, 3, 3), rand(3)
    np.testing.assert_allclose(ops.convert_to_numpy(matvec(m, v)), m @ v, rtol=1e-5)


def test_against_numpy_directly():
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.kron(X, Y[:2, :2])), np.kron(X, Y[:2, :2]), rtol=1e-6
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.nanmean(NANS, axis=1)), np.nanmean(NANS, axis=1), rtol=1e-6
    )
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.gcd(INTS, SHIFTS)), np.gcd(INTS, SHIFTS))
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.median(X, axis=0)), np.median(X, axis=0), rtol=1e-6
    )


def test_clear_errors():
    with pytest.raises(TypeError, match="gcd: expected integer or bool tensors"):
        ops.gcd(X, Y)
    with pytest.raises(ValueError, match="select: 2 conditions but 1 choices"):
        ops.select([X > 0, X < 0], [X])
    with pytest.raises(ValueError, match="quantile: unknown method 'cubic'"):
        ops.quantile(X, 0.5, method="cubic")
