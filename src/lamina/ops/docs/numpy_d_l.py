"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy_d_l.

The NumPy-style ops from `diag` to `logical_xor`.
"""

DOCS: dict[str, dict[str, str]] = {
    "numpy": {
        "diag": """The `k`-th diagonal of a matrix, or a diagonal matrix from a vector.

        Args:
            x: A 1-D tensor (to place on a diagonal) or a 2-D tensor (to read one from).
            k: Which diagonal: 0 (default) the main one, positive above it, negative
                below it.

        Returns:
            For 1-D `x`, a square 2-D tensor with `x` on the `k`-th diagonal and zeros
            elsewhere; for 2-D `x`, a 1-D tensor of its `k`-th diagonal.

        Example:

        >>> ops.convert_to_numpy(ops.diag(np.array([1, 2]))).tolist()
        [[1, 0], [0, 2]]
        >>> ops.convert_to_numpy(ops.diag(np.arange(9).reshape(3, 3), k=-1)).tolist()
        [3, 7]
        """,
        "diagonal": """The diagonal of `x` taken over `axis1` and `axis2`.

        Args:
            x: Tensor of rank 2 or more.
            offset: Which diagonal: 0 (default) the main one, positive above it,
                negative below it.
            axis1: First axis of the 2-D planes (default 0).
            axis2: Second axis of the 2-D planes (default 1).

        Returns:
            The diagonals: `axis1` and `axis2` are removed and a last axis holding the
            diagonal is added.

        Example:

        >>> x = np.arange(9).reshape(3, 3)
        >>> ops.convert_to_numpy(ops.diagonal(x)).tolist()
        [0, 4, 8]
        >>> ops.convert_to_numpy(ops.diagonal(x, offset=1)).tolist()
        [1, 5]
        """,
        "digitize": """The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]`.

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
        """,
        "divide": """Elementwise true division `x1 / x2`, broadcast.

        Integer inputs give a float result; division by zero gives `inf` or NaN.

        Args:
            x1: Numerator tensor (or Python scalar).
            x2: Denominator tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The quotient, a float tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.divide(np.array([1, 3]), np.array([2, 4]))).tolist()
        [0.5, 0.75]
        """,
        "dot": """Dot product (NumPy's rules for each rank).

        Two 1-D tensors give their inner product; 2-D tensors a matrix product; a
        scalar operand multiplies elementwise; an N-D `x1` and 1-D `x2` sum over the
        last axis of `x1`; otherwise the sum runs over the last axis of `x1` and the
        second-to-last of `x2`.

        Args:
            x1: First tensor.
            x2: Second tensor.

        Returns:
            The product, in the promoted dtype of `x1` and `x2`.

        Example:

        >>> ops.convert_to_numpy(ops.dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))).tolist()
        11.0
        >>> ops.convert_to_numpy(ops.dot(np.ones((2, 3)), np.ones((3, 4)))).shape
        (2, 4)
        """,
        "einsum": """Einstein summation over `operands` as described by `subscripts`.

        Each operand gets one letter per axis; letters repeated across operands are
        multiplied together, and letters missing from the output (after `->`) are
        summed over. Without `->`, the output takes the letters that appear once, in
        alphabetical order. `...` stands for broadcast leading axes.

        Args:
            subscripts: The equation, such as `"ij,jk->ik"`.
            *operands: The tensors, one per comma-separated term of `subscripts`.
            **kwargs: Options of `jax.numpy.einsum`, as Keras forwards them:
                `optimize` (the contraction order), `precision` and
                `preferred_element_type` (the result dtype). On torch, which plans
                and computes the contraction itself, `optimize` and `precision` are
                accepted and have no effect, and `preferred_element_type` casts the
                result. Any other name raises a `TypeError`.

        Returns:
            The contracted tensor, in the promoted dtype of the operands (int32
            when they are all int8, as in Keras), or `preferred_element_type`.

        Example:

        >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
        >>> ops.convert_to_numpy(ops.einsum("ij,jk->ik", a, b)).tolist()
        [[3.0, 3.0], [12.0, 12.0]]
        >>> ops.convert_to_numpy(ops.einsum("ii", np.eye(3))).tolist()
        3.0
        """,
        "equal": """Elementwise `x1 == x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.equal(np.array([1, 2, 3]), 2)).tolist()
        [False, True, False]
        """,
        "exp": """Elementwise exponential.

        Args:
            x: Input tensor; integers are computed in the float dtype.

        Returns:
            `e ** x`, a float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.exp(np.array([0.0, np.log(2.0)]))).round(4).tolist()
        [1.0, 2.0]
        """,
        "expand_dims": """`x` with a new axis of length 1 at `axis`.

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
        """,
        "expm1": """Elementwise `exp(x) - 1`, accurate near zero.

        Args:
            x: Input tensor.

        Returns:
            A float tensor of the same shape; for tiny `x` it keeps the digits that
            `exp(x) - 1` would lose.

        Example:

        >>> ops.convert_to_numpy(ops.expm1(np.array([0.0]))).tolist()
        [0.0]
        >>> bool(ops.convert_to_numpy(ops.expm1(np.array([1e-10])))[0] > 0)
        True
        """,
        "eye": """A 2-D tensor with ones on the `k`-th diagonal and zeros elsewhere.

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
        """,
        "flip": """`x` with the order of elements along `axis` reversed.

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
        """,
        "floor": """Elementwise floor.

        Args:
            x: Input tensor.

        Returns:
            The largest integer value `<= x` for each element, in the dtype of `x`
            for float input; integer and bool input give floats (`"float32"` by
            default), as in Keras.

        Example:

        >>> ops.convert_to_numpy(ops.floor(np.array([1.5, -1.5, 2.0]))).tolist()
        [1.0, -2.0, 2.0]
        >>> ops.dtype(ops.floor(np.array([1, 2], "int32")))
        'float32'
        """,
        "floor_divide": """Elementwise `x1 // x2`.

        The quotient rounded towards negative infinity, as in Python.

        Args:
            x1: Numerator tensor (or Python scalar).
            x2: Denominator tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The floored quotient, in the promoted dtype of the inputs.

        Example:

        >>> ops.convert_to_numpy(ops.floor_divide(np.array([7, -7]), 2)).tolist()
        [3, -4]
        """,
        "fmod": """Elementwise remainder of `x1 / x2` with the sign of `x1` (C's `fmod`).

        Unlike `mod`, whose result takes the sign of `x2`, the quotient here is
        truncated towards zero.

        Args:
            x1: Dividend tensor.
            x2: Divisor tensor, broadcastable with `x1`.

        Returns:
            `x1 - trunc(x1 / x2) * x2`, in the promoted dtype of the inputs.

        Example:

        >>> ops.convert_to_numpy(ops.fmod(np.array([7, -7]), np.array([3, 3]))).tolist()
        [1, -1]
        """,
        "full": """A tensor filled with `fill_value`.

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
        """,
        "full_like": """`fill_value` with the shape (and by default the dtype) of `x`.

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
        """,
        "gcd": """Elementwise greatest common divisor of integers.

        Args:
            x1: First integer tensor.
            x2: Second integer tensor, broadcastable with `x1`.

        Returns:
            The non-negative greatest common divisor of `|x1|` and `|x2|` (0 where
            both are 0), in the promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.gcd(np.array([12, 18]), np.array([8, 12]))).tolist()
        [4, 6]
        """,
        "get_item": """`x[key]`.

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
        """,
        "greater": """Elementwise `x1 > x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.greater(np.array([1, 2, 3]), 2)).tolist()
        [False, False, True]
        """,
        "greater_equal": """Elementwise `x1 >= x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.greater_equal(np.array([1, 2, 3]), 2)).tolist()
        [False, True, True]
        """,
        "histogram": """Counts (as floats) of 1-D `x` in `bins` equal bins over `range`, and the bin edges.

        Each bin holds values in `[left, right)`, except the last, which also holds its
        right edge.

        Args:
            x: 1-D input tensor.
            bins: Number of equal-width bins (default 10).
            range: `(lower, upper)` bounds of the bins. `None` (default) uses
                `(min(x), max(x))`. Values outside it are not counted.

        Returns:
            A tuple `(counts, edges)`: float counts of shape `(bins,)` and the
            `bins + 1` edges.

        Example:

        >>> counts, edges = ops.histogram(np.array([0.0, 0.5, 1.0, 2.0]), bins=2)
        >>> ops.convert_to_numpy(counts).tolist(), ops.convert_to_numpy(edges).tolist()
        ([2.0, 2.0], [0.0, 1.0, 2.0])
        """,
        "hypot": """Elementwise `sqrt(x1 ** 2 + x2 ** 2)`, without overflow.

        Args:
            x1: First leg of the right triangle.
            x2: Second leg, broadcastable with `x1`.

        Returns:
            The hypotenuse, a float tensor of the broadcast shape.

        Example:

        >>> x = ops.hypot(np.array([3.0, 5.0]), np.array([4.0, 12.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [ 5. 13.]
        """,
        "i0": """Modified Bessel function of the first kind, order 0.

        Args:
            x: Input tensor.

        Returns:
            `I0(x)`, a float tensor of the same shape.

        Example:

        >>> x = ops.i0(np.array([0.0, 1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.     1.2661 2.2796]
        """,
        "identity": """The `n` by `n` identity matrix.

        Args:
            n: Number of rows and columns.
            dtype: Dtype of the result. `None` means the default float dtype
                (`keras.config.floatx()`).

        Returns:
            A tensor of shape `(n, n)` with ones on the main diagonal.

        Example:

        >>> ops.convert_to_numpy(ops.identity(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
        """,
        "imag": """The imaginary part of `x` (zeros for real tensors).

        Args:
            x: Input tensor.

        Returns:
            A float tensor of the same shape (the float dtype matching a complex
            input's precision).

        Example:

        >>> ops.convert_to_numpy(ops.imag(np.array([1 + 2j, 3 - 1j]))).tolist()
        [2.0, -1.0]
        """,
        "isclose": """Elementwise `abs(x1 - x2) <= atol + rtol * abs(x2)`.

        Args:
            x1: First tensor.
            x2: Second tensor, broadcastable with `x1`.
            rtol: Relative tolerance (default `1e-5`), scaled by `abs(x2)`.
            atol: Absolute tolerance (default `1e-8`).
            equal_nan: If `True`, two NaNs count as close. Default `False`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> x = ops.isclose(np.array([1.0, 1.1, np.nan]), np.array([1.0 + 1e-9, 1.0, np.nan]))
        >>> ops.convert_to_numpy(x).tolist()
        [True, False, False]
        """,
        "isfinite": """Elementwise test for finite values (not NaN, not infinite).

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape (all true for integer input).

        Example:

        >>> ops.convert_to_numpy(ops.isfinite(np.array([1.0, np.inf, np.nan]))).tolist()
        [True, False, False]
        """,
        "isin": """Whether each element of `x1` is in `x2` (not in it, with `invert`).

        Args:
            x1: Tensor of values to look up.
            x2: Tensor of values to look in (any shape; it is flattened).
            assume_unique: Whether both inputs may be assumed to hold unique values;
                a speed hint only, the result is the same.
            invert: If `True`, answer whether each element is NOT in `x2`.

        Returns:
            A bool tensor of the shape of `x1`.

        Example:

        >>> ops.convert_to_numpy(ops.isin(np.array([1, 2, 3]), np.array([2, 5]))).tolist()
        [False, True, False]
        """,
        "isinf": """Elementwise test for positive or negative infinity.

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.isinf(np.array([np.inf, -np.inf, 1.0, np.nan]))).tolist()
        [True, True, False, False]
        """,
        "isnan": """Elementwise test for NaN.

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.isnan(np.array([np.nan, 1.0, np.inf]))).tolist()
        [True, False, False]
        """,
        "lcm": """Elementwise least common multiple of integers.

        Args:
            x1: First integer tensor.
            x2: Second integer tensor, broadcastable with `x1`.

        Returns:
            The non-negative least common multiple of `|x1|` and `|x2|` (0 where
            either is 0), in the promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.lcm(np.array([4, 6]), np.array([6, 8]))).tolist()
        [12, 24]
        """,
        "less": """Elementwise `x1 < x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.less(np.array([1, 2, 3]), 2)).tolist()
        [True, False, False]
        """,
        "less_equal": """Elementwise `x1 <= x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.less_equal(np.array([1, 2, 3]), 2)).tolist()
        [True, True, False]
        """,
        "linspace": """`num` evenly spaced values from `start` to `stop` (and the step if `retstep`).

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
        """,
        "log": """Elementwise natural logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log(np.array([1.0, np.e]))).round(4).tolist()
        [0.0, 1.0]
        """,
        "log10": """Elementwise base-10 logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log10(np.array([1.0, 100.0]))).tolist()
        [0.0, 2.0]
        """,
        "log1p": """Elementwise `log(1 + x)`, accurate near zero.

        Args:
            x: Input tensor, values `> -1`.

        Returns:
            A float tensor of the same shape; for tiny `x` it keeps the digits that
            `log(1 + x)` would lose.

        Example:

        >>> ops.convert_to_numpy(ops.log1p(np.array([0.0, np.e - 1]))).round(4).tolist()
        [0.0, 1.0]
        """,
        "log2": """Elementwise base-2 logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log2(np.array([1.0, 8.0]))).tolist()
        [0.0, 3.0]
        """,
        "logaddexp": """Elementwise `log(exp(x1) + exp(x2))`, computed stably.

        Large inputs do not overflow, as they would in the direct formula.

        Args:
            x1: First tensor.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A float tensor of the broadcast shape.

        Example:

        >>> x = ops.logaddexp(np.array([0.0, 100.0]), np.array([0.0, 100.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [  0.6931 100.6931]
        """,
        "logical_and": """Elementwise logical AND.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> x = ops.logical_and(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [True, False, False]
        """,
        "logical_not": """Elementwise logical NOT.

        Args:
            x: Input tensor; non-zero values count as true.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.logical_not(np.array([0, 1, 2]))).tolist()
        [True, False, False]
        """,
        "logical_or": """Elementwise logical OR.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> x = ops.logical_or(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [True, True, False]
        """,
        "logical_xor": """Elementwise logical XOR.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape: true where exactly one input is.

        Example:

        >>> x = ops.logical_xor(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [False, True, False]
        """,
    }
}
