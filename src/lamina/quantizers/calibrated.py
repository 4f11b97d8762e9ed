"""The arithmetic of GPTQ and AWQ (host-side NumPy, float32, as Keras 3 computes it).

Both quantize a kernel transposed to `(out_features, in_features)` to unsigned integers
in `[0, 2**bits - 1]` with, per output row and per group of input columns, a scale and
an integer zero point: `w ~ scale * (q - zero)`. The group of input column `c` is
`g_idx[c]` (stored as Keras stores it: `c / group_size` as a float, read truncated).

GPTQ (Frantar et al., 2022) quantizes the columns one after another and moves each
column's rounding error onto the columns not yet quantized, weighted by the inverse of
the damped Hessian `H = 2/N * X^T X` of the layer's inputs `X` on calibration data, in
blocks of 128 columns; optionally in decreasing order of `diag(H)`.

AWQ (Lin et al., 2023) multiplies each input column by `s_c = m_c**a` (normalized),
where `m_c` is the largest magnitude input `c` took on calibration data, before
quantizing, and divides it back after; `a` is the grid point in [0, 1] whose
reconstruction error, weighted by `m_c**2`, is least.
"""

from __future__ import annotations

import math

import numpy as np

_F32 = np.float32


def scale_and_zero(w, bits, *, symmetric=False, per_channel=True, group_size=-1):
    """`(scale, zero, maxq)` of `w` `(out, in)`: shapes `(out, groups)` (or `(out, 1)`);
    `zero` as uint8 (a negative zero point, possible when a row's values are all
    positive, is clipped to 0)."""
    w = np.asarray(w, _F32)
    out_features, in_features = w.shape
    groups = math.ceil(in_features / group_size) if per_channel and group_size > 0 else 1
    if groups > 1:
        pad = groups * group_size - in_features
        padded = np.pad(w, [(0, 0), (0, pad)]) if pad else w
        grouped = padded.reshape(out_features, groups, group_size)
        low, high = grouped.min(axis=2), grouped.max(axis=2)
    else:
        flat = w.reshape(out_features, -1) if per_channel else w.reshape(1, -1)
        low, high = flat.min(axis=1), flat.max(axis=1)
    if symmetric:
        bound = np.maximum(np.abs(low), high)
        low = np.where(low < 0, -bound, low)
        high = bound
    constant = low == high
    low = np.where(constant, low - 1, low).astype(_F32)
    high = np.where(constant, high + 1, high).astype(_F32)
    maxq = _F32(2**bits - 1)
    scale = ((high - low) / maxq).astype(_F32)
    scale = np.where(scale <= 0, _F32(1e-8), scale).astype(_F32)
    if symmetric:
        zero = np.full_like(scale, (maxq + 1) / 2)
    else:
        zero = np.round(-low / scale)
    if groups == 1:
        scale, zero = scale.reshape(-1, 1), zero.reshape(-1, 1)
        if not per_channel:
            scale = np.tile(scale, (out_features, 1))
            zero = np.tile(zero, (out_features, 1))
    return scale, np.clip(zero, 0, 255).astype(np.uint8), maxq


def quantize(w, scale, zero, maxq):
    """`clip(round(w / scale + zero), 0, maxq)` (float)."""
    return np.clip(np.round(w / scale + zero.astype(_F32)), 0, maxq).astype(_F32)


def dequantize(q, scale, zero):
    return (scale * (q - zero.astype(_F32))).astype(_F32)


class HessianAccumulator:
    """The running `2/N * X^T X` of a layer's inputs, one batch at a time."""

    def __init__(self, features: int):
        self.hessian = np.zeros((features, features), _F32)
        self.count = 0

    def update(self, x) -> None:
        x = np.asarray(x, _F32).reshape(-1, self.hessian.shape[0])
        total = self.count + x.shape[0]
        gram = x.T @ x
        gram = ((gram + gram.T) / _F32(2)).astype(_F32)
        if self.count:
            self.hessian = (self.hessian * _F32(self.count / total)).astype(_F32)
        self.hessian = (self.hessian + _F32(2.0 / total) * gram).astype(_F32)
        self.count = total


def gptq_quantize_kernel(
    kernel,
    hessian,
    *,
    bits,
    group_size,
    symmetric,
    per_channel,
    activation_order,
    damping,
    blocksize=128,
):
    """GPTQ of `kernel` `(in, out)` given the inputs' Hessian.

    Returns:
        `(q, scale, zero, g_idx)`: `q` `(out, in)` uint8, `scale` `(out, groups)` float32,
        `zero` `(out, groups)` uint8, `g_idx` `(in,)` float32.
    """
    w = np.asarray(kernel, _F32).T.copy()
    in_features = w.shape[1]
    h = np.asarray(hessian, _F32).copy()
    diag = np.diag(h).copy()
    diag[diag == 0] = 1  # an input that was always zero: its column quantizes alone
    diag = (diag + _F32(damping) * diag.mean(dtype=_F32)).astype(_F32)
    h[np.arange(in_features), np.arange(in_features)] = diag
    inverse = np.linalg.inv(h).astype(_F32)
    if activation_order:
        metric = np.where(np.isfinite(diag), diag, 0).astype(_F32)
        jitter = np.arange(in_features, dtype=_F32) / _F32(in_features) * _F32(1e-12)
        perm = np.argsort(-(metric + jitter), kind="stable")
        w = w[:, perm]
        inverse = inverse[perm][:, perm]
    group = in_features if group_size == -1 else group_size

    def params(block):
        return scale_and_zero(
            block, bits, symmetric=symmetric, per_channel=per_channel, group_size=group_size
        )

    q_all = np.zeros(w.shape, _F32)
    scales, zeros = [], []
    current = None
    for start in range(0, in_features, blocksize):
        end = min(start + blocksize, in_features)
        block = w[:, start:end].copy()
        errors = np.zeros_like(block)
        for j in range(end - start):
            column = start + j
            group_start = (column // group) * group
            if current is None or current[0] != group_start:
                current = (
                    group_start,
                    *params(w[:, group_start : min(group_start + group, in_features)]),
                )
                scales.append(current[1])
                zeros.append(current[2])
            _, scale, zero, maxq = current
            q = quantize(block[:, j : j + 1], scale, zero, maxq)
            q_all[:, column] = q[:, 0]
            error = (
                (block[:, j] - dequantize(q, scale, zero)[:, 0]) / inverse[column, column]
            ).astype(_F32)
            errors[:, j] = error
            block[:, j + 1 :] -= np.outer(error, inverse[column, column + 1 : end]).astype(_F32)
        if end < in_features:
            w[:, end:] -= (errors @ inverse[start:end, end:]).astype(_F32)
    g_idx = (np.arange(in_features, dtype=_F32) / _F32(group)).astype(_F32)
    if activation_order:
        inverse_perm = np.argsort(perm, kind="stable")
        g_idx = g_idx[inverse_perm]
        q_all = q_all[:, inverse_perm]
    return (
        q_all.astype(np.uint8),
        np.concatenate(scales, axis=1).astype(_F32),
        np.concatenate(zeros, axis=1),
        g_idx,
    )


def _awq_reconstruct(w, scales, group_size, in_features):
    scaled = (w * scales).astype(_F32)
    scale, zero, maxq = scale_and_zero(scaled, 4, group_size=group_size)
    if group_size == -1:
        q = quantize(scaled, scale, zero, maxq)
        return q, scale, zero, dequantize(q, scale, zero)
    g_idx = np.arange(in_features) // group_size
    q = quantize(scaled, scale[:, g_idx], zero[:, g_idx], maxq)
    return q, scale, zero, dequantize(q, scale[:, g_idx], zero[:, g_idx])


def awq_quantize_kernel(kernel, magnitudes, *, group_size, num_grid_points):
    """AWQ of `kernel` `(in, out)` given each input's largest calibration magnitude.

    Returns:
        `(q, scale, zero, awq_scales, g_idx)`: as GPTQ's, and the per-input scales that
        multiplied the kernel before quantization (calls divide by them).
    """
    w = np.asarray(kernel, _F32).T
    in_features = w.shape[1]
    x_max = np.asarray(magnitudes, _F32)
    x_max = np.where(x_max < 1e-8, _F32(1), x_max).astype(_F32)
    best_loss, best = None, np.ones(in_features, _F32)
    for i in range(num_grid_points + 1):
        ratio = i / num_grid_points
        scales = np.ones_like(x_max) if ratio == 0 else np.power(x_max, _F32(ratio))
        scales = np.maximum(scales, _F32(1e-4))
        mean = max(np.sqrt(scales.max() * scales.min()), _F32(1e-8))
        scales = (scales / mean).astype(_F32)
        *_, dequantized = _awq_reconstruct(w, scales, group_size, in_features)
        error = np.square(w - dequantized / scales) * np.square(x_max)
        loss = error.mean(dtype=_F32)
        if best_loss is None or loss < best_loss:
            best_loss, best = loss, scales
    q, scale, zero, _ = _awq_reconstruct(w, best, group_size, in_features)
    if group_size == -1:
        g_idx = np.zeros(in_features, _F32)
    else:
        g_idx = (np.arange(in_features) // group_size).astype(_F32)
    return q.astype(np.uint8), scale, zero, best, g_idx
