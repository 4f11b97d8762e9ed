"""Indexing, sorting and searching, engine module `numpy`: `take`, `sort`, `unique`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    take(x, indices, axis=None)
        Elements of `x` at `indices` along `axis` (flattened when `None`).

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

    take_along_axis(x, indices, axis=None)
        Elements of `x` picked by matching 1-D `indices` along `axis`.

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

    sort(x, axis=-1)
        `x` sorted along `axis`.

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

    argsort(x, axis=-1)
        Indices that sort `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis to sort along (default the last). `None` sorts the flattened
                tensor.

        Returns:
            An `"int32"` tensor of indices that put `x` in ascending order.

        Example:

        >>> ops.convert_to_numpy(ops.argsort(np.array([3, 1, 2]))).tolist()
        [1, 2, 0]

    searchsorted(sorted_sequence, values, side='left')
        Where `values` would be inserted in `sorted_sequence` to keep it sorted.

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

    digitize(x, bins)
        The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]`.

        Values below `bins[0]` get 0 and values at or above `bins[-1]` get
        `len(bins)`.

        Args:
            x: Input tensor of values.
            bins: 1-D tensor of increasing bin edges.

        Returns:
            An `"int32"` tensor of bucket indices, same shape as `x`.

        Example:

        >>> x = np.array([0.5, 1.0, 2.5, 4.0])
        >>> ops.convert_to_numpy(ops.digitize(x, np.array([1.0, 2.0, 3.0]))).tolist()
        [0, 1, 2, 3]

    get_item(x, key)
        `x[key]`.

        Args:
            x: Input tensor.
            key: An index, slice, tuple of them, or an int/bool tensor, as in NumPy
                indexing.

        Returns:
            The selected elements, as an engine tensor (NumPy input is converted
            first, as by `convert_to_tensor`: `int64` becomes `int32`).

        Example:

        >>> x = np.arange(6).reshape(2, 3)
        >>> ops.convert_to_numpy(ops.get_item(x, 1)).tolist()
        [3, 4, 5]
        >>> ops.convert_to_numpy(ops.get_item(x, (slice(None), 0))).tolist()
        [0, 3]

    nonzero(x)
        The indices of the non-zero elements, one tensor per axis.

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

    unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None, size=None, fill_value=None)
        The sorted unique elements of `x` (and first indices, inverse, counts).

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

    argpartition(x, kth, axis=-1)
        Indices that partition `x` along `axis` around its `kth` smallest element.

        In the result, the index of the `kth` smallest element sits at position `kth`;
        indices of smaller elements come before it and of larger ones after it, each
        group in no particular order.

        Args:
            x: Input tensor.
            kth: Position (0-based) of the element to partition around.
            axis: Axis to partition along (default the last).

        Returns:
            An `"int32"` tensor of indices, same shape as `x`.

        Example:

        >>> x = np.array([30, 40, 20, 10])
        >>> idx = ops.convert_to_numpy(ops.argpartition(x, 1))
        >>> int(idx[1]), sorted(idx[:1].tolist()), sorted(idx[2:].tolist())
        (2, [3], [0, 1])
    """
)
