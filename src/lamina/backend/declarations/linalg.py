"""Linear algebra, engine module `linalg`: factorizations, inverses, solves.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    cholesky(x, upper=False)
        Cholesky factor of symmetric positive-definite `x`: lower `L` with `x = L L^T`.

        Batched over leading axes. `x` must be symmetric: engines treat an asymmetric
        input differently (JAX symmetrizes it, torch reads one triangle).

        Args:
            x: Symmetric positive-definite matrices, shape `(..., n, n)`.
            upper: Whether to return the upper factor `U` (with `x = U^T U`) instead of
                the lower one.

        Returns:
            The triangular factor, shape `(..., n, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[4.0, 2.0], [2.0, 5.0]])
        >>> ops.convert_to_numpy(ops.cholesky(x)).tolist()
        [[2.0, 0.0], [1.0, 2.0]]

    cholesky_inverse(x, upper=False)
        The inverse of `A` from its Cholesky factor `x` (lower unless `upper`).

        With `x` the lower factor `L` of `A = L L^T` (or the upper `U` of `A = U^T U`),
        returns `A^-1`, cheaper and more accurate than inverting `A` itself.

        Args:
            x: Triangular Cholesky factors, shape `(..., n, n)`.
            upper: Whether `x` is the upper factor.

        Returns:
            The inverse of `A`, shape `(..., n, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> factor = np.array([[2.0, 0.0], [1.0, 2.0]])  # of [[4, 2], [2, 5]]
        >>> y = ops.cholesky_inverse(factor)
        >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
        [[0.3125, -0.125], [-0.125, 0.25]]

    det(x)
        Determinant of the matrices on the last two axes.

        Args:
            x: Square matrices, shape `(..., n, n)`.

        Returns:
            The determinants, shape `(...)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[[2.0, 0.0], [0.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
        >>> np.round(ops.convert_to_numpy(ops.det(x)).astype(float), 4).tolist()
        [6.0, -2.0]

    slogdet(x)
        `(sign, log(abs(det(x))))`, computed stably.

        The log-determinant stays finite where `det` itself would under- or overflow.
        Keras has no such op; see `ops.logdet` for the log of a positive determinant.

        Args:
            x: Square matrices, shape `(..., n, n)`.

        Returns:
            A pair `(sign, logabsdet)`, each of shape `(...)`: the sign of the
            determinant (`-1`, `0` or `1`) and the log of its absolute value (`-inf`
            for a singular matrix).

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> sign, logabsdet = ops.slogdet(np.array([[0.0, 2.0], [1.0, 0.0]]))
        >>> ops.convert_to_numpy(sign).item()
        -1.0
        >>> np.round(ops.convert_to_numpy(logabsdet).astype(float), 4).tolist()
        0.6931

    eig(x)
        Eigenvalues and eigenvectors of a square matrix.

        For a general (not necessarily symmetric) matrix the results are complex. Their
        order, and the phase of each eigenvector, may differ between engines; use
        `eigh` for symmetric matrices.

        Args:
            x: Square matrices, shape `(..., n, n)`.

        Returns:
            A pair `(eigenvalues, eigenvectors)`, complex, of shapes `(..., n)` and
            `(..., n, n)`: column `eigenvectors[..., :, i]` (unit length) belongs to
            `eigenvalues[..., i]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> values, vectors = ops.eig(np.array([[2.0, 0.0], [0.0, 2.0]]))
        >>> ops.convert_to_numpy(values).tolist()
        [(2+0j), (2+0j)]

    eigh(x)
        Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix.

        `x` must be symmetric: engines treat an asymmetric input differently (JAX
        symmetrizes it, torch reads its lower triangle). Each eigenvector's sign may
        differ between engines.

        Args:
            x: Symmetric (or Hermitian) matrices, shape `(..., n, n)`.

        Returns:
            A pair `(eigenvalues, eigenvectors)` of shapes `(..., n)` (real, ascending)
            and `(..., n, n)`: column `eigenvectors[..., :, i]` belongs to
            `eigenvalues[..., i]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> values, vectors = ops.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        >>> np.round(ops.convert_to_numpy(values).astype(float), 4).tolist()
        [1.0, 3.0]

    inv(x)
        Inverse of the matrices on the last two axes.

        Args:
            x: Square, invertible matrices, shape `(..., n, n)`.

        Returns:
            The inverses, shape `(..., n, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> y = ops.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
        >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
        [[0.5, 0.0], [0.0, 0.25]]

    lstsq(a, b, rcond=None)
        The `x` minimizing `norm(a @ x - b)` (least squares).

        Args:
            a: Coefficient matrix, shape `(m, n)`.
            b: Right-hand side, shape `(m,)` or `(m, k)`.
            rcond: Cut-off for small singular values of `a`: those below `rcond` times
                the largest are treated as zero. `None` (default) uses the machine
                precision times `max(m, n)`.

        Returns:
            The solution, shape `(n,)` or `(n, k)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> a = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
        >>> b = np.array([1.0, 2.0, 3.0])
        >>> np.round(ops.convert_to_numpy(ops.lstsq(a, b)).astype(float), 4).tolist()
        [1.0, 1.0]

    lu_factor(x)
        LU factorization with partial pivoting: `(lu, pivots)` as SciPy returns them.

        `x = P @ L @ U` with `L` unit lower triangular and `U` upper triangular, stored
        together in `lu` (as `scipy.linalg.lu_factor`).

        Args:
            x: Square matrices, shape `(..., n, n)`.

        Returns:
            A pair `(lu, pivots)`: `lu` of shape `(..., n, n)` holds `U` on and above the
            diagonal and `L` (without its unit diagonal) below; `pivots` (int32, shape
            `(..., n)`, 0-based) says that row `i` was swapped with row `pivots[i]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> lu, pivots = ops.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> np.round(ops.convert_to_numpy(lu).astype(float), 4).tolist()
        [[3.0, 4.0], [0.3333, 0.6667]]
        >>> ops.convert_to_numpy(pivots).tolist()
        [1, 1]

    matrix_rank(x, tol=None)
        Number of singular values above `tol` (NumPy's default tolerance when `None`).

        Args:
            x: Matrices, shape `(..., m, n)`.
            tol: Singular values at or below it count as zero; `None` (default) takes
                `max(s) * max(m, n) * eps` (as `numpy.linalg.matrix_rank`).

        Returns:
            The ranks, an integer tensor of shape `(...)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> ops.convert_to_numpy(ops.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))).item()
        1

    pinv(x, rcond=None)
        Moore-Penrose pseudo-inverse of the matrices on the last two axes.

        Args:
            x: Matrices, shape `(..., m, n)`.
            rcond: Relative cut-off for small singular values; `None` (default) takes
                the engine's default, a small multiple of the machine precision times
                `max(m, n)`.

        Returns:
            The pseudo-inverses, shape `(..., n, m)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
        >>> np.round(ops.convert_to_numpy(ops.pinv(x)).astype(float), 4).tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.5, 0.0]]

    solve(a, b)
        The `x` with `a @ x = b` for square `a`.

        Batched over leading axes.

        Args:
            a: Square, invertible coefficient matrices, shape `(..., n, n)`.
            b: Right-hand sides, shape `(..., n)` or `(..., n, k)`.

        Returns:
            The solutions, of the shape of `b`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> a = np.array([[3.0, 1.0], [1.0, 2.0]])
        >>> x = ops.solve(a, np.array([9.0, 8.0]))
        >>> np.round(ops.convert_to_numpy(x).astype(float), 4).tolist()
        [2.0, 3.0]

    solve_triangular(a, b, lower=False)
        The `x` with `a @ x = b` for triangular `a` (upper unless `lower`).

        Only the triangle of `a` named by `lower` is read.

        Args:
            a: Triangular coefficient matrices, shape `(..., n, n)`.
            b: Right-hand sides, shape `(..., n)` or `(..., n, k)`.
            lower: Whether `a` is lower triangular (default: upper).

        Returns:
            The solutions, of the shape of `b`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
        >>> x = ops.solve_triangular(a, np.array([4.0, 5.0]), lower=True)
        >>> np.round(ops.convert_to_numpy(x).astype(float), 4).tolist()
        [2.0, 3.0]

    svd(x, full_matrices=True, compute_uv=True)
        Singular value decomposition `(u, s, vh)` with `x = u @ diag(s) @ vh`.

        Singular values come in descending order. The signs of matching columns of `u`
        and rows of `vh` may differ between engines.

        Args:
            x: Matrices, shape `(..., m, n)`.
            full_matrices: Whether `u` and `vh` are square (`(..., m, m)` and
                `(..., n, n)`) or reduced to `k = min(m, n)` columns / rows.
            compute_uv: Whether to compute `u` and `vh`; when `False` only `s` is
                returned.

        Returns:
            The triple `(u, s, vh)`, `s` of shape `(..., k)`; or `s` alone.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[3.0, 0.0], [0.0, -4.0], [0.0, 0.0]])
        >>> ops.convert_to_numpy(ops.svd(x, compute_uv=False)).tolist()
        [4.0, 3.0]
        >>> [ops.convert_to_numpy(t).shape for t in ops.svd(x, full_matrices=False)]
        [(3, 2), (2,), (2, 2)]
    """
)
