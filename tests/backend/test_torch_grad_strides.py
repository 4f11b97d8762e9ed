"""On torch, a parameter's `.grad` after `backward()` has the parameter's own strides.

lamina stores Dense and convolution kernels in the layouts torch's modules use (see
`Variable._store_for`), and torch's channels-last convolution returns kernel gradients in
`channels_last` strides. Autograd's layout contract ignores size-1 axes, so for a kernel
with one input channel or a 1x1 window it kept such a gradient as it came, and
`DistributedDataParallel`, which compares every stride, warned "Grad strides do not match
bucket view strides" (Keras's distributed training guide, on a 1-channel image model).
"""

import socket
import warnings

import numpy as np
import pytest

from lamina import Input, Model, layers

pytestmark = pytest.mark.engine("torch")

CASES = {
    "conv1d, one input channel": ((8, 1), lambda: layers.Conv1D(4, 3)),
    "conv1d": ((8, 3), lambda: layers.Conv1D(4, 3)),
    "conv2d, one input channel": ((8, 8, 1), lambda: layers.Conv2D(12, 3, use_bias=False)),
    "conv2d, 1x1 window": ((8, 8, 3), lambda: layers.Conv2D(4, 1)),
    "conv2d, one filter": ((8, 8, 3), lambda: layers.Conv2D(1, 3)),
    "conv2d, channels_first": (
        (1, 8, 8),
        lambda: layers.Conv2D(4, 3, data_format="channels_first"),
    ),
    "conv2d, 1x1 window, channels_first": (
        (3, 8, 8),
        lambda: layers.Conv2D(4, 1, data_format="channels_first"),
    ),
    "conv3d, one input channel": ((5, 5, 5, 1), lambda: layers.Conv3D(4, 3)),
    "conv3d": ((5, 5, 5, 2), lambda: layers.Conv3D(4, 3)),
    "depthwise conv2d": ((8, 8, 3), lambda: layers.DepthwiseConv2D(3)),
    "depthwise conv2d, one input channel": ((8, 8, 1), lambda: layers.DepthwiseConv2D(3)),
    "dense": ((5,), lambda: layers.Dense(7)),
    "dense, one unit": ((5,), lambda: layers.Dense(1)),
    "dense, one input": ((1,), lambda: layers.Dense(7)),
}


def _model(shape, make_layer):
    inputs = Input(shape)
    return Model(inputs, make_layer()(inputs))


def _batch(shape):
    import torch

    return torch.tensor(np.random.default_rng(0).standard_normal((2, *shape)).astype("float32"))


@pytest.mark.parametrize("case", list(CASES))
def test_a_gradient_has_its_parameters_strides(case):
    shape, make_layer = CASES[case]
    model = _model(shape, make_layer)
    model(_batch(shape)).sum().backward()
    strides = [(tuple(p.shape), p.stride(), p.grad.stride()) for p in model.parameters()]
    assert strides and all(ps == gs for _, ps, gs in strides), strides


def test_a_second_backward_pass_and_a_refrozen_layer_keep_the_strides():
    shape, make_layer = CASES["conv2d, one input channel"]
    model = _model(shape, make_layer)
    kernel = model.layers[-1].kernel
    kernel.trainable = False
    kernel.trainable = True
    x = _batch(shape)
    model(x).sum().backward()
    first = next(iter(model.parameters())).grad.clone()
    model(x).sum().backward()  # accumulates into the same gradient
    (param,) = model.parameters()
    assert param.grad.stride() == param.stride()
    np.testing.assert_allclose(param.grad.numpy(), 2 * first.numpy(), rtol=1e-6)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_distributed_data_parallel_warns_of_no_stride_mismatch():
    import torch
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    shape, make_layer = CASES["conv2d, one input channel"]
    model = _model(shape, make_layer)
    dist.init_process_group(
        "gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{_free_port()}"
    )
    try:
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ddp(_batch(shape)).sum().backward()
    finally:
        dist.destroy_process_group()
    assert [str(w.message) for w in caught if "strides" in str(w.message)] == []
