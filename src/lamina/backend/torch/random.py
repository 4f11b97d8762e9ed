"""Random sampling on torch. Every function takes `seed`, a tensor of two int64 numbers.

Samples are a deterministic function of the seed tensor: each call seeds a fresh
`torch.Generator` from the two numbers (mixed, so neighbouring seeds give unrelated
streams), on the device the result lives on. During abstract evaluation (`meta`
device) no numbers are drawn: the functions return tensors of the right shape only.
"""

from __future__ import annotations

import math

import torch

from lamina.backend import config
from lamina.backend.torch.core import (
    convert_to_tensor,
    get_device,
    to_torch_dtype,
)

# torch's uint32 has storage but almost no arithmetic (`seed + [0, 1]` fails): int64.
SEED_DTYPE = "int64"

_MASK64 = (1 << 64) - 1


def _mix(z: int) -> int:
    # splitmix64's finaliser: nearby seeds map to unrelated 64-bit generator seeds.
    z = (z + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _generator(seed, device):
    if seed is None:
        raise ValueError(
            "The torch backend's random functions need a seed tensor; use lamina.random "
            "(which draws one from an int, a SeedGenerator or the global generator)."
        )
    values = convert_to_tensor(seed).reshape(-1).tolist()
    mixed = 0
    for v in values:
        mixed = _mix(mixed ^ (int(v) & _MASK64))
    generator = torch.Generator(device=device)
    generator.manual_seed(mixed)
    return generator


def _float(dtype):
    return to_torch_dtype(dtype if dtype is not None else config.floatx())


def _abstract(shape, dtype):
    """While evaluating on `meta` nothing is drawn: only shape and dtype."""
    device = get_device()
    if device.type == "meta":
        return torch.empty(tuple(shape), dtype=dtype, device=device)
    return None


def _draw(fn, shape, dtype, seed):
    """`fn(shape, generator, device)` in float32 for half types (cast after), else `dtype`."""
    out = _abstract(shape, dtype)
    if out is not None:
        return out
    device = get_device()
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    sample = fn(tuple(int(d) for d in shape), _generator(seed, device), device, work)
    return sample if sample.dtype == dtype else sample.to(dtype)


def make_seed(seed: int):
    """A seed tensor from an integer seed."""
    return convert_to_tensor([0, int(seed) % (2**32)], dtype=SEED_DTYPE)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        return torch.randn(shape, generator=generator, device=device, dtype=work)

    return _draw(draw, shape, dtype, seed) * stddev + mean


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        return torch.rand(shape, generator=generator, device=device, dtype=work)

    return _draw(draw, shape, dtype, seed) * (maxval - minval) + minval


_LOW = 0.5 * (1.0 + math.erf(-2.0 / math.sqrt(2.0)))  # Phi(-2)
_HIGH = 0.5 * (1.0 + math.erf(2.0 / math.sqrt(2.0)))  # Phi(2)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        # Inverse CDF of a uniform draw inside [Phi(-2), Phi(2)], as JAX does.
        u = torch.rand(shape, generator=generator, device=device, dtype=work)
        p = _LOW + u * (_HIGH - _LOW)
        return (math.sqrt(2.0) * torch.special.erfinv(2.0 * p - 1.0)).clamp(-2.0, 2.0)

    return _draw(draw, shape, dtype, seed) * stddev + mean


def randint(shape, minval, maxval, dtype="int32", seed=None):
    dtype = to_torch_dtype(dtype)
    low, high = int(convert_to_tensor(minval).item()), int(convert_to_tensor(maxval).item())

    def draw(shape, generator, device, work):
        return torch.randint(low, high, shape, generator=generator, device=device)

    return _draw(draw, shape, dtype, seed)


def categorical(logits, num_samples, dtype="int32", seed=None):
    logits = convert_to_tensor(logits)
    dtype = to_torch_dtype(dtype)
    batch = tuple(logits.shape[:-1])

    def draw(shape, generator, device, work):
        probs = torch.softmax(logits.reshape(-1, logits.shape[-1]).to(torch.float32), dim=-1)
        picks = torch.multinomial(probs, num_samples, replacement=True, generator=generator)
        return picks.reshape(shape)

    return _draw(draw, batch + (int(num_samples),), dtype, seed)


def dropout(inputs, rate, noise_shape=None, seed=None):
    inputs = convert_to_tensor(inputs)
    shape = (
        tuple(inputs.shape)
        if noise_shape is None
        else tuple(s if n is None else n for s, n in zip(inputs.shape, noise_shape, strict=True))
    )
    keep_prob = 1.0 - rate

    def draw(shape, generator, device, work):
        return torch.rand(shape, generator=generator, device=device) < keep_prob

    keep = _draw(draw, shape, torch.bool, seed)
    return torch.where(
        keep, inputs / keep_prob, torch.zeros((), dtype=inputs.dtype, device=inputs.device)
    )


def shuffle(x, axis=0, seed=None):
    x = convert_to_tensor(x)
    n = x.shape[axis]

    def draw(shape, generator, device, work):
        return torch.randperm(n, generator=generator, device=device)

    perm = _draw(draw, (n,), torch.int64, seed)
    return torch.index_select(x, axis, perm)


def _parameter(value, shape, device, work):
    """A distribution parameter broadcast to the sample shape, in the working dtype."""
    value = convert_to_tensor(value).to(device=device, dtype=work)
    return torch.broadcast_to(value, shape)


def gamma(shape, alpha, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        return torch._standard_gamma(_parameter(alpha, shape, device, work), generator=generator)

    return _draw(draw, shape, dtype, seed)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        # torch.binomial samples in float; float64 keeps large counts exact.
        n = _parameter(counts, shape, device, torch.float64)
        p = _parameter(probabilities, shape, device, torch.float64)
        return torch.binomial(n, p, generator=generator).to(work)

    return _draw(draw, shape, dtype, seed)


def beta(shape, alpha, beta, dtype=None, seed=None):
    dtype = _float(dtype)

    def draw(shape, generator, device, work):
        # X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta) is Beta(alpha, beta).
        x = torch._standard_gamma(_parameter(alpha, shape, device, work), generator=generator)
        y = torch._standard_gamma(_parameter(beta, shape, device, work), generator=generator)
        return x / (x + y).clamp_min(torch.finfo(work).tiny)

    return _draw(draw, shape, dtype, seed)
