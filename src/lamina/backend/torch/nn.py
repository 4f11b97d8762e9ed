"""Neural-network functions on torch tensors: activations, softmax, one-hot, convolution
and pooling, with the JAX engine's semantics.

Data and kernels use Keras's layouts (channels-last data by default; conv kernels
`(*spatial, in_channels / groups, out_channels)`, depthwise `(*spatial, in_channels,
multiplier)`, transposed `(*spatial, out_channels, in_channels)`): they are permuted to
torch's layouts here (a view, no copy). `"same"` padding is TensorFlow's (and XLA's): the
total padding split with the extra element at the end, applied explicitly when it is
asymmetric, since torch only pads symmetrically.

Integer inputs to float activations compute in float32, as on JAX.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lamina.backend import config
from lamina.backend.common.shapes import conv_transpose_output_length
from lamina.backend.torch.core import convert_to_tensor, to_torch_dtype

_HALF = (torch.float16, torch.bfloat16)


def _float(x):
    x = convert_to_tensor(x)
    return x if x.is_floating_point() else x.to(torch.float32)


# Activations --------------------------------------------------------------------------
def relu(x):
    return torch.relu(convert_to_tensor(x))


def relu6(x):
    return F.relu6(_float(x))


def sigmoid(x):
    return torch.sigmoid(_float(x))


def hard_sigmoid(x):
    # relu6(x + 3) / 6, the same values as Keras's clip(x / 6 + 0.5, 0, 1).
    return F.hardsigmoid(_float(x))


def hard_silu(x):
    return F.hardswish(_float(x))


def softplus(x):
    return F.softplus(_float(x))


def softsign(x):
    return F.softsign(_float(x))


def silu(x):
    return F.silu(_float(x))


def log_sigmoid(x):
    return F.logsigmoid(_float(x))


def leaky_relu(x, negative_slope=0.2):
    return F.leaky_relu(_float(x), negative_slope)


def elu(x, alpha=1.0):
    return F.elu(_float(x), alpha)


def selu(x):
    return F.selu(_float(x))


def gelu(x, approximate=True):
    return F.gelu(_float(x), approximate="tanh" if approximate else "none")


def mish(x):
    return F.mish(_float(x))


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis,)
    return tuple(axis)


def softmax(x, axis=-1):
    x = _float(x)
    if isinstance(axis, int):
        return torch.softmax(x, axis)
    # Several axes at once (as `jax.nn.softmax`): normalize over all of them.
    axes = _axes(axis, x.ndim)
    unnormalized = torch.exp(x - torch.amax(x, dim=axes, keepdim=True).detach())
    return unnormalized / torch.sum(unnormalized, dim=axes, keepdim=True)


def log_softmax(x, axis=-1):
    x = _float(x)
    if isinstance(axis, int):
        return torch.log_softmax(x, axis)
    axes = _axes(axis, x.ndim)
    shifted = x - torch.amax(x, dim=axes, keepdim=True).detach()
    return shifted - torch.log(torch.sum(torch.exp(shifted), dim=axes, keepdim=True))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = convert_to_tensor(output)
    target = convert_to_tensor(target)
    if from_logits and _fused_crossentropy_applies(target, output, axis):
        # torch's fused kernel (log-softmax and pick in one node, for the forward and
        # the backward pass). It rejects labels outside [0, classes), which get a loss
        # of 0 here as on JAX: they are replaced by `classes`, passed as the kernel's
        # ignored index (a loss of 0 and no gradient), without reading the labels'
        # values in Python. Clamped to [-1, classes], a label outside the range is -1 or
        # `classes`, and both are `classes` modulo `classes + 1`, while a label inside is
        # itself: two kernels, where a range test and a fill take three.
        classes = output.shape[1]
        labels = torch.remainder(target.long().clamp(-1, classes), classes + 1)
        return torch.nn.functional.cross_entropy(
            output, labels, reduction="none", ignore_index=classes
        )
    if from_logits:
        log_probs = torch.log_softmax(output, dim=axis)
    else:
        eps = config.epsilon()
        output = output / output.sum(dim=axis, keepdim=True)
        log_probs = torch.log(output.clamp(eps, 1.0 - eps))
    target = target.long()
    valid = (target >= 0) & (target < output.shape[axis])
    index = torch.where(valid, target, torch.zeros_like(target)).unsqueeze(axis)
    picked = torch.gather(log_probs, axis, index).squeeze(axis)
    return torch.where(valid, -picked, torch.zeros_like(picked))


def _fused_crossentropy_applies(target, output, axis) -> bool:
    return (
        output.ndim == 2
        and output.shape[1] > 0
        and target.ndim == 1
        and axis in (-1, 1)
        and output.device.type == "cpu"
        and output.dtype in (torch.float32, torch.float64)
        and target.numel() > 0
        and not (target.dtype.is_floating_point or target.dtype == torch.bool)
    )


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise ValueError("one_hot(sparse=True): the torch backend has no sparse tensors.")
    dtype = to_torch_dtype(dtype if dtype is not None else config.floatx())
    x = convert_to_tensor(x)
    ndim = x.ndim + 1
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"one_hot: axis {axis} is out of range for an output of rank {ndim} "
            f"(input shape {tuple(x.shape)}); expected -{ndim} <= axis < {ndim}."
        )
    axis %= ndim
    shape = [1] * ndim
    shape[axis] = num_classes
    # A comparison rather than `F.one_hot`: negative or out-of-range classes give
    # all-zero rows (as on JAX) instead of an error.
    classes = torch.arange(num_classes, device=x.device).view(shape)
    return (x.unsqueeze(axis) == classes).to(dtype)


def fused_batch_norm(x, axis, scale, offset, epsilon, mean=None, variance=None):
    """Batch normalization in torch's own kernel (`native_batch_norm`) instead of the
    composite's elementwise passes: in training (no `mean`/`variance`: one pass for the
    statistics and one for the output, and a fused backward), and with given statistics
    (inference: one pass where the composite takes three). Feature axis moved to 1 as a
    view: a channels-last image stays in its memory layout, which the kernel takes."""
    x = convert_to_tensor(x)
    if x.dtype is not torch.float32 or x.ndim < 2:
        return None
    for v in (scale, offset, mean, variance):
        if v is not None and (not isinstance(v, torch.Tensor) or v.dtype is not torch.float32):
            return None
    if (mean is None) != (variance is None):
        raise ValueError(
            "fused_batch_norm: pass both `mean` and `variance` (inference) or neither "
            f"(training); received mean={mean!r}, variance={variance!r}."
        )
    axis = axis % x.ndim
    xt = x if axis == 1 else x.movedim(axis, 1)
    if mean is not None:
        out = F.batch_norm(xt, mean.detach(), variance.detach(), scale, offset, False, 0.0, epsilon)
        return (out if axis == 1 else out.movedim(1, axis)), mean, variance
    out, mean, invstd = torch.native_batch_norm(xt, scale, offset, None, None, True, 0.0, epsilon)
    if axis != 1:
        out = out.movedim(1, axis)
    # The biased variance, as `moments` gives it, from the kernel's 1 / sqrt(var + eps).
    variance = (invstd.detach().reciprocal().square() - epsilon).clamp_min(0.0)
    return out, mean.detach(), variance


def moments(x, axes, keepdims=False, synchronized=False):
    # `synchronized` (Keras: average across replicas) changes nothing on one device.
    x = convert_to_tensor(x)
    dtype = x.dtype
    # Half precision (and integers) compute in float32: a float16 square overflows early.
    if dtype in _HALF or not x.is_floating_point():
        x = x.to(torch.float32)
    axes = _axes(axes, x.ndim)
    if not axes:  # torch reads an empty `dim` as "all axes"; JAX reduces none.
        mean, variance = x, torch.zeros_like(x)
    else:
        mean = torch.mean(x, dim=axes, keepdim=True)
        variance = torch.mean(torch.square(x - mean.detach()), dim=axes, keepdim=keepdims)
        if not keepdims:
            mean = torch.squeeze(mean, axes)
    if dtype in _HALF:
        mean, variance = mean.to(dtype), variance.to(dtype)
    return mean, variance


# Convolution and pooling -------------------------------------------------------------
_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_MAX_POOL = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG_POOL = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"`{name}` must have {n} value(s); received {value}.")
    return value


def _spatial_rank(inputs, op):
    n = inputs.ndim - 2
    if n not in _CONV:
        raise ValueError(
            f"{op}: expected inputs of rank 3, 4 or 5 (batch, 1 to 3 spatial axes and "
            f"channels); received shape {tuple(inputs.shape)}."
        )
    return n


def _channels_first(x, n, data_format):
    return x if data_format == "channels_first" else x.permute(0, n + 1, *range(1, n + 1))


def _restore(x, n, data_format):
    return x if data_format == "channels_first" else x.permute(0, *range(2, n + 2), 1)


def _kernel(kernel, n, dtype, op):
    kernel = convert_to_tensor(kernel)
    if kernel.ndim != n + 2:
        raise ValueError(
            f"{op}: expected a kernel of rank {n + 2} for inputs with {n} spatial axes; "
            f"received kernel shape {tuple(kernel.shape)}."
        )
    return kernel if kernel.dtype == dtype else kernel.to(dtype)


def _same_pads(spatial, kernel_spatial, strides, dilation):
    """TF/XLA "same" padding per axis: `(before, after)`, any odd element after."""
    pads = []
    for size, k, s, d in zip(spatial, kernel_spatial, strides, dilation, strict=True):
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _pad_for_conv(x, padding, kernel_spatial, strides, dilation):
    """`x` and torch's symmetric `padding` argument realizing Keras's `padding`."""
    padding = str(padding).lower()
    if padding == "valid":
        return x, 0
    if padding == "same":
        pads = _same_pads(x.shape[2:], kernel_spatial, strides, dilation)
    elif padding == "causal":
        if len(kernel_spatial) != 1:
            raise ValueError("`padding='causal'` is only supported for 1-D convolutions.")
        pads = [(dilation[0] * (kernel_spatial[0] - 1), 0)]
    else:
        raise ValueError(f"`padding` must be 'valid', 'same' or 'causal'; received {padding!r}.")
    if all(before == after for before, after in pads):
        return x, tuple(before for before, _ in pads)
    flat = [p for pair in reversed(pads) for p in pair]
    return F.pad(x, flat), 0


def _conv(inputs, weight, strides, padding, data_format, dilation, groups, n, bias=None):
    x = _channels_first(inputs, n, data_format)
    x, pad = _pad_for_conv(x, padding, weight.shape[2:], strides, dilation)
    out = _CONV[n](x, weight, bias, strides, pad, dilation, groups)
    return _restore(out, n, data_format)


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (cross-correlation) with a `(*spatial, in/groups, out)` kernel."""
    return _conv_with_bias(inputs, kernel, None, strides, padding, data_format, dilation_rate)


def fused_conv(inputs, kernel, bias, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """`conv` plus a bias along the channels, the bias added inside torch's convolution
    kernel (as `nn.Conv2d` does) instead of a second pass over the output, and its
    gradient taken by the kernel's backward. None where the bias is not a vector of the
    inputs' dtype or the dtype is not float32: the caller then adds it itself, with the
    usual type promotion. (In half precision the kernel adds the bias before rounding the
    output, once, where the composite, as Keras, rounds twice.)"""
    inputs = convert_to_tensor(inputs)
    bias = convert_to_tensor(bias)
    if bias.ndim != 1 or bias.dtype != inputs.dtype or inputs.dtype is not torch.float32:
        return None
    return _conv_with_bias(inputs, kernel, bias, strides, padding, data_format, dilation_rate)


def _conv_with_bias(inputs, kernel, bias, strides, padding, data_format, dilation_rate):
    data_format = config.standardize_data_format(data_format)
    inputs = convert_to_tensor(inputs)
    n = _spatial_rank(inputs, "conv")
    kernel = _kernel(kernel, n, inputs.dtype, "conv")
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    in_channels = inputs.shape[-1 if data_format == "channels_last" else 1]
    group_channels, out_channels = kernel.shape[-2], kernel.shape[-1]
    if in_channels % group_channels or out_channels % (in_channels // group_channels):
        raise ValueError(
            f"conv: inputs with {in_channels} channels ({data_format}, shape "
            f"{tuple(inputs.shape)}) do not fit kernel shape {tuple(kernel.shape)}: the "
            "input channels must be a multiple g of the kernel's input dimension "
            "(kernel.shape[-2]), and the output channels (kernel.shape[-1]) a multiple of g."
        )
    weight = kernel.permute(n + 1, n, *range(n))  # (out, in / groups, *spatial)
    groups = in_channels // group_channels
    if bias is not None and bias.shape[0] != out_channels:
        raise ValueError(
            f"fused_conv: a bias of {bias.shape[0]} values for {out_channels} output "
            f"channels (kernel shape {tuple(kernel.shape)}); the bias needs one per channel."
        )
    return _conv(inputs, weight, strides, padding, data_format, dilation, groups, n, bias)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise convolution with a `(*spatial, in_channels, depth_multiplier)` kernel."""
    data_format = config.standardize_data_format(data_format)
    inputs = convert_to_tensor(inputs)
    n = _spatial_rank(inputs, "depthwise_conv")
    kernel = _kernel(kernel, n, inputs.dtype, "depthwise_conv")
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    in_channels = inputs.shape[-1 if data_format == "channels_last" else 1]
    if kernel.shape[-2] != in_channels:
        raise ValueError(
            f"depthwise_conv: inputs with {in_channels} channels ({data_format}, shape "
            f"{tuple(inputs.shape)}) need a kernel (*spatial, {in_channels}, multiplier); "
            f"received kernel shape {tuple(kernel.shape)}."
        )
    # Output channel c * multiplier + m reads input channel c, as on JAX.
    spatial = kernel.shape[:-2]
    weight = kernel.reshape(*spatial, 1, in_channels * kernel.shape[-1])
    weight = weight.permute(n + 1, n, *range(n))
    return _conv(inputs, weight, strides, padding, data_format, dilation, in_channels, n)


def separable_conv(
    inputs,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """A depthwise convolution followed by a pointwise (1x1) convolution."""
    x = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(x, pointwise_kernel, 1, "valid", data_format, 1)


def conv_transpose(
    inputs,
    kernel,
    strides=1,
    padding="valid",
    output_padding=None,
    data_format=None,
    dilation_rate=1,
):
    """Transposed convolution with a `(*spatial, out_channels, in_channels)` kernel.

    The output equals the gradient of `conv` (same strides, padding and dilation) with
    respect to its input, for an input of the Keras output length.
    """
    data_format = config.standardize_data_format(data_format)
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    inputs = convert_to_tensor(inputs)
    n = _spatial_rank(inputs, "conv_transpose")
    kernel = _kernel(kernel, n, inputs.dtype, "conv_transpose")
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation_rate, n, "dilation_rate")
    out_pad = (None,) * n if output_padding is None else _tuple(output_padding, n, "output_padding")
    in_channels = inputs.shape[-1 if data_format == "channels_last" else 1]
    if kernel.shape[-1] != in_channels:
        raise ValueError(
            f"conv_transpose: inputs with {in_channels} channels ({data_format}, shape "
            f"{tuple(inputs.shape)}) need a kernel (*spatial, out_channels, {in_channels}); "
            f"received kernel shape {tuple(kernel.shape)}."
        )
    x = _channels_first(inputs, n, data_format)
    # The Keras output is the window [start, start + out_len) of the unpadded ("full")
    # transposed convolution, zeros beyond its end. torch gives [p, full - p + extra)
    # for padding p and output_padding 0 <= extra < max(stride, dilation); other
    # windows are cut (or zero-padded) from the full output.
    pads, extras, crops = [], [], []
    for size, k, s, d, op in zip(x.shape[2:], kernel.shape[:-2], strides, dilation, out_pad):
        k_eff = (k - 1) * d + 1
        out_len = conv_transpose_output_length(size, k, s, padding, op, d)
        full = (size - 1) * s + k_eff
        start = max(full - out_len, 0) // 2 if padding == "same" else 0
        extra = out_len - (full - 2 * start)
        native = 0 <= extra < max(s, d)
        pads.append(start if native else 0)
        extras.append(extra if native else 0)
        crops.append(None if native else (start, out_len, full))
    weight = kernel.permute(n + 1, n, *range(n))  # (in, out, *spatial)
    out = _CONV_TRANSPOSE[n](x, weight, None, strides, pads, extras, 1, dilation)
    for axis, crop in enumerate(crops, start=2):
        if crop is not None:
            start, length, full = crop
            out = out.narrow(axis, start, min(length, full - start))
            if length > full - start:
                widths = [0, 0] * (out.ndim - axis - 1) + [0, length - (full - start)]
                out = F.pad(out, widths)
    return _restore(out, n, data_format)


def _pool_args(inputs, pool_size, strides, padding, data_format, op):
    data_format = config.standardize_data_format(data_format)
    inputs = convert_to_tensor(inputs)
    n = _spatial_rank(inputs, op)
    pool_size = _tuple(pool_size, n, "pool_size")
    strides = pool_size if strides is None else _tuple(strides, n, "strides")
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same'; received {padding!r}.")
    x = _channels_first(inputs, n, data_format)
    if padding == "valid":
        return x, n, data_format, pool_size, strides, 0, False, ()
    # "same": the before-padding on both sides, and `ceil_mode` for the last window that
    # runs past the end: torch then pools exactly TF's windows (padding never counted).
    # With stride 1 and an even window the ceiling cannot add the missing window: pad
    # one more on both sides and drop the first output instead.
    pads, trims = [], []
    for axis, (size, k, s) in enumerate(zip(x.shape[2:], pool_size, strides), start=2):
        (before, after), *_ = _same_pads((size,), (k,), (s,), (1,))
        if s == 1 and after > before:
            pads.append(before + 1)
            trims.append((axis, size))
        else:
            pads.append(before)
    return x, n, data_format, pool_size, strides, tuple(pads), True, trims


def _trim(x, trims):
    for axis, size in trims:
        x = x.narrow(axis, 1, size)
    return x


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over the spatial axes."""
    x, n, data_format, size, strides, pad, ceil, trims = _pool_args(
        inputs, pool_size, strides, padding, data_format, "max_pool"
    )
    if not x.is_floating_point():
        return _restore(_max_pool_windows(x, size, strides, same=ceil), n, data_format)
    out = _trim(_MAX_POOL[n](x, size, strides, pad, 1, ceil), trims)
    return _restore(out, n, data_format)


def _max_pool_windows(x, size, strides, same):
    """Max pooling of integers or booleans (channels first), exact, on any device.

    torch's pooling kernels lack most integer dtypes and bool (Keras takes them and keeps
    the dtype): cut the windows out with `unfold` and take each one's maximum. "same"
    padding pads with the dtype's least value, which a window's maximum never takes
    from it (every window holds at least one input element).
    """
    is_bool = x.dtype == torch.bool
    if is_bool:
        x = x.to(torch.uint8)
    n = len(size)
    if same:
        widths = []
        for before, after in reversed(_same_pads(x.shape[2:], size, strides, (1,) * n)):
            widths += [before, after]
        x = F.pad(x, widths, value=torch.iinfo(x.dtype).min)
    for axis, (k, s) in enumerate(zip(size, strides, strict=True), start=2):
        x = x.unfold(axis, k, s)
    out = x.amax(dim=tuple(range(-n, 0)))
    return out != 0 if is_bool else out


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling; with `"same"` padding only the valid elements are averaged."""
    x, n, data_format, size, strides, pad, ceil, trims = _pool_args(
        inputs, pool_size, strides, padding, data_format, "average_pool"
    )
    if not x.is_floating_point():
        x = x.to(torch.float32)
    out = _trim(_AVG_POOL[n](x, size, strides, pad, ceil, False), trims)
    return _restore(out, n, data_format)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    x = convert_to_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"unfold: expected (N, C, H, W) input, received shape {tuple(x.shape)}.")
    return F.unfold(x, kernel_size, dilation=dilation, padding=padding, stride=stride)


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x = convert_to_tensor(x)
    if x.ndim != 3:
        raise ValueError(
            f"fold: expected (N, C * kh * kw, L) input, received shape {tuple(x.shape)}."
        )
    return F.fold(x, output_size, kernel_size, dilation=dilation, padding=padding, stride=stride)


def polar(abs_, angle):
    abs_ = convert_to_tensor(abs_)
    angle = convert_to_tensor(angle)
    if not abs_.is_floating_point():
        abs_ = abs_.float()
    return torch.polar(abs_, angle.to(abs_.dtype))


# The loss the other engines' forward algorithm gives an alignment that cannot exist (a
# label longer than its output allows): large and finite, so sums and gradients stay so.
_IMPOSSIBLE_CTC_LOSS = 1e5


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    # torch's own kernel (`F.ctc_loss`, forward and backward in C++/CUDA): the forward
    # algorithm written from ops costs a Python-level loop of small ops per time step.
    output = convert_to_tensor(output)
    if not output.is_floating_point() or output.dtype in (torch.float16, torch.bfloat16):
        output = output.to(torch.float32)
    device = output.device
    target = convert_to_tensor(target).to(device=device, dtype=torch.long)
    # Lengths past the label array or the time axis cannot be read: the kernel refuses
    # them, the forward algorithm reads no further either.
    target_length = convert_to_tensor(target_length).to(device=device, dtype=torch.long)
    target_length = target_length.clamp(0, target.shape[1])
    output_length = convert_to_tensor(output_length).to(device=device, dtype=torch.long)
    output_length = output_length.clamp(0, output.shape[1])
    log_probs = torch.log_softmax(output, dim=-1).transpose(0, 1)  # (time, batch, classes)
    loss = F.ctc_loss(
        log_probs,
        target,
        output_length,
        target_length,
        blank=int(mask_index),
        reduction="none",
        zero_infinity=True,
    )
    # An alignment needs one step per label and one more between equal neighbours.
    positions = torch.arange(target.shape[1], device=device)
    within = positions[1:] < target_length[:, None]
    repeats = ((target[:, 1:] == target[:, :-1]) & within).sum(dim=1)
    impossible = target_length + repeats > output_length
    return torch.where(impossible, torch.full_like(loss, _IMPOSSIBLE_CTC_LOSS), loss)
