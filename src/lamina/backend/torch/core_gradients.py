"""Differentiation on torch: `value_and_grad`, `custom_gradient`, `remat`, `jvp`.

Part of the engine's `core` contract module (which re-exports every name), with JAX's
semantics: gradients with respect to the first argument, taken on detached copies so no
`.grad` is left behind.
"""

from __future__ import annotations

import functools
import warnings

import torch

from lamina import tree as nest
from lamina.backend.torch.core import _unwrap, convert_to_tensor


def value_and_grad(fn, has_aux=False):
    """`fn`'s value and its gradient with respect to the first argument.

    As `jax.value_and_grad`: the wrapped function returns `(value, grads)`, or
    `((value, aux), grads)` with `has_aux`, where `grads` has the structure of the first
    argument (a tensor or a nested list/tuple/dict of them). Gradients are taken with
    `torch.autograd.grad` on detached copies of the inputs, so no `.grad` is left on
    anything; everything returned is detached. A float input `value` does not depend on
    gets a zero gradient.
    """

    def wrapped(primals, *args, **kwargs):
        flat = nest.flatten(primals)
        inputs = [None if x is None else _grad_leaf(x) for x in flat]
        with torch.enable_grad():
            out = fn(nest.pack_sequence_as(primals, inputs), *args, **kwargs)
            value, aux = out if has_aux else (out, None)
            value = convert_to_tensor(value)
            if value.ndim != 0:
                raise ValueError(
                    "value_and_grad needs `fn` to return a scalar (shape ()); it returned "
                    f"shape {tuple(value.shape)}. Reduce it (e.g. with ops.sum or ops.mean) "
                    "or differentiate each element separately."
                )
            wrt = [x for x in inputs if x is not None and x.requires_grad]
            grads = (
                torch.autograd.grad(value, wrt, allow_unused=True)
                if wrt and value.requires_grad
                else [None] * len(wrt)
            )
        found = iter(grads)
        flat_grads = [
            None
            if x is None
            else (_zero_or(next(found), x) if x.requires_grad else torch.zeros_like(x))
            for x in inputs
        ]
        grads = nest.pack_sequence_as(primals, flat_grads)
        value = value.detach()
        if has_aux:
            return (value, nest.map_structure(_detach, aux)), grads
        return value, grads

    return wrapped


def _grad_leaf(x):
    x = convert_to_tensor(x).detach()
    if x.is_floating_point() or x.is_complex():
        x.requires_grad_(True)
    return x


def _zero_or(grad, x):
    return torch.zeros_like(x) if grad is None else grad.detach()


def _detach(x):
    return x.detach() if isinstance(x, torch.Tensor) else x


def remat(f):
    """`f` under torch's non-reentrant `checkpoint` while autograd records (without it
    there is nothing to recompute, and `f` runs as it is).

    lamina writes a variable in place (its `Parameter`), so a value that does not require
    grad and is a `Parameter` (a moving statistic, a seed generator's state) is copied
    first: the recomputation in the backward pass must see the value of the call, not
    one assigned since."""

    def rematerialized(*args, **kwargs):
        if not torch.is_grad_enabled():
            return f(*args, **kwargs)
        args, kwargs = nest.map_structure(_snapshot_state, (args, kwargs))
        return torch.utils.checkpoint.checkpoint(f, *args, use_reentrant=False, **kwargs)

    return functools.wraps(f)(rematerialized)


def _snapshot_state(x):
    if isinstance(x, torch.nn.Parameter) and not x.requires_grad:
        return x.detach().clone()
    return x


# How many calls of a `custom_gradient` function ran: a captured train step that ran one
# cannot be replayed from its recorded operations, which would differentiate the
# forward pass itself (`replay.py` checks it).
CUSTOM_GRADIENT_CALLS = [0]


def custom_gradient(f):
    """`f(*args)` returns `(output, grad_fn)`; backward calls `grad_fn(*upstream)`."""

    class _Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            output, grad_fn = f(*args)
            ctx.grad_fn = grad_fn
            return output

        @staticmethod
        def backward(ctx, *upstream):
            grads = ctx.grad_fn(*upstream)
            return tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)

    def wrapped(*args):
        CUSTOM_GRADIENT_CALLS[0] += 1
        return _Function.apply(*[_unwrap(a) for a in args])

    return wrapped


def jvp(fun, primals, tangents, has_aux=False):
    primals = tuple(convert_to_tensor(p) for p in primals)
    tangents = tuple(convert_to_tensor(t) for t in tangents)
    with warnings.catch_warnings():
        # torch loads its forward-mode rules on first use through the deprecated
        # `torch.jit.script`; the warning is torch's own, not the caller's.
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return torch.func.jvp(fun, primals, tangents, has_aux=has_aux)
