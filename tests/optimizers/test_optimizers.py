"""One suite every optimizer runs through.

Each optimizer is compared over 5 steps with a NumPy (float64) reference of its published
update rule as Keras 3 writes it, alone and combined with each base feature (clipping,
weight decay, EMA, a learning rate changed between steps); then compiled as a pure step
under `jax.jit`, round-tripped through its config, and checked for Keras's variable order.
"""

import jax
import numpy as np
import optax
import pytest

import lamina
from lamina import backend, ops, optimizers

W0 = [np.array([1.0, -2.0, 0.5], "float32"), np.array([[0.3, -0.7], [1.5, 0.2]], "float32")]
GRADS = [
    [
        np.array([0.5, -1.0, 2.0], "float32") * (k + 1) * (-1) ** k,
        np.array([[0.1, 0.4], [-0.3, 0.8]], "float32") * (k + 1),
    ]
    for k in range(5)
]


# NumPy references: (w, g, state, lr, t) -> new w, with `state` a dict updated in place.
def ref_sgd(w, g, s, lr, t, momentum=0.0, nesterov=False):
    if not momentum:
        return w - lr * g
    s["m"] = momentum * s.get("m", 0.0) - lr * g
    return w + (momentum * s["m"] - lr * g if nesterov else s["m"])


def ref_adam(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g**2
    v = s["v"]
    if amsgrad:
        v = s["vhat"] = np.maximum(s.get("vhat", 0.0), s["v"])
    # Keras folds the bias correction into the step: eps is added to the raw sqrt(v).
    return w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * s["m"] / (np.sqrt(v) + eps)


def ref_adamax(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7):
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["u"] = np.maximum(b2 * s.get("u", 0.0), np.abs(g))
    return w - lr * s["m"] / ((1 - b1**t) * (s["u"] + eps))


def ref_nadam(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7):
    mu_t, mu_next = b1 * (1 - 0.5 * 0.96**t), b1 * (1 - 0.5 * 0.96 ** (t + 1))
    s["prod"] = prod = s.get("prod", 1.0) * mu_t
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g**2
    m_hat = mu_next * s["m"] / (1 - prod * mu_next) + (1 - mu_t) * g / (1 - prod)
    return w - lr * m_hat / (np.sqrt(s["v"] / (1 - b2**t)) + eps)


def ref_rmsprop(w, g, s, lr, t, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    s["v"] = rho * s.get("v", 0.0) + (1 - rho) * g**2
    denominator = s["v"] + eps
    if centered:
        s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g
        denominator = s["v"] - s["a"] ** 2 + eps
    increment = lr * g / np.sqrt(denominator)
    if momentum:
        s["m"] = momentum * s.get("m", 0.0) + increment
        return w - s["m"]
    return w - increment


def ref_adagrad(w, g, s, lr, t, init=0.1, eps=1e-7):
    s["acc"] = s.get("acc", init) + g**2
    return w - lr * g / np.sqrt(s["acc"] + eps)


def ref_adadelta(w, g, s, lr, t, rho=0.95, eps=1e-7):
    s["eg"] = rho * s.get("eg", 0.0) + (1 - rho) * g**2
    delta = -np.sqrt(s.get("ed", 0.0) + eps) / np.sqrt(s["eg"] + eps) * g
    s["ed"] = rho * s.get("ed", 0.0) + (1 - rho) * delta**2
    return w + lr * delta


def ref_lion(w, g, s, lr, t, b1=0.9, b2=0.99):
    m = s.get("m", 0.0)
    s["m"] = b2 * m + (1 - b2) * g
    return w - lr * np.sign(b1 * m + (1 - b1) * g)


# (id, optimizer class, kwargs, reference rule, reference kwargs)
CASES = [
    ("sgd", optimizers.SGD, {}, ref_sgd, {}),
    ("sgd-momentum", optimizers.SGD, {"momentum": 0.9}, ref_sgd, {"momentum": 0.9}),
    (
        "sgd-nesterov",
        optimizers.SGD,
        {"momentum": 0.9, "nesterov": True},
        ref_sgd,
        {"momentum": 0.9, "nesterov": True},
    ),
    ("adam", optimizers.Adam, {}, ref_adam, {}),
    ("adam-amsgrad", optimizers.Adam, {"amsgrad": True}, ref_adam, {"amsgrad": True}),
    ("adamw", optimizers.AdamW, {"weight_decay": 0.1}, ref_adam, {}),
    ("adamax", optimizers.Adamax, {}, ref_adamax, {}),
    ("nadam", optimizers.Nadam, {}, ref_nadam, {}),
    ("rmsprop", optimizers.RMSprop, {}, ref_rmsprop, {}),
    ("rmsprop-momentum", optimizers.RMSprop, {"momentum": 0.5}, ref_rmsprop, {"momentum": 0.5}),
    (
        "rmsprop-centered-momentum",
        optimizers.RMSprop,
        {"momentum": 0.5, "centered": True, "rho": 0.8},
        ref_rmsprop,
        {"momentum": 0.5, "centered": True, "rho": 0.8},
    ),
    ("adagrad", optimizers.Adagrad, {}, ref_adagrad, {}),
    ("adadelta", optimizers.Adadelta, {}, ref_adadelta, {}),
    ("lion", optimizers.Lion, {}, ref_lion, {}),
]
IDS = [c[0] for c in CASES]
LR = 0.1


def clip_reference(grads, clipnorm=None, clipvalue=None, global_clipnorm=None):
    if clipnorm:
        return [g * clipnorm / max(np.linalg.norm(g), clipnorm) for g in grads]
    if global_clipnorm:
        norm = np.sqrt(sum(np.sum(g**2) for g in grads))
        return [g * min(1.0, global_clipnorm / norm) for g in grads]
    if clipvalue:
        return [np.clip(g, -clipvalue, clipvalue) for g in grads]
    return grads


def reference(rule, rule_kwargs, lrs, weight_decay=None, ema=None, **clip):
    """Final weights (and EMA) after len(lrs) steps of the NumPy reference."""
    ws = [w.astype("float64") for w in W0]
    states = [{} for _ in ws]
    averages = None
    for t, (grads, lr) in enumerate(zip(GRADS, lrs), start=1):
        grads = clip_reference([g.astype("float64") for g in grads], **clip)
        if weight_decay is not None:
            ws = [w - w * weight_decay * lr for w in ws]
        ws = [rule(w, g, s, lr, t, **rule_kwargs) for w, g, s in zip(ws, grads, states)]
        if ema is not None:
            averages = [w.copy() for w in ws] if averages is None else averages
            averages = [a * ema + w * (1 - ema) for a, w in zip(averages, ws)]
    return ws, averages


def run(opt, lrs):
    ws = [lamina.Variable(w.copy(), name=f"w{i}") for i, w in enumerate(W0)]
    for grads, lr in zip(GRADS, lrs):
        opt.learning_rate = lr
        opt.apply([ops.convert_to_tensor(g) for g in grads], ws)
    return ws


def assert_close(actual, expected):
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(ops.convert_to_numpy(a), e, rtol=5e-5, atol=5e-6)


FEATURES = {
    "plain": {},
    "clipnorm": {"clipnorm": 0.7},
    "clipvalue": {"clipvalue": 0.6},
    "global_clipnorm": {"global_clipnorm": 1.5},
    "weight_decay": {"weight_decay": 0.05},
}


@pytest.mark.parametrize("feature", list(FEATURES))
@pytest.mark.parametrize("name, cls, kwargs, rule, rule_kwargs", CASES, ids=IDS)
def test_matches_numpy_reference(name, cls, kwargs, rule, rule_kwargs, feature):
    extra = FEATURES[feature]
    if name == "adamw" and feature == "weight_decay":
        pytest.skip("AdamW's own weight decay is the feature")
    # The learning rate changes between steps: rules holding lr in their state must see it.
    lrs = [LR, LR, LR / 2, LR / 2, LR / 4]
    opt = cls(learning_rate=LR, **kwargs, **extra)
    ws = run(opt, lrs)
    weight_decay = extra.get("weight_decay", kwargs.get("weight_decay"))
    clip = {k: v for k, v in extra.items() if k != "weight_decay"}
    expected, _ = reference(rule, rule_kwargs, lrs, weight_decay=weight_decay, **clip)
    assert_close([w.numpy() for w in ws], expected)
    assert int(opt.iterations.numpy()) == 5
    assert opt.iterations.dtype == "int32"
    np.testing.assert_allclose(float(opt.learning_rate), LR / 4)


@pytest.mark.parametrize("name, cls, kwargs, rule, rule_kwargs", CASES, ids=IDS)
def test_ema_and_finalize(name, cls, kwargs, rule, rule_kwargs):
    opt = cls(learning_rate=LR, use_ema=True, ema_momentum=0.8, **kwargs)
    ws = run(opt, [LR] * 5)
    expected, averages = reference(rule, rule_kwargs, [LR] * 5, kwargs.get("weight_decay"), 0.8)
    assert_close([w.numpy() for w in ws], expected)
    opt.finalize_variable_values(ws)
    assert_close([w.numpy() for w in ws], averages)


# jax.jit over stateless_apply: the JAX engine's compiled-step contract.
@pytest.mark.engine("jax")
@pytest.mark.parametrize("name, cls, kwargs, rule, rule_kwargs", CASES, ids=IDS)
def test_jitted_pure_step_equals_eager(name, cls, kwargs, rule, rule_kwargs):
    opt = cls(learning_rate=LR, **kwargs)
    ws = [lamina.Variable(w.copy(), name=f"w{i}") for i, w in enumerate(W0)]
    opt.build(ws)
    state = ws + opt.variables

    @jax.jit
    def step(values, grads):
        with backend.StatelessScope(zip(state, values)) as scope:
            opt.apply(grads, ws)
        updated = dict((id(v), value) for v, value in scope.updates)
        return [updated.get(id(v), old) for v, old in zip(state, values)]

    @jax.jit
    def stateless(trainable, optimizer_values, grads):
        return opt.stateless_apply(optimizer_values, grads, trainable)

    values = [v.value for v in state]
    trainable, optimizer_values = values[: len(ws)], values[len(ws) :]
    for grads in GRADS:
        values = step(values, grads)
        trainable, optimizer_values = stateless(trainable, optimizer_values, grads)
    expected, _ = reference(rule, rule_kwargs, [LR] * 5, kwargs.get("weight_decay"))
    assert_close(values[: len(ws)], expected)
    assert_close(trainable, expected)
    assert int(values[len(ws)]) == int(optimizer_values[0]) == 5
    # The variables themselves were not touched by the pure steps.
    assert int(opt.iterations.numpy()) == 0
    assert_close([w.numpy() for w in ws], W0)


@pytest.mark.parametrize("name, cls, kwargs, rule, rule_kwargs", CASES, ids=IDS)
def test_config_round_trip_and_registry(name, cls, kwargs, rule, rule_kwargs):
    opt = cls(learning_rate=0.003, clipnorm=1.0, **kwargs)
    config = opt.get_config()
    assert config["learning_rate"] == 0.003
    assert cls.from_config(config).get_config() == config
    revived = optimizers.deserialize(optimizers.serialize(opt))
    assert type(revived) is cls and revived.get_config() == config
    assert optimizers.serialize(opt)["module"] == "keras.optimizers"
    assert type(optimizers.get(cls.__name__.lower())) is cls
    assert type(optimizers.get(cls.__name__)) is cls


def test_variable_order_and_names_follow_keras():
    a = lamina.Variable(np.zeros(2, "float32"), name="a")
    b = lamina.Variable(np.zeros(3, "float32"), name="b")
    opt = optimizers.Adam(amsgrad=True, use_ema=True)
    opt.build([a, b])
    opt.build([a])  # idempotent
    assert [v.name for v in opt.variables] == [
        "iteration",
        "learning_rate",
        "a_average",
        "b_average",
        "a_momentum",
        "a_velocity",
        "b_momentum",
        "b_velocity",
        "a_velocity_hat",
        "b_velocity_hat",
    ]
    rms = optimizers.RMSprop(momentum=0.9, centered=True)
    rms.build([a, b])
    assert [v.name for v in rms.variables][2:] == [
        "a_velocity",
        "b_velocity",
        "a_momentum",
        "b_momentum",
        "a_average_gradient",
        "b_average_gradient",
    ]
    assert all(not v.trainable for v in rms.variables)
    scheduled = optimizers.SGD(optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    scheduled.build([a])
    assert [v.name for v in scheduled.variables] == ["iteration"]
    adagrad = optimizers.Adagrad(initial_accumulator_value=0.25)
    adagrad.build([a])
    np.testing.assert_allclose(adagrad.variables[-1].numpy(), [0.25, 0.25])


@pytest.mark.parametrize(
    "make_ours, make_optax",
    [
        (lambda: optimizers.Adam(LR, epsilon=0.0), lambda: optax.adam(LR, eps=0.0)),
        (lambda: optimizers.Lion(LR), lambda: optax.lion(LR, b1=0.9, b2=0.99, weight_decay=0.0)),
        (
            lambda: optimizers.SGD(LR, momentum=0.9, nesterov=True),
            lambda: optax.sgd(LR, momentum=0.9, nesterov=True),
        ),
    ],
    ids=["adam", "lion", "sgd-nesterov"],
)
def test_matches_optax(make_ours, make_optax):
    ours = run(make_ours(), [LR] * 5)
    transform = make_optax()
    params = [ops.convert_to_numpy(w) for w in W0]
    opt_state = transform.init(params)
    for grads in GRADS:
        updates, opt_state = transform.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
    assert_close([w.numpy() for w in ours], [ops.convert_to_numpy(p) for p in params])


def test_schedule_is_evaluated_at_iterations():
    schedule = optimizers.schedules.PiecewiseConstantDecay([1, 2], [1.0, 0.5, 0.25])
    w = lamina.Variable(np.zeros(1, "float32"))
    opt = optimizers.SGD(schedule)
    steps = []
    for _ in range(4):
        steps.append(float(opt.learning_rate))
        before = w.numpy()[0]
        opt.apply([ops.ones((1,))], [w])
        assert w.numpy()[0] == pytest.approx(before - steps[-1])
    assert steps == [1.0, 1.0, 0.5, 0.25]


def test_ema_overwrite_frequency():
    w = lamina.Variable(np.zeros(1, "float32"))
    opt = optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    opt.apply([np.array([-1.0], "float32")], [w])  # w = 1, ema = 1
    np.testing.assert_allclose(w.numpy(), [1.0])
    opt.apply([np.array([-1.0], "float32")], [w])  # w = 2, ema = 1.5, overwritten
    np.testing.assert_allclose(w.numpy(), [1.5])


def test_weight_decay_exclusion_none_grads_and_constraints():
    a = lamina.Variable(np.ones(2, "float32"), name="kernel")
    b = lamina.Variable(np.ones(2, "float32"), name="bias")
    c = lamina.Variable(np.ones(2, "float32"), name="gamma")
    c.constraint = lambda x: ops.minimum(x, 0.5)
    opt = optimizers.SGD(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_list=[c], var_names=["bia"])
    zeros = ops.zeros(2)
    opt.apply([zeros, zeros, None], [a, b, c])
    np.testing.assert_allclose(a.numpy(), [0.95, 0.95])
    np.testing.assert_allclose(b.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(c.numpy(), [1.0, 1.0])  # no gradient: untouched
    opt.apply([zeros, zeros, zeros])
    np.testing.assert_allclose(c.numpy(), [0.5, 0.5])  # excluded, then constrained
    with pytest.raises(ValueError, match="before it is built"):
        opt.exclude_from_weight_decay(var_names=["kernel"])
    with pytest.raises(ValueError, match="no gradients"):
        opt.apply([None, None, None])


def test_errors_are_clear():
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['lr_typo'\]"):
        optimizers.Adam(lr_typo=1)
    with pytest.raises(ValueError, match="at most one of `clipnorm`"):
        optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0)
    with pytest.raises(ValueError, match="`learning_rate` must be"):
        optimizers.SGD("fast")
    with pytest.raises(ValueError, match="momentum"):
        optimizers.SGD(momentum=-0.5)
    with pytest.raises(ValueError, match="beta_1"):
        optimizers.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="weight_decay"):
        optimizers.AdamW(weight_decay=None)
    scheduled = optimizers.SGD(optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="cannot be set"):
        scheduled.learning_rate = 0.1
    with pytest.raises(TypeError, match="schedule"):
        optimizers.SGD(0.1).learning_rate = optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    opt = optimizers.SGD()
    with pytest.raises(ValueError, match="not built"):
        opt.apply([ops.zeros(1)])
    known, other = lamina.Variable(np.zeros(1, "float32")), lamina.Variable(np.zeros(1, "float32"))
    opt.apply([ops.zeros(1)], [known])
    with pytest.raises(ValueError, match="built for other variables"):
        opt.apply([ops.zeros(1)], [other])
    with pytest.raises(ValueError, match="2 gradients for 1 variables"):
        opt.apply([ops.zeros(1), ops.zeros(1)], [known])
    with pytest.raises(ValueError, match="Could not interpret optimizer"):
        optimizers.get(42)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        optimizers.get("adamm")


# counts jax.jit traces of stateless_apply.
@pytest.mark.engine("jax")
def test_schedule_in_config_and_compiled_learning_rate_change():
    schedule = optimizers.schedules.CosineDecay(0.1, 100, alpha=0.1)
    config = optimizers.Adam(schedule).get_config()
    assert config["learning_rate"]["class_name"] == "CosineDecay"
    revived = optimizers.Adam.from_config(config)
    assert revived.get_config() == config
    # A float learning rate is a variable: setting it changes a compiled step's result
    # without retracing.
    w = lamina.Variable(np.zeros(1, "float32"))
    opt = optimizers.SGD(1.0)
    opt.build([w])
    traces = []

    @jax.jit
    def step(values):
        traces.append(1)
        return opt.stateless_apply(values, [ops.ones((1,))], [w.value])[0][0]

    first = step([v.value for v in opt.variables])
    opt.learning_rate = 0.25
    second = step([v.value for v in opt.variables])
    assert (float(first[0]), float(second[0]), len(traces)) == (-1.0, -0.25, 1)
