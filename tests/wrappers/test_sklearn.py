"""scikit-learn wrappers: scikit-learn's own estimator checks, then the ecosystem around them.

References are independent of the code under test: scikit-learn's estimator checks and
its `clone`/`Pipeline`/`GridSearchCV`/`cross_val_score`, NumPy formulas (one-hot, softmax),
and Keras 3's own wrappers for the public signatures.
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import estimator_checks  # noqa: E402

import lamina  # noqa: E402
from lamina import backend, layers, losses, ops, optimizers  # noqa: E402
from lamina.wrappers import SKLearnClassifier, SKLearnRegressor, SKLearnTransformer  # noqa: E402


def dense_model(X, y, loss="mse", activation=None, learning_rate=0.001):
    """One Dense layer sized from the data, seeded so that two fits are identical.

    Steps run eagerly: the engine's per-operation programs are cached by shape across
    models, so the many tiny models below cost less than one compiled step each.
    """
    lamina.utils.set_random_seed(0)
    inputs = lamina.Input((X.shape[1],))
    model = lamina.Model(inputs, layers.Dense(y.shape[1], activation=activation)(inputs))
    optimizer = optimizers.Adam(learning_rate=learning_rate)
    model.compile(optimizer=optimizer, loss=loss, jit_compile=False)
    return model


FIT = {"epochs": 1, "verbose": 0, "batch_size": 512}
CLASSIFY = {"loss": "categorical_crossentropy", "activation": "softmax"}
# For the tests that look at the fitted model's accuracy: a few full-batch steps suffice.
LEARN = {**CLASSIFY, "learning_rate": 0.1}

ESTIMATORS = [
    SKLearnClassifier(model=dense_model, model_kwargs=CLASSIFY, fit_kwargs=FIT),
    SKLearnRegressor(model=dense_model, fit_kwargs=FIT),
    SKLearnTransformer(model=dense_model, fit_kwargs=FIT),
]

# As in Keras's own test: each check the wrappers are known not to pass, with the reason.
_RAW_DECISION = (
    "decision_function returns the model's raw outputs, one column per class, as "
    "Keras's does; scikit-learn wants a (n_samples,) margin for binary targets. "
    "test_classifier_checks_without_decision_function runs check_classifiers_train on the rest."
)
EXPECTED_FAILED_CHECKS = {
    "SKLearnClassifier": {
        "check_classifiers_train": _RAW_DECISION,
        "check_classifiers_classes": _RAW_DECISION,
        "check_decision_proba_consistency": _RAW_DECISION,
    },
    "SKLearnRegressor": {},
    "SKLearnTransformer": {},
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS[type(estimator).__name__]


_SAMPLED = backend.backend() == "jax" and not os.environ.get("LAMINA_FULL_SKLEARN_CHECKS")


def _check_id(value):
    if isinstance(value, (SKLearnClassifier, SKLearnRegressor, SKLearnTransformer)):
        return type(value).__name__
    func = getattr(value, "func", value)
    keywords = getattr(value, "keywords", {})
    extra = ",".join(f"{k}={v}" for k, v in sorted(keywords.items()))
    return f"{func.__name__}({extra})" if extra else func.__name__


def _estimator_checks():
    """scikit-learn's checks of the three wrappers, as `parametrize_with_checks` lists them.

    On JAX every new shape compiles each eager op (~25 ms), so the full list takes ~50 s
    there against ~8 s on torch: JAX runs a fixed seeded eighth of the checks (all of them
    with LAMINA_FULL_SKLEARN_CHECKS=1), torch runs every one.
    """
    params = []
    for estimator in ESTIMATORS:
        for item in estimator_checks.estimator_checks_generator(
            estimator,
            expected_failed_checks=_expected_failed_checks(estimator),
            # Known failures are strict xfails; a sampled run does not spend time on them.
            mark="skip" if _SAMPLED else "xfail",
            xfail_strict=True,
        ):
            params.append(item if hasattr(item, "values") else pytest.param(*item))
    if _SAMPLED:
        keep = set(random.Random(17).sample(range(len(params)), k=len(params) // 8))
        params = [param for i, param in enumerate(params) if i in keep]
    return params


@pytest.mark.parametrize("estimator, check", _estimator_checks(), ids=_check_id)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


class _NoDecisionClassifier(SKLearnClassifier):
    """The classifier without `decision_function`, to run the checks that read it."""

    @property
    def decision_function(self):
        raise AttributeError("decision_function is hidden for this check")


@pytest.mark.skipif(_SAMPLED, reason="a scikit-learn check, sampled out on JAX (see above)")
def test_classifier_checks_without_decision_function():
    classifier = _NoDecisionClassifier(dense_model, False, CLASSIFY, FIT)
    estimator_checks.check_classifiers_train("SKLearnClassifier", classifier)


# The ecosystem --------------------------------------------------------------------------
def _blobs(n_classes=3, n=60, seed=0):
    X, y = make_classification(
        n_samples=n,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        class_sep=2.0,
        random_state=seed,
    )
    return X.astype("float32"), y


def _classifier(**fit):
    return SKLearnClassifier(
        model=dense_model, model_kwargs=LEARN, fit_kwargs={**FIT, "epochs": 2, **fit}
    )


def test_pipeline_with_scaler_and_string_labels():
    X, y = _blobs()
    labels = np.array(["ant", "bee", "cat"])[y]
    pipe = make_pipeline(StandardScaler(), _classifier(epochs=10))
    pipe.fit(X, labels)
    np.testing.assert_array_equal(pipe[-1].classes_, ["ant", "bee", "cat"])
    predicted = pipe.predict(X)
    assert predicted.dtype == labels.dtype and set(predicted) <= {"ant", "bee", "cat"}
    assert pipe.score(X, labels) > 0.6
    assert pipe[-1].n_features_in_ == 4


def test_grid_search_over_fit_and_model_kwargs():
    X, y = make_regression(n_samples=60, n_features=4, noise=0.1, random_state=0)
    search = GridSearchCV(
        SKLearnRegressor(model=dense_model, fit_kwargs=FIT),
        {"fit_kwargs": [{**FIT, "epochs": 1}, {**FIT, "epochs": 3}]},
        cv=2,
    )
    search.fit(X, y)
    assert search.best_estimator_.model_.layers[-1].units == 1
    assert len(search.cv_results_["mean_test_score"]) == 2
    assert search.predict(X).shape == (60,)


def test_cross_val_score_fits_a_clone_per_fold():
    X, y = _blobs(n_classes=2)
    estimator = _classifier()
    scores = cross_val_score(estimator, X, y, cv=KFold(3))
    assert scores.shape == (3,) and np.all((0 <= scores) & (scores <= 1))
    assert not hasattr(estimator, "model_")  # the folds fit clones


def _compiled_model(units=3):
    inputs = lamina.Input((4,))
    model = lamina.Model(inputs, layers.Dense(units, activation="softmax")(inputs))
    model.compile(
        optimizer=optimizers.SGD(learning_rate=0.05, momentum=0.5),
        loss="categorical_crossentropy",
        metrics=["accuracy"],
        jit_compile=False,
    )
    return model


def test_clone_and_fit_never_share_weights_with_the_model_passed():
    model = _compiled_model()
    before = [ops.convert_to_numpy(w) for w in model.get_weights()]
    estimator = SKLearnClassifier(model=model, fit_kwargs=FIT)
    copy = clone(estimator)
    assert copy.model is not model and copy.get_params()["fit_kwargs"] == FIT
    X, y = _blobs()
    estimator.fit(X, y)
    copy.fit(X, y)
    assert estimator.model_ is not model and copy.model_ is not estimator.model_
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, ops.convert_to_numpy(b))  # the original is untouched
    first = estimator.model_.layers[-1].kernel
    assert all(first is not w for w in copy.model_.weights)
    # The clone is compiled as the model was: same optimizer settings, loss and metrics.
    fitted = estimator.model_
    assert type(fitted.optimizer) is optimizers.SGD and fitted.optimizer is not model.optimizer
    assert float(ops.convert_to_numpy(fitted.optimizer.learning_rate)) == pytest.approx(0.05)
    assert fitted.optimizer.momentum == pytest.approx(0.5)
    assert set(estimator.history_) == {"loss", "accuracy"}


def test_clone_gives_fresh_weights():
    model = _compiled_model()
    X, y = _blobs()
    a = SKLearnClassifier(model=model, fit_kwargs={**FIT, "epochs": 0}).fit(X, y).model_
    b = SKLearnClassifier(model=model, fit_kwargs={**FIT, "epochs": 0}).fit(X, y).model_
    kernels = [ops.convert_to_numpy(m.layers[-1].kernel) for m in (model, a, b)]
    assert not np.allclose(kernels[0], kernels[1]) and not np.allclose(kernels[1], kernels[2])


def test_warm_start_continues_from_the_previous_fit():
    X, y = _blobs()
    estimator = SKLearnClassifier(model=dense_model, warm_start=True, model_kwargs=CLASSIFY)
    estimator.fit(X, y, **{**FIT, "epochs": 2})
    model = estimator.model_
    kernel = ops.convert_to_numpy(model.layers[-1].kernel).copy()
    estimator.fit(X, y, **{**FIT, "epochs": 3})
    assert estimator.model_ is model and estimator.epoch_ == 5
    assert len(estimator.history_["loss"]) == 5
    assert not np.allclose(kernel, ops.convert_to_numpy(model.layers[-1].kernel))
    cold = SKLearnClassifier(model=dense_model, model_kwargs=CLASSIFY, fit_kwargs=FIT)
    cold.fit(X, y)
    first = cold.model_
    assert cold.fit(X, y).model_ is not first and cold.epoch_ == 1


def test_warm_start_trains_the_given_model_in_place():
    model = _compiled_model()
    X, y = _blobs()
    estimator = SKLearnClassifier(model=model, warm_start=True, fit_kwargs=FIT).fit(X, y)
    assert estimator.model_ is model


# Label encoding ---------------------------------------------------------------------------
def test_callable_gets_validated_data_and_one_hot_targets():
    seen = {}

    def build(X, y, **kwargs):
        seen.update(X=X, y=y, kwargs=kwargs)
        return dense_model(X, y, **CLASSIFY)

    X, y = _blobs()
    labels = np.array([10, 20, 30])[y]
    SKLearnClassifier(model=build, model_kwargs={"extra": 1}, fit_kwargs=FIT).fit(
        X.tolist(), labels.tolist()
    )
    assert isinstance(seen["X"], np.ndarray) and seen["X"].shape == (60, 4)
    np.testing.assert_array_equal(seen["y"], np.eye(3)[y])
    assert seen["kwargs"] == {"extra": 1}


def test_binary_model_with_one_sigmoid_unit():
    X, y = _blobs(n_classes=2)
    labels = np.where(y == 1, "yes", "no")

    def build(X, y):
        return dense_model(
            X, y[:, :1], loss="binary_crossentropy", activation="sigmoid", learning_rate=0.1
        )

    clf = SKLearnClassifier(model=build, fit_kwargs={**FIT, "epochs": 40}).fit(X, labels)
    probability = ops.convert_to_numpy(clf.model_.predict(X, verbose=0))[:, 0]
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba, np.stack([1 - probability, probability], 1), rtol=1e-6)
    np.testing.assert_array_equal(clf.predict(X), np.where(probability > 0.5, "yes", "no"))
    assert clf.score(X, labels) > 0.8


def test_sparse_categorical_loss_gets_class_indices_and_logits_give_softmax():
    X, y = _blobs()
    clf = SKLearnClassifier(
        model=dense_model,
        model_kwargs={
            "loss": losses.SparseCategoricalCrossentropy(from_logits=True),
            "learning_rate": 0.1,
        },
        fit_kwargs={**FIT, "epochs": 40},
    ).fit(X, y)
    logits = clf.decision_function(X)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        clf.predict_proba(X), shifted / shifted.sum(1, keepdims=True), rtol=1e-5
    )
    np.testing.assert_array_equal(clf.predict(X), np.argmax(logits, axis=1))
    assert clf.score(X, y) > 0.8


def test_predict_proba_rows_sum_to_one_and_agree_with_predict():
    X, y = _blobs()
    clf = _classifier().fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (60, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))


def test_regressor_keeps_the_target_shape():
    X, y = make_regression(n_samples=60, n_features=4, n_targets=2, random_state=0)
    reg = SKLearnRegressor(model=dense_model, fit_kwargs=FIT)
    assert reg.fit(X, y).predict(X).shape == (60, 2)
    assert reg.fit(X, y[:, 0]).predict(X).shape == (60,)
    assert reg.predict(X).dtype == np.float64


def test_transformer_returns_the_model_outputs():
    X, y = make_regression(n_samples=60, n_features=4, n_targets=2, random_state=0)
    trs = SKLearnTransformer(model=dense_model, fit_kwargs=FIT)
    out = trs.fit_transform(X, y)
    expected = ops.convert_to_numpy(trs.model_.predict(X.astype("float32"), verbose=0))
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    pipe = Pipeline([("embed", trs), ("head", SKLearnRegressor(dense_model, fit_kwargs=FIT))])
    assert pipe.fit(X, y).predict(X).shape == (60, 2)


def test_pickled_estimator_predicts_the_same():
    X, y = _blobs()
    clf = SKLearnClassifier(model=_compiled_model(), fit_kwargs=FIT).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert isinstance(again.model, lamina.Model) and again.model is not again.model_


def squared_error(y_true, y_pred):
    """A custom loss that is not registered: cloning and pickling must not need its name."""
    return ops.mean((y_true - y_pred) ** 2, axis=-1)


def test_sequential_with_a_custom_loss_clones_and_pickles():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss=squared_error, jit_compile=False)
    X, y = make_regression(n_samples=60, n_features=4, random_state=0)
    reg = SKLearnRegressor(model=model, fit_kwargs=FIT).fit(X, y)
    assert isinstance(reg.model_, lamina.Sequential) and reg.model_ is not model
    again = pickle.loads(pickle.dumps(reg))
    np.testing.assert_array_equal(again.predict(X), reg.predict(X))
    assert again.set_params(warm_start=True).fit(X, y).epoch_ == 2  # still compiled


def test_metadata_routing_of_sample_weight():
    import sklearn
    from sklearn.model_selection import cross_validate

    X, y = _blobs(n_classes=2)
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        _classifier().set_fit_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        clf = _classifier().set_fit_request(sample_weight=True)
        clf = clf.set_score_request(sample_weight=False)
        result = cross_validate(clf, X, y, cv=2, params={"sample_weight": np.ones(len(y))})
    assert result["test_score"].shape == (2,)


# Errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "target, match",
    [
        (np.linspace(0, 1, 60), "Unknown label type"),
        (np.eye(3)[np.arange(60) % 3].astype(int), "1d array"),
        (np.zeros(60, dtype=int), "at least 2 classes"),
    ],
)
def test_classifier_rejects_targets_it_cannot_learn(target, match):
    X, _ = _blobs()
    with pytest.raises(ValueError, match=match):
        _classifier().fit(X, target)


def test_clear_errors_for_bad_models():
    X, y = _blobs()
    uncompiled_inputs = lamina.Input((4,))
    uncompiled = lamina.Model(uncompiled_inputs, layers.Dense(3)(uncompiled_inputs))
    with pytest.raises(RuntimeError, match="compiled with a loss and an optimizer"):
        SKLearnClassifier(model=lambda X, y: uncompiled).fit(X, y)
    with pytest.raises(TypeError, match="returned str"):
        SKLearnClassifier(model=lambda X, y: "not a model").fit(X, y)
    with pytest.raises(TypeError, match="received int"):
        SKLearnClassifier(model=3).fit(X, y)
    with pytest.raises(ValueError, match="model_kwargs"):
        SKLearnClassifier(model=_compiled_model(), model_kwargs={"a": 1}).fit(X, y)
    with pytest.raises(ValueError, match="outputs 2 units but y has 3 classes"):
        SKLearnClassifier(model=_compiled_model(units=2), fit_kwargs=FIT).fit(X, y)
    with pytest.raises(ValueError, match="target y is None"):
        SKLearnTransformer(model=dense_model).fit(X, None)


def test_predict_proba_refuses_outputs_that_are_not_probabilities():
    X, y = _blobs()
    clf = SKLearnClassifier(
        model=dense_model, model_kwargs={"loss": "categorical_crossentropy"}, fit_kwargs=FIT
    ).fit(X * 10, y)
    with pytest.raises(ValueError, match="not probabilities"):
        clf.predict_proba(X * 10)


# Packaging ---------------------------------------------------------------------------------
def test_sklearn_is_optional():
    code = (
        "import sys\n"
        "import lamina, lamina.wrappers\n"
        "assert 'sklearn' not in sys.modules, 'import lamina imported sklearn'\n"
        "sys.modules['sklearn'] = None  # as if it were not installed\n"
        "try:\n"
        "    lamina.wrappers.SKLearnClassifier\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "pip install lamina[sklearn]" in out.stdout


def test_signatures_match_keras():
    import inspect

    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras_wrappers = pytest.importorskip("keras.wrappers")
    for ours in (SKLearnClassifier, SKLearnRegressor, SKLearnTransformer):
        theirs = getattr(keras_wrappers, ours.__name__)
        assert inspect.signature(ours) == inspect.signature(theirs)
        for method in ("fit", "predict", "transform", "decision_function"):
            if hasattr(theirs, method):
                assert inspect.signature(getattr(ours, method)) == inspect.signature(
                    getattr(theirs, method)
                ), method


def test_a_tfidf_pipeline_trains_on_sparse_rows():
    """A TfidfVectorizer's SciPy sparse matrix goes to the model as it is (densified a
    batch at a time), and gives the numbers of its dense array."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = ["good movie", "bad movie", "great film", "awful film", "good film", "bad acting"]
    y = np.array([1, 0, 1, 0, 1, 0] * 4)
    features = TfidfVectorizer().fit_transform(texts * 4)
    assert features.format == "csr"
    kwargs = dict(
        model=dense_model,
        model_kwargs={"loss": "sparse_categorical_crossentropy", "activation": "softmax"},
        fit_kwargs={"epochs": 3, "verbose": 0, "shuffle": False},
    )
    on_sparse = SKLearnClassifier(**kwargs).fit(features, y)
    on_dense = SKLearnClassifier(**kwargs).fit(features.toarray(), y)
    np.testing.assert_allclose(
        on_sparse.predict_proba(features), on_dense.predict_proba(features.toarray()), rtol=1e-6
    )
    pipeline = make_pipeline(TfidfVectorizer(), SKLearnClassifier(**kwargs)).fit(texts * 4, y)
    assert pipeline.predict(["good movie"]).shape == (1,)
