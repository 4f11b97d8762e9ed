"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy ops `matmul` to `zeros_like`.

Each entry is what `help(ops.<name>)` shows: a summary, the arguments in signature
order, what comes back and an example that gives the same text on every engine.
"""

DOCS: dict[str, dict[str, str]] = {
    "numpy": {
        "matmul": """Matrix product of two tensors, batched over leading axes.

            Follows `numpy.matmul`: a 1-D operand is treated as a matrix (a row for `x1`,
            a column for `x2`) and the added axis is dropped from the result; the axes
            before the last two broadcast against each other.

            Args:
                x1: First tensor, shape `(..., n, k)` or `(k,)`.
                x2: Second tensor, shape `(..., k, m)` or `(k,)`.

            Returns:
                The product, shape `(..., n, m)` (without the axes a 1-D operand
                dropped), in the promoted dtype of `x1` and `x2`.

            Example:

            >>> a = np.array([[1, 2], [3, 4]], "int32")
            >>> ops.convert_to_numpy(ops.matmul(a, a)).tolist()
            [[7, 10], [15, 22]]
            >>> ops.convert_to_numpy(ops.matmul(np.ones((5, 2, 3)), np.ones((3, 4)))).shape
            (5, 2, 4)
            """,
        "max": """Maximum of `x` along `axis` (at least `initial` when given).

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to reduce. `None` (the default) reduces
                    over all elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1,
                    so it broadcasts against `x`.
                initial: Optional lower bound: each result is at least `initial`. It
                    also gives the result of reducing an empty tensor, which otherwise
                    raises an error.

            Returns:
                The maxima, in the dtype of `x`. NaN propagates: a slice holding a NaN
                gives NaN.

            Example:

            >>> x = np.array([[1, 7], [4, 2]], "int32")
            >>> ops.convert_to_numpy(ops.max(x)).tolist()
            7
            >>> ops.convert_to_numpy(ops.max(x, axis=0)).tolist()
            [4, 7]
            >>> ops.convert_to_numpy(ops.max(x, axis=1, keepdims=True, initial=5)).tolist()
            [[7], [5]]
            """,
        "maximum": """Elementwise maximum of two tensors, broadcast.

            Args:
                x1: First tensor (or Python scalar).
                x2: Second tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                The larger of each pair, in the promoted dtype of `x1` and `x2`. Where
                either value is NaN the result is NaN.

            Example:

            >>> x = np.array([1, 5, 3], "int32")
            >>> ops.convert_to_numpy(ops.maximum(x, 2)).tolist()
            [2, 5, 3]
            """,
        "mean": """Arithmetic mean of `x` along `axis` (integer input averages as float).

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to average over. `None` (the default)
                    averages all elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The means. Floating inputs keep their dtype; integer and boolean
                inputs give `float32`.

            Example:

            >>> x = np.array([[1.0, 3.0], [2.0, 6.0]])
            >>> ops.convert_to_numpy(ops.mean(x)).tolist()
            3.0
            >>> ops.convert_to_numpy(ops.mean(x, axis=0, keepdims=True)).tolist()
            [[1.5, 4.5]]
            >>> ops.convert_to_numpy(ops.mean(np.array([1, 2], "int32"))).dtype
            dtype('float32')
            """,
        "median": """Median of `x` along `axis`.

            For an even number of elements the median is the mean of the two middle
            values.

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes along which to take the median. `None` (the
                    default) takes it over all elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The medians, as floats (integer input gives `float32`). A slice holding
                a NaN gives NaN; see `nanmedian` to skip them.

            Example:

            >>> x = np.array([[1.0, 5.0, 3.0], [2.0, 4.0, 8.0]])
            >>> ops.convert_to_numpy(ops.median(x)).tolist()
            3.5
            >>> ops.convert_to_numpy(ops.median(x, axis=1)).tolist()
            [3.0, 4.0]
            """,
        "meshgrid": """Coordinate grids from 1-D coordinate vectors.

            Given `N` vectors of lengths `s0, s1, ...`, returns `N` tensors of the same
            `N`-D shape, the `i`-th holding the `i`-th vector's values repeated along
            the other axes.

            Args:
                *x: The 1-D coordinate tensors, one per grid axis.
                indexing: `"xy"` (the default, Cartesian: the first two output axes are
                    swapped, so the grids have shape `(s1, s0, s2, ...)`) or `"ij"`
                    (matrix indexing: shape `(s0, s1, s2, ...)`).

            Returns:
                A list of `N` tensors, one per input vector.

            Example:

            >>> xs = np.array([1, 2, 3], "int32")
            >>> ys = np.array([4, 5], "int32")
            >>> gx, gy = ops.meshgrid(xs, ys)
            >>> ops.convert_to_numpy(gx).tolist()
            [[1, 2, 3], [1, 2, 3]]
            >>> ops.convert_to_numpy(gy).tolist()
            [[4, 4, 4], [5, 5, 5]]
            >>> gx, gy = ops.meshgrid(xs, ys, indexing="ij")
            >>> ops.convert_to_numpy(gx).tolist()
            [[1, 1], [2, 2], [3, 3]]
            """,
        "min": """Minimum of `x` along `axis` (at most `initial` when given).

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to reduce. `None` (the default) reduces
                    over all elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1,
                    so it broadcasts against `x`.
                initial: Optional upper bound: each result is at most `initial`. It
                    also gives the result of reducing an empty tensor, which otherwise
                    raises an error.

            Returns:
                The minima, in the dtype of `x`. NaN propagates: a slice holding a NaN
                gives NaN.

            Example:

            >>> x = np.array([[1, 7], [4, 2]], "int32")
            >>> ops.convert_to_numpy(ops.min(x)).tolist()
            1
            >>> ops.convert_to_numpy(ops.min(x, axis=1, keepdims=True)).tolist()
            [[1], [2]]
            >>> ops.convert_to_numpy(ops.min(x, axis=0, initial=3)).tolist()
            [1, 2]
            """,
        "minimum": """Elementwise minimum of two tensors, broadcast.

            Args:
                x1: First tensor (or Python scalar).
                x2: Second tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                The smaller of each pair, in the promoted dtype of `x1` and `x2`. Where
                either value is NaN the result is NaN.

            Example:

            >>> x = np.array([1, 5, 3], "int32")
            >>> ops.convert_to_numpy(ops.minimum(x, 2)).tolist()
            [1, 2, 2]
            """,
        "mod": """Elementwise remainder of `x1 / x2`, with the sign of `x2`.

            This is the floored remainder of `numpy.mod` (Python's `%`), not C's
            truncated `fmod`: `x1 - floor(x1 / x2) * x2`.

            Args:
                x1: Dividend tensor (or Python scalar).
                x2: Divisor tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                The remainders, in the promoted dtype of `x1` and `x2`. A floating
                remainder by zero is NaN.

            Example:

            >>> a = np.array([5, -5, 5], "int32")
            >>> b = np.array([3, 3, -3], "int32")
            >>> ops.convert_to_numpy(ops.mod(a, b)).tolist()
            [2, 1, -1]
            >>> ops.convert_to_numpy(ops.mod(np.array([5.5, -5.5]), 2.0)).tolist()
            [1.5, 0.5]
            """,
        "moveaxis": """`x` with axes moved from `source` to `destination`.

            The other axes keep their relative order.

            Args:
                x: Input tensor.
                source: Original position of the axis to move (an int), or a sequence
                    of positions. Negative values count from the end.
                destination: New position of each moved axis, matching `source`.

            Returns:
                A tensor with the same elements and the axes rearranged.

            Example:

            >>> x = np.zeros((2, 3, 4))
            >>> ops.convert_to_numpy(ops.moveaxis(x, 0, -1)).shape
            (3, 4, 2)
            >>> ops.convert_to_numpy(ops.moveaxis(x, [0, 1], [-1, -2])).shape
            (4, 3, 2)
            """,
        "multiply": """Elementwise `x1 * x2`, broadcast.

            Args:
                x1: First tensor (or Python scalar).
                x2: Second tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                The products, in the promoted dtype of `x1` and `x2` (a Python scalar
                does not widen a tensor's dtype).

            Example:

            >>> x = np.array([1, 2], "int32")
            >>> ops.convert_to_numpy(ops.multiply(x, 3)).tolist()
            [3, 6]
            >>> ops.convert_to_numpy(ops.multiply(x, np.array([1.5, 2.0], "float32"))).tolist()
            [1.5, 4.0]
            """,
        "nan_to_num": """`x` with NaN and infinities replaced by finite numbers.

            Args:
                x: Input tensor. Integer and boolean tensors come back unchanged.
                nan: Value that replaces NaN. Defaults to `0.0`.
                posinf: Value that replaces positive infinity. `None` (the default)
                    uses the largest finite value of the dtype of `x`.
                neginf: Value that replaces negative infinity. `None` (the default)
                    uses the most negative finite value of the dtype of `x`.

            Returns:
                A tensor of the shape and dtype of `x` with no NaN or infinity.

            Example:

            >>> x = np.array([np.nan, np.inf, -np.inf, 1.0], "float32")
            >>> ops.convert_to_numpy(ops.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0)).tolist()
            [-1.0, 9.0, -9.0, 1.0]
            >>> y = ops.convert_to_numpy(ops.nan_to_num(x))
            >>> y[0].item(), bool(y[1] == np.finfo("float32").max)
            (0.0, True)
            """,
        "nanmedian": """Median of `x` along `axis`, ignoring NaNs.

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes along which to take the median. `None` (the
                    default) takes it over all elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The medians of the non-NaN values, as floats. A slice that holds only
                NaN gives NaN.

            Example:

            >>> x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
            >>> ops.convert_to_numpy(ops.nanmedian(x, axis=1)).tolist()
            [2.0, nan]
            """,
        "nanquantile": """`quantile` ignoring NaNs.

            Args:
                x: Input tensor.
                q: Quantile (a float in `[0, 1]`) or a 1-D sequence of them.
                axis: Axis or tuple of axes along which to compute the quantiles.
                    `None` (the default) uses all elements.
                method: How to pick a value that falls between two data points `i < j`:
                    `"linear"` (the default, `i + (j - i) * fraction`), `"lower"` (`i`),
                    `"higher"` (`j`), `"midpoint"` (`(i + j) / 2`) or `"nearest"`.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The quantiles of the non-NaN values, as floats. With a sequence `q`,
                the quantiles stack along a new first axis. A slice that holds only
                NaN gives NaN.

            Example:

            >>> x = np.array([[1.0, 2.0, np.nan], [4.0, 5.0, 6.0]])
            >>> ops.convert_to_numpy(ops.nanquantile(x, 0.5, axis=1)).tolist()
            [1.5, 5.0]
            >>> ops.convert_to_numpy(ops.nanquantile(x, [0.0, 1.0])).tolist()
            [1.0, 6.0]
            """,
        "ndim": """The number of dimensions of `x`.

            Args:
                x: A tensor, array or Python scalar.

            Returns:
                The rank of `x`, a Python `int` (`0` for a scalar); for a symbolic
                input, a scalar KerasTensor.

            Example:

            >>> ops.ndim(np.zeros((2, 3)))
            2
            >>> ops.ndim(ops.ones((2, 3, 1)))
            3
            """,
        "negative": """Elementwise negation, `-x`.

            Args:
                x: Input tensor.

            Returns:
                A tensor of the shape and dtype of `x` with each element's sign
                flipped.

            Example:

            >>> ops.convert_to_numpy(ops.negative(np.array([1, -2], "int32"))).tolist()
            [-1, 2]
            """,
        "nextafter": """The next representable float after `x1` toward `x2`, elementwise.

            Where `x1 == x2` the result is `x2`.

            Args:
                x1: Starting values.
                x2: Direction: each result steps from `x1` toward the matching element
                    of `x2`. Broadcasts against `x1`.

            Returns:
                A floating tensor in the promoted dtype of `x1` and `x2` (integer
                input gives `float32`).

            Example:

            >>> one = np.float32(1.0)
            >>> up = ops.convert_to_numpy(ops.nextafter(one, np.float32(2.0)))
            >>> bool(up - one == np.finfo("float32").eps)
            True
            >>> bool(ops.convert_to_numpy(ops.nextafter(one, np.float32(0.0))) < one)
            True
            """,
        "nonzero": """The indices of the non-zero elements, one tensor per axis.

            The result's length depends on the values of `x`, so call it eagerly on
            concrete tensors, not on symbolic inputs or inside a compiled function.

            Args:
                x: Input tensor; `True` and every non-zero number count as non-zero.

            Returns:
                A tuple of `x.ndim` 1-D integer tensors: the `i`-th holds the index
                along axis `i` of each non-zero element, in row-major order.

            Example:

            >>> rows, cols = ops.nonzero(np.array([[0, 1], [2, 0]]))
            >>> ops.convert_to_numpy(rows).tolist(), ops.convert_to_numpy(cols).tolist()
            ([0, 1], [1, 0])
            """,
        "not_equal": """Elementwise `x1 != x2`, broadcast.

            Args:
                x1: First tensor (or Python scalar).
                x2: Second tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                A boolean tensor, `True` where the elements differ (NaN differs from
                everything, itself included).

            Example:

            >>> ops.convert_to_numpy(ops.not_equal(np.array([1, 2, 3]), 2)).tolist()
            [True, False, True]
            """,
        "ones": """A tensor of ones (default dtype `floatx()`).

            Args:
                shape: The shape of the result: an int or a tuple of ints.
                dtype: The dtype of the result. `None` (the default) uses
                    `keras.config.floatx()`.

            Returns:
                A new tensor of the given shape filled with ones.

            Example:

            >>> ops.convert_to_numpy(ops.ones((2, 3))).shape
            (2, 3)
            >>> ops.convert_to_numpy(ops.ones(2, dtype="int32")).tolist()
            [1, 1]
            """,
        "ones_like": """Ones with the shape (and by default the dtype) of `x`.

            Args:
                x: Tensor whose shape (and dtype) the result takes.
                dtype: The dtype of the result. `None` (the default) keeps the dtype
                    of `x`.

            Returns:
                A new tensor shaped like `x`, filled with ones.

            Example:

            >>> x = np.array([[1, 2, 3]], "int32")
            >>> ops.convert_to_numpy(ops.ones_like(x)).tolist()
            [[1, 1, 1]]
            >>> ops.convert_to_numpy(ops.ones_like(x, dtype="float32")).dtype
            dtype('float32')
            """,
    }
}
