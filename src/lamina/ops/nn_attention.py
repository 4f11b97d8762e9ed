"""Scaled dot-product attention (`dot_product_attention`), written once from contract ops."""

from __future__ import annotations

import math

from lamina.ops import numpy as lnp
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import cast, composite, convert_to_tensor, declared_op, shape
from lamina.ops.nn_normalization import _compute_dtype

_softmax = declared_op("nn", "softmax")


# Also raised by the attention layers given `flash_attention=True`.
NO_FLASH_KERNEL = (
    "flash_attention=True asks for a fused flash-attention kernel, and lamina has none on "
    "any engine or device (Keras raises here too when it finds no kernel, e.g. on a CPU). "
    "Pass flash_attention=None (the default) or False: the attention computed is the same."
)


@composite
def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """Scaled dot-product attention: `softmax(query @ key^T * scale + bias) @ value`.

    `query` is `(batch, target, heads, head_dim)` and `key`/`value` are
    `(batch, source, kv_heads, head_dim)`; with fewer key heads than query heads
    (grouped-query attention) each key head serves `heads // kv_heads` query heads.
    Rank-3 inputs `(batch, length, head_dim)` have no heads axis. Logits are computed in
    float32 at least; a fully masked row attends uniformly rather than giving NaN.

    Args:
        query: Query tensor `(batch, target, heads, head_dim)`.
        key: Key tensor `(batch, source, kv_heads, head_dim)`.
        value: Value tensor, the shape of `key` (its last axis may differ).
        bias: Tensor added to the logits, broadcast to `(batch, heads, target, source)`;
            None for none.
        mask: Boolean tensor broadcast to `(batch, heads, target, source)`, True where
            attention is allowed; None for none.
        scale: The logits' factor; None (the default) uses `1 / sqrt(head_dim)`.
        is_causal: Whether to also mask later positions, so target `i` sees source
            `j <= i` only (default False).
        flash_attention: Accepted for Keras compatibility: lamina has no fused
            flash-attention kernel, so None (auto) and False compute the same attention
            and True raises a `RuntimeError`, as Keras does where no kernel exists.
        attn_logits_soft_cap: If given, logits are capped smoothly as
            `tanh(logits / cap) * cap` before the bias and mask.

    Returns:
        The attention output, the shape of `query` with `value`'s last axis.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> q = np.ones((1, 2, 1, 4), "float32")
    >>> v = np.arange(8.0, dtype="float32").reshape(1, 2, 1, 4)
    >>> out = ops.dot_product_attention(q, q, v, is_causal=True)
    >>> ops.convert_to_numpy(out)[0, :, 0].tolist()
    [[0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0]]
    """
    if flash_attention:
        raise RuntimeError(f"dot_product_attention: {NO_FLASH_KERNEL}")
    query, key, value = (convert_to_tensor(t) for t in (query, key, value))
    rank3 = len(shape(query)) == 3
    if rank3:
        query, key, value = (lnp.expand_dims(t, 2) for t in (query, key, value))
    if len(shape(query)) != 4:
        raise ValueError(
            "dot_product_attention: `query` must be (batch, target, heads, head_dim) or "
            f"(batch, target, head_dim); received shape {shape(query)}."
        )
    heads, kv_heads, head_dim = shape(query)[2], shape(key)[2], shape(query)[-1]
    if heads % kv_heads:
        raise ValueError(
            f"dot_product_attention: the query's {heads} heads must be a multiple of the "
            f"key's {kv_heads}."
        )
    if heads != kv_heads:
        key = lnp.repeat(key, heads // kv_heads, axis=2)
        value = lnp.repeat(value, heads // kv_heads, axis=2)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    compute = _compute_dtype(query)
    logits = lnp.einsum("btnh,bsnh->bnts", cast(query, compute), cast(key, compute)) * scale
    if attn_logits_soft_cap is not None:
        logits = lnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    if bias is not None:
        logits = logits + cast(convert_to_tensor(bias), compute)
    allowed = None if mask is None else cast(convert_to_tensor(mask), "bool")
    if is_causal:
        target, source = shape(logits)[-2], shape(logits)[-1]
        causal = cast(lnp.tri(target, source, dtype="int32"), "bool")
        allowed = causal if allowed is None else lnp.logical_and(allowed, causal)
    if allowed is not None:
        # A large finite negative, so a fully masked row gives uniform weights, not NaN.
        logits = lnp.where(allowed, logits, -0.7 * 3.4028234663852886e38)
    weights = cast(_softmax(logits, axis=-1), dtype(value))
    out = lnp.einsum("bnts,bsnh->btnh", weights, value)
    return lnp.squeeze(out, 2) if rank3 else out


__all__ = ["dot_product_attention"]
