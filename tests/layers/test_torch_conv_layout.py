"""On torch, channels-last convolution, pooling and normalization move no activations.

Keras's images are channels-last (NHWC); torch's kernels index channels-first (NCHW).
The engine hands a kernel the permuted view of an NHWC tensor, which is an NCHW tensor
in torch's `channels_last` memory format: the oneDNN convolution, the pooling kernels
and `native_batch_norm` take that format as it is and return it, and the permute back
is a view of a contiguous NHWC tensor again. So no permute pair copies an activation,
forward or backward: only weight-sized tensors are copied (a kernel's gradient from
torch's layout into the variable's, a moving statistic assigned).
"""

import numpy as np
import pytest

from lamina import Input, Sequential, layers

pytestmark = pytest.mark.engine("torch")


def test_a_channels_last_convnet_copies_no_activation_forward_or_backward():
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    model = Sequential(
        [
            Input((8, 8, 3)),
            layers.Conv2D(4, 3, padding="same"),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPooling2D(),
            layers.Conv2D(5, 3),
            layers.AveragePooling2D(),
            layers.Flatten(),
            layers.Dense(2),
        ]
    )
    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype("float32"))
    model(x, training=True)
    weight_sizes = {int(np.prod(w.shape)) for w in model.weights}
    copied = []

    class Copies(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = str(func)
            if any(word in name for word in ("copy", "clone", "contiguous")):
                copied.append((name, tuple(args[0].shape)))
            return func(*args, **(kwargs or {}))

    with Copies():
        model(x, training=True).sum().backward()
    moved = [(name, shape) for name, shape in copied if int(np.prod(shape)) not in weight_sizes]
    assert moved == [], f"activations copied: {moved}"
