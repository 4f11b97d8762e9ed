"""STFTSpectrogram and MelSpectrogram against Keras 3 and NumPy spectrogram formulas.

The NumPy references are written here from the definitions (framing, window, `np.fft.rfft`,
the HTK mel filterbank as librosa's `htk=True, norm=None` builds it), not from the code
under test.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import check_layer

os.environ.setdefault("KERAS_BACKEND", "jax")
import jax  # noqa: E402
import keras  # noqa: E402

RNG = np.random.default_rng(0)
SIGNAL = RNG.standard_normal((2, 40, 3)).astype("float32")  # (batch, time, channels)
STFT_KW = {"frame_length": 8, "frame_step": 3, "fft_length": 16}


def _np(x):
    return ops.convert_to_numpy(x)


def _keras(layer, x):
    """Keras's output, its call compiled as one program (Keras eager runs op by op on
    JAX, seconds per new shape)."""
    layer.build(x.shape)
    return np.asarray(jax.jit(lambda v: layer(v))(x))


# --- NumPy references ------------------------------------------------------------------
def _hann(n, periodic):
    m = n if periodic else n - 1
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / m)


def _stft_reference(x, frame_length, frame_step, fft_length, padding):
    """Complex STFT `(batch, channels, frames, bins)` of `(batch, time, channels)` signals,
    symmetric Hann window, "density" scaling, frames zero-padded to fft_length."""
    x = np.moveaxis(x.astype("float64"), -1, 1)
    if padding == "same":
        frames = -(-x.shape[-1] // frame_step)
        total = max((frames - 1) * frame_step + frame_length - x.shape[-1], 0)
        x = np.pad(x, [(0, 0), (0, 0), (total // 2, total - total // 2)])
    count = (x.shape[-1] - frame_length) // frame_step + 1
    index = np.arange(count)[:, None] * frame_step + np.arange(frame_length)
    window = _hann(frame_length, periodic=False)
    frames = x[..., index] * window / np.sqrt(np.sum(window**2))
    return np.fft.rfft(frames, n=fft_length, axis=-1)


def _mel_filterbank(num_mel_bins, fft_length, sampling_rate, fmin, fmax):
    """HTK mel triangles with peak 1 (librosa.filters.mel(htk=True, norm=None) shape,
    Keras's convention of zero weight on the DC bin)."""

    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    bins = fft_length // 2 + 1
    hz = np.linspace(0, sampling_rate / 2, bins)
    edges = np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), num_mel_bins + 2)
    weights = np.zeros((bins, num_mel_bins))
    for m in range(num_mel_bins):
        low, mid, high = edges[m], edges[m + 1], edges[m + 2]
        for k in range(1, bins):
            mel = hz_to_mel(hz[k])
            if low < mel <= mid:
                weights[k, m] = (mel - low) / (mid - low)
            elif mid < mel < high:
                weights[k, m] = (high - mel) / (high - mid)
    return weights


def _mel_reference(x, fft_length, stride, sampling_rate, num_mel_bins, fmin, fmax, top_db):
    x = x.astype("float64")
    half = fft_length // 2
    padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode="reflect")
    count = 1 + (padded.shape[-1] - fft_length) // stride
    index = np.arange(count)[:, None] * stride + np.arange(fft_length)
    power = np.abs(np.fft.rfft(padded[..., index] * _hann(fft_length, periodic=True))) ** 2
    mel = power @ _mel_filterbank(num_mel_bins, fft_length, sampling_rate, fmin, fmax)
    db = 10 * np.log10(np.maximum(mel, 1e-10))
    db = np.maximum(db, db.max() - top_db)
    return np.swapaxes(db, -1, -2)


# --- STFTSpectrogram -------------------------------------------------------------------
def test_stft_modes_match_numpy():
    spectrum = _stft_reference(SIGNAL, 8, 3, 16, "valid")  # (2, 3, frames, 9)
    power = np.abs(spectrum) ** 2
    psd = power.copy()
    psd[..., 1:-1] *= 2
    # "stft" holds the real then the imaginary parts; "log" is the log magnitude.
    want = {
        "stft": np.concatenate([spectrum.real, spectrum.imag], axis=-1),
        "log": np.log(np.maximum(np.abs(spectrum), 1e-7)),
        "psd": psd,
    }
    for mode, values in want.items():
        out = _np(layers.STFTSpectrogram(mode=mode, expand_dims=True, **STFT_KW)(SIGNAL))
        np.testing.assert_allclose(out, values.transpose(0, 2, 3, 1), atol=2e-4, err_msg=mode)
    # "same" padding: zeros split around the signal as a "same" convolution pads.
    same = _stft_reference(SIGNAL, 8, 3, 16, "same")
    out = _np(
        layers.STFTSpectrogram(mode="stft", padding="same", expand_dims=True, **STFT_KW)(SIGNAL)
    )
    want = np.concatenate([same.real, same.imag], axis=-1).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(out, want, atol=2e-4)


CASES = [
    {"mode": "log", "data_format": "channels_last"},
    {"mode": "stft", "data_format": "channels_first", "padding": "same", "window": "hamming"},
    {
        "mode": "psd",
        "data_format": "channels_first",
        "expand_dims": True,
        "scaling": "spectrum",
        "periodic": True,
    },
    {"mode": "angle", "padding": "same", "window": None, "scaling": None},
]


def test_stft_matches_keras():
    for kwargs in CASES:
        _check_stft_against_keras(kwargs)


def _check_stft_against_keras(kwargs):
    kwargs = {**STFT_KW, **kwargs}
    x = SIGNAL if kwargs.get("data_format") != "channels_first" else SIGNAL.transpose(0, 2, 1)
    ours = _np(layers.STFTSpectrogram(**kwargs)(x))
    theirs = _keras(keras.layers.STFTSpectrogram(**kwargs), x)
    assert ours.shape == theirs.shape
    if kwargs["mode"] == "angle":
        # Phases are equal modulo 2 pi (at +-pi the sign of a rounding-size imaginary
        # part picks the branch).
        np.testing.assert_allclose(np.cos(ours - theirs), 1.0, atol=1e-4)
    else:
        np.testing.assert_allclose(ours, theirs, atol=1e-4, rtol=1e-4)
    shape = (None,) + x.shape[1:]
    assert layers.STFTSpectrogram(**kwargs).compute_output_shape(shape) == tuple(
        keras.layers.STFTSpectrogram(**kwargs).compute_output_shape(shape)
    )


def test_stft_conformance_and_trainable_kernels():
    layer = check_layer(
        layers.STFTSpectrogram,
        {"mode": "magnitude", **STFT_KW},
        input_shape=(2, 20, 2),
        expected_output_shape=(2, 5, 18),
        expected_num_trainable_weights=2,
        atol=1e-4,
    )
    assert [w.name for w in layer.weights] == ["real_kernel", "imag_kernel"]
    assert tuple(layer.weights[0].shape) == (8, 1, 9)
    frozen = layers.STFTSpectrogram(mode="real", trainable=False, **STFT_KW)
    frozen(SIGNAL)
    assert len(frozen.trainable_weights) == 0 and len(frozen.non_trainable_weights) == 1
    # Keras weights load: same names, shapes and order.
    theirs = keras.layers.STFTSpectrogram(mode="magnitude", **STFT_KW)
    theirs.build((None, 20, 2))
    layer.set_weights([2 * keras.ops.convert_to_numpy(w.value) for w in theirs.weights])
    x = SIGNAL[:, :20, :2]
    np.testing.assert_allclose(
        _np(layer(x)), 2 * _np(layers.STFTSpectrogram(mode="magnitude", **STFT_KW)(x)), rtol=1e-4
    )


def test_stft_symbolic_unknown_time_and_errors():
    inputs = lamina.Input(shape=(None, 3))
    assert layers.STFTSpectrogram(**STFT_KW)(inputs).shape == (None, None, 27)
    with pytest.raises(ValueError, match="frame_step"):
        layers.STFTSpectrogram(frame_length=8, frame_step=9)
    with pytest.raises(ValueError, match="fft_length"):
        layers.STFTSpectrogram(frame_length=8, fft_length=4)
    with pytest.raises(ValueError, match="mode"):
        layers.STFTSpectrogram(mode="power")
    with pytest.raises(ValueError, match="padding"):
        layers.STFTSpectrogram(padding="causal")
    with pytest.raises(ValueError, match="scaling"):
        layers.STFTSpectrogram(scaling="l2")
    with pytest.warns(UserWarning, match="power of two"):
        layers.STFTSpectrogram(frame_length=8, fft_length=12)
    with pytest.raises(TypeError, match="float"):
        layers.STFTSpectrogram(**STFT_KW)(np.ones((1, 20, 1), "int32"))


# --- MelSpectrogram --------------------------------------------------------------------
MEL_KW = {"fft_length": 64, "sequence_stride": 16, "num_mel_bins": 10, "sampling_rate": 8000}


def test_mel_matches_numpy_reference():
    audio = RNG.standard_normal((200,)).astype("float32")  # one unbatched signal
    ours = _np(layers.MelSpectrogram(**MEL_KW)(audio))
    want = _mel_reference(audio, 64, 16, 8000, 10, 20.0, 4000.0, 80.0)
    assert ours.shape == want.shape == (10, 13)
    np.testing.assert_allclose(ours, want, atol=2e-3)


MEL_CASES = [
    (
        {
            **MEL_KW,
            "sequence_length": 48,
            "window": "hamming",
            "power_to_db": False,
            "mag_exp": 1.0,
        },
        (2, 199),
    ),
    (
        {
            "fft_length": 32,
            "sequence_stride": 8,
            "num_mel_bins": 5,
            "sampling_rate": 4000,
            "min_freq": 100.0,
            "max_freq": 1500.0,
            "top_db": 20.0,
            "ref_power": 2.0,
            "window": None,
        },
        (2, 120),
    ),
]


def test_mel_matches_keras():
    for kwargs, shape in MEL_CASES:
        _check_mel_against_keras(kwargs, shape)


def _check_mel_against_keras(kwargs, shape):
    audio = RNG.standard_normal(shape).astype("float32")
    ours = _np(layers.MelSpectrogram(**kwargs)(audio))
    theirs = _keras(keras.layers.MelSpectrogram(**kwargs), audio)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, atol=1e-3, rtol=1e-4)


def test_mel_config_symbolic_and_errors():
    layer = layers.MelSpectrogram(**MEL_KW)
    theirs = keras.layers.MelSpectrogram(**MEL_KW).get_config()
    ours = layer.get_config()
    for key in theirs:
        if key not in ("dtype", "name"):
            assert ours[key] == theirs[key], key
    clone = layers.MelSpectrogram.from_config(ours)
    assert clone.get_config() == ours
    outputs = layer(lamina.Input(shape=(200,)))
    assert outputs.shape == (None, 10, 13)
    with pytest.raises(ValueError, match="fft_length"):
        layers.MelSpectrogram(fft_length=32, sequence_length=64)


# Keras's own saving converts its Variables with `np.array(v)`, which NumPy 2 warns about.
@pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_keras_files_load_both_ways(tmp_path):
    inputs = keras.Input((20, 2))
    outputs = keras.layers.STFTSpectrogram(mode="log", **STFT_KW)(inputs)
    theirs = keras.Model(inputs, outputs)
    # Trained kernels differ from the initial ones: the file's weights must be used.
    for kernel in theirs.layers[1].weights:
        kernel.assign(1.5 * keras.ops.convert_to_numpy(kernel.value))
    theirs.save(tmp_path / "keras.keras")
    ours = lamina.saving.load_model(tmp_path / "keras.keras")
    x = SIGNAL[:, :20, :2]
    want = keras.ops.convert_to_numpy(theirs(x))
    np.testing.assert_allclose(_np(ours(x)), want, atol=1e-4)
    ours.save(tmp_path / "lamina.keras")
    again = keras.saving.load_model(tmp_path / "lamina.keras")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(again(x)), want, atol=1e-4)
