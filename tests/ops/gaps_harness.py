"""Table-driven checks for ops added to match Keras 3 (used by `test_ops_gaps_*.py`).

A case is one function `f(o, *inputs)` written against an ops namespace `o`, run with
`o = lamina.ops` and with `o = keras.ops` (Keras 3 on JAX, the test-only reference), so
one line states the op's call for both. `check` compares the values (compiled where the
engine compiles, else eager), the symbolic shape
(the op on KerasTensors, with the batch axis unknown), and, for differentiable ops, the
gradient of a weighted sum of the outputs (lamina's engine autodiff against `jax.grad`
of the Keras op).
"""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402

from lamina import backend, ops, tree  # noqa: E402
from lamina.graph.keras_tensor import KerasTensor  # noqa: E402

RNG = np.random.RandomState(0)


def rand(*shape, low=-1.0, high=1.0, dtype="float32"):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def spd(n, batch=()):
    """A well-conditioned symmetric positive-definite matrix (stack)."""
    a = rand(*batch, n, n)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype("float32")


def _numpy(x):
    return tree.map_structure(lambda v: np.asarray(ops.convert_to_numpy(v)), x)


def _keras_numpy(x):
    return tree.map_structure(lambda v: np.asarray(keras.ops.convert_to_numpy(v)), x)


def _close(got, want, rtol, atol, what):
    got_flat, want_flat = tree.flatten(got), tree.flatten(want)
    assert len(got_flat) == len(want_flat), (
        f"{what}: {len(got_flat)} outputs, want {len(want_flat)}"
    )
    for g, w in zip(got_flat, want_flat, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: shape {g.shape}, want {w.shape}"
        if w.dtype == bool or np.issubdtype(w.dtype, np.integer):
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)


def check(
    f, *inputs, grad=False, rtol=1e-5, atol=1e-5, symbolic=True, dtype=True, ref=None, batch=True
):
    """`f(lamina.ops, *inputs)` against `f(keras.ops, *inputs)` (or `ref(*inputs)`)."""
    got = want = None
    arrays = all(isinstance(x, np.ndarray) for x in inputs)
    if arrays:
        # Compiled: one XLA compile instead of one per primitive in eager mode (the eager
        # path calls the same engine functions); on JAX lamina's and Keras's computations
        # share one compile. Outputs whose shapes depend on values run eagerly.
        try:
            if backend.backend() == "jax" and ref is None:
                both = jax.jit(lambda *xs: (f(ops, *xs), f(keras.ops, *xs)))(*inputs)
                got, want = _numpy(both[0]), _keras_numpy(both[1])
            else:
                got = _numpy(backend.jit(lambda *xs: f(ops, *xs))(*inputs))
        except jax.errors.ConcretizationTypeError:
            pass
    if got is None:
        got = _numpy(f(ops, *inputs))
    if ref is not None:
        want = ref(*inputs)
    if want is None and arrays:
        try:
            want = _keras_numpy(jax.jit(lambda *xs: f(keras.ops, *xs))(*inputs))
        except jax.errors.ConcretizationTypeError:
            pass
    if want is None:
        want = _keras_numpy(f(keras.ops, *inputs))
    _close(got, want, rtol, atol, "value")
    if dtype and ref is None:
        for g, w in zip(tree.flatten(got), tree.flatten(want), strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype, (g.dtype, w.dtype)
    if symbolic:
        check_symbolic(f, inputs, got, batch)
    if grad:
        check_grad(f, inputs, got, rtol=max(rtol, 1e-4), atol=max(atol, 1e-4))
    return got


def check_symbolic(f, inputs, eager, batch=True):
    """The op on KerasTensors (first axis unknown if `batch`) gives the eager shapes."""
    specs = [
        KerasTensor(((None,) if batch else np.shape(x)[:1]) + np.shape(x)[1:], x.dtype.name)
        if isinstance(x, np.ndarray) and x.ndim
        else x
        for x in inputs
    ]
    out = f(ops, *specs)
    for s, e in zip(tree.flatten(out), tree.flatten(eager), strict=True):
        e = np.asarray(e)
        assert s.shape[1:] == e.shape[1:], f"symbolic shape {s.shape}, eager {e.shape}"
        assert s.dtype == e.dtype.name, f"symbolic dtype {s.dtype}, eager {e.dtype}"


def check_grad(f, inputs, out, rtol=1e-4, atol=1e-4):
    """Gradient of `sum(w * f(x))` with respect to the first input, against JAX."""
    x0, rest = inputs[0], inputs[1:]
    weights = [RNG.uniform(0.5, 1.5, np.shape(o)).astype("float32") for o in tree.flatten(out)]

    def lamina_loss(x):
        outs = tree.flatten(f(ops, x, *rest))
        return sum(ops.sum(ops.multiply(o, w)) for o, w in zip(outs, weights, strict=True))

    def keras_loss(x):
        outs = tree.flatten(f(keras.ops, x, *rest))
        return sum(jnp.sum(o * w) for o, w in zip(outs, weights, strict=True))

    # Compiled (on JAX both in one program): cheaper than differentiating op by op.
    if backend.backend() == "jax":
        got, want = jax.jit(lambda x: (jax.grad(lamina_loss)(x), jax.grad(keras_loss)(x)))(
            jnp.asarray(x0)
        )
    else:
        _, got = backend.value_and_grad(lamina_loss)(ops.convert_to_tensor(x0))
        want = jax.jit(jax.grad(keras_loss))(jnp.asarray(x0))
    _close(_numpy(got), np.asarray(want), rtol, atol, "gradient")


def groups(names, size=6):
    """`names` sorted and cut into groups of `size`: one test item per group.

    Every test item pays the suite's per-test setup (a fresh session and a garbage
    collection, about 0.25 s with JAX, torch and Keras loaded), so cases run in groups.
    """
    names = sorted(names)
    chunks = [tuple(names[i : i + size]) for i in range(0, len(names), size)]
    return [pytest.param(chunk, id=f"{chunk[0]}..{chunk[-1]}") for chunk in chunks]


@contextlib.contextmanager
def case(name):
    """Name the failing case of a group in the error."""
    try:
        yield
    except Exception as error:
        raise AssertionError(f"case {name!r}: {type(error).__name__}: {error}") from error
