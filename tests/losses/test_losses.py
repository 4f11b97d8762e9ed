"""Every loss through one suite: NumPy reference, reductions, weights, masks, config."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import special

from lamina import backend, losses, ops

RNG = np.random.default_rng(0)
EPS = 1e-7
N, C = 4, 3

REDUCTIONS = ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"]


def _probs(shape):
    return special.softmax(RNG.standard_normal(shape), axis=-1).astype("float32")


def _one_hot(labels, num_classes=C):
    return np.eye(num_classes, dtype="float32")[labels]


LABELS = np.array([0, 2, 1, 2])
ONE_HOT = _one_hot(LABELS)
PROBS = _probs((N, C))
LOGITS = RNG.standard_normal((N, C)).astype("float32")
BINARY = RNG.integers(0, 2, (N, C)).astype("float32")
SIGMOID = special.expit(LOGITS).astype("float32")
REAL_T = RNG.standard_normal((N, C)).astype("float32")
REAL_P = RNG.standard_normal((N, C)).astype("float32")
POS_T = np.abs(REAL_T) + 0.1
POS_P = np.abs(REAL_P) + 0.1


# NumPy references, each giving one value per sample (float64).
def _clip(p):
    return np.clip(p.astype("float64"), EPS, 1 - EPS)


def ref_bce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return -np.mean(t * special.log_expit(p) + (1 - t) * special.log_expit(-p), -1)
    p = _clip(p)
    return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p), -1)


def ref_focal(t, p, from_logits=False, label_smoothing=0.0, gamma=2.0, alpha=0.25, balance=False):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    p = special.expit(p.astype("float64")) if from_logits else p.astype("float64")
    pc = _clip(p)
    bce = -(t * np.log(pc) + (1 - t) * np.log(1 - pc))
    p_t = t * p + (1 - t) * (1 - p)
    out = (1 - p_t) ** gamma * bce
    if balance:
        out = (t * alpha + (1 - t) * (1 - alpha)) * out
    return out.mean(-1)


def ref_cce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        return -np.sum(t * special.log_softmax(p.astype("float64"), -1), -1)
    p = _clip(p / p.sum(-1, keepdims=True))
    return -np.sum(t * np.log(p), -1)


def ref_cfce(t, p, from_logits=False, alpha=0.25, gamma=2.0):
    p = special.softmax(p.astype("float64"), -1) if from_logits else p
    p = _clip(p / p.sum(-1, keepdims=True))
    return np.sum(alpha * (1 - p) ** gamma * -t * np.log(p), -1)


def ref_scce(t, p, from_logits=False, ignore_class=None):
    labels = ops.convert_to_numpy(t).astype(int)
    valid = labels != ignore_class if ignore_class is not None else np.ones(labels.shape, bool)
    out = ref_cce(_one_hot(np.where(valid, labels, 0), p.shape[-1]), p, from_logits)
    return np.where(valid, out, 0.0)


def ref_huber(t, p, delta=1.0):
    e = np.abs(p - t)
    return np.mean(np.where(e <= delta, 0.5 * e**2, delta * e - 0.5 * delta**2), -1)


def ref_cosine(t, p):
    def unit(x):
        return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), EPS)

    return -np.sum(unit(t) * unit(p), -1)


def ref_hinge(t, p, squared=False):
    t = 2 * t - 1 if set(np.unique(t)) <= {0, 1} else t
    h = np.maximum(1 - t * p, 0)
    return np.mean(h**2 if squared else h, -1)


def ref_cat_hinge(t, p):
    return np.maximum(np.max((1 - t) * p, -1) - np.sum(t * p, -1) + 1, 0)


def ref_kld(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return np.sum(t * np.log(t / p), -1)


# (id, class, function, kwargs, y_true, y_pred, reference)
CASES = [
    ("mse", losses.MeanSquaredError, losses.mean_squared_error, {}, REAL_T, REAL_P,
     lambda t, p: np.mean((t - p) ** 2, -1)),
    ("mae", losses.MeanAbsoluteError, losses.mean_absolute_error, {}, REAL_T, REAL_P,
     lambda t, p: np.mean(np.abs(t - p), -1)),
    ("mape", losses.MeanAbsolutePercentageError, losses.mean_absolute_percentage_error, {},
     POS_T, REAL_P, lambda t, p: 100 * np.mean(np.abs((t - p) / np.maximum(np.abs(t), EPS)), -1)),
    ("msle", losses.MeanSquaredLogarithmicError, losses.mean_squared_logarithmic_error, {},
     POS_T, POS_P, lambda t, p: np.mean((np.log1p(p) - np.log1p(t)) ** 2, -1)),
    ("huber", losses.Huber, losses.huber, {"delta": 0.7}, REAL_T, REAL_P, ref_huber),
    ("log_cosh", losses.LogCosh, losses.log_cosh, {}, REAL_T, REAL_P,
     lambda t, p: np.mean(np.log(np.cosh(p - t)), -1)),
    ("cosine", losses.CosineSimilarity, losses.cosine_similarity, {}, REAL_T, REAL_P, ref_cosine),
    ("bce", losses.BinaryCrossentropy, losses.binary_crossentropy, {}, BINARY, SIGMOID, ref_bce),
    ("bce_logits", losses.BinaryCrossentropy, losses.binary_crossentropy,
     {"from_logits": True}, BINARY, LOGITS, ref_bce),
    ("bce_smooth", losses.BinaryCrossentropy, losses.binary_crossentropy,
     {"label_smoothing": 0.2}, BINARY, SIGMOID, ref_bce),
    ("focal", losses.BinaryFocalCrossentropy, losses.binary_focal_crossentropy, {},
     BINARY, SIGMOID, ref_focal),
    ("focal_logits_balanced", losses.BinaryFocalCrossentropy, losses.binary_focal_crossentropy,
     {"from_logits": True, "apply_class_balancing": True, "gamma": 1.5, "alpha": 0.4,
      "label_smoothing": 0.1}, BINARY, LOGITS,
     lambda t, p, **k: ref_focal(t, p, k["from_logits"], k["label_smoothing"], k["gamma"],
                                 k["alpha"], k["apply_class_balancing"])),
    ("cce", losses.CategoricalCrossentropy, losses.categorical_crossentropy, {},
     ONE_HOT, PROBS, ref_cce),
    ("cce_logits_smooth", losses.CategoricalCrossentropy, losses.categorical_crossentropy,
     {"from_logits": True, "label_smoothing": 0.1}, ONE_HOT, LOGITS, ref_cce),
    ("cfce", losses.CategoricalFocalCrossentropy, losses.categorical_focal_crossentropy,
     {"from_logits": True, "gamma": 1.0}, ONE_HOT, LOGITS, ref_cfce),
    ("scce", losses.SparseCategoricalCrossentropy, losses.sparse_categorical_crossentropy, {},
     LABELS, PROBS, ref_scce),
    ("scce_column_labels", losses.SparseCategoricalCrossentropy,
     losses.sparse_categorical_crossentropy, {"from_logits": True}, LABELS[:, None], LOGITS,
     lambda t, p, **k: ref_scce(t[:, 0], p, **k)),
    ("kld", losses.KLDivergence, losses.kl_divergence, {}, _probs((N, C)), PROBS, ref_kld),
    ("poisson", losses.Poisson, losses.poisson, {}, POS_T, POS_P,
     lambda t, p: np.mean(p - t * np.log(p + EPS), -1)),
    ("hinge", losses.Hinge, losses.hinge, {}, BINARY, REAL_P, ref_hinge),
    ("hinge_signed", losses.Hinge, losses.hinge, {}, 2 * BINARY - 1, REAL_P, ref_hinge),
    ("squared_hinge", losses.SquaredHinge, losses.squared_hinge, {}, BINARY, REAL_P,
     lambda t, p: ref_hinge(t, p, squared=True)),
    ("categorical_hinge", losses.CategoricalHinge, losses.categorical_hinge, {}, ONE_HOT, REAL_P,
     ref_cat_hinge),
]  # fmt: skip
IDS = [case[0] for case in CASES]
WEIGHTS = np.array([0.5, 2.0, 0.0, 1.0], "float32")


def _reference(case):
    _, _, _, kwargs, y_true, y_pred, ref = case
    try:
        return ref(y_true.astype("float64"), y_pred.astype("float64"), **kwargs)
    except TypeError:
        return ref(y_true.astype("float64"), y_pred.astype("float64"))


def _reduce(values, weights, mask, reduction):
    w = np.ones_like(values) if weights is None else np.broadcast_to(weights, values.shape)
    m = np.ones_like(values) if mask is None else np.broadcast_to(mask, values.shape)
    weighted = values * w * m
    if reduction in ("none", None):
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean_with_sample_weight" and (weights is not None or mask is not None):
        return weighted.sum() / (w * m).sum()
    return weighted.sum() / m.sum()


def _close(actual, expected):
    np.testing.assert_allclose(ops.convert_to_numpy(actual), expected, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_function_matches_reference(case):
    _, _, fn, kwargs, y_true, y_pred, _ = case
    _close(fn(y_true, y_pred, **kwargs), _reference(case))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_class_reductions_and_weights(case, reduction, weighted):
    _, cls, _, kwargs, y_true, y_pred, _ = case
    weights = WEIGHTS if weighted else None
    loss = cls(reduction=reduction, **kwargs)
    expected = _reduce(_reference(case), weights, None, reduction)
    _close(loss(y_true, y_pred, sample_weight=weights), expected)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mask_excludes_entries(case, reduction):
    _, cls, _, kwargs, y_true, y_pred, _ = case
    mask = np.array([True, False, True, True])
    loss = cls(reduction=reduction, **kwargs)
    expected = _reduce(_reference(case), WEIGHTS, mask, reduction)
    _close(loss(y_true, y_pred, sample_weight=WEIGHTS, mask=mask), expected)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_class_equals_function_and_config_round_trip(case):
    _, cls, fn, kwargs, y_true, y_pred, _ = case
    loss = cls(**kwargs)
    _close(loss(y_true, y_pred), np.mean(ops.convert_to_numpy(fn(y_true, y_pred, **kwargs))))
    config = loss.get_config()
    clone = cls.from_config(config)
    assert clone.get_config() == config
    rebuilt = losses.deserialize(losses.serialize(loss))
    assert type(rebuilt) is cls and rebuilt.get_config() == config
    _close(rebuilt(y_true, y_pred), ops.convert_to_numpy(loss(y_true, y_pred)))


def test_per_timestep_losses_with_timestep_mask_and_sample_weights():
    t = RNG.standard_normal((2, 5, 3)).astype("float32")
    p = RNG.standard_normal((2, 5, 3)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    weights = np.array([2.0, 1.0], "float32")
    per_step = np.mean((t - p) ** 2, -1)
    expected = (per_step * weights[:, None] * mask).sum() / mask.sum()
    _close(losses.MeanSquaredError()(t, p, sample_weight=weights, mask=mask), expected)


def test_sparse_ignore_class_masks_out_of_mean():
    labels = np.array([[0, 2, -1], [1, -1, -1]])
    logits = RNG.standard_normal((2, 3, C)).astype("float32")
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    per_step = ref_scce(labels, logits, from_logits=True, ignore_class=-1)
    valid = labels != -1
    _close(loss(labels, logits), per_step.sum() / valid.sum())
    summed = losses.SparseCategoricalCrossentropy(
        from_logits=True, ignore_class=-1, reduction="sum"
    )
    _close(summed(labels, logits), per_step.sum())
    # A user mask combines with the ignored entries.
    user_mask = np.array([[True, False, True], [True, True, True]])
    both = valid & user_mask
    _close(loss(labels, logits, mask=user_mask), (per_step * both).sum() / both.sum())


def test_sample_weight_column_and_full_shape():
    t, p = REAL_T, REAL_P
    per_sample = np.mean((t - p) ** 2, -1)
    loss = losses.MeanSquaredError(reduction="sum")
    _close(loss(t, p, sample_weight=WEIGHTS[:, None]), (per_sample * WEIGHTS).sum())
    with pytest.raises(ValueError, match="sample_weight"):
        loss(t, p, sample_weight=np.ones(3))


def test_fully_masked_batch_gives_zero_not_nan():
    loss = losses.MeanSquaredError()
    _close(loss(REAL_T, REAL_P, mask=np.zeros(N, bool)), 0.0)


def test_reduction_aliases():
    def value(reduction):
        loss = losses.MeanSquaredError(reduction=reduction)
        return ops.convert_to_numpy(loss(REAL_T, REAL_P, sample_weight=WEIGHTS))

    _close(value("mean"), value("sum_over_batch_size"))
    _close(value(None), value("none"))
    assert losses.MeanSquaredError(reduction=None).reduction == "none"


def test_invalid_reduction_is_rejected():
    with pytest.raises(ValueError, match="Invalid reduction 'avg'"):
        losses.MeanSquaredError(reduction="avg")


# traces losses under jax.jit.
@pytest.mark.engine("jax")
def test_losses_trace_under_jit_and_match_eager():
    import jax

    loss = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    jitted = jax.jit(lambda t, p, w: loss(t, p, sample_weight=w))
    _close(jitted(ONE_HOT, LOGITS, WEIGHTS), ops.convert_to_numpy(loss(ONE_HOT, LOGITS, WEIGHTS)))


def test_bce_from_logits_gradient_matches_formula():
    loss = losses.BinaryCrossentropy(from_logits=True)
    _, grad = backend.value_and_grad(lambda p: loss(BINARY, p))(ops.convert_to_tensor(LOGITS))
    _close(grad, (special.expit(LOGITS) - BINARY) / BINARY.size)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("mse", losses.mean_squared_error),
        ("MSE", losses.mean_squared_error),
        ("mean_squared_error", losses.mean_squared_error),
        ("mae", losses.mean_absolute_error),
        ("mape", losses.mean_absolute_percentage_error),
        ("msle", losses.mean_squared_logarithmic_error),
        ("kld", losses.kl_divergence),
        ("logcosh", losses.log_cosh),
        ("binary_crossentropy", losses.binary_crossentropy),
        ("categorical_crossentropy", losses.categorical_crossentropy),
        ("sparse_categorical_crossentropy", losses.sparse_categorical_crossentropy),
        ("hinge", losses.hinge),
    ],
)
def test_get_resolves_keras_names(name, expected):
    assert losses.get(name) is expected


def test_get_class_names_config_and_errors():
    assert isinstance(losses.get("CategoricalCrossentropy"), losses.CategoricalCrossentropy)
    config = losses.serialize(losses.Huber(delta=2.0, name="h"))
    assert config["class_name"] == "Huber" and config["module"] == "keras.losses"
    rebuilt = losses.get(config)
    assert rebuilt.get_config()["delta"] == 2.0 and rebuilt.name == "h"
    assert losses.serialize(losses.mean_squared_error) == "mean_squared_error"
    assert losses.get(None) is None
    with pytest.raises(ValueError, match="Unknown loss function: 'nope'"):
        losses.get("nope")


def test_function_wrapper_round_trips_registered_function():
    loss = losses.LossFunctionWrapper(losses.mean_absolute_error, reduction="sum")
    rebuilt = losses.deserialize(losses.serialize(loss))
    assert rebuilt.fn is losses.mean_absolute_error and rebuilt.reduction == "sum"


# check_targets: concrete targets checked against the loss on the host ------------------
def test_check_targets_accepts_valid_targets():
    losses.check_targets(losses.SparseCategoricalCrossentropy(), LABELS, PROBS)
    losses.check_targets("sparse_categorical_crossentropy", LABELS[:, None], PROBS)
    losses.check_targets(losses.CategoricalCrossentropy(), ONE_HOT, PROBS)
    losses.check_targets("mse", LABELS, PROBS)  # not a classification loss: no checks


@pytest.mark.parametrize("bad", [3, -1, 10])
def test_check_targets_rejects_sparse_labels_out_of_range(bad):
    labels = np.array([0, 1, bad, 2])
    with pytest.raises(ValueError) as err:
        losses.check_targets(losses.SparseCategoricalCrossentropy(), labels, PROBS)
    message = str(err.value)
    assert "SparseCategoricalCrossentropy" in message
    assert f"label {bad} (at index 2)" in message and "[0, 3)" in message


def test_check_targets_ignore_class_is_not_out_of_range():
    labels = np.array([0, -1, 2, -1])
    losses.check_targets(losses.SparseCategoricalCrossentropy(ignore_class=-1), labels, PROBS)
    with pytest.raises(ValueError, match="out of range"):
        losses.check_targets(losses.SparseCategoricalCrossentropy(), labels, PROBS)


def test_check_targets_rejects_one_hot_for_sparse_loss():
    with pytest.raises(ValueError, match="use CategoricalCrossentropy|Use CategoricalCrossentropy"):
        losses.check_targets(losses.SparseCategoricalCrossentropy(), ONE_HOT, PROBS)
    with pytest.raises(ValueError, match=r"received y_true of shape \(4, 3\)"):
        losses.check_targets(losses.sparse_categorical_crossentropy, ONE_HOT, PROBS)


@pytest.mark.parametrize("labels", [LABELS, LABELS[:, None]], ids=["flat", "column"])
def test_check_targets_rejects_integer_labels_for_categorical_loss(labels):
    with pytest.raises(ValueError) as err:
        losses.check_targets(losses.CategoricalCrossentropy(), labels, PROBS)
    message = str(err.value)
    assert "CategoricalCrossentropy" in message and "Use SparseCategoricalCrossentropy" in message
    assert f"received y_true of shape {labels.shape}" in message


def test_check_targets_rejects_fractional_labels_and_bad_shapes():
    with pytest.raises(ValueError, match="integer class labels, but y_true holds 1.5"):
        losses.check_targets(losses.SparseCategoricalCrossentropy(), [0.0, 1.5, 2, 0], PROBS)
    with pytest.raises(ValueError, match=r"expects integer class labels of shape \(4,\)"):
        losses.check_targets(losses.SparseCategoricalCrossentropy(), np.zeros(5), PROBS)
    with pytest.raises(ValueError, match="same shape as the predictions"):
        losses.check_targets(losses.CategoricalCrossentropy(), np.zeros((4, 5)), PROBS)


def test_check_targets_uses_only_the_prediction_shape():
    outputs = SimpleNamespace(shape=(None, C))  # like a model's output KerasTensor
    with pytest.raises(ValueError, match="out of range"):
        losses.check_targets("sparse_categorical_crossentropy", np.array([0, 7]), outputs)
    losses.check_targets("sparse_categorical_crossentropy", np.array([0, 2]), outputs)


def test_out_of_range_labels_silently_give_zero_loss_without_the_check():
    # Why check_targets exists: the compiled loss cannot raise on values.
    values = losses.sparse_categorical_crossentropy(np.array([5]), PROBS[:1])
    assert float(ops.convert_to_numpy(values)[0]) == 0.0


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_crossentropy_with_class_axis_0(from_logits):
    # Classes along axis 0: predictions (C, N), labels (N,) — a NumPy reference.
    scores = LOGITS.T if from_logits else PROBS.T
    probs = special.softmax(scores, axis=0) if from_logits else scores / scores.sum(0)
    expected = -np.log(np.clip(probs[LABELS, np.arange(N)], EPS, 1 - EPS))
    loss = losses.SparseCategoricalCrossentropy(from_logits=from_logits, axis=0, reduction="none")
    _close(loss(LABELS, scores), expected)
    _close(loss(LABELS[None, :], scores), expected)  # a unit class axis is dropped
    _close(
        losses.sparse_categorical_crossentropy(LABELS, scores, from_logits=from_logits, axis=0),
        expected,
    )
    # The host-side check reads the class axis too: labels must be < C (=3), not < N.
    losses.check_targets(losses.SparseCategoricalCrossentropy(axis=0), LABELS, scores)
    with pytest.raises(ValueError, match=r"\[0, 3\).*axis 0"):
        losses.check_targets(
            losses.SparseCategoricalCrossentropy(axis=0), np.array([0, 1, 3, 2]), scores
        )


def test_sparse_crossentropy_with_a_middle_class_axis():
    logits = RNG.standard_normal((2, C, 5)).astype("float32")
    labels = RNG.integers(0, C, (2, 5))
    log_p = logits - special.logsumexp(logits, axis=1, keepdims=True)
    expected = -np.take_along_axis(log_p, labels[:, None, :], axis=1)[:, 0, :]
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, axis=1, reduction="none")
    _close(loss(labels, logits), expected)
    with pytest.raises(ValueError, match=r"labels of shape \(2, 5\)"):
        loss(labels[:, :4], logits)
