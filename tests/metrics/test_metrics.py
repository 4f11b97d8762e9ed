"""Metrics accumulated over weighted batches against NumPy, eagerly and under jax.jit."""

import jax
import numpy as np
import pytest
from scipy import special

from lamina import backend, metrics, ops
from lamina.common import serialization

RNG = np.random.default_rng(1)
B, C = 6, 4


def _batches(kind, count=3):
    out = []
    for _ in range(count):
        weights = RNG.uniform(0.0, 2.0, B).astype("float32")
        probs = special.softmax(RNG.standard_normal((B, C)), -1).astype("float32")
        if kind == "binary":
            y_true = RNG.integers(0, 2, (B, C)).astype("float32")
            y_pred = RNG.uniform(0, 1, (B, C)).astype("float32")
        elif kind == "categorical":
            y_true = np.eye(C, dtype="float32")[RNG.integers(0, C, B)]
            y_pred = probs
        elif kind == "sparse":
            y_true = RNG.integers(0, C, (B, 1))
            y_pred = probs
        else:
            y_true = RNG.standard_normal((B, C)).astype("float32")
            y_pred = RNG.standard_normal((B, C)).astype("float32")
        out.append((y_true, y_pred, weights))
    return out


def _weighted_mean(per_sample, batches):
    values = np.concatenate(per_sample)
    weights = np.concatenate([w for _, _, w in batches])
    return (values * weights).sum() / weights.sum()


def _top_k_hits(labels, probs, k):
    target = np.take_along_axis(probs, labels[:, None], -1)
    return ((probs > target).sum(-1) < k).astype(float)


# (id, factory, data kind, per-sample NumPy reference)
MEAN_CASES = [
    ("binary_accuracy", lambda: metrics.BinaryAccuracy(threshold=0.4), "binary",
     lambda t, p: ((p > 0.4) == t).mean(-1)),
    ("categorical_accuracy", metrics.CategoricalAccuracy, "categorical",
     lambda t, p: (t.argmax(-1) == p.argmax(-1)).astype(float)),
    ("sparse_categorical_accuracy", metrics.SparseCategoricalAccuracy, "sparse",
     lambda t, p: (t[:, 0] == p.argmax(-1)).astype(float)),
    ("top_k", lambda: metrics.TopKCategoricalAccuracy(k=2), "categorical",
     lambda t, p: _top_k_hits(t.argmax(-1), p, 2)),
    ("sparse_top_k", lambda: metrics.SparseTopKCategoricalAccuracy(k=2), "sparse",
     lambda t, p: _top_k_hits(t[:, 0].astype(int), p, 2)),
    ("mse", metrics.MeanSquaredError, "real", lambda t, p: ((t - p) ** 2).mean(-1)),
    ("mae", metrics.MeanAbsoluteError, "real", lambda t, p: np.abs(t - p).mean(-1)),
    ("mape", metrics.MeanAbsolutePercentageError, "real",
     lambda t, p: 100 * np.abs((t - p) / np.maximum(np.abs(t), 1e-7)).mean(-1)),
    ("logcosh", metrics.LogCoshError, "real", lambda t, p: np.log(np.cosh(p - t)).mean(-1)),
    ("cosine", metrics.CosineSimilarity, "real",
     lambda t, p: (t * p).sum(-1) / np.linalg.norm(t, axis=-1) / np.linalg.norm(p, axis=-1)),
    ("bce", metrics.BinaryCrossentropy, "binary",
     lambda t, p: -(t * np.log(p) + (1 - t) * np.log(1 - p)).mean(-1)),
    ("cce", metrics.CategoricalCrossentropy, "categorical", lambda t, p: -(t * np.log(p)).sum(-1)),
    ("scce", metrics.SparseCategoricalCrossentropy, "sparse",
     lambda t, p: -np.log(np.take_along_axis(p, t.astype(int), -1)[:, 0])),
    ("hinge", metrics.Hinge, "binary", lambda t, p: np.maximum(1 - (2 * t - 1) * p, 0).mean(-1)),
]  # fmt: skip


@pytest.mark.parametrize("case", MEAN_CASES, ids=[c[0] for c in MEAN_CASES])
def test_mean_metrics_accumulate_weighted_batches(case):
    _, factory, kind, ref = case
    batches = _batches(kind)
    metric = factory()
    for y_true, y_pred, w in batches:
        metric.update_state(y_true, y_pred, sample_weight=w)
    per_sample = [ref(t.astype("float64"), p.astype("float64")) for t, p, _ in batches]
    np.testing.assert_allclose(metric.result(), _weighted_mean(per_sample, batches), rtol=1e-5)
    metric.reset_state()
    assert all(float(np.abs(v.numpy()).sum()) == 0.0 for v in metric.variables)
    y_true, y_pred, _ = batches[0]
    np.testing.assert_allclose(
        metric(y_true, y_pred),
        ref(y_true.astype("float64"), y_pred.astype("float64")).mean(),
        rtol=1e-5,
    )


def test_mean_and_sum_with_weights():
    mean, total = metrics.Mean(), metrics.Sum()
    values = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])]
    weights = [np.array([1.0, 0.0, 2.0]), np.array([0.5, 0.5, 1.0])]
    for v, w in zip(values, weights):
        mean.update_state(v, sample_weight=w)
        total.update_state(v, sample_weight=w)
    v, w = np.concatenate(values), np.concatenate(weights)
    np.testing.assert_allclose(mean.result(), (v * w).sum() / w.sum(), rtol=1e-6)
    np.testing.assert_allclose(total.result(), (v * w).sum(), rtol=1e-6)
    empty = metrics.Mean()
    assert float(empty.result()) == 0.0


def test_mean_of_per_timestep_values_with_per_timestep_weights():
    values = RNG.standard_normal((3, 5)).astype("float32")
    weights = (RNG.uniform(size=(3, 5)) > 0.3).astype("float32")
    mean = metrics.Mean()
    mean.update_state(values, sample_weight=weights)
    np.testing.assert_allclose(mean.result(), (values * weights).sum() / weights.sum(), rtol=1e-5)


def test_root_mean_squared_error_and_r2_score():
    batches = _batches("real")
    rmse = metrics.RootMeanSquaredError()
    r2 = metrics.R2Score()
    r2_raw = metrics.R2Score(class_aggregation=None)
    r2_var = metrics.R2Score(class_aggregation="variance_weighted_average")
    for t, p, w in batches:
        rmse.update_state(t, p, sample_weight=w)
        for m in (r2, r2_raw, r2_var):
            m.update_state(t, p, sample_weight=w)
    t = np.concatenate([b[0] for b in batches]).astype("float64")
    p = np.concatenate([b[1] for b in batches]).astype("float64")
    w = np.concatenate([b[2] for b in batches]).astype("float64")[:, None]
    mse = (((t - p) ** 2).mean(-1) * w[:, 0]).sum() / w.sum()
    np.testing.assert_allclose(rmse.result(), np.sqrt(mse), rtol=1e-5)
    mean = (w * t).sum(0) / w.sum()
    ss_tot = (w * (t - mean) ** 2).sum(0)
    scores = 1 - (w * (t - p) ** 2).sum(0) / ss_tot
    np.testing.assert_allclose(r2_raw.result(), scores, rtol=1e-4)
    np.testing.assert_allclose(r2.result(), scores.mean(), rtol=1e-4)
    np.testing.assert_allclose(r2_var.result(), (scores * ss_tot).sum() / ss_tot.sum(), rtol=1e-4)


def test_adjusted_r2_score():
    t = RNG.standard_normal((20, 1))
    p = t + 0.3 * RNG.standard_normal((20, 1))
    metric = metrics.R2Score(num_regressors=3)
    r2 = 1 - ((t - p) ** 2).sum() / ((t - t.mean()) ** 2).sum()
    np.testing.assert_allclose(metric(t, p), 1 - (1 - r2) * 19 / 16, rtol=1e-4)


def _f_reference(batches, beta, average, threshold):
    tp = fp = fn = support = 0.0
    for t, p, w in batches:
        if threshold is None:
            pred = (p >= p.max(-1, keepdims=True)).astype(float)
        else:
            pred = (p > threshold).astype(float)
        w = w[:, None]
        axis = None if average == "micro" else 0
        tp = tp + (w * pred * t).sum(axis)
        fp = fp + (w * pred * (1 - t)).sum(axis)
        fn = fn + (w * (1 - pred) * t).sum(axis)
        support = support + (w * t).sum(axis)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 counts as a score of 0
        precision = np.nan_to_num(tp / (tp + fp))
        recall = np.nan_to_num(tp / (tp + fn))
        score = np.nan_to_num((1 + beta**2) * precision * recall / (beta**2 * precision + recall))
    if average == "weighted":
        return (score * support).sum() / support.sum()
    return score if average is None else np.mean(score)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("threshold", [None, 0.5])
def test_f_scores(average, threshold):
    batches = _batches("binary")
    f1 = metrics.F1Score(average=average, threshold=threshold)
    f2 = metrics.FBetaScore(average=average, beta=2.0, threshold=threshold)
    for t, p, w in batches:
        f1.update_state(t, p, sample_weight=w)
        f2.update_state(t, p, sample_weight=w)
    np.testing.assert_allclose(
        f1.result(), _f_reference(batches, 1.0, average, threshold), rtol=1e-4
    )
    np.testing.assert_allclose(
        f2.result(), _f_reference(batches, 2.0, average, threshold), rtol=1e-4
    )


def _run_stateless_jit(metric, batches):
    """Update `metric` with each batch inside a StatelessScope under jax.jit."""
    t0, p0, _ = batches[0]
    metric.build(np.shape(t0), np.shape(p0))
    variables = metric.variables

    @jax.jit
    def step(state, y_true, y_pred, weights):
        with backend.StatelessScope(list(zip(variables, state))) as scope:
            metric.update_state(y_true, y_pred, sample_weight=weights)
        updates = {id(v): value for v, value in scope.updates}
        return [updates.get(id(v), old) for v, old in zip(variables, state)]

    state = [v.value for v in variables]
    for t, p, w in batches:
        state = step(state, t, p, w)
    with backend.StatelessScope(list(zip(variables, state))):
        return ops.convert_to_numpy(metric.result())


JIT_CASES = [
    ("accuracy", metrics.CategoricalAccuracy, "categorical"),
    ("sparse_top_k", lambda: metrics.SparseTopKCategoricalAccuracy(k=2), "sparse"),
    ("mse", metrics.MeanSquaredError, "real"),
    ("rmse", metrics.RootMeanSquaredError, "real"),
    ("r2", metrics.R2Score, "real"),
    ("auc", lambda: metrics.AUC(num_thresholds=50), "binary"),
    ("auc_pr_multi", lambda: metrics.AUC(curve="PR", multi_label=True), "binary"),
    ("precision", lambda: metrics.Precision(thresholds=[0.3, 0.6]), "binary"),
    ("recall_top_k", lambda: metrics.Recall(top_k=2, class_id=1), "binary"),
    ("tp", metrics.TruePositives, "binary"),
    ("f1", lambda: metrics.F1Score(average="macro"), "binary"),
    ("scce", metrics.SparseCategoricalCrossentropy, "sparse"),
]


# jax.jit over stateless_update_state.
@pytest.mark.engine("jax")
@pytest.mark.parametrize("case", JIT_CASES, ids=[c[0] for c in JIT_CASES])
def test_stateless_update_under_jit_equals_eager(case):
    _, factory, kind = case
    batches = _batches(kind)
    eager = factory()
    for t, p, w in batches:
        eager.update_state(t, p, sample_weight=w)
    compiled = factory()
    np.testing.assert_allclose(_run_stateless_jit(compiled, batches), eager.result(), rtol=1e-5)
    # The compiled run left the metric's own variables untouched.
    assert all(float(np.abs(v.numpy()).sum()) == 0.0 for v in compiled.variables)


def test_stateless_helpers():
    batches = _batches("categorical")
    metric = metrics.CategoricalAccuracy()
    state = metric.stateless_reset_state()
    for t, p, w in batches:
        state = metric.stateless_update_state(state, t, p, sample_weight=w)
    expected = metrics.CategoricalAccuracy()
    for t, p, w in batches:
        expected.update_state(t, p, sample_weight=w)
    np.testing.assert_allclose(metric.stateless_result(state), expected.result(), rtol=1e-6)
    assert float(metric.result()) == 0.0


@pytest.mark.parametrize(
    "name, cls",
    [
        ("accuracy", metrics.Accuracy),
        ("acc", metrics.Accuracy),
        ("auc", metrics.AUC),
        ("precision", metrics.Precision),
        ("recall", metrics.Recall),
        ("mse", metrics.MeanSquaredError),
        ("mae", metrics.MeanAbsoluteError),
        ("mape", metrics.MeanAbsolutePercentageError),
        ("binary_accuracy", metrics.BinaryAccuracy),
        ("categorical_crossentropy", metrics.CategoricalCrossentropy),
        ("sparse_top_k_categorical_accuracy", metrics.SparseTopKCategoricalAccuracy),
        ("F1Score", metrics.F1Score),
        ("RootMeanSquaredError", metrics.RootMeanSquaredError),
    ],
)
def test_get_resolves_keras_names(name, cls):
    assert type(metrics.get(name)) is cls


def test_a_model_compiled_with_metric_short_names_loads_from_its_file(tmp_path):
    # load_model checks the file's compile_config names against the registry; every
    # name compile takes must pass it ('mae' and 'auc' were refused as unknown).
    import lamina

    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, lamina.layers.Dense(1, activation="sigmoid")(inputs))
    model.compile("sgd", "mse", metrics=["mae", "auc", "r2_score", "kld"])
    x, y = np.ones((4, 3), "float32"), np.array([[0.0], [1.0], [1.0], [0.0]], "float32")
    expected = model.evaluate(x, y, verbose=0, return_dict=True)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    got = loaded.evaluate(x, y, verbose=0, return_dict=True)
    assert got.keys() == expected.keys()
    np.testing.assert_allclose(list(got.values()), list(expected.values()), rtol=1e-6)
    for name in metrics._NAMES:
        assert serialization.get_registered_object(name, None, category="metrics") is not None, name


CONFIG_CASES = [
    metrics.Mean(name="m"),
    metrics.BinaryAccuracy(threshold=0.3),
    metrics.TopKCategoricalAccuracy(k=3),
    metrics.AUC(num_thresholds=7, curve="PR", summation_method="minoring", from_logits=True),
    metrics.Precision(thresholds=[0.2, 0.7], top_k=2, class_id=1),
    metrics.Recall(thresholds=0.4),
    metrics.FalseNegatives(thresholds=[0.1, 0.9]),
    metrics.F1Score(average="weighted", threshold=0.4),
    metrics.FBetaScore(beta=0.5),
    metrics.R2Score(class_aggregation=None, num_regressors=2),
    metrics.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
    metrics.CosineSimilarity(axis=-1),
    metrics.MeanMetricWrapper(metrics.binary_accuracy, name="acc", threshold=0.7),
]


@pytest.mark.parametrize("metric", CONFIG_CASES, ids=lambda m: m.name)
def test_config_round_trip(metric):
    rebuilt = metrics.deserialize(metrics.serialize(metric))
    assert type(rebuilt) is type(metric)
    assert rebuilt.get_config() == metric.get_config()
    assert [v.shape for v in rebuilt.variables] == [v.shape for v in metric.variables]


def test_unknown_metric_name_errors():
    with pytest.raises(ValueError, match="Unknown metric: 'nope'"):
        metrics.get("nope")
