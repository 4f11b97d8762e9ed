"""Every optimizer against a NumPy reference of its published update rule, over 5 steps."""

import numpy as np
import pytest

import lamina
from lamina import backend, ops, optimizers

GRADS = [np.array([0.5, -1.0, 2.0], "float32") * (k + 1) * (-1) ** k for k in range(5)]
W0 = np.array([1.0, -2.0, 0.5], "float32")


def ref_sgd(lr=0.01, momentum=0.0, nesterov=False):
    w, m = W0.astype("float64"), np.zeros(3)
    for g in GRADS:
        if momentum:
            m = momentum * m - lr * g
            w = w + (momentum * m - lr * g if nesterov else m)
        else:
            w = w - lr * g
    return w


def ref_adam(lr=0.001, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, wd=0.0):
    w, m, v, vhat = W0.astype("float64"), np.zeros(3), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, start=1):
        w = w - w * wd * lr
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        if amsgrad:
            vhat = np.maximum(vhat, v)
        # Keras folds the bias correction into the step: eps is added to sqrt(v) unscaled.
        w = w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(vhat if amsgrad else v) + eps)
    return w


def ref_rmsprop(lr=0.001, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    w, v, a, m = W0.astype("float64"), np.zeros(3), np.zeros(3), np.zeros(3)
    for g in GRADS:
        v = rho * v + (1 - rho) * g**2
        denom = v + eps
        if centered:
            a = rho * a + (1 - rho) * g
            denom = v - a**2 + eps
        inc = lr * g / np.sqrt(denom)
        if momentum:
            m = momentum * m + inc
            w = w - m
        else:
            w = w - inc
    return w


def ref_adagrad(lr=0.001, init=0.1, eps=1e-7):
    w, acc = W0.astype("float64"), np.full(3, init)
    for g in GRADS:
        acc = acc + g**2
        w = w - lr * g / np.sqrt(acc + eps)
    return w


def ref_adadelta(lr=0.001, rho=0.95, eps=1e-7):
    w, eg, ed = W0.astype("float64"), np.zeros(3), np.zeros(3)
    for g in GRADS:
        eg = rho * eg + (1 - rho) * g**2
        delta = -np.sqrt(ed + eps) / np.sqrt(eg + eps) * g
        ed = rho * ed + (1 - rho) * delta**2
        w = w + lr * delta
    return w


def ref_adamax(lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    w, m, u = W0.astype("float64"), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr * m / ((1 - b1**t) * (u + eps))
    return w


def ref_nadam(lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    w, m, v, prod = W0.astype("float64"), np.zeros(3), np.zeros(3), 1.0
    for t, g in enumerate(GRADS, start=1):
        mu_t = b1 * (1 - 0.5 * 0.96**t)
        mu_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        prod = prod * mu_t
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat = mu_next * m / (1 - prod * mu_next) + (1 - mu_t) * g / (1 - prod)
        v_hat = v / (1 - b2**t)
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
    return w


def ref_lion(lr=0.001, b1=0.9, b2=0.99):
    w, m = W0.astype("float64"), np.zeros(3)
    for g in GRADS:
        w = w - lr * np.sign(b1 * m + (1 - b1) * g)
        m = b2 * m + (1 - b2) * g
    return w


CASES = [
    ("sgd", lambda: optimizers.SGD(0.1), lambda: ref_sgd(0.1)),
    ("sgd-momentum", lambda: optimizers.SGD(0.1, momentum=0.9), lambda: ref_sgd(0.1, 0.9)),
    (
        "sgd-nesterov",
        lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
        lambda: ref_sgd(0.1, 0.9, True),
    ),
    ("adam", lambda: optimizers.Adam(0.1), lambda: ref_adam(0.1)),
    (
        "adam-amsgrad",
        lambda: optimizers.Adam(0.1, amsgrad=True),
        lambda: ref_adam(0.1, amsgrad=True),
    ),
    ("adamw", lambda: optimizers.AdamW(0.1, weight_decay=0.1), lambda: ref_adam(0.1, wd=0.1)),
    ("rmsprop", lambda: optimizers.RMSprop(0.1), lambda: ref_rmsprop(0.1)),
    (
        "rmsprop-centered-momentum",
        lambda: optimizers.RMSprop(0.1, momentum=0.5, centered=True),
        lambda: ref_rmsprop(0.1, momentum=0.5, centered=True),
    ),
    ("adagrad", lambda: optimizers.Adagrad(0.1), lambda: ref_adagrad(0.1)),
    ("adadelta", lambda: optimizers.Adadelta(1.0), lambda: ref_adadelta(1.0)),
    ("adamax", lambda: optimizers.Adamax(0.1), lambda: ref_adamax(0.1)),
    ("nadam", lambda: optimizers.Nadam(0.1), lambda: ref_nadam(0.1)),
    ("lion", lambda: optimizers.Lion(0.1), lambda: ref_lion(0.1)),
]


@pytest.mark.parametrize("name, make, reference", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy_reference(name, make, reference):
    opt = make()
    w = lamina.Variable(W0.copy(), name="w")
    for g in GRADS:
        opt.apply([ops.convert_to_tensor(g)], [w])
    np.testing.assert_allclose(w.numpy(), reference(), rtol=2e-5, atol=2e-6)
    assert int(opt.iterations.numpy()) == 5
    clone = type(opt).from_config(opt.get_config())
    assert clone.get_config() == opt.get_config()


@pytest.mark.parametrize("name, make, reference", CASES, ids=[c[0] for c in CASES])
def test_compiled_pure_step_equals_eager(name, make, reference):
    import jax

    opt = make()
    w = lamina.Variable(W0.copy(), name="w")
    opt.build([w])
    state = [w] + opt.variables

    @jax.jit
    def step(values, g):
        with backend.StatelessScope(list(zip(state, values))) as scope:
            opt.apply([g], [w])
        return [
            scope.get_update(v) if scope.get_update(v) is not None else old
            for v, old in zip(state, values)
        ]

    values = [v.value for v in state]
    for g in GRADS:
        values = step(values, g)
    np.testing.assert_allclose(np.asarray(values[0]), reference(), rtol=2e-5, atol=2e-6)


def test_clipping():
    g = np.array([3.0, 4.0], "float32")  # norm 5
    for kwargs, expected in [
        ({"clipvalue": 1.0}, [1.0, 1.0]),
        ({"clipnorm": 1.0}, [0.6, 0.8]),
        ({"global_clipnorm": 2.5}, [1.5, 2.0]),
    ]:
        w = lamina.Variable(np.zeros(2, "float32"))
        optimizers.SGD(1.0, **kwargs).apply([ops.convert_to_tensor(g)], [w])
        np.testing.assert_allclose(-w.numpy(), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="at most one of `clipnorm` and `global_clipnorm`"):
        optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0)


def test_weight_decay_and_exclusion():
    a, b = (
        lamina.Variable(np.ones(2, "float32"), name="a"),
        lamina.Variable(np.ones(2, "float32"), name="bias"),
    )
    opt = optimizers.SGD(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    zeros = ops.zeros(2)
    opt.apply([zeros, zeros], [a, b])
    np.testing.assert_allclose(a.numpy(), [0.95, 0.95])
    np.testing.assert_allclose(b.numpy(), [1.0, 1.0])


def test_ema_and_finalize():
    w = lamina.Variable(np.zeros(1, "float32"))
    opt = optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5)
    for _ in range(3):
        opt.apply([ops.convert_to_tensor(np.array([-1.0], "float32"))], [w])
    # weights 1, 2, 3; EMA starts at the first value: 1, then 1.5, then 2.25
    np.testing.assert_allclose(w.numpy(), [3.0])
    opt.finalize_variable_values([w])
    np.testing.assert_allclose(w.numpy(), [2.25])


def test_learning_rate_property_and_schedule_errors():
    opt = optimizers.Adam(0.01)
    np.testing.assert_allclose(float(opt.learning_rate), 0.01, rtol=1e-6)
    opt.learning_rate = 0.5
    np.testing.assert_allclose(float(opt.learning_rate), 0.5)
    scheduled = optimizers.SGD(optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="schedule"):
        scheduled.learning_rate = 0.1
    config = scheduled.get_config()
    assert config["learning_rate"]["class_name"] == "ExponentialDecay"
    revived = optimizers.SGD.from_config(config)
    np.testing.assert_allclose(float(revived.learning_rate), 0.1, rtol=1e-6)
    with pytest.raises(ValueError, match="Could not interpret optimizer|Unknown optimizer"):
        optimizers.get(42)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        optimizers.get("adamm")
    with pytest.raises(TypeError, match="unexpected keyword"):
        optimizers.Adam(lr_typo=1)


SCHEDULES = [
    (optimizers.schedules.ExponentialDecay(0.1, 10, 0.5), lambda t: 0.1 * 0.5 ** (t / 10)),
    (
        optimizers.schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True),
        lambda t: 0.1 * 0.5 ** (t // 10),
    ),
    (optimizers.schedules.InverseTimeDecay(0.1, 10, 0.5), lambda t: 0.1 / (1 + 0.5 * t / 10)),
    (
        optimizers.schedules.PiecewiseConstantDecay([5, 15], [0.3, 0.2, 0.1]),
        lambda t: 0.3 if t <= 5 else 0.2 if t <= 15 else 0.1,
    ),
    (
        optimizers.schedules.PolynomialDecay(0.1, 20, 0.01, power=2.0),
        lambda t: (0.1 - 0.01) * (1 - min(t, 20) / 20) ** 2 + 0.01,
    ),
    (
        optimizers.schedules.CosineDecay(0.1, 20, alpha=0.1),
        lambda t: 0.1 * (0.9 * 0.5 * (1 + np.cos(np.pi * min(t, 20) / 20)) + 0.1),
    ),
    (
        optimizers.schedules.CosineDecay(0.0, 20, warmup_target=0.1, warmup_steps=10),
        lambda t: (
            0.1 * t / 10 if t < 10 else 0.1 * 0.5 * (1 + np.cos(np.pi * min(t - 10, 20) / 20))
        ),
    ),
]


@pytest.mark.parametrize(
    "schedule, reference",
    SCHEDULES,
    ids=[type(s[0]).__name__ + str(i) for i, s in enumerate(SCHEDULES)],
)
def test_schedules_match_formulas(schedule, reference):
    for t in (0, 1, 5, 9, 10, 16, 25):
        np.testing.assert_allclose(float(schedule(t)), reference(t), rtol=1e-5, atol=1e-7)
    assert type(schedule).from_config(schedule.get_config()).get_config() == schedule.get_config()


def test_cosine_decay_restarts():
    s = optimizers.schedules.CosineDecayRestarts(1.0, first_decay_steps=10, t_mul=2.0, m_mul=0.5)
    np.testing.assert_allclose(float(s(0)), 1.0)
    np.testing.assert_allclose(float(s(5)), 0.5, rtol=1e-5)
    np.testing.assert_allclose(float(s(10)), 0.5, rtol=1e-5)  # restart at half height
    np.testing.assert_allclose(float(s(20)), 0.5 * 0.5 * (1 + np.cos(np.pi * 0.5)), rtol=1e-4)
