"""Framing, STFT/ISTFT and distances added to match Keras 3, against Keras 3 on JAX."""

from __future__ import annotations

import numpy as np
import pytest
from gaps_harness import case, check, groups, rand

from lamina import ops

SIGNAL = rand(2, 24)

SIGNAL_CASES = {
    "extract_sequences": (lambda o, x: o.extract_sequences(x, 5, 3), True),
    "stft_hann": (lambda o, x: o.stft(x, 8, 4, 8), True),
    "stft_hamming_padded": (lambda o, x: o.stft(x, 6, 3, 8, window="hamming", center=False), False),
    "stft_no_window": (lambda o, x: o.stft(x, 6, 3, 8, window=None), False),
    "istft": (lambda o, x: o.istft(o.stft(x, 8, 4, 8), 8, 4, 8), True),
    "istft_length": (
        lambda o, x: o.istft(o.stft(x, 6, 3, 8, center=False), 6, 3, 8, length=20, center=False),
        False,
    ),
    "cdist": (
        lambda o, x: o.cdist(o.reshape(x, (2, 8, 3)), o.reshape(o.flip(x, 1), (2, 8, 3))),
        True,
    ),
}


# Gradients are checked for the engine primitives and the compositions whose gradient
# needs care (masked, normalized, stable forms); the rest differentiate through these.
GRADIENT_CASES = {
    "istft",
    "stft_hann",
}


@pytest.mark.parametrize("names", groups(SIGNAL_CASES))
def test_signal_matches_keras(names):
    for name in names:
        with case(name):
            f, grad = SIGNAL_CASES[name]
            check(
                f,
                SIGNAL,
                grad=grad and name in GRADIENT_CASES,
                rtol=1e-4,
                atol=1e-5,
                batch=name != "cdist",
            )


def test_istft_inverts_stft():
    spectrum = ops.stft(SIGNAL, 8, 2, 8)
    back = ops.convert_to_numpy(ops.istft(spectrum, 8, 2, 8, length=24))
    np.testing.assert_allclose(back, SIGNAL, atol=1e-5)


def test_stft_refuses_bad_arguments():
    with pytest.raises(ValueError, match="fft_length \\(4\\) must be at least sequence_length"):
        ops.stft(SIGNAL, 8, 2, 4)
    with pytest.raises(ValueError, match='window must be "hann", "hamming"'):
        ops.stft(SIGNAL, 8, 2, 8, window="blackman")
