"""Keras 3's newer optimizers (Adafactor, Ftrl, Lamb, Muon, LossScaleOptimizer) and the
Keras way to write one (`build`, `add_variable_from_reference`, `update_step`).

Each is compared over several steps with Keras 3.15 itself applied to the same initial
weights and gradients (and with a NumPy formula where one is short), then configs,
variable names and order, one `fit` that trains, and a `.keras` round trip.
"""

import os
import warnings

import jax
import numpy as np
import pytest

import lamina
from lamina import backend, ops, optimizers

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

RNG = np.random.default_rng(3)
SHAPES = {"bias": (4,), "kernel": (3, 4)}
W0 = {name: RNG.standard_normal(shape).astype("float32") for name, shape in SHAPES.items()}
STEPS = 3
GRADS = [
    {name: RNG.standard_normal(shape).astype("float32") * (k + 1) for name, shape in SHAPES.items()}
    for k in range(STEPS)
]


def _keras_config(obj):
    # Keras 3.15 reads its learning-rate variable through a NumPy-2-deprecated path.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return obj.get_config()


def _stateless_run(opt, variables, grads, steps, to_numpy, jit):
    """`steps` steps of `opt.stateless_apply` (compiled with `jax.jit` when `jit`: one
    compilation per optimizer instead of one per op), the state written back at the end."""
    opt.build(variables)
    apply = jax.jit(opt.stateless_apply) if jit else opt.stateless_apply
    values, state = [v.value for v in variables], [v.value for v in opt.variables]
    history = []
    for k in range(steps):
        values, state = apply(state, [grads[k][n] for n in SHAPES], values)
        history.append([np.asarray(to_numpy(v)) for v in values])
    for v, value in zip(list(variables) + list(opt.variables), list(values) + list(state)):
        v.assign(value)
    return history, opt


def _run_lamina(opt, steps=STEPS, grads=GRADS):
    variables = [lamina.Variable(W0[n], name=n) for n in SHAPES]
    if backend.backend() == "jax":
        return _stateless_run(opt, variables, grads, steps, ops.convert_to_numpy, jit=True)
    history = []  # torch: the eager, stateful `apply` a training step runs
    for k in range(steps):
        opt.apply([ops.convert_to_tensor(grads[k][n]) for n in SHAPES], variables)
        history.append([ops.convert_to_numpy(v.value) for v in variables])
    return history, opt


def _run_keras(opt, steps=STEPS, grads=GRADS):
    variables = [keras.Variable(W0[n], name=n) for n in SHAPES]
    return _stateless_run(opt, variables, grads, steps, keras.ops.convert_to_numpy, jit=True)


CASES = [
    ("Adafactor", {"learning_rate": 0.05}),
    ("Adafactor", {"learning_rate": 0.5, "relative_step": False, "clip_threshold": 0.5}),
    (
        "Ftrl",
        {
            "learning_rate": 0.2,
            "learning_rate_power": -0.3,
            "l1_regularization_strength": 0.05,
            "l2_regularization_strength": 0.1,
            "l2_shrinkage_regularization_strength": 0.02,
            "beta": 0.3,
        },
    ),
    ("Lamb", {"learning_rate": 0.05, "weight_decay": 0.01}),
    ("Muon", {"learning_rate": 0.05}),
    (
        "Muon",
        {"learning_rate": 0.02, "nesterov": False, "rms_rate": None, "exclude_layers": ["bias"]},
    ),
    ("ScheduleFreeAdamW", {"learning_rate": 0.05, "warmup_steps": 2, "weight_decay": 0.01}),
]


@pytest.mark.parametrize(
    ("name", "kwargs"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_steps_match_keras(name, kwargs):
    ours, opt = _run_lamina(getattr(optimizers, name)(**kwargs))
    if name in NUMPY_REFS:
        _check_numpy_formula(name, ours)
    theirs, ref = _run_keras(getattr(keras.optimizers, name)(**kwargs))
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for n, x, y in zip(SHAPES, a, b):
            np.testing.assert_allclose(
                x, y, rtol=1e-5, atol=1e-6, err_msg=f"{name} step {step} {n}"
            )
    # The same state, named and ordered as Keras makes it (so `.keras` files move).
    assert [v.name for v in opt.variables] == [v.name for v in ref.variables]
    for x, y in zip(opt.variables, ref.variables):
        np.testing.assert_allclose(
            ops.convert_to_numpy(x.value),
            np.asarray(keras.ops.convert_to_numpy(y.value)),
            rtol=1e-5,
            atol=1e-6,
            err_msg=x.name,
        )
    config = opt.get_config()
    keras_config = _keras_config(ref)
    assert set(config) == set(keras_config)
    for key in keras_config:
        if key not in ("name", "learning_rate"):
            assert config[key] == keras_config[key], key
    again = optimizers.deserialize(optimizers.serialize(opt))
    assert type(again) is type(opt) and again.get_config() == config
    # Keras reads our config (Keras 3.15 cannot read Lamb configs, its own included:
    # Lamb is missing from its table of optimizers).
    if name != "Lamb":
        assert type(keras.optimizers.deserialize(optimizers.serialize(opt))).__name__ == name


def ref_ftrl(w, g, state, lr, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
    n = state.get("n", np.full_like(w, init))
    z = state.get("z", np.zeros_like(w))
    g_shrunk = g + 2 * shrink * w
    new_n = n + g**2
    sigma = (new_n ** (-power) - n ** (-power)) / lr
    z = z + g_shrunk - sigma * w
    state["n"], state["z"] = new_n, z
    quadratic = new_n ** (-power) / lr + 2 * (l2 + beta / (2 * lr))
    return np.where(np.abs(z) <= l1, 0.0, (np.sign(z) * l1 - z) / quadratic)


def ref_lamb(w, g, state, lr, t, b1=0.9, b2=0.999, eps=1e-7):
    state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * g
    state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * g**2
    update = (state["m"] / (1 - b1**t)) / (np.sqrt(state["v"] / (1 - b2**t)) + eps)
    ratio = np.linalg.norm(w) / np.linalg.norm(update)
    return w - ratio * lr * update


NUMPY_REFS = {
    "Ftrl": lambda w, g, state, k: ref_ftrl(
        w, g, state, lr=0.2, power=-0.3, l1=0.05, l2=0.1, shrink=0.02, beta=0.3
    ),
    # Decoupled weight decay first, then the LAMB step.
    "Lamb": lambda w, g, state, k: ref_lamb(w - w * 0.01 * 0.05, g, state, 0.05, k + 1),
}


def _check_numpy_formula(name, ours):
    """The cases of `CASES` with a short published formula, in float64."""
    for i, n in enumerate(SHAPES):
        w, state = W0[n].astype("float64"), {}
        for k in range(STEPS):
            w = NUMPY_REFS[name](w, GRADS[k][n].astype("float64"), state, k)
            np.testing.assert_allclose(ours[k][i], w, rtol=1e-5, atol=1e-6)


def test_muon_orthogonalizes_matrices_and_uses_adamw_elsewhere():
    x = RNG.standard_normal((3, 5)).astype("float32")
    y = ops.convert_to_numpy(optimizers.muon.newton_schulz(x, 5))
    # Not exactly orthogonal (the quintic trades accuracy for speed): singular values
    # land in roughly [0.7, 1.2] for any input.
    singular = np.linalg.svd(y, compute_uv=False)
    assert singular.min() > 0.6 and singular.max() < 1.3
    names = ["bias", "kernel", "dense_kernel", "token_embedding"]
    variables = [lamina.Variable(np.ones((3, 4) if n != "bias" else 4), name=n) for n in names]
    opt = optimizers.Muon(exclude_layers=["^kernel"])
    opt.build(variables)
    # AdamW (with a velocity) by rank, by name, and by "embedding" in the path.
    assert [v.name for v in opt.variables][2:] == [
        "bias_momentum",
        "bias_velocity",
        "kernel_momentum",
        "kernel_velocity",
        "dense_kernel_momentum",
        "token_embedding_momentum",
        "token_embedding_velocity",
    ]


def test_loss_scale_optimizer_matches_keras_with_skipped_steps():
    grads = [dict(GRADS[k % STEPS]) for k in range(5)]
    grads[1]["kernel"] = grads[1]["kernel"].copy()
    grads[1]["kernel"][0, 0] = np.inf  # skipped, scale halved
    grads[3]["bias"] = np.full(4, np.nan, "float32")  # skipped again
    kwargs = {"initial_scale": 16.0, "dynamic_growth_steps": 2}
    ours, opt = _run_lamina(optimizers.LossScaleOptimizer(optimizers.Adam(0.1), **kwargs), 5, grads)
    # (Keras's own eager `apply` of this optimizer leaks a tracer on JAX when the scale
    # grows; its `stateless_apply`, what its trainer runs, is the reference.)
    theirs, ref = _run_keras(
        keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.1), **kwargs), 5, grads
    )
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
    assert [v.name for v in opt.variables] == [v.name for v in ref.variables]
    for x, y in zip(opt.variables, ref.variables):
        np.testing.assert_allclose(
            ops.convert_to_numpy(x.value),
            np.asarray(keras.ops.convert_to_numpy(y.value)),
            rtol=1e-5,
            atol=1e-5,
            err_msg=x.name,
        )
    assert int(ops.convert_to_numpy(opt.iterations.value)) == 3  # only finite steps count
    assert float(ops.convert_to_numpy(opt.scale_loss(ops.convert_to_tensor(1.0)))) == float(
        ref.scale_loss(1.0)
    )
    config = opt.get_config()
    assert set(config) == set(_keras_config(ref)) and config["initial_scale"] == 16.0
    again = optimizers.deserialize(optimizers.serialize(opt))
    assert isinstance(again.inner_optimizer, optimizers.Adam) and again.get_config() == config
    assert isinstance(
        keras.optimizers.deserialize(optimizers.serialize(opt)).inner_optimizer,
        keras.optimizers.Adam,
    )
    with pytest.raises(ValueError, match="set it on the inner optimizer"):
        optimizers.LossScaleOptimizer(optimizers.SGD(), clipnorm=1.0)
    with pytest.raises(ValueError, match="dynamic=False"):
        optimizers.LossScaleOptimizer(optimizers.SGD(), dynamic=False)


def test_loss_scale_optimizer_stateless_apply_skips_non_finite_steps():
    opt = optimizers.LossScaleOptimizer(optimizers.SGD(0.5), initial_scale=4.0)
    w = lamina.Variable(np.ones(2, "float32"), name="w")
    opt.build([w])
    values = [v.value for v in opt.variables]
    new_w, values = opt.stateless_apply(values, [ops.convert_to_tensor([4.0, np.inf])], [w.value])
    np.testing.assert_array_equal(ops.convert_to_numpy(new_w[0]), [1.0, 1.0])
    new_w, values = opt.stateless_apply(values, [ops.convert_to_tensor([4.0, 8.0])], new_w)
    np.testing.assert_allclose(ops.convert_to_numpy(new_w[0]), [0.0, -1.0])  # g / 2
    names = [v.name for v in opt.variables]
    scale = ops.convert_to_numpy(values[names.index("dynamic_scale")])
    assert scale == 2.0 and np.asarray(ops.convert_to_numpy(w.value)).tolist() == [1.0, 1.0]


@optimizers.base.register
class _MomentumSGD(optimizers.Optimizer):
    """A custom optimizer written the Keras 3 way."""

    def __init__(self, learning_rate=0.1, momentum=0.5, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self.velocities = [self.add_variable_from_reference(v, "velocity") for v in var_list]
        self.count = self.add_variable((), initializer="zeros", dtype="float32", name="count")

    def update_step(self, gradient, variable, learning_rate):
        velocity = self.velocities[self._get_variable_index(variable)]
        self.assign(velocity, self.momentum * velocity - learning_rate * gradient)
        self.assign_add(variable, velocity)
        self.assign_add(self.count, 1.0)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum}


def test_a_keras_style_custom_optimizer_matches_numpy():
    history, opt = _run_lamina(_MomentumSGD(0.1, 0.5), steps=3)
    for i, n in enumerate(SHAPES):
        w, m = W0[n].astype("float64"), 0.0
        for k in range(3):
            m = 0.5 * m - 0.1 * GRADS[k][n]
            w = w + m
            np.testing.assert_allclose(history[k][i], w, rtol=1e-5, atol=1e-5)
    names = [v.name for v in opt.variables]
    assert names == [
        "iteration",
        "learning_rate",
        "bias_velocity",
        "kernel_velocity",
        "count",
    ]
    assert float(ops.convert_to_numpy(opt.variables[-1].value)) == 6.0  # 2 variables x 3 steps


# (optimizer factory, whether to round-trip a `.keras` file: for the unusual state).
# Ftrl, Lamb, Muon and ScheduleFreeAdamW step through the same `update_step` machinery
# as these (compiled, as `test_steps_match_keras` runs them on JAX); a fit each would
# only add compile time.
FIT_OPTIMIZERS = [
    (lambda: optimizers.Adafactor(0.1), True),
    (lambda: _MomentumSGD(0.05, 0.5), True),
    (lambda: _multi(optimizers), True),
    (
        lambda: optimizers.LossScaleOptimizer(optimizers.Adam(0.05), initial_scale=1024.0),
        True,
    ),
]


@pytest.mark.parametrize(
    ("make", "reload"),
    FIT_OPTIMIZERS,
    ids=["Adafactor", "custom", "MultiOptimizer", "LossScaleOptimizer"],
)
def test_fit_trains_and_reloads(make, reload, tmp_path):
    x = RNG.standard_normal((32, 4)).astype("float32")
    y = x @ RNG.standard_normal((4, 2)).astype("float32")
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(8), lamina.layers.Dense(2)])
    model.compile(optimizer=make(), loss="mse")
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] and np.isfinite(losses[-1])
    if not reload:
        return
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(
        tmp_path / "m.keras", custom_objects={"_MomentumSGD": _MomentumSGD}
    )
    assert type(loaded.optimizer) is type(model.optimizer)
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(ops.convert_to_numpy(a.value), ops.convert_to_numpy(b.value))


def _multi(module):
    # Adam for the kernel (the default), SGD with momentum for the bias (a pattern).
    opt_map = module.OptimizerMap(module.Adam(0.05), {"bi.*": module.SGD(0.1, momentum=0.5)})
    return module.MultiOptimizer(opt_map)


def test_multi_optimizer_matches_keras_and_round_trips():
    ours, opt = _run_lamina(_multi(optimizers))
    theirs, ref = _run_keras(_multi(keras.optimizers))
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
    assert [v.name for v in opt.variables] == [v.name for v in ref.variables]
    assert [type(o).__name__ for o in opt.optimizers] == ["SGD", "Adam"]
    config = optimizers.serialize(opt)
    again = optimizers.deserialize(config)
    assert isinstance(again, optimizers.MultiOptimizer)
    assert optimizers.serialize(again) == config
    # Keras reads ours and we read Keras's.
    assert type(keras.optimizers.deserialize(config)).__name__ == "MultiOptimizer"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        keras_config = keras.optimizers.serialize(ref)
    theirs_again = optimizers.deserialize(keras_config)
    assert [type(o).__name__ for o in theirs_again.optimizers] == ["SGD", "Adam"]
    with pytest.raises(AttributeError, match="inner optimizers"):
        _ = opt.learning_rate
    with pytest.raises(ValueError, match="cannot be a LossScaleOptimizer"):
        optimizers.OptimizerMap(
            optimizers.Adam(), {"x": optimizers.LossScaleOptimizer(optimizers.SGD())}
        )


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="learning_rate_power.*received 0.5"):
        optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength.*-1"):
        optimizers.Ftrl(l1_regularization_strength=-1)
    with pytest.raises(TypeError, match="wraps an optimizer instance"):
        optimizers.LossScaleOptimizer("adam")
    # Keras 3 warns about the Keras 2 `decay` argument and ignores it; lamina applies it
    # as Keras 2 did (issue 32; tests/optimizers/test_classic_arguments.py), and names a
    # bad value.
    opt = optimizers.Adam(0.01, decay=1e-4)
    assert opt.get_config()["decay"] == 1e-4
    with pytest.raises(ValueError, match="`decay` must be a float >= 0; received -1"):
        optimizers.Adam(0.01, decay=-1)


def test_save_and_load_own_variables():
    _, opt = _run_lamina(optimizers.Lamb(0.05), steps=1)
    store = {}
    opt.save_own_variables(store)
    assert sorted(store, key=int) == [str(i) for i in range(len(opt.variables))]
    fresh = optimizers.Lamb(0.05)
    fresh.build([lamina.Variable(W0[n], name=n) for n in SHAPES])
    fresh.load_own_variables(store)
    for a, b in zip(fresh.variables, opt.variables):
        np.testing.assert_array_equal(ops.convert_to_numpy(a.value), ops.convert_to_numpy(b.value))
    with pytest.warns(UserWarning, match="Build it first"):
        optimizers.Lamb().load_own_variables(store)
    with pytest.raises(ValueError, match="set_weights.*received 1 arrays"):
        fresh.set_weights([np.zeros(())])
    assert backend.floatx() == "float32"
