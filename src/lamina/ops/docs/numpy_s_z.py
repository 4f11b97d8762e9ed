"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy_s_z.

The NumPy-style ops from `searchsorted` to `zeros_like`.
"""

DOCS: dict[str, dict[str, str]] = {
    "numpy": {
        "searchsorted": """Where `values` would be inserted in `sorted_sequence` to keep it sorted.

            Args:
                sorted_sequence: 1-D tensor sorted in ascending order.
                values: Tensor (any shape) of the values to place.
                side: Which index to give for a value equal to elements of the
                    sequence: `"left"` (the default) gives the first suitable index,
                    `"right"` the last.

            Returns:
                An integer tensor of the shape of `values`: for each value, the index
                `i` such that inserting it before `sorted_sequence[i]` keeps the order.

            Example:

            >>> seq = np.array([1, 2, 2, 3], "int32")
            >>> vals = np.array([2, 0, 4], "int32")
            >>> ops.convert_to_numpy(ops.searchsorted(seq, vals)).tolist()
            [1, 0, 4]
            >>> ops.convert_to_numpy(ops.searchsorted(seq, vals, side="right")).tolist()
            [3, 0, 4]
            """,
        "sign": """Elementwise sign: -1, 0 or 1.

            Args:
                x: Input tensor.

            Returns:
                A tensor of the shape and dtype of `x` holding `-1` for negative
                elements, `0` for zeros and `1` for positive ones.

            Example:

            >>> ops.convert_to_numpy(ops.sign(np.array([-2, 0, 3], "int32"))).tolist()
            [-1, 0, 1]
            >>> ops.convert_to_numpy(ops.sign(np.array([-0.5, 4.0]))).tolist()
            [-1.0, 1.0]
            """,
        "signbit": """Whether the sign bit is set (True for -0.0 and negative numbers).

            Args:
                x: Input tensor.

            Returns:
                A boolean tensor of the shape of `x`, `True` where the element is
                negative, including `-0.0`.

            Example:

            >>> x = np.array([-1.0, -0.0, 0.0, 2.0])
            >>> ops.convert_to_numpy(ops.signbit(x)).tolist()
            [True, True, False, False]
            """,
        "sin": """Elementwise sine (of angles in radians).

            Args:
                x: Input tensor.

            Returns:
                The sines, as floats (integer input gives `float32`).

            Example:

            >>> y = ops.sin(np.array([0.0, np.pi / 6, np.pi / 2]))
            >>> np.round(ops.convert_to_numpy(y), 4)
            array([0. , 0.5, 1. ], dtype=float32)
            """,
        "sinh": """Elementwise hyperbolic sine.

            Args:
                x: Input tensor.

            Returns:
                `(exp(x) - exp(-x)) / 2`, as floats (integer input gives `float32`).

            Example:

            >>> y = ops.sinh(np.array([-1.0, 0.0, 1.0]))
            >>> np.round(ops.convert_to_numpy(y), 4)
            array([-1.1752,  0.    ,  1.1752], dtype=float32)
            """,
        "size": """The number of elements of `x`.

            Args:
                x: A tensor, array or Python scalar.

            Returns:
                The product of the dimensions of `x`, a Python `int` (`1` for a
                scalar).

            Example:

            >>> ops.size(np.zeros((2, 3)))
            6
            >>> ops.size(3.0)
            1
            """,
        "sort": """`x` sorted along `axis`.

            Args:
                x: Input tensor.
                axis: The axis to sort along. Defaults to `-1`, the last axis. `None`
                    sorts the flattened tensor.

            Returns:
                A tensor like `x` with the values along `axis` in ascending order
                (NaN sorts last).

            Example:

            >>> x = np.array([[3, 1, 2], [0, 5, 4]], "int32")
            >>> ops.convert_to_numpy(ops.sort(x)).tolist()
            [[1, 2, 3], [0, 4, 5]]
            >>> ops.convert_to_numpy(ops.sort(x, axis=0)).tolist()
            [[0, 1, 2], [3, 5, 4]]
            """,
        "split": """`x` split into a list of sub-tensors along `axis`.

            Args:
                x: Input tensor.
                indices_or_sections: An int `n`: split into `n` equal parts (the
                    length of `axis` must divide by `n`, else a `ValueError`); or a
                    sorted sequence of indices at which to cut.
                axis: The axis to split along. Defaults to `0`.

            Returns:
                A list of tensors, in order along `axis`.

            Example:

            >>> x = np.arange(6, dtype="int32")
            >>> [ops.convert_to_numpy(p).tolist() for p in ops.split(x, 3)]
            [[0, 1], [2, 3], [4, 5]]
            >>> [ops.convert_to_numpy(p).tolist() for p in ops.split(x, [1, 4])]
            [[0], [1, 2, 3], [4, 5]]
            """,
        "sqrt": """Elementwise square root.

            Args:
                x: Input tensor.

            Returns:
                The square roots, as floats (integer input gives `float32`); negative
                elements give NaN.

            Example:

            >>> ops.convert_to_numpy(ops.sqrt(np.array([4, 9], "int32"))).tolist()
            [2.0, 3.0]
            """,
        "square": """Elementwise square, `x * x`.

            Args:
                x: Input tensor.

            Returns:
                The squares, in the dtype of `x` (booleans give `int32`).

            Example:

            >>> ops.convert_to_numpy(ops.square(np.array([-2, 3], "int32"))).tolist()
            [4, 9]
            """,
        "squeeze": """`x` without its axes of length 1 (or only `axis`).

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to remove; each must have length 1, else
                    a `ValueError`. `None` (the default) removes every axis of length 1.

            Returns:
                A tensor with the same elements and fewer axes.

            Example:

            >>> x = np.zeros((1, 2, 1))
            >>> ops.convert_to_numpy(ops.squeeze(x)).shape
            (2,)
            >>> ops.convert_to_numpy(ops.squeeze(x, axis=0)).shape
            (2, 1)
            """,
        "stack": """The tensors `x` joined along a new `axis`.

            Args:
                x: A list or tuple of tensors, all of the same shape.
                axis: Position of the new axis in the result. Defaults to `0`.

            Returns:
                A tensor one rank higher than the inputs, with `len(x)` along `axis`,
                in the promoted dtype of the inputs.

            Example:

            >>> a = np.array([1, 2], "int32")
            >>> b = np.array([3, 4], "int32")
            >>> ops.convert_to_numpy(ops.stack([a, b])).tolist()
            [[1, 2], [3, 4]]
            >>> ops.convert_to_numpy(ops.stack([a, b], axis=1)).tolist()
            [[1, 3], [2, 4]]
            """,
        "std": """Standard deviation of `x` along `axis`.

            This is the population standard deviation (divisor `N`, no Bessel
            correction): `sqrt(mean(abs(x - mean(x)) ** 2))`.

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to reduce. `None` (the default) uses all
                    elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The standard deviations, as floats (integer input gives `float32`).

            Example:

            >>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
            >>> ops.convert_to_numpy(ops.std(x, axis=1)).tolist()
            [1.0, 0.0]
            >>> print(f"{float(ops.convert_to_numpy(ops.std(x))):.4f}")
            0.7071
            """,
        "subtract": """Elementwise `x1 - x2`, broadcast.

            Args:
                x1: Tensor (or Python scalar) to subtract from.
                x2: Tensor (or Python scalar) to subtract; broadcasts against `x1`.

            Returns:
                The differences, in the promoted dtype of `x1` and `x2`.

            Example:

            >>> ops.convert_to_numpy(ops.subtract(np.array([5, 3], "int32"), 1)).tolist()
            [4, 2]
            """,
        "sum": """Sum of `x` along `axis`.

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to add over. `None` (the default) adds all
                    elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The sums. Floating inputs keep their dtype; booleans and integers
                narrower than 32 bits widen to `int32` (unsigned ones to `uint32`).

            Example:

            >>> x = np.array([[1, 2], [3, 4]], "int32")
            >>> ops.convert_to_numpy(ops.sum(x)).tolist()
            10
            >>> ops.convert_to_numpy(ops.sum(x, axis=1, keepdims=True)).tolist()
            [[3], [7]]
            >>> ops.convert_to_numpy(ops.sum(np.array([True, True, False]))).tolist()
            2
            """,
        "swapaxes": """`x` with two axes interchanged.

            Args:
                x: Input tensor.
                axis1: First axis (negative values count from the end).
                axis2: Second axis.

            Returns:
                A tensor with the same elements and axes `axis1` and `axis2` swapped.

            Example:

            >>> ops.convert_to_numpy(ops.swapaxes(np.zeros((2, 3, 4)), 0, 2)).shape
            (4, 3, 2)
            """,
        "take": """Elements of `x` at `indices` along `axis` (flattened when `None`).

            Args:
                x: Source tensor.
                indices: Integer tensor (or int) of positions to pick; negative values
                    count from the end. Indices must be in range: out of range, the
                    engines differ as Keras 3's do: the torch engine raises an
                    `IndexError`, the JAX engine returns a fill value without an error
                    (NaN for floats, the least value of a signed integer dtype).
                axis: The axis to pick along. `None` (the default) picks from the
                    flattened `x`.

            Returns:
                A tensor in the dtype of `x` whose shape is that of `x` with the
                `axis` dimension replaced by the shape of `indices` (just the shape of
                `indices` when `axis` is `None`).

            Example:

            >>> x = np.array([[1, 2], [3, 4]], "int32")
            >>> ops.convert_to_numpy(ops.take(x, np.array([3, 0]))).tolist()
            [4, 1]
            >>> ops.convert_to_numpy(ops.take(x, np.array([1, 0, 1]), axis=1)).tolist()
            [[2, 1, 2], [4, 3, 4]]
            """,
        "take_along_axis": """Elements of `x` picked by matching 1-D `indices` along `axis`.

            Pairs each 1-D slice of `indices` along `axis` with the matching slice of
            `x`, as `numpy.take_along_axis` does; the natural partner of `argsort` and
            `argmax(..., keepdims=True)`.

            Args:
                x: Source tensor.
                indices: Integer tensor with the same rank as `x` (its other axes
                    broadcast against those of `x`); negative values count from the
                    end.
                axis: The axis to pick along. `None` (the default) flattens `x` and
                    takes 1-D `indices` into it.

            Returns:
                A tensor in the dtype of `x` with the broadcast shape of `x` and
                `indices`, taking the length of `indices` along `axis`.

            Example:

            >>> x = np.array([[10, 30, 20], [60, 40, 50]], "int32")
            >>> order = ops.argsort(x, axis=1)
            >>> ops.convert_to_numpy(ops.take_along_axis(x, order, axis=1)).tolist()
            [[10, 20, 30], [40, 50, 60]]
            >>> ops.convert_to_numpy(ops.take_along_axis(x, np.array([[1], [0]]), axis=1)).tolist()
            [[30], [60]]
            """,
        "tan": """Elementwise tangent (of angles in radians).

            Args:
                x: Input tensor.

            Returns:
                The tangents, as floats (integer input gives `float32`).

            Example:

            >>> y = ops.tan(np.array([0.0, np.pi / 4]))
            >>> np.round(ops.convert_to_numpy(y), 4)
            array([0., 1.], dtype=float32)
            """,
        "tanh": """Elementwise hyperbolic tangent.

            Args:
                x: Input tensor.

            Returns:
                The hyperbolic tangents, in `(-1, 1)`, as floats (integer input gives
                `float32`).

            Example:

            >>> y = ops.tanh(np.array([-1.0, 0.0, 1.0]))
            >>> np.round(ops.convert_to_numpy(y), 4)
            array([-0.7616,  0.    ,  0.7616], dtype=float32)
            """,
        "tensordot": """Tensor contraction over `axes`.

            Multiplies `x1` and `x2` and sums over pairs of axes, one from each; the
            remaining axes of `x1` then those of `x2` form the result.

            Args:
                x1: First tensor.
                x2: Second tensor.
                axes: An int `n`: contract the last `n` axes of `x1` with the first
                    `n` axes of `x2` (`0` gives the outer product, `1` the matrix
                    product); or a pair of sequences `(axes_of_x1, axes_of_x2)` naming
                    the axes to pair, which must have equal lengths. Defaults to `2`.

            Returns:
                The contraction, in the promoted dtype of `x1` and `x2`.

            Example:

            >>> a = np.array([[1, 2], [3, 4]], "int32")
            >>> ops.convert_to_numpy(ops.tensordot(a, a, axes=1)).tolist()
            [[7, 10], [15, 22]]
            >>> ops.convert_to_numpy(ops.tensordot(a, a, axes=([0], [0]))).tolist()
            [[10, 14], [14, 20]]
            >>> ops.convert_to_numpy(ops.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5)))).shape
            (2, 5)
            """,
        "tile": """`x` repeated `repeats` times along each axis.

            Args:
                x: Input tensor.
                repeats: Number of copies along each axis: an int, or a sequence with
                    one count per axis. A sequence longer than the rank of `x` adds
                    leading axes; a shorter one repeats the last axes.

            Returns:
                The tiled tensor, in the dtype of `x`.

            Example:

            >>> x = np.array([1, 2], "int32")
            >>> ops.convert_to_numpy(ops.tile(x, 2)).tolist()
            [1, 2, 1, 2]
            >>> ops.convert_to_numpy(ops.tile(x, (2, 1))).tolist()
            [[1, 2], [1, 2]]
            """,
        "trace": """Sum along a diagonal of `x`.

            Args:
                x: Input tensor of rank 2 or more.
                offset: Which diagonal: `0` (the default) is the main diagonal,
                    positive values are above it and negative ones below.
                axis1: First axis of the 2-D planes whose diagonals are summed.
                    Defaults to `0`.
                axis2: Second axis of those planes. Defaults to `1`.

            Returns:
                The diagonal sums: a scalar for a matrix, otherwise a tensor over the
                remaining axes. Booleans and integers narrower than 32 bits widen to
                `int32`.

            Example:

            >>> x = np.arange(9, dtype="int32").reshape(3, 3)
            >>> ops.convert_to_numpy(ops.trace(x)).tolist()
            12
            >>> ops.convert_to_numpy(ops.trace(x, offset=1)).tolist()
            6
            >>> y = np.arange(8, dtype="int32").reshape(2, 2, 2)
            >>> ops.convert_to_numpy(ops.trace(y, axis1=1, axis2=2)).tolist()
            [3, 11]
            """,
        "transpose": """`x` with axes permuted (reversed when `axes` is `None`).

            Args:
                x: Input tensor.
                axes: A permutation of `range(x.ndim)`: axis `i` of the result is
                    axis `axes[i]` of `x` (negative values count from the end). `None`
                    (the default) reverses the axes.

            Returns:
                A tensor with the same elements and the axes permuted.

            Example:

            >>> x = np.zeros((2, 3, 4))
            >>> ops.convert_to_numpy(ops.transpose(x)).shape
            (4, 3, 2)
            >>> ops.convert_to_numpy(ops.transpose(x, (1, 0, 2))).shape
            (3, 2, 4)
            """,
        "tri": """Ones at and below the `k`-th diagonal, zeros above.

            Args:
                N: Number of rows.
                M: Number of columns. `None` (the default) means `N`.
                k: The diagonal at and below which the ones go: `0` (the default) is
                    the main diagonal, positive values are above it and negative ones
                    below.
                dtype: The dtype of the result. `None` (the default) uses
                    `keras.config.floatx()`.

            Returns:
                A tensor of shape `(N, M)` with `T[i, j] = 1` where `j <= i + k` and
                `0` elsewhere.

            Example:

            >>> ops.convert_to_numpy(ops.tri(3, dtype="int32")).tolist()
            [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
            >>> ops.convert_to_numpy(ops.tri(2, 3, k=1)).tolist()
            [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
            """,
        "tril": """`x` with the elements above the `k`-th diagonal zeroed.

            Args:
                x: Input tensor of rank 2 or more; the last two axes are the matrices
                    (leading axes are a batch).
                k: The diagonal above which elements are zeroed: `0` (the default) is
                    the main diagonal, positive values are above it and negative ones
                    below.

            Returns:
                The lower triangle of `x`, in its shape and dtype.

            Example:

            >>> x = np.arange(1, 10, dtype="int32").reshape(3, 3)
            >>> ops.convert_to_numpy(ops.tril(x)).tolist()
            [[1, 0, 0], [4, 5, 0], [7, 8, 9]]
            >>> ops.convert_to_numpy(ops.tril(x, k=-1)).tolist()
            [[0, 0, 0], [4, 0, 0], [7, 8, 0]]
            """,
        "triu": """`x` with the elements below the `k`-th diagonal zeroed.

            Args:
                x: Input tensor of rank 2 or more; the last two axes are the matrices
                    (leading axes are a batch).
                k: The diagonal below which elements are zeroed: `0` (the default) is
                    the main diagonal, positive values are above it and negative ones
                    below.

            Returns:
                The upper triangle of `x`, in its shape and dtype.

            Example:

            >>> x = np.arange(1, 10, dtype="int32").reshape(3, 3)
            >>> ops.convert_to_numpy(ops.triu(x)).tolist()
            [[1, 2, 3], [0, 5, 6], [0, 0, 9]]
            >>> ops.convert_to_numpy(ops.triu(x, k=1)).tolist()
            [[0, 2, 3], [0, 0, 6], [0, 0, 0]]
            """,
        "true_divide": """Elementwise true division `x1 / x2` (alias of `divide`).

            Args:
                x1: Dividend tensor (or Python scalar).
                x2: Divisor tensor (or Python scalar); broadcasts against `x1`.

            Returns:
                The quotients, as floats: integer inputs give `float32`. Division by
                zero gives infinity (NaN for `0 / 0`).

            Example:

            >>> ops.convert_to_numpy(ops.true_divide(np.array([1, 3], "int32"), 2)).tolist()
            [0.5, 1.5]
            """,
        "trunc": """Elementwise rounding toward zero.

            Args:
                x: Input tensor.

            Returns:
                A tensor of the shape and dtype of `x` holding the integer part of
                each element (integer tensors come back unchanged).

            Example:

            >>> ops.convert_to_numpy(ops.trunc(np.array([-1.7, -0.2, 1.7]))).tolist()
            [-1.0, -0.0, 1.0]
            """,
        "unique": """The sorted unique elements of `x` (and first indices, inverse, counts).

            Without `size` the result's length depends on the values of `x`, so call
            it eagerly on concrete tensors; a static `size` pads or truncates to a
            fixed length.

            Args:
                x: Input tensor.
                sorted: Accepted for Keras compatibility; the unique elements always
                    come back in ascending order.
                return_index: If `True`, also return the index in `x` of the first
                    occurrence of each unique element.
                return_inverse: If `True`, also return, for each element of `x`, the
                    index of its value in the unique elements (so that
                    `take(unique, inverse)` rebuilds `x`).
                return_counts: If `True`, also return how often each unique element
                    occurs.
                axis: `None` (the default) flattens `x` first; an int treats each
                    slice along that axis (a row for `axis=0`) as one element.
                size: If given, the unique elements (and counts and indices) are
                    padded or truncated to exactly `size` entries. Padding counts are
                    `0`; padding index entries should not be relied on (they differ by
                    engine).
                fill_value: The value that pads the unique elements when `size` is
                    given. `None` (the default) pads with the smallest unique element.

            Returns:
                The unique elements; with any `return_*` flag, a tuple of the unique
                elements followed by the requested index, inverse and counts tensors,
                in that order.

            Example:

            >>> x = np.array([3, 1, 2, 1], "int32")
            >>> ops.convert_to_numpy(ops.unique(x)).tolist()
            [1, 2, 3]
            >>> values, counts = ops.unique(x, return_counts=True)
            >>> ops.convert_to_numpy(counts).tolist()
            [2, 1, 1]
            >>> rows = np.array([[1, 0], [0, 1], [1, 0]], "int32")
            >>> ops.convert_to_numpy(ops.unique(rows, axis=0)).tolist()
            [[0, 1], [1, 0]]
            """,
        "var": """Variance of `x` along `axis`.

            This is the population variance (divisor `N`, no Bessel correction):
            `mean(abs(x - mean(x)) ** 2)`.

            Args:
                x: Input tensor.
                axis: Axis or tuple of axes to reduce. `None` (the default) uses all
                    elements.
                keepdims: If `True`, the reduced axes stay in the result with length 1.

            Returns:
                The variances, as floats (integer input gives `float32`).

            Example:

            >>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
            >>> ops.convert_to_numpy(ops.var(x)).tolist()
            0.5
            >>> ops.convert_to_numpy(ops.var(x, axis=1, keepdims=True)).tolist()
            [[1.0], [0.0]]
            """,
        "view": """The bits of `x` reinterpreted as `dtype`.

            No value is converted: the bytes of `x` are read as the new dtype. When
            the item sizes differ, the last axis changes length to hold the same
            bytes (the byte order is the machine's, little-endian on common hosts).

            Args:
                x: Input tensor.
                dtype: The dtype to read the bytes as. `None` (the default) keeps
                    the dtype of `x`. A larger item size needs the last axis's byte
                    count to divide by it.

            Returns:
                A tensor of dtype `dtype` holding the same bytes as `x`.

            Example:

            >>> ops.convert_to_numpy(ops.view(np.array([1.0], "float32"), "int32")).tolist()
            [1065353216]
            >>> ops.convert_to_numpy(ops.view(np.array([1, 256], "int16"), "int8")).tolist()
            [1, 0, 0, 1]
            """,
        "where": """`x1` where `condition` holds, else `x2`.

            With `condition` alone (neither `x1` nor `x2`), the indices of its
            non-zero elements, as `nonzero(condition)` gives them. Their number
            depends on the data, so that form is for eager use: under `jax.jit`, and on
            symbolic inputs, JAX raises a `ValueError` (torch's symbolic shapes then say
            length 0, which is not meaningful).

            Args:
                condition: Boolean tensor (other values count as `True` when non-zero).
                x1: Values (tensor or Python scalar) taken where `condition` is true.
                x2: Values (tensor or Python scalar) taken where `condition` is false.
                    `condition`, `x1` and `x2` broadcast together. Give both `x1` and
                    `x2`, or neither.

            Returns:
                A tensor of the broadcast shape, in the promoted dtype of `x1` and
                `x2`; with `condition` alone, a tuple of `condition.ndim` 1-D `int32`
                tensors (see `nonzero`).

            Raises:
                ValueError: If only one of `x1` and `x2` is given.

            Example:

            >>> cond = np.array([True, False, True])
            >>> ops.convert_to_numpy(ops.where(cond, np.array([1, 2, 3], "int32"), 0)).tolist()
            [1, 0, 3]
            >>> column = np.array([[True], [False]])
            >>> ops.convert_to_numpy(ops.where(column, 1.0, np.zeros(2))).tolist()
            [[1.0, 1.0], [0.0, 0.0]]
            >>> rows, cols = ops.where(np.array([[0, 1], [1, 0]]))
            >>> ops.convert_to_numpy(rows).tolist(), ops.convert_to_numpy(cols).tolist()
            ([0, 1], [1, 0])
            """,
        "zeros": """A tensor of zeros (default dtype `floatx()`).

            Args:
                shape: The shape of the result: an int or a tuple of ints.
                dtype: The dtype of the result. `None` (the default) uses
                    `keras.config.floatx()`.

            Returns:
                A new tensor of the given shape filled with zeros.

            Example:

            >>> ops.convert_to_numpy(ops.zeros((2, 3))).shape
            (2, 3)
            >>> ops.convert_to_numpy(ops.zeros(2, dtype="int32")).tolist()
            [0, 0]
            """,
        "zeros_like": """Zeros with the shape (and by default the dtype) of `x`.

            Args:
                x: Tensor whose shape (and dtype) the result takes.
                dtype: The dtype of the result. `None` (the default) keeps the dtype
                    of `x`.

            Returns:
                A new tensor shaped like `x`, filled with zeros.

            Example:

            >>> x = np.array([[1, 2, 3]], "int32")
            >>> ops.convert_to_numpy(ops.zeros_like(x)).tolist()
            [[0, 0, 0]]
            >>> ops.convert_to_numpy(ops.zeros_like(x, dtype="float32")).dtype
            dtype('float32')
            """,
    }
}
