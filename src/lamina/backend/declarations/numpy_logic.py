"""Comparisons, logic and tests, engine module `numpy`: `==`, `<`, `and`, `isnan`, `where`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    logical_not(x)
        Elementwise logical NOT.

        Args:
            x: Input tensor; non-zero values count as true.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.logical_not(np.array([0, 1, 2]))).tolist()
        [True, False, False]

    isnan(x)
        Elementwise test for NaN.

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.isnan(np.array([np.nan, 1.0, np.inf]))).tolist()
        [True, False, False]

    isinf(x)
        Elementwise test for positive or negative infinity.

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.isinf(np.array([np.inf, -np.inf, 1.0, np.nan]))).tolist()
        [True, True, False, False]

    isfinite(x)
        Elementwise test for finite values (not NaN, not infinite).

        Args:
            x: Input tensor.

        Returns:
            A bool tensor of the same shape (all true for integer input).

        Example:

        >>> ops.convert_to_numpy(ops.isfinite(np.array([1.0, np.inf, np.nan]))).tolist()
        [True, False, False]

    equal(x1, x2)
        Elementwise `x1 == x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.equal(np.array([1, 2, 3]), 2)).tolist()
        [False, True, False]

    not_equal(x1, x2)
        Elementwise `x1 != x2`, broadcast.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar); broadcasts against `x1`.

        Returns:
            A boolean tensor, `True` where the elements differ (NaN differs from
            everything, itself included).

        Example:

        >>> ops.convert_to_numpy(ops.not_equal(np.array([1, 2, 3]), 2)).tolist()
        [True, False, True]

    less(x1, x2)
        Elementwise `x1 < x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.less(np.array([1, 2, 3]), 2)).tolist()
        [True, False, False]

    less_equal(x1, x2)
        Elementwise `x1 <= x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.less_equal(np.array([1, 2, 3]), 2)).tolist()
        [True, True, False]

    greater(x1, x2)
        Elementwise `x1 > x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.greater(np.array([1, 2, 3]), 2)).tolist()
        [False, False, True]

    greater_equal(x1, x2)
        Elementwise `x1 >= x2`.

        Args:
            x1: First tensor (or Python scalar).
            x2: Second tensor (or Python scalar), broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> ops.convert_to_numpy(ops.greater_equal(np.array([1, 2, 3]), 2)).tolist()
        [False, True, True]

    logical_and(x1, x2)
        Elementwise logical AND.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> x = ops.logical_and(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [True, False, False]

    logical_or(x1, x2)
        Elementwise logical OR.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape.

        Example:

        >>> x = ops.logical_or(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [True, True, False]

    logical_xor(x1, x2)
        Elementwise logical XOR.

        Args:
            x1: First tensor; non-zero values count as true.
            x2: Second tensor, broadcastable with `x1`.

        Returns:
            A bool tensor of the broadcast shape: true where exactly one input is.

        Example:

        >>> x = ops.logical_xor(np.array([True, True, False]), np.array([True, False, False]))
        >>> ops.convert_to_numpy(x).tolist()
        [False, True, False]

    isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False)
        Elementwise `abs(x1 - x2) <= atol + rtol * abs(x2)`.

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

    where(condition, x1=None, x2=None)
        `x1` where `condition` holds, else `x2`.

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

    isin(x1, x2, assume_unique=False, invert=False)
        Whether each element of `x1` is in `x2` (not in it, with `invert`).

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
    """
)
