"""The last Keras 3 arguments lamina refused with a TypeError (issue 36 item 2): each is
taken with Keras's meaning, or, where Keras itself ignores or refuses its values,
accepted and documented so. Expected values come from Keras 3 run in this process."""

from __future__ import annotations

import io
import json
import os
import warnings

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import Input, Model, Sequential, layers, ops  # noqa: E402
from lamina.graph import KerasTensor  # noqa: E402

# Keras 3 reading lamina's arrays (as tests/saving/test_keras_interop.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


# tree -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "structures",
    [([1, None, {"a": 2, "b": None}],), ([1, None], [10, None]), (None,), ((3,),)],
)
@pytest.mark.parametrize("none_is_leaf", [True, False])
def test_map_structure_none_is_leaf_as_keras(structures, none_is_leaf):
    def func(*leaves):
        return tuple(leaves)

    expected = keras.tree.map_structure(func, *structures, none_is_leaf=none_is_leaf)
    assert lamina.tree.map_structure(func, *structures, none_is_leaf=none_is_leaf) == expected


@pytest.mark.parametrize("check_types", [True, False])
def test_assert_same_structure_check_types_warns_as_keras(check_types):
    for module in (keras.tree, lamina.tree):
        with pytest.warns(DeprecationWarning, match="check_types"):
            module.assert_same_structure([1, (2,)], [3, (4,)], check_types=check_types)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lamina.tree.assert_same_structure([1], [2])


# Progbar ----------------------------------------------------------------------------------
def _shown(bar) -> dict:
    return {name: total / count for name, (total, count) in bar._values.items()}


@pytest.mark.parametrize("kwargs", [{}, {"stateful_metrics": ["b"]}, {"stateless_metrics": ["a"]}])
def test_progbar_stateless_metrics_average_only_those_named(kwargs):
    ours = lamina.utils.Progbar(4, verbose=0, stream=io.StringIO(), **kwargs)
    theirs = keras.utils.Progbar(4, verbose=0, **kwargs)
    for bar in (ours, theirs):
        bar.update(1, [("a", 1.0), ("b", 1.0)])
        bar.update(2, [("a", 3.0), ("b", 3.0)])
    assert _shown(ours) == pytest.approx(_shown(theirs))
    assert ours.stateful_metrics == theirs.stateful_metrics
    assert ours.stateless_metrics == theirs.stateless_metrics


def test_progbar_refuses_both_metric_lists():
    with pytest.raises(ValueError, match="not both"):
        lamina.utils.Progbar(2, stateful_metrics=["a"], stateless_metrics=["b"])


# KerasTensor, StatelessScope, Variable, SeedGenerator -------------------------------------
def test_keras_tensor_refuses_ragged_and_takes_record_history():
    with pytest.raises(ValueError, match="ragged tensors are TensorFlow's"):
        KerasTensor((None, 3), ragged=True)
    plain = KerasTensor((None, 3), ragged=False, ragged_rank=1, row_splits_dtype="int64")
    assert plain.ragged is False and plain.record_history is True
    with pytest.raises(TypeError, match="unexpected keyword"):
        KerasTensor((2,), raged=True)
    # Keras: a call on a tensor made with record_history=False records no history.
    loose = KerasTensor((None, 3), record_history=False)
    out = layers.Dense(2)(loose)
    assert out._keras_history is None and tuple(out.shape) == (None, 2)
    assert layers.Dense(2)(Input((3,)))._keras_history is not None


@pytest.mark.parametrize("initialize_variables", [True, False])
def test_stateless_scope_takes_initialize_variables(initialize_variables):
    with lamina.StatelessScope(initialize_variables=initialize_variables) as scope:
        made = lamina.Variable(np.ones((2,), "float32"))
    assert scope.initialize_variables is initialize_variables
    np.testing.assert_array_equal(made.numpy(), [1.0, 1.0])


def test_variable_layout_places_the_value():
    from lamina import distribution

    devices = distribution.list_devices()[:1]
    mesh = distribution.DeviceMesh((1,), ["model"], devices)
    layout = distribution.TensorLayout([None, "model"], mesh)
    variable = lamina.Variable(np.ones((2, 2), "float32"), layout=layout)
    variable.assign(np.full((2, 2), 3.0, "float32"))
    np.testing.assert_array_equal(variable.numpy(), np.full((2, 2), 3.0))
    assert lamina.Variable(np.ones((2,)), layout=None).numpy().sum() == 2.0
    with distribution.DataParallel(devices=devices).scope():
        inside = lamina.Variable(np.ones((2, 2), "float32"), layout=layout)
    assert inside._layout is layout


# serialize's argument names ----------------------------------------------------------------
def test_serialize_functions_take_keras_argument_names():
    policy = lamina.dtype_policies.serialize(dtype_policy=lamina.DTypePolicy("bfloat16"))
    assert policy == keras.dtype_policies.serialize(dtype_policy=keras.DTypePolicy("bfloat16"))
    schedule = lamina.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    config = lamina.optimizers.schedules.serialize(learning_rate_schedule=schedule)
    assert config["class_name"] == "ExponentialDecay"
    quantizer = lamina.quantizers.AbsMaxQuantizer(axis=-1)
    ours = lamina.quantizers.serialize(initializer=quantizer)
    theirs = keras.quantizers.serialize(initializer=keras.quantizers.AbsMaxQuantizer(axis=-1))
    assert json.loads(json.dumps(ours)) == json.loads(json.dumps(theirs))  # as in a file


# the image layers' `factor`, the lookups' `autocast` ---------------------------------------
_STORE = {
    "ContrastLimitedAdaptiveHistogramEqualization": {},
    "Equalization": {},
    "MaxNumBoundingBoxes": {"max_number": 2},
    "MixUp": {},
    "RandomColorJitter": {},
    "RandomCrop": {"height": 2, "width": 2},
}
_REFUSE = {
    "AutoContrast": {},
    "CenterCrop": {"height": 2, "width": 2},
    "RandomFlip": {},
    "RandomShear": {"x_factor": 0.1},
    "RandomTranslation": {"height_factor": 0.1, "width_factor": 0.1},
    "RandomZoom": {"height_factor": 0.1},
    "Resizing": {"height": 2, "width": 2},
    "Solarization": {},
}


@pytest.mark.parametrize("name", sorted(_STORE))
def test_image_layers_keep_the_base_factor_as_keras(name):
    for factor in (None, 0.3, -0.4, (0.5, -0.2)):
        ours = getattr(layers, name)(**_STORE[name], factor=factor)
        theirs = getattr(keras.layers, name)(**_STORE[name], factor=factor)
        assert tuple(ours.factor) == pytest.approx(tuple(theirs.factor)), factor
    for bad in (2.0, (0.1, 0.2, 0.3), "big"):
        with pytest.raises(ValueError, match="factor"):
            getattr(keras.layers, name)(**_STORE[name], factor=bad)
        with pytest.raises(ValueError, match="factor"):
            getattr(layers, name)(**_STORE[name], factor=bad)


@pytest.mark.parametrize("name", sorted(_REFUSE))
def test_image_layers_refuse_a_factor_where_keras_does(name):
    getattr(layers, name)(**_REFUSE[name], factor=None)  # accepted, as in Keras
    with pytest.raises(ValueError, match="does not take a `factor` argument"):
        getattr(keras.layers, name)(**_REFUSE[name], factor=0.2)
    with pytest.raises(ValueError, match="does not take a `factor` argument"):
        getattr(layers, name)(**_REFUSE[name], factor=0.2)


def test_non_image_layers_still_refuse_factor():
    with pytest.raises(TypeError, match="factor"):
        layers.Dense(2, factor=0.1)


@pytest.mark.parametrize(
    "make",
    [
        lambda **k: layers.Hashing(3, **k),
        lambda **k: layers.HashedCrossing(3, **k),
        lambda **k: layers.StringLookup(vocabulary=["a", "b"], **k),
        lambda **k: layers.IntegerLookup(vocabulary=[1, 2], **k),
        lambda **k: layers.TextVectorization(vocabulary=["a", "b"], **k),
    ],
)
def test_lookup_layers_accept_autocast(make):
    plain, given = make(name="same"), make(name="same", autocast=True)
    assert given.get_config() == plain.get_config()


# saving ------------------------------------------------------------------------------------
def _model():
    inputs = Input((3,), name="x")
    hidden = layers.Dense(4, name="hidden")(inputs)
    return Model(inputs, layers.Dense(2, name="head")(hidden))


def test_save_model_keyword_arguments(tmp_path):
    model = _model()
    path = str(tmp_path / "m.keras")
    lamina.saving.save_model(model, path, zipped=True, include_optimizer=True)
    lamina.models.save_model(model, path, zipped=None, save_format="keras")
    assert lamina.saving.load_model(path).count_params() == model.count_params()
    with pytest.raises(ValueError, match="should not end in `.keras`"):
        lamina.saving.save_model(model, str(tmp_path / "d.keras"), zipped=False)
    with pytest.raises(ValueError, match="save_format"):
        lamina.saving.save_model(model, str(tmp_path / "m.tf"), save_format="tf")
    lamina.saving.save_model(model, str(tmp_path / "m.h5"), include_optimizer=False)
    assert (tmp_path / "m.h5").is_file()


def test_zipped_false_writes_the_folder_keras_writes(tmp_path):
    model = _model()
    model.compile(optimizer="adam", loss="mse")
    x = np.ones((2, 3), "float32")
    model.fit(x, np.zeros((2, 2), "float32"), verbose=0)  # the optimizer's state goes too
    ours = str(tmp_path / "ours")
    model.save(ours, zipped=False)
    assert sorted(os.listdir(ours)) == ["config.json", "metadata.json", "model.weights.h5"]
    expected = ops.convert_to_numpy(model(x))
    np.testing.assert_array_equal(ops.convert_to_numpy(lamina.saving.load_model(ours)(x)), expected)
    theirs = keras.saving.load_model(ours)  # Keras 3 reads lamina's folder ...
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(theirs(x)), expected, rtol=1e-5, atol=1e-6
    )
    folder = str(tmp_path / "theirs")
    keras.saving.save_model(theirs, folder, zipped=False)  # ... and lamina reads Keras's
    np.testing.assert_allclose(
        ops.convert_to_numpy(lamina.saving.load_model(folder)(x)), expected, rtol=1e-5, atol=1e-6
    )
    with pytest.raises(FileExistsError, match="overwrite=False"):
        lamina.saving.save_model(model, ours, zipped=False, overwrite=False)
    lamina.saving.save_model(model, ours, zipped=False)  # replaces the folder
    (tmp_path / "plain").mkdir()
    with pytest.raises(ValueError, match="not a model folder"):
        lamina.saving.save_model(model, str(tmp_path / "plain"), zipped=False)


def test_save_weights_overwrite_and_max_shard_size(tmp_path):
    model = _model()
    path = str(tmp_path / "w.weights.h5")
    lamina.saving.save_weights(model, path, overwrite=True)
    with pytest.raises(FileExistsError, match="overwrite=False"):
        lamina.saving.save_weights(model, path, overwrite=False)
    with pytest.raises(ValueError, match="does not shard"):
        lamina.saving.save_weights(model, str(tmp_path / "s.weights.h5"), max_shard_size=1)


@pytest.mark.parametrize("through", ["saving", "model"])
def test_load_weights_objects_to_skip_keeps_those_weights(tmp_path, through):
    source, target = _model(), _model()
    path = str(tmp_path / "w.weights.h5")
    source.save_weights(path)
    before = target.get_layer("hidden").get_weights()
    skip = [target.get_layer("hidden")]
    if through == "saving":
        lamina.saving.load_weights(target, path, objects_to_skip=skip)
    else:
        target.load_weights(path, objects_to_skip=skip)
    for got, kept in zip(target.get_layer("hidden").get_weights(), before):
        np.testing.assert_array_equal(got, kept)
    for got, saved in zip(
        target.get_layer("head").get_weights(), source.get_layer("head").get_weights()
    ):
        np.testing.assert_array_equal(got, saved)
    source.save_weights(str(tmp_path / "w.h5"))
    with pytest.raises(ValueError, match="'.weights.h5' files only"):
        lamina.saving.load_weights(target, str(tmp_path / "w.h5"), objects_to_skip=skip)


def test_load_weights_objects_to_skip_matches_keras(tmp_path):
    # The same file and the same skipped layer, read by Keras and by lamina.
    path = str(tmp_path / "w.weights.h5")
    _model().save_weights(path)
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, name="hidden")(inputs)
    theirs = keras.Model(inputs, keras.layers.Dense(2, name="head")(hidden))
    ours = _model()

    def weights_of_theirs():
        return [keras.ops.convert_to_numpy(v) for v in theirs.weights]

    ours.set_weights(weights_of_theirs())
    theirs.load_weights(path, objects_to_skip=[theirs.get_layer("head")])
    ours.load_weights(path, objects_to_skip=[ours.get_layer("head")])
    for got, expected in zip(ours.get_weights(), weights_of_theirs()):
        np.testing.assert_array_equal(got, expected)


# registry ----------------------------------------------------------------------------------
class _Gadget:
    def __init__(self, size=1):
        self.size = size

    def get_config(self):
        return {"size": self.size}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def test_module_objects_resolve_names():
    table = {"Gadget": _Gadget}
    for module in (keras.saving, lamina.saving, lamina.utils):
        assert module.get_registered_object("Gadget", module_objects=table) is _Gadget
        assert module.get_registered_object("Nothing", module_objects=table) is None
    # (Keras re-imports the class by its module there, which a test module is not.)
    config = {"class_name": "Gadget", "config": {"size": 3}, "module": "mine"}
    made = lamina.saving.deserialize_keras_object(config, module_objects=table)
    assert isinstance(made, _Gadget) and made.size == 3
    with pytest.raises(TypeError, match="module_objects"):
        lamina.saving.get_registered_object("Gadget", None, "layers")


# images and plots --------------------------------------------------------------------------
def test_smart_resize_accepts_backend_module():
    image = np.arange(48, dtype="float32").reshape(4, 4, 3)
    plain = lamina.preprocessing.image.smart_resize(image, (2, 2))
    given = lamina.preprocessing.image.smart_resize(image, (2, 2), backend_module=ops)
    np.testing.assert_array_equal(np.asarray(plain), np.asarray(given))
    expected = keras.preprocessing.image.smart_resize(image, (2, 2))
    np.testing.assert_allclose(np.asarray(given), np.asarray(expected), rtol=1e-5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        lamina.preprocessing.image.smart_resize(image, (2, 2), backend=ops)


@pytest.mark.parametrize("name", ["plot_model", "model_to_dot"])
def test_plot_functions_refuse_a_layer_range_as_keras(name, tmp_path):
    model = Sequential([Input((2,)), layers.Dense(1)])
    kwargs = {"to_file": str(tmp_path / "m.svg")} if name == "plot_model" else {}
    with pytest.raises(ValueError, match="layer_range` is no longer supported"):
        getattr(lamina.utils, name)(model, layer_range=["a", "b"], **kwargs)
