"""pandas DataFrames and Series as op arguments: read as `np.asarray(...)`, as Keras 3's
`convert_to_tensor` reads them (JAX's own functions refuse them)."""

import numpy as np
import pytest

from lamina import ops

pd = pytest.importorskip("pandas")

SERIES = pd.Series(np.linspace(-1.0, 1.0, 6), name="a")
FRAME = pd.DataFrame({"a": np.linspace(-1.0, 1.0, 6), "b": np.arange(6.0)})


@pytest.mark.parametrize(
    "call, reference",
    [
        (lambda v: ops.sum(v), np.sum),
        (lambda v: ops.mean(v, axis=0), lambda v: np.mean(v, axis=0)),
        (lambda v: ops.tanh(v), np.tanh),
        (lambda v: ops.sigmoid(v), lambda v: 1.0 / (1.0 + np.exp(-v))),
        (lambda v: ops.add(v, v), lambda v: v + v),
        (lambda v: ops.multiply(2.0, v), lambda v: 2.0 * v),
        (lambda v: ops.max(v, axis=0, keepdims=True), lambda v: np.max(v, axis=0, keepdims=True)),
        (lambda v: ops.clip(v, x_min=-0.5, x_max=0.5), lambda v: np.clip(v, -0.5, 0.5)),
        (lambda v: ops.sort(v, axis=0), lambda v: np.sort(v, axis=0)),
        (lambda v: ops.cumsum(v, axis=0), lambda v: np.cumsum(v, axis=0)),
    ],
)
@pytest.mark.parametrize("value", [SERIES, FRAME], ids=["Series", "DataFrame"])
def test_ops_take_pandas_values(call, reference, value):
    expected = reference(value.to_numpy().astype("float32"))
    got = ops.convert_to_numpy(call(value))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_a_pandas_keyword_argument():
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.where(SERIES > 0, x1=SERIES, x2=0.0)),
        np.where(SERIES.to_numpy() > 0, SERIES.to_numpy(), 0.0),
        rtol=1e-6,
    )


def test_a_matrix_product_with_a_frame():
    w = np.ones((2, 3), "float32")
    np.testing.assert_allclose(
        ops.convert_to_numpy(ops.matmul(FRAME, w)), FRAME.to_numpy() @ w, rtol=1e-6
    )
