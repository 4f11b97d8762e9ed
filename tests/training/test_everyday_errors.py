"""The mistakes people make every day get one clear message, before any step runs.

Each error names what was received, what was expected and how to fix it, for `fit`,
`evaluate`, `predict` and the `*_on_batch` methods alike; none of them lets a step
change the weights first.
"""

import re

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, layers, ops, utils

RNG = np.random.default_rng(0)
X = RNG.random((10, 4)).astype("float32")
Y = RNG.integers(0, 3, 10)


def _model(kind="functional", loss="sparse_categorical_crossentropy"):
    if kind == "functional":
        inputs = Input((4,), name="features")
        model = Model(inputs, layers.Dense(3, activation="softmax", name="head")(inputs))
    else:
        model = Sequential(
            [Input((4,), name="features"), layers.Dense(3, activation="softmax", name="head")]
        )
    model.compile("sgd", loss)
    return model


_SHARED = []


def _trained():
    """One model for the tests that run steps on good batches (10 samples): its
    programs are traced once for the whole module."""
    if not _SHARED:
        _SHARED.append(_model())
    return _SHARED[0]


def _weights(model):
    return [ops.convert_to_numpy(w).copy() for w in model.weights]


def _call(model, entry, x, y):
    if entry == "fit":
        return model.fit(x, y, verbose=0)
    if entry == "evaluate":
        return model.evaluate(x, y, verbose=0)
    if entry == "predict":
        return model.predict(x, verbose=0)
    if entry == "train_on_batch":
        return model.train_on_batch(x, y)
    if entry == "test_on_batch":
        return model.test_on_batch(x, y)
    return model.predict_on_batch(x)


ENTRIES = ["fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch"]
WITH_TARGETS = ["fit", "evaluate", "train_on_batch", "test_on_batch"]


@pytest.fixture
def input_checks():
    lamina.config.enable_input_checks()
    yield
    lamina.config.disable_input_checks()


# Wrong input shape or rank ---------------------------------------------------------------
@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("bad", [(10, 5), (10, 4, 2)], ids=["shape", "rank"])
def test_wrong_input_shape_names_the_input_and_both_shapes(entry, bad):
    model = _model()
    before = _weights(model)
    with pytest.raises(ValueError) as info:
        _call(model, entry, np.ones(bad, "float32"), Y)
    message = str(info.value)
    assert "'features'" in message
    assert "(None, 4)" in message and str(bad) in message
    for old, new in zip(before, _weights(model), strict=True):
        np.testing.assert_array_equal(old, new)


def test_wrong_input_shape_of_a_sequential_model():
    with pytest.raises(ValueError, match=r"features.*\(None, 4\).*\(10, 6\)"):
        _model("sequential").fit(np.ones((10, 6)), Y, verbose=0)


# Labels out of range for a sparse categorical loss ---------------------------------------
@pytest.mark.parametrize("entry", WITH_TARGETS)
@pytest.mark.parametrize(
    "loss",
    ["sparse_categorical_crossentropy", lamina.losses.SparseCategoricalCrossentropy()],
    ids=["name", "object"],
)
def test_labels_out_of_range_name_the_loss_the_largest_label_and_the_classes(entry, loss):
    model = _model(loss=loss)
    before = _weights(model)
    labels = np.arange(10)  # 10 classes' labels for a 3-unit output
    with pytest.raises(ValueError) as info:
        _call(model, entry, X, labels)
    message = str(info.value)
    assert "sparse_categorical_crossentropy" in message
    assert re.search(r"\b9\b", message)  # the largest label
    assert "3 classes" in message
    for old, new in zip(before, _weights(model), strict=True):
        np.testing.assert_array_equal(old, new)


def test_labels_out_of_range_in_a_generator_batch():
    model = _trained()

    def batches():
        yield X, Y
        yield X, np.full(10, 7)

    with pytest.raises(ValueError, match=r"sparse_categorical_crossentropy.*7"):
        model.fit(batches(), verbose=0)


# NaN / infinity: an opt-in check ----------------------------------------------------------
def test_input_checks_are_off_by_default_as_in_keras():
    assert lamina.config.is_input_checks_enabled() is False
    x = X.copy()
    x[2, 1] = np.nan
    _trained().fit(x, Y, verbose=0)  # Keras trains on (and propagates) the NaN


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("value", [np.nan, np.inf], ids=["nan", "inf"])
def test_non_finite_inputs_are_refused_when_checks_are_on(input_checks, entry, value):
    model = _model()
    before = _weights(model)
    x = X.copy()
    x[2, 1] = value
    with pytest.raises(ValueError) as info:
        _call(model, entry, x, Y)
    message = str(info.value)
    assert message.startswith("x holds 1 non-finite value")
    assert "(2, 1)" in message and "enable_input_checks" in message
    for old, new in zip(before, _weights(model), strict=True):
        np.testing.assert_array_equal(old, new)


def test_non_finite_targets_and_named_inputs_are_refused(input_checks):
    inputs = {"a": Input((2,), name="a"), "b": Input((2,), name="b")}
    out = layers.Dense(1)(layers.Concatenate()([inputs["a"], inputs["b"]]))
    model = Model(inputs, out)
    model.compile("sgd", "mse")
    x = {"a": X[:, :2], "b": X[:, 2:].copy()}
    y = np.ones((10, 1), "float32")
    x["b"][4, 0] = -np.inf
    with pytest.raises(ValueError, match=r"^x\['b'\] holds 1 non-finite .*\(4, 0\)"):
        model.fit(x, y, verbose=0)
    x["b"][4, 0] = 0
    y[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"^y holds 1 non-finite"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match=r"^sample_weight holds"):
        model.fit(x, np.ones((10, 1)), sample_weight=np.full(10, np.nan), verbose=0)


def test_non_finite_values_in_a_generator_name_the_batch(input_checks):
    model = _trained()

    def batches():
        yield X, Y
        bad = X.copy()
        bad[0, 3] = np.nan
        yield bad, Y

    with pytest.raises(ValueError, match=r"^x \(in batch 1\) holds 1 non-finite.*\(0, 3\)"):
        model.fit(batches(), verbose=0)


def test_input_checks_switch_and_environment(input_checks):
    assert lamina.config.is_input_checks_enabled() is True
    lamina.config.disable_input_checks()
    assert lamina.config.is_input_checks_enabled() is False
    x = X.copy()
    x[0, 0] = np.inf
    _model().predict(x, verbose=0)  # no check once disabled


# batch_size larger than the data: one smaller batch, as in Keras -------------------------
class _CountBatches(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.train = self.test = self.predict = 0

    def on_train_batch_end(self, batch, logs=None):
        self.train += 1

    def on_test_batch_end(self, batch, logs=None):
        self.test += 1

    def on_predict_batch_end(self, batch, logs=None):
        self.predict += 1


def test_batch_size_larger_than_the_data_runs_one_batch_without_warning():
    model = _trained()
    counter = _CountBatches()
    reference = model.predict(X, batch_size=10, verbose=0)
    # filterwarnings=error: any warning would fail here.
    model.evaluate(X, Y, batch_size=100, verbose=0, callbacks=[counter])
    predicted = model.predict(X, batch_size=100, verbose=0, callbacks=[counter])
    np.testing.assert_allclose(predicted, reference, rtol=1e-6)
    history = model.fit(X, Y, batch_size=1000, epochs=2, verbose=0, callbacks=[counter])
    assert (counter.train, counter.test, counter.predict) == (2, 1, 1)
    assert len(history.history["loss"]) == 2


# Strings reaching a numeric layer -----------------------------------------------------------
@pytest.mark.parametrize("entry", ENTRIES)
def test_text_reaching_a_numeric_layer_names_the_layer_and_the_fix(entry):
    model = _model()
    text = np.array([["a", "b", "c", "d"]] * 10)
    with pytest.raises(TypeError) as info:
        _call(model, entry, text, Y)
    message = str(info.value)
    assert "'head'" in message and "Dense" in message
    assert "StringLookup" in message and "TextVectorization" in message


def test_text_into_one_of_several_inputs_names_the_layer_it_reaches():
    numbers, words = Input((2,), name="numbers"), Input((2,), name="words")
    merged = layers.Concatenate(name="merge")([layers.Dense(2, name="scale")(numbers), words])
    model = Model([numbers, words], layers.Dense(1)(merged))
    model.compile("sgd", "mse")
    text = np.array([["a", "b"]] * 4)
    with pytest.raises(TypeError, match=r"^x\[1\] has dtype <U1 .*'merge' \(Concatenate\)"):
        model.fit([np.ones((4, 2)), text], np.ones((4, 1)), verbose=0)


def test_text_called_directly_names_the_layer_or_model():
    # was: the engine's "Error interpreting argument ... as an abstract array"
    text = np.array([["a", "b", "c", "d"]] * 3)
    model = _model()
    model(X[:3])  # built, so the next call takes the compiled path
    with pytest.raises(TypeError, match=r"^x has dtype <U1 \(text\).*'head' \(Dense\)"):
        model(text)
    layer = layers.Dense(2, name="plain")
    with pytest.raises(TypeError, match=r"^Dense 'plain' received text .*StringLookup"):
        layer(text)
    layer(X[:3])  # built: its short path must not take text either
    with pytest.raises(TypeError, match=r"^Dense 'plain' received text"):
        layer(text)
    words = np.array([["a"], ["bc"]], dtype=object)
    with pytest.raises(TypeError, match=r"dtype object"):
        layer(words)


def test_text_into_a_subclassed_models_fit_names_the_model():
    class Sub(Model):
        def __init__(self):
            super().__init__(name="sub")
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    model = Sub()
    model.compile("sgd", "mse")
    with pytest.raises(TypeError, match=r"Sub 'sub' received text .*TextVectorization"):
        model.fit(np.array([["a"], ["b"]]), np.zeros((2, 1)), verbose=0)


# x and y of different lengths -----------------------------------------------------------------
@pytest.mark.parametrize("entry", WITH_TARGETS)
def test_mismatched_x_and_y_lengths_name_both(entry):
    with pytest.raises(ValueError) as info:
        _call(_model(), entry, X, Y[:7])
    message = str(info.value)
    assert "x has 10" in message and "y has 7" in message


def test_mismatched_lengths_with_validation_split_and_sample_weight():
    model = _model()
    with pytest.raises(ValueError, match=r"x has 10, y has 8"):
        model.fit(X, Y[:8], validation_split=0.2, verbose=0)
    with pytest.raises(ValueError, match=r"sample_weight has 4"):
        model.fit(X, Y, sample_weight=np.ones(4), verbose=0)


def test_mismatched_lengths_in_a_generator_batch_name_the_batch():
    def batches():
        yield X, Y
        yield X, Y[:4]

    with pytest.raises(ValueError, match=r"samples \(in batch 1\); x has 10, y has 4"):
        _trained().fit(batches(), verbose=0)


# Generators and PyDatasets whose batches change structure ------------------------------------
def test_generator_with_inconsistent_batches_names_the_batch_and_both_structures():
    model = _trained()

    def batches():
        yield X, Y
        yield X, Y
        yield X, Y, np.ones(10)

    before = _weights(model)
    with pytest.raises(ValueError) as info:
        model.fit(batches(), verbose=0, epochs=1)
    message = str(info.value)
    assert "batch 2" in message and "batch 0" in message
    assert "sample_weight=array(shape=(10,)" in message  # batch 2's structure
    assert "(x=array(shape=(10, 4), dtype=float32), y=array(shape=(10,)" in message
    assert _weights(model)[0].shape == before[0].shape


class _Shifting(utils.PyDataset):
    def __init__(self):
        super().__init__()

    def __len__(self):
        return 3

    def __getitem__(self, index):
        if index == 1:
            return {"features": X}, Y
        return X, Y


@pytest.mark.parametrize("entry", ["fit", "evaluate", "predict"])
def test_pydataset_with_inconsistent_batches(entry):
    model = _trained()
    with pytest.raises(ValueError) as info:
        _call(model, entry, _Shifting(), None)
    message = str(info.value)
    assert message.startswith("The PyDataset gave batch 1 as (x={'features': array(")
    assert "but batch 0 as (x=array(shape=(10, 4)" in message


def test_a_smaller_last_batch_is_not_an_inconsistency():
    model = _trained()

    def batches():
        yield X, Y
        yield X[:3], Y[:3]

    model.fit(batches(), verbose=0)
