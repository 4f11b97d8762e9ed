"""Confusion-matrix metrics (TP/TN/FP/FN, Precision, Recall, AUC) against NumPy."""

import numpy as np
import pytest
from scipy import special, stats

from lamina import metrics

RNG = np.random.default_rng(2)
EPS = 1e-7


def _batches(count=3, shape=(8, 3)):
    out = []
    for _ in range(count):
        y_true = RNG.integers(0, 2, shape).astype("float32")
        # Scores correlated with the labels, so the curves are not trivial.
        y_pred = np.clip(0.35 * y_true + RNG.uniform(0, 0.65, shape), 0, 1).astype("float32")
        weights = RNG.uniform(0.2, 2.0, shape[0]).astype("float32")
        out.append((y_true, y_pred, weights))
    return out


def _stack(batches):
    t = np.concatenate([b[0] for b in batches]).astype("float64")
    p = np.concatenate([b[1] for b in batches]).astype("float64")
    w = np.concatenate([b[2] for b in batches]).astype("float64")
    return t, p, np.broadcast_to(w[:, None], t.shape)


def _counts(t, p, w, thresholds, axis=None):
    """Weighted confusion counts per threshold; `axis=0` keeps one count per label."""
    out = {k: [] for k in ("tp", "fp", "tn", "fn")}
    for th in thresholds:
        pred, pos = p > th, t != 0
        out["tp"].append((w * (pred & pos)).sum(axis))
        out["fp"].append((w * (pred & ~pos)).sum(axis))
        out["tn"].append((w * (~pred & ~pos)).sum(axis))
        out["fn"].append((w * (~pred & pos)).sum(axis))
    return {k: np.array(v) for k, v in out.items()}


def _update(metric, batches):
    for t, p, w in batches:
        metric.update_state(t, p, sample_weight=w)
    return np.asarray(metric.result())


@pytest.mark.parametrize(
    "cls, key",
    [
        (metrics.TruePositives, "tp"),
        (metrics.FalsePositives, "fp"),
        (metrics.TrueNegatives, "tn"),
        (metrics.FalseNegatives, "fn"),
    ],
)
@pytest.mark.parametrize("thresholds", [None, 0.3, [0.1, 0.5, 0.8]])
def test_condition_counts(cls, key, thresholds):
    batches = _batches()
    result = _update(cls(thresholds=thresholds), batches)
    listed = [0.5] if thresholds is None else np.atleast_1d(thresholds)
    expected = _counts(*_stack(batches), listed)[key]
    np.testing.assert_allclose(
        result, expected if isinstance(thresholds, list) else expected[0], rtol=1e-5
    )


@pytest.mark.parametrize("thresholds", [None, [0.2, 0.6]])
def test_precision_and_recall(thresholds):
    batches = _batches()
    counts = _counts(*_stack(batches), [0.5] if thresholds is None else thresholds)
    precision = counts["tp"] / (counts["tp"] + counts["fp"])
    recall = counts["tp"] / (counts["tp"] + counts["fn"])
    if thresholds is None:
        precision, recall = precision[0], recall[0]
    np.testing.assert_allclose(
        _update(metrics.Precision(thresholds), batches), precision, rtol=1e-5
    )
    np.testing.assert_allclose(_update(metrics.Recall(thresholds), batches), recall, rtol=1e-5)


def test_precision_recall_top_k_and_class_id():
    batches = _batches(shape=(8, 5))
    t, p, w = _stack(batches)
    top2 = np.argsort(-p, axis=-1)[:, :2]
    in_top = np.zeros_like(p, bool)
    np.put_along_axis(in_top, top2, True, axis=-1)
    pos = t != 0
    tp = (w * (in_top & pos)).sum()
    np.testing.assert_allclose(
        _update(metrics.Precision(top_k=2), batches), tp / (w * in_top).sum(), rtol=1e-5
    )
    np.testing.assert_allclose(
        _update(metrics.Recall(top_k=2), batches), tp / (w * pos).sum(), rtol=1e-5
    )
    # class_id: only label 3, thresholded at 0.5.
    pred3, pos3, w3 = p[:, 3] > 0.5, pos[:, 3], w[:, 3]
    np.testing.assert_allclose(
        _update(metrics.Precision(class_id=3), batches),
        (w3 * (pred3 & pos3)).sum() / (w3 * pred3).sum(),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        _update(metrics.Recall(class_id=3), batches),
        (w3 * (pred3 & pos3)).sum() / (w3 * pos3).sum(),
        rtol=1e-5,
    )


def _auc_thresholds(n):
    return [-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS]


def _auc_reference(c, curve, method):
    """Area under the sampled curve from per-threshold counts (Keras's definition)."""
    tp, fp, tn, fn = c["tp"], c["fp"], c["tn"], c["fn"]
    with np.errstate(invalid="ignore", divide="ignore"):
        if curve == "PR" and method == "interpolation":
            # Davis & Goadrich: precision interpolated linearly in true positives.
            dtp = tp[:-1] - tp[1:]
            p = tp + fp
            dp = p[:-1] - p[1:]
            slope = np.nan_to_num(dtp / np.maximum(dp, 0), posinf=0.0)
            intercept = tp[1:] - slope * p[1:]
            ratio = np.where((p[:-1] > 0) & (p[1:] > 0), p[:-1] / np.maximum(p[1:], 1e-30), 1.0)
            terms = slope * (dtp + intercept * np.log(ratio)) / (tp[1:] + fn[1:])
            return np.nan_to_num(terms, posinf=0.0).sum(0)
        recall = np.nan_to_num(tp / (tp + fn))
        if curve == "ROC":
            x, y = np.nan_to_num(fp / (fp + tn)), recall
        else:
            x, y = recall, np.nan_to_num(tp / (tp + fp))
    heights = {
        "interpolation": (y[:-1] + y[1:]) / 2,
        "minoring": np.minimum(y[:-1], y[1:]),
        "majoring": np.maximum(y[:-1], y[1:]),
    }[method]
    return ((x[:-1] - x[1:]) * heights).sum(0)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("method", ["interpolation", "minoring", "majoring"])
def test_auc_matches_reference(curve, method):
    batches = _batches()
    metric = metrics.AUC(num_thresholds=20, curve=curve, summation_method=method)
    counts = _counts(*_stack(batches), _auc_thresholds(20))
    np.testing.assert_allclose(
        _update(metric, batches), _auc_reference(counts, curve, method), rtol=1e-4
    )


def test_auc_converges_to_rank_statistic():
    # With fine thresholds, ROC AUC is the Mann-Whitney probability P(score+ > score-).
    t = RNG.integers(0, 2, 400)
    p = special.expit(1.5 * t + RNG.standard_normal(400))
    ranks = stats.rankdata(p)
    n_pos, n_neg = t.sum(), (1 - t).sum()
    exact = (ranks[t == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    metric = metrics.AUC(num_thresholds=2000)
    np.testing.assert_allclose(metric(t, p), exact, atol=2e-3)
    logits = metrics.AUC(num_thresholds=2000, from_logits=True)
    np.testing.assert_allclose(logits(t, special.logit(p)), exact, atol=2e-3)


def test_auc_multi_label_and_label_weights():
    batches = _batches()
    t, p, w = _stack(batches)
    counts = _counts(t, p, w, _auc_thresholds(30), axis=0)
    per_label = _auc_reference(counts, "ROC", "interpolation")
    metric = metrics.AUC(num_thresholds=30, multi_label=True)
    np.testing.assert_allclose(_update(metric, batches), per_label.mean(), rtol=1e-4)
    label_weights = [0.2, 1.0, 3.0]
    weighted = metrics.AUC(num_thresholds=30, multi_label=True, label_weights=label_weights)
    np.testing.assert_allclose(
        _update(weighted, batches),
        (per_label * label_weights).sum() / sum(label_weights),
        rtol=1e-4,
    )


def test_auc_explicit_thresholds_and_reset():
    metric = metrics.AUC(thresholds=[0.25, 0.5, 0.75])
    assert metric.num_thresholds == 5
    value = float(metric([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]))
    assert 0.0 < value <= 1.0
    metric.reset_state()
    assert float(metric.result()) == 0.0
    with pytest.raises(ValueError, match="invalid curve"):
        metrics.AUC(curve="XY")
    with pytest.raises(ValueError, match="threshold must be in"):
        metrics.Precision(thresholds=[0.5, 1.5])
