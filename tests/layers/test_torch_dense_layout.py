"""`Dense` and convolution kernels on torch are stored as torch's modules store theirs.

`Dense`: column-major, as `nn.Linear` holds its weight. `Conv`: `(out, in, *spatial)`
in memory, as `nn.Conv2d` does, where the layer's kernel is `(*spatial, in, out)`.

`x @ kernel` on a row-major `(in, out)` kernel runs a slower GEMM form on CPU than
`nn.Linear`'s `x @ weight.T` (about 10% for 512x512, 60% for 512x10); storing the kernel
column-major (`Variable._store_for`) makes lamina's product torch's own, forward
and backward. Nothing a user reads changes: shape, values, `get_weights()` (C-ordered
arrays), saving and loading. The optimizer's slots follow the kernel's layout
(`Variable._store_like`), and so do the gradients a data-parallel job averages
(`tests/distribution/test_torch_gradient_buckets.py`). Checked here against NumPy: the
values kept, and two Adam steps of a linear model.
"""

import numpy as np
import pytest

import lamina
from lamina import layers

pytestmark = pytest.mark.engine("torch")

RNG = np.random.default_rng(3)
KERNEL = RNG.standard_normal((5, 4)).astype("float32")


def _dense():
    layer = layers.Dense(4, kernel_initializer=lamina.initializers.Constant(KERNEL))
    layer.build((None, 5))
    return layer


def _param(variable):
    return variable.value


def test_the_kernel_is_column_major_and_reads_as_it_was_made():
    layer = _dense()
    kernel = _param(layer.kernel)
    assert tuple(kernel.shape) == (5, 4)
    assert kernel.stride() == (1, 5)
    np.testing.assert_array_equal(kernel.detach().numpy(), KERNEL)
    weights = layer.get_weights()[0]
    assert weights.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(weights, KERNEL)
    # The tensor `parameters()` gives is the stored one.
    assert any(p is kernel for p in layer.parameters())
    x = RNG.standard_normal((3, 5)).astype("float32")
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(layer(x)), x @ KERNEL, rtol=1e-6, atol=1e-6
    )


def test_writes_keep_the_layout():
    layer = _dense()
    new = RNG.standard_normal((5, 4)).astype("float32")
    layer.set_weights([new, np.zeros(4, "float32")])
    assert _param(layer.kernel).stride() == (1, 5)
    np.testing.assert_array_equal(layer.get_weights()[0], new)
    state = [v.clone() for v in layer.state_dict().values()]
    other = _dense()
    other.load_state_dict(dict(zip(other.state_dict(), state, strict=True)))
    assert _param(other.kernel).stride() == (1, 5)
    np.testing.assert_array_equal(other.get_weights()[0], new)


def test_a_vector_or_a_single_row_kernel_keeps_its_layout():
    for units, inputs in ((1, 5), (4, 1)):
        layer = layers.Dense(units)
        layer.build((None, inputs))
        assert _param(layer.kernel).is_contiguous()


def test_adam_slots_follow_the_kernel_and_two_steps_match_numpy(tmp_path):
    x = RNG.standard_normal((8, 5)).astype("float32")
    y = RNG.standard_normal((8, 4)).astype("float32")
    model = lamina.Sequential([lamina.Input((5,)), _dense()])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse")
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    kernel = model.layers[0].kernel
    slots = [v for v in model.optimizer.variables if tuple(v.shape) == (5, 4)]
    assert len(slots) == 2 and all(_param(v).stride() == (1, 5) for v in slots)

    # NumPy: Adam (Keras's epsilon placement) on mean((x @ w + b - y)^2).
    w, b = KERNEL.astype("float64"), np.zeros(4)
    state = {"w": [np.zeros_like(w), np.zeros_like(w)], "b": [np.zeros(4), np.zeros(4)]}
    for step in range(1, 3):
        err = x @ w + b - y
        grads = {"w": x.T @ err * 2 / err.size, "b": err.sum(0) * 2 / err.size}
        params = {"w": w, "b": b}
        for name, g in grads.items():
            m, v = state[name]
            m[...] = 0.9 * m + 0.1 * g
            v[...] = 0.999 * v + 0.001 * g * g
            rate = 0.01 * np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
            params[name] = params[name] - rate * m / (np.sqrt(v) + 1e-7)
        w, b = params["w"], params["b"]
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(kernel), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(model.layers[0].bias), b, rtol=1e-5, atol=1e-6
    )

    # Saved and loaded: the same values, in a new model's column-major kernel.
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = lamina.models.load_model(path)
    assert _param(loaded.layers[0].kernel).stride() == (1, 5)
    np.testing.assert_array_equal(
        loaded.layers[0].get_weights()[0], lamina.ops.convert_to_numpy(kernel)
    )
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def _numpy_conv2d(x, kernel, bias):
    kh, kw = kernel.shape[:2]
    rows, cols = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], rows, cols, kernel.shape[-1]))
    for i in range(rows):
        for j in range(cols):
            patch = x[:, i : i + kh, j : j + kw, :]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, kernel)
    return out + bias


def test_a_conv_kernel_is_stored_as_torch_stores_its_weight():
    kernel = RNG.standard_normal((3, 3, 2, 4)).astype("float32")
    bias = RNG.standard_normal(4).astype("float32")
    model = lamina.Sequential(
        [
            lamina.Input((6, 6, 2)),
            layers.Conv2D(
                4,
                3,
                kernel_initializer=lamina.initializers.Constant(kernel),
                bias_initializer=lamina.initializers.Constant(bias),
            ),
            layers.Flatten(),
        ]
    )
    stored = _param(model.layers[0].kernel)
    assert tuple(stored.shape) == (3, 3, 2, 4)
    assert stored.permute(3, 2, 0, 1).is_contiguous()
    assert model.layers[0].get_weights()[0].flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(model.layers[0].get_weights()[0], kernel)
    x = RNG.standard_normal((2, 6, 6, 2)).astype("float32")
    expected = _numpy_conv2d(x, kernel, bias).reshape(2, -1)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-5)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, np.zeros((2, 64), "float32"), epochs=1, verbose=0)
    for slot in model.optimizer.variables:
        if tuple(slot.shape) == (3, 3, 2, 4):
            assert _param(slot).stride() == stored.stride()
    assert _param(model.layers[0].kernel).stride() == stored.stride()
