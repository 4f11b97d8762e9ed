"""`SeedGenerator(seed=None, name=None, **kwargs)` takes Keras 3's keyword arguments:
`backend=` (lamina's own backend module, or None) and nothing else, as in Keras."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops.random import SeedGenerator

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


def _draws(gen):
    return [ops.convert_to_numpy(lamina.random.normal((3,), seed=gen)) for _ in range(2)]


def test_backend_argument_is_the_engine_module_or_none():
    plain = SeedGenerator(7)
    for value in (None, lamina.backend):
        gen = SeedGenerator(7, name="sg", backend=value)
        assert gen.backend is lamina.backend and gen.name == "sg"
        np.testing.assert_array_equal(np.stack(_draws(gen)), np.stack(_draws(SeedGenerator(7))))
    assert plain.backend is lamina.backend
    keras.random.SeedGenerator(7, backend=None)  # Keras accepts the same


def test_other_backends_are_refused_by_name():
    import keras.src.backend as keras_backend

    keras.random.SeedGenerator(7, backend=keras_backend)  # Keras's own module works there
    with pytest.raises(ValueError, match=r"backend=.*keras\.src\.backend.*lamina\.backend"):
        SeedGenerator(7, backend=keras_backend)
    with pytest.raises(ValueError, match=r"backend=.*'torch'.*lamina\.backend"):
        SeedGenerator(7, backend="torch")


@pytest.mark.parametrize("kwargs", [{"dtype": "int32"}, {"foo": 1, "bar": 2}])
def test_unknown_keyword_arguments_are_refused_as_in_keras(kwargs):
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        keras.random.SeedGenerator(1, **kwargs)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments") as info:
        SeedGenerator(1, **kwargs)
    for key in kwargs:
        assert repr(key) in str(info.value)


def test_a_model_with_a_generator_still_deepcopies():
    import copy

    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dropout(0.5, seed=1)])
    clone = copy.deepcopy(model)
    assert clone.layers[0] is not model.layers[0]
