"""Math NumPy lacks, engine module `math`: top-k, `logsumexp`, `erf`, segment reductions, norms.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    top_k(x, k, sorted=True)
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

    in_top_k(targets, predictions, k)
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

    logsumexp(x, axis=None, keepdims=False)
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

    erf(x)
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

    rsqrt(x)
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

    segment_sum(data, segment_ids, num_segments=None, sorted=False)
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

    norm(x, ord=None, axis=None, keepdims=False)
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

    qr(x, mode='reduced')
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

    segment_max(data, segment_ids, num_segments=None, sorted=False)
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

    segment_min(data, segment_ids, num_segments=None, sorted=False)
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

    segment_prod(data, segment_ids, num_segments=None, sorted=False)
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

    erfc(x)
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

    erfinv(x)
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
    """
)
