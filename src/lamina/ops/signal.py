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
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, dtype, shape

_rfft = declared_op("math", "rfft")
_irfft = declared_op("math", "irfft")
_segment_sum = declared_op("math", "segment_sum")


@composite
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of `sequence_length` along the last axis of `x`, every `sequence_stride`.

    `(..., length)` gives `(..., 1 + (length - sequence_length) // sequence_stride,
    sequence_length)`.
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
    """Short-time Fourier transform along the last axis: `(real, imag)` of shape
    `(..., frames, fft_length // 2 + 1)`.

    With `center`, the signal is first reflect-padded by `fft_length // 2` on each side.
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
    """Inverse of `stft`: the signal from `(real, imag)` frames by windowed overlap-add.

    `length` trims (or the centring padding is removed when `center`).
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
    """Euclidean distances between the rows of `x` `(..., m, d)` and of `y` `(..., n, d)`."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    compute = backend.result_type(dtype(x), dtype(y), float)
    x, y = cast(x, compute), cast(y, compute)
    diff = lnp.expand_dims(x, -2) - lnp.expand_dims(y, -3)
    return lnp.sqrt(lnp.sum(lnp.square(diff), axis=-1))


__all__ = ["cdist", "extract_sequences", "istft", "stft"]
