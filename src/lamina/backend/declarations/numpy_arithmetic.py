"""Elementwise arithmetic of two tensors, engine module `numpy`: `+ - * /`, powers, extremes.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    add(x1, x2)
        Elementwise `x1 + x2`, broadcast.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The sum, in the broadcast shape and the promoted dtype of the inputs.

        Example:

        >>> ops.convert_to_numpy(ops.add(np.array([1, 2, 3]), 10)).tolist()
        [11, 12, 13]

    subtract(x1, x2)
        Elementwise `x1 - x2`, broadcast.

        Args:
            x1: Tensor (or Python scalar) to subtract from.
            x2: Tensor (or Python scalar) to subtract; broadcasts against `x1`.

        Returns:
            The differences, in the promoted dtype of `x1` and `x2`.

        Example:

        >>> ops.convert_to_numpy(ops.subtract(np.array([5, 3], "int32"), 1)).tolist()
        [4, 2]

    multiply(x1, x2)
        Elementwise `x1 * x2`, broadcast.

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

    divide(x1, x2)
        Elementwise true division `x1 / x2`, broadcast.

        Integer inputs give a float result; division by zero gives `inf` or NaN.

        Args:
            x1: Numerator tensor (or Python scalar).
            x2: Denominator tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The quotient, a float tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.divide(np.array([1, 3]), np.array([2, 4]))).tolist()
        [0.5, 0.75]

    true_divide(x1, x2)
        Elementwise true division `x1 / x2` (alias of `divide`).

        Args:
            x1: Dividend tensor (or Python scalar).
            x2: Divisor tensor (or Python scalar); broadcasts against `x1`.

        Returns:
            The quotients, as floats: integer inputs give `float32`. Division by
            zero gives infinity (NaN for `0 / 0`).

        Example:

        >>> ops.convert_to_numpy(ops.true_divide(np.array([1, 3], "int32"), 2)).tolist()
        [0.5, 1.5]

    floor_divide(x1, x2)
        Elementwise `x1 // x2`.

        The quotient rounded towards negative infinity, as in Python.

        Args:
            x1: Numerator tensor (or Python scalar).
            x2: Denominator tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            The floored quotient, in the promoted dtype of the inputs.

        Example:

        >>> ops.convert_to_numpy(ops.floor_divide(np.array([7, -7]), 2)).tolist()
        [3, -4]

    mod(x1, x2)
        Elementwise remainder of `x1 / x2`, with the sign of `x2`.

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

    power(x1, x2)
        Elementwise `x1 ** x2`, broadcast.

        Args:
            x1: Bases (tensor or Python scalar).
            x2: Exponents (tensor or Python scalar); broadcasts against `x1`.

        Returns:
            The powers, in the promoted dtype of `x1` and `x2`. Raise integers
            only to non-negative integer powers: a negative one is an error on the
            JAX engine and gives 0 on the torch engine.

        Example:

        >>> ops.convert_to_numpy(ops.power(np.array([2, 3], "int32"), 2)).tolist()
        [4, 9]
        >>> ops.convert_to_numpy(ops.power(np.array([4.0, 9.0]), 0.5)).tolist()
        [2.0, 3.0]

    maximum(x1, x2)
        Elementwise maximum of two tensors, broadcast.

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

    minimum(x1, x2)
        Elementwise minimum of two tensors, broadcast.

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

    logaddexp(x1, x2)
        Elementwise `log(exp(x1) + exp(x2))`, computed stably.

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

    clip(x, x_min, x_max)
        `x` limited to `[x_min, x_max]`.

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

    fmod(x1, x2)
        Elementwise remainder of `x1 / x2` with the sign of `x1` (C's `fmod`).

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

    nextafter(x1, x2)
        The next representable float after `x1` toward `x2`, elementwise.

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
    """
)
