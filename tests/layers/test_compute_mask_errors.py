"""A bug in a layer's `compute_mask` surfaces at the symbolic call, as in Keras."""

import sys

import numpy as np
import pytest

import lamina
from lamina import layers, ops


class BrokenMask(layers.Layer):
    def __init__(self, error, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.error = error

    def call(self, inputs):
        return inputs

    def compute_mask(self, inputs, previous_mask=None):
        if self.error == "zero":
            return 1 / 0
        return previous_mask.no_such_attribute


@pytest.mark.parametrize(
    "error, expected", [("zero", ZeroDivisionError), ("attribute", AttributeError)]
)
def test_a_bug_in_compute_mask_propagates_from_a_symbolic_call(error, expected):
    inputs = lamina.Input((3,))
    masked = layers.Masking()(inputs)
    with pytest.raises(expected) as info:
        BrokenMask(error, name="broken")(masked)
    if sys.version_info >= (3, 11):
        assert "'broken'" in "".join(info.value.__notes__)


def test_a_bug_in_compute_mask_propagates_without_an_input_mask():
    with pytest.raises(ZeroDivisionError):
        BrokenMask("zero")(lamina.Input((3,)))


def test_a_working_compute_mask_still_gives_the_symbolic_mask():
    class FirstFeatureMask(layers.Layer):
        def call(self, inputs):
            return inputs

        def compute_mask(self, inputs, previous_mask=None):
            return ops.not_equal(inputs[:, 0], 0)

    inputs = lamina.Input((3,))
    out = FirstFeatureMask()(inputs)
    assert out._keras_mask.shape == (None,)
    model = lamina.Model(inputs, out)
    assert model(np.ones((2, 3))).shape == (2, 3)
