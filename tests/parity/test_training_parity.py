"""Losses, metrics and optimizers inside `compile` / `fit` / `evaluate` give Keras 3's
numbers (skipped without Keras).

`test_loss_metric_optimizer_parity.py` compares each loss, metric and optimizer called
directly (eagerly and in a functional model). Here the same cases run where a Keras
program meets them: in the compiled steps. Each data kind gets an identity model (its
input is the prediction) compiled with every loss of the kind (one output each) or every
metric of the kind (plain and weighted), and `evaluate` runs it over two batches with
per-sample weights, so the compiled metric state accumulates across batches; each
optimizer case trains a small Dense model with `fit` for two epochs of three batches.
Keras runs the same programs with its JAX backend in this process; its results are
cached in `.cache/parity/` (keyed by this file's source and Keras's version), so the
torch pass of `make test` reads what the JAX pass computed.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import sys

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import parity_tools as tools  # noqa: E402
from test_loss_metric_optimizer_parity import (  # noqa: E402
    _DEFAULTS,
    LOSS_CASES,
    METRIC_CASES,
    OPTIMIZER_CASES,
    SLOW,
    _data,
)

import lamina  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    # Keras hands JAX the int64 labels as they are; lamina casts them to int32 itself.
    pytest.mark.filterwarnings("ignore:Explicitly requested dtype int64:UserWarning"),
]

RTOL, ATOL = 1e-5, 1e-6


def _cached(label, compute):
    """Keras's results for `label`, computed once per source and Keras version."""
    digest = hashlib.sha256(inspect.getsource(sys.modules[__name__]).encode())
    digest.update(keras.__version__.encode())
    digest.update(label.encode())
    path = tools._CACHE / f"training-{digest.hexdigest()[:24]}.pkl"
    if tools._cache_on() and path.exists():
        return pickle.loads(path.read_bytes())
    value = compute()
    if tools._cache_on():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(value))
    return value


def _batches(kind):
    """Eight rows of the kind (two batches of four), and their weights."""
    first, second = _data(kind, seed=1), _data(kind, seed=2)
    y_true, y_pred = (np.concatenate(pair) for pair in zip(first, second, strict=True))
    # A weight per sample; per time step for the sequence kinds (Keras 3 does not spread
    # a per-sample weight over their steps).
    shape = y_true.shape[:2] if kind in ("reg3", "sparse_seq") else y_true.shape[:1]
    weights = np.random.default_rng(7).uniform(0.0, 2.0, shape).astype("f4")
    return y_true, y_pred, weights


def _identity_model(lib, y_pred, outputs: int):
    inputs = lib.Input(y_pred.shape[1:], dtype=str(y_pred.dtype), name="y_pred")
    heads = [lib.layers.Identity(name=f"out{i}")(inputs) for i in range(outputs)]
    return lib.Model(inputs, heads if outputs > 1 else heads[0])


def _as_floats(logs: dict) -> dict:
    # An unaggregated metric (`R2Score(class_aggregation=None)`) logs one value per class.
    return {k: np.asarray(v, "float64") for k, v in logs.items()}


def _compare(got: dict, want: dict, what: str, rtol=RTOL) -> list:
    problems = []
    if set(got) != set(want):
        problems.append(f"{what}: logs {sorted(got)}, Keras logs {sorted(want)}")
    for key in sorted(set(got) & set(want)):
        if np.shape(got[key]) != np.shape(want[key]) or not np.allclose(
            got[key], want[key], rtol=rtol, atol=ATOL, equal_nan=True
        ):
            problems.append(f"{what} {key}: {got[key]!r}, Keras gives {want[key]!r}")
    return problems


# --------------------------------------------------------------------------- losses

# CTC and Circle want their own label layouts batch by batch, and a loss reduced over
# another axis than the features' (`axis=0`, Dice's `(1, 2)`) cannot take a weight per
# sample (Keras refuses too); the direct harness compares those. The rest, grouped by
# data kind (one output per loss).
_LOSS_GROUPS: dict = {}
for _name, _, _kwargs, _kind in LOSS_CASES:
    if _kind not in ("ctc", "circle") and "axis" not in _kwargs:
        _LOSS_GROUPS.setdefault(_kind, []).append((_name, _kwargs))


def _evaluate_losses(lib, kind):
    y_true, y_pred, weights = _batches(kind)
    cases = _LOSS_GROUPS[kind]
    model = _identity_model(lib, y_pred, len(cases))
    losses = [getattr(lib.losses, name)(**kwargs) for name, kwargs in cases]
    model.compile(loss=losses if len(cases) > 1 else losses[0])
    targets = [y_true] * len(cases) if len(cases) > 1 else y_true
    if len(cases) > 1 and weights.ndim > 1:
        weights = [weights] * len(cases)  # one array for all outputs: per sample only
    logs = model.evaluate(
        y_pred, targets, sample_weight=weights, batch_size=4, verbose=0, return_dict=True
    )
    return _as_floats(logs)


@pytest.mark.parametrize("kind", sorted(_LOSS_GROUPS))
def test_losses_in_compiled_evaluate_match_keras(kind):
    want = _cached(f"losses-{kind}", lambda: _evaluate_losses(keras, kind))
    problems = _compare(_evaluate_losses(lamina, kind), want, f"losses of {kind}", rtol=1e-4)
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- metrics


# The metric cases but the dtype variants (their rounding is compared directly) and
# `Mean`/`Sum`, which take values rather than (y_true, y_pred).
def _takes_sample_weights(name, kwargs):
    """The IoU metrics weigh each element of the flattened labels, and a metric reduced
    over the batch axis (`axis=0`) has no per-sample value: Keras refuses a weight per
    sample for both."""
    return "IoU" not in name and kwargs.get("axis") != 0


def _compiles_in_keras(name, kwargs):
    """Keras 3.15's R2Score with `num_regressors` checks the sample count in Python, which
    fails inside its own compiled steps (a TracerBoolConversionError on JAX); lamina's runs
    (its direct comparison is in the direct harness)."""
    return not (name == "R2Score" and kwargs.get("num_regressors"))


_METRIC_GROUPS: dict = {}
for _name, _kwargs, _kind, _ in METRIC_CASES:
    if (
        "dtype" not in _kwargs
        and _kind not in ("values", "sorted_ids")
        and _compiles_in_keras(_name, _kwargs)
    ):
        _group = _METRIC_GROUPS.setdefault(_kind, [])
        # By default the first case of each class per kind (`--parity-all`: every one).
        if SLOW or all(_name != other for other, _ in _group):
            _group.append((_name, _kwargs))


def _evaluate_metrics(lib, kind):
    y_true, y_pred, weights = _batches(kind)
    cases = _METRIC_GROUPS[kind]

    def make(prefix, weighted=False):
        return [
            getattr(lib.metrics, name)(**kwargs, name=f"{prefix}{i}")
            for i, (name, kwargs) in enumerate(cases)
            if not weighted or _takes_sample_weights(name, kwargs)
        ]

    model = _identity_model(lib, y_pred, 1)
    # `metrics` ignore the sample weights, `weighted_metrics` apply them (Keras 3).
    model.compile(loss=None, metrics=make("m"), weighted_metrics=make("w", weighted=True))
    logs = model.evaluate(
        y_pred, y_true, sample_weight=weights, batch_size=4, verbose=0, return_dict=True
    )
    return _as_floats(logs)


@pytest.mark.parametrize("kind", sorted(_METRIC_GROUPS))
def test_metrics_in_compiled_evaluate_match_keras(kind):
    want = _cached(f"metrics-{kind}", lambda: _evaluate_metrics(keras, kind))
    problems = _compare(_evaluate_metrics(lamina, kind), want, f"metrics of {kind}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- optimizers

_X = np.random.default_rng(11).normal(size=(12, 3)).astype("f4")
_Y = np.random.default_rng(12).normal(size=(12, 2)).astype("f4")
_W = [
    np.array([[0.3, -0.7], [1.5, 0.2], [-0.4, 0.9]], "f4"),
    np.array([0.1, -0.2], "f4"),
]
_ADAM = ("Adam", {"learning_rate": 0.1})
# Every optimizer with its defaults and with its second config; then the base features
# whose code runs inside the compiled step (clipping, EMA and its overwrite, gradient
# accumulation, loss scaling, weight decay, a schedule) on Adam.
FIT_CASES = [
    *OPTIMIZER_CASES,
    *[
        (_ADAM[0], {**_ADAM[1], **feature})
        for feature in (
            {"clipnorm": 0.5},
            {"clipvalue": 0.3},
            {"global_clipnorm": 0.7},
            {"use_ema": True, "ema_momentum": 0.5, "ema_overwrite_frequency": 2},
            {"gradient_accumulation_steps": 2},
            {"loss_scale_factor": 4.0},
            {"weight_decay": 0.1},
        )
    ],
    ("SGD", {"momentum": 0.5, "learning_rate": "schedule"}),
]


def _optimizer(lib, name, kwargs):
    kwargs = dict(kwargs)
    if kwargs.get("learning_rate") == "schedule":
        kwargs["learning_rate"] = lib.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    return getattr(lib.optimizers, name)(**kwargs)


def _fit(lib, name, kwargs):
    inputs = lib.Input((3,))
    model = lib.Model(inputs, lib.layers.Dense(2, name="dense")(inputs))
    model.set_weights(_W)
    model.compile(optimizer=_optimizer(lib, name, kwargs), loss="mse")
    history = model.fit(_X, _Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return [np.asarray(w) for w in model.get_weights()], [float(v) for v in history.history["loss"]]


def _fit_id(case):
    name, kwargs = case
    return name + ("-" + ",".join(f"{k}={v}" for k, v in kwargs.items()) if kwargs else "")


def _fit_cases():
    """Every case with `LAMINA_SLOW_TESTS=1` (or `--parity-all`); else each optimizer
    with its defaults, and every base feature."""
    if SLOW:
        return FIT_CASES
    return FIT_CASES[:_DEFAULTS] + FIT_CASES[len(OPTIMIZER_CASES) :]


@pytest.mark.parametrize("case", _fit_cases(), ids=_fit_id)
def test_optimizer_in_fit_matches_keras(case):
    name, kwargs = case
    want_weights, want_losses = _cached(f"fit-{_fit_id(case)}", lambda: _fit(keras, name, kwargs))
    weights, losses = _fit(lamina, name, kwargs)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4, err_msg=f"{name}: epoch losses")
    for i, (got, want) in enumerate(zip(weights, want_weights, strict=True)):
        # Six float32 steps of size ~0.1: a weight that lands near zero keeps ~1e-6 of
        # rounding from the order of operations.
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"{name}: weight {i}")
