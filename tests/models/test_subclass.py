"""Subclassed models and layers: tracking, weights, losses, trainable."""

import numpy as np
import pytest

import lamina
from lamina import Model, layers, ops


class MLP(Model):
    def __init__(self):
        super().__init__()
        self.hidden = [layers.Dense(4, activation="relu"), layers.Dense(3)]
        self.heads = {"out": layers.Dense(1)}
        self.scale = lamina.Variable(np.float32(2.0), trainable=False, name="scale")

    def call(self, x, training=False):
        for layer in self.hidden:
            x = layer(x)
        return self.heads["out"](x) * self.scale


def test_tracks_layers_in_lists_and_dicts_and_variables():
    model = MLP()
    out = model(np.ones((2, 5), "float32"))
    assert out.shape == (2, 1)
    assert len(model.layers) == 3
    assert len(model.trainable_weights) == 6
    assert len(model.non_trainable_weights) == 1
    assert model.non_trainable_weights[0] is model.scale
    assert model.count_params() == 5 * 4 + 4 + 4 * 3 + 3 + 3 + 1 + 1


def test_subclassed_model_summary_after_call():
    model = MLP()
    model(np.ones((2, 5), "float32"))
    lines = []
    model.summary(print_fn=lines.append)
    assert any("Total params: 44" in line for line in lines)


def test_subclass_without_call_raises():
    with pytest.raises(NotImplementedError, match="must implement `call"):
        Model()(np.ones((1, 2)))


def test_losses_from_call_activity_and_weight_regularizers():
    class WithLoss(layers.Layer):
        def call(self, x):
            self.add_loss(ops.sum(x))
            return x

    reg = lamina.regularizers.L2(0.5)
    dense = layers.Dense(
        2,
        kernel_regularizer=reg,
        activity_regularizer=lamina.regularizers.L1(0.1),
        kernel_initializer="ones",
    )
    x = lamina.Input((2,))
    model = Model(x, dense(WithLoss()(x)))
    data = np.ones((1, 2), "float32")
    model(data)
    losses = [float(v) for v in model.losses]
    # add_loss: sum(x) = 2; activity L1: 0.1 * sum(|x @ ones|) = 0.1 * 4; kernel L2: 0.5 * 4
    assert sorted(np.round(losses, 5)) == sorted([2.0, 0.4, 2.0])
    model(data)  # losses from a call are replaced by the next call, not accumulated
    assert len(model.losses) == 3


def test_set_weights_checks_count_and_shapes():
    dense = layers.Dense(2, name="dd")
    dense.build((None, 3))
    with pytest.raises(
        ValueError, match="'dd' has 2 weight\\(s\\), but set_weights received a list of 1"
    ):
        dense.set_weights([np.zeros((3, 2))])
    with pytest.raises(
        ValueError,
        match=r"'dd/kernel' has shape \(3, 2\), but the array given for it has shape \(2, 3\)",
    ):
        dense.set_weights([np.zeros((2, 3)), np.zeros(2)])


def test_automatic_unique_names():
    names = [layers.Dense(1).name for _ in range(3)]
    assert names == ["dense", "dense_1", "dense_2"]
    assert layers.ReLU().name == "re_lu"


def test_get_config_required_for_custom_args():
    class Custom(layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

    with pytest.raises(NotImplementedError, match=r"constructor arguments \['units'\]"):
        Custom(3).get_config()


class Scaled(Model):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = layers.Dense(units)

    def call(self, x):
        return self.dense(x)


def test_subclassed_model_with_init_args_needs_get_config():
    model = Scaled(3, name="scaled")
    model(np.ones((1, 2), "float32"))
    # Keras raises NotImplementedError too: the base config cannot re-create the model.
    for describe in (model.get_config, model.to_json):
        with pytest.raises(
            NotImplementedError,
            match=r"Scaled takes constructor arguments \['units'\].*Override `get_config`",
        ):
            describe()
    # A config that matches __init__ still builds one.
    rebuilt = Scaled.from_config({"units": 4, "name": "again"})
    assert rebuilt.units == 4 and rebuilt.name == "again"
    assert rebuilt(np.ones((1, 2), "float32")).shape == (1, 4)


def test_subclassed_model_with_get_config_round_trips():
    class WithConfig(Scaled):
        def get_config(self):
            return {**super().get_config(), "units": self.units}

    model = WithConfig(5, name="with_config")
    config = model.get_config()
    assert config["units"] == 5 and config["name"] == "with_config"
    assert WithConfig.from_config(config).units == 5
    assert MLP().get_config()["name"].startswith("mlp")  # no constructor arguments: fine
