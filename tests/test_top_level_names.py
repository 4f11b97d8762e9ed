"""The classes Keras 3 exports at its top level (`keras.KerasTensor`, `keras.Loss`, ...)
are lamina's own, at `lamina.<name>`, so a program written against `keras.X` runs with
only the import changed."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402

NAMES = [
    "Function",
    "Initializer",
    "Input",
    "InputSpec",
    "KerasTensor",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Operation",
    "Optimizer",
    "Regularizer",
    "Sequential",
    "StatelessScope",
    "Variable",
]


@pytest.mark.parametrize("name", NAMES)
def test_keras_top_level_name_is_exported(name):
    assert hasattr(keras, name), f"keras.{name} is a Keras 3 name"
    assert name in lamina.__all__
    assert getattr(lamina, name) is not None


def test_the_exports_are_the_classes_used_everywhere():
    assert lamina.KerasTensor is type(lamina.Input((2,)))
    assert lamina.Loss is lamina.losses.Loss and lamina.Metric is lamina.metrics.Metric
    assert lamina.Optimizer is lamina.optimizers.Optimizer
    assert lamina.InputSpec is lamina.layers.InputSpec
    assert isinstance(lamina.regularizers.L2(0.1), lamina.Regularizer)
    assert isinstance(lamina.initializers.Zeros(), lamina.Initializer)
