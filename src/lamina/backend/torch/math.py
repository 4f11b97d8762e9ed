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


def _segment_reduce(data, segment_ids, num_segments, reduce, empty):
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids).to(torch.int64)
    if num_segments is None:
        num_segments = int(ids.max().item()) + 1 if ids.numel() else 0
    num_segments = int(num_segments)
    valid = (ids >= 0) & (ids < num_segments)
    # Rows with out-of-range ids go to an extra segment that is dropped.
    ids = torch.where(valid, ids, num_segments)
    shape = (num_segments + 1,) + tuple(data.shape[1:])
    out = torch.full(shape, empty, dtype=data.dtype, device=data.device)
    index = ids.reshape((-1,) + (1,) * (data.ndim - 1)).expand(data.shape)
    return out.scatter_reduce(0, index, data, reduce=reduce, include_self=True)[:-1]


def _lowest(dtype):
    return -torch.inf if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype):
    return torch.inf if dtype.is_floating_point else torch.iinfo(dtype).max


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    data = convert_to_tensor(data)
    return _segment_reduce(data, segment_ids, num_segments, "amax", _lowest(data.dtype))


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    data = convert_to_tensor(data)
    return _segment_reduce(data, segment_ids, num_segments, "amin", _highest(data.dtype))


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    return _segment_reduce(data, segment_ids, num_segments, "prod", 1)


def erfc(x):
    return torch.special.erfc(to_float(convert_to_tensor(x)))


def erfinv(x):
    return torch.special.erfinv(to_float(convert_to_tensor(x)))


# Fourier transforms: complex values travel as `(real, imag)` pairs of float tensors.
def _complex(x, op):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"{op}: expected a pair (real, imag) of float tensors, received {type(x).__name__}."
        )
    real, imag = convert_to_tensor(x[0]), convert_to_tensor(x[1])
    if real.shape != imag.shape:
        raise ValueError(
            f"{op}: the real and imaginary parts must have one shape, received "
            f"{tuple(real.shape)} and {tuple(imag.shape)}."
        )
    if not real.is_floating_point():
        raise ValueError(f"{op}: expected float real and imaginary parts, received {real.dtype}.")
    return torch.complex(real, imag.to(real.dtype))


def _pair(z):
    return z.real.contiguous(), z.imag.contiguous()


def fft(x):
    return _pair(torch.fft.fft(_complex(x, "fft")))


def fft2(x):
    return _pair(torch.fft.fft2(_complex(x, "fft2")))


def ifft2(x):
    return _pair(torch.fft.ifft2(_complex(x, "ifft2")))


def rfft(x, fft_length=None):
    return _pair(torch.fft.rfft(to_float(convert_to_tensor(x)), n=fft_length, dim=-1))


def irfft(x, fft_length=None):
    return torch.fft.irfft(_complex(x, "irfft"), n=fft_length, dim=-1)


from lamina.backend.torch.numpy_complex import view_as_complex, view_as_real  # noqa: E402, F401
