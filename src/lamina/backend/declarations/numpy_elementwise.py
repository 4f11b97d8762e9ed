"""Elementwise functions of one tensor, engine module `numpy`: powers, logarithms, rounding.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    abs(x)
        Elementwise absolute value.

        Args:
            x: Input tensor. For a complex tensor the result is the magnitude.

        Returns:
            `|x|`, same shape as `x`; same dtype for real input, the matching float
            dtype for complex input.

        Example:

        >>> ops.convert_to_numpy(ops.abs(np.array([-1.5, 0.0, 2.0]))).tolist()
        [1.5, 0.0, 2.0]

    absolute(x)
        Elementwise absolute value (alias of `abs`).

        Args:
            x: Input tensor. For a complex tensor the result is the magnitude.

        Returns:
            `|x|`, same shape as `x`; same dtype for real input, the matching float
            dtype for complex input.

        Example:

        >>> ops.convert_to_numpy(ops.absolute(np.array([-3, 4]))).tolist()
        [3, 4]

    negative(x)
        Elementwise negation, `-x`.

        Args:
            x: Input tensor.

        Returns:
            A tensor of the shape and dtype of `x` with each element's sign
            flipped.

        Example:

        >>> ops.convert_to_numpy(ops.negative(np.array([1, -2], "int32"))).tolist()
        [-1, 2]

    sign(x)
        Elementwise sign: -1, 0 or 1.

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

    sqrt(x)
        Elementwise square root.

        Args:
            x: Input tensor.

        Returns:
            The square roots, as floats (integer input gives `float32`); negative
            elements give NaN.

        Example:

        >>> ops.convert_to_numpy(ops.sqrt(np.array([4, 9], "int32"))).tolist()
        [2.0, 3.0]

    square(x)
        Elementwise square, `x * x`.

        Args:
            x: Input tensor.

        Returns:
            The squares, in the dtype of `x` (booleans give `int32`).

        Example:

        >>> ops.convert_to_numpy(ops.square(np.array([-2, 3], "int32"))).tolist()
        [4, 9]

    exp(x)
        Elementwise exponential.

        Args:
            x: Input tensor; integers are computed in the float dtype.

        Returns:
            `e ** x`, a float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.exp(np.array([0.0, np.log(2.0)]))).round(4).tolist()
        [1.0, 2.0]

    expm1(x)
        Elementwise `exp(x) - 1`, accurate near zero.

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

    log(x)
        Elementwise natural logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log(np.array([1.0, np.e]))).round(4).tolist()
        [0.0, 1.0]

    log1p(x)
        Elementwise `log(1 + x)`, accurate near zero.

        Args:
            x: Input tensor, values `> -1`.

        Returns:
            A float tensor of the same shape; for tiny `x` it keeps the digits that
            `log(1 + x)` would lose.

        Example:

        >>> ops.convert_to_numpy(ops.log1p(np.array([0.0, np.e - 1]))).round(4).tolist()
        [0.0, 1.0]

    log2(x)
        Elementwise base-2 logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log2(np.array([1.0, 8.0]))).tolist()
        [0.0, 3.0]

    log10(x)
        Elementwise base-10 logarithm.

        Args:
            x: Input tensor, positive values (0 gives `-inf`, negatives NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.log10(np.array([1.0, 100.0]))).tolist()
        [0.0, 2.0]

    floor(x)
        Elementwise floor.

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

    ceil(x)
        Elementwise ceiling.

        Args:
            x: Input tensor.

        Returns:
            The smallest integer value `>= x` for each element, in the dtype of `x`
            for float input; integer and bool input give floats (`"float32"` by
            default), as in Keras.

        Example:

        >>> ops.convert_to_numpy(ops.ceil(np.array([1.2, -1.5, 2.0]))).tolist()
        [2.0, -1.0, 2.0]

    round(x, decimals=0)
        Elementwise rounding to `decimals` decimals (halves to even).

        Args:
            x: Input tensor.
            decimals: Number of decimal places to keep. Defaults to `0`. Negative
                values round to tens, hundreds, ...; integer tensors are rounded
                exactly there, in their own dtype.

        Returns:
            A tensor of the shape and dtype of `x`. Values exactly halfway round
            to the nearest even number, as in NumPy.

        Example:

        >>> ops.convert_to_numpy(ops.round(np.array([0.5, 1.5, 2.5, -1.7]))).tolist()
        [0.0, 2.0, 2.0, -2.0]
        >>> ops.convert_to_numpy(ops.round(np.array([1.234, -0.567]), 2))
        array([ 1.23, -0.57], dtype=float32)
        >>> ops.convert_to_numpy(ops.round(np.array([15, 25, 149], "int32"), -1)).tolist()
        [20, 20, 150]

    reciprocal(x)
        Elementwise `1 / x`.

        Args:
            x: Input tensor.

        Returns:
            The reciprocals, as floats (integer input gives `float32`); `1 / 0` is
            infinity.

        Example:

        >>> ops.convert_to_numpy(ops.reciprocal(np.array([2.0, 4.0, 0.5]))).tolist()
        [0.5, 0.25, 2.0]

    nan_to_num(x, nan=0.0, posinf=None, neginf=None)
        `x` with NaN and infinities replaced by finite numbers.

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

    i0(x)
        Modified Bessel function of the first kind, order 0.

        Args:
            x: Input tensor.

        Returns:
            `I0(x)`, a float tensor of the same shape.

        Example:

        >>> x = ops.i0(np.array([0.0, 1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.     1.2661 2.2796]

    signbit(x)
        Whether the sign bit is set (True for -0.0 and negative numbers).

        Args:
            x: Input tensor.

        Returns:
            A boolean tensor of the shape of `x`, `True` where the element is
            negative, including `-0.0`.

        Example:

        >>> x = np.array([-1.0, -0.0, 0.0, 2.0])
        >>> ops.convert_to_numpy(ops.signbit(x)).tolist()
        [True, True, False, False]

    trunc(x)
        Elementwise rounding toward zero.

        Args:
            x: Input tensor.

        Returns:
            A tensor of the shape and dtype of `x` holding the integer part of
            each element (integer tensors come back unchanged).

        Example:

        >>> ops.convert_to_numpy(ops.trunc(np.array([-1.7, -0.2, 1.7]))).tolist()
        [-1.0, -0.0, 1.0]

    vectorize(pyfunc, excluded=None, signature=None)
        `pyfunc` made to apply elementwise (or over core dimensions) with broadcasting.
    """
)
