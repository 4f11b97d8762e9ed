"""`lamina.Variable` takes an initializer as Keras's does (issue 38 item 2): by name
(`Variable(shape=(2, 3), initializer="uniform")`, as `add_weight` takes it), as an object,
class or config, in Keras's argument order and under its names; metrics' `add_variable`
takes any initializer name too. Each is compared with Keras 3.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import initializers, ops  # noqa: E402


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def test_variable_signature_is_keras_order():
    ours = list(inspect.signature(lamina.Variable.__init__).parameters)[1:]
    theirs = list(inspect.signature(keras.Variable.__init__).parameters)[1:]
    # Keras's own arguments, in its order; `layout` (Keras's per-variable sharding)
    # is left to lamina's distribution, and `path` is lamina's, by keyword only.
    assert ours[:8] == theirs[:8]
    assert inspect.signature(lamina.Variable.__init__).parameters["path"].kind is (
        inspect.Parameter.KEYWORD_ONLY
    )
    positional = ([0.0, 1.0], (2,), "float32", False, True, "mean", "on_read", "v")
    for v in (lamina.Variable(*positional), keras.Variable(*positional)):
        assert (v.name, v.trainable, v.dtype, v.aggregation) == ("v", False, "float32", "mean")


@pytest.mark.parametrize(
    "initializer",
    ["uniform", "normal", "zeros", "ones", "glorot_uniform", "he_normal", "TruncatedNormal"],
)
def test_variable_takes_an_initializer_by_name(initializer):
    ours = lamina.Variable(shape=(20, 30), initializer=initializer)
    theirs = keras.Variable(shape=(20, 30), initializer=initializer)
    assert (ours.shape, ours.dtype) == (tuple(theirs.shape), theirs.dtype)
    # The same distribution (the seeds differ): its mean and spread.
    a, b = _np(ours), np.asarray(theirs)
    np.testing.assert_allclose(a.std(), b.std(), rtol=0.15, atol=1e-7)
    np.testing.assert_allclose(a.mean(), b.mean(), atol=max(0.25 * b.std(), 1e-7))
    if initializer == "uniform":  # Keras's "uniform" is RandomUniform(-0.05, 0.05)
        assert np.abs(a).max() <= 0.05


def test_variable_takes_an_initializer_object_class_or_config():
    expected = np.full((2, 3), 3.0, "float32")
    assert np.array_equal(
        np.asarray(keras.Variable(keras.initializers.Constant(3.0), shape=(2, 3))), expected
    )
    for given in (
        initializers.Constant(3.0),
        {"class_name": "Constant", "config": {"value": 3.0}},
        lambda shape, dtype=None: np.full(shape, 3.0, dtype),
    ):
        assert np.array_equal(_np(lamina.Variable(initializer=given, shape=(2, 3))), expected)
    ones = lamina.Variable(initializer=initializers.Ones, shape=(2,), dtype="float16")
    assert ones.dtype == "float16" and _np(ones).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="Unknown initializer"):
        lamina.Variable(initializer="no_such_initializer", shape=(2,))
    with pytest.raises(ValueError, match="needs `shape`"):
        lamina.Variable(initializer="ones")


def total_metric(mod):
    """The same metric in lamina and in Keras, with state made from initializer names."""

    class Total(mod.metrics.Metric):
        def __init__(self):
            super().__init__(name="total")
            self.a = self.add_variable(shape=(2,), initializer="glorot_uniform", name="a")
            self.b = self.add_variable(shape=(2,), initializer="ones", name="b")
            self.c = self.add_variable(
                shape=(2,), initializer=mod.initializers.Constant(2.0), name="c"
            )

        def update_state(self, x):
            self.b.assign_add(x)

        def result(self):
            return self.b

    return Total()


def test_metric_add_variable_takes_any_initializer_name():
    values = {}
    for mod in (lamina, keras):
        metric = total_metric(mod)
        metric.update_state(np.ones(2, "float32"))
        values[mod.__name__] = [np.asarray(ops.convert_to_numpy(v)) for v in metric.variables]
    ours, theirs = values["lamina"], values["keras"]
    assert np.all(np.abs(ours[0]) <= np.sqrt(6.0 / 4.0)) and np.any(ours[0] != 0.0)
    for a, b in zip(ours[1:], theirs[1:], strict=True):
        np.testing.assert_array_equal(a, b)
