"""Shape functions, engine module `numpy`: reshaping, moving axes, joining, splitting, padding.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    reshape(x, newshape)
        `x` with shape `newshape` (one dimension may be -1 or `None`).

        Args:
            x: Input tensor.
            newshape: The new shape, a tuple of ints (or an int for 1-D). It must
                hold as many elements as `x`; one entry may be `-1` (or `None`),
                which is inferred from the others.

        Returns:
            An engine tensor with the elements of `x`, in row-major order, in the
            new shape. NumPy input is converted first, as by `convert_to_tensor`
            (`int64` becomes `int32`, `float64` becomes `floatx()`).

        Example:

        >>> x = np.arange(6, dtype="int32")
        >>> ops.convert_to_numpy(ops.reshape(x, (2, -1))).tolist()
        [[0, 1, 2], [3, 4, 5]]
        >>> ops.convert_to_numpy(ops.reshape(x, (None, 2))).shape
        (3, 2)

    transpose(x, axes=None)
        `x` with axes permuted (reversed when `axes` is `None`).

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

    expand_dims(x, axis)
        `x` with a new axis of length 1 at `axis`.

        Args:
            x: Input tensor.
            axis: Position of the new axis in the result (negative counts from the
                end), or a tuple of positions for several new axes.

        Returns:
            A tensor with the values of `x` and one more axis per position.

        Example:

        >>> ops.convert_to_numpy(ops.expand_dims(np.ones((2, 3)), 0)).shape
        (1, 2, 3)
        >>> ops.convert_to_numpy(ops.expand_dims(np.ones((2, 3)), (0, -1))).shape
        (1, 2, 3, 1)

    squeeze(x, axis=None)
        `x` without its axes of length 1 (or only `axis`).

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

    ravel(x)
        `x` flattened to one dimension.

        Args:
            x: Input tensor.

        Returns:
            A 1-D tensor of the elements of `x` in row-major (C) order.

        Example:

        >>> x = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.ravel(x)).tolist()
        [1, 2, 3, 4]

    flip(x, axis=None)
        `x` with the order of elements along `axis` reversed.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to reverse. `None` (default) reverses every
                axis.

        Returns:
            A tensor of the shape and dtype of `x`.

        Example:

        >>> x = np.array([[1, 2], [3, 4]])
        >>> ops.convert_to_numpy(ops.flip(x)).tolist()
        [[4, 3], [2, 1]]
        >>> ops.convert_to_numpy(ops.flip(x, axis=1)).tolist()
        [[2, 1], [4, 3]]

    roll(x, shift, axis=None)
        `x` with elements shifted cyclically by `shift` along `axis`.

        Elements that leave one end come back in at the other.

        Args:
            x: Input tensor.
            shift: Number of places to shift (negative shifts the other way): an
                int, or a tuple with one shift per axis in `axis`.
            axis: Axis or tuple of axes to shift along. `None` (the default)
                shifts the flattened tensor and restores the shape.

        Returns:
            A tensor of the shape and dtype of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.roll(np.array([1, 2, 3, 4], "int32"), 1)).tolist()
        [4, 1, 2, 3]
        >>> x = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.roll(x, -1, axis=1)).tolist()
        [[2, 1], [4, 3]]

    swapaxes(x, axis1, axis2)
        `x` with two axes interchanged.

        Args:
            x: Input tensor.
            axis1: First axis (negative values count from the end).
            axis2: Second axis.

        Returns:
            A tensor with the same elements and axes `axis1` and `axis2` swapped.

        Example:

        >>> ops.convert_to_numpy(ops.swapaxes(np.zeros((2, 3, 4)), 0, 2)).shape
        (4, 3, 2)

    moveaxis(x, source, destination)
        `x` with axes moved from `source` to `destination`.

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

    broadcast_to(x, shape)
        `x` broadcast to `shape`.

        Follows NumPy's broadcasting rules: axes of length 1 are repeated and new
        leading axes are added.

        Args:
            x: Input tensor.
            shape: Target shape, a tuple of ints compatible with `x.shape`.

        Returns:
            A tensor of shape `shape` and the dtype of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.broadcast_to(np.array([1, 2]), (2, 2))).tolist()
        [[1, 2], [1, 2]]

    concatenate(xs, axis=0)
        The tensors `xs` joined along an existing `axis`.

        Args:
            xs: List or tuple of tensors, same shape except along `axis`.
            axis: Axis to join along (default 0).

        Returns:
            The joined tensor, in the promoted dtype of `xs`.

        Example:

        >>> xs = [np.ones((1, 2)), np.zeros((1, 2))]
        >>> ops.convert_to_numpy(ops.concatenate(xs, axis=0)).tolist()
        [[1.0, 1.0], [0.0, 0.0]]

    stack(x, axis=0)
        The tensors `x` joined along a new `axis`.

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

    split(x, indices_or_sections, axis=0)
        `x` split into a list of sub-tensors along `axis`.

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

    append(x1, x2, axis=None)
        `x2` appended to the end of `x1` along `axis` (flattened when `None`).

        Args:
            x1: First tensor.
            x2: Tensor to append. With an `axis`, its shape must match `x1`'s except
                along `axis`.
            axis: Axis to join along. `None` (default) flattens both tensors first.

        Returns:
            The joined tensor, in the promoted dtype of `x1` and `x2`.

        Example:

        >>> a, b = np.array([[1, 2]]), np.array([[3, 4]])
        >>> ops.convert_to_numpy(ops.append(a, b)).tolist()
        [1, 2, 3, 4]
        >>> ops.convert_to_numpy(ops.append(a, b, axis=0)).tolist()
        [[1, 2], [3, 4]]

    tile(x, repeats)
        `x` repeated `repeats` times along each axis.

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

    repeat(x, repeats, axis=None)
        Each element of `x` repeated `repeats` times along `axis`.

        Args:
            x: Input tensor.
            repeats: How many times to repeat each element: an int for all of
                them, or a 1-D integer tensor with one count per element along
                `axis`. Give per-element counts as a NumPy array or tensor: a
                Python list is refused on the JAX engine.
            axis: The axis to repeat along. `None` (the default) flattens `x`
                first and returns a 1-D tensor.

        Returns:
            A tensor like `x` with the `axis` dimension (or the flattened length)
            grown by the repetitions.

        Example:

        >>> x = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.repeat(x, 2)).tolist()
        [1, 1, 2, 2, 3, 3, 4, 4]
        >>> ops.convert_to_numpy(ops.repeat(x, np.array([1, 2]), axis=0)).tolist()
        [[1, 2], [3, 4], [3, 4]]

    pad(x, pad_width, mode='constant', constant_values=None)
        `x` padded by `pad_width` (one `(before, after)` pair per axis).

        Args:
            x: Tensor to pad.
            pad_width: How many values to add at each end of each axis:
                `((before_1, after_1), ..., (before_N, after_N))` per axis; a single
                pair `(before, after)` (or `((before, after),)`) for every axis; or
                an int (or `(pad,)`) for `before = after = pad` on every axis.
            mode: How to fill the padding. `"constant"` (the default) uses
                `constant_values`; `"edge"` repeats the edge value; `"reflect"`
                mirrors without repeating the edge; `"symmetric"` mirrors repeating
                it; `"wrap"` repeats the tensor cyclically. These five work on every
                engine. The JAX engine also takes NumPy's `"linear_ramp"`,
                `"maximum"`, `"mean"`, `"median"`, `"minimum"` and `"empty"`; the
                torch engine refuses them with a `ValueError`. Keras's torch-only
                `"circular"` is not supported (use `"wrap"`, which fills the same
                values).
            constant_values: The fill value for `mode="constant"`. `None` (the
                default) means `0`. Any other mode needs `None` here: with a value
                it raises a `ValueError`, as in Keras.

        Returns:
            The padded tensor, in the dtype of `x`; each axis grows by its
            `before + after`.

        Raises:
            ValueError: If `constant_values` is given with a mode other than
                `"constant"`, or (torch) the mode is not one of the five above.

        Example:

        >>> x = np.array([1, 2, 3], "int32")
        >>> ops.convert_to_numpy(ops.pad(x, 1)).tolist()
        [0, 1, 2, 3, 0]
        >>> ops.convert_to_numpy(ops.pad(x, (1, 2), constant_values=9)).tolist()
        [9, 1, 2, 3, 9, 9]
        >>> ops.convert_to_numpy(ops.pad(x, 2, mode="reflect")).tolist()
        [3, 2, 1, 2, 3, 2, 1]
        >>> ops.convert_to_numpy(ops.pad(np.ones((1, 1), "int32"), ((0, 1), (1, 0)))).tolist()
        [[0, 1], [0, 0]]

    size(x)
        The number of elements of `x`.

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

    ndim(x)
        The number of dimensions of `x`.

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
    """
)
