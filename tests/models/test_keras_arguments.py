"""Keras 3 arguments that lamina once refused with a TypeError (issue 16 item 6): each
is taken with Keras's meaning, or refused with a message saying what lamina does."""

import warnings

import h5py
import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, callbacks, layers, ops


def test_pooling_takes_name_as_fifth_positional_argument():
    layer = layers.MaxPooling2D(2, None, "valid", None, "pool")
    assert layer.name == "pool" and layer.strides == (2, 2)
    assert layers.AveragePooling1D(3, 1, "same", "channels_last", "avg").name == "avg"


def test_variable_and_add_weight_take_aggregation_and_synchronization():
    v = lamina.Variable(1.0, aggregation="mean", synchronization="on_read", name="v")
    assert (v.aggregation, v.synchronization) == ("mean", "on_read")
    plain = lamina.Variable(np.zeros(2))
    assert (plain.aggregation, plain.synchronization) == ("none", "auto")
    assert lamina.Variable(0.0, aggregation=None).aggregation == "none"
    with pytest.raises(ValueError, match=r"`aggregation` must be one of .*'average'"):
        lamina.Variable(1.0, aggregation="average")
    layer = layers.Layer()
    w = layer.add_weight(shape=(2,), initializer="zeros", aggregation="sum", name="w")
    assert w.aggregation == "sum" and w.overwrite_with_gradient is False


class _Probe(layers.Layer):
    """out = x @ w, with w kept as its gradient (Keras's float8 scale-factor pattern)."""

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], 1), initializer="ones", overwrite_with_gradient=True
        )
        self.k = self.add_weight(shape=(1,), initializer="ones")

    def call(self, x):
        return ops.matmul(x, self.w) * self.k


@pytest.mark.parametrize("path", ["apply", "fit"])
def test_overwrite_with_gradient_sets_the_weight_to_its_gradient(path):
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], "float32")
    if path == "apply":
        v = lamina.Variable(np.ones(2, "float32"))
        v.overwrite_with_gradient = True
        w = lamina.Variable(np.ones(2, "float32"))
        opt = lamina.optimizers.SGD(0.1)
        opt.apply([np.array([3.0, 4.0]), np.array([1.0, -1.0])], [v, w])
        np.testing.assert_allclose(ops.convert_to_numpy(v.value), [3.0, 4.0])
        np.testing.assert_allclose(ops.convert_to_numpy(w.value), [0.9, 1.1], rtol=1e-6)
        return
    probe = _Probe()
    model = Sequential([Input((2,)), probe])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    model.fit(x, np.zeros((3, 1), "float32"), batch_size=3, epochs=1, verbose=0)
    # loss = mean_i (x_i . w * k)^2 with w = 1, k = 1: d/dw = 2/n sum_i (x_i . w) x_i.
    pred = x.sum(1, keepdims=True)
    grad_w = 2.0 / 3.0 * (x * pred).sum(0)[:, None]
    grad_k = 2.0 / 3.0 * (pred * pred).sum()
    np.testing.assert_allclose(ops.convert_to_numpy(probe.w.value), grad_w, rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(probe.k.value), [1 - 0.1 * grad_k], rtol=1e-5)


def test_save_zipped_and_max_shard_size(tmp_path):
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.save(str(tmp_path / "m.keras"), zipped=True)
    assert (tmp_path / "m.keras").is_file()
    with pytest.raises(ValueError, match="should not end in `.keras`"):  # a folder, as Keras
        model.save(str(tmp_path / "folder.keras"), zipped=False)
    with pytest.raises(ValueError, match="does not shard"):
        model.save_weights(str(tmp_path / "w.weights.h5"), max_shard_size=0.25)
    assert not (tmp_path / "folder.keras").exists() and not (tmp_path / "w.weights.h5").exists()


def _pair(units):
    x = Input((3,), name="x")
    h = layers.Dense(4, name="hidden")(x)
    return Model(x, layers.Dense(units, name="head")(h))


@pytest.mark.parametrize("suffix", [".weights.h5", ".h5"])
def test_load_weights_skip_mismatch_keeps_the_mismatched_layer(tmp_path, suffix):
    source, target = _pair(2), _pair(5)
    path = str(tmp_path / f"w{suffix}")
    if suffix == ".h5":
        source.save(path)  # a legacy whole-model file: its weights load by topology
    else:
        source.save_weights(path)
    head_before = target.get_layer("head").get_weights()
    with pytest.raises(ValueError, match="head"):
        target.load_weights(path)
    with pytest.warns(UserWarning, match=r"Skipping the weights of .*'head'.*skip_mismatch"):
        target.load_weights(path, skip_mismatch=True)
    for got, want in zip(
        target.get_layer("hidden").get_weights(), source.get_layer("hidden").get_weights()
    ):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(target.get_layer("head").get_weights(), head_before):
        np.testing.assert_array_equal(got, want)
    # Keras 2's `by_name` (issue 32, item 10) reads Keras 2's layout (the `.h5` file);
    # Keras 3's `.weights.h5` layout is matched by structure and says so.
    if suffix == ".h5":
        with pytest.raises(ValueError, match="head"):
            target.load_weights(path, by_name=True)
    else:
        with pytest.raises(ValueError, match="by_name"):
            target.load_weights(path, by_name=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        target.load_weights(path, reshape=True)


def test_load_weights_skip_mismatch_counts_a_missing_layer(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    _pair(2).save_weights(path)
    with h5py.File(path, "a") as f:
        del f["layers/dense_1"]  # the head (Keras names entries by class), as if absent
    target = _pair(2)
    with pytest.warns(UserWarning, match="has no weights for it"):
        target.load_weights(path, skip_mismatch=True)


def test_input_ragged():
    assert Input((3,), ragged=False).shape == (None, 3)
    with pytest.raises(ValueError, match=r"ragged=True.*pad_sequences"):
        Input((None,), ragged=True)
    with pytest.raises(ValueError, match="no ragged tensors"):
        layers.InputLayer(shape=(3,), ragged=True)
    config = layers.InputLayer(shape=(3,), name="i").get_config()
    assert config["ragged"] is False
    assert layers.InputLayer.from_config(config).batch_shape == (None, 3)


@pytest.mark.parametrize("cls", [layers.LSTM, layers.GRU])
def test_recurrent_implementation_is_accepted(cls):
    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype("float32")
    one, two = cls(3, implementation=1, seed=1), cls(3, seed=1)
    one.build(x.shape)
    two.build(x.shape)
    two.set_weights(one.get_weights())
    assert one.cell.implementation == 1 and two.cell.implementation == 2
    np.testing.assert_allclose(
        ops.convert_to_numpy(one(x)), ops.convert_to_numpy(two(x)), rtol=1e-5, atol=1e-6
    )
    with pytest.raises(ValueError, match="1 or 2"):
        cls(3, implementation=0)


def test_reduce_lr_on_plateau_takes_keras_2_keywords():
    with pytest.warns(UserWarning, match=r"ignores \['baseline'\]"):
        callbacks.ReduceLROnPlateau(baseline=0.5)
    with pytest.warns(UserWarning, match="min_delta"):
        cb = callbacks.ReduceLROnPlateau(epsilon=0.01)
    assert abs(cb.min_delta) == 0.01


@pytest.mark.parametrize(
    "make",
    [
        lambda **k: layers.RandomFlip(**k),
        lambda **k: layers.RandomRotation(0.1, **k),
        lambda **k: layers.Resizing(4, 4, **k),
        lambda **k: layers.CenterCrop(2, 2, **k),
        lambda **k: layers.RandomCrop(2, 2, **k),
        lambda **k: layers.RandomBrightness(0.1, **k),
    ],
)
def test_image_layers_take_bounding_box_format_none(make):
    make(bounding_box_format=None)
    with pytest.raises(ValueError, match=r"bounding_box_format='xyxy'.*not bounding boxes"):
        make(bounding_box_format="xyxy")


def test_bounding_box_format_stays_an_error_elsewhere():
    with pytest.raises(TypeError, match="bounding_box_format"):
        layers.Dense(2, bounding_box_format=None)


def test_compile_config_round_trip():
    model = Sequential([Input((2,)), layers.Dense(1)])
    assert model.get_compile_config() is None
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    config = model.get_compile_config()
    other = Sequential([Input((2,)), layers.Dense(1)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other.compile_from_config(config)
    assert other.compiled and type(other.optimizer).__name__ == "Adam"
    assert float(ops.convert_to_numpy(other.optimizer.learning_rate)) == pytest.approx(0.01)
