"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy_a_c.

The NumPy-style ops from `abs` to `cumsum`, plus the public aliases whose target is
one of them (`bitwise_not`, `conjugate`, `left_shift`, `right_shift`).
"""

DOCS: dict[str, dict[str, str]] = {
    "numpy": {
        "abs": """Elementwise absolute value.

        Args:
            x: Input tensor. For a complex tensor the result is the magnitude.

        Returns:
            `|x|`, same shape as `x`; same dtype for real input, the matching float
            dtype for complex input.

        Example:

        >>> ops.convert_to_numpy(ops.abs(np.array([-1.5, 0.0, 2.0]))).tolist()
        [1.5, 0.0, 2.0]
        """,
        "absolute": """Elementwise absolute value (alias of `abs`).

        Args:
            x: Input tensor. For a complex tensor the result is the magnitude.

        Returns:
            `|x|`, same shape as `x`; same dtype for real input, the matching float
            dtype for complex input.

        Example:

        >>> ops.convert_to_numpy(ops.absolute(np.array([-3, 4]))).tolist()
        [3, 4]
        """,
        "add": """Elementwise `x1 + x2`, broadcast.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The sum, in the broadcast shape and the promoted dtype of the inputs.

        Example:

        >>> ops.convert_to_numpy(ops.add(np.array([1, 2, 3]), 10)).tolist()
        [11, 12, 13]
        """,
        "all": """Whether every element along `axis` is true.

        Args:
            x: Input tensor; non-zero values count as true.
            axis: Axis or tuple of axes to reduce. `None` (default) reduces all axes.
            keepdims: If `True`, reduced axes are kept with length 1.

        Returns:
            A bool tensor.

        Example:

        >>> x = np.array([[True, False], [True, True]])
        >>> ops.convert_to_numpy(ops.all(x, axis=1)).tolist()
        [False, True]
        """,
        "angle": """The argument (phase angle) of each complex element; 0 or pi for reals.

        Args:
            x: Input tensor, complex or real.

        Returns:
            The angle in radians, in `(-pi, pi]`, as a float tensor of the same shape.

        Example:

        >>> x = ops.angle(np.array([1j, -1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.5708 3.1416 0.    ]
        """,
        "any": """Whether any element along `axis` is true.

        Args:
            x: Input tensor; non-zero values count as true.
            axis: Axis or tuple of axes to reduce. `None` (default) reduces all axes.
            keepdims: If `True`, reduced axes are kept with length 1.

        Returns:
            A bool tensor.

        Example:

        >>> x = np.array([[0, 0], [0, 3]])
        >>> ops.convert_to_numpy(ops.any(x, axis=1)).tolist()
        [False, True]
        """,
        "append": """`x2` appended to the end of `x1` along `axis` (flattened when `None`).

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
        """,
        "arange": """Evenly spaced values in `[start, stop)` (`step` 1 when `None`).

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
        """,
        "arccos": """Elementwise inverse cosine.

        Args:
            x: Input tensor, values in `[-1, 1]` (others give NaN).

        Returns:
            The angle in radians, in `[0, pi]`, as a float tensor.

        Example:

        >>> x = ops.arccos(np.array([1.0, 0.0, -1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     1.5708 3.1416]
        """,
        "arccosh": """Elementwise inverse hyperbolic cosine.

        Args:
            x: Input tensor, values `>= 1` (others give NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arccosh(np.array([1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.    1.317]
        """,
        "arcsin": """Elementwise inverse sine.

        Args:
            x: Input tensor, values in `[-1, 1]` (others give NaN).

        Returns:
            The angle in radians, in `[-pi/2, pi/2]`, as a float tensor.

        Example:

        >>> x = ops.arcsin(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     1.5708]
        """,
        "arcsinh": """Elementwise inverse hyperbolic sine.

        Args:
            x: Input tensor.

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arcsinh(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.8814]
        """,
        "arctan": """Elementwise inverse tangent.

        Args:
            x: Input tensor.

        Returns:
            The angle in radians, in `(-pi/2, pi/2)`, as a float tensor.

        Example:

        >>> x = ops.arctan(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.7854]
        """,
        "arctan2": """Elementwise angle of the point `(x2, x1)`.

        The quadrant-aware inverse tangent of `x1 / x2`: the angle between the positive
        x-axis and the point with x-coordinate `x2` and y-coordinate `x1`.

        Args:
            x1: y-coordinates.
            x2: x-coordinates, broadcastable with `x1`.

        Returns:
            The angle in radians, in `[-pi, pi]`, as a float tensor of the broadcast
            shape.

        Example:

        >>> x = ops.arctan2(np.array([1.0, 1.0]), np.array([1.0, -1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.7854 2.3562]
        """,
        "arctanh": """Elementwise inverse hyperbolic tangent.

        Args:
            x: Input tensor, values in `(-1, 1)` (`+-1` give infinities, others NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arctanh(np.array([0.0, 0.5]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.5493]
        """,
        "argmax": """Index of the maximum along `axis`.

        Ties go to the first occurrence.

        Args:
            x: Input tensor.
            axis: Axis to search. `None` (default) searches the flattened tensor.
            keepdims: If `True`, the reduced axis is kept with length 1.

        Returns:
            An `"int32"` tensor of indices.

        Example:

        >>> x = np.array([[1, 5, 2], [7, 0, 3]])
        >>> ops.convert_to_numpy(ops.argmax(x, axis=1)).tolist()
        [1, 0]
        >>> ops.convert_to_numpy(ops.argmax(x)).tolist()
        3
        """,
        "argmin": """Index of the minimum along `axis`.

        Ties go to the first occurrence.

        Args:
            x: Input tensor.
            axis: Axis to search. `None` (default) searches the flattened tensor.
            keepdims: If `True`, the reduced axis is kept with length 1.

        Returns:
            An `"int32"` tensor of indices.

        Example:

        >>> x = np.array([[3, 1], [0, 4]])
        >>> ops.convert_to_numpy(ops.argmin(x, axis=0, keepdims=True)).tolist()
        [[1, 0]]
        """,
        "argpartition": """Indices that partition `x` along `axis` around its `kth` smallest element.

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
        """,
        "argsort": """Indices that sort `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis to sort along (default the last). `None` sorts the flattened
                tensor.

        Returns:
            An `"int32"` tensor of indices that put `x` in ascending order.

        Example:

        >>> ops.convert_to_numpy(ops.argsort(np.array([3, 1, 2]))).tolist()
        [1, 2, 0]
        """,
        "average": """Weighted average of `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis to average over. `None` (default) averages all elements.
            weights: Weights, either the shape of `x` or 1-D with the length of `x`
                along `axis`. `None` (default) weighs every element equally.

        Returns:
            `sum(x * weights) / sum(weights)` along `axis`, as a float tensor.

        Example:

        >>> x = np.array([1.0, 2.0, 3.0])
        >>> ops.convert_to_numpy(ops.average(x, weights=np.array([3.0, 1.0, 0.0]))).tolist()
        1.25
        """,
        "bincount": """Counts of each non-negative integer in `x` (weighted by `weights`).

        A rank-2 `x` is counted row by row, every row to the same length (the largest
        value of the whole of `x`, plus one, or `minlength` if larger).

        Args:
            x: Rank-1 or rank-2 tensor of non-negative integers.
            weights: Optional tensor of the shape of `x`; each occurrence adds its
                weight instead of 1.
            minlength: Minimum length of the output. Under `jax.jit` and for
                symbolic inputs the output length must be known without the data:
                give `minlength`, which is the length there (values `>= minlength`
                are dropped). Without it JAX raises a `ValueError` asking for it
                (torch's symbolic shape then says length 1, which is not meaningful).
            sparse: Accepted for Keras compatibility; lamina's engines have no sparse
                tensors, so `True` raises a `ValueError`.

        Returns:
            A tensor of length `max(max(x) + 1, minlength)` along the last axis:
            `"int32"` counts, or sums in the dtype of `weights`.

        Example:

        >>> ops.convert_to_numpy(ops.bincount(np.array([0, 1, 1, 3]))).tolist()
        [1, 2, 0, 1]
        >>> w = np.array([0.5, 1.0, 2.0, 1.0])
        >>> ops.convert_to_numpy(ops.bincount(np.array([0, 1, 1, 3]), weights=w)).tolist()
        [0.5, 3.0, 0.0, 1.0]
        >>> ops.convert_to_numpy(ops.bincount(np.array([[0, 1], [1, 1]]), minlength=3)).tolist()
        [[1, 1, 0], [0, 2, 0]]
        >>> ops.convert_to_numpy(ops.bincount(np.array([[0, 3], [1, 1]]))).tolist()
        [[1, 0, 0, 1], [0, 2, 0, 0]]
        """,
        "bitwise_and": """Elementwise bitwise AND of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x & y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_and(np.array([12, 10]), np.array([10, 6]))).tolist()
        [8, 2]
        """,
        "bitwise_invert": """Elementwise bitwise NOT (logical NOT for bool).

        Args:
            x: Integer or bool tensor.

        Returns:
            `~x`, same dtype as `x` (for signed integers, `-x - 1`).

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_invert(np.array([0, 5], "int32"))).tolist()
        [-1, -6]
        >>> ops.convert_to_numpy(ops.bitwise_invert(np.array([True, False]))).tolist()
        [False, True]
        """,
        "bitwise_not": """Elementwise bitwise NOT (alias of `bitwise_invert`).

        Args:
            x: Integer or bool tensor.

        Returns:
            `~x`, same dtype as `x` (for signed integers, `-x - 1`).

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_not(np.array([0, 5], "int32"))).tolist()
        [-1, -6]
        """,
        "bitwise_left_shift": """Elementwise `x << y`.

        Args:
            x: Integer tensor to shift.
            y: Number of bits to shift by (non-negative), broadcastable with `x`.

        Returns:
            `x` shifted left by `y` bits, in the promoted integer dtype.

        Example:

        >>> x = ops.bitwise_left_shift(np.array([1, 3]), np.array([2, 1]))
        >>> ops.convert_to_numpy(x).tolist()
        [4, 6]
        """,
        "left_shift": """Elementwise `x << y` (alias of `bitwise_left_shift`).

        Args:
            x: Integer tensor to shift.
            y: Number of bits to shift by (non-negative), broadcastable with `x`.

        Returns:
            `x` shifted left by `y` bits, in the promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.left_shift(np.array([1, 3]), 2)).tolist()
        [4, 12]
        """,
        "bitwise_or": """Elementwise bitwise OR of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x | y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_or(np.array([12, 10]), np.array([10, 6]))).tolist()
        [14, 14]
        """,
        "bitwise_right_shift": """Elementwise `x >> y`.

        Args:
            x: Integer tensor to shift.
            y: Number of bits to shift by (non-negative), broadcastable with `x`.

        Returns:
            `x` shifted right by `y` bits (sign-extending for signed integers), in the
            promoted integer dtype.

        Example:

        >>> x = ops.bitwise_right_shift(np.array([8, 5]), np.array([2, 1]))
        >>> ops.convert_to_numpy(x).tolist()
        [2, 2]
        """,
        "right_shift": """Elementwise `x >> y` (alias of `bitwise_right_shift`).

        Args:
            x: Integer tensor to shift.
            y: Number of bits to shift by (non-negative), broadcastable with `x`.

        Returns:
            `x` shifted right by `y` bits (sign-extending for signed integers), in the
            promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.right_shift(np.array([8, 5]), 1)).tolist()
        [4, 2]
        """,
        "bitwise_xor": """Elementwise bitwise XOR of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x ^ y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_xor(np.array([12, 10]), np.array([10, 6]))).tolist()
        [6, 12]
        """,
        "broadcast_to": """`x` broadcast to `shape`.

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
        """,
        "ceil": """Elementwise ceiling.

        Args:
            x: Input tensor.

        Returns:
            The smallest integer value `>= x` for each element, in the dtype of `x`
            for float input; integer and bool input give floats (`"float32"` by
            default), as in Keras.

        Example:

        >>> ops.convert_to_numpy(ops.ceil(np.array([1.2, -1.5, 2.0]))).tolist()
        [2.0, -1.0, 2.0]
        """,
        "clip": """`x` limited to `[x_min, x_max]`.

        Args:
            x: Input tensor.
            x_min: Lower bound (scalar or tensor broadcastable with `x`).
            x_max: Upper bound (scalar or tensor broadcastable with `x`). One bound
                may be a Python number and the other a tensor.

        Returns:
            `minimum(maximum(x, x_min), x_max)`, in the promoted dtype of `x` and the
            bounds.

        Example:

        >>> ops.convert_to_numpy(ops.clip(np.array([-1.0, 0.5, 2.0]), 0.0, 1.0)).tolist()
        [0.0, 0.5, 1.0]
        >>> hi = np.array([3.0, 1.0], "float32")
        >>> ops.convert_to_numpy(ops.clip(np.array([1.0, 5.0], "float32"), 0.0, hi)).tolist()
        [1.0, 1.0]
        """,
        "concatenate": """The tensors `xs` joined along an existing `axis`.

        Args:
            xs: List or tuple of tensors, same shape except along `axis`.
            axis: Axis to join along (default 0).

        Returns:
            The joined tensor, in the promoted dtype of `xs`.

        Example:

        >>> xs = [np.ones((1, 2)), np.zeros((1, 2))]
        >>> ops.convert_to_numpy(ops.concatenate(xs, axis=0)).tolist()
        [[1.0, 1.0], [0.0, 0.0]]
        """,
        "conj": """The complex conjugate of `x`.

        Args:
            x: Input tensor; a real tensor is returned unchanged.

        Returns:
            A tensor with the sign of each imaginary part flipped, same shape as `x`.

        Example:

        >>> ops.convert_to_numpy(ops.conj(np.array([1 + 2j, 3 - 1j]))).tolist()
        [(1-2j), (3+1j)]
        """,
        "conjugate": """The complex conjugate of `x` (alias of `conj`).

        Args:
            x: Input tensor; a real tensor is returned unchanged.

        Returns:
            A tensor with the sign of each imaginary part flipped, same shape as `x`.

        Example:

        >>> ops.convert_to_numpy(ops.conjugate(np.array([1 + 2j]))).tolist()
        [(1-2j)]
        """,
        "copy": """A copy of `x`.

        Args:
            x: Input tensor (or array-like).

        Returns:
            A new tensor with the values, shape and dtype of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.copy(np.array([1, 2]))).tolist()
        [1, 2]
        """,
        "correlate": """Cross-correlation of two 1-D sequences.

        `c[k] = sum_n x1[n + k] * x2[n]`, NumPy's definition (no conjugation of real
        input).

        Args:
            x1: First 1-D tensor.
            x2: Second 1-D tensor.
            mode: `"valid"` (default) keeps only full overlaps, `"same"` gives the
                length of the longer input, `"full"` every partial overlap.

        Returns:
            A 1-D float tensor.

        Example:

        >>> a, v = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])
        >>> ops.convert_to_numpy(ops.correlate(a, v)).tolist()
        [3.5]
        >>> ops.convert_to_numpy(ops.correlate(a, v, mode="full")).tolist()
        [0.5, 2.0, 3.5, 3.0, 0.0]
        """,
        "cos": """Elementwise cosine.

        Args:
            x: Input tensor, angles in radians.

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.cos(np.array([0.0, np.pi]))).tolist()
        [1.0, -1.0]
        """,
        "cosh": """Elementwise hyperbolic cosine.

        Args:
            x: Input tensor.

        Returns:
            `(exp(x) + exp(-x)) / 2`, a float tensor of the same shape.

        Example:

        >>> x = ops.cosh(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.     1.5431]
        """,
        "count_nonzero": """Number of non-zero elements along `axis`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to count over. `None` (default) counts all
                elements.

        Returns:
            An `"int32"` tensor of counts.

        Example:

        >>> x = np.array([[0, 1, 2], [3, 0, 0]])
        >>> ops.convert_to_numpy(ops.count_nonzero(x)).tolist()
        3
        >>> ops.convert_to_numpy(ops.count_nonzero(x, axis=1)).tolist()
        [2, 1]
        """,
        "cross": """Cross product of 3-vectors (or 2-vectors) along the given axes.

        For 2-vectors the result is the z-component of the product, a scalar per pair.

        Args:
            x1: First tensor of vectors (length 2 or 3 along `axisa`).
            x2: Second tensor of vectors (length 2 or 3 along `axisb`); the other axes
                broadcast with `x1`'s.
            axisa: Axis of `x1` holding the vectors (default the last).
            axisb: Axis of `x2` holding the vectors (default the last).
            axisc: Axis of the result holding the vectors (default the last).
            axis: If given, overrides `axisa`, `axisb` and `axisc` at once.

        Returns:
            The cross products, in the promoted dtype.

        Example:

        >>> x = ops.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        >>> ops.convert_to_numpy(x).tolist()
        [0.0, 0.0, 1.0]
        """,
        "cumprod": """Cumulative product along `axis` (flattened when `None`).

        Args:
            x: Input tensor.
            axis: Axis to accumulate along. `None` (default) flattens `x` first.
            dtype: Dtype of the result. `None` keeps the dtype of `x` (bools become
                `"int32"`).

        Returns:
            The running products; same shape as `x` with an `axis`, 1-D without.

        Example:

        >>> ops.convert_to_numpy(ops.cumprod(np.array([1, 2, 3, 4]))).tolist()
        [1, 2, 6, 24]
        >>> ops.convert_to_numpy(ops.cumprod(np.array([[1, 2], [3, 4]]), axis=0)).tolist()
        [[1, 2], [3, 8]]
        """,
        "cumsum": """Cumulative sum along `axis` (flattened when `None`).

        Args:
            x: Input tensor.
            axis: Axis to accumulate along. `None` (default) flattens `x` first.
            dtype: Dtype of the result. `None` keeps the dtype of `x` (bools become
                `"int32"`).

        Returns:
            The running sums; same shape as `x` with an `axis`, 1-D without.

        Example:

        >>> x = np.array([[1, 2], [3, 4]])
        >>> ops.convert_to_numpy(ops.cumsum(x)).tolist()
        [1, 3, 6, 10]
        >>> ops.convert_to_numpy(ops.cumsum(x, axis=1)).tolist()
        [[1, 3], [3, 7]]
        """,
    }
}
