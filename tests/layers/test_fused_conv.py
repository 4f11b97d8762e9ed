"""torch's convolution layers add their bias inside torch's convolution kernel
(`backend.nn.fused_conv`), as `nn.Conv2d` does, instead of a second pass over the output.

The kernel must give what `conv` followed by the bias gives: checked against a NumPy
convolution, and its gradients against the composite's autograd gradients, for both data
formats, strides, dilation, groups and the three paddings.
"""

import numpy as np
import pytest

import lamina
from lamina import layers

RNG = np.random.default_rng(5)


def _numpy_conv(x, kernel, bias, strides, padding, dilation, channels_first):
    """Cross-correlation of channels-last `x` (batch, *spatial, in) with a
    `(*spatial, in / groups, out)` kernel, plus `bias`, in float64."""
    if channels_first:
        x = np.moveaxis(x, 1, -1)
    n = x.ndim - 2
    spatial = kernel.shape[:n]
    reach = [(k - 1) * d + 1 for k, d in zip(spatial, dilation, strict=True)]
    if padding == "same":
        pads = []
        for size, r, s in zip(x.shape[1:-1], reach, strides, strict=True):
            total = max((-(-size // s) - 1) * s + r - size, 0)
            pads.append((total // 2, total - total // 2))
    elif padding == "causal":
        pads = [(reach[0] - 1, 0)]
    else:
        pads = [(0, 0)] * n
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    group_in, out = kernel.shape[-2], kernel.shape[-1]
    groups = x.shape[-1] // group_in
    per_group = out // groups
    out_spatial = [
        (size - r) // s + 1 for size, r, s in zip(x.shape[1:-1], reach, strides, strict=True)
    ]
    y = np.zeros((x.shape[0], *out_spatial, out))
    for index in np.ndindex(*out_spatial):
        window = tuple(
            slice(i * s, i * s + r, d)
            for i, s, r, d in zip(index, strides, reach, dilation, strict=True)
        )
        patch = x[(slice(None), *window)]  # (batch, *spatial, in)
        for g in range(groups):
            cols = slice(g * per_group, (g + 1) * per_group)
            part = patch[..., g * group_in : (g + 1) * group_in]
            y[(slice(None), *index, cols)] = np.tensordot(
                part, kernel[..., cols], axes=(list(range(1, n + 2)), list(range(n + 1)))
            )
    y = y + bias
    return np.moveaxis(y, -1, 1) if channels_first else y


CASES = [
    # (input shape channels-last, kernel spatial, filters, strides, padding, dilation, groups)
    ((2, 7, 3), (3,), 4, (1,), "causal", (2,), 1),
    ((2, 6, 5, 4), (3, 2), 6, (2, 1), "same", (1, 1), 2),
    ((1, 5, 6, 3), (2, 3), 5, (1, 2), "valid", (1, 1), 1),
]


@pytest.mark.engine("torch")
@pytest.mark.parametrize("channels_first", [False, True])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{len(c[0]) - 2}d-{c[4]}")
def test_the_fused_kernel_matches_numpy_and_the_composites_gradients(case, channels_first):
    import torch

    from lamina.backend.torch import nn as torch_nn

    shape, spatial, filters, strides, padding, dilation, groups = case
    if channels_first and padding == "causal":
        pytest.skip("causal padding is a channels-last 1-D case")
    x = RNG.standard_normal(shape).astype("float32")
    kernel = RNG.standard_normal((*spatial, shape[-1] // groups, filters)).astype("float32")
    bias = RNG.standard_normal(filters).astype("float32")
    xin = np.moveaxis(x, -1, 1).copy() if channels_first else x
    expected = _numpy_conv(
        xin.astype("float64"),
        kernel.astype("float64"),
        bias,
        strides,
        padding,
        dilation,
        channels_first,
    )
    fmt = "channels_first" if channels_first else "channels_last"
    options = dict(strides=strides, padding=padding, data_format=fmt, dilation_rate=dilation)
    tx, tk, tb = (torch.tensor(a, requires_grad=True) for a in (xin, kernel, bias))
    out = torch_nn.fused_conv(tx, tk, tb, **options)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-4, atol=1e-4)

    weights = torch.tensor(RNG.standard_normal(tuple(out.shape)).astype("float32"))
    fused_grads = torch.autograd.grad((out * weights).sum(), (tx, tk, tb))
    cx, ck, cb = (torch.tensor(a, requires_grad=True) for a in (xin, kernel, bias))
    bshape = [1] * out.ndim
    bshape[1 if channels_first else -1] = -1
    composite = torch_nn.conv(cx, ck, **options) + cb.reshape(bshape)
    composite_grads = torch.autograd.grad((composite * weights).sum(), (cx, ck, cb))
    for fused, reference in zip(fused_grads, composite_grads, strict=True):
        np.testing.assert_allclose(fused.numpy(), reference.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.engine("torch")
def test_the_fused_kernel_declines_half_precision_and_a_bias_to_promote():
    import torch

    from lamina.backend.torch import nn as torch_nn

    x, kernel = torch.ones((1, 4, 2)), torch.ones((2, 2, 3))
    assert torch_nn.fused_conv(x, kernel, torch.ones(3, dtype=torch.float64)) is None
    half = (x.to(torch.bfloat16), kernel.to(torch.bfloat16), torch.ones(3, dtype=torch.bfloat16))
    assert torch_nn.fused_conv(*half) is None
    with pytest.raises(ValueError, match="one per channel"):
        torch_nn.fused_conv(x, kernel, torch.ones(2))


@pytest.mark.parametrize("activation", [None, "relu"])
def test_a_conv_layer_gives_the_numpy_values_eager_and_in_predict(activation):
    x = RNG.standard_normal((2, 6, 5, 3)).astype("float32")
    layer = layers.Conv2D(4, 3, padding="same", activation=activation)
    layer.build(x.shape)
    kernel = RNG.standard_normal((3, 3, 3, 4)).astype("float32")
    bias = RNG.standard_normal(4).astype("float32")
    layer.set_weights([kernel, bias])
    expected = _numpy_conv(x.astype("float64"), kernel, bias, (1, 1), "same", (1, 1), False)
    if activation == "relu":
        expected = np.maximum(expected, 0.0)
    eager = lamina.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(eager, expected, rtol=1e-4, atol=1e-4)
    inputs = lamina.Input((6, 5, 3))
    model = lamina.Model(inputs, layer(inputs))
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-4, atol=1e-4)
