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
    losses = [float(lamina.ops.convert_to_numpy(v)) for v in model.losses]
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


def test_custom_layer_is_described_by_the_plain_arguments_it_was_given():
    # Keras 3's automatic config: a subclass without `get_config` records its
    # constructor arguments when they are plain values, with the values passed.
    class Custom(layers.Layer):
        def __init__(self, units, scale=1.0, sizes=(1, 2), **kwargs):
            super().__init__(**kwargs)
            self.units, self.scale, self.sizes = units, scale, sizes

    config = Custom(3, scale=2.5, sizes=(1, 2), name="c").get_config()
    assert {k: config[k] for k in ("units", "scale", "sizes", "name")} == {
        "units": 3,
        "scale": 2.5,
        "sizes": [1, 2],
        "name": "c",
    }
    clone = Custom.from_config(config)
    assert (clone.units, clone.scale, clone.name) == (3, 2.5, "c")


def test_custom_layer_with_an_argument_json_cannot_carry_needs_get_config():
    class Wrapper(layers.Layer):
        def __init__(self, inner, units=2, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

    with pytest.raises(NotImplementedError, match=r"argument\(s\) \['inner'\] that are not plain"):
        Wrapper(layers.Dense(2)).get_config()
    with pytest.raises(NotImplementedError, match=r"\['inner'\]"):
        Wrapper(np.float32(1.0)).get_config()  # NumPy scalars are not plain either


def test_automatic_config_matches_keras_for_plain_arguments():
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")

    def define(base):
        class Custom(base):
            def __init__(self, units, scale=1.0, **kwargs):
                super().__init__(**kwargs)
                self.units, self.scale = units, scale

        return Custom

    ours = define(layers.Layer)(4, scale=0.5).get_config()
    theirs = define(keras.layers.Layer)(4, scale=0.5).get_config()
    assert (ours["units"], ours["scale"]) == (theirs["units"], theirs["scale"]) == (4, 0.5)


class Scaled(Model):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = layers.Dense(units)

    def call(self, x):
        return self.dense(x)


def test_subclassed_model_is_described_by_the_arguments_it_was_given():
    model = Scaled(3, name="scaled")
    model(np.ones((1, 2), "float32"))
    config = model.get_config()
    assert config["units"] == 3 and config["name"] == "scaled"
    # Keras 3.15 refuses this model, and describes one whose arguments all have defaults
    # by those defaults whatever was passed; lamina records what was passed.
    rebuilt = lamina.models.model_from_json(model.to_json(), custom_objects={"Scaled": Scaled})
    assert isinstance(rebuilt, Scaled) and rebuilt.units == 3 and rebuilt.name == "scaled"
    assert rebuilt(np.ones((1, 2), "float32")).shape == (1, 3)


def test_subclassed_model_with_a_non_plain_argument_needs_get_config():
    class Holder(Model):
        def __init__(self, head, **kwargs):
            super().__init__(**kwargs)
            self.head = head

        def call(self, x):
            return self.head(x)

    model = Holder(layers.Dense(2))
    for describe in (model.get_config, model.to_json):
        with pytest.raises(
            NotImplementedError,
            match=r"Model subclass Holder was constructed with argument\(s\) \['head'\].*"
            "Override `get_config`",
        ):
            describe()


def test_subclassed_model_with_get_config_round_trips():
    class WithConfig(Scaled):
        def get_config(self):
            return {**super().get_config(), "units": self.units}

    model = WithConfig(5, name="with_config")
    config = model.get_config()
    assert config["units"] == 5 and config["name"] == "with_config"
    assert WithConfig.from_config(config).units == 5
    assert MLP().get_config()["name"].startswith("mlp")  # no constructor arguments: fine


def test_custom_layer_with_automatic_config_saves_and_loads(tmp_path):
    class Scale(layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    inp = lamina.Input((3,))
    model = Model(inp, Scale(3.0, name="scale")(layers.Dense(2)(inp)))
    model.save(tmp_path / "m.keras")
    loaded = lamina.models.load_model(tmp_path / "m.keras", custom_objects={"Scale": Scale})
    assert loaded.get_layer("scale").factor == 3.0
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
