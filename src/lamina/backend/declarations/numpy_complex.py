"""Complex numbers, engine module `numpy`: real and imaginary parts, conjugate, angle.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    real(x)
        The real part of `x`, elementwise.

        Args:
            x: Input tensor, complex or real.

        Returns:
            For complex `x`, the real parts in the matching float dtype
            (`complex64` gives `float32`); a real `x` comes back unchanged.

        Example:

        >>> x = np.array([1 + 2j, 3 - 1j], "complex64")
        >>> ops.convert_to_numpy(ops.real(x)).tolist()
        [1.0, 3.0]

    imag(x)
        The imaginary part of `x` (zeros for real tensors).

        Args:
            x: Input tensor.

        Returns:
            A float tensor of the same shape (the float dtype matching a complex
            input's precision).

        Example:

        >>> ops.convert_to_numpy(ops.imag(np.array([1 + 2j, 3 - 1j]))).tolist()
        [2.0, -1.0]

    conj(x)
        The complex conjugate of `x`.

        Args:
            x: Input tensor; a real tensor is returned unchanged.

        Returns:
            A tensor with the sign of each imaginary part flipped, same shape as `x`.

        Example:

        >>> ops.convert_to_numpy(ops.conj(np.array([1 + 2j, 3 - 1j]))).tolist()
        [(1-2j), (3+1j)]

    angle(x)
        The argument (phase angle) of each complex element; 0 or pi for reals.

        Args:
            x: Input tensor, complex or real.

        Returns:
            The angle in radians, in `(-pi, pi]`, as a float tensor of the same shape.

        Example:

        >>> x = ops.angle(np.array([1j, -1.0, 2.0]))
        >>> print(np.round(ops.convert_to_numpy(x), 4))
        [1.5708 3.1416 0.    ]
    """
)
