"""Array creation, engine module `numpy`: filled arrays, ranges, grids, triangles, copies.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    zeros(shape, dtype=None)
        A tensor of zeros (default dtype `floatx()`).

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

    ones(shape, dtype=None)
        A tensor of ones (default dtype `floatx()`).

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

    full(shape, fill_value, dtype=None)
        A tensor filled with `fill_value`.

        Args:
            shape: Shape of the result, an int or a tuple of ints.
            fill_value: The value (a scalar, or a tensor broadcastable to `shape`).
            dtype: Dtype of the result. `None` (the default) gives the default float
                dtype (`keras.config.floatx()`, usually `"float32"`) whatever the
                type of `fill_value`, as in Keras; pass `dtype="int32"` for integers.

        Returns:
            A tensor of shape `shape`.

        Example:

        >>> ops.convert_to_numpy(ops.full((2, 2), 0.5)).tolist()
        [[0.5, 0.5], [0.5, 0.5]]
        >>> ops.convert_to_numpy(ops.full((3,), 7)).tolist()
        [7.0, 7.0, 7.0]
        >>> ops.convert_to_numpy(ops.full((3,), 7, dtype="int32")).tolist()
        [7, 7, 7]

    zeros_like(x, dtype=None)
        Zeros with the shape (and by default the dtype) of `x`.

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

    ones_like(x, dtype=None)
        Ones with the shape (and by default the dtype) of `x`.

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

    full_like(x, fill_value, dtype=None)
        `fill_value` with the shape (and by default the dtype) of `x`.

        Args:
            x: Tensor whose shape (and dtype) to copy.
            fill_value: The value to fill with.
            dtype: Dtype of the result. `None` (default) keeps the dtype of `x`, so
                `fill_value` is cast to it.

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> x = np.zeros((2,), "int32")
        >>> ops.convert_to_numpy(ops.full_like(x, 3)).tolist()
        [3, 3]
        >>> ops.convert_to_numpy(ops.full_like(x, 2.5, dtype="float32")).tolist()
        [2.5, 2.5]

    eye(N, M=None, k=0, dtype=None)
        A 2-D tensor with ones on the `k`-th diagonal and zeros elsewhere.

        Args:
            N: Number of rows.
            M: Number of columns. `None` (default) means `N`.
            k: Which diagonal: 0 (default) the main one, positive above it, negative
                below it.
            dtype: Dtype of the result. `None` means the default float dtype
                (`keras.config.floatx()`).

        Returns:
            A tensor of shape `(N, M)`.

        Example:

        >>> ops.convert_to_numpy(ops.eye(2, 3, k=1)).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]

    identity(n, dtype=None)
        The `n` by `n` identity matrix.

        Args:
            n: Number of rows and columns.
            dtype: Dtype of the result. `None` means the default float dtype
                (`keras.config.floatx()`).

        Returns:
            A tensor of shape `(n, n)` with ones on the main diagonal.

        Example:

        >>> ops.convert_to_numpy(ops.identity(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]

    arange(start, stop=None, step=None, dtype=None)
        Evenly spaced values in `[start, stop)` (`step` 1 when `None`).

        Args:
            start: First value; with `stop` left as `None`, the end of the range
                instead, and the range starts at 0.
            stop: End of the range (excluded).
            step: Spacing between values. `None` means 1.
            dtype: Dtype of the result. `None` infers it from the arguments: `"int32"`
                for integers, the float dtype otherwise.

        Returns:
            A 1-D tensor.

        Example:

        >>> ops.convert_to_numpy(ops.arange(4)).tolist()
        [0, 1, 2, 3]
        >>> ops.convert_to_numpy(ops.arange(1, 2, 0.25)).tolist()
        [1.0, 1.25, 1.5, 1.75]

    linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
        `num` evenly spaced values from `start` to `stop` (and the step if `retstep`).

        Args:
            start: First value (scalar, or a tensor for several ranges at once).
            stop: Last value (included unless `endpoint=False`), broadcastable with
                `start`.
            num: Number of values (default 50).
            endpoint: If `True` (default), `stop` is the last value; if `False`, the
                range is split into `num` steps and `stop` is left out.
            retstep: If `True`, also return the spacing between values.
            dtype: Dtype of the result. `None` means the default float dtype; an
                integer dtype floors the values.
            axis: Axis of the result along which the values run, for tensor
                `start`/`stop` (default 0).

        Returns:
            The values; with `retstep=True`, a tuple `(values, step)`.

        Example:

        >>> ops.convert_to_numpy(ops.linspace(0.0, 1.0, 5)).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        >>> ops.convert_to_numpy(ops.linspace(0.0, 1.0, 4, endpoint=False)).tolist()
        [0.0, 0.25, 0.5, 0.75]

    tri(N, M=None, k=0, dtype=None)
        Ones at and below the `k`-th diagonal, zeros above.

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

    tril(x, k=0)
        `x` with the elements above the `k`-th diagonal zeroed.

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

    triu(x, k=0)
        `x` with the elements below the `k`-th diagonal zeroed.

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

    meshgrid(*x, indexing='xy')
        Coordinate grids from 1-D coordinate vectors.

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

    copy(x)
        A copy of `x`.

        Args:
            x: Input tensor (or array-like).

        Returns:
            A new tensor with the values, shape and dtype of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.copy(np.array([1, 2]))).tolist()
        [1, 2]
    """
)
