"""Bitwise and integer functions, engine module `numpy`: bit operations, `gcd`, `view`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    bitwise_and(x, y)
        Elementwise bitwise AND of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x & y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_and(np.array([12, 10]), np.array([10, 6]))).tolist()
        [8, 2]

    bitwise_or(x, y)
        Elementwise bitwise OR of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x | y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_or(np.array([12, 10]), np.array([10, 6]))).tolist()
        [14, 14]

    bitwise_xor(x, y)
        Elementwise bitwise XOR of integer (or bool) tensors.

        Args:
            x: First integer or bool tensor.
            y: Second integer or bool tensor, broadcastable with `x`.

        Returns:
            `x ^ y`, in the promoted dtype.

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_xor(np.array([12, 10]), np.array([10, 6]))).tolist()
        [6, 12]

    bitwise_invert(x)
        Elementwise bitwise NOT (logical NOT for bool).

        Args:
            x: Integer or bool tensor.

        Returns:
            `~x`, same dtype as `x` (for signed integers, `-x - 1`).

        Example:

        >>> ops.convert_to_numpy(ops.bitwise_invert(np.array([0, 5], "int32"))).tolist()
        [-1, -6]
        >>> ops.convert_to_numpy(ops.bitwise_invert(np.array([True, False]))).tolist()
        [False, True]

    bitwise_left_shift(x, y)
        Elementwise `x << y`.

        Args:
            x: Integer tensor to shift.
            y: Number of bits to shift by (non-negative), broadcastable with `x`.

        Returns:
            `x` shifted left by `y` bits, in the promoted integer dtype.

        Example:

        >>> x = ops.bitwise_left_shift(np.array([1, 3]), np.array([2, 1]))
        >>> ops.convert_to_numpy(x).tolist()
        [4, 6]

    bitwise_right_shift(x, y)
        Elementwise `x >> y`.

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

    gcd(x1, x2)
        Elementwise greatest common divisor of integers.

        Args:
            x1: First integer tensor.
            x2: Second integer tensor, broadcastable with `x1`.

        Returns:
            The non-negative greatest common divisor of `|x1|` and `|x2|` (0 where
            both are 0), in the promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.gcd(np.array([12, 18]), np.array([8, 12]))).tolist()
        [4, 6]

    lcm(x1, x2)
        Elementwise least common multiple of integers.

        Args:
            x1: First integer tensor.
            x2: Second integer tensor, broadcastable with `x1`.

        Returns:
            The non-negative least common multiple of `|x1|` and `|x2|` (0 where
            either is 0), in the promoted integer dtype.

        Example:

        >>> ops.convert_to_numpy(ops.lcm(np.array([4, 6]), np.array([6, 8]))).tolist()
        [12, 24]

    view(x, dtype=None)
        The bits of `x` reinterpreted as `dtype`.

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
    """
)
