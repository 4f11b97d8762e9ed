"""JaxLayer and FlaxLayer: a plain JAX function or a Linen-style module as a layer.

Checked against `jax.grad` of the same function, NumPy formulas and Keras 3's own
`keras.layers.JaxLayer`; FlaxLayer against a small module written here with Linen's
`init`/`apply` API, and with real Flax modules (Linen, and NNX through Flax's bridge)
against Keras 3's `keras.layers.FlaxLayer` (Flax is in the dev extra; those tests skip
without it).
"""

from __future__ import annotations

import os
import types

import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, backend, layers, ops

os.environ.setdefault("KERAS_BACKEND", "jax")

ON_JAX = backend.backend() == "jax"
needs_jax = pytest.mark.skipif(not ON_JAX, reason="JaxLayer runs JAX code (JAX engine only)")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(3)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


# A two-layer MLP as plain JAX functions --------------------------------------------------
def mlp_init(rng, inputs):
    import jax

    k1, k2 = jax.random.split(rng)
    d = inputs.shape[-1]
    return {
        "dense1": {"w": jax.random.normal(k1, (d, 5)) * 0.5, "b": jax.numpy.zeros((5,))},
        "dense2": {"w": jax.random.normal(k2, (5, 2)) * 0.5, "b": jax.numpy.zeros((2,))},
    }


def mlp_call(params, inputs):
    import jax

    h = jax.numpy.tanh(inputs @ params["dense1"]["w"] + params["dense1"]["b"])
    return h @ params["dense2"]["w"] + params["dense2"]["b"]


def _mlp_params():
    return {
        "dense1": {"w": _rand(3, 5), "b": _rand(5)},
        "dense2": {"w": _rand(5, 2), "b": _rand(2)},
    }


def _mlp_numpy(params, x):
    h = np.tanh(x @ params["dense1"]["w"] + params["dense1"]["b"])
    return h @ params["dense2"]["w"] + params["dense2"]["b"]


def _leaves(params):
    import jax

    return [np.asarray(v) for v in jax.tree_util.tree_leaves(params)]


# Tests -----------------------------------------------------------------------------------
@pytest.mark.skipif(ON_JAX, reason="the refusal is the torch engine's behaviour")
def test_torch_engine_refuses_clearly():
    with pytest.raises(ValueError, match=r"JaxLayer needs the JAX engine \(LAMINA_BACKEND=jax\)"):
        layers.JaxLayer(mlp_call, init_fn=mlp_init)
    with pytest.raises(ValueError, match=r"FlaxLayer needs the JAX engine \(LAMINA_BACKEND=jax\)"):
        layers.FlaxLayer(DuckDense(2))


@needs_jax
def test_given_params_call_matches_numpy_and_weights_follow_tree_order():
    params = _mlp_params()
    layer = layers.JaxLayer(mlp_call, params=params)
    assert layer.built
    assert len(layer.trainable_weights) == 4 and not layer.non_trainable_weights
    # JAX's tree order: dicts by sorted key.
    for w, expected in zip(layer.trainable_weights, _leaves(params)):
        np.testing.assert_array_equal(_np(w), expected)
    x = _rand(4, 3)
    np.testing.assert_allclose(_np(layer(x)), _mlp_numpy(params, x), rtol=1e-5, atol=1e-6)


@needs_jax
def test_init_fn_mlp_trains_and_its_gradients_are_jax_grad():
    import jax

    lamina.utils.set_random_seed(0)
    x, y = _rand(16, 3), _rand(16, 2)
    layer = layers.JaxLayer(mlp_call, init_fn=mlp_init)
    model = Sequential([Input((3,)), layer])
    assert [tuple(w.shape) for w in model.trainable_weights] == [(5,), (3, 5), (2,), (5, 2)]
    before = [_np(w) for w in layer.trainable_weights]
    params = jax.tree_util.tree_unflatten(
        jax.tree_util.tree_structure(mlp_init(jax.random.PRNGKey(0), x)), before
    )

    def loss(p):
        return jax.numpy.mean((mlp_call(p, x) - y) ** 2)

    expected = _leaves(jax.grad(loss)(params))
    lr = 0.1
    model.compile(optimizer=lamina.optimizers.SGD(lr), loss="mse")
    first = float(model.train_on_batch(x, y))
    np.testing.assert_allclose(first, float(loss(params)), rtol=1e-5)
    after = [_np(w) for w in layer.trainable_weights]
    for b, a, g in zip(before, after, expected):
        np.testing.assert_allclose((b - a) / lr, g, rtol=1e-3, atol=1e-5)
    history = model.fit(x, y, epochs=15, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.7 * first


@needs_jax
def test_built_on_first_call_inside_fit_of_a_subclassed_model():
    # The first call happens while the training step is traced: init_fn must still
    # make real arrays (as every weight initializer does), not leak tracers.
    class Wrapper(lamina.Model):
        def __init__(self):
            super().__init__()
            self.mlp = layers.JaxLayer(mlp_call, init_fn=mlp_init)

        def call(self, inputs):
            return self.mlp(inputs)

    model = Wrapper()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(_rand(8, 3), _rand(8, 2), epochs=2, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert len(model.trainable_weights) == 4
    assert all(np.isfinite(_np(w)).all() for w in model.trainable_weights)


@needs_jax
def test_state_is_assigned_from_the_call():
    def call_fn(params, state, inputs):
        return inputs * params["scale"], {"count": state["count"] + 1.0}

    layer = layers.JaxLayer(
        call_fn, params={"scale": np.float32(2.0)}, state={"count": np.float32(0.0)}
    )
    assert len(layer.trainable_weights) == 1 and len(layer.non_trainable_weights) == 1
    x = _rand(2, 3)
    np.testing.assert_allclose(_np(layer(x)), 2 * x)
    layer(x)
    assert float(_np(layer.non_trainable_weights[0])) == 2.0
    model = Sequential([Input((3,)), layer])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, x, epochs=3, batch_size=1, verbose=0)
    assert float(_np(layer.non_trainable_weights[0])) == 2.0 + 6


def dropout_call(rng, inputs, training):
    import jax

    if not training:
        return inputs
    keep = jax.random.bernoulli(rng, 0.5, inputs.shape)
    return jax.numpy.where(keep, inputs * 2.0, 0.0)


@needs_jax
def test_rng_differs_between_training_calls_and_is_none_in_inference():
    layer = layers.JaxLayer(dropout_call, seed=7)
    x = np.ones((4, 16), "float32")
    a, b = _np(layer(x, training=True)), _np(layer(x, training=True))
    assert set(np.unique(a)) <= {0.0, 2.0} and not np.array_equal(a, b)
    np.testing.assert_array_equal(_np(layer(x)), x)
    # Seeded: the same seed gives the same first draw.
    again = layers.JaxLayer(dropout_call, seed=7)
    np.testing.assert_array_equal(_np(again(x, training=True)), a)


@needs_jax
def test_keras_file_round_trip_with_registered_functions(tmp_path):
    register = lamina.saving.register_keras_serializable(package="test_jax_layer")
    call_fn, init_fn = register(mlp_call), register(mlp_init)
    lamina.utils.set_random_seed(1)
    model = Sequential([Input((3,)), layers.JaxLayer(call_fn, init_fn=init_fn, name="mlp")])
    x = _rand(4, 3)
    expected = _np(model.predict(x, verbose=0))
    config = model.layers[0].get_config()
    assert config["call_fn"]["config"] == "test_jax_layer>mlp_call"
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_allclose(_np(loaded.predict(x, verbose=0)), expected, rtol=1e-6)
    # Unregistered functions resolve through custom_objects by name.
    plain = layers.JaxLayer(dropout_call)
    rebuilt = layers.JaxLayer.from_config(
        plain.get_config(), custom_objects={"dropout_call": dropout_call}
    )
    assert rebuilt.call_fn is dropout_call


@needs_jax
def test_same_predictions_as_keras_jax_layer():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras runs JaxLayer on its JAX backend only")
    params = _mlp_params()
    x = _rand(4, 3)
    theirs = keras.Sequential([keras.Input((3,)), keras.layers.JaxLayer(mlp_call, params=params)])
    ours = Sequential([Input((3,)), layers.JaxLayer(mlp_call, params=params)])
    np.testing.assert_allclose(
        _np(ours.predict(x, verbose=0)), np.asarray(theirs.predict(x, verbose=0)), rtol=1e-5
    )
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]


@needs_jax
def test_keras_saved_jax_layer_loads(tmp_path):
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras runs JaxLayer on its JAX backend only")
    for register in (keras.saving, lamina.saving):
        for fn in (mlp_call, mlp_init):
            register.register_keras_serializable(package="test_jax_layer")(fn)
    x = _rand(4, 3)
    # Keras builds from `init_fn` only with TensorFlow installed: give it the params.
    layer = keras.layers.JaxLayer(mlp_call, init_fn=mlp_init, params=_mlp_params())
    theirs = keras.Sequential([keras.Input((3,)), layer])
    path = str(tmp_path / "k.keras")
    theirs.save(path)
    ours = lamina.saving.load_model(path)
    np.testing.assert_allclose(
        _np(ours.predict(x, verbose=0)), np.asarray(theirs.predict(x, verbose=0)), rtol=1e-5
    )


@needs_jax
def test_bad_signatures_are_refused():
    with pytest.raises(ValueError, match="named `inputs`"):
        layers.JaxLayer(lambda params, x: x, params={})
    with pytest.raises(ValueError, match="Unsupported argument `x`"):
        layers.JaxLayer(lambda inputs, x: inputs)
    with pytest.raises(ValueError, match="pass `init_fn`"):
        layers.JaxLayer(mlp_call)


# FlaxLayer with a Linen-style module written here ---------------------------------------
class DuckDense:
    """A Dense in Linen's shape: `init`/`apply` over jax.numpy, plus a "batch_stats"
    counter that `apply` bumps in training when that collection is mutable."""

    def __init__(self, features):
        self.features = features

    def __call__(self, inputs, training=False):  # the signature FlaxLayer reads
        raise NotImplementedError

    def init(self, rngs, inputs, method=None, training=False):
        import jax

        kernel = jax.random.normal(rngs["params"], (inputs.shape[-1], self.features)) * 0.5
        return {
            "params": {"kernel": kernel, "bias": jax.numpy.zeros((self.features,))},
            "batch_stats": {"count": jax.numpy.zeros(())},
        }

    def apply(self, variables, inputs, rngs=None, method=None, mutable=False, training=False):
        p = variables["params"]
        y = inputs @ p["kernel"] + p["bias"]
        if mutable is False:
            return y
        new = {}
        if "batch_stats" in mutable:
            count = variables["batch_stats"]["count"]
            new["batch_stats"] = {"count": count + 1.0 if training else count}
        return y, new

    def get_config(self):
        return {"features": self.features}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@needs_jax
def test_flax_layer_trains_params_and_updates_state(tmp_path):
    lamina.utils.set_random_seed(2)
    layer = layers.FlaxLayer(DuckDense(2), name="flax")
    assert isinstance(layer, layers.JaxLayer)
    model = Sequential([Input((3,)), layer])
    assert [tuple(w.shape) for w in layer.trainable_weights] == [(2,), (3, 2)]
    assert [tuple(w.shape) for w in layer.non_trainable_weights] == [()]
    x, y = _rand(8, 3), _rand(8, 2)
    bias, kernel = (_np(w) for w in layer.trainable_weights)
    np.testing.assert_allclose(_np(model.predict(x, verbose=0)), x @ kernel + bias, rtol=1e-5)
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, epochs=4, batch_size=4, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert float(_np(layer.non_trainable_weights[0])) == 8.0  # one per training step
    # Saved with the module's registered class; the state and params come back.
    lamina.saving.register_keras_serializable(package="test_jax_layer")(DuckDense)
    path = str(tmp_path / "f.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_allclose(
        _np(loaded.predict(x, verbose=0)), _np(model.predict(x, verbose=0)), rtol=1e-6
    )
    assert float(_np(loaded.layers[0].non_trainable_weights[0])) == 8.0


@needs_jax
def test_flax_layer_with_given_variables():
    variables = {
        "params": {"kernel": _rand(3, 2), "bias": _rand(2)},
        "batch_stats": {"count": np.float32(5.0)},
    }
    # Read-only mappings (as Flax's FrozenDict) are taken as plain dicts.
    frozen = types.MappingProxyType({k: types.MappingProxyType(v) for k, v in variables.items()})
    layer = layers.FlaxLayer(DuckDense(2), variables=frozen)
    x = _rand(2, 3)
    expected = x @ variables["params"]["kernel"] + variables["params"]["bias"]
    np.testing.assert_allclose(_np(layer(x, training=True)), expected, rtol=1e-5)
    assert float(_np(layer.non_trainable_weights[0])) == 6.0


@needs_jax
def test_real_flax_module_runs():
    nn = pytest.importorskip("flax.linen")

    class Tiny(nn.Module):
        @nn.compact
        def __call__(self, inputs):
            return nn.Dense(2)(inputs)

    layer = layers.FlaxLayer(Tiny())
    x = _rand(2, 3)
    out = _np(layer(x))
    bias, kernel = (_np(w) for w in layer.trainable_weights)
    np.testing.assert_allclose(out, x @ kernel + bias, rtol=1e-5)


# FlaxLayer with real Flax modules, against Keras 3's FlaxLayer -----------------------------
def _keras_on_jax():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras runs FlaxLayer on its JAX backend only")
    return keras


def _batch_norm_net(nn):
    class BatchNormNet(nn.Module):
        @nn.compact
        def __call__(self, inputs, training=False):
            hidden = nn.Dense(4)(inputs)
            hidden = nn.BatchNorm(use_running_average=not training, momentum=0.9)(hidden)
            return nn.Dense(2)(nn.relu(hidden))

    return BatchNormNet()


@needs_jax
def test_real_linen_module_trains_as_keras_flax_layer_does():
    # A "params" collection and a "batch_stats" one updated in training: the same
    # variables in both, then eager, functional, subclassed, fit and predict compared
    # with Keras's FlaxLayer (SGD, no shuffling: the steps are the same arithmetic).
    nn = pytest.importorskip("flax.linen")
    keras = _keras_on_jax()
    import jax

    module = _batch_norm_net(nn)
    x, y = _rand(8, 3), _rand(8, 2)
    variables = jax.tree_util.tree_map(np.asarray, module.init(jax.random.PRNGKey(0), x))
    theirs = keras.Sequential(
        [keras.Input((3,)), keras.layers.FlaxLayer(module, variables=variables)]
    )
    eager = np.asarray(theirs.layers[0](x))
    predicted = np.asarray(theirs.predict(x, verbose=0))
    theirs.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    their_loss = theirs.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    their_weights = [np.asarray(w) for w in theirs.weights]
    assert len(theirs.non_trainable_weights) == 2  # the moving mean and variance

    layer = layers.FlaxLayer(module, variables=variables)
    np.testing.assert_allclose(_np(layer(x)), eager, rtol=1e-6)
    inputs = Input((3,))
    functional = lamina.Model(inputs, layer(inputs))

    class Wrapper(lamina.Model):
        def __init__(self):
            super().__init__()
            self.flax = layers.FlaxLayer(module, variables=variables)

        def call(self, inputs, training=False):
            return self.flax(inputs, training=training)

    for ours in (functional, Wrapper()):
        np.testing.assert_allclose(_np(ours.predict(x, verbose=0)), predicted, rtol=1e-6)
        ours.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
        history = ours.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
        np.testing.assert_allclose(history.history["loss"], their_loss.history["loss"], rtol=1e-5)
        assert [tuple(w.shape) for w in ours.weights] == [w.shape for w in their_weights]
        for mine, expected in zip(ours.weights, their_weights, strict=True):
            np.testing.assert_allclose(_np(mine), expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(
            _np(ours.predict(x, verbose=0)),
            np.asarray(theirs.predict(x, verbose=0)),
            rtol=1e-5,
            atol=1e-6,
        )


@needs_jax
def test_real_linen_method_with_dropout_follows_training():
    # Keras's documented second form: a function taking the module first, mapping
    # `training` to the module's own argument; dropout draws the layer's "dropout" key.
    nn = pytest.importorskip("flax.linen")
    keras = _keras_on_jax()
    import jax

    class Dropper(nn.Module):
        @nn.compact
        def forward(self, inputs, deterministic):
            return nn.Dropout(0.5)(nn.Dense(16)(inputs), deterministic=deterministic)

    def forward(module, inputs, training):
        return module.forward(inputs, not training)

    x = _rand(4, 3)
    variables = Dropper().init(jax.random.PRNGKey(1), x, True, method="forward")
    variables = jax.tree_util.tree_map(np.asarray, variables)
    dense = x @ variables["params"]["Dense_0"]["kernel"] + variables["params"]["Dense_0"]["bias"]
    theirs = keras.layers.FlaxLayer(Dropper(), method=forward, variables=variables)
    layer = layers.FlaxLayer(Dropper(), method=forward, variables=variables)
    np.testing.assert_allclose(_np(layer(x)), np.asarray(theirs(x)), rtol=1e-6)
    np.testing.assert_allclose(_np(layer(x)), dense, rtol=1e-5, atol=1e-6)
    first, second = _np(layer(x, training=True)), _np(layer(x, training=True))
    for dropped in (first, second):  # each unit dropped or scaled by 1 / (1 - rate)
        kept = dropped != 0
        assert 0 < kept.sum() < kept.size
        np.testing.assert_allclose(dropped[kept], 2 * dense[kept], rtol=1e-5)
    assert (first != second).any(), "each training call draws fresh dropout"
    model = Sequential([Input((3,)), layer])
    np.testing.assert_allclose(_np(model.predict(x, verbose=0)), dense, rtol=1e-5, atol=1e-6)


@needs_jax
def test_nnx_modules_run_through_flax_bridge_and_bare_ones_are_refused():
    nnx = pytest.importorskip("flax.nnx")
    layer = layers.FlaxLayer(nnx.bridge.to_linen(nnx.Linear, 3, 2))
    x = _rand(2, 3)
    out = _np(layer(x))  # built by the module's own `init`
    bias, kernel = (_np(w) for w in layer.trainable_weights)
    np.testing.assert_allclose(out, x @ kernel + bias, rtol=1e-5)
    with pytest.raises(TypeError, match=r"Linen module.*received a flax\.nnx.*Linear.*to_linen"):
        layers.FlaxLayer(nnx.Linear(3, 2, rngs=nnx.Rngs(0)))


@pytest.mark.skipif(ON_JAX, reason="the refusal is the torch engine's behaviour")
def test_torch_engine_refuses_a_real_flax_module():
    nn = pytest.importorskip("flax.linen")
    with pytest.raises(ValueError, match=r"FlaxLayer needs the JAX engine \(LAMINA_BACKEND=jax\)"):
        layers.FlaxLayer(nn.Dense(2))


@needs_jax
def test_both_layers_pass_the_layer_conformance_checks():
    from lamina.testing.layer_conformance import check_layer

    register = lamina.saving.register_keras_serializable(package="test_jax_layer")
    check_layer(
        layers.JaxLayer,
        {"call_fn": register(mlp_call), "init_fn": register(mlp_init)},
        input_shape=(2, 3),
        expected_output_shape=(2, 2),
        expected_num_trainable_weights=4,
        expected_num_non_trainable_weights=0,
    )
    register(DuckDense)
    check_layer(
        layers.FlaxLayer,
        {"module": DuckDense(2)},
        input_shape=(2, 3),
        expected_output_shape=(2, 2),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=1,
    )
