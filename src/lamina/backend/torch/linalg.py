"""Linear algebra on torch tensors: factorizations, inverses, solves, determinants.

Results match the JAX engine (`backend/jax/linalg.py`): stacks of matrices on the last
two axes, integer input promoted to float, pivots as int32 and 0-based.
"""

from __future__ import annotations

import torch

from lamina.backend.torch.core import convert_to_tensor, to_float


def _matrices(x, op):
    x = to_float(convert_to_tensor(x))
    if x.ndim < 2:
        raise ValueError(
            f"{op}: expected a matrix or a stack of matrices (rank >= 2), received shape "
            f"{tuple(x.shape)}."
        )
    return x


def _like(b, a):
    b = convert_to_tensor(b)
    return b if b.dtype == a.dtype else b.to(a.dtype)


def cholesky(x, upper=False):
    return torch.linalg.cholesky(_matrices(x, "cholesky"), upper=upper)


def cholesky_inverse(x, upper=False):
    factor = _matrices(x, "cholesky_inverse")
    eye = torch.eye(factor.shape[-1], dtype=factor.dtype, device=factor.device)
    # A^-1 = L^-T L^-1 from the triangle alone (torch.cholesky_inverse's gradient also
    # flows into the other triangle, which the factor does not use).
    inv_factor = torch.linalg.solve_triangular(factor, eye.expand(factor.shape), upper=upper)
    if upper:
        return inv_factor @ inv_factor.mT
    return inv_factor.mT @ inv_factor


def det(x):
    return torch.linalg.det(_matrices(x, "det"))


def slogdet(x):
    sign, logabsdet = torch.linalg.slogdet(_matrices(x, "slogdet"))
    return sign, logabsdet


def eig(x):
    return tuple(torch.linalg.eig(_matrices(x, "eig")))


def eigh(x):
    return tuple(torch.linalg.eigh(_matrices(x, "eigh")))


def inv(x):
    return torch.linalg.inv(_matrices(x, "inv"))


def lstsq(a, b, rcond=None):
    a = _matrices(a, "lstsq")
    b = _like(b, a)
    vector = b.ndim == a.ndim - 1
    if vector:
        b = b[..., None]
    # The SVD-based driver, as NumPy's (torch's default on CPU assumes full rank).
    driver = "gelsd" if a.device.type == "cpu" else None
    solution = torch.linalg.lstsq(a, b, rcond=rcond, driver=driver).solution
    return solution[..., 0] if vector else solution


def lu_factor(x):
    lu, pivots = torch.linalg.lu_factor(_matrices(x, "lu_factor"))
    # torch's pivots count from 1 (LAPACK's convention); JAX's and SciPy's from 0.
    return lu, (pivots - 1).to(torch.int32)


def matrix_rank(x, tol=None):
    x = _matrices(x, "matrix_rank")
    s = torch.linalg.svdvals(x)
    if tol is None:
        # NumPy's default: the largest singular value times max(M, N) times epsilon.
        tol = s.amax(dim=-1, keepdim=True) * max(x.shape[-2:]) * torch.finfo(s.dtype).eps
    else:
        tol = torch.as_tensor(tol, dtype=s.dtype, device=s.device)[..., None]
    return (s > tol).sum(dim=-1).to(torch.int32)


def pinv(x, rcond=None):
    x = _matrices(x, "pinv")
    return torch.linalg.pinv(x) if rcond is None else torch.linalg.pinv(x, rtol=rcond)


def solve(a, b):
    a = _matrices(a, "solve")
    return torch.linalg.solve(a, _like(b, a))


def solve_triangular(a, b, lower=False):
    a = _matrices(a, "solve_triangular")
    b = _like(b, a)
    if b.ndim == a.ndim - 1:
        return torch.linalg.solve_triangular(a, b[..., None], upper=not lower)[..., 0]
    return torch.linalg.solve_triangular(a, b, upper=not lower)


def svd(x, full_matrices=True, compute_uv=True):
    x = _matrices(x, "svd")
    if not compute_uv:
        return torch.linalg.svdvals(x)
    return tuple(torch.linalg.svd(x, full_matrices=full_matrices))
