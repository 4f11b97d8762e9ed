"""Spectrogram layers: `STFTSpectrogram` (trainable STFT kernels) and `MelSpectrogram`.

`STFTSpectrogram` computes the short-time Fourier transform as a strided 1D convolution
whose kernels start as the windowed DFT (the `STFT` initializer): the layer gives exactly
the STFT at first and can then be fine-tuned. `MelSpectrogram` is the fixed preprocessing
pipeline: `ops.stft`, magnitude to a power, the HTK mel filterbank (triangles with peak 1
spaced evenly on `mel(f) = 1127 ln(1 + f / 700)`, DC bin excluded, as Keras builds it),
and optionally decibels clipped to `top_db` below the peak.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from lamina import backend, initializers, ops
from lamina.common import serialization
from lamina.initializers.stft import check_scaling, check_window
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")
_FLOATS = ("float16", "float32", "float64")


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _window_argument(window):
    """A window as given, or the values of a window Keras serialized as an array."""
    if isinstance(window, dict) and window.get("class_name") == "__numpy__":
        return list(window["config"]["value"])
    return window


def _plain_window(window):
    """A window as a config value: names stay, arrays become lists."""
    if window is None or isinstance(window, (str, list, tuple)):
        return window
    return np.asarray(ops.convert_to_numpy(ops.convert_to_tensor(window))).tolist()


def _conv_length(length, frame_length, step, padding):
    if length is None:
        return None
    if padding == "same":
        return -(-length // step)
    return (length - frame_length) // step + 1 if length >= frame_length else 0


@_register
class STFTSpectrogram(Layer):
    """Spectrogram of 1D signals by a short-time Fourier transform with trainable kernels.

    Each channel of the input is cut into frames of `frame_length` every `frame_step`
    samples; each frame's windowed DFT is computed by a convolution with kernels from the
    `STFT` initializer (`fft_length // 2 + 1` frequency bins). With `trainable=True` (the
    default) the kernels are weights that training can adjust; `trainable=False` makes it
    a fixed preprocessing step.

    Args:
        mode: what to output per bin: `"log"` (log magnitude, the default),
            `"magnitude"`, `"psd"` (power spectral density: the power, interior bins
            doubled), `"real"`, `"imag"`, `"angle"` (phase), or `"stft"` (real parts then
            imaginary parts, `2 * bins` values).
        frame_length: samples per frame (the window length).
        frame_step: hop between frames (default `frame_length // 2`).
        fft_length: FFT size, at least `frame_length` (default: the smallest power of two
            that is not less than `frame_length`).
        window: `"hann"`, `"hamming"` (or another window name), an array of
            `frame_length` values, or None.
        periodic: use the periodic window instead of the symmetric one.
        scaling: `"density"` (default), `"spectrum"` or None: how the window is
            normalized (see `initializers.STFT`).
        padding: `"valid"` (frames inside the signal) or `"same"` (zero-padded so there
            are `ceil(time / frame_step)` frames).
        expand_dims: output the spectrogram of each channel on its own axis (an image
            `(time, bins, channels)`) instead of concatenating channels' bins.
        data_format: `"channels_last"` (inputs `(batch, time, channels)`) or
            `"channels_first"` (`(batch, channels, time)`); default from the config.

    Input shape: `(batch, time, channels)` (channels_last) or `(batch, channels, time)`.

    Output shape: channels_last `(batch, frames, channels * bins)`, or with
    `expand_dims` `(batch, frames, bins, channels)`; channels_first `(batch, channels *
    bins, frames)`, or with `expand_dims` `(batch, channels, frames, bins)`.

    >>> import numpy as np
    >>> layer = STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4)
    >>> layer(np.zeros((2, 32, 1), "float32")).shape
    (2, 7, 5)
    """

    def __init__(
        self,
        mode="log",
        frame_length=256,
        frame_step=None,
        fft_length=None,
        window="hann",
        periodic=False,
        scaling="density",
        padding="valid",
        expand_dims=False,
        data_format=None,
        **kwargs,
    ):
        where = "STFTSpectrogram"
        window = _window_argument(window)
        if not isinstance(frame_length, int) or frame_length < 1:
            raise ValueError(
                f"{where}: frame_length must be a positive integer; received {frame_length!r}."
            )
        if frame_step is not None and not 1 <= frame_step <= frame_length:
            raise ValueError(
                f"{where}: frame_step must be a positive integer not greater than frame_length "
                f"({frame_length}); received frame_step={frame_step!r}."
            )
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(
                f"{where}: fft_length must be at least frame_length ({frame_length}); "
                f"received fft_length={fft_length!r}."
            )
        if fft_length is not None and fft_length & (fft_length - 1):
            warnings.warn(
                f"{where}: fft_length is best a power of two; received fft_length={fft_length}.",
                stacklevel=2,
            )
        if mode not in _MODES:
            raise ValueError(f"{where}: mode must be one of {list(_MODES)}; received {mode!r}.")
        check_scaling(scaling, where)
        if padding not in ("valid", "same"):
            raise ValueError(f"{where}: padding must be 'valid' or 'same'; received {padding!r}.")
        check_window(window, where)
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2 or 1
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** math.ceil(math.log2(frame_length))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        bins = self._fft_length // 2 + 1
        shape = (self.frame_length, 1, bins)
        if self.mode != "imag":
            self.real_kernel = self._kernel("real", shape)
        if self.mode != "real":
            self.imag_kernel = self._kernel("imag", shape)

    def _kernel(self, side, shape):
        return self.add_weight(
            name=f"{side}_kernel",
            shape=shape,
            initializer=initializers.STFT(side, self.window, self.scaling, self.periodic),
        )

    def _frames(self, signals, kernel):
        """`(batch * channels, time, 1)` signals to `(batch * channels, frames, bins)`."""
        return ops.conv(
            signals,
            ops.cast(kernel, ops.dtype(signals)),
            strides=self._frame_step,
            padding=self.padding,
            data_format="channels_last",
        )

    def call(self, inputs):
        dtype = ops.dtype(inputs)
        if dtype not in _FLOATS:
            raise TypeError(
                f"STFTSpectrogram {self.name!r}: expected float16, float32 or float64 input; "
                f"received {dtype}. Cast the signal to a float first."
            )
        if self.data_format == "channels_last":
            _, time, channels = inputs.shape
            signals = ops.transpose(inputs, (0, 2, 1))
        else:
            _, channels, time = inputs.shape
            signals = inputs
        signals = ops.reshape(signals, (-1, time, 1))
        real = imag = None
        if self.mode != "imag":
            real = self._frames(signals, self.real_kernel)
        if self.mode != "real":
            imag = self._frames(signals, self.imag_kernel)

        if self.mode == "real":
            out = real
        elif self.mode == "imag":
            out = imag
        elif self.mode == "angle":
            out = ops.arctan2(imag, real)
        elif self.mode == "stft":
            out = ops.concatenate([real, imag], axis=-1)
        else:
            power = ops.square(real) + ops.square(imag)
            if self.mode == "psd":
                # One-sided density: every bin but DC and Nyquist stands for two.
                doubled = ops.pad(power[..., 1:-1], [(0, 0), (0, 0), (1, 1)])
                out = power + doubled
            else:
                out = ops.sqrt(ops.maximum(power, backend.epsilon()))
                if self.mode == "log":
                    out = ops.log(ops.maximum(out, backend.epsilon()))
        # (batch * channels, frames, bins) -> (batch, channels, frames, bins)
        frames, bins = out.shape[1], out.shape[2]
        out = ops.reshape(out, (-1, channels, frames, bins))
        if self.data_format == "channels_last":
            if self.expand_dims:
                return ops.transpose(out, (0, 2, 3, 1))
            out = ops.transpose(out, (0, 2, 1, 3))
            return ops.reshape(out, (-1, frames, channels * bins))
        if self.expand_dims:
            return out
        out = ops.transpose(out, (0, 1, 3, 2))
        return ops.reshape(out, (-1, channels * bins, frames))

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            batch, time, channels = input_shape
        else:
            batch, channels, time = input_shape
        bins = self._fft_length // 2 + 1
        if self.mode == "stft":
            bins *= 2
        frames = _conv_length(time, self.frame_length, self._frame_step, self.padding)
        if self.expand_dims:
            if self.data_format == "channels_last":
                return (batch, frames, bins, channels)
            return (batch, channels, frames, bins)
        merged = None if channels is None else channels * bins
        if self.data_format == "channels_last":
            return (batch, frames, merged)
        return (batch, merged, frames)

    def get_config(self):
        return {
            **super().get_config(),
            "mode": self.mode,
            "frame_length": self.frame_length,
            "frame_step": self.frame_step,
            "fft_length": self.fft_length,
            "window": _plain_window(self.window),
            "periodic": self.periodic,
            "scaling": self.scaling,
            "padding": self.padding,
            "data_format": self.data_format,
            "expand_dims": self.expand_dims,
        }


def mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sampling_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
) -> np.ndarray:
    """The `(num_spectrogram_bins, num_mel_bins)` HTK mel filterbank, as a NumPy array.

    Right-multiplying a linear spectrum `(..., num_spectrogram_bins)` (bins evenly spaced
    on `[0, sampling_rate / 2]`) by it gives `num_mel_bins` triangular bands with peak 1,
    evenly spaced on the mel scale between the two edges. The DC bin gets no weight.

    >>> mel_weight_matrix(4, 9, 8000, 0.0, 4000.0).shape
    (9, 4)
    """

    def mel(hertz):
        return 1127.0 * np.log1p(np.asarray(hertz, dtype="float64") / 700.0)

    bins_mel = mel(np.linspace(0.0, sampling_rate / 2.0, num_spectrogram_bins)[1:])[:, None]
    edges = np.linspace(mel(lower_edge_hertz), mel(upper_edge_hertz), num_mel_bins + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    rising = (bins_mel - lower) / (center - lower)
    falling = (upper - bins_mel) / (upper - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return np.pad(weights, [(1, 0), (0, 0)])


@_register
class MelSpectrogram(Layer):
    """Mel spectrograms of raw audio: STFT power on the mel scale, in decibels by default.

    Use it as the first layer of an audio model (speech, music) on batches of waveforms.
    Each signal is framed (centered, reflect-padded) and Fourier transformed
    (`ops.stft`), its magnitude raised to `mag_exp`, projected onto `num_mel_bins`
    triangular mel bands (HTK mel scale, as Keras), and with `power_to_db` converted to
    `10 log10(S / ref_power)` clipped at `top_db` below the batch's maximum.

    Args:
        fft_length: FFT size.
        sequence_stride: samples between successive frames.
        sequence_length: window length (default `fft_length`), at most `fft_length`.
        window: `"hann"`, `"hamming"`, an array of `sequence_length` values, or None.
        sampling_rate: samples per second of the input.
        num_mel_bins: number of mel bands.
        min_freq: lower edge of the lowest band, in Hz.
        max_freq: upper edge of the highest band (default `sampling_rate / 2`).
        power_to_db: convert to decibels.
        top_db: clip decibels at `max - top_db` (None: no clipping).
        mag_exp: exponent of the magnitude (1 magnitude, 2 power).
        min_power: floor of the power and of `ref_power` before the logarithm.
        ref_power: the power that reads as 0 dB.

    Input shape: `(samples,)` or `(batch, samples)`.

    Output shape: `(num_mel_bins, frames)` or `(batch, num_mel_bins, frames)`, with
    `frames = 1 + samples // sequence_stride`.

    >>> import numpy as np
    >>> layer = MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8,
    ...                        sampling_rate=8000)
    >>> layer(np.zeros((2, 256), "float32")).shape
    (2, 8, 9)
    """

    def __init__(
        self,
        fft_length=2048,
        sequence_stride=512,
        sequence_length=None,
        window="hann",
        sampling_rate=16000,
        num_mel_bins=128,
        min_freq=20.0,
        max_freq=None,
        power_to_db=True,
        top_db=80.0,
        mag_exp=2.0,
        min_power=1e-10,
        ref_power=1.0,
        **kwargs,
    ):
        sequence_length = sequence_length or fft_length
        window = _window_argument(window)
        if fft_length < sequence_length:
            raise ValueError(
                f"MelSpectrogram: fft_length ({fft_length}) must be at least sequence_length "
                f"({sequence_length})."
            )
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(
                f'MelSpectrogram: window must be "hann", "hamming", an array or None; '
                f"received {window!r}."
            )
        super().__init__(**kwargs)
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        self.input_spec = InputSpec(min_ndim=1, max_ndim=2)

    def call(self, inputs):
        compute = self.compute_dtype
        work = compute if compute in ("float32", "float64") else "float32"
        signals = ops.cast(inputs, work)
        window = self.window
        if window is not None and not isinstance(window, str):
            window = ops.convert_to_tensor(np.asarray(window), dtype=work)
        real, imag = ops.stft(
            signals,
            sequence_length=self.sequence_length,
            sequence_stride=self.sequence_stride,
            fft_length=self.fft_length,
            window=window,
            center=True,
        )
        spectrum = ops.power(ops.sqrt(ops.square(real) + ops.square(imag)), self.mag_exp)
        matrix = mel_weight_matrix(
            self.num_mel_bins,
            self.fft_length // 2 + 1,
            self.sampling_rate,
            self.min_freq,
            self.max_freq,
        )
        mel = ops.tensordot(spectrum, ops.convert_to_tensor(matrix.astype(work)), axes=1)
        if self.power_to_db:
            mel = self._decibels(mel)
        return ops.cast(ops.swapaxes(mel, -1, -2), compute)

    def _decibels(self, power):
        db = 10.0 * ops.log10(ops.maximum(power, self.min_power))
        db = db - 10.0 * math.log10(max(abs(self.ref_power), self.min_power))
        if self.top_db is not None:
            # Relative to the loudest value of the whole call (the batch), as Keras does.
            db = ops.maximum(db, ops.max(db) - self.top_db)
        return db

    def compute_output_shape(self, input_shape):
        *batch, samples = input_shape
        # Centered frames: the signal is padded by fft_length // 2 on each side.
        padded = None if samples is None else samples + 2 * (self.fft_length // 2)
        frames = None if padded is None else 1 + (padded - self.fft_length) // self.sequence_stride
        return (*batch, self.num_mel_bins, frames)

    def get_config(self):
        return {
            **super().get_config(),
            "fft_length": self.fft_length,
            "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length,
            "window": _plain_window(self.window),
            "sampling_rate": self.sampling_rate,
            "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq,
            "max_freq": self.max_freq,
            "power_to_db": self.power_to_db,
            "top_db": self.top_db,
            "mag_exp": self.mag_exp,
            "min_power": self.min_power,
            "ref_power": self.ref_power,
        }


__all__ = ["MelSpectrogram", "STFTSpectrogram", "mel_weight_matrix"]
