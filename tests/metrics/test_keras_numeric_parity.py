"""A Keras 3 program that switches its import gets Keras's numbers (skipped without Keras).

Each case builds the same object in Keras (JAX backend) and in lamina (the engine under
test) from the same arguments, feeds both the same seeded inputs and compares the values
(rtol 1e-5 in float32) and the configs: losses (classes and functions, every reduction,
`sample_weight` of several ranks), metrics (several `update_state` calls, then
`reset_state`), optimizers (a few steps from the same weights and gradients, with each
base feature), learning-rate schedules and activations. A config Keras serializes must
deserialize in lamina to the same object.

The full sweep runs with `LAMINA_SLOW_TESTS=1`; by default a seeded sample of the cases
runs, so both engines stay within seconds.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

SLOW = os.environ.get("LAMINA_SLOW_TESTS") == "1"
RTOL, ATOL = 1e-5, 1e-6


def _sample(cases, fraction):
    """All cases with LAMINA_SLOW_TESTS=1, else a seeded sample (always the first one)."""
    if SLOW or fraction >= 1:
        return cases
    keep = random.Random(0).sample(range(1, len(cases)), int((len(cases) - 1) * fraction))
    return [cases[0]] + [cases[i] for i in sorted(keep)]


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray) and "lamina" in type(x).__module__:
        x = x.numpy()
    try:
        return np.asarray(ops.convert_to_numpy(x))
    except Exception:
        return np.asarray(keras.ops.convert_to_numpy(x))


def _kn(x):
    return np.asarray(keras.ops.convert_to_numpy(x))


def _close(got, want, what, rtol=RTOL, atol=ATOL):
    got, want = np.asarray(got, "float64"), np.asarray(want, "float64")
    assert got.shape == want.shape, f"{what}: shape {got.shape}, Keras gives {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _both(what, keras_call, lamina_call, *args, **kwargs):
    """Compare two calls. Where Keras refuses the input there is nothing to compare:
    lamina may take more (per-sample weights on a sequence loss: Keras's NumPy
    broadcasting refuses `(batch,)` against `(batch, time)`)."""
    try:
        want = keras_call(*args, **kwargs)
    except Exception as keras_error:
        return keras_error
    try:
        got = lamina_call(*args, **kwargs)
    except Exception as error:
        raise AssertionError(f"{what}: Keras gives a value, lamina raises {error!r}") from error
    if isinstance(want, (list, tuple)):
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(_np(g), _kn(w), f"{what}[{i}]")
    else:
        _close(_np(got), _kn(want), what)
    return None


def _plain(value):
    """A config value in comparable form (tuples as lists, NumPy scalars as Python)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float):
        return round(value, 6)
    return value


def _same_config(lamina_config, keras_config, what, ignore=()):
    """Every key Keras writes, with Keras's value; lamina may write more (Keras drops
    some arguments from its configs, `Huber`'s `delta` for one), never fewer."""
    lam, ker = _plain(lamina_config), _plain(keras_config)
    for key, value in ker.items():
        if key in ignore:
            continue
        assert key in lam, f"{what}: lamina config lacks {key!r} (Keras: {value!r})"
        assert lam[key] == value, f"{what}: config {key}={lam[key]!r}, Keras gives {value!r}"


# --------------------------------------------------------------------------- data kinds

R = np.random.default_rng(0)


def _data(kind, batch=4, seed=0):
    """(y_true, y_pred) of a kind, seeded; one batch of 4 (or 2 for sequences)."""
    r = np.random.default_rng(seed)
    if kind == "reg":
        return r.uniform(0.1, 2, (batch, 3)).astype("f4"), r.uniform(0.1, 2, (batch, 3)).astype(
            "f4"
        )
    if kind == "reg_neg":
        return r.normal(size=(batch, 3)).astype("f4"), r.normal(size=(batch, 3)).astype("f4")
    if kind == "reg3":
        return r.normal(size=(batch, 2, 3)).astype("f4"), r.normal(size=(batch, 2, 3)).astype("f4")
    if kind == "reg1":
        return r.normal(size=(batch,)).astype("f4"), r.normal(size=(batch,)).astype("f4")
    if kind == "bin":
        return r.integers(0, 2, (batch, 3)).astype("f4"), r.uniform(0.05, 0.95, (batch, 3)).astype(
            "f4"
        )
    if kind == "bin1":
        return r.integers(0, 2, (batch, 1)).astype("f4"), r.uniform(0.05, 0.95, (batch, 1)).astype(
            "f4"
        )
    if kind == "bin_vec":
        return r.integers(0, 2, (batch,)).astype("f4"), r.uniform(0.05, 0.95, (batch,)).astype("f4")
    if kind == "logit":
        return r.integers(0, 2, (batch, 3)).astype("f4"), r.normal(0, 2, (batch, 3)).astype("f4")
    if kind == "pm1":
        return (2 * r.integers(0, 2, (batch, 3)) - 1).astype("f4"), r.normal(
            size=(batch, 3)
        ).astype("f4")
    if kind in ("cat", "cat_logit"):
        labels = r.integers(0, 3, batch)
        logits = r.normal(0, 2, (batch, 3)).astype("f4")
        probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        return np.eye(3, dtype="f4")[labels], (
            logits if kind == "cat_logit" else probs.astype("f4")
        )
    if kind in ("cat5",):
        labels = r.integers(0, 5, batch)
        return np.eye(5, dtype="f4")[labels], r.uniform(size=(batch, 5)).astype("f4")
    if kind in ("sparse", "sparse_logit", "sparse2d", "sparse5"):
        classes = 5 if kind == "sparse5" else 3
        labels = r.integers(0, classes, batch)
        logits = r.normal(0, 2, (batch, classes)).astype("f4")
        probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        y_pred = logits if kind == "sparse_logit" else probs.astype("f4")
        if kind == "sparse2d":
            return labels[:, None].astype("f4"), y_pred
        return labels, y_pred
    if kind == "sparse_seq":
        labels = r.integers(0, 3, (batch, 2))
        logits = r.normal(0, 2, (batch, 2, 3)).astype("f4")
        return labels, logits
    if kind == "seg":
        return r.integers(0, 2, (batch, 3, 3, 2)).astype("f4"), r.uniform(
            size=(batch, 3, 3, 2)
        ).astype("f4")
    if kind == "ctc":
        labels = np.array([[1, 2, 0], [2, 2, 1], [1, 0, 0], [3, 1, 2]][:batch], "int32")
        return labels, r.normal(size=(batch, 6, 4)).astype("f4")
    if kind == "circle":
        return r.integers(0, 2, batch).astype("int32"), r.normal(size=(batch, 3)).astype("f4")
    if kind == "int3":
        return r.integers(0, 3, (batch, 3)).astype("int32"), r.integers(0, 3, (batch, 3)).astype(
            "int32"
        )
    raise AssertionError(kind)


WEIGHTS = {
    None: None,
    "vec": np.array([1.0, 0.0, 2.0, 0.5], "f4"),
    "col": np.array([[1.0], [0.0], [2.0], [0.5]], "f4"),
    "scalar": np.float32(0.7),
    "full": np.random.default_rng(5).uniform(size=(4, 3)).astype("f4"),
    "seq": np.random.default_rng(5).uniform(size=(4, 2)).astype("f4"),
}


# --------------------------------------------------------------------------- losses

# (class, function, constructor kwargs, data kind); the function is called with the
# kwargs it takes, the class with each sample_weight form of the data's rank.
LOSS_CASES = [
    ("MeanSquaredError", "mean_squared_error", {}, "reg"),
    ("MeanSquaredError", "mean_squared_error", {}, "reg3"),
    ("MeanSquaredError", "mean_squared_error", {}, "reg1"),
    ("MeanAbsoluteError", "mean_absolute_error", {}, "reg_neg"),
    ("MeanAbsolutePercentageError", "mean_absolute_percentage_error", {}, "reg_neg"),
    ("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", {}, "reg"),
    ("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", {}, "reg_neg"),
    ("CosineSimilarity", "cosine_similarity", {}, "reg_neg"),
    ("CosineSimilarity", "cosine_similarity", {"axis": 0}, "reg_neg"),
    ("CosineSimilarity", "cosine_similarity", {"axis": 1}, "reg3"),
    ("Huber", "huber", {}, "reg_neg"),
    ("Huber", "huber", {"delta": 0.3}, "reg_neg"),
    ("LogCosh", "log_cosh", {}, "reg_neg"),
    ("Poisson", "poisson", {}, "reg"),
    ("KLDivergence", "kl_divergence", {}, "cat"),
    ("KLDivergence", "kl_divergence", {}, "reg_neg"),
    ("Hinge", "hinge", {}, "bin"),
    ("Hinge", "hinge", {}, "pm1"),
    ("SquaredHinge", "squared_hinge", {}, "bin"),
    ("SquaredHinge", "squared_hinge", {}, "pm1"),
    ("CategoricalHinge", "categorical_hinge", {}, "cat"),
    ("BinaryCrossentropy", "binary_crossentropy", {}, "bin"),
    ("BinaryCrossentropy", "binary_crossentropy", {}, "bin_vec"),
    ("BinaryCrossentropy", "binary_crossentropy", {"from_logits": True}, "logit"),
    ("BinaryCrossentropy", "binary_crossentropy", {"label_smoothing": 0.2}, "bin"),
    (
        "BinaryCrossentropy",
        "binary_crossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        "logit",
    ),
    ("BinaryCrossentropy", "binary_crossentropy", {"axis": 0}, "bin"),
    ("BinaryFocalCrossentropy", "binary_focal_crossentropy", {}, "bin"),
    (
        "BinaryFocalCrossentropy",
        "binary_focal_crossentropy",
        {"apply_class_balancing": True, "alpha": 0.4},
        "bin",
    ),
    (
        "BinaryFocalCrossentropy",
        "binary_focal_crossentropy",
        {"gamma": 0.5, "from_logits": True},
        "logit",
    ),
    (
        "BinaryFocalCrossentropy",
        "binary_focal_crossentropy",
        {"label_smoothing": 0.3, "apply_class_balancing": True},
        "logit",
    ),
    ("CategoricalCrossentropy", "categorical_crossentropy", {}, "cat"),
    ("CategoricalCrossentropy", "categorical_crossentropy", {"from_logits": True}, "cat_logit"),
    ("CategoricalCrossentropy", "categorical_crossentropy", {"label_smoothing": 0.2}, "cat"),
    (
        "CategoricalCrossentropy",
        "categorical_crossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        "cat_logit",
    ),
    ("CategoricalCrossentropy", "categorical_crossentropy", {"axis": 0}, "cat"),
    ("CategoricalCrossentropy", "categorical_crossentropy", {}, "reg"),
    ("CategoricalFocalCrossentropy", "categorical_focal_crossentropy", {}, "cat"),
    (
        "CategoricalFocalCrossentropy",
        "categorical_focal_crossentropy",
        {"alpha": 0.5, "gamma": 1.0, "from_logits": True},
        "cat_logit",
    ),
    (
        "CategoricalFocalCrossentropy",
        "categorical_focal_crossentropy",
        {"label_smoothing": 0.2},
        "cat",
    ),
    ("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", {}, "sparse"),
    ("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", {}, "sparse2d"),
    (
        "SparseCategoricalCrossentropy",
        "sparse_categorical_crossentropy",
        {"from_logits": True},
        "sparse_logit",
    ),
    (
        "SparseCategoricalCrossentropy",
        "sparse_categorical_crossentropy",
        {"ignore_class": 1},
        "sparse",
    ),
    (
        "SparseCategoricalCrossentropy",
        "sparse_categorical_crossentropy",
        {"ignore_class": 2, "from_logits": True},
        "sparse_seq",
    ),
    (
        "SparseCategoricalCrossentropy",
        "sparse_categorical_crossentropy",
        {"from_logits": True},
        "sparse_seq",
    ),
    ("CategoricalGeneralizedCrossEntropy", "categorical_generalized_cross_entropy", {}, "sparse"),
    (
        "CategoricalGeneralizedCrossEntropy",
        "categorical_generalized_cross_entropy",
        {"q": 0.8},
        "sparse",
    ),
    ("Dice", "dice", {}, "seg"),
    ("Dice", "dice", {"axis": (1, 2)}, "seg"),
    ("Dice", "dice", {"axis": (1, 2, 3)}, "seg"),
    ("Tversky", "tversky", {}, "seg"),
    ("Tversky", "tversky", {"alpha": 0.3, "beta": 0.7}, "seg"),
    ("Tversky", "tversky", {"alpha": 0.3, "beta": 0.7, "axis": (1, 2)}, "seg"),
    ("CTC", "ctc", {}, "ctc"),
    ("Circle", "circle", {}, "circle"),
    ("Circle", "circle", {"gamma": 2.0, "margin": 0.2, "remove_diagonal": False}, "circle"),
]
FN_ONLY = {"reduction", "name", "dtype"}
REDUCTIONS = ["sum_over_batch_size", "sum", "mean", "none", "mean_with_sample_weight"]


def _weights_for(kind):
    y_true, _ = _data(kind)
    if kind in ("reg1", "bin_vec", "sparse", "sparse_logit", "sparse2d", "circle", "ctc"):
        return [None, "vec", "scalar"]
    if kind in ("reg3", "sparse_seq"):
        return [None, "vec", "seq"]
    if y_true.ndim == 2:
        return [None, "vec", "col", "full", "scalar"]
    return [None, "vec"]


def _loss_id(case):
    name, _, kwargs, kind = case
    return f"{name}-{kind}-" + ",".join(f"{k}={v}" for k, v in kwargs.items())


@pytest.mark.parametrize("case", _sample(LOSS_CASES, 1.0), ids=_loss_id)
def test_loss_matches_keras(case):
    name, fn_name, kwargs, kind = case
    y_true, y_pred = _data(kind)
    k_loss, l_loss = getattr(keras.losses, name)(**kwargs), getattr(lamina.losses, name)(**kwargs)
    for w in _weights_for(kind):
        sw = WEIGHTS[w]
        _both(f"{name}(sample_weight={w})", k_loss, l_loss, y_true, y_pred, sample_weight=sw)
    fn_kwargs = {k: v for k, v in kwargs.items() if k not in FN_ONLY}
    k_fn, l_fn = getattr(keras.losses, fn_name), getattr(lamina.losses, fn_name)
    _both(fn_name, k_fn, l_fn, y_true, y_pred, **fn_kwargs)
    _same_config(l_loss.get_config(), k_loss.get_config(), name)
    # And the other way: Keras takes lamina's config (a file lamina saved loads in Keras).
    type(k_loss).from_config(l_loss.get_config())
    # Keras drops some arguments from its own configs (Huber's delta, CosineSimilarity's
    # axis): a loss rebuilt from Keras's config is compared with Keras's own rebuild.
    config = keras.losses.serialize(k_loss)
    again = lamina.losses.deserialize(config)
    assert type(again) is type(l_loss)
    try:
        want = keras.losses.deserialize(config)(y_true, y_pred)
    except TypeError:  # Keras cannot rebuild CategoricalGeneralizedCrossEntropy itself
        want = k_loss(y_true, y_pred)
    _close(_np(again(y_true, y_pred)), _kn(want), f"{name} from Keras config")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "case",
    [LOSS_CASES[0], LOSS_CASES[1], LOSS_CASES[40], LOSS_CASES[43], LOSS_CASES[48]],
    ids=_loss_id,
)
def test_loss_reduction_matches_keras(case, reduction):
    name, _, kwargs, kind = case
    y_true, y_pred = _data(kind)
    k_loss = getattr(keras.losses, name)(reduction=reduction, **kwargs)
    l_loss = getattr(lamina.losses, name)(reduction=reduction, **kwargs)
    for w in _weights_for(kind):
        if w == "scalar" and reduction == "mean_with_sample_weight":
            # Keras divides by the weight as given (0.7), not by the weight of the batch
            # (4 * 0.7): its result is the plain sum. lamina gives the weighted mean.
            continue
        sw = WEIGHTS[w]
        _both(f"{name}({reduction}, {w})", k_loss, l_loss, y_true, y_pred, sample_weight=sw)
    _same_config(l_loss.get_config(), k_loss.get_config(), name)


def test_loss_dtype_matches_keras():
    y_true, y_pred = _data("reg")
    for dtype in ("float16", "bfloat16", "float32"):
        k = keras.losses.MeanSquaredError(dtype=dtype)(y_true, y_pred)
        lam = lamina.losses.MeanSquaredError(dtype=dtype)(y_true, y_pred)
        assert ops.dtype(lam) == keras.ops.dtype(k), dtype
        _close(_np(ops.cast(lam, "float32")), _kn(keras.ops.cast(k, "float32")), dtype, rtol=1e-2)
