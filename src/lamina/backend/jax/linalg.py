"""Linear algebra on JAX arrays: factorizations, inverses, solves, determinants.

Every function works on stacks of matrices (the last two axes), as NumPy's do; integer
input is computed in the float dtype Keras promotes it to.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy as jsp

from lamina.backend import config


def _float(x):
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating) or jnp.issubdtype(x.dtype, jnp.complexfloating):
        return x
    return x.astype(config.floatx())


def _matrices(x, op):
    x = _float(x)
    if x.ndim < 2:
        raise ValueError(
            f"{op}: expected a matrix or a stack of matrices (rank >= 2), received shape "
            f"{tuple(x.shape)}."
        )
    return x


def cholesky(x, upper=False):
    lower = jnp.linalg.cholesky(_matrices(x, "cholesky"))
    return jnp.swapaxes(lower, -1, -2).conj() if upper else lower


def cholesky_inverse(x, upper=False):
    factor = _matrices(x, "cholesky_inverse")
    eye = jnp.broadcast_to(jnp.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    # inverse(A) from its factor: A = L L^T (or U^T U), so A^-1 = L^-T L^-1.
    inv_factor = jsp.linalg.solve_triangular(factor, eye, lower=not upper)
    if upper:
        return inv_factor @ jnp.swapaxes(inv_factor, -1, -2)
    return jnp.swapaxes(inv_factor, -1, -2) @ inv_factor


def det(x):
    return jnp.linalg.det(_matrices(x, "det"))


def slogdet(x):
    sign, logabsdet = jnp.linalg.slogdet(_matrices(x, "slogdet"))
    return sign, logabsdet


def eig(x):
    return jnp.linalg.eig(_matrices(x, "eig"))


def eigh(x):
    return jnp.linalg.eigh(_matrices(x, "eigh"))


def inv(x):
    return jnp.linalg.inv(_matrices(x, "inv"))


def lstsq(a, b, rcond=None):
    a = _matrices(a, "lstsq")
    return jnp.linalg.lstsq(a, _float(b).astype(a.dtype), rcond=rcond)[0]


def lu_factor(x):
    x = _matrices(x, "lu_factor")
    fn = jsp.linalg.lu_factor
    for _ in range(x.ndim - 2):
        fn = jax.vmap(fn)
    lu, pivots = fn(x)
    return lu, pivots.astype("int32")


def matrix_rank(x, tol=None):
    x = _matrices(x, "matrix_rank")
    s = jnp.linalg.svd(x, compute_uv=False)
    if tol is None:
        # NumPy's default: the largest singular value times max(M, N) times epsilon.
        tol = s.max(axis=-1, keepdims=True) * max(x.shape[-2:]) * jnp.finfo(s.dtype).eps
    else:
        tol = jnp.expand_dims(jnp.asarray(tol, s.dtype), -1)
    return jnp.sum(s > tol, axis=-1).astype("int32")


def pinv(x, rcond=None):
    x = _matrices(x, "pinv")
    return jnp.linalg.pinv(x) if rcond is None else jnp.linalg.pinv(x, rtol=rcond)


def solve(a, b):
    a = _matrices(a, "solve")
    return jnp.linalg.solve(a, _float(b).astype(a.dtype))


def solve_triangular(a, b, lower=False):
    a = _matrices(a, "solve_triangular")
    b = _float(b).astype(a.dtype)
    if b.ndim == a.ndim - 1:
        return jsp.linalg.solve_triangular(a, b[..., None], lower=lower)[..., 0]
    return jsp.linalg.solve_triangular(a, b, lower=lower)


def svd(x, full_matrices=True, compute_uv=True):
    return jnp.linalg.svd(_matrices(x, "svd"), full_matrices=full_matrices, compute_uv=compute_uv)
