"""Keras 3 parity fixes: LayerNormalization(rms_scaling=True), mean_with_sample_weight
with a scalar weight, and the error for a `.keras` file naming an unknown class.

Each case is checked against NumPy formulas and, where cheap, against Keras itself.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

from lamina import Input, Sequential, layers, losses, metrics, models, ops, saving  # noqa: E402
from lamina.losses.loss import reduce_weighted_values  # noqa: E402

RMS_WARNING = "ignore:You passed `rms_scaling=True`:UserWarning"
pytestmark = pytest.mark.filterwarnings(
    # Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


# ------------------------------------------------------------ LayerNormalization(rms)


def _rms_reference(x, gamma, axes, epsilon):
    # Keras 3's rms_scaling: divide by the standard deviation (no centering), times gamma.
    return x / np.sqrt(x.var(axis=axes, keepdims=True) + epsilon) * gamma


@pytest.mark.filterwarnings(RMS_WARNING)
def test_layernorm_rms_scaling_computes_what_keras_computes():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 3, 4)) + 1.5).astype("float32")  # mean far from 0
    gamma = rng.uniform(0.5, 2.0, (3, 4)).astype("float32")
    layer = layers.LayerNormalization(axis=[1, 2], rms_scaling=True, epsilon=1e-3)
    layer.build(x.shape)
    # Keras's weights: gamma only (no beta), so weight lists and files line up.
    assert [w.name for w in layer.weights] == ["gamma"]
    layer.set_weights([gamma])
    want = _rms_reference(x.astype("float64"), gamma, (1, 2), 1e-3)
    np.testing.assert_allclose(_np(layer(x)), want, rtol=1e-5, atol=1e-5)

    k_layer = keras.layers.LayerNormalization(axis=[1, 2], rms_scaling=True, epsilon=1e-3)
    k_layer.build(x.shape)
    assert [w.path.split("/")[-1] for w in k_layer.weights] == ["gamma"]
    k_layer.set_weights(layer.get_weights())
    np.testing.assert_allclose(_np(layer(x)), np.asarray(k_layer(x)), rtol=1e-5, atol=1e-5)


def test_layernorm_rms_scaling_warns_like_keras():
    with pytest.warns(UserWarning, match="RMSNormalization"):
        layers.LayerNormalization(rms_scaling=True)


@pytest.mark.engine("jax")
@pytest.mark.filterwarnings(RMS_WARNING)
def test_layernorm_rms_scaling_file_moves_both_ways(tmp_path):
    x = np.random.default_rng(1).standard_normal((2, 4)).astype("float32") + 2.0
    gamma = np.array([0.5, 1.0, 2.0, 3.0], "float32")
    k_model = keras.Sequential(
        [keras.Input((4,)), keras.layers.LayerNormalization(rms_scaling=True)]
    )
    k_model.layers[-1].set_weights([gamma])
    k_model.save(tmp_path / "k.keras")
    loaded = models.load_model(tmp_path / "k.keras")
    np.testing.assert_allclose(_np(loaded(x)), np.asarray(k_model(x)), rtol=1e-5, atol=1e-5)

    model = Sequential([Input((4,)), layers.LayerNormalization(rms_scaling=True)])
    model.layers[-1].set_weights([gamma[::-1].copy()])
    model.save(tmp_path / "l.keras")
    k_loaded = keras.saving.load_model(tmp_path / "l.keras")
    np.testing.assert_allclose(np.asarray(k_loaded(x)), _np(model(x)), rtol=1e-5, atol=1e-5)


# ------------------------------------------------ reductions with a scalar sample_weight


Y_TRUE = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "float32")
Y_PRED = np.array([[1.0, 1.0], [1.0, 0.0], [0.5, 0.0]], "float32")
PER_SAMPLE_MSE = ((Y_TRUE - Y_PRED) ** 2).mean(-1)  # [0.5, 0.5, 0.125]


@pytest.mark.parametrize(
    "reduction, want",
    [
        # Keras divides by the sum of the weights as given: a scalar counts once.
        ("mean_with_sample_weight", PER_SAMPLE_MSE.sum()),
        ("sum_over_batch_size", 2.0 * PER_SAMPLE_MSE.mean()),
        ("sum", 2.0 * PER_SAMPLE_MSE.sum()),
    ],
)
def test_loss_with_scalar_sample_weight_matches_keras(reduction, want):
    got = losses.MeanSquaredError(reduction=reduction)(Y_TRUE, Y_PRED, sample_weight=2.0)
    k = keras.losses.MeanSquaredError(reduction=reduction)(Y_TRUE, Y_PRED, sample_weight=2.0)
    np.testing.assert_allclose(_np(got), want, rtol=1e-6)
    np.testing.assert_allclose(_np(got), np.asarray(k), rtol=1e-6)


def test_mean_with_sample_weight_divides_by_the_weights_as_given():
    values = np.arange(1.0, 7.0, dtype="float32").reshape(3, 2)
    col = np.array([[1.0], [0.0], [3.0]], "float32")  # (n, 1) on (n, t): summed once per row
    got = reduce_weighted_values(values, col, reduction="mean_with_sample_weight")
    np.testing.assert_allclose(_np(got), (values * col).sum() / col.sum(), rtol=1e-6)
    # A mask multiplies the weights first, which broadcasts them to the values.
    mask = np.array([[1, 0], [1, 1], [0, 1]], bool)
    got = reduce_weighted_values(values, 0.5, mask=mask, reduction="mean_with_sample_weight")
    np.testing.assert_allclose(_np(got), values[mask].mean(), rtol=1e-6)


def test_mean_metric_with_scalar_sample_weight_matches_keras():
    x = np.array([[1.0, 2.0], [3.0, 6.0]], "float32")
    mine, theirs = metrics.Mean(), keras.metrics.Mean()
    for m in (mine, theirs):
        m.update_state(x, sample_weight=0.5)
        m.update_state(np.array([10.0], "float32"), sample_weight=2.0)
    # Keras reduces the values to the weight's rank (a mean) before weighing them.
    want = (0.5 * x.mean() + 2.0 * 10.0) / 2.5
    np.testing.assert_allclose(_np(mine.result()), want, rtol=1e-6)
    np.testing.assert_allclose(_np(mine.result()), np.asarray(theirs.result()), rtol=1e-6)


# ------------------------------------------------------- unknown class in a .keras file


class _Doubler(layers.Layer):
    def call(self, x):
        return x * 2.0


@pytest.mark.engine("jax")  # config resolution: no engine involved
def test_unknown_custom_class_raises_type_error_naming_the_fix(tmp_path):
    saving.register_keras_serializable(package="A4Tests")(_Doubler)
    try:
        x = Input((2,))
        Sequential([x, _Doubler(name="double")]).save(tmp_path / "m.keras")
    finally:
        saving.get_custom_objects().pop("A4Tests>_Doubler", None)
    # Keras raises TypeError; lamina's error is also a ValueError, as it was before.
    with pytest.raises(TypeError, match="Unknown layer class '_Doubler'") as info:
        models.load_model(tmp_path / "m.keras")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "custom_objects" in message and "register_keras_serializable" in message
    assert "A4Tests" in message  # the package to register it under
    loaded = models.load_model(tmp_path / "m.keras", custom_objects={"_Doubler": _Doubler})
    np.testing.assert_allclose(_np(loaded(np.ones((1, 2), "float32"))), [[2.0, 2.0]])


@pytest.mark.engine("jax")  # config resolution: no engine involved
def test_unknown_class_inside_a_functional_config_stays_a_type_error():
    x = Input((2,))
    config = models.Model(x, _Doubler(name="double")(x)).get_config()
    with pytest.raises(TypeError, match="Unknown layer class '_Doubler'"):
        models.Model.from_config(config)
    with pytest.raises(TypeError, match="Unknown function 'a4_nope'"):
        layers.Activation.from_config(
            {"activation": {"class_name": "function", "config": "a4_nope"}}
        )
