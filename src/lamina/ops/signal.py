"""Signal ops written once from other ops: framing, STFT and its inverse, distances.

`extract_sequences` frames a signal; `stft` is the `rfft` of windowed frames and `istft`
the windowed overlap-add of their `irfft`s, normalized by the summed squared window, as
`keras.ops.stft`/`istft` compute them. Complex values travel as `(real, imag)` pairs.

>>> import numpy as np
>>> from lamina import ops
>>> ops.extract_sequences(np.arange(6.0), 4, 2).shape
(2, 4)
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape

_rfft = declared_op("math", "rfft")
_irfft = declared_op("math", "irfft")
_segment_sum = declared_op("math", "segment_sum")


@composite
def extract_sequences(x, sequence_length, sequence_stride):
    """Split the last axis of `x` into frames of `sequence_length`, one every `sequence_stride`.

    Frames may overlap (`sequence_stride < sequence_length`) or leave gaps; a partial
    frame at the end is dropped. An input of shape `(..., length)` gives
    `(..., 1 + (length - sequence_length) // sequence_stride, sequence_length)`.

    Args:
        x: Input tensor; framing is along its last axis.
        sequence_length: Number of samples in each frame, an int.
        sequence_stride: Number of samples between the starts of consecutive frames, an
            int.

    Returns:
        The frames, in the dtype of `x`.

    Example:

    >>> from lamina import ops
    >>> frames = ops.extract_sequences(np.arange(7.0), 3, 2)
    >>> ops.convert_to_numpy(frames).tolist()
    [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [4.0, 5.0, 6.0]]
    """
    x = convert_to_tensor(x)
    length = shape(x)[-1]
    if sequence_length > length:
        raise ValueError(
            f"extract_sequences: sequence_length={sequence_length} is longer than the "
            f"signal's last axis ({length})."
        )
    count = 1 + (length - sequence_length) // sequence_stride
    index = np.arange(count)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]
    return lnp.take(x, index.astype("int32"), axis=-1)


def _window(window, sequence_length, fft_length, dtype_, op):
    if fft_length < sequence_length:
        raise ValueError(
            f"{op}: fft_length ({fft_length}) must be at least sequence_length ({sequence_length})."
        )
    if window is None:
        # As in Keras: no window means ones over the whole FFT frame.
        return cast(np.ones(fft_length, dtype_), dtype_)
    if isinstance(window, str):
        n = np.arange(sequence_length)
        # Periodic windows (the DFT-even form `scipy.signal.get_window` gives).
        cosine = np.cos(2 * np.pi * n / sequence_length)
        if window == "hann":
            values = 0.5 - 0.5 * cosine
        elif window == "hamming":
            values = 0.54 - 0.46 * cosine
        else:
            raise ValueError(
                f'{op}: window must be "hann", "hamming", a tensor or None; received {window!r}.'
            )
    else:
        values = None
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    if values is not None:
        return cast(np.pad(values, (left, right)).astype(dtype_), dtype_)
    win = cast(convert_to_tensor(window), dtype_)
    if shape(win) != (sequence_length,):
        raise ValueError(
            f"{op}: the window must have shape ({sequence_length},), received {shape(win)}."
        )
    return lnp.pad(win, [(left, right)])


@composite
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform along the last axis of `x`.

    The signal is cut into frames of `sequence_length` every `sequence_stride` samples,
    each frame is multiplied by `window` (zero-padded to `fft_length`, centred) and
    transformed with a real FFT of size `fft_length`, giving how the frequency content of
    the signal changes over time. As in Keras, the complex result comes as a pair of real
    tensors.

    Args:
        x: Real float32 or float64 signal, shape `(..., length)`.
        sequence_length: Number of samples in each frame, an int.
        sequence_stride: Hop between the starts of consecutive frames, an int.
        fft_length: Size of the FFT, an int at least `sequence_length`.
        window: `"hann"` or `"hamming"` (periodic windows of `sequence_length` points), a
            1-D tensor of `sequence_length` values, or `None` for no windowing.
        center: If `True`, `x` is first padded by reflection with `fft_length // 2`
            samples at each end, so that frame `t` is centred at sample
            `t * sequence_stride`; otherwise frame `t` starts there.

    Returns:
        A tuple `(real, imag)` of tensors of shape `(..., frames, fft_length // 2 + 1)`.

    Example:

    >>> from lamina import ops
    >>> real, imag = ops.stft(np.zeros(16, "float32"), 8, 4, 16)
    >>> ops.convert_to_numpy(real).shape, ops.convert_to_numpy(imag).shape
    ((5, 9), (5, 9))
    """
    x = convert_to_tensor(x)
    if dtype(x) not in ("float32", "float64"):
        raise TypeError(f"stft: expected float32 or float64 input, received {dtype(x)}.")
    win = _window(window, sequence_length, fft_length, dtype(x), "stft")
    if center:
        pads = [(0, 0)] * (len(shape(x)) - 1) + [(fft_length // 2, fft_length // 2)]
        x = lnp.pad(x, pads, mode="reflect")
    frames = extract_sequences(x, fft_length, sequence_stride)
    return _rfft(frames * win, fft_length=fft_length)


def _overlap_add(frames, stride):
    """Frames `(..., count, size)` summed into one signal, frame i starting at i * stride."""
    count, size = shape(frames)[-2:]
    batch = shape(frames)[:-2]
    total = size + stride * (count - 1)
    ids = (np.arange(count)[:, None] * stride + np.arange(size)[None, :]).reshape(-1)
    rows = lnp.reshape(frames, (*batch, count * size))
    rows = lnp.moveaxis(rows, -1, 0)
    summed = _segment_sum(rows, ids.astype("int32"), num_segments=total)
    return lnp.moveaxis(summed, 0, -1)


@composite
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """Inverse short-time Fourier transform along the last axis: the signal back from `stft`.

    Each frame is brought back with an inverse real FFT, multiplied by the window, and the
    frames are overlap-added and divided by the overlap-added squared window. With the
    arguments given to `stft` this recovers the signal (away from edges the window does
    not cover).

    Args:
        x: Tuple `(real, imag)` of float tensors of shape
            `(..., frames, fft_length // 2 + 1)`, as `stft` returns.
        sequence_length: Number of samples in each frame, an int.
        sequence_stride: Hop between the starts of consecutive frames, an int.
        fft_length: Size of the FFT, an int at least `sequence_length`.
        length: Number of samples of the output: it is trimmed or zero-padded to it;
            `None` keeps the whole overlap-added signal (without the centring padding).
        window: `"hann"`, `"hamming"`, a 1-D tensor of `sequence_length` values, or
            `None`; use the window given to `stft`.
        center: Whether `stft` was called with `center=True`; if so, the
            `fft_length // 2` padded samples are removed from the start.

    Returns:
        The real signal, shape `(..., length)`.

    Example:

    >>> from lamina import ops
    >>> signal = np.sin(np.arange(16.0)).astype("float32")
    >>> spectrum = ops.stft(signal, 8, 4, 8)
    >>> restored = ops.istft(spectrum, 8, 4, 8, length=16)
    >>> bool(np.allclose(ops.convert_to_numpy(restored), signal, atol=1e-5))
    True
    """
    real = convert_to_tensor(x[0])
    frames = _irfft(x, fft_length=fft_length)
    count = shape(frames)[-2]
    win = _window(window, sequence_length, fft_length, dtype(real), "istft")
    signal = _overlap_add(frames * win, sequence_stride)
    norm = _overlap_add(lnp.broadcast_to(win * win, (count, fft_length)), sequence_stride)
    signal = signal / lnp.where(lnp.greater(norm, 1e-10), norm, 1.0)
    if window is None:
        # Keras's scaling without a window: the overlap-add times fft_length / stride.
        signal = signal * (fft_length / sequence_stride)
    start = fft_length // 2 if center else 0
    total = shape(signal)[-1]
    if length is not None:
        end = start + length
    elif center:
        end = total - fft_length // 2
    else:
        end = total
    if end > total:
        signal = lnp.pad(signal, [(0, 0)] * (len(shape(signal)) - 1) + [(0, end - total)])
    return signal[..., start:end]


@composite
def cdist(x, y):
    """Euclidean distances between each pair of rows of `x` and `y`.

    Leading axes are batch axes and broadcast.

    Args:
        x: Tensor of shape `(..., m, d)`: `m` points of dimension `d`.
        y: Tensor of shape `(..., n, d)`: `n` points of dimension `d`.

    Returns:
        A float tensor of shape `(..., m, n)`; entry `[i, j]` is the distance from
        `x[i]` to `y[j]`.

    Example:

    >>> from lamina import ops
    >>> x = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> y = np.array([[3.0, 4.0], [1.0, 1.0]])
    >>> ops.convert_to_numpy(ops.cdist(x, y)).tolist()
    [[5.0, ...], [..., 0.0]]
    """
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    compute = backend.result_type(dtype(x), dtype(y), float)
    x, y = cast(x, compute), cast(y, compute)
    diff = lnp.expand_dims(x, -2) - lnp.expand_dims(y, -3)
    return lnp.sqrt(lnp.sum(lnp.square(diff), axis=-1))


__all__ = ["cdist", "extract_sequences", "istft", "stft"]
