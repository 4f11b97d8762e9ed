"""Keras 3's IoU family, correlation metrics and rate-at-rate metrics: several batches
with sample weights, `result`, `reset_state`, against NumPy formulas and Keras itself;
configs both ways, and the metrics inside `compile`/`fit` and a `.keras` file."""

import os
import re
import warnings

import jax
import numpy as np
import pytest
from scipy import stats

import lamina
from lamina import backend, metrics, ops

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

RNG = np.random.default_rng(11)
C = 3
LABELS = [RNG.integers(0, C, (2, 8)).astype("int32") for _ in range(3)]
PREDS = [
    np.where(RNG.uniform(size=(2, 8)) < 0.6, t, RNG.integers(0, C, (2, 8))).astype("int32")
    for t in LABELS
]
INT_WEIGHTS = [RNG.integers(0, 3, (2, 8)).astype("int32") for _ in range(3)]
FLOAT_WEIGHTS = [RNG.uniform(0, 2, (2, 8)).astype("float32") for _ in range(3)]


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _keras_np(x):
    return np.asarray(keras.ops.convert_to_numpy(x))


def _keras_config(obj):
    # Keras 3.15 reads some variables through a NumPy-2-deprecated path.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return obj.get_config()


def _stateless_results(metric, batches, jit):
    """The result after `batches`, then after a reset and `batches[0]` again, through
    the metric's stateless API (under `jax.jit` when `jit`: one compilation per metric
    instead of one per op)."""

    def run(state, batches):
        for y_true, y_pred, weight in batches:
            state = metric.stateless_update_state(state, y_true, y_pred, sample_weight=weight)
        first = metric.stateless_result(state)
        state = metric.stateless_reset_state()
        y_true, y_pred, weight = batches[0]
        state = metric.stateless_update_state(state, y_true, y_pred, sample_weight=weight)
        return first, metric.stateless_result(state)

    with warnings.catch_warnings():
        # Keras 3.15's confusion matrix asks JAX for int64 (a UserWarning without x64).
        warnings.simplefilter("ignore", UserWarning)
        return (jax.jit(run) if jit else run)([v.value for v in metric.variables], batches)


def _compare(ours, theirs, batches, rtol=1e-5):
    """Update both over `batches` of (y_true, y_pred, sample_weight), compare results,
    reset, compare again after one more batch; return our first result. Ours runs
    eagerly and statefully (compiled on JAX, where eager ops compile one by one)."""
    expected = [_keras_np(r) for r in _stateless_results(theirs, batches, jit=True)]
    if backend.backend() == "jax":
        got = [_np(r) for r in _stateless_results(ours, batches, jit=True)]
        ours.reset_state()
        assert all(not np.any(_np(v.value)) for v in ours.variables)
    else:
        got = []
        for y_true, y_pred, weight in batches:
            ours.update_state(y_true, y_pred, sample_weight=weight)
        got.append(_np(ours.result()))
        ours.reset_state()
        for v in ours.variables:
            assert not np.any(_np(v.value))
        y_true, y_pred, weight = batches[0]
        ours.update_state(y_true, y_pred, sample_weight=weight)
        got.append(_np(ours.result()))
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)
    return got[0]


def ref_ious(labels, preds, weights, num_classes, ignore_class=None):
    """Per-class IoU and presence from a confusion matrix built with np.add.at."""
    cm = np.zeros((num_classes, num_classes))
    for t, p, w in zip(labels, preds, weights):
        t, p, w = t.ravel(), p.ravel(), np.broadcast_to(w, t.shape).ravel()
        keep = t != ignore_class if ignore_class is not None else np.ones_like(t, bool)
        np.add.at(cm, (t[keep], p[keep]), w[keep])
    tp = np.diag(cm)
    denominator = cm.sum(0) + cm.sum(1) - tp
    present = denominator > 0
    return np.where(present, tp / np.where(present, denominator, 1), 0.0), present


def test_mean_iou_and_iou_match_numpy_and_keras():
    batches = list(zip(LABELS, PREDS, INT_WEIGHTS))
    iou, present = ref_ious(LABELS, PREDS, INT_WEIGHTS, C)
    first = _compare(metrics.MeanIoU(C), keras.metrics.MeanIoU(C), batches)
    np.testing.assert_allclose(first, iou[present].mean(), rtol=1e-5)
    first = _compare(metrics.IoU(C, [0, 2]), keras.metrics.IoU(C, [0, 2]), batches)
    np.testing.assert_allclose(first, iou[[0, 2]].mean(), rtol=1e-5)
    # ignore_class, and fractional weights with float counts.
    batches = list(zip(LABELS, PREDS, FLOAT_WEIGHTS))
    ours = metrics.MeanIoU(C, ignore_class=1, dtype="float32")
    first = _compare(ours, keras.metrics.MeanIoU(C, ignore_class=1, dtype="float32"), batches)
    iou, present = ref_ious(LABELS, PREDS, FLOAT_WEIGHTS, C, ignore_class=1)
    np.testing.assert_allclose(first, iou[present].mean(), rtol=1e-5)


def test_metric_add_variable_takes_keras_arguments():
    m = metrics.Metric(name="custom")
    total = m.add_variable((2,), "zeros", "float32", "sum", "total")  # Keras's positions
    count = m.add_weight((), name="count")
    assert [v.name for v in m.variables] == ["total", "count"]
    assert total.shape == (2,) and float(_np(count.value)) == 0.0


def test_integer_counts_warn_about_float_weights():
    m = metrics.MeanIoU(C)
    with pytest.warns(UserWarning, match="fractional weights are truncated"):
        m.update_state(LABELS[0], PREDS[0], sample_weight=FLOAT_WEIGHTS[0])


def test_binary_and_one_hot_iou_match_keras():
    scores = [RNG.uniform(size=(2, 8)).astype("float32") for _ in range(3)]
    binary = [(t > 0).astype("float32") for t in LABELS]
    batches = list(zip(binary, scores, INT_WEIGHTS))
    _compare(metrics.BinaryIoU(threshold=0.3), keras.metrics.BinaryIoU(threshold=0.3), batches)
    _compare(metrics.BinaryIoU([1], 0.6), keras.metrics.BinaryIoU([1], 0.6), batches)
    one_hot = [np.eye(C, dtype="float32")[t] for t in LABELS]
    logits = [RNG.standard_normal((2, 8, C)).astype("float32") for _ in range(3)]
    batches = list(zip(one_hot, logits, INT_WEIGHTS))
    _compare(metrics.OneHotIoU(C, [1, 2]), keras.metrics.OneHotIoU(C, [1, 2]), batches)
    _compare(metrics.OneHotMeanIoU(C), keras.metrics.OneHotMeanIoU(C), batches)


ROWS = [RNG.standard_normal((4, 6)).astype("float32") for _ in range(3)]
NOISY = [r * 0.7 + 0.5 * RNG.standard_normal((4, 6)).astype("float32") + 0.2 for r in ROWS]
ROW_WEIGHTS = [RNG.uniform(0, 1, (4,)).astype("float32") for _ in range(3)]


def test_correlations_match_numpy_and_keras():
    batches = list(zip(ROWS, NOISY, ROW_WEIGHTS))
    pearson = [stats.pearsonr(t, p)[0] for r, n in zip(ROWS, NOISY) for t, p in zip(r, n)]
    expected = np.average(pearson, weights=np.concatenate(ROW_WEIGHTS))
    first = _compare(metrics.PearsonCorrelation(), keras.metrics.PearsonCorrelation(), batches)
    np.testing.assert_allclose(first, expected, rtol=1e-5)
    np.testing.assert_allclose(
        _np(metrics.pearson_correlation(ROWS[0], NOISY[0])), pearson[:4], rtol=1e-5
    )

    def ref_ccc(t, p):  # Keras 3.15's formula (see concordance_correlation)
        t, p = t.astype("float64"), p.astype("float64")
        norm = t.var() + p.var() + (t.mean() - p.mean()) ** 2
        return np.mean(2 * (t - p.mean()) * (p - p.mean()) / (norm + 1e-7))

    ccc = [ref_ccc(t, p) for r, n in zip(ROWS, NOISY) for t, p in zip(r, n)]
    expected = np.average(ccc, weights=np.concatenate(ROW_WEIGHTS))
    first = _compare(
        metrics.ConcordanceCorrelation(), keras.metrics.ConcordanceCorrelation(), batches
    )
    np.testing.assert_allclose(first, expected, rtol=1e-5)
    # Along the batch axis instead.
    ours = metrics.PearsonCorrelation(axis=0)
    _compare(ours, keras.metrics.PearsonCorrelation(axis=0), [(ROWS[0], NOISY[0], None)])


BINARY = [RNG.integers(0, 2, (6, 2)).astype("float32") for _ in range(3)]
PROBS = [np.clip(b * 0.4 + RNG.uniform(0, 0.6, (6, 2)), 0, 1).astype("float32") for b in BINARY]
SAMPLE_WEIGHTS = [RNG.uniform(0, 1, (6, 1)).astype("float32") for _ in range(3)]

# One threshold count (11) for the sweeps keeps the programs few; 1 threshold is its own
# case (the single threshold 0.5).
RATE_CASES = [
    ("PrecisionAtRecall", 0.6, {"num_thresholds": 11}),
    ("RecallAtPrecision", 0.7, {"num_thresholds": 11}),
    ("SensitivityAtSpecificity", 0.5, {"num_thresholds": 11, "class_id": 1}),
    ("SpecificityAtSensitivity", 0.8, {"num_thresholds": 1}),
]


@pytest.mark.parametrize(("name", "value", "kwargs"), RATE_CASES, ids=[c[0] for c in RATE_CASES])
def test_rate_at_rate_metrics_match_keras(name, value, kwargs):
    batches = list(zip(BINARY, PROBS, SAMPLE_WEIGHTS))
    # Keras numbers a default name after earlier metrics of its class in the process
    # (other test files make them too): start its count afresh, as lamina's is.
    keras.utils.clear_session()
    ours = getattr(metrics, name)(value, **kwargs)
    theirs = getattr(keras.metrics, name)(value, **kwargs)
    _compare(ours, theirs, batches)
    assert ours.get_config() == {**_keras_config(theirs), "dtype": None}
    again = metrics.deserialize(metrics.serialize(ours))
    assert type(again) is type(ours) and again.get_config() == ours.get_config()
    assert type(keras.metrics.deserialize(metrics.serialize(ours))).__name__ == name


def test_precision_at_recall_matches_a_threshold_sweep():
    t = np.concatenate([b.ravel() for b in BINARY])
    p = np.concatenate([b.ravel() for b in PROBS])
    w = np.concatenate(
        [np.broadcast_to(s, b.shape).ravel() for s, b in zip(SAMPLE_WEIGHTS, BINARY)]
    )
    best = 0.0
    for threshold in np.linspace(0, 1, 11):
        predicted = p > np.float32(threshold)
        tp, fp = np.sum(w * predicted * t), np.sum(w * predicted * (1 - t))
        fn = np.sum(w * ~predicted * t)
        if tp + fn and tp / (tp + fn) >= 0.6:
            best = max(best, tp / (tp + fp) if tp + fp else 0.0)
    m = metrics.PrecisionAtRecall(0.6, num_thresholds=11)
    for y, q, s in zip(BINARY, PROBS, SAMPLE_WEIGHTS):
        m.update_state(y, q, s)
    np.testing.assert_allclose(_np(m.result()), best, rtol=1e-5)
    with pytest.raises(ValueError, match=r"`recall` must be in \[0, 1\]; received 1.5"):
        metrics.PrecisionAtRecall(1.5)
    with pytest.raises(ValueError, match="num_thresholds.*received 0"):
        metrics.RecallAtPrecision(0.5, num_thresholds=0)


CONFIG_CASES = [
    (metrics.IoU, (C, [0, 2]), {"ignore_class": 1, "sparse_y_pred": False, "axis": -1}),
    (metrics.MeanIoU, (C,), {"sparse_y_true": False}),
    (metrics.BinaryIoU, ([1],), {"threshold": 0.4}),
    (metrics.OneHotIoU, (C, [1]), {"sparse_y_pred": True}),
    (metrics.OneHotMeanIoU, (C,), {"ignore_class": 0}),
    (metrics.PearsonCorrelation, (), {"axis": 0}),
    (metrics.ConcordanceCorrelation, (), {}),
]


@pytest.mark.parametrize(
    ("cls", "args", "kwargs"), CONFIG_CASES, ids=lambda x: getattr(x, "__name__", "")
)
def test_configs_match_keras_and_round_trip(cls, args, kwargs):
    ours = cls(*args, **kwargs)
    theirs = getattr(keras.metrics, cls.__name__)(*args, **kwargs)
    config = ours.get_config()
    # Keras writes its float default dtype out (lamina keeps `None`, floatx()), and
    # numbers the names of later instances (mean_io_u_1).
    expected = {**_keras_config(theirs), "name": ours.name}
    assert config == {**expected, **({"dtype": None} if config["dtype"] is None else {})}
    assert ours.name == re.sub(r"_\d+$", "", theirs.name)
    assert [v.name for v in ours.variables] == [v.name for v in theirs.variables]
    again = metrics.deserialize(metrics.serialize(ours))
    assert type(again) is cls and again.get_config() == config
    assert type(keras.metrics.deserialize(metrics.serialize(ours))).__name__ == cls.__name__
    assert type(metrics.deserialize(keras.metrics.serialize(theirs))) is cls
    assert type(metrics.get(metrics.serialize(ours))) is cls


def test_metrics_in_fit_evaluate_and_a_keras_file(tmp_path):
    x = RNG.standard_normal((32, 5)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    lamina.utils.set_random_seed(1)
    model = lamina.Sequential([lamina.Input((5,)), lamina.layers.Dense(1, activation="sigmoid")])
    model.compile(
        optimizer=lamina.optimizers.Adam(0.05),
        loss=lamina.losses.Dice(axis=(1,)),
        metrics=[
            metrics.BinaryIoU(name="iou"),
            metrics.RecallAtPrecision(0.5, num_thresholds=11, name="r_at_p"),
            "pearson_correlation",
        ],
    )
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert {"iou", "r_at_p", "pearson_correlation"} <= set(history.history)
    assert history.history["loss"][-1] < history.history["loss"][0]  # Dice trains
    logs = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
    kernel, bias = (_np(w) for w in model.layers[-1].weights)
    predictions = 1 / (1 + np.exp(-(x @ kernel + bias)))  # the model's output, on the host
    reference = metrics.BinaryIoU()
    reference.update_state(y, predictions)
    np.testing.assert_allclose(logs["iou"], _np(reference.result()), rtol=1e-5)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    # The metrics come back with their configs (and Keras's class names).
    assert loaded._compile_config()["metrics"] == model._compile_config()["metrics"]
