"""TorchModuleWrapper: a plain `torch.nn.Module` inside a lamina model (Keras 3's layer).

Outputs are compared with the bare module's, and a training step with one SGD step
computed here by hand with torch autograd on a copy of the module.
"""

from __future__ import annotations

import copy

import h5py
import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops, optimizers, saving

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

pytestmark = pytest.mark.engine("torch")

TorchModuleWrapper = layers.TorchModuleWrapper
RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


def _bare(module, x):
    with torch.no_grad():
        return module(torch.from_numpy(x)).numpy()


def _sgd_reference(modules, forward, x, y, learning_rate):
    """Each module's parameters after one SGD step on the mean squared error, by hand."""
    copies = [copy.deepcopy(m) for m in modules]
    loss = ((forward(*copies, torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
    loss.backward()
    return [
        {name: (p - learning_rate * p.grad).detach().numpy() for name, p in m.named_parameters()}
        for m in copies
    ]


def _same(variables, tensors):
    """Whether the variables hold exactly these tensors (the same objects, in order)."""
    return [id(v.value) for v in variables] == [id(t) for t in tensors]


def _functional(module, **kwargs):
    inputs = Input((4,))
    return Model(inputs, TorchModuleWrapper(module, **kwargs)(inputs))


# The layer on its own ------------------------------------------------------------------
def test_outputs_equal_the_bare_modules():
    module = nn.Linear(4, 3)
    x = _rand(5, 4)
    np.testing.assert_allclose(_np(TorchModuleWrapper(module)(x)), _bare(module, x), rtol=1e-6)


def test_weights_are_the_modules_parameters_not_copies():
    module = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    layer = TorchModuleWrapper(module, name="mlp")
    assert [v.path for v in layer.trainable_weights] == [
        "mlp/0.weight",
        "mlp/0.bias",
        "mlp/1.weight",
        "mlp/1.bias",
    ]
    assert _same(layer.weights, module.parameters())
    # A write through the variable is the module's new weight, and the reverse.
    layer.weights[1].assign(np.full((3,), 2.0, "float32"))
    np.testing.assert_array_equal(module[0].bias.detach().numpy(), [2.0, 2.0, 2.0])
    with torch.no_grad():
        module[1].bias.fill_(-1.0)
    np.testing.assert_array_equal(layer.weights[3].numpy(), [-1.0, -1.0])


def test_frozen_parameters_are_non_trainable_weights():
    module = nn.Linear(4, 3)
    module.bias.requires_grad_(False)
    layer = TorchModuleWrapper(module)
    assert [v.name for v in layer.trainable_weights] == ["weight"]
    assert [v.name for v in layer.non_trainable_weights] == ["bias"]


def test_training_switches_train_and_eval_mode():
    layer = TorchModuleWrapper(nn.Dropout(0.5))
    x = np.ones((4, 50), "float32")
    np.testing.assert_array_equal(_np(layer(x, training=False)), x)
    assert not layer.module.training
    out = _np(layer(x, training=True))
    assert layer.module.training and (out == 0).any()
    # As in Keras, only an explicit False means inference.
    layer(x, training=False)
    layer(x)
    assert layer.module.training


def test_stateless_call_uses_the_given_values():
    module = nn.Linear(4, 3)
    layer = TorchModuleWrapper(module)
    before = module.weight.detach().clone()
    weight, bias = _rand(3, 4), _rand(3)
    x = _rand(2, 4)
    out, _ = layer.stateless_call([weight, bias], [], x)
    np.testing.assert_allclose(_np(out), x @ weight.T + bias, rtol=1e-5, atol=1e-6)
    assert torch.equal(module.weight.detach(), before)


def test_a_bare_module_attribute_is_wrapped():
    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(4, 3)

        def call(self, x):
            return F.relu(self.linear(x))

    block = Block()
    assert isinstance(block.linear, TorchModuleWrapper)
    assert isinstance(block.linear.module, nn.Linear)
    assert _same(block.trainable_weights, block.linear.module.parameters())
    # A lamina layer assigned as an attribute is not wrapped.
    block.dense = layers.Dense(2)
    assert type(block.dense) is layers.Dense


def test_refuses_a_non_module_and_an_uninitialized_lazy_module():
    with pytest.raises(TypeError, match=r"received the lamina layer 'd'.*use it directly"):
        TorchModuleWrapper(layers.Dense(2, name="d"))
    with pytest.raises(TypeError, match=r"expects a `torch.nn.Module`; received function"):
        TorchModuleWrapper(lambda x: x)
    with pytest.raises(ValueError, match=r"lazy module .*Call the module once"):
        TorchModuleWrapper(nn.LazyLinear(3))


# Shapes ---------------------------------------------------------------------------------
def test_output_shape_inferred_without_running_the_module():
    inputs = Input((1, 8, 8))
    module = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    outputs = TorchModuleWrapper(module)(inputs)
    assert outputs.shape == (None, 2, 6, 6) and outputs.dtype == "float32"
    # Shape inference ran on `meta` tensors: the running statistics did not move.
    assert int(module[1].num_batches_tracked) == 0
    assert torch.equal(module[1].running_mean, torch.zeros(2))
    assert TorchModuleWrapper(nn.Linear(4, 3)).compute_output_shape((None, 4)) == (None, 3)


def test_output_shape_given_is_used():
    layer = TorchModuleWrapper(nn.Linear(4, 3), output_shape=(None, 3))
    assert layer(Input((4,))).shape == (None, 3)
    assert layer.compute_output_shape((7, 4)) == (None, 3)
    assert layer.get_config()["output_shape"] == [None, 3]


# Training -------------------------------------------------------------------------------
def test_functional_model_trains_the_module():
    module = nn.Linear(4, 3)
    model = _functional(module)
    x, y = _rand(8, 4), _rand(8, 3)
    (expected,) = _sgd_reference([module], lambda m, t: m(t), x, y, 0.1)
    model.compile(optimizer=optimizers.SGD(learning_rate=0.1), loss="mse")
    assert _same(model.trainable_weights, module.parameters())
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    for name, param in module.named_parameters():
        np.testing.assert_allclose(param.detach().numpy(), expected[name], rtol=1e-5, atol=1e-6)
    losses = model.fit(x, y, batch_size=8, epochs=5, shuffle=False, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(model.predict(x, verbose=0), _bare(module, x), rtol=1e-5)


class Classifier(Model):
    """Keras's TorchModuleWrapper example, smaller: bare pooling and flatten modules."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.conv = TorchModuleWrapper(nn.Conv2d(1, 2, 3))
        self.pool = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = TorchModuleWrapper(nn.Linear(18, 3))

    def call(self, inputs):
        x = F.relu(self.conv(inputs))
        x = self.flatten(self.pool(x))
        return self.fc(x)


def _classifier_reference(conv, fc, x):
    return fc(nn.Flatten()(F.max_pool2d(F.relu(conv(x)), 2)))


def test_subclassed_model_with_bare_and_wrapped_modules_trains():
    model = Classifier()
    assert isinstance(model.pool, TorchModuleWrapper) and not model.pool.weights
    conv, fc = model.conv.module, model.fc.module
    assert _same(model.trainable_weights, [*conv.parameters(), *fc.parameters()])
    x, y = _rand(6, 1, 8, 8), _rand(6, 3)
    expected = _sgd_reference([conv, fc], _classifier_reference, x, y, 0.05)
    model.compile(optimizer=optimizers.SGD(learning_rate=0.05), loss="mse")
    model.fit(x, y, batch_size=6, epochs=1, shuffle=False, verbose=0)
    for module, reference in zip((conv, fc), expected, strict=True):
        for name, param in module.named_parameters():
            np.testing.assert_allclose(
                param.detach().numpy(), reference[name], rtol=1e-5, atol=1e-6
            )
    losses = model.fit(x, y, batch_size=6, epochs=5, shuffle=False, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    with torch.no_grad():
        bare = _classifier_reference(conv, fc, torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(model.predict(x, verbose=0), bare, rtol=1e-5, atol=1e-6)


# Saving ---------------------------------------------------------------------------------
def test_save_weights_round_trips(tmp_path):
    model = Classifier()
    x = _rand(3, 1, 8, 8)
    before = model.predict(x, verbose=0)
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path) as f:  # Keras's layout: the state_dict by name
        assert sorted(f["conv/vars"]) == ["bias", "weight"]
    other = Classifier()
    other(x)
    assert not np.allclose(other.predict(x, verbose=0), before)
    other.load_weights(path)
    np.testing.assert_allclose(other.predict(x, verbose=0), before, rtol=1e-6)
    assert torch.equal(other.conv.module.weight, model.conv.module.weight)


def test_batchnorm_buffers_are_saved_and_loaded(tmp_path):
    def make():
        return _functional(nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)))

    model = make()
    model.compile(optimizer="sgd", loss="mse")
    x = _rand(8, 4) * 3 + 1
    model.fit(x, _rand(8, 4), batch_size=8, epochs=2, verbose=0)
    batchnorm = model.layers[1].module[1]
    assert int(batchnorm.num_batches_tracked) == 2
    assert not torch.equal(batchnorm.running_mean, torch.zeros(4))
    path = tmp_path / "bn.weights.h5"
    model.save_weights(path)
    other = make()
    other.load_weights(path)
    loaded = other.layers[1].module
    for key, value in model.layers[1].module.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
    np.testing.assert_allclose(other.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_keras_file_round_trips_only_with_safe_mode_off(tmp_path):
    module = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model = _functional(module, name="torch_mlp")
    model.compile(optimizer="sgd", loss="mse")
    x = _rand(6, 4)
    model.fit(x, _rand(6, 2), epochs=1, verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)
    with pytest.raises(ValueError, match=r"'torch_mlp'.*safe_mode=False"):
        saving.load_model(path)
    loaded = saving.load_model(path, safe_mode=False)
    wrapper = loaded.get_layer("torch_mlp")
    assert isinstance(wrapper, TorchModuleWrapper) and wrapper.module is not module
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert torch.equal(wrapper.module[1].running_var, module[1].running_var)
    assert _same(loaded.trainable_weights, wrapper.module.parameters())


def test_from_config_refuses_the_pickle_unless_safe_mode_is_off():
    layer = TorchModuleWrapper(nn.Linear(4, 3), name="wrapped")
    config = layer.get_config()
    assert isinstance(config["module"], str)
    with pytest.raises(ValueError, match=r"'wrapped'.*arbitrary code.*safe_mode=False"):
        TorchModuleWrapper.from_config(config)
    with pytest.raises(ValueError, match=r"safe_mode=False"):
        layers.deserialize({"class_name": "TorchModuleWrapper", "config": config})
    rebuilt = TorchModuleWrapper.from_config(config, safe_mode=False)
    assert rebuilt.name == "wrapped" and rebuilt.module is not layer.module
    x = _rand(2, 4)
    np.testing.assert_allclose(_np(rebuilt(x)), _np(layer(x)))


# The JAX engine --------------------------------------------------------------------------
@pytest.mark.engine("jax")
def test_the_jax_engine_refuses_with_the_fix():
    with pytest.raises(ValueError, match=r"needs the torch engine.*'jax'.*LAMINA_BACKEND=torch"):
        TorchModuleWrapper(nn.Linear(4, 3))
    assert lamina.layers.TorchModuleWrapper is TorchModuleWrapper
