"""Math functions on torch tensors that NumPy lacks: top-k, logsumexp, erf, segment sums."""

from __future__ import annotations

import torch

from lamina.backend.torch.core import convert_to_tensor, to_float

_QR_MODES = ("reduced", "complete", "r")


def top_k(x, k, sorted=True):
    values, indices = torch.topk(convert_to_tensor(x), int(k), dim=-1, sorted=sorted)
    return values, indices.to(torch.int32)


def in_top_k(targets, predictions, k):
    predictions = convert_to_tensor(predictions)
    targets = convert_to_tensor(targets).to(torch.int64)
    target_scores = torch.take_along_dim(predictions, targets[..., None], dim=-1)
    return (predictions > target_scores).sum(dim=-1) < k


def logsumexp(x, axis=None, keepdims=False):
    x = to_float(convert_to_tensor(x))
    dims = tuple(range(x.ndim)) if axis is None else axis
    return torch.logsumexp(x, dim=dims, keepdim=keepdims)


def erf(x):
    return torch.special.erf(to_float(convert_to_tensor(x)))


def rsqrt(x):
    return torch.rsqrt(to_float(convert_to_tensor(x)))


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids).to(torch.int64)
    if num_segments is None:
        num_segments = int(ids.max().item()) + 1 if ids.numel() else 0
    num_segments = int(num_segments)
    # As in JAX, rows whose id is out of range (negative or >= num_segments) are dropped;
    # masking (not boolean indexing) keeps the shapes static.
    valid = (ids >= 0) & (ids < num_segments)
    ids = torch.where(valid, ids, torch.zeros_like(ids))
    data = torch.where(valid.reshape(valid.shape + (1,) * (data.ndim - 1)), data, 0)
    out = torch.zeros((num_segments,) + tuple(data.shape[1:]), dtype=data.dtype, device=data.device)
    return out.index_add(0, ids, data)


def norm(x, ord=None, axis=None, keepdims=False):
    x = to_float(convert_to_tensor(x))
    return torch.linalg.norm(x, ord=ord, dim=axis, keepdim=keepdims)


def qr(x, mode="reduced"):
    if mode not in _QR_MODES:
        raise ValueError(f"qr: unknown mode {mode!r}; expected one of {list(_QR_MODES)}.")
    q, r = torch.linalg.qr(to_float(convert_to_tensor(x)), mode=mode)
    return r if mode == "r" else (q, r)
