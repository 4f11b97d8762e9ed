"""Fourier transforms, engine module `math`, on `(real, imag)` pairs of tensors.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    fft(x)
        Discrete Fourier transform along the last axis of `x = (real, imag)`.

        Complex numbers travel as pairs of float tensors, as in Keras.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., n)`: the transform
            `sum_k x[k] * exp(-2j * pi * f * k / n)` for each frequency `f`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.fft((np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4)))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([10.0, -2.0, -2.0, -2.0], [0.0, 2.0, 0.0, -2.0])

    fft2(x)
        2-D discrete Fourier transform over the last two axes of `x = (real, imag)`.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., m, n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., m, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.fft2((np.ones((2, 2)), np.zeros((2, 2))))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([[4.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])

    ifft2(x)
        Inverse 2-D discrete Fourier transform over the last two axes of `(real, imag)`.

        Divides by `m * n`, so `ifft2(fft2(x))` gives `x` back.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., m, n)`.

        Returns:
            A pair `(real, imag)` of float tensors of shape `(..., m, n)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real = np.array([[4.0, 0.0], [0.0, 0.0]])
        >>> real, imag = ops.ifft2((real, np.zeros((2, 2))))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])

    rfft(x, fft_length=None)
        Fourier transform of real `x` along its last axis (`fft_length // 2 + 1` frequencies).

        Only the non-negative frequencies are returned: the others are their complex
        conjugates for a real input.

        Args:
            x: Real float tensor, shape `(..., n)`.
            fft_length: The transform length; `x` is cropped or zero-padded to it.
                `None` (default) takes `n`.

        Returns:
            A pair `(real, imag)` of float tensors of shape
            `(..., fft_length // 2 + 1)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = ops.rfft(np.array([1.0, 2.0, 3.0, 4.0]))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])

    view_as_complex(x)
        Complex numbers from the pairs on the last axis (length 2) of real `x`.

        Args:
            x: Real float tensor of shape `(..., 2)`: real parts at `[..., 0]`,
                imaginary parts at `[..., 1]`.

        Returns:
            A complex tensor of shape `(...)` (`complex64` from `float32`, `complex128`
            from `float64`).

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> z = ops.view_as_complex(np.array([[1.0, 2.0], [3.0, -4.0]], "float32"))
        >>> ops.convert_to_numpy(z).tolist()
        [(1+2j), (3-4j)]

    view_as_real(x)
        Complex `x` as real pairs on a new last axis.

        Args:
            x: Complex tensor of shape `(...)`.

        Returns:
            A real float tensor of shape `(..., 2)`: real parts at `[..., 0]`, imaginary
            parts at `[..., 1]`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = ops.view_as_real(np.array([1 + 2j, 3 - 4j], "complex64"))
        >>> ops.convert_to_numpy(x).tolist()
        [[1.0, 2.0], [3.0, -4.0]]

    irfft(x, fft_length=None)
        The real signal whose `rfft` is `x = (real, imag)`.

        The inverse of `rfft`: the missing negative frequencies are taken as the complex
        conjugates of the given ones.

        Args:
            x: A pair `(real, imag)` of float tensors of one shape `(..., n)`: the
                non-negative frequencies.
            fft_length: The length of the output signal; `None` (default) takes
                `2 * (n - 1)`.

        Returns:
            A real float tensor of shape `(..., fft_length)`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> real, imag = np.array([10.0, -2.0, -2.0]), np.array([0.0, 2.0, 0.0])
        >>> ops.convert_to_numpy(ops.irfft((real, imag))).tolist()
        [1.0, 2.0, 3.0, 4.0]
    """
)
