"""Graphs holding an op whose output shape depends on the values (`ops.unique`,
`ops.nonzero`, `ops.where(condition)`, `ops.bincount` without `minlength`).

`model(x)` on data runs them as Keras 3 does on every engine: eagerly, op by op (on JAX
the compiled fast path is not taken for such a graph). A compiled `predict`/`evaluate`
cannot trace them: on JAX that is a clear error naming the op and the fix
(`compile(run_eagerly=True)`), which then gives the right values.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops

DATA = np.array([[3.0, 1.0, 0.0, 3.0, 2.0, 0.0]], "float32")


def _model(fn, name=None):
    x = lamina.Input((6,))
    return lamina.Model(x, fn(x), name=name)


def _numpy(values):
    return [np.asarray(ops.convert_to_numpy(v)) for v in values]


def test_unique_on_data_matches_numpy():
    model = _model(lambda x: ops.unique(x[0]))
    out = ops.convert_to_numpy(model(DATA))
    np.testing.assert_array_equal(out, np.unique(DATA[0]))
    assert model.call_function is None  # not compiled: run op by op


def test_nonzero_on_data_matches_numpy():
    model = _model(lambda x: ops.nonzero(x))
    rows, cols = _numpy(model(DATA))
    want_rows, want_cols = np.nonzero(DATA)
    np.testing.assert_array_equal(rows, want_rows)
    np.testing.assert_array_equal(cols, want_cols)


def test_where_condition_on_data_matches_numpy_nonzero():
    model = _model(lambda x: ops.where(x > 1.0))
    rows, cols = _numpy(model(DATA))
    want_rows, want_cols = np.nonzero(DATA > 1.0)
    np.testing.assert_array_equal(rows, want_rows)
    np.testing.assert_array_equal(cols, want_cols)


def test_bincount_without_minlength_on_data_matches_numpy():
    model = _model(lambda x: ops.bincount(ops.cast(x[0], "int32")))
    out = ops.convert_to_numpy(model(DATA))
    np.testing.assert_array_equal(out, np.bincount(DATA[0].astype("int64")))


def test_value_dependent_op_after_a_layer_and_in_a_nested_model():
    inner = _model(lambda x: ops.unique(x[0]), name="inner")
    x = lamina.Input((6,))
    h = layers.Dense(6, kernel_initializer="identity", name="same")(x)
    outer = lamina.Model(x, inner(h) * 2.0)
    if lamina.backend.backend() == "jax":  # torch's stand-in evaluation says (1,)
        assert tuple(outer.outputs[0].shape) == (None,)
    out = ops.convert_to_numpy(outer(DATA))
    np.testing.assert_allclose(out, np.unique(DATA[0]) * 2.0)
    np.testing.assert_array_equal(ops.convert_to_numpy(inner(DATA)), np.unique(DATA[0]))


def test_fixed_size_variants_keep_the_compiled_path():
    unique = _model(lambda x: ops.unique(x[0], size=4, fill_value=-1.0))
    counts = _model(lambda x: ops.bincount(ops.cast(x, "int32"), minlength=4))
    np.testing.assert_array_equal(ops.convert_to_numpy(unique(DATA)), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ops.convert_to_numpy(counts(DATA)), [[2, 1, 1, 2]])
    picked = _model(lambda x: ops.where(x > 1.0, x, 0.0))
    np.testing.assert_array_equal(ops.convert_to_numpy(picked(DATA)), np.where(DATA > 1, DATA, 0))
    if not lamina.backend.execution.STATEFUL:
        for model in (unique, counts, picked):
            assert model.call_function.trace_count == 1


@pytest.mark.engine("jax")
def test_ordinary_model_still_compiles_its_call():
    x = lamina.Input((6,))
    model = lamina.Model(x, layers.Dense(2)(x))
    model(DATA)
    model(DATA + 1.0)
    assert model.call_function is not None
    assert model.call_function.trace_count == 1


@pytest.mark.engine("jax")
def test_compiled_predict_names_the_op_and_the_fix():
    model = _model(lambda x: ops.unique(x[0]), name="uniq")
    op_name = model._function.nodes[-1].operation.name
    with pytest.raises(ValueError, match="run_eagerly=True") as info:
        model.predict(DATA, verbose=0)
    message = str(info.value)
    assert op_name in message and "'uniq'" in message and "depends on the values" in message


@pytest.mark.engine("jax")
def test_compiled_evaluate_names_the_op_in_a_nested_model():
    inner = _model(lambda x: ops.nonzero(x)[1], name="inner")
    x = lamina.Input((6,))
    outer = lamina.Model(x, inner(x), name="outer")
    outer.compile(loss="mse")
    with pytest.raises(ValueError, match="nonzero.*'inner'"):
        outer.evaluate(DATA, np.zeros((1, 4), "float32"), verbose=0)


@pytest.mark.parametrize("option", ["run_eagerly", "jit_compile"])
def test_predict_run_eagerly_gives_the_values(option):
    model = _model(lambda x: ops.unique(x[0]))
    model.compile(**{option: option == "run_eagerly"})
    out = model.predict(DATA, verbose=0)
    np.testing.assert_array_equal(out, np.unique(DATA[0]))


@pytest.mark.engine("jax")
def test_other_trace_errors_are_not_rewritten():
    # A model with a value-dependent op whose failure under trace comes from elsewhere
    # keeps that error (here: a layer that reads a value in Python).
    class ReadsValue(layers.Layer):
        def call(self, x):
            return x * float(ops.sum(x))

        def compute_output_shape(self, input_shape):
            return input_shape

    x = lamina.Input((6,))
    model = lamina.Model(x, ops.unique(ReadsValue()(x)[0]))
    with pytest.raises(TypeError, match="concrete") as info:  # JAX's own error
        model.predict(DATA, verbose=0)
    assert "run_eagerly=True" not in str(info.value)
    np.testing.assert_array_equal(  # and `model(x)` runs op by op
        ops.convert_to_numpy(model(DATA)), np.unique(DATA[0] * DATA.sum())
    )
