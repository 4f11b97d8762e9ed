"""Full docstrings of contract ops (see `lamina.ops.docs`): math_linalg_image.

The ops of `keras.ops.math` (error functions, Fourier transforms, segment reductions,
top-k), of `keras.ops.linalg` (factorizations, inverses, solves) and the resampling ops
of `keras.ops.image` that each engine implements itself.
"""

_MATH = {
    "top_k": """
        The `k` largest values along the last axis and their indices.

        Among tied values the order of the indices may differ between engines.

        Args:
            x: Input tensor, shape `(..., n)`.
            k: How many entries to keep (a Python int, `1 <= k <= n`).
            sorted: Keras's flag for returning the values in descending order; lamina's
                engines always return them sorted, so `False` gives the same result.

        Returns:
            A pair `(values, indices)`, each of shape `(..., k)`: the `k` largest entries
            of each row in descending order and their positions (int32) in `x`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> values, indices = ops.top_k(np.array([1.0, 5.0, 3.0, 4.0]), k=2)
        >>> ops.convert_to_numpy(values).tolist(), ops.convert_to_numpy(indices).tolist()
        ([5.0, 4.0], [1, 3])
        """,
    "in_top_k": """
        Whether each target's score is among the `k` largest of its row of `predictions`.

        A target whose score ties with the `k`-th largest counts as in the top `k`.

        Args:
            targets: Integer class ids, shape `(batch,)`.
            predictions: Scores, shape `(batch, num_classes)`.
            k: How many of the largest scores count (a Python int).

        Returns:
            A boolean tensor of shape `(batch,)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> predictions = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
        >>> ops.convert_to_numpy(ops.in_top_k(np.array([2, 2]), predictions, k=2)).tolist()
        [True, False]
        """,
    "logsumexp": """
        `log(sum(exp(x)))` along `axis`, computed stably.

        The largest value is subtracted before exponentiating, so large inputs do not
        overflow.

        Args:
            x: Input tensor.
            axis: An int or tuple of ints: the axes to reduce; `None` (default) reduces
                all of them.
            keepdims: Whether to keep the reduced axes with length 1.

        Returns:
            The log of the summed exponentials, with the reduced axes removed (or kept
            with length 1).

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[1000.0, 1000.0], [0.0, 0.0]])
        >>> y = ops.logsumexp(x, axis=-1)
        >>> np.round(ops.convert_to_numpy(y).astype(float), 3).tolist()
        [1000.693, 0.693]
        """,
    "erf": """
        Elementwise Gauss error function.

        `erf(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t**2) dt`.

        Args:
            x: Input tensor (float).

        Returns:
            A tensor of the shape and dtype of `x`, values in `[-1, 1]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> y = ops.erf(np.array([-1.0, 0.0, 0.5]))
        >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
        [-0.8427, 0.0, 0.5205]
        """,
    "erfc": """
        Elementwise complementary error function `1 - erf(x)`, accurate for large `x`.

        Computed directly rather than as `1 - erf(x)`, so small results keep their
        precision.

        Args:
            x: Input tensor (float).

        Returns:
            A tensor of the shape and dtype of `x`, values in `[0, 2]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> y = ops.erfc(np.array([-1.0, 0.0, 1.0]))
        >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
        [1.8427, 1.0, 0.1573]
        """,
    "erfinv": """
        Elementwise inverse of the error function.

        Args:
            x: Input tensor (float), values in `[-1, 1]`; `-1` and `1` give `-inf` and
                `inf`, values outside give NaN.

        Returns:
            The `y` with `erf(y) = x`, a tensor of the shape and dtype of `x`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([-0.5, 0.0, 0.8427008])
        >>> y = ops.erfinv(x)
        >>> np.round(ops.convert_to_numpy(y).astype(float), 4).tolist()
        [-0.4769, 0.0, 1.0]
        """,
    "rsqrt": """
        Elementwise `1 / sqrt(x)`.

        Args:
            x: Float input tensor (JAX refuses integers, as in Keras; cast them first).

        Returns:
            The reciprocal square root, elementwise (`inf` at 0, NaN below 0), in the
            dtype of `x`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> ops.convert_to_numpy(ops.rsqrt(np.array([1.0, 4.0, 16.0]))).tolist()
        [1.0, 0.5, 0.25]
        """,
    "segment_sum": """
        Sums of the rows of `data` sharing a segment id.

        Row `i` of `data` (its slice along the first axis) is added to output row
        `segment_ids[i]`; segments with no rows are 0. Ids outside
        `[0, num_segments)` are dropped.

        Args:
            data: Input tensor, shape `(n, ...)`.
            segment_ids: Integer tensor of shape `(n,)`: the segment of each row.
            num_segments: The number of output rows (a Python int); `None` takes
                `max(segment_ids) + 1` (give it explicitly under compilation, where the
                ids have no value yet).
            sorted: Whether `segment_ids` is sorted ascending (a hint some engines use
                for speed; the result is the same).

        Returns:
            A tensor of shape `(num_segments, ...)` in the dtype of `data`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> data = np.array([1.0, 2.0, 3.0, 4.0])
        >>> ops.convert_to_numpy(ops.segment_sum(data, np.array([0, 0, 2, 2]))).tolist()
        [3.0, 0.0, 7.0]
        """,
    "segment_max": """
        Maxima of the rows of `data` sharing a segment id (the lowest value when empty).

        Row `i` of `data` (its slice along the first axis) joins output row
        `segment_ids[i]`; a segment with no rows holds the lowest value of the dtype
        (`-inf` for floats). Ids outside `[0, num_segments)` are dropped.

        Args:
            data: Input tensor, shape `(n, ...)`.
            segment_ids: Integer tensor of shape `(n,)`: the segment of each row.
            num_segments: The number of output rows (a Python int); `None` takes
                `max(segment_ids) + 1` (give it explicitly under compilation).
            sorted: Whether `segment_ids` is sorted ascending (a hint; the result is the
                same).

        Returns:
            A tensor of shape `(num_segments, ...)` in the dtype of `data`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> data = np.array([1.0, 5.0, 3.0, 2.0])
        >>> ops.convert_to_numpy(ops.segment_max(data, np.array([0, 0, 1, 1]))).tolist()
        [5.0, 3.0]
        """,
    "segment_min": """
        Minima of the rows of `data` sharing a segment id (the highest value when empty).

        Row `i` of `data` (its slice along the first axis) joins output row
        `segment_ids[i]`; a segment with no rows holds the highest value of the dtype
        (`inf` for floats). Ids outside `[0, num_segments)` are dropped.

        Args:
            data: Input tensor, shape `(n, ...)`.
            segment_ids: Integer tensor of shape `(n,)`: the segment of each row.
            num_segments: The number of output rows (a Python int); `None` takes
                `max(segment_ids) + 1` (give it explicitly under compilation).
            sorted: Whether `segment_ids` is sorted ascending (a hint; the result is the
                same).

        Returns:
            A tensor of shape `(num_segments, ...)` in the dtype of `data`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> data = np.array([1.0, 5.0, 3.0, 2.0])
        >>> ops.convert_to_numpy(ops.segment_min(data, np.array([0, 0, 1, 1]))).tolist()
        [1.0, 2.0]
        """,
    "segment_prod": """
        Products of the rows of `data` sharing a segment id (1 when empty).

        Row `i` of `data` (its slice along the first axis) multiplies into output row
        `segment_ids[i]`. Ids outside `[0, num_segments)` are dropped.

        Args:
            data: Input tensor, shape `(n, ...)`.
            segment_ids: Integer tensor of shape `(n,)`: the segment of each row.
            num_segments: The number of output rows (a Python int); `None` takes
                `max(segment_ids) + 1` (give it explicitly under compilation).
            sorted: Whether `segment_ids` is sorted ascending (a hint; the result is the
                same).

        Returns:
            A tensor of shape `(num_segments, ...)` in the dtype of `data`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> data = np.array([2.0, 3.0, 4.0])
        >>> ops.convert_to_numpy(ops.segment_prod(data, np.array([0, 0, 2]))).tolist()
        [6.0, 1.0, 4.0]
        """,
    "norm": """
        Vector or matrix norm of `x`.

        Follows `numpy.linalg.norm`. With `axis=None` and `ord=None` it is the 2-norm of
        all the elements (the Frobenius norm of a matrix); with `axis=None` and an `ord`,
        `x` must be 1-D (vector norm) or 2-D (matrix norm).

        Args:
            x: Input tensor; integers are computed as floats.
            ord: The norm. For vectors: `None` or `2` (Euclidean), `1`, `inf`, `-inf`,
                `0` (number of non-zeros) or any number `p` (`sum(abs(x)**p)**(1/p)`).
                For matrices: `None` or `"fro"` (Frobenius), `"nuc"` (nuclear), `1`,
                `-1`, `2`, `-2`, `inf`, `-inf`.
            axis: An int (vector norms along it), a pair of ints (matrix norms over
                them), or `None` (see above).
            keepdims: Whether to keep the reduced axes with length 1.

        Returns:
            The norm(s), a float tensor with the reduced axes removed (or kept).

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> ops.convert_to_numpy(ops.norm(np.array([3.0, 4.0]))).item()
        5.0
        >>> ops.convert_to_numpy(ops.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)).item()
        6.0
        """,
    "qr": """
        QR decomposition: `q, r` with `x = q @ r`.

        `q` has orthonormal columns and `r` is upper triangular; batched over leading
        axes. Signs may differ between engines (any column of `q` may be negated with
        the matching row of `r`).

        Args:
            x: Input tensor, shape `(..., m, n)`.
            mode: `"reduced"` (default): `q` is `(..., m, k)` and `r` `(..., k, n)` with
                `k = min(m, n)`; `"complete"`: `q` is `(..., m, m)` and `r`
                `(..., m, n)`.

        Returns:
            A pair `(q, r)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> q, r = ops.qr(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        >>> ops.convert_to_numpy(q).shape, ops.convert_to_numpy(r).shape
        ((3, 2), (2, 2))
        >>> np.round(np.abs(ops.convert_to_numpy(r).astype(float)), 4).tolist()
        [[5.9161, 7.4374], [0.0, 0.8281]]
        """,
    "fft": """
        Discrete Fourier transform along the last axis of `x = (real, imag)`.

        Complex numbers travel as pairs of float tensors, as in Keras.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., n)`: the transform
            `sum_k x[k] * exp(-2j * pi * f * k / n)` for each frequency `f`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.fft((np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4)))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([10.0, -2.0, -2.0, -2.0], [0.0, 2.0, 0.0, -2.0])
        """,
    "fft2": """
        2-D discrete Fourier transform over the last two axes of `x = (real, imag)`.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., m, n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., m, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.fft2((np.ones((2, 2)), np.zeros((2, 2))))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([[4.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])
        """,
    "ifft2": """
        Inverse 2-D discrete Fourier transform over the last two axes of `(real, imag)`.

        Divides by `m * n`, so `ifft2(fft2(x))` gives `x` back.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., m, n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., m, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real = np.array([[4.0, 0.0], [0.0, 0.0]])
        >>> real, imag = ops.ifft2((real, np.zeros((2, 2))))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])
        """,
    "rfft": """
        Fourier transform of real `x` along its last axis (`fft_length // 2 + 1` frequencies).

        Only the non-negative frequencies are returned: the others are their complex
        conjugates for a real input.

        Args:
            x: Real float tensor, shape `(..., n)`.
            fft_length: The transform length; `x` is cropped or zero-padded to it.
                `None` (default) takes `n`.

        Returns:
            A pair `(real, imag)` of float tensors of shape
            `(..., fft_length // 2 + 1)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.rfft(np.array([1.0, 2.0, 3.0, 4.0]))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
        """,
    "irfft": """
        The real signal whose `rfft` is `x = (real, imag)`.

        The inverse of `rfft`: the missing negative frequencies are taken as the complex
        conjugates of the given ones.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., n)`: the
                non-negative frequencies.
            fft_length: The length of the output signal; `None` (default) takes
                `2 * (n - 1)`.

        Returns:
            A real float tensor of shape `(..., fft_length)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = np.array([10.0, -2.0, -2.0]), np.array([0.0, 2.0, 0.0])
        >>> ops.convert_to_numpy(ops.irfft((real, imag))).tolist()
        [1.0, 2.0, 3.0, 4.0]
        """,
    "view_as_complex": """
        Complex numbers from the pairs on the last axis (length 2) of real `x`.

        Args:
            x: Real float tensor of shape `(..., 2)`: real parts at `[..., 0]`,
                imaginary parts at `[..., 1]`.

        Returns:
            A complex tensor of shape `(...)` (`complex64` from `float32`, `complex128`
            from `float64`).

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> z = ops.view_as_complex(np.array([[1.0, 2.0], [3.0, -4.0]], "float32"))
        >>> ops.convert_to_numpy(z).tolist()
        [(1+2j), (3-4j)]
        """,
    "view_as_real": """
        Complex `x` as real pairs on a new last axis.

        Args:
            x: Complex tensor of shape `(...)`.

        Returns:
            A real float tensor of shape `(..., 2)`: real parts at `[..., 0]`, imaginary
            parts at `[..., 1]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = ops.view_as_real(np.array([1 + 2j, 3 - 4j], "complex64"))
        >>> ops.convert_to_numpy(x).tolist()
        [[1.0, 2.0], [3.0, -4.0]]
        """,
}

_LINALG = {
    "cholesky": """
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
        """,
    "cholesky_inverse": """
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
        """,
    "det": """
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
        """,
    "slogdet": """
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
        """,
    "eig": """
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
        """,
    "eigh": """
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
        """,
    "inv": """
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
        """,
    "lstsq": """
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
        """,
    "lu_factor": """
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
        """,
    "matrix_rank": """
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
        """,
    "pinv": """
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
        """,
    "solve": """
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
        """,
    "solve_triangular": """
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
        """,
    "svd": """
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
        """,
}

_IMAGE = {
    "resize": """
        `images` resized to `size` (optionally cropped or padded to its aspect ratio first).

        Pixel centres sit at half-integer positions (as in TensorFlow 2 and
        `jax.image.resize`). Integer images are resized as floats and returned as
        floats.

        Args:
            images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
                `data_format="channels_first"`).
            size: The output size `(height, width)`.
            interpolation: `"bilinear"` (default), `"nearest"`, `"bicubic"`,
                `"lanczos3"` or `"lanczos5"`.
            antialias: Whether to widen the filter when downsampling, to avoid
                aliasing.
            crop_to_aspect_ratio: Whether to first take the largest centred crop with
                the aspect ratio of `size` (no distortion, edges lost).
            pad_to_aspect_ratio: Whether to first pad evenly to the aspect ratio of
                `size` (no distortion, nothing lost).
            fill_mode: How `pad_to_aspect_ratio` fills; only `"constant"`.
            fill_value: The value of that padding.
            data_format: `"channels_last"` or `"channels_first"` (default: the
                configured image data format).

        Returns:
            The resized images, with `size` as the spatial axes.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 2, 2, 1)
        >>> y = ops.image.resize(x, (4, 4), interpolation="nearest")
        >>> ops.convert_to_numpy(y)[0, :, :, 0].tolist()
        [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0], [3.0, 3.0, 4.0, 4.0]]
        """,
    "affine_transform": """
        `images` resampled through projective `transform`s (8 numbers each).

        A transform `[a0, a1, a2, b0, b1, b2, c0, c1]` maps each output pixel `(x, y)`
        (column, row) to the input position
        `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with `k = c0 x + c1 y + 1`;
        the output pixel takes the input's value there. So the transform maps output to
        input: `[1, 0, -1, 0, 1, 0, 0, 0]` shifts the image one pixel to the right.

        Args:
            images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
                `data_format="channels_first"`).
            transform: One transform `(8,)` for every image, or one per image `(N, 8)`.
            interpolation: `"bilinear"` (default) or `"nearest"`.
            fill_mode: How positions outside the input are filled: `"constant"`
                (default, with `fill_value`), `"nearest"`, `"wrap"`, `"mirror"` or
                `"reflect"`.
            fill_value: The value outside the input with `fill_mode="constant"`.
            data_format: `"channels_last"` or `"channels_first"` (default: the
                configured image data format).

        Returns:
            The transformed images, of the shape and dtype of `images`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.arange(1.0, 5.0).reshape(1, 1, 4, 1)
        >>> y = ops.image.affine_transform(x, np.array([1.0, 0, -1, 0, 1, 0, 0, 0]))
        >>> ops.convert_to_numpy(y)[0, 0, :, 0].tolist()
        [0.0, 1.0, 2.0, 3.0]
        """,
    "map_coordinates": """
        `inputs` interpolated (order 0: nearest, 1: linear) at `coordinates`.

        As `scipy.ndimage.map_coordinates`: output element `j` is `inputs` read at
        position `(coordinates[0][j], coordinates[1][j], ...)`.

        Args:
            inputs: The tensor to sample, of any rank `r`.
            coordinates: Positions, shape `(r, ...)` (or a sequence of `r` arrays of one
                shape): `coordinates[i]` holds the positions along axis `i`.
            order: The interpolation: `0` (nearest element, halves rounded away from
                zero) or `1` (linear).
            fill_mode: How positions outside `inputs` are filled: `"constant"` (default,
                with `fill_value`), `"nearest"`, `"wrap"`, `"mirror"` or `"reflect"`.
            fill_value: The value outside `inputs` with `fill_mode="constant"`.

        Returns:
            The sampled values, of the shape of `coordinates[0]` and the dtype of
            `inputs`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[0.0, 1.0], [2.0, 3.0]])
        >>> coordinates = np.array([[0.5, 1.0, 3.0], [0.5, 0.0, 0.0]])
        >>> ops.convert_to_numpy(ops.image.map_coordinates(x, coordinates, order=1)).tolist()
        [1.5, 2.0, 0.0]
        """,
    "scale_and_translate": """
        `images` resampled to `output_shape` through a per-axis scale and translation.

        As `jax.image.scale_and_translate`: along each axis of `spatial_dims`, input
        position `x` (pixel centres at half-integers) lands on output position
        `x * scale + translation`; output samples that fall outside the input are 0.

        Args:
            images: The tensor to resample, of any rank.
            output_shape: The shape of the result, one size per axis of `images`.
            scale: One scale per axis of `spatial_dims`.
            translation: One translation per axis of `spatial_dims`.
            spatial_dims: The axes to resample (the others keep their size).
            method: The interpolation kernel: `"linear"` (also `"bilinear"`,
                `"trilinear"`, `"triangle"`), `"cubic"` (`"bicubic"`, `"tricubic"`),
                `"lanczos3"` or `"lanczos5"`.
            antialias: Whether to widen the kernel when downsampling (`scale < 1`).

        Returns:
            The resampled tensor, of shape `output_shape`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([1.0, 3.0])
        >>> scale, translation = np.array([2.0]), np.array([0.0])
        >>> y = ops.image.scale_and_translate(x, (4,), scale, translation, (0,), "linear")
        >>> ops.convert_to_numpy(y).tolist()
        [1.0, 1.5, 2.5, 3.0]
        """,
}

DOCS: dict[str, dict[str, str]] = {"math": _MATH, "linalg": _LINALG, "image": _IMAGE}
