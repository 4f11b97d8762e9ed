"""`lamina.distillation` against Keras 3's `keras.distillation`: the losses against NumPy
formulas, a Distiller's first training step against Keras's (same weights), logs,
errors and serialization."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, layers, losses
from lamina.distillation import (
    DistillationLoss,
    Distiller,
    FeatureDistillation,
    LogitsDistillation,
)

EPS = 1e-7
RNG = np.random.default_rng(0)
TEACHER_LOGITS = RNG.normal(size=(4, 5)).astype("float32") * 2
STUDENT_LOGITS = RNG.normal(size=(4, 5)).astype("float32")
X = RNG.random((6, 4)).astype("float32")
Y = np.array([0, 1, 2, 0, 1, 2])

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


# NumPy references ----------------------------------------------------------------------
def _float(tensor):
    return float(lamina.ops.convert_to_numpy(tensor))


def np_softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_kl(p, q):
    p, q = np.clip(p, EPS, 1), np.clip(q, EPS, 1)
    return np.sum(p * np.log(p / q), axis=-1)


def np_cosine_similarity(a, b):
    a = a / np.sqrt(np.maximum(np.sum(a**2, -1, keepdims=True), 1e-12))
    b = b / np.sqrt(np.maximum(np.sum(b**2, -1, keepdims=True), 1e-12))
    return -np.sum(a * b, axis=-1)


# Eager op-by-op numerics: on JAX each new op compiles on first use (seconds in all),
# on torch it runs at once; the code under test is engine-neutral, and the training
# step runs on both engines in `test_first_training_step_matches_keras`.
EAGER = pytest.mark.engine("torch")


# Losses --------------------------------------------------------------------------------
@EAGER
def test_logits_distillation_default_is_kl_function_on_scaled_logits():
    # As Keras: the name "kl_divergence" resolves to the function, which gets the
    # temperature-scaled logits themselves (no softmax, no temperature**2).
    loss = LogitsDistillation(temperature=2.0)
    assert loss.loss is losses.kl_divergence
    expected = np.mean(np_kl(TEACHER_LOGITS / 2.0, STUDENT_LOGITS / 2.0))
    got = loss.compute_loss(TEACHER_LOGITS, STUDENT_LOGITS)
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)


@EAGER
def test_logits_distillation_kl_instance_softmax_and_temperature_squared():
    loss = LogitsDistillation(temperature=3.0, loss=losses.KLDivergence())
    p, q = np_softmax(TEACHER_LOGITS / 3.0), np_softmax(STUDENT_LOGITS / 3.0)
    expected = np.mean(np_kl(p, q)) * 9.0
    np.testing.assert_allclose(
        float(loss.compute_loss(TEACHER_LOGITS, STUDENT_LOGITS)), expected, rtol=1e-5
    )


@EAGER
def test_logits_distillation_multi_output_with_skipped_output():
    loss = LogitsDistillation(temperature=2.0, loss=["categorical_crossentropy", None])
    teacher = [np_softmax(TEACHER_LOGITS), TEACHER_LOGITS]
    student = [np_softmax(STUDENT_LOGITS), STUDENT_LOGITS]
    # categorical_crossentropy (probabilities) on the scaled inputs: y_pred / sum(y_pred).
    t, s = teacher[0] / 2.0, student[0] / 2.0
    s = np.clip(s / s.sum(-1, keepdims=True), EPS, 1 - EPS)
    expected = np.mean(-np.sum(t * np.log(s), -1))
    np.testing.assert_allclose(float(loss.compute_loss(teacher, student)), expected, rtol=1e-5)


@EAGER
def test_feature_distillation_mse_cosine_and_none():
    a, b = TEACHER_LOGITS, STUDENT_LOGITS
    mse = FeatureDistillation()
    np.testing.assert_allclose(float(mse.compute_loss(a, b)), np.mean((a - b) ** 2), rtol=1e-5)
    cos = FeatureDistillation(loss="cosine_similarity")
    np.testing.assert_allclose(
        float(cos.compute_loss(a, b)), np.mean(np_cosine_similarity(a, b)), rtol=1e-5
    )
    both = FeatureDistillation(loss={"h": "mae", "o": None})
    got = both.compute_loss({"h": a, "o": a}, {"h": b, "o": a * 0})
    np.testing.assert_allclose(float(got), np.mean(np.abs(a - b)), rtol=1e-5)


def test_loss_errors():
    with pytest.raises(ValueError, match="at least one non-`None`"):
        FeatureDistillation(loss=[None, None])
    with pytest.raises(ValueError, match="at least one non-`None`"):
        LogitsDistillation(loss=None)
    with pytest.raises(ValueError, match="temperature must be positive"):
        LogitsDistillation(temperature=0.0)
    with pytest.raises(ValueError, match="temperature must be a number"):
        LogitsDistillation(temperature="3")
    with pytest.raises(ValueError, match="Unknown loss function: 'not_a_loss'"):
        FeatureDistillation(loss="not_a_loss")
    with pytest.raises(ValueError, match="Loss structure mismatch"):
        FeatureDistillation(loss=["mse", "mse"]).validate_outputs(
            [TEACHER_LOGITS], [STUDENT_LOGITS]
        )
    with pytest.raises(ValueError, match="same nested structure"):
        DistillationLoss().validate_outputs([TEACHER_LOGITS], TEACHER_LOGITS)
    with pytest.raises(NotImplementedError, match="compute_loss"):
        DistillationLoss().compute_loss(TEACHER_LOGITS, STUDENT_LOGITS)


def test_loss_configs_round_trip_and_match_keras_names():
    logits = LogitsDistillation(temperature=4.0, loss=[losses.KLDivergence(), None])
    config = json.loads(json.dumps(lamina.common.serialization.serialize_keras_object(logits)))
    assert config["module"] == "keras.distillation"
    assert config["class_name"] == "LogitsDistillation"
    assert config["config"]["temperature"] == 4.0
    back = LogitsDistillation.from_config(config["config"])
    assert isinstance(back.loss[0], losses.KLDivergence) and back.loss[1] is None
    feature = FeatureDistillation("mae", "t", "s")
    back = FeatureDistillation.from_config(json.loads(json.dumps(feature.get_config())))
    assert (back.loss, back.teacher_layer_name, back.student_layer_name) == (
        losses.mean_absolute_error,
        "t",
        "s",
    )


# Models --------------------------------------------------------------------------------
def _mlp(hidden, prefix, seed):
    inputs = Input((4,), name=f"{prefix}_in")
    h = layers.Dense(
        hidden, activation="relu", name=f"{prefix}_hidden", kernel_initializer="zeros"
    )(inputs)
    outputs = layers.Dense(3, name=f"{prefix}_out", kernel_initializer="zeros")(h)
    model = Model(inputs, outputs, name=prefix)
    model.set_weights(_weights(seed, hidden))
    return model


def _weights(seed, hidden=5):
    """The same weights for a lamina and a Keras model (set, not drawn: cheaper)."""
    rng = np.random.default_rng(seed)
    shapes = [(4, hidden), (hidden,), (hidden, 3), (3,)]
    return [rng.normal(size=shape).astype("float32") * 0.5 for shape in shapes]


def _distiller(student_loss_weight=0.4, losses_=None, weights=None):
    teacher, student = _mlp(5, "teacher", 1), _mlp(5, "student", 2)
    if losses_ is None:
        losses_ = [
            LogitsDistillation(temperature=2.0),
            LogitsDistillation(temperature=3.0, loss=losses.KLDivergence()),
            FeatureDistillation("mse", "teacher_hidden", "student_hidden"),
        ]
        weights = [0.5, 0.3, 0.2]
    return Distiller(teacher, student, losses_, weights, student_loss_weight=student_loss_weight)


@EAGER
def test_compute_loss_mixes_the_parts_and_updates_trackers():
    distiller = _distiller()
    distiller.compile(optimizer="sgd", loss=losses.SparseCategoricalCrossentropy(from_logits=True))
    tw, sw = _weights(1), _weights(2)
    t_h, s_h = np.maximum(X @ tw[0] + tw[1], 0), np.maximum(X @ sw[0] + sw[1], 0)
    t_out, s_out = t_h @ tw[2] + tw[3], s_h @ sw[2] + sw[3]
    student = np.mean(-np.log(np_softmax(s_out)[np.arange(6), Y]))
    distill = (
        0.5 * np.mean(np_kl(t_out / 2, s_out / 2))
        + 0.3 * 9 * np.mean(np_kl(np_softmax(t_out / 3), np_softmax(s_out / 3)))
        + 0.2 * np.mean((t_h - s_h) ** 2)
    )
    y_pred = distiller(X)
    total = distiller.compute_loss(X, Y, y_pred)
    np.testing.assert_allclose(_float(total), 0.4 * student + 0.6 * distill, rtol=1e-5)
    for tracker, want in (
        (distiller.student_loss_tracker, student),
        (distiller.distillation_loss_tracker, distill),
        (distiller.total_loss_tracker, 0.4 * student + 0.6 * distill),
    ):
        np.testing.assert_allclose(float(tracker.result()), want, rtol=1e-5)
    # Weight 1.0 computes no distillation loss (the teacher does not run); 0.0 no
    # student loss. Keras reads the attribute at each step, so setting it is enough.
    distiller.reset_metrics()
    distiller.student_loss_weight = 1.0
    np.testing.assert_allclose(_float(distiller.compute_loss(X, Y, y_pred)), student, rtol=1e-5)
    assert float(distiller.distillation_loss_tracker.result()) == 0.0
    distiller.student_loss_weight = 0.0
    np.testing.assert_allclose(_float(distiller.compute_loss(X, Y, y_pred)), distill, rtol=1e-5)
    np.testing.assert_allclose(
        float(distiller.student_loss_tracker.result()), student / 2, rtol=1e-5
    )


@EAGER
def test_call_and_predict_are_the_student():
    distiller = _distiller()
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(distiller(X)),
        lamina.ops.convert_to_numpy(distiller.student(X)),
        rtol=1e-6,
    )
    assert not distiller.teacher.trainable and distiller.student.trainable
    paths = {v.path for v in distiller.trainable_variables}
    assert paths == {v.path for v in distiller.student.trainable_variables}


@pytest.fixture(scope="module")
def keras_first_step():
    """Keras's logs, weights and evaluation after one SGD step of the same Distiller."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    from keras import distillation as kd

    def mlp(prefix, seed):
        inputs = keras.Input((4,), name=f"{prefix}_in")
        dense = dict(kernel_initializer="zeros")  # set below: drawing costs a compile
        h = keras.layers.Dense(5, activation="relu", name=f"{prefix}_hidden", **dense)(inputs)
        outputs = keras.layers.Dense(3, name=f"{prefix}_out", **dense)(h)
        model = keras.Model(inputs, outputs, name=prefix)
        model.set_weights(_weights(seed))
        return model

    distiller = kd.Distiller(
        mlp("teacher", 1),
        mlp("student", 2),
        [
            kd.LogitsDistillation(temperature=2.0),
            kd.LogitsDistillation(temperature=3.0, loss=keras.losses.KLDivergence()),
            kd.FeatureDistillation("mse", "teacher_hidden", "student_hidden"),
        ],
        [0.5, 0.3, 0.2],
        student_loss_weight=0.4,
    )
    distiller.compile(
        optimizer=keras.optimizers.SGD(0.1),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = distiller.fit(X, Y, batch_size=6, epochs=1, shuffle=False, verbose=0).history
    weights = [np.asarray(w) for w in distiller.student.get_weights()]
    return history, weights, distiller.metrics_names


def test_first_training_step_matches_keras(keras_first_step):
    k_history, k_weights, k_names = keras_first_step
    distiller = _distiller()
    distiller.compile(
        optimizer=lamina.optimizers.SGD(0.1),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    assert distiller.metrics_names == k_names
    history = distiller.fit(X, Y, batch_size=6, epochs=1, shuffle=False, verbose=0).history
    assert sorted(history) == sorted(k_history)
    for key, value in k_history.items():
        np.testing.assert_allclose(history[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
    for got, want in zip(distiller.student.get_weights(), k_weights, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# Errors --------------------------------------------------------------------------------
@EAGER
def test_distiller_errors():
    teacher, student = _mlp(5, "teacher", 1), _mlp(5, "student", 2)
    logits = LogitsDistillation()
    with pytest.raises(ValueError, match="Teacher must be a lamina.Model"):
        Distiller("not_a_model", student, logits)
    with pytest.raises(ValueError, match="Student must be a lamina.Model"):
        Distiller(teacher, "not_a_model", logits)
    with pytest.raises(ValueError, match="between 0.0 and 1.0, got 1.5"):
        Distiller(teacher, student, logits, student_loss_weight=1.5)
    with pytest.raises(ValueError, match="student_loss_weight must be a number"):
        Distiller(teacher, student, logits, student_loss_weight="0.5")
    with pytest.raises(ValueError, match="'distillation_losses' cannot be `None`"):
        Distiller(teacher, student, None)
    with pytest.raises(ValueError, match=r"distillation_loss_weights \(1\) must match"):
        Distiller(teacher, student, [logits, logits], [1.0])
    with pytest.raises(ValueError, match="In teacher model: No layer named 'nope'"):
        Distiller(teacher, student, FeatureDistillation(teacher_layer_name="nope"))
    with pytest.raises(ValueError, match="output shapes are incompatible"):
        inputs = Input((4,))
        Distiller(teacher, Model(inputs, layers.Dense(7)(inputs)), logits)
    with pytest.raises(ValueError, match="input dtypes must match"):
        inputs = Input((4,), dtype="float16")
        Distiller(teacher, Model(inputs, layers.Dense(3, dtype="float32")(inputs)), logits)

    class Subclassed(Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(ValueError, match="student model.s. appear to be subclassed"):
        Distiller(teacher, Subclassed(), FeatureDistillation(teacher_layer_name="teacher_out"))
    distiller = Distiller(teacher, student, logits)
    with pytest.raises(ValueError, match="'loss' cannot be `None`"):
        distiller.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="metrics must be a list or tuple"):
        distiller.compile(loss="mse", metrics="accuracy")

    class PerSample(DistillationLoss):
        def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
            return lamina.ops.sum(teacher_outputs - student_outputs, axis=-1)

    distiller = Distiller(teacher, student, PerSample())
    distiller.compile(loss="mse")
    with pytest.raises(ValueError, match=r"PerSample returned a non-scalar loss with shape \(6,\)"):
        distiller.compute_loss(X, np.zeros((6, 3)), distiller(X))


# Serialization -------------------------------------------------------------------------
@EAGER
def test_distiller_config_and_keras_file_round_trip(tmp_path):
    teacher = Sequential(
        [Input((4,)), layers.Dense(6, activation="relu", name="t1"), layers.Dense(3, name="t2")]
    )
    student = Sequential(
        [Input((4,)), layers.Dense(5, activation="relu", name="s1"), layers.Dense(3, name="s2")]
    )
    distiller = Distiller(
        teacher,
        student,
        [LogitsDistillation(3.0), FeatureDistillation("mse", "t2", "s2")],
        [0.6, 0.4],
        student_loss_weight=0.7,
    )
    config = json.loads(json.dumps(distiller.get_config()))
    assert {"teacher", "student", "distillation_losses", "distillation_loss_weights"} <= set(config)
    rebuilt = Distiller.from_config(config)
    assert rebuilt.student_loss_weight == 0.7 and rebuilt.distillation_loss_weights == [0.6, 0.4]
    assert rebuilt.distillation_losses[0].temperature == 3.0
    assert rebuilt.distillation_losses[1].student_layer_name == "s2"
    assert not rebuilt.teacher.trainable
    assert rebuilt(X).shape == (6, 3)

    distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    distiller.fit(X, Y, epochs=1, verbose=0)
    path = tmp_path / "distiller.keras"
    distiller.save(path)
    loaded = lamina.models.load_model(path)
    assert isinstance(loaded, Distiller) and loaded.compiled
    np.testing.assert_allclose(
        loaded.predict(X, verbose=0), distiller.predict(X, verbose=0), rtol=1e-6
    )
    np.testing.assert_allclose(
        loaded.evaluate(X, Y, verbose=0), distiller.evaluate(X, Y, verbose=0), rtol=1e-6
    )


@pytest.mark.engine("jax")
def test_distiller_config_moves_between_keras_and_lamina():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    from lamina.common import serialization

    distiller = _distiller()
    config = json.loads(json.dumps(serialization.serialize_keras_object(distiller, "layers")))
    assert (config["module"], config["class_name"]) == ("keras.distillation", "Distiller")
    in_keras = keras.saving.deserialize_keras_object(config)
    assert type(in_keras).__name__ == "Distiller"
    assert in_keras.distillation_loss_weights == [0.5, 0.3, 0.2]
    assert isinstance(in_keras.distillation_losses[1].loss, keras.losses.KLDivergence)
    back = serialization.deserialize_keras_object(
        json.loads(json.dumps(keras.saving.serialize_keras_object(in_keras))), "layers"
    )
    assert isinstance(back, Distiller) and back.student_loss_weight == 0.4
    assert back.distillation_losses[2].teacher_layer_name == "teacher_hidden"
