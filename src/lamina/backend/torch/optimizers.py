"""Fused optimizer updates on torch: whole-list, in-place `torch._foreach_*` kernels.

A stateful torch step runs eagerly, so the generic update (a dozen lamina ops per
variable) costs more than the math. For the common optimizers the step is done here on
all variables at once, in place, with the same formulas as `lamina.optimizers.rules`
(Keras's: Adam's bias correction folded into the step size, `epsilon` added to the
uncorrected `sqrt(v)`; SGD's momentum holding the learning rate).
"""

from __future__ import annotations

import math

import torch

# The updates `fused_apply` applies in place.
FUSED = frozenset({"adam", "sgd"})


def _values(variables):
    return [v._value for v in variables]


def _float(x) -> float:
    return float(x.item()) if isinstance(x, torch.Tensor) else float(x)


def fused_apply(kind, variables, grads, slots, learning_rate, step, hyper):
    """Apply one step in place and return True, or False when `kind` has no fused form."""
    if kind not in FUSED:
        return False
    params = _values(variables)
    if any(p.is_meta for p in params):
        return False
    grads = [g.detach() if g.requires_grad else g for g in grads]  # (an alias per detach)
    lr = _float(learning_rate)
    with torch.no_grad():
        if kind == "sgd":
            momentum = float(hyper["momentum"])
            if not slots or not slots[0]:
                torch._foreach_add_(params, grads, alpha=-lr)
                return True
            m = [s[0]._value for s in slots]
            torch._foreach_mul_(m, momentum)
            torch._foreach_add_(m, grads, alpha=-lr)
            if hyper["nesterov"]:
                torch._foreach_add_(params, m, alpha=momentum)
                torch._foreach_add_(params, grads, alpha=-lr)
            else:
                torch._foreach_add_(params, m)
            return True
        beta_1, beta_2 = float(hyper["beta_1"]), float(hyper["beta_2"])
        t = _float(step)
        m = [s[0]._value for s in slots]
        v = [s[1]._value for s in slots]
        torch._foreach_lerp_(m, grads, 1.0 - beta_1)
        torch._foreach_lerp_(v, torch._foreach_mul(grads, grads), 1.0 - beta_2)
        alpha = lr * math.sqrt(1.0 - beta_2**t) / (1.0 - beta_1**t)
        denom = torch._foreach_sqrt(v)
        torch._foreach_add_(denom, float(hyper["epsilon"]))
        torch._foreach_addcdiv_(params, m, denom, value=-alpha)
    return True
