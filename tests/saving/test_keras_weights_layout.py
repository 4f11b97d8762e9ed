"""`.weights.h5` files of subclassed models move both ways between Keras 3 and lamina.

Keras walks a model's attributes sorted by name, private ones last, and a subclassed
model's `layers` property in its sorted place, so a sublayer whose attribute sorts after
"layers" is filed as `layers/<class>_k`; `save_weights` also files the optimizer's state,
which `load_weights` restores (skipped without Keras).
"""

import os
import warnings

import h5py
import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402

# File format, the same on every engine.
pytestmark = [
    pytest.mark.engine("jax"),
    # Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
]

X = np.random.default_rng(0).random((2, 4)).astype("float32")


def _model(K):
    """The same subclassed model in Keras (`K = keras`) or lamina (`K = lamina`).

    Every kernel has one shape, so eager JAX compiles each op once, and a layer loaded
    from another's entry shows in the predictions rather than as a shape error."""

    class Block(K.layers.Layer):
        # A subclassed layer has no `layers` property: attributes only, private last.
        def __init__(self, **kw):
            super().__init__(**kw)
            self._first = K.layers.Dense(4)
            self.pair = [self._first, K.layers.Dense(4)]  # pair/dense is `_first`

        def call(self, x):
            return self.pair[1](self._first(x))

    class M(K.Model):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.a_dense = K.layers.Dense(4)
            self.z_dense = K.layers.Dense(4)  # sorts after "layers": layers/dense_1
            self._p_dense = K.layers.Dense(4)  # private, visited last: layers/dense_2
            self.blocks = [K.layers.Dense(4), K.layers.Dense(4)]
            self.drop = K.layers.Dropout(0.1, seed=1)
            self.block = Block()

        def call(self, x):
            x = self._p_dense(x)
            for b in self.blocks:
                x = b(x)
            return self.z_dense(self.drop(self.a_dense(self.block(x))))

    return M()


def _built(K, optimizer=None):
    model = _model(K)
    if optimizer is not None:
        model.compile(optimizer, "mse")
    model(X[:1])
    return model


def _step(model):
    # One optimizer step with fixed gradients (no compiled `fit`: seconds per engine).
    grads = [
        np.full(v.shape, 0.1 * (i + 1), "float32") for i, v in enumerate(model.trainable_variables)
    ]
    model.optimizer.apply_gradients(zip(grads, model.trainable_variables))


def _trained(K, optimizer="adam"):
    model = _built(K, optimizer)
    _step(model)
    _step(model)
    return model


def _predict(model):
    return np.asarray(model(X))


def _datasets(path) -> set:
    names = set()
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: names.add(name) if isinstance(obj, h5py.Dataset) else None)
    return names


def _values(variables) -> list:
    return [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in variables]


def _assert_same(left, right):
    assert len(left) == len(right)
    for a, b in zip(_values(left), _values(right)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_keras_file_loads_in_lamina_with_its_optimizer_state(tmp_path):
    km = _trained(keras)
    path = str(tmp_path / "k.weights.h5")
    km.save_weights(path)
    # Built, its optimizer not yet: loading builds it and restores the moments.
    model = _built(lamina, "adam")
    model.load_weights(path)
    np.testing.assert_allclose(_predict(model), _predict(km), atol=1e-6)
    _assert_same(model.optimizer.variables, km.optimizer.variables)
    # lamina writes Keras's layout: the same entries, plus the dropout's seed state.
    ours = str(tmp_path / "l.weights.h5")
    model.save_weights(ours)
    assert _datasets(ours) == _datasets(path) | {"drop/seed_generator/vars/0"}
    assert {
        "layers/dense_1/vars/0",
        "layers/dense_2/vars/0",
        "block/pair/dense/vars/0",
        "block/pair/dense_1/vars/0",
    } <= _datasets(ours)


def test_lamina_file_loads_in_keras_with_its_optimizer_state(tmp_path):
    model = _trained(lamina)
    path = str(tmp_path / "l.weights.h5")
    model.save_weights(path)
    km = _built(keras, "adam")
    km.optimizer.build(km.trainable_variables)  # Keras skips an unbuilt optimizer
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Keras ignores the seed generator's entry quietly
        km.load_weights(path)
    np.testing.assert_allclose(_predict(km), _predict(model), atol=1e-6)
    _assert_same(km.optimizer.variables, model.optimizer.variables)


def test_resuming_from_save_weights_continues_the_same_training(tmp_path):
    model = _trained(lamina)
    path = str(tmp_path / "ckpt.weights.h5")
    model.save_weights(path)
    resumed = _built(lamina, "adam")
    resumed.load_weights(path)
    _assert_same(resumed.optimizer.variables, model.optimizer.variables)
    _step(model)
    _step(resumed)  # with Adam's moments restarted, this step would differ
    _assert_same(resumed.weights, model.weights)


def test_other_optimizer_is_skipped_with_keras_warning(tmp_path):
    trained = _trained(lamina)
    path = str(tmp_path / "adam.weights.h5")
    trained.save_weights(path)
    model = _trained(lamina, optimizer="sgd")
    before = _values(model.optimizer.variables)
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer 'sgd'"):
        model.load_weights(path)
    _assert_same(model.optimizer.variables, before)
    _assert_same(model.weights, trained.weights)  # the layers load all the same


def test_file_without_optimizer_or_model_without_one_loads_as_before(tmp_path):
    plain = _built(lamina)
    path = str(tmp_path / "plain.weights.h5")
    plain.save_weights(path)
    assert not any(name.startswith("optimizer/") for name in _datasets(path))
    trained = _trained(lamina)
    with_optimizer = str(tmp_path / "trained.weights.h5")
    trained.save_weights(with_optimizer)
    compiled, uncompiled = _built(lamina, "adam"), _built(lamina)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled.load_weights(path)  # no optimizer entries: the optimizer is left alone
        uncompiled.load_weights(with_optimizer)  # no optimizer: its entries are ignored
    assert not compiled.optimizer.built
    _assert_same(compiled.weights, plain.weights)
    _assert_same(uncompiled.weights, trained.weights)


def test_file_in_lamina_old_attribute_named_layout_still_loads(tmp_path):
    model = _built(lamina)
    path = str(tmp_path / "old.weights.h5")
    # Written as lamina wrote subclassed models before following Keras's walk: every
    # sublayer under its attribute name, and `pair/dense` the container's second layer
    # (the first was seen as `_first`), where Keras's walk files `_first`.
    with h5py.File(path, "w") as f:
        for name, layer in [
            ("_p_dense", model._p_dense),
            ("a_dense", model.a_dense),
            ("blocks/dense", model.blocks[0]),
            ("blocks/dense_1", model.blocks[1]),
            ("block/_first", model.block._first),
            ("block/pair/dense", model.block.pair[1]),
            ("z_dense", model.z_dense),
        ]:
            for i, v in enumerate(layer.weights):
                f.create_dataset(f"{name}/vars/{i}", data=np.asarray(v.numpy()) + 1)
        f.create_dataset("drop/seed_generator/vars/0", data=model.drop.seed_generator.state.numpy())
    fresh = _built(lamina)
    fresh.load_weights(path)
    _assert_same(fresh.weights, [np.asarray(v.numpy()) + 1 for v in model.weights])
