"""The STFT initializer: convolution kernels whose outputs are a short-time Fourier transform.

A 1D convolution with kernel `k[t, 0, f] = w[t] * cos(-2 pi t f / n) / s` (the real side)
or `w[t] * sin(-2 pi t f / n) / s` (the imaginary side), stride the hop length, gives the
real and imaginary parts of the windowed DFT of each frame: `n = 2 * (bins - 1)` is the
FFT length, `w` the window and `s` its scaling (`sqrt(sum(w**2))` for `"density"`,
`sum(abs(w))` for `"spectrum"`). `STFTSpectrogram` builds its (trainable) kernels from it.

Windows are computed here in NumPy with SciPy's formulas (`scipy.signal.get_window`): the
symmetric form, or with `periodic=True` the DFT-even form (the symmetric window one sample
longer, its last sample dropped). Other SciPy window names work when SciPy is installed.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina.initializers.initializer import Initializer

# Generalized cosine windows: w[n] = sum_k (-1)^k a_k cos(2 pi k n / (M - 1)).
_COSINE = {
    "hann": (0.5, 0.5),
    "hamming": (0.54, 0.46),
    "blackman": (0.42, 0.5, 0.08),
}
_ALIASES = {
    "hanning": "hann",
    "han": "hann",
    "hamm": "hamming",
    "ham": "hamming",
    "black": "blackman",
    "blk": "blackman",
    "bart": "bartlett",
    "brt": "bartlett",
    "box": "boxcar",
    "ones": "boxcar",
    "rect": "boxcar",
    "rectangular": "boxcar",
    "tri": "triang",
    "triangle": "triang",
}
_BUILT_IN = (*_COSINE, "bartlett", "boxcar", "triang")


def _symmetric(name: str, length: int) -> np.ndarray:
    n = np.arange(length, dtype="float64")
    if name in _COSINE:
        phase = 2 * np.pi * n / (length - 1)
        return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(_COSINE[name]))
    if name == "bartlett":
        return 1.0 - np.abs(2.0 * n / (length - 1) - 1.0)
    if name == "triang":
        half = np.arange(1, (length + 1) // 2 + 1, dtype="float64")
        if length % 2 == 0:
            rising = (2 * half - 1.0) / length
            return np.concatenate([rising, rising[::-1]])
        rising = 2 * half / (length + 1.0)
        return np.concatenate([rising, rising[-2::-1]])
    return np.ones(length)


def get_window(window, length: int, periodic: bool = False) -> np.ndarray:
    """The values of a named window of `length` samples, as `scipy.signal.get_window`.

    Args:
        window: a name (`"hann"`, `"hamming"`, `"blackman"`, `"bartlett"`, `"triang"`,
            `"boxcar"`, their SciPy aliases, or any SciPy window when SciPy is installed).
        length: the number of samples.
        periodic: the DFT-even window (for spectral analysis) instead of the symmetric one.

    Returns:
        A float64 NumPy array of `length` values.

    >>> get_window("hann", 4).round(2).tolist()
    [0.0, 0.75, 0.75, 0.0]
    >>> get_window("hann", 4, periodic=True).round(2).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    name = _ALIASES.get(window, window) if isinstance(window, str) else window
    if name in _BUILT_IN:
        if length == 1:
            return np.ones(1)
        if periodic:
            return _symmetric(name, length + 1)[:-1]
        return _symmetric(name, length)
    try:
        from scipy import signal  # an optional extra: only for the less common windows
    except ImportError:
        raise ValueError(
            f"Unknown window {window!r}: lamina computes {sorted(_BUILT_IN)} itself; other "
            "SciPy windows need SciPy installed (`pip install scipy`). Or pass the window's "
            "values as an array."
        ) from None
    try:
        return np.asarray(signal.get_window(window, length, fftbins=periodic), dtype="float64")
    except ValueError as error:
        raise ValueError(f"Unknown window {window!r}: {error}") from None


def check_window(window, where: str) -> None:
    """Refuse an unknown window name at construction, naming `where` it was given."""
    if isinstance(window, (str, tuple)):
        try:
            get_window(window, 1)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None


def check_scaling(scaling, where: str) -> None:
    """Refuse a scaling other than None, `"density"` or `"spectrum"`."""
    if scaling is not None and scaling not in ("density", "spectrum"):
        raise ValueError(
            f"{where}: scaling must be None, 'density' or 'spectrum'; received scaling={scaling!r}."
        )


class STFT(Initializer):
    """Kernels of a convolution that computes a short-time Fourier transform.

    Use it for a `Conv1D`-style kernel of shape `(frame_length, channels, fft_length // 2
    + 1)`: convolving a signal with it (stride the hop) gives one side (real or imaginary)
    of the windowed STFT. `STFTSpectrogram` uses it for its trainable kernels.

    Args:
        side: `"real"` (cosine kernels) or `"imag"` (sine kernels).
        window: a window name (`"hann"`, `"hamming"`, `"blackman"`, `"bartlett"`,
            `"boxcar"`, ...), an array of `frame_length` values, or None (no window).
        scaling: `"density"` (divide by `sqrt(sum(window**2))`), `"spectrum"` (divide by
            `sum(abs(window))`) or None.
        periodic: use the periodic (DFT-even) window instead of the symmetric one.

    >>> kernel = STFT("real", window=None, scaling=None)((4, 1, 3))
    >>> ops.convert_to_numpy(kernel)[:, 0, 0].tolist()  # bin 0: the sum of the frame
    [1.0, 1.0, 1.0, 1.0]
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT initializer: side must be 'real' or 'imag'; received {side!r}.")
        if isinstance(window, dict) and window.get("class_name") == "__numpy__":
            # How Keras serializes an array window.
            window = np.asarray(window["config"]["value"], dtype=window["config"].get("dtype"))
        check_window(window, "STFT initializer")
        check_scaling(scaling, "STFT initializer")
        self.side = side
        self.window = window
        self.scaling = scaling
        self.periodic = periodic

    def __call__(self, shape, dtype=None):
        """The kernel of `shape` `(frame_length, channels, bins)`, one side of the DFT.

        `bins` is `fft_length // 2 + 1` (the non-redundant half of the spectrum); every
        channel gets the same kernel.
        """
        dtype = backend.standardize_dtype(dtype) if dtype is not None else backend.floatx()
        if len(shape) != 3:
            raise ValueError(
                f"STFT initializer: shape must be (frame_length, channels, bins); received "
                f"{tuple(shape)}."
            )
        frame_length, _, bins = (int(d) for d in shape)
        if bins < 2:
            raise ValueError(
                f"STFT initializer: the last dimension (FFT bins, fft_length // 2 + 1) must be "
                f"at least 2; received shape {tuple(shape)}."
            )
        time = np.arange(frame_length, dtype="float64")[:, None]
        frequency = np.arange(bins, dtype="float64")[None, :] / (2 * (bins - 1))
        angle = -2 * np.pi * time * frequency
        kernel = np.cos(angle) if self.side == "real" else np.sin(angle)
        if self.window is not None:
            if isinstance(self.window, (str, tuple)):
                window = get_window(self.window, frame_length, self.periodic)
            else:
                window = np.asarray(ops.convert_to_numpy(ops.convert_to_tensor(self.window)))
                window = window.astype("float64")
            if window.shape != (frame_length,):
                raise ValueError(
                    f"STFT initializer: the window must have shape ({frame_length},) "
                    f"(frame_length); received shape {window.shape}."
                )
            kernel = kernel * window[:, None]
            if self.scaling == "density":
                kernel = kernel / np.sqrt(np.sum(window**2))
            elif self.scaling == "spectrum":
                kernel = kernel / np.sum(np.abs(window))
        kernel = np.broadcast_to(kernel[:, None, :], tuple(int(d) for d in shape))
        work = "float64" if dtype == "float64" else "float32"
        return ops.cast(ops.convert_to_tensor(kernel.astype(work)), dtype)

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, (str, tuple, list)):
            window = np.asarray(ops.convert_to_numpy(ops.convert_to_tensor(window))).tolist()
        return {
            "side": self.side,
            "window": window,
            "periodic": self.periodic,
            "scaling": self.scaling,
        }


STFTInitializer = STFT
