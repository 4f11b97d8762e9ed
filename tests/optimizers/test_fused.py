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


# Adam's one-pass kernel (torch's fused Adam, with epsilon rescaled to Keras's formula) --
def _adam_tensors(layout):
    """Variables, gradients and slots as torch tensors laid out as `layout` says:
    "rows" (contiguous), "columns" (contiguous transposed, as lamina's torch Dense kernels
    are), "mixed" (the gradients in the other layout from the variables)."""
    from lamina.backend.torch import optimizers as fused

    def tensor(x, columns):
        return torch.from_numpy(np.ascontiguousarray(x.T)).t() if columns else torch.tensor(x)

    grad_columns = {"rows": False, "columns": True, "mixed": False}[layout]
    var_columns = layout == "columns" or layout == "mixed"
    params = [tensor(W0[0], var_columns), torch.tensor(W0[1])]
    m = [torch.zeros_like(p) for p in params]
    v = [torch.zeros_like(p) for p in params]
    return fused, params, m, v, grad_columns


@pytest.mark.parametrize("layout", ["rows", "columns", "mixed"])
def test_one_pass_adam_matches_the_keras_formula_in_every_layout(layout, monkeypatch):
    fused, params, m, v, grad_columns = _adam_tensors(layout)
    calls = []
    kernel = torch._fused_adam_
    monkeypatch.setattr(torch, "_fused_adam_", lambda *a, **k: calls.append(1) or kernel(*a, **k))
    slots = [[_Slot(a), _Slot(b)] for a, b in zip(m, v)]
    hyper = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    for t, grads in enumerate(GRADS, start=1):
        g = [
            torch.from_numpy(np.ascontiguousarray(grads[0].T)).t()
            if grad_columns
            else torch.tensor(grads[0]),
            torch.tensor(grads[1]),
        ]
        assert fused.fused_apply("adam", [_Slot(p) for p in params], g, slots, 0.01, t, hyper)
    for a, b in zip(params, _numpy_adam(), strict=True):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-5, atol=1e-6)
    # Tensors laid out alike go through the kernel (as contiguous views); a gradient laid
    # out unlike its variable would be read in the wrong order by it, so the passes run.
    assert len(calls) == (0 if layout == "mixed" else len(GRADS))


class _Slot:  # what `fused_apply` reads of a variable or a slot: its tensor
    def __init__(self, value):
        self._value = value


def test_one_pass_adam_declines_a_bias_correction_of_zero():
    # beta_2 = 1: Keras's step size is lr * sqrt(1 - 1) = 0, the weights stay; torch's
    # kernel would divide by zero.
    fused, params, m, v, _ = _adam_tensors("rows")
    before = [p.clone() for p in params]
    slots = [[_Slot(a), _Slot(b)] for a, b in zip(m, v)]
    hyper = {"beta_1": 0.9, "beta_2": 1.0, "epsilon": 1e-7}
    grads = [torch.tensor(g) for g in GRADS[0]]
    fused.fused_apply("adam", [_Slot(p) for p in params], grads, slots, 0.01, 1.0, hyper)
    for p, b in zip(params, before):
        np.testing.assert_array_equal(p.numpy(), b.numpy())
    assert np.isfinite(v[0].numpy()).all()


def test_fit_updates_dense_kernels_with_the_one_pass_kernel(monkeypatch):
    calls = []
    kernel = torch._fused_adam_
    monkeypatch.setattr(
        torch, "_fused_adam_", lambda *a, **k: calls.append(len(a[0])) or kernel(*a, **k)
    )
    model = lamina.Sequential(
        [lamina.Input((4,)), lamina.layers.Dense(8, activation="relu"), lamina.layers.Dense(1)]
    )
    model.compile(optimizer="adam", loss="mse")
    x = RNG.normal(size=(32, 4)).astype("float32")
    model.fit(x, x[:, :1], batch_size=16, epochs=1, verbose=0)
    assert calls == [4, 4]  # two steps, each over the four variables at once
