"""The torch engine's fused optimizer updates (`backend.optimizers.fused_apply`) compute
exactly Keras's rules: checked against NumPy formulas and torch's own SGD, with the
variables updated in place."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import lamina  # noqa: E402
from lamina import optimizers  # noqa: E402

pytestmark = pytest.mark.engine("torch")

RNG = np.random.RandomState(0)
W0 = [RNG.normal(size=(3, 2)).astype("float32"), RNG.normal(size=(2,)).astype("float32")]
GRADS = [[RNG.normal(size=w.shape).astype("float32") for w in W0] for _ in range(4)]


def _run(optimizer):
    variables = [lamina.Variable(w.copy()) for w in W0]
    params = [v.value for v in variables]
    for grads in GRADS:
        optimizer.apply([torch.from_numpy(g) for g in grads], variables)
    assert all(v.value is p for v, p in zip(variables, params))  # in place
    return [v.numpy() for v in variables]


def _numpy_adam(lr=0.01, b1=0.9, b2=0.999, eps=1e-7, wd=None):
    w = [x.astype("float64") for x in W0]
    m = [np.zeros_like(x) for x in w]
    v = [np.zeros_like(x) for x in w]
    for t, grads in enumerate(GRADS, start=1):
        for i, g in enumerate(grads):
            if wd is not None:
                w[i] = w[i] - w[i] * wd * lr
            m[i] = m[i] + (g - m[i]) * (1 - b1)
            v[i] = v[i] + (g * g - v[i]) * (1 - b2)
            alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
            w[i] = w[i] - m[i] * alpha / (np.sqrt(v[i]) + eps)
    return w


def test_adam_matches_the_keras_formula():
    got = _run(optimizers.Adam(0.01))
    for a, b in zip(got, _numpy_adam(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adamw_decays_then_takes_the_adam_step():
    got = _run(optimizers.AdamW(0.01, weight_decay=0.1))
    for a, b in zip(got, _numpy_adam(wd=0.1), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("momentum, nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_matches_torch_sgd(momentum, nesterov):
    got = _run(optimizers.SGD(0.1, momentum=momentum, nesterov=nesterov))
    params = [torch.nn.Parameter(torch.from_numpy(w.copy())) for w in W0]
    opt = torch.optim.SGD(params, lr=0.1, momentum=momentum, nesterov=nesterov)
    for grads in GRADS:
        for p, g in zip(params, grads):
            p.grad = torch.from_numpy(g)
        opt.step()
    for a, p in zip(got, params, strict=True):
        np.testing.assert_allclose(a, p.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_learning_rate_schedule_and_clipping_go_through_the_fused_step():
    schedule = optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    got = _run(optimizers.SGD(schedule, clipvalue=0.5))
    w = [x.astype("float64") for x in W0]
    for step, grads in enumerate(GRADS):
        lr = 0.1 * 0.5**step
        w = [wi - lr * np.clip(g, -0.5, 0.5) for wi, g in zip(w, grads)]
    for a, b in zip(got, w, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_amsgrad_and_subclassed_rules_keep_the_generic_path():
    assert optimizers.Adam(amsgrad=True)._fused_kind() is None

    class HalfSGD(optimizers.SGD):
        def _update(self, grad, slots, learning_rate, step):
            return super()._update(grad * 0.5, slots, learning_rate, step)

    assert HalfSGD()._fused_kind() is None
    got = _run(HalfSGD(0.1))
    expected = [W0[i] - 0.1 * 0.5 * sum(g[i] for g in GRADS) for i in range(2)]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_stateless_apply_never_writes_the_variables():
    opt = optimizers.Adam(0.01)
    variables = [lamina.Variable(w.copy()) for w in W0]
    opt.build(variables)
    grads = [torch.from_numpy(g) for g in GRADS[0]]
    new, _ = opt.stateless_apply(
        [v.value for v in opt.variables], grads, [v.value for v in variables]
    )
    for v, w in zip(variables, W0):
        np.testing.assert_array_equal(v.numpy(), w)
    assert not np.allclose(lamina.ops.convert_to_numpy(new[0]), W0[0])
