"""Math functions on JAX arrays that NumPy lacks: top-k, logsumexp, erf, rsqrt."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.jax.core import convert_to_tensor


def top_k(x, k, sorted=True):
    return jax.lax.top_k(x, k)


def in_top_k(targets, predictions, k):
    targets = jnp.asarray(targets).astype("int32")
    target_scores = jnp.take_along_axis(predictions, targets[..., None], axis=-1)
    return jnp.sum(predictions > target_scores, axis=-1) < k


def logsumexp(x, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    return jax.scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)


def erf(x):
    x = convert_to_tensor(x)
    return jax.scipy.special.erf(x)


def rsqrt(x):
    x = convert_to_tensor(x)
    return jax.lax.rsqrt(x)


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_sum(data, segment_ids, num_segments, indices_are_sorted=sorted)


def norm(x, ord=None, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def qr(x, mode="reduced"):
    x = convert_to_tensor(x)
    return jnp.linalg.qr(x, mode=mode)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_max(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_min(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_prod(data, segment_ids, num_segments, indices_are_sorted=sorted)


def erfc(x):
    x = convert_to_tensor(x)
    return jax.scipy.special.erfc(x)


def erfinv(x):
    x = convert_to_tensor(x)
    return jax.scipy.special.erfinv(x)


# Fourier transforms: complex values travel as `(real, imag)` pairs of float tensors.
def _complex(x, op):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"{op}: expected a pair (real, imag) of float tensors, received {type(x).__name__}."
        )
    real, imag = jnp.asarray(x[0]), jnp.asarray(x[1])
    if real.shape != imag.shape:
        raise ValueError(
            f"{op}: the real and imaginary parts must have one shape, received "
            f"{real.shape} and {imag.shape}."
        )
    if not jnp.issubdtype(real.dtype, jnp.floating):
        raise ValueError(f"{op}: expected float real and imaginary parts, received {real.dtype}.")
    return jax.lax.complex(real, imag.astype(real.dtype))


def _pair(z):
    return jnp.real(z), jnp.imag(z)


def fft(x):
    return _pair(jnp.fft.fft(_complex(x, "fft")))


def fft2(x):
    return _pair(jnp.fft.fft2(_complex(x, "fft2")))


def ifft2(x):
    return _pair(jnp.fft.ifft2(_complex(x, "ifft2")))


def rfft(x, fft_length=None):
    return _pair(jnp.fft.rfft(x, n=fft_length, axis=-1))


def irfft(x, fft_length=None):
    return jnp.fft.irfft(_complex(x, "irfft"), n=fft_length, axis=-1)


from lamina.backend.jax.numpy_complex import view_as_complex, view_as_real  # noqa: E402, F401
