"""Control flow on JAX: `cond`, `scan`, loops, `vectorized_map`, `switch`, `associative_scan`.

Part of the engine's `core` contract module (which re-exports every name): each is the
`jax.lax` (or `jax.vmap`) primitive, traced as one program when compiled.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.jax.conv_in_loops import loop_body
from lamina.backend.jax.core import _unwrap


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` else `false_fn()`, traced as one conditional when compiled.

    >>> from lamina import backend
    >>> float(backend.cond(True, lambda: 1.0, lambda: 2.0))
    1.0
    """
    return jax.lax.cond(_unwrap(pred), true_fn, false_fn)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """`carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, stacked ys)`.

    >>> import numpy as np
    >>> from lamina import backend
    >>> total, running = backend.scan(lambda c, x: (c + x, c + x), 0.0, np.array([1.0, 2.0, 3.0]))
    >>> float(total), backend.convert_to_numpy(running).tolist()
    (6.0, [1.0, 3.0, 6.0])
    """
    # The loops trace their bodies inside `loop_body()`: convolutions there take gradients
    # that XLA's CPU runs fast in a loop (see `conv_in_loops`). The bodies themselves are
    # passed as they are, so that JAX's caches know them again in eager calls.
    with loop_body():
        return jax.lax.scan(f, init, xs, length=length, reverse=reverse, unroll=unroll)


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for `i` in `range(lower, upper)`, from `init_val`; returns `val`.

    >>> from lamina import backend
    >>> int(backend.fori_loop(0, 4, lambda i, total: total + i, 10))
    16
    """
    with loop_body():
        return jax.lax.fori_loop(lower, upper, body_fun, init_val)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """`loop_vars = body(loop_vars)` while `cond(loop_vars)`, at most `maximum_iterations` times.

    >>> from lamina import backend
    >>> int(backend.while_loop(lambda n: n < 100, lambda n: n * 2, 3))
    192
    >>> int(backend.while_loop(lambda n: n < 100, lambda n: n * 2, 3, maximum_iterations=2))
    12
    """
    if maximum_iterations is None:
        with loop_body():
            return jax.lax.while_loop(cond, body, loop_vars)

    def cond_with_count(state):
        count, values = state
        # `cond` traced first, then the cap, as Keras (and the torch engine) do.
        return jnp.logical_and(cond(values), count < maximum_iterations)

    def body_with_count(state):
        count, values = state
        return count + 1, body(values)

    with loop_body():
        return jax.lax.while_loop(cond_with_count, body_with_count, (0, loop_vars))[1]


def vectorized_map(function, elements):
    return jax.vmap(function)(elements)


def associative_scan(f, elems, reverse=False, axis=0):
    return jax.lax.associative_scan(f, elems, reverse=reverse, axis=axis)


def map(f, xs):
    with loop_body():
        return jax.lax.map(f, xs)


def switch(index, branches, *operands):
    return jax.lax.switch(index, branches, *operands)
