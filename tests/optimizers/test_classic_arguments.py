"""Keras 2's optimizer arguments and names (issue 32, item 2): `lr=` (one deprecation
warning), `decay=` applied as Keras 2 applied it (`lr / (1 + decay * iterations)`,
eagerly and in `fit`'s compiled step), `clipnorm`, `clipvalue`, `nesterov`, `amsgrad`,
and the lower-case callables `optimizers.sgd` ... `nadam` with Keras 2's defaults.

The references are NumPy transcriptions of Keras 2.3's update rules (`keras/optimizers.py`
at tag 2.3.1), float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lamina
from lamina import layers, ops, optimizers

W0 = np.array([0.5, -1.0, 2.0], "float32")
GRADS = [np.array([0.3, -0.2, 0.9]) * (k + 1) * (-1) ** k for k in range(6)]


def _run(opt, grads=GRADS):
    w = lamina.Variable(W0.copy())
    for g in grads:
        opt.apply([ops.convert_to_tensor(np.asarray(g, "float32"))], [w])
    return ops.convert_to_numpy(w.value).astype("float64")


def _keras2(step, grads=GRADS, **hyper):
    """Run a Keras 2 rule: `step(w, g, state, lr_t, t)`, with Keras 2's decay."""
    w, state = W0.astype("float64"), {}
    lr, decay = hyper.pop("lr"), hyper.pop("decay", 0.0)
    for i, g in enumerate(grads):
        lr_t = lr / (1.0 + decay * i)  # `iterations` before this step's increment
        w = step(w, np.asarray(g, "float64"), state, lr_t, i + 1, **hyper)
    return w


def k2_sgd(w, g, s, lr, t, momentum=0.0, nesterov=False):
    s["m"] = momentum * s.get("m", 0.0) - lr * g
    return w + momentum * s["m"] - lr * g if nesterov else w + s["m"]


def k2_rmsprop(w, g, s, lr, t, rho=0.9, eps=1e-7):
    s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g**2
    return w - lr * g / (np.sqrt(s["a"]) + eps)


def k2_adagrad(w, g, s, lr, t, eps=1e-7):
    s["a"] = s.get("a", 0.0) + g**2
    return w - lr * g / (np.sqrt(s["a"]) + eps)


def k2_adadelta(w, g, s, lr, t, rho=0.95, eps=1e-7):
    s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g**2
    update = g * np.sqrt(s.get("d", 0.0) + eps) / np.sqrt(s["a"] + eps)
    s["d"] = rho * s.get("d", 0.0) + (1 - rho) * update**2
    return w - lr * update


def k2_adam(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    lr_t = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g**2
    v = s["v"]
    if amsgrad:
        v = s["vhat"] = np.maximum(s.get("vhat", 0.0), s["v"])
    return w - lr_t * s["m"] / (np.sqrt(v) + eps)


def k2_adamax(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7):
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["u"] = np.maximum(b2 * s.get("u", 0.0), np.abs(g))
    return w - lr / (1 - b1**t) * s["m"] / (s["u"] + eps)


def k2_nadam(w, g, s, lr, t, b1=0.9, b2=0.999, eps=1e-7, schedule_decay=0.004):
    mu_t = b1 * (1 - 0.5 * 0.96 ** (t * schedule_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * schedule_decay))
    schedule = s.get("schedule", 1.0) * mu_t
    s["schedule"] = schedule
    g_prime = g / (1 - schedule)
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    m_prime = s["m"] / (1 - schedule * mu_next)
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g**2
    v_prime = s["v"] / (1 - b2**t)
    m_bar = (1 - mu_t) * g_prime + mu_next * m_prime
    return w - lr * m_bar / (np.sqrt(v_prime) + eps)


# (lower-case callable, its kwargs, Keras 2 rule, the rule's kwargs incl. Keras 2 defaults)
CLASSIC = [
    ("sgd", {}, k2_sgd, {"lr": 0.01}),
    ("sgd", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "decay": 0.1}, k2_sgd,
     {"lr": 0.1, "momentum": 0.9, "nesterov": True, "decay": 0.1}),
    ("rmsprop", {"decay": 0.05}, k2_rmsprop, {"lr": 0.001, "decay": 0.05}),
    ("adagrad", {}, k2_adagrad, {"lr": 0.01}),
    ("adadelta", {}, k2_adadelta, {"lr": 1.0}),
    ("adam", {"lr": 0.01, "amsgrad": True, "decay": 0.2}, k2_adam,
     {"lr": 0.01, "amsgrad": True, "decay": 0.2}),
    ("adamax", {}, k2_adamax, {"lr": 0.002}),
    ("nadam", {}, k2_nadam, {"lr": 0.002}),
]  # fmt: skip


@pytest.mark.parametrize("name, kwargs, rule, hyper", CLASSIC, ids=[c[0] for c in CLASSIC])
def test_lower_case_callables_follow_keras_2(name, kwargs, rule, hyper):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # `lr=`
        opt = getattr(optimizers, name)(**kwargs)
    assert callable(getattr(optimizers, name)) and isinstance(opt, optimizers.Optimizer)
    # Keras 2 put epsilon outside the square root where Keras 3 (lamina's rules) puts it
    # inside: a difference of order 1e-7 in the step.
    np.testing.assert_allclose(_run(opt), _keras2(rule, **hyper), rtol=2e-5, atol=2e-6)


def test_lr_is_an_alias_with_one_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="`lr` is Keras 2's name") as caught:
        opt = optimizers.Adam(lr=0.05)
    assert len([w for w in caught if issubclass(w.category, DeprecationWarning)]) == 1
    assert float(ops.convert_to_numpy(opt.learning_rate.value)) == pytest.approx(0.05)
    # `optimizer.lr` is the same settable variable, as Keras 2's callbacks used it.
    assert opt.lr is opt.learning_rate
    lamina.backend.set_value(opt.lr, 0.02)
    assert float(lamina.backend.get_value(opt.learning_rate)) == pytest.approx(0.02)
    opt.lr = 0.03
    assert float(ops.convert_to_numpy(opt.learning_rate.value)) == pytest.approx(0.03)


def test_decay_is_never_accepted_and_ignored():
    plain, decayed = optimizers.SGD(0.1), optimizers.SGD(0.1, decay=0.5)
    assert not np.allclose(_run(plain), _run(decayed))
    np.testing.assert_allclose(
        _run(optimizers.SGD(0.1, decay=0.5)), _keras2(k2_sgd, lr=0.1, decay=0.5), rtol=1e-6
    )
    with pytest.raises(ValueError, match="`decay` must be a float >= 0"):
        optimizers.SGD(decay=-1.0)


def test_clipnorm_clipvalue_nesterov_amsgrad_in_classic_form():
    def clip_norm(g, c):
        n = np.sqrt(np.sum(g**2))
        return g * c / max(n, c)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        by_norm = optimizers.SGD(lr=0.1, momentum=0.9, nesterov=True, clipnorm=1.0)
        by_value = optimizers.Adam(lr=0.01, amsgrad=True, clipvalue=0.5)
    np.testing.assert_allclose(
        _run(by_norm),
        _keras2(k2_sgd, [clip_norm(g, 1.0) for g in GRADS], lr=0.1, momentum=0.9, nesterov=True),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        _run(by_value),
        _keras2(k2_adam, [np.clip(g, -0.5, 0.5) for g in GRADS], lr=0.01, amsgrad=True),
        rtol=1e-5,
    )


def test_decay_applies_in_the_compiled_training_step():
    # One linear unit, MSE, full batch: Keras 2's SGD with decay, step by step.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype("float32")
    y = rng.normal(size=(8, 1)).astype("float32")
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1, use_bias=False)])
    kernel0 = ops.convert_to_numpy(model.layers[0].kernel.value).astype("float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model.compile(optimizer=optimizers.sgd(lr=0.1, decay=0.5), loss="mse")
    model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    w = kernel0
    for i in range(4):
        grad = 2.0 / len(x) * x.T.astype("float64") @ (x @ w - y)
        w = w - 0.1 / (1.0 + 0.5 * i) * grad
    np.testing.assert_allclose(
        ops.convert_to_numpy(model.layers[0].kernel.value), w, rtol=1e-5, atol=1e-6
    )
    assert int(ops.convert_to_numpy(model.optimizer.iterations.value)) == 4
    # The variable keeps the undecayed rate, as Keras 2's `optimizer.lr` did.
    assert float(ops.convert_to_numpy(model.optimizer.lr.value)) == pytest.approx(0.1)


def test_get_and_serialize_round_trips():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        opts = [
            optimizers.sgd(lr=0.1, momentum=0.9, nesterov=True, decay=1e-3, clipnorm=1.0),
            optimizers.adam(lr=0.01, amsgrad=True, clipvalue=0.5),
            optimizers.nadam(),
            optimizers.adagrad(),
        ]
    for opt in opts:
        config = optimizers.serialize(opt)
        again = optimizers.deserialize(config)
        assert type(again) is type(opt) and again.get_config() == opt.get_config()
        np.testing.assert_allclose(_run(again), _run(opt), rtol=1e-6)
    assert opts[0].get_config()["decay"] == 1e-3 and "decay" not in opts[1].get_config()
    assert opts[2].get_config()["schedule_decay"] == 0.004
    # Names still resolve to the classes (with Keras 3's defaults), as before.
    assert type(optimizers.get("sgd")) is optimizers.SGD
    assert type(optimizers.get("adam")) is optimizers.Adam


def test_the_lower_case_names_shadow_the_modules_but_module_paths_import():
    from lamina.optimizers.adam import Adam
    from lamina.optimizers.rmsprop import RMSprop
    from lamina.optimizers.sgd import SGD

    assert (Adam, RMSprop, SGD) == (optimizers.Adam, optimizers.RMSprop, optimizers.SGD)
    for name in ("sgd", "rmsprop", "adagrad", "adadelta", "adam", "adamax", "nadam"):
        assert callable(getattr(optimizers, name)) and name in optimizers.__all__
    assert type(optimizers.sgd(0.2)) is optimizers.SGD
    assert float(ops.convert_to_numpy(optimizers.sgd(0.2).learning_rate.value)) == pytest.approx(
        0.2
    )
