"""Trigonometric and hyperbolic functions, engine module `numpy`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    sin(x)
        Elementwise sine (of angles in radians).

        Args:
            x: Input tensor.

        Returns:
            The sines, as floats (integer input gives `float32`).

        Example:

        >>> y = ops.sin(np.array([0.0, np.pi / 6, np.pi / 2]))
        >>> np.round(ops.convert_to_numpy(y), 4)
        array([0. , 0.5, 1. ], dtype=float32)

    cos(x)
        Elementwise cosine.

        Args:
            x: Input tensor, angles in radians.

        Returns:
            A float tensor of the same shape.

        Example:

        >>> ops.convert_to_numpy(ops.cos(np.array([0.0, np.pi]))).tolist()
        [1.0, -1.0]

    tan(x)
        Elementwise tangent (of angles in radians).

        Args:
            x: Input tensor.

        Returns:
            The tangents, as floats (integer input gives `float32`).

        Example:

        >>> y = ops.tan(np.array([0.0, np.pi / 4]))
        >>> np.round(ops.convert_to_numpy(y), 4)
        array([0., 1.], dtype=float32)

    arcsin(x)
        Elementwise inverse sine.

        Args:
            x: Input tensor, values in `[-1, 1]` (others give NaN).

        Returns:
            The angle in radians, in `[-pi/2, pi/2]`, as a float tensor.

        Example:

        >>> x = ops.arcsin(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     1.5708]

    arccos(x)
        Elementwise inverse cosine.

        Args:
            x: Input tensor, values in `[-1, 1]` (others give NaN).

        Returns:
            The angle in radians, in `[0, pi]`, as a float tensor.

        Example:

        >>> x = ops.arccos(np.array([1.0, 0.0, -1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     1.5708 3.1416]

    arctan(x)
        Elementwise inverse tangent.

        Args:
            x: Input tensor.

        Returns:
            The angle in radians, in `(-pi/2, pi/2)`, as a float tensor.

        Example:

        >>> x = ops.arctan(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.7854]

    sinh(x)
        Elementwise hyperbolic sine.

        Args:
            x: Input tensor.

        Returns:
            `(exp(x) - exp(-x)) / 2`, as floats (integer input gives `float32`).

        Example:

        >>> y = ops.sinh(np.array([-1.0, 0.0, 1.0]))
        >>> np.round(ops.convert_to_numpy(y), 4)
        array([-1.1752,  0.    ,  1.1752], dtype=float32)

    cosh(x)
        Elementwise hyperbolic cosine.

        Args:
            x: Input tensor.

        Returns:
            `(exp(x) + exp(-x)) / 2`, a float tensor of the same shape.

        Example:

        >>> x = ops.cosh(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.     1.5431]

    tanh(x)
        Elementwise hyperbolic tangent.

        Args:
            x: Input tensor.

        Returns:
            The hyperbolic tangents, in `(-1, 1)`, as floats (integer input gives
            `float32`).

        Example:

        >>> y = ops.tanh(np.array([-1.0, 0.0, 1.0]))
        >>> np.round(ops.convert_to_numpy(y), 4)
        array([-0.7616,  0.    ,  0.7616], dtype=float32)

    arcsinh(x)
        Elementwise inverse hyperbolic sine.

        Args:
            x: Input tensor.

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arcsinh(np.array([0.0, 1.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.8814]

    arccosh(x)
        Elementwise inverse hyperbolic cosine.

        Args:
            x: Input tensor, values `>= 1` (others give NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arccosh(np.array([1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.    1.317]

    arctanh(x)
        Elementwise inverse hyperbolic tangent.

        Args:
            x: Input tensor, values in `(-1, 1)` (`+-1` give infinities, others NaN).

        Returns:
            A float tensor of the same shape.

        Example:

        >>> x = ops.arctanh(np.array([0.0, 0.5]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [0.     0.5493]

    arctan2(x1, x2)
        Elementwise angle of the point `(x2, x1)`.

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

    hypot(x1, x2)
        Elementwise `sqrt(x1 ** 2 + x2 ** 2)`, without overflow.

        Args:
            x1: First leg of the right triangle.
            x2: Second leg, broadcastable with `x1`.

        Returns:
            The hypotenuse, a float tensor of the broadcast shape.

        Example:

        >>> x = ops.hypot(np.array([3.0, 5.0]), np.array([4.0, 12.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [ 5. 13.]
    """
)
