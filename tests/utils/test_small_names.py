"""Small names Keras programs use, each compared with Keras 3 itself.

`keras.config` (interactive logging, traceback filtering, the caps on epochs and steps),
`keras.utils` (Config, Progbar, Sequence, clear_session, get_custom_objects,
get_source_inputs, is_keras_tensor, standardize_dtype), `keras.saving.get_custom_objects`,
`keras.models.save_model` and the `keras.tree` helpers.
"""

import collections
import os
import warnings

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402 - the reference, on its JAX backend

import lamina  # noqa: E402
from lamina import Input, Model, layers, tree, utils  # noqa: E402

CONFIG_NAMES = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]
UTILS_NAMES = [
    "Config",
    "Progbar",
    "Sequence",
    "clear_session",
    "get_custom_objects",
    "get_source_inputs",
    "is_keras_tensor",
    "standardize_dtype",
]
TREE_NAMES = ["assert_same_paths", "flatten_with_path", "lists_to_tuples", "map_shape_structure"]


@pytest.fixture(autouse=True)
def _restore_settings():
    yield
    lamina.config.set_max_epochs(None)
    lamina.config.set_max_steps_per_epoch(None)
    lamina.config.enable_interactive_logging()
    lamina.config.enable_traceback_filtering()


@pytest.mark.parametrize(
    "module, names",
    [
        ("config", CONFIG_NAMES),
        ("utils", UTILS_NAMES),
        ("tree", TREE_NAMES),
        ("saving", ["get_custom_objects"]),
        ("models", ["save_model"]),
    ],
)
def test_the_names_exist_where_keras_has_them(module, names):
    for name in names:
        assert hasattr(getattr(keras, module), name)  # the reference has it...
        assert hasattr(getattr(lamina, module), name)  # ...and so do we
        assert name in getattr(lamina, module).__all__


def test_aliases_are_the_objects_lamina_already_has():
    assert utils.Sequence is utils.PyDataset
    assert utils.Progbar is lamina.callbacks.Progbar
    assert utils.clear_session is lamina.backend.clear_session
    assert lamina.models.save_model is lamina.saving.save_model
    assert lamina.saving.get_custom_objects is utils.get_custom_objects
    assert lamina.config.is_interactive_logging_enabled is utils.is_interactive_logging_enabled


def test_switches_behave_as_keras_config():
    for ours, theirs in ((lamina.config, keras.config),):
        for switch in ("interactive_logging", "traceback_filtering"):
            assert (
                getattr(ours, f"is_{switch}_enabled")() == getattr(theirs, f"is_{switch}_enabled")()
            )
            getattr(ours, f"disable_{switch}")()
            getattr(theirs, f"disable_{switch}")()
            assert getattr(ours, f"is_{switch}_enabled")() is False
            assert getattr(theirs, f"is_{switch}_enabled")() is False
            getattr(ours, f"enable_{switch}")()
            getattr(theirs, f"enable_{switch}")()
        assert ours.max_epochs() == theirs.max_epochs() is None
        assert ours.max_steps_per_epoch() == theirs.max_steps_per_epoch() is None


# The caps on epochs and steps ---------------------------------------------------------------
_MODELS = []


def _model():
    """One small compiled model for the whole module (its programs are traced once)."""
    if not _MODELS:
        inputs = Input((2,))
        model = Model(inputs, layers.Dense(1)(inputs))
        model.compile("sgd", "mse")
        _MODELS.append(model)
    return _MODELS[0]


class _Count(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []

    def on_epoch_begin(self, epoch, logs=None):
        self.batches.append(0)

    def on_train_batch_end(self, batch, logs=None):
        self.batches[-1] += 1

    def on_test_batch_end(self, batch, logs=None):
        self.batches.append("test")

    def on_predict_batch_end(self, batch, logs=None):
        self.batches.append("predict")


def test_max_epochs_caps_fit_with_keras_warning():
    x, y = np.ones((4, 2)), np.ones((4, 1))
    lamina.config.set_max_epochs(2)
    assert lamina.config.max_epochs() == 2
    count = _Count()
    with pytest.warns(UserWarning, match="Limiting epochs to 2"):
        history = _model().fit(x, y, epochs=5, batch_size=2, verbose=0, callbacks=[count])
    assert len(history.history["loss"]) == 2 and count.batches == [2, 2]
    assert history.params["epochs"] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _model().fit(x, y, epochs=2, batch_size=2, verbose=0)  # under the cap: no warning


def test_max_steps_per_epoch_caps_fit_evaluate_and_predict():
    x, y = np.ones((10, 2)), np.ones((10, 1))
    lamina.config.set_max_steps_per_epoch(2)
    model, count = _model(), _Count()
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 2"):
        model.fit(x, y, batch_size=2, epochs=2, verbose=0, callbacks=[count])
    assert count.batches == [2, 2]
    count.batches = [0]
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 2"):
        model.evaluate(x, y, batch_size=2, verbose=0, callbacks=[count])
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 2"):
        out = model.predict(x, batch_size=2, verbose=0, callbacks=[count])
    assert count.batches == [0, "test", "test", "predict", "predict"]
    assert out.shape == (4, 1)

    def batches():
        while True:
            yield x[:2], y[:2]

    count = _Count()
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 2"):
        model.fit(batches(), epochs=1, verbose=0, callbacks=[count])
    assert count.batches == [2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x[:4], y[:4], batch_size=2, verbose=0)  # 2 batches: the cap changes nothing


def test_caps_refuse_nonsense():
    for bad in (0, -1, 2.5, "3", True):
        with pytest.raises(ValueError, match="positive int or None"):
            lamina.config.set_max_epochs(bad)
        with pytest.raises(ValueError, match="positive int or None"):
            lamina.config.set_max_steps_per_epoch(bad)


def test_caps_from_the_environment_as_keras_reads_them(monkeypatch):
    import importlib

    from lamina.common import debugging

    monkeypatch.setenv("KERAS_MAX_EPOCHS", "3")
    monkeypatch.setenv("LAMINA_MAX_STEPS_PER_EPOCH", "4")
    monkeypatch.setenv("KERAS_MAX_STEPS_PER_EPOCH", "5")  # lamina's own name wins
    monkeypatch.setenv("LAMINA_CHECK_INPUTS", "1")
    try:
        importlib.reload(debugging)  # the environment is read at import
        assert lamina.config.max_epochs() == 3
        assert lamina.config.max_steps_per_epoch() == 4
        assert lamina.config.is_input_checks_enabled() is True
        monkeypatch.setenv("KERAS_MAX_EPOCHS", "many")
        with pytest.raises(ValueError, match="KERAS_MAX_EPOCHS='many' must be a positive"):
            importlib.reload(debugging)
    finally:
        for name in ("KERAS_MAX_EPOCHS", "LAMINA_MAX_STEPS_PER_EPOCH", "LAMINA_CHECK_INPUTS"):
            monkeypatch.delenv(name)
        monkeypatch.delenv("KERAS_MAX_STEPS_PER_EPOCH")
        importlib.reload(debugging)
    assert lamina.config.max_epochs() is None and not lamina.config.is_input_checks_enabled()


# keras.utils ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [keras.utils.Config, utils.Config], ids=["keras", "lamina"])
def test_config_behaves_as_keras_config(cls):
    config = cls(learning_rate=0.1, momentum=0.9)
    config.seed = 7
    config["batch"] = 32
    assert (config.learning_rate, config["seed"], config.get("missing", 3)) == (0.1, 7, 3)
    assert list(config) == ["batch", "learning_rate", "momentum", "seed"]
    assert len(config) == 4 and "seed" in config and "nope" not in config
    assert config.as_dict() == {"learning_rate": 0.1, "momentum": 0.9, "seed": 7, "batch": 32}
    assert config.to_json() == ('{"learning_rate": 0.1, "momentum": 0.9, "seed": 7, "batch": 32}')
    assert config.pop("batch") == 32
    config.update(decay=0.5)
    assert dict(config.items())["decay"] == 0.5
    with pytest.raises(AttributeError, match="Did you mean 'momentum'"):
        config.momentun  # noqa: B018
    config.freeze()
    assert config.frozen
    for change in (
        lambda: setattr(config, "seed", 8),
        lambda: config.__setitem__("seed", 8),
        lambda: config.update(seed=8),
        lambda: config.pop("seed"),
        lambda: config.__delitem__("seed"),
    ):
        with pytest.raises(ValueError, match="frozen"):
            change()
    config.unfreeze()
    config.seed = 9
    assert config.seed == 9
    assert repr(config).startswith("<Config {")


def test_get_source_inputs_matches_keras():
    def build(api):
        a, b, c = (api.Input((2,), name=n) for n in ("a", "b", "c"))
        left = api.layers.Add()([b, a])
        out = api.layers.Concatenate()([api.layers.Activation("relu")(left), a, c])
        return a, out

    for api in (keras, lamina):
        a, out = build(api)
        assert [t.name for t in api.utils.get_source_inputs(out)] == ["b", "a", "c"]
        assert api.utils.get_source_inputs(a) == [a]
    assert utils.get_source_inputs(3) == keras.utils.get_source_inputs(3) == 3


def test_custom_objects_registry_matches_keras():
    for api in (keras, lamina):

        @api.saving.register_keras_serializable(package="small_names")
        class Doubler(api.layers.Layer):
            def call(self, x):
                return 2 * x

        assert api.saving.get_custom_objects()["small_names>Doubler"] is Doubler
        assert api.utils.get_custom_objects() is api.saving.get_custom_objects()

    # An entry added by hand resolves in deserialization, as in Keras.
    def halve(x):
        return x / 2

    utils.get_custom_objects()["halve_by_hand"] = halve
    try:
        assert lamina.activations.get("halve_by_hand") is halve
    finally:
        del utils.get_custom_objects()["halve_by_hand"]


def test_is_keras_tensor_and_standardize_dtype_match_keras():
    for ours, theirs in ((Input((2,)), keras.Input((2,))), (np.ones(2), np.ones(2)), (3, 3)):
        assert utils.is_keras_tensor(ours) == keras.utils.is_keras_tensor(theirs)
    for dtype in ("float32", "float64", "int32", "bool", np.float16, np.dtype("int8"), None):
        assert utils.standardize_dtype(dtype) == keras.utils.standardize_dtype(dtype), dtype


def test_progbar_writes_keras_final_line(capsys):
    import re

    lines = []
    for bar_class in (keras.utils.Progbar, utils.Progbar):
        bar = bar_class(3, verbose=2)
        for step in range(1, 4):
            bar.update(step, values=[("loss", 0.5 * step)])
        # Timings differ run to run: compare the rest.
        lines.append(re.sub(r"\d+(us|ms|s)(/step)?", "T", capsys.readouterr().out))
    assert lines[0] == lines[1] == "3/3 - T - T - loss: 1.5000\n"


def test_sequence_subclass_trains_as_keras_sequence():
    class Batches(utils.Sequence):
        def __len__(self):
            return 2

        def __getitem__(self, index):
            return np.ones((4, 2), "float32"), np.ones((4, 1), "float32")

    history = _model().fit(Batches(), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


def test_save_model_from_models(tmp_path):
    model = _model()
    path = tmp_path / "m.keras"
    lamina.models.save_model(model, path)
    again = lamina.models.load_model(path)
    x = np.ones((3, 2), "float32")
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0))


# keras.tree ----------------------------------------------------------------------------------
Point = collections.namedtuple("Point", ["x", "y"])
Pair = collections.namedtuple("Pair", ["first", "second"])
STRUCTURES = [
    42,
    None,
    [{"foo": 42}],
    {"b": [1, (2, None)], "a": {"z": 3, "y": [4]}},
    (Point(1, 2), [], ()),
]


@pytest.mark.parametrize("structure", STRUCTURES, ids=range(len(STRUCTURES)))
def test_flatten_with_path_matches_keras(structure):
    assert tree.flatten_with_path(structure) == keras.tree.flatten_with_path(structure)


@pytest.mark.parametrize("structure", STRUCTURES, ids=range(len(STRUCTURES)))
def test_lists_to_tuples_matches_keras(structure):
    # (Equal; lamina's tree rebuilds dicts in sorted-key order, Keras's in insertion order.)
    assert tree.lists_to_tuples(structure) == keras.tree.lists_to_tuples(structure)


@pytest.mark.parametrize(
    "structure",
    [
        (None, 3),
        {"image": (None, 28, 28), "ids": [(None,), (None, 4)]},
        [(1, 2), "text", None, ()],
        Point(None, 5),
        {"a": [[None, 2], [3]]},
    ],
    ids=range(5),
)
def test_map_shape_structure_matches_keras(structure):
    def describe(shape):
        return ("shape", tuple(shape)) if isinstance(shape, (list, tuple)) else ("leaf", shape)

    assert tree.map_shape_structure(describe, structure) == keras.tree.map_shape_structure(
        describe, structure
    )


@pytest.mark.parametrize(
    "a, b, same",
    [
        ([0, 1], (2, 3), True),
        (Point(0, 1), Pair(2, 3), True),
        ({"a": 1, "b": [2]}, {"b": (5,), "a": 0}, True),
        ({"a": 1}, {"b": 1}, False),
        ([0, [1, 2]], [0, [1]], False),
        ([0, 1], 5, False),
    ],
)
def test_assert_same_paths_matches_keras(a, b, same):
    if same:
        keras.tree.assert_same_paths(a, b)
        tree.assert_same_paths(a, b)
        return
    with pytest.raises(ValueError):
        keras.tree.assert_same_paths(a, b)
    with pytest.raises(ValueError, match="don't have the same paths"):
        tree.assert_same_paths(a, b)
