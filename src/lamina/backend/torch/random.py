"""Random sampling on torch. Every function takes `seed`, a tensor of two int64 numbers.

Samples are a deterministic function of the seed tensor: each call seeds a fresh
`torch.Generator` from the two numbers (mixed, so neighbouring seeds give unrelated
streams), on the device the result lives on. During abstract evaluation (`meta`
device) no numbers are drawn: the functions return tensors of the right shape only.

Reading the seed's numbers in Python is what a graph capture cannot do (`make_fx` on
fake tensors, for `compile(jit_compile=True)`), so there the draw itself becomes one
node of the graph: the custom op `lamina::random_draw` (registered on first use), whose
input is the seed tensor (computed in the graph, from a `SeedGenerator`'s state) and
whose real kernel is the eager draw below. The graph computes what the eager call
computes, bit for bit; the op returns the raw sample (a uniform draw for dropout's
mask, a standard normal), and what follows it (the mask, the scaling, the gradient
through the multiply) stays ordinary graph code.
"""

from __future__ import annotations

import math
import numbers
import threading

import torch
from torch._subclasses.fake_tensor import is_fake

from lamina.backend import config
from lamina.backend.common import threefry
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


def _sample(seed, kind, shape, dtype, device, tensors, integers):
    """The draw `kind` in float32 for half types (cast after), else in `dtype`."""
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    generator = _generator(seed, device)
    sample = _DRAWS[kind](tuple(shape), generator, device, work, tensors, integers)
    return sample if sample.dtype == dtype else sample.to(dtype)


def _draw(kind, shape, dtype, seed, tensors=(), integers=()):
    """A sample of the draw `kind` (a key of `_DRAWS`) from `seed`.

    `tensors` and `integers` are the draw's parameters (a Gamma's concentration,
    randint's bounds); everything of the draw that reads `seed` happens here.
    """
    out = _abstract(shape, dtype)
    if out is not None:
        return out
    device = get_device()
    shape = tuple(int(d) for d in shape)
    if seed is not None and (
        getattr(_RECORDING, "on", False) or (type(seed) is not torch.Tensor and is_fake(seed))
    ):
        # Under a capture: the draw is one opaque node of the graph (see the module
        # docstring); eager calls never come here.
        op = _random_draw_op()
        return op(seed, kind, shape, dtype, device, list(tensors), list(integers))
    return _sample(seed, kind, shape, dtype, device, tensors, integers)


# Set (per thread) while `replay.Replay` records a call: each draw is then made by the
# custom op, which the recording keeps as one node whose input is the seed tensor, so a
# replay draws from the seed it is given as the eager call does (`recording_draws`).
_RECORDING = threading.local()


class recording_draws:
    """While open, this thread's draws go through `lamina::random_draw` (same numbers)."""

    def __enter__(self):
        self._before = getattr(_RECORDING, "on", False)
        _RECORDING.on = True
        _random_draw_op()
        return self

    def __exit__(self, *exc):
        _RECORDING.on = self._before
        return False


_NO_TRACED_GRADIENT = (
    "the gradient of the random draw {kind!r} with respect to its parameters (such as "
    "random.gamma's alpha) is computed from the seed's value, which a traced backward "
    "cannot read; it is computed only when the backward runs eagerly"
)

_OP_LOCK = threading.Lock()
_OP = None


def _random_draw_op():
    """The custom op `lamina::random_draw`, registered on first use (no import cost)."""
    global _OP
    if _OP is None:
        with _OP_LOCK:
            if _OP is None:
                _OP = _register_random_draw()
    return _OP


def _register_random_draw():
    existing = getattr(getattr(torch.ops, "lamina", None), "random_draw", None)
    if existing is not None:  # registered by an earlier import of this module
        return existing

    @torch.library.custom_op("lamina::random_draw", mutates_args=())
    def random_draw(
        seed: torch.Tensor,
        kind: str,
        shape: list[int],
        dtype: torch.dtype,
        device: torch.device,
        tensors: list[torch.Tensor],
        integers: list[int],
    ) -> torch.Tensor:
        # The real kernel, run with real tensors when the compiled graph runs.
        return _sample(seed, kind, shape, dtype, device, tensors, integers)

    @random_draw.register_fake
    def _(seed, kind, shape, dtype, device, tensors, integers):
        return torch.empty(tuple(shape), dtype=dtype, device=device)

    # A sample's gradient with respect to the draw's parameters (a Gamma's concentration:
    # torch's samplers are reparameterized) is what eager autograd gives: the backward
    # draws the same sample again from the seed and differentiates that. It needs the
    # seed's value, so a compiler that traces the backward ahead (AOTAutograd, under
    # inductor) cannot take it: that compile fails, and the call runs eagerly.
    def setup_context(ctx, inputs, output):
        seed, kind, shape, dtype, device, tensors, integers = inputs
        ctx.save_for_backward(seed, *tensors)
        ctx.draw = (kind, shape, dtype, device, integers)

    def backward(ctx, grad):
        seed, *tensors = ctx.saved_tensors
        kind, shape, dtype, device, integers = ctx.draw
        if is_fake(seed):
            raise RuntimeError(_NO_TRACED_GRADIENT.format(kind=kind))
        with torch.enable_grad():
            params = [t.detach().requires_grad_(t.is_floating_point()) for t in tensors]
            sample = _sample(seed, kind, shape, dtype, device, params, integers)
            wanted = [p for p in params if p.requires_grad]
            found = iter(
                torch.autograd.grad(sample, wanted, grad, allow_unused=True)
                if sample.requires_grad and wanted
                else [None] * len(wanted)
            )
        grads = [next(found) if p.requires_grad else None for p in params]
        # An empty `integers` reads as an empty list of tensors, whose gradient is `[]`.
        return None, None, None, None, None, grads, [] if not integers else None

    random_draw.register_autograd(backward, setup_context=setup_context)
    return torch.ops.lamina.random_draw.default


def draw_from_seed(seed, kind, shape, dtype, device, tensors, integers):
    """What `lamina::random_draw` computes, called directly (a replayed graph's draw
    that autograd has nothing to do with: no tensor parameters)."""
    return _sample(seed, kind, shape, dtype, device, tensors, integers)


def make_seed(seed: int):
    """A seed tensor from an integer seed."""
    return convert_to_tensor([0, int(seed) % (2**32)], dtype=SEED_DTYPE)


def _normal(shape, generator, device, work, tensors, integers):
    return torch.randn(shape, generator=generator, device=device, dtype=work)


def _uniform(shape, generator, device, work, tensors, integers):
    return torch.rand(shape, generator=generator, device=device, dtype=work)


_LOW = 0.5 * (1.0 + math.erf(-2.0 / math.sqrt(2.0)))  # Phi(-2)
_HIGH = 0.5 * (1.0 + math.erf(2.0 / math.sqrt(2.0)))  # Phi(2)


def _truncated_normal(shape, generator, device, work, tensors, integers):
    # Inverse CDF of a uniform draw inside [Phi(-2), Phi(2)], as JAX does.
    u = torch.rand(shape, generator=generator, device=device, dtype=work)
    p = _LOW + u * (_HIGH - _LOW)
    return (math.sqrt(2.0) * torch.special.erfinv(2.0 * p - 1.0)).clamp(-2.0, 2.0)


def _randint(shape, generator, device, work, tensors, integers):
    low, high = integers
    return torch.randint(low, high, shape, generator=generator, device=device)


def _categorical(shape, generator, device, work, tensors, integers):
    (logits,) = tensors
    probs = torch.softmax(logits.reshape(-1, logits.shape[-1]).to(torch.float32), dim=-1)
    picks = torch.multinomial(probs, shape[-1], replacement=True, generator=generator)
    return picks.reshape(shape)


def _permutation(shape, generator, device, work, tensors, integers):
    return torch.randperm(shape[0], generator=generator, device=device)


def _parameter(value, shape, device, work):
    """A distribution parameter broadcast to the sample shape, in the working dtype."""
    return torch.broadcast_to(value.to(device=device, dtype=work), shape)


def _gamma(shape, generator, device, work, tensors, integers):
    (alpha,) = tensors
    return torch._standard_gamma(_parameter(alpha, shape, device, work), generator=generator)


def _binomial(shape, generator, device, work, tensors, integers):
    # torch.binomial samples in float; float64 keeps large counts exact.
    n = _parameter(tensors[0], shape, device, torch.float64)
    p = _parameter(tensors[1], shape, device, torch.float64)
    return torch.binomial(n, p, generator=generator).to(work)


def _beta(shape, generator, device, work, tensors, integers):
    # X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta) is Beta(alpha, beta).
    x = torch._standard_gamma(_parameter(tensors[0], shape, device, work), generator=generator)
    y = torch._standard_gamma(_parameter(tensors[1], shape, device, work), generator=generator)
    return x / (x + y).clamp_min(torch.finfo(work).tiny)


# Every draw by name: the custom op names its draw by a string.
_DRAWS = {
    "normal": _normal,
    "uniform": _uniform,
    "truncated_normal": _truncated_normal,
    "randint": _randint,
    "categorical": _categorical,
    "permutation": _permutation,
    "gamma": _gamma,
    "binomial": _binomial,
    "beta": _beta,
}


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _draw("normal", shape, _float(dtype), seed) * stddev + mean


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return _draw("uniform", shape, _float(dtype), seed) * (maxval - minval) + minval


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _draw("truncated_normal", shape, _float(dtype), seed) * stddev + mean


def _portable(kind, shape, first, second, dtype, seed):
    """JAX's numbers for `seed`, computed on the host (`common.threefry`, the same code
    on every engine), cast to `dtype` on the current device; None when they cannot be:
    under a graph capture the seed cannot be read, and tensor parameters are not
    JAX's Python numbers (the caller then draws with torch's generator)."""
    torch_dtype = _float(dtype)
    out = _abstract(shape, torch_dtype)
    if out is not None:
        return out
    if seed is None:
        _generator(seed, None)  # raises the error that says what to pass
    seed = convert_to_tensor(seed)
    if (type(seed) is not torch.Tensor and is_fake(seed)) or not all(
        isinstance(p, numbers.Real) for p in (first, second)
    ):
        return None
    values = threefry.sample(kind, seed.tolist(), shape, first, second)
    return torch.from_numpy(values).to(device=get_device(), dtype=torch_dtype)


def portable_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    out = _portable("normal", shape, mean, stddev, dtype, seed)
    return normal(shape, mean, stddev, dtype, seed) if out is None else out


def portable_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    out = _portable("uniform", shape, minval, maxval, dtype, seed)
    return uniform(shape, minval, maxval, dtype, seed) if out is None else out


def portable_truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    out = _portable("truncated_normal", shape, mean, stddev, dtype, seed)
    return truncated_normal(shape, mean, stddev, dtype, seed) if out is None else out


def _python_int(value) -> int:
    if isinstance(value, numbers.Real):  # read without a tensor: capturable
        return int(value)
    return int(convert_to_tensor(value).item())


def randint(shape, minval, maxval, dtype="int32", seed=None):
    bounds = (_python_int(minval), _python_int(maxval))
    return _draw("randint", shape, to_torch_dtype(dtype), seed, integers=bounds)


def categorical(logits, num_samples, dtype="int32", seed=None):
    logits = convert_to_tensor(logits)
    shape = tuple(logits.shape[:-1]) + (int(num_samples),)
    return _draw("categorical", shape, to_torch_dtype(dtype), seed, tensors=(logits,))


def dropout(inputs, rate, noise_shape=None, seed=None):
    inputs = convert_to_tensor(inputs)
    shape = (
        tuple(inputs.shape)
        if noise_shape is None
        else tuple(s if n is None else n for s, n in zip(inputs.shape, noise_shape, strict=True))
    )
    keep_prob = 1.0 - rate
    uniform = _draw("uniform", shape, torch.float32, seed)
    if isinstance(keep_prob, numbers.Real) and keep_prob > 0 and inputs.dtype.is_floating_point:
        # The kept values are `inputs / keep_prob`, as with `where`, and the dropped are
        # 0; multiplying by the mask as floats takes a quarter of `where`'s time on CPU
        # (torch's `where` with a scalar branch is not vectorized), forward and backward.
        # Like torch's own dropout (and Keras's unseeded torch path), a dropped NaN or
        # infinity stays NaN where `where` would give 0.
        # The mask is `uniform < keep_prob` as 1.0 / 0.0, computed as the sign of
        # `keep_prob - uniform` clamped at 0: the same values (a float difference is 0
        # only between equal floats, and keeps the comparison's sign), in vectorized float
        # kernels, where a comparison to bool and its cast to float take twice as long.
        mask = torch.clamp_min(torch.sign(keep_prob - uniform), 0.0)
        return (inputs / keep_prob) * mask.to(inputs.dtype)
    keep = uniform < keep_prob
    return torch.where(
        keep, inputs / keep_prob, torch.zeros((), dtype=inputs.dtype, device=inputs.device)
    )


def shuffle(x, axis=0, seed=None):
    x = convert_to_tensor(x)
    perm = _draw("permutation", (x.shape[axis],), torch.int64, seed)
    return torch.index_select(x, axis, perm)


def gamma(shape, alpha, dtype=None, seed=None):
    return _draw("gamma", shape, _float(dtype), seed, tensors=(convert_to_tensor(alpha),))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    parameters = (convert_to_tensor(counts), convert_to_tensor(probabilities))
    return _draw("binomial", shape, _float(dtype), seed, tensors=parameters)


def beta(shape, alpha, beta, dtype=None, seed=None):
    parameters = (convert_to_tensor(alpha), convert_to_tensor(beta))
    return _draw("beta", shape, _float(dtype), seed, tensors=parameters)
