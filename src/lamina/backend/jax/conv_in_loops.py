"""Convolutions inside a loop's body on XLA's CPU, with gradients XLA runs fast there.

Outside loops, XLA's CPU lays a convolution's gradients out (the kernel's gradient, a
convolution over the batch; the input's, a convolution by the kernel with its input and
output axes swapped) so that its fast convolution kernels run them. In the body of a
while loop it does not, and runs them on its generic path, 20-45x slower: a ConvLSTM2D
training step (40 filters, 40x40 frames, 15 of them, batch 10) took 16 s on JAX against
0.5 s on torch, and a small convnet's `fit` with `steps_per_execution=8` (whose steps
run in a `lax.scan`) 7.6x as long as with 1.

`conv` here computes the same convolution as `jax.lax.conv_general_dilated`, with a
custom gradient that writes both gradients as convolutions of the standard layout
(channels last, kernel `(*spatial, in, out)`), the operands transposed explicitly: the
kernel's gradient 12.4 s -> 0.37 s over 15 steps of that ConvLSTM's largest convolution.
`backend.jax.nn.conv` and `conv_transpose` (as the convolution of the strides-dilated
inputs it is: a 3x3 `Conv2DTranspose` model's `fit` at `steps_per_execution=8` took 8x
its time at 1) take it on the CPU inside the bodies of the loops lamina makes
(`core_control_flow`'s `scan`, `fori_loop`, `while_loop`, `map`, and through them the
recurrent layers and `steps_per_execution`), which call the loop primitive (which traces
the body) inside `loop_body()`; elsewhere XLA's own rules run. Like every custom
gradient, it has no forward mode: `jax.jvp` through such a loop raises JAX's `TypeError`.
"""

from __future__ import annotations

import contextlib
import functools
import threading

import jax
import jax.numpy as jnp

_STATE = threading.local()


@contextlib.contextmanager
def loop_body():
    """Mark the code run inside as the body of a loop being traced."""
    depth = getattr(_STATE, "depth", 0)
    _STATE.depth = depth + 1
    try:
        yield
    finally:
        _STATE.depth = depth


def in_loop_body() -> bool:
    """Whether a loop body is being traced on this thread now (see `loop_body`)."""
    return getattr(_STATE, "depth", 0) > 0


def _dilated(size: int, dilation: int) -> int:
    return 0 if size == 0 else 1 + dilation * (size - 1)


def _channels_last(x, channels_first: bool):
    return jnp.moveaxis(x, 1, -1) if channels_first else x


def _specs(n: int, channels_first: bool = False):
    """Dimension numbers: inputs and outputs `N...C` (or `NC...`), kernel `...IO`."""
    spatial = "".join(chr(ord("a") + i) for i in range(n))
    data = "NC" + spatial if channels_first else "N" + spatial + "C"
    return (data, spatial + "IO", data)


def _forward(inputs, kernel, strides, padding, dilation, channels_first, input_dilation):
    numbers = _specs(inputs.ndim - 2, channels_first)
    return jax.lax.conv_general_dilated(
        inputs,
        kernel,
        window_strides=strides,
        padding=padding,
        lhs_dilation=input_dilation,
        rhs_dilation=dilation,
        dimension_numbers=numbers,
    )


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6))
def conv(inputs, kernel, strides, padding, dilation, channels_first, input_dilation=None):
    """`lax.conv_general_dilated` of `inputs` (`N...C`, or `NC...` when
    `channels_first`) by a `(*spatial, in, out)` kernel of the same dtype, one group,
    `padding` explicit `(low, high)` pairs, the inputs dilated by `input_dilation` (a
    transposed convolution's strides; None: 1); gradients in the standard layout."""
    return _forward(inputs, kernel, strides, padding, dilation, channels_first, input_dilation)


def _conv_forward(inputs, kernel, strides, padding, dilation, channels_first, input_dilation):
    out = _forward(inputs, kernel, strides, padding, dilation, channels_first, input_dilation)
    return out, (inputs, kernel)


def _conv_backward(strides, padding, dilation, channels_first, input_dilation, residuals, grad):
    inputs, kernel = residuals
    x = _channels_last(inputs, channels_first)
    g = _channels_last(grad, channels_first)
    n = x.ndim - 2
    spatial = range(1, n + 1)
    numbers = _specs(n)
    window = kernel.shape[:n]
    input_dilation = (1,) * n if input_dilation is None else input_dilation
    in_dilated = [_dilated(i, d) for i, d in zip(x.shape[1:-1], input_dilation, strict=True)]
    k_dilated = [_dilated(k, d) for k, d in zip(window, dilation, strict=True)]
    out_dilated = [_dilated(o, s) for o, s in zip(g.shape[1:-1], strides, strict=True)]
    sizes = list(zip(padding, in_dilated, k_dilated, out_dilated, strict=True))

    # The kernel's gradient: a convolution of the inputs, batch and channels swapped
    # (`(in, *spatial, batch)`), by the output gradient as a `(*spatial, batch, out)`
    # kernel, dilated by the strides; its result is `(in, *window, out)`.
    kernel_grad = jax.lax.conv_general_dilated(
        jnp.transpose(x, (n + 1, *spatial, 0)),
        jnp.transpose(g, (*spatial, 0, n + 1)),
        window_strides=dilation,
        padding=[(low, (o - i) + (k - low - 1)) for (low, _), i, k, o in sizes],
        lhs_dilation=input_dilation,
        rhs_dilation=strides,
        dimension_numbers=numbers,
    )
    kernel_grad = jnp.transpose(kernel_grad, (*spatial, 0, n + 1))

    # The inputs' gradient: the output gradient, dilated by the strides, convolved with
    # the kernel flipped in space, its input and output axes swapped (with the input
    # dilation as its strides).
    flipped = jnp.flip(kernel, axis=tuple(range(n)))
    flipped = jnp.swapaxes(flipped, n, n + 1)
    input_pads = []
    for (low, _), i, k, o in sizes:
        before = k - low - 1
        input_pads.append((before, i + k - 1 - o - before))
    inputs_grad = jax.lax.conv_general_dilated(
        g,
        flipped,
        window_strides=input_dilation,
        padding=input_pads,
        lhs_dilation=strides,
        rhs_dilation=dilation,
        dimension_numbers=numbers,
    )
    if channels_first:
        inputs_grad = jnp.moveaxis(inputs_grad, -1, 1)
    return inputs_grad, kernel_grad


conv.defvjp(_conv_forward, _conv_backward)


def explicit_padding(padding, in_sizes, window, strides, dilation):
    """`padding` ("VALID", "SAME" or pairs) as explicit `(low, high)` pairs."""
    if not isinstance(padding, str):
        return tuple((int(lo), int(hi)) for lo, hi in padding)
    dilated = [_dilated(k, d) for k, d in zip(window, dilation, strict=True)]
    return tuple(jax.lax.padtype_to_pads(in_sizes, dilated, strides, padding))
