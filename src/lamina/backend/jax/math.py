"""Math functions on JAX arrays that NumPy lacks: top-k, logsumexp, erf, rsqrt."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def top_k(x, k, sorted=True):
    return jax.lax.top_k(x, k)


def in_top_k(targets, predictions, k):
    targets = jnp.asarray(targets).astype("int32")
    target_scores = jnp.take_along_axis(predictions, targets[..., None], axis=-1)
    return jnp.sum(predictions > target_scores, axis=-1) < k


def logsumexp(x, axis=None, keepdims=False):
    return jax.scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)


def erf(x):
    return jax.scipy.special.erf(x)


def rsqrt(x):
    return jax.lax.rsqrt(x)


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    return jax.ops.segment_sum(data, segment_ids, num_segments, indices_are_sorted=sorted)


def norm(x, ord=None, axis=None, keepdims=False):
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def qr(x, mode="reduced"):
    return jnp.linalg.qr(x, mode=mode)
