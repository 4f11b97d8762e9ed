"""The STFT initializer against Keras 3's values and a DFT written in NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest

from lamina import initializers, ops
from lamina.initializers.stft import get_window

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402


def _windows(n):
    """SciPy's windows (scipy.signal.get_window), written out: symmetric and periodic."""
    k = np.arange(n)
    out = {}
    for periodic in (False, True):
        m = n if periodic else n - 1
        out["hann", periodic] = 0.5 - 0.5 * np.cos(2 * np.pi * k / m)
        out["hamming", periodic] = 0.54 - 0.46 * np.cos(2 * np.pi * k / m)
        out["blackman", periodic] = (
            0.42 - 0.5 * np.cos(2 * np.pi * k / m) + 0.08 * np.cos(4 * np.pi * k / m)
        )
        out["bartlett", periodic] = 1 - np.abs(2 * k / m - 1)
    return out


def test_named_windows_follow_scipy_formulas():
    for (name, periodic), want in _windows(7).items():
        np.testing.assert_allclose(get_window(name, 7, periodic), want, atol=1e-12)
    np.testing.assert_array_equal(get_window("boxcar", 3), np.ones(3))


def test_matches_keras():
    shape = (12, 1, 9)
    for side in ("real", "imag"):
        for window, scaling, periodic in (
            ("hann", "density", False),
            ("hamming", "spectrum", True),
            (None, None, False),
        ):
            args = (side, window, scaling, periodic)
            ours = initializers.STFT(*args)(shape)
            theirs = keras.initializers.STFT(*args)(shape)
            assert tuple(ours.shape) == shape and ops.dtype(ours) == "float32"
            np.testing.assert_allclose(
                ops.convert_to_numpy(ours), np.asarray(theirs), atol=1e-5, err_msg=str(args)
            )


def test_kernels_compute_the_dft_of_a_frame():
    frame_length, bins = 8, 5  # fft_length 8
    frame = np.random.default_rng(0).standard_normal(frame_length)
    window = _windows(frame_length)["hann", True]
    spectrum = np.fft.rfft(frame * window) / np.sqrt(np.sum(window**2))
    real = ops.convert_to_numpy(initializers.STFT("real", "hann", periodic=True)((8, 1, bins)))
    imag = ops.convert_to_numpy(initializers.STFT("imag", "hann", periodic=True)((8, 1, bins)))
    np.testing.assert_allclose(frame @ real[:, 0, :], spectrum.real, atol=1e-5)
    np.testing.assert_allclose(frame @ imag[:, 0, :], spectrum.imag, atol=1e-5)


def test_array_window_names_and_config():
    window = np.arange(1.0, 5.0)
    ours = initializers.STFT("imag", window, "spectrum")((4, 1, 3))
    theirs = keras.initializers.STFT("imag", window, "spectrum")((4, 1, 3))
    np.testing.assert_allclose(ops.convert_to_numpy(ours), np.asarray(theirs), atol=1e-5)
    # The Keras names resolve to it, and a Keras config (array window included) loads.
    for name in ("stft", "STFT", "STFTInitializer"):
        assert type(initializers.get(name)) is initializers.STFT
    assert initializers.STFTInitializer is initializers.STFT is initializers.stft
    config = keras.initializers.serialize(keras.initializers.STFT("imag", window, "spectrum"))
    revived = initializers.deserialize(config)
    np.testing.assert_allclose(
        ops.convert_to_numpy(revived((4, 1, 3))), np.asarray(theirs), atol=1e-5
    )
    again = initializers.deserialize(initializers.serialize(revived))
    assert (
        again.get_config()
        == revived.get_config()
        == {
            "side": "imag",
            "window": [1.0, 2.0, 3.0, 4.0],
            "periodic": False,
            "scaling": "spectrum",
        }
    )


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="side"):
        initializers.STFT("complex")
    with pytest.raises(ValueError, match="scaling"):
        initializers.STFT(scaling="energy")
    with pytest.raises(ValueError, match="window"):
        initializers.STFT(window="no-such-window")
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        initializers.STFT(window=np.ones(3))((4, 1, 3))
