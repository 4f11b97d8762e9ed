"""The backend contract as data: every name, signature and one-line doc an engine provides.

Each engine package (`backend/jax/`, later `backend/torch/`) has the modules named in
`ENGINE` and defines in each the names declared there, with exactly the declared
parameters (names, order, kinds and defaults). `tests/backend/test_contract.py` checks
every engine against this declaration; `lamina.ops` builds its pass-through ops from it
(the declared signature and doc become the op's); and a test fails when code outside
`backend/` uses a backend name that is not declared here.

A declaration is a block of text, one entry per unindented line, read by Python's own
parser (`ast`):

- `name(params)` a function; `Name(params)` a class with that constructor, `Name(...)`
  a class whose constructor is not part of the contract;
- `NAME` alone, a constant;
- indented lines under an entry are its documentation.

`COMMON` declares what `lamina.backend` itself provides whatever the engine (config,
variables, naming, dtype promotion), by the module that defines it; `NAMESPACE` is what
`lamina.backend` re-exports at its top level.

>>> ENGINE["numpy"]["mean"].signature
<Signature (x, axis=None, keepdims=False)>
>>> ENGINE["numpy"]["mean"].doc
'Arithmetic mean of `x` along `axis` (integer input averages as float).'
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import NamedTuple


class Declaration(NamedTuple):
    """One declared name: `kind` is `"function"`, `"class"` or `"constant"`."""

    name: str
    kind: str
    signature: inspect.Signature | None
    doc: str


def _signature(header: str) -> inspect.Signature:
    tree = ast.parse(f"def _{header}: pass")
    args = tree.body[0].args

    def value(node):
        return ast.literal_eval(node)

    params = []
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + [
        value(d) for d in args.defaults
    ]
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            inspect.Parameter.POSITIONAL_ONLY
            if i < len(args.posonlyargs)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        params.append(inspect.Parameter(arg.arg, kind, default=default))
    if args.vararg:
        params.append(inspect.Parameter(args.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(
            inspect.Parameter(
                arg.arg,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if default is None else value(default),
            )
        )
    if args.kwarg:
        params.append(inspect.Parameter(args.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def declare(text: str) -> dict[str, Declaration]:
    """Parse a declaration block (see the module docstring) into `{name: Declaration}`."""
    entries: dict[str, Declaration] = {}
    header, doc = None, []

    def flush():
        if header is None:
            return
        name = header.split("(", 1)[0].strip()
        if "(" not in header:
            kind, signature = "constant", None
        else:
            kind = "class" if name[0].isupper() else "function"
            # `Name(...)`: any constructor (e.g. an exception class, whose signature
            # Python cannot report).
            signature = None if header.endswith("(...)") else _signature(header)
        if name in entries:
            raise ValueError(f"Backend contract declares {name!r} twice.")
        entries[name] = Declaration(name, kind, signature, " ".join(doc))

    for line in textwrap.dedent(text).splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            doc.append(line.strip())
        else:
            flush()
            header, doc = line.strip(), []
    flush()
    return entries


# Engine modules -----------------------------------------------------------------------
CORE = declare(
    """
    SUPPORTS_SPARSE_TENSORS
        Whether the engine has sparse tensors (`sparse=True` arguments are refused if not).
    Variable(initializer, shape=None, dtype=None, trainable=True, name=None, path=None, *, autocast=True, aggregation='none', synchronization='auto')
        A mutable tensor holding model state (weights, counters, seeds).
    convert_to_tensor(x, dtype=None)
        Convert an array-like (or Variable) to an engine tensor, optionally cast to `dtype`.
    convert_to_numpy(x)
        Copy a tensor, Variable or array-like (NumPy, lists, scalars) to a NumPy array.
    is_tensor(x)
        Whether `x` is an engine tensor.
    is_concrete(x)
        Whether `x` holds data now (NumPy, or an engine tensor outside any trace).
    shape(x)
        The shape of `x` as a tuple of ints.
    cast(x, dtype)
        `x` converted to `dtype`.
    stop_gradient(variable)
        `variable` unchanged, with no gradient flowing back through it.
    cond(pred, true_fn, false_fn)
        `true_fn()` if `pred` else `false_fn()`, traced as one conditional when compiled.
    scan(f, init, xs=None, length=None, reverse=False, unroll=1)
        Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, ys)`.
    fori_loop(lower, upper, body_fun, init_val)
        `for i in range(lower, upper): val = body_fun(i, val)` as one compiled loop.
    while_loop(cond, body, loop_vars, maximum_iterations=None)
        `while cond(vars): vars = body(vars)` as one compiled loop.
    vectorized_map(function, elements)
        `function` mapped over the leading axis of `elements`, vectorized.
    slice(inputs, start_indices, shape)
        The block of `inputs` of size `shape` starting at `start_indices`.
    slice_update(inputs, start_indices, updates)
        `inputs` with the block starting at `start_indices` replaced by `updates`.
    unstack(x, num=None, axis=0)
        The list of slices of `x` along `axis`.
    compute_output_spec(fn, args, kwargs, is_spec, make_spec)
        Output specs of `fn(*args, **kwargs)` by abstract evaluation, never on data.
    device_scope(device_name)
        A context placing the tensors made inside it on a device (`"cpu:0"`, `"gpu:1"`).
    jit(fn, donate_argnums=(), static_argnums=())
        `fn` compiled; donated arguments' buffers may be reused for the outputs.
    value_and_grad(fn, has_aux=False)
        A function returning `fn`'s value and its gradient with respect to the first argument.
    tree_map(fn, *trees)
        `fn` applied to the leaves of nested structures.
    tree_flatten(tree)
        The leaves of a nested structure, in order.
    device_put(x)
        `x` placed on the default device.
    block_until_ready(x)
        `x`, once every computation producing it has finished.
    associative_scan(f, elems, reverse=False, axis=0)
        Inclusive scan of `elems` along `axis` with the associative binary `f(a, b)`.
    custom_gradient(f)
        A function returning `f(*args)[0]` whose gradient is given by `f(*args)[1]`,
        called with the upstream gradient.
    jvp(fun, primals, tangents, has_aux=False)
        `(fun(*primals), J @ tangents)`: the forward-mode Jacobian-vector product.
    remat(f)
        `f` rematerialized (gradient checkpointing): the same values and gradients, its
        intermediate results recomputed in the backward pass instead of kept.
    map(f, xs)
        `f` applied to each slice of `xs` along its leading axis, results stacked.
    scatter(indices, values, shape)
        Zeros of `shape` with `values` added at `indices` (rows of `k` indices).
    scatter_update(inputs, indices, updates, reduction=None)
        `inputs` with `updates` written (or added, max-ed, min-ed, multiplied) at
        `indices`.
    switch(index, branches, *operands)
        `branches[index](*operands)`, `index` clamped to the branches.
    """
)

NUMPY = declare(
    """
    zeros(shape, dtype=None)
        A tensor of zeros (default dtype `floatx()`).
    ones(shape, dtype=None)
        A tensor of ones (default dtype `floatx()`).
    full(shape, fill_value, dtype=None)
        A tensor filled with `fill_value`.
    zeros_like(x, dtype=None)
        Zeros with the shape (and by default the dtype) of `x`.
    ones_like(x, dtype=None)
        Ones with the shape (and by default the dtype) of `x`.
    full_like(x, fill_value, dtype=None)
        `fill_value` with the shape (and by default the dtype) of `x`.
    eye(N, M=None, k=0, dtype=None)
        A 2-D tensor with ones on the `k`-th diagonal and zeros elsewhere.
    identity(n, dtype=None)
        The `n` by `n` identity matrix.
    arange(start, stop=None, step=None, dtype=None)
        Evenly spaced values in `[start, stop)` (`step` 1 when `None`).
    linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
        `num` evenly spaced values from `start` to `stop` (and the step if `retstep`).
    tri(N, M=None, k=0, dtype=None)
        Ones at and below the `k`-th diagonal, zeros above.
    tril(x, k=0)
        `x` with the elements above the `k`-th diagonal zeroed.
    triu(x, k=0)
        `x` with the elements below the `k`-th diagonal zeroed.
    meshgrid(*x, indexing='xy')
        Coordinate grids from 1-D coordinate vectors.
    copy(x)
        A copy of `x`.
    abs(x)
        Elementwise absolute value.
    absolute(x)
        Elementwise absolute value (alias of `abs`).
    negative(x)
        Elementwise negation.
    sign(x)
        Elementwise sign: -1, 0 or 1.
    sqrt(x)
        Elementwise square root.
    square(x)
        Elementwise square.
    exp(x)
        Elementwise exponential.
    expm1(x)
        Elementwise `exp(x) - 1`, accurate near zero.
    log(x)
        Elementwise natural logarithm.
    log1p(x)
        Elementwise `log(1 + x)`, accurate near zero.
    log2(x)
        Elementwise base-2 logarithm.
    log10(x)
        Elementwise base-10 logarithm.
    sin(x)
        Elementwise sine.
    cos(x)
        Elementwise cosine.
    tan(x)
        Elementwise tangent.
    arcsin(x)
        Elementwise inverse sine.
    arccos(x)
        Elementwise inverse cosine.
    arctan(x)
        Elementwise inverse tangent.
    sinh(x)
        Elementwise hyperbolic sine.
    cosh(x)
        Elementwise hyperbolic cosine.
    tanh(x)
        Elementwise hyperbolic tangent.
    arcsinh(x)
        Elementwise inverse hyperbolic sine.
    arccosh(x)
        Elementwise inverse hyperbolic cosine.
    arctanh(x)
        Elementwise inverse hyperbolic tangent.
    floor(x)
        Elementwise floor.
    ceil(x)
        Elementwise ceiling.
    round(x, decimals=0)
        Elementwise rounding to `decimals` decimals (halves to even).
    reciprocal(x)
        Elementwise `1 / x`.
    logical_not(x)
        Elementwise logical NOT.
    isnan(x)
        Elementwise test for NaN.
    isinf(x)
        Elementwise test for positive or negative infinity.
    isfinite(x)
        Elementwise test for finite values (not NaN, not infinite).
    nan_to_num(x, nan=0.0, posinf=None, neginf=None)
        `x` with NaN and infinities replaced by finite numbers.
    add(x1, x2)
        Elementwise `x1 + x2`, broadcast.
    subtract(x1, x2)
        Elementwise `x1 - x2`, broadcast.
    multiply(x1, x2)
        Elementwise `x1 * x2`, broadcast.
    divide(x1, x2)
        Elementwise true division `x1 / x2`, broadcast.
    true_divide(x1, x2)
        Elementwise true division `x1 / x2` (alias of `divide`).
    floor_divide(x1, x2)
        Elementwise `x1 // x2`.
    mod(x1, x2)
        Elementwise remainder of `x1 / x2`, with the sign of `x2`.
    power(x1, x2)
        Elementwise `x1 ** x2`.
    maximum(x1, x2)
        Elementwise maximum.
    minimum(x1, x2)
        Elementwise minimum.
    arctan2(x1, x2)
        Elementwise angle of the point `(x2, x1)`.
    logaddexp(x1, x2)
        Elementwise `log(exp(x1) + exp(x2))`, computed stably.
    equal(x1, x2)
        Elementwise `x1 == x2`.
    not_equal(x1, x2)
        Elementwise `x1 != x2`.
    less(x1, x2)
        Elementwise `x1 < x2`.
    less_equal(x1, x2)
        Elementwise `x1 <= x2`.
    greater(x1, x2)
        Elementwise `x1 > x2`.
    greater_equal(x1, x2)
        Elementwise `x1 >= x2`.
    logical_and(x1, x2)
        Elementwise logical AND.
    logical_or(x1, x2)
        Elementwise logical OR.
    logical_xor(x1, x2)
        Elementwise logical XOR.
    isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False)
        Elementwise `abs(x1 - x2) <= atol + rtol * abs(x2)`.
    clip(x, x_min, x_max)
        `x` limited to `[x_min, x_max]`.
    where(condition, x1=None, x2=None)
        `x1` where `condition` holds, else `x2`.
    matmul(x1, x2)
        Matrix product, batched over leading axes.
    dot(x1, x2)
        Dot product (NumPy's rules for each rank).
    einsum(subscripts, *operands, **kwargs)
        Einstein summation over `operands` as described by `subscripts`.
    tensordot(x1, x2, axes=2)
        Tensor contraction over `axes`.
    outer(x1, x2)
        Outer product of two vectors (inputs are flattened).
    cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None)
        Cross product of 3-vectors (or 2-vectors) along the given axes.
    sum(x, axis=None, keepdims=False)
        Sum of `x` along `axis`.
    mean(x, axis=None, keepdims=False)
        Arithmetic mean of `x` along `axis` (integer input averages as float).
    max(x, axis=None, keepdims=False, initial=None)
        Maximum of `x` along `axis` (at least `initial` when given).
    min(x, axis=None, keepdims=False, initial=None)
        Minimum of `x` along `axis` (at most `initial` when given).
    prod(x, axis=None, keepdims=False, dtype=None)
        Product of `x` along `axis`.
    std(x, axis=None, keepdims=False)
        Standard deviation of `x` along `axis`.
    var(x, axis=None, keepdims=False)
        Variance of `x` along `axis`.
    any(x, axis=None, keepdims=False)
        Whether any element along `axis` is true.
    all(x, axis=None, keepdims=False)
        Whether every element along `axis` is true.
    argmax(x, axis=None, keepdims=False)
        Index of the maximum along `axis`.
    argmin(x, axis=None, keepdims=False)
        Index of the minimum along `axis`.
    cumsum(x, axis=None, dtype=None)
        Cumulative sum along `axis` (flattened when `None`).
    cumprod(x, axis=None, dtype=None)
        Cumulative product along `axis` (flattened when `None`).
    count_nonzero(x, axis=None)
        Number of non-zero elements along `axis`.
    average(x, axis=None, weights=None)
        Weighted average of `x` along `axis`.
    trace(x, offset=0, axis1=0, axis2=1)
        Sum along a diagonal of `x`.
    reshape(x, newshape)
        `x` with shape `newshape` (one dimension may be -1 or `None`).
    transpose(x, axes=None)
        `x` with axes permuted (reversed when `axes` is `None`).
    expand_dims(x, axis)
        `x` with a new axis of length 1 at `axis`.
    squeeze(x, axis=None)
        `x` without its axes of length 1 (or only `axis`).
    ravel(x)
        `x` flattened to one dimension.
    flip(x, axis=None)
        `x` with the order of elements along `axis` reversed.
    roll(x, shift, axis=None)
        `x` with elements shifted cyclically by `shift` along `axis`.
    swapaxes(x, axis1, axis2)
        `x` with two axes interchanged.
    moveaxis(x, source, destination)
        `x` with axes moved from `source` to `destination`.
    broadcast_to(x, shape)
        `x` broadcast to `shape`.
    concatenate(xs, axis=0)
        The tensors `xs` joined along an existing `axis`.
    stack(x, axis=0)
        The tensors `x` joined along a new `axis`.
    split(x, indices_or_sections, axis=0)
        `x` split into a list of sub-tensors along `axis`.
    append(x1, x2, axis=None)
        `x2` appended to the end of `x1` along `axis` (flattened when `None`).
    tile(x, repeats)
        `x` repeated `repeats` times along each axis.
    repeat(x, repeats, axis=None)
        Each element of `x` repeated `repeats` times along `axis`.
    pad(x, pad_width, mode='constant', constant_values=None)
        `x` padded by `pad_width` (one `(before, after)` pair per axis).
    take(x, indices, axis=None)
        Elements of `x` at `indices` along `axis` (flattened when `None`).
    take_along_axis(x, indices, axis=None)
        Elements of `x` picked by matching one-dimensional `indices` along `axis`.
    diag(x, k=0)
        The `k`-th diagonal of a matrix, or a diagonal matrix from a vector.
    diagonal(x, offset=0, axis1=0, axis2=1)
        The diagonal of `x` taken over `axis1` and `axis2`.
    sort(x, axis=-1)
        `x` sorted along `axis`.
    argsort(x, axis=-1)
        Indices that sort `x` along `axis`.
    searchsorted(sorted_sequence, values, side='left')
        Where `values` would be inserted in `sorted_sequence` to keep it sorted.
    digitize(x, bins)
        The bucket of each value: `i` such that `bins[i - 1] <= x < bins[i]`.
    bincount(x, weights=None, minlength=0, sparse=False)
        Counts of each non-negative integer in `x` (weighted by `weights`).
    size(x)
        The number of elements of `x`.
    ndim(x)
        The number of dimensions of `x`.
    get_item(x, key)
        `x[key]`.
    bitwise_and(x, y)
        Elementwise bitwise AND of integer (or bool) tensors.
    bitwise_or(x, y)
        Elementwise bitwise OR of integer (or bool) tensors.
    bitwise_xor(x, y)
        Elementwise bitwise XOR of integer (or bool) tensors.
    bitwise_invert(x)
        Elementwise bitwise NOT (logical NOT for bool).
    bitwise_left_shift(x, y)
        Elementwise `x << y`.
    bitwise_right_shift(x, y)
        Elementwise `x >> y`.
    gcd(x1, x2)
        Elementwise greatest common divisor of integers.
    lcm(x1, x2)
        Elementwise least common multiple of integers.
    fmod(x1, x2)
        Elementwise remainder of `x1 / x2` with the sign of `x1` (C's `fmod`).
    hypot(x1, x2)
        Elementwise `sqrt(x1 ** 2 + x2 ** 2)`, without overflow.
    nextafter(x1, x2)
        The next representable float after `x1` toward `x2`.
    i0(x)
        Modified Bessel function of the first kind, order 0.
    signbit(x)
        Whether the sign bit is set (True for -0.0 and negative numbers).
    trunc(x)
        Elementwise rounding toward zero.
    isin(x1, x2, assume_unique=False, invert=False)
        Whether each element of `x1` is in `x2` (not in it, with `invert`).
    real(x)
        The real part of `x`.
    imag(x)
        The imaginary part of `x` (zeros for real tensors).
    conj(x)
        The complex conjugate of `x`.
    angle(x)
        The argument (phase angle) of each complex element; 0 or pi for reals.
    quantile(x, q, axis=None, method='linear', keepdims=False)
        The `q`-th quantiles of `x` along `axis` (`q` in `[0, 1]`).
    nanquantile(x, q, axis=None, method='linear', keepdims=False)
        `quantile` ignoring NaNs.
    median(x, axis=None, keepdims=False)
        Median of `x` along `axis`.
    nanmedian(x, axis=None, keepdims=False)
        Median of `x` along `axis`, ignoring NaNs.
    nonzero(x)
        The indices of the non-zero elements, one tensor per axis.
    unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None, size=None, fill_value=None)
        The sorted unique elements of `x` (and first indices, inverse, counts); `size`
        pads or truncates to a static length.
    argpartition(x, kth, axis=-1)
        Indices that partition `x` along `axis` around its `kth` smallest element.
    histogram(x, bins=10, range=None)
        Counts (as floats) of 1-D `x` in `bins` equal bins over `range`, and the bin edges.
    correlate(x1, x2, mode='valid')
        Cross-correlation of two 1-D sequences.
    view(x, dtype=None)
        The bits of `x` reinterpreted as `dtype`.
    vectorize(pyfunc, excluded=None, signature=None)
        `pyfunc` made to apply elementwise (or over core dimensions) with broadcasting.
    """
)

NN = declare(
    """
    relu(x)
        Rectified linear unit: `max(x, 0)`.
    relu6(x)
        ReLU capped at 6: `min(max(x, 0), 6)`.
    sigmoid(x)
        Logistic sigmoid: `1 / (1 + exp(-x))`.
    hard_sigmoid(x)
        Piecewise-linear sigmoid: `clip(x / 6 + 0.5, 0, 1)`.
    hard_silu(x)
        `x * hard_sigmoid(x)`.
    softplus(x)
        `log(1 + exp(x))`, computed stably.
    softsign(x)
        `x / (1 + abs(x))`.
    silu(x)
        Sigmoid linear unit (swish): `x * sigmoid(x)`.
    log_sigmoid(x)
        `log(sigmoid(x))`, computed stably.
    leaky_relu(x, negative_slope=0.2)
        `x` if positive, else `negative_slope * x`.
    elu(x, alpha=1.0)
        Exponential linear unit: `x` if positive, else `alpha * (exp(x) - 1)`.
    selu(x)
        Scaled exponential linear unit (self-normalizing).
    gelu(x, approximate=True)
        Gaussian error linear unit (tanh approximation unless `approximate=False`).
    mish(x)
        `x * tanh(softplus(x))`.
    softmax(x, axis=-1)
        `exp(x)` normalized to sum to 1 along `axis`.
    log_softmax(x, axis=-1)
        `log(softmax(x))` along `axis`, computed stably.
    one_hot(x, num_classes, axis=-1, dtype=None, sparse=False)
        One-hot encoding of integer `x` with `num_classes` classes on `axis`.
    sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1)
        Per-sample cross-entropy of integer labels `target` against class scores
        `output` (probabilities, normalised and clipped, or logits); out-of-range labels
        give 0.
    moments(x, axes, keepdims=False, synchronized=False)
        Mean and variance of `x` over `axes`.
    conv(inputs, kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        N-D convolution (kernel layout `(*spatial, in_channels / groups, out_channels)`).
    depthwise_conv(inputs, kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        N-D depthwise convolution (kernel `(*spatial, in_channels, multiplier)`).
    separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        Depthwise convolution followed by a pointwise (1x1) convolution.
    conv_transpose(inputs, kernel, strides=1, padding='valid', output_padding=None, data_format=None, dilation_rate=1)
        N-D transposed convolution (kernel `(*spatial, out_channels, in_channels)`).
    max_pool(inputs, pool_size, strides=None, padding='valid', data_format=None)
        N-D max pooling.
    average_pool(inputs, pool_size, strides=None, padding='valid', data_format=None)
        N-D average pooling (padding excluded from the average).
    unfold(x, kernel_size, dilation=1, padding=0, stride=1)
        Sliding patches of `(N, C, H, W)` images as columns `(N, C * kh * kw, L)`.
    fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1)
        The inverse layout of `unfold`: columns summed back into `(N, C, H, W)` images.
    polar(abs_, angle)
        The complex numbers with magnitude `abs_` and phase `angle`.
    ctc_loss(target, output, target_length, output_length, mask_index=0)
        The engine's own CTC kernel, where it has one: the per-sample CTC loss of logits
        `output` `(batch, time, classes)` (log-softmax applied; an impossible alignment
        gives a large finite loss, about 1e5), differentiable; None where the engine has
        none, and `lamina.ops.ctc_loss` runs its own forward algorithm.
    """
)

MATH = declare(
    """
    top_k(x, k, sorted=True)
        The `k` largest values along the last axis and their indices.
    in_top_k(targets, predictions, k)
        Whether each target's score is among the `k` largest of its row of `predictions`.
    logsumexp(x, axis=None, keepdims=False)
        `log(sum(exp(x)))` along `axis`, computed stably.
    erf(x)
        Elementwise Gauss error function.
    rsqrt(x)
        Elementwise `1 / sqrt(x)`.
    segment_sum(data, segment_ids, num_segments=None, sorted=False)
        Sums of the rows of `data` sharing a segment id.
    norm(x, ord=None, axis=None, keepdims=False)
        Vector or matrix norm of `x`.
    qr(x, mode='reduced')
        QR decomposition: `q, r` with `x = q @ r`.
    segment_max(data, segment_ids, num_segments=None, sorted=False)
        Maxima of the rows of `data` sharing a segment id (the lowest value when empty).
    segment_min(data, segment_ids, num_segments=None, sorted=False)
        Minima of the rows of `data` sharing a segment id (the highest value when empty).
    segment_prod(data, segment_ids, num_segments=None, sorted=False)
        Products of the rows of `data` sharing a segment id (1 when empty).
    erfc(x)
        Elementwise complementary error function `1 - erf(x)`, accurate for large `x`.
    erfinv(x)
        Elementwise inverse of the error function.
    fft(x)
        Discrete Fourier transform along the last axis of `x = (real, imag)`; returns
        `(real, imag)`.
    fft2(x)
        2-D discrete Fourier transform over the last two axes of `x = (real, imag)`.
    ifft2(x)
        Inverse 2-D discrete Fourier transform over the last two axes of `(real, imag)`.
    rfft(x, fft_length=None)
        Fourier transform of real `x` along its last axis (`fft_length // 2 + 1`
        frequencies); returns `(real, imag)`.
    view_as_complex(x)
        Complex numbers from the pairs on the last axis (length 2) of real `x`.
    view_as_real(x)
        Complex `x` as real pairs on a new last axis.
    irfft(x, fft_length=None)
        The real signal whose `rfft` is `x = (real, imag)` (length `fft_length`, by
        default `2 * (n - 1)`).
    """
)

LINALG = declare(
    """
    cholesky(x, upper=False)
        Cholesky factor of symmetric positive-definite `x`: lower `L` with `x = L L^T`
        (upper `U = L^T` when `upper`).
    cholesky_inverse(x, upper=False)
        The inverse of `A` from its Cholesky factor `x` (lower unless `upper`).
    det(x)
        Determinant of the matrices on the last two axes.
    slogdet(x)
        `(sign, log(abs(det(x))))`, computed stably.
    eig(x)
        Eigenvalues and eigenvectors of a square matrix.
    eigh(x)
        Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix.
    inv(x)
        Inverse of the matrices on the last two axes.
    lstsq(a, b, rcond=None)
        The `x` minimizing `norm(a @ x - b)` (least squares).
    lu_factor(x)
        LU factorization with partial pivoting: `(lu, pivots)` as SciPy returns them.
    matrix_rank(x, tol=None)
        Number of singular values above `tol` (NumPy's default tolerance when `None`).
    pinv(x, rcond=None)
        Moore-Penrose pseudo-inverse (singular values below `rcond` times the largest
        are treated as zero).
    solve(a, b)
        The `x` with `a @ x = b` for square `a`.
    solve_triangular(a, b, lower=False)
        The `x` with `a @ x = b` for triangular `a` (upper unless `lower`).
    svd(x, full_matrices=True, compute_uv=True)
        Singular value decomposition `(u, s, vh)` with `x = u @ diag(s) @ vh` (only `s`
        when not `compute_uv`).
    """
)

IMAGE = declare(
    """
    resize(images, size, interpolation='bilinear', antialias=False, crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode='constant', fill_value=0.0, data_format=None)
        `images` resized to `size` (optionally cropped or padded to its aspect ratio first).
    affine_transform(images, transform, interpolation='bilinear', fill_mode='constant', fill_value=0, data_format=None)
        `images` resampled through projective `transform`s (8 numbers each).
    map_coordinates(inputs, coordinates, order, fill_mode='constant', fill_value=0)
        `inputs` interpolated (order 0: nearest, 1: linear) at `coordinates` (one array of
        positions per input axis, stacked first).
    scale_and_translate(images, output_shape, scale, translation, spatial_dims, method, antialias=True)
        `images` resampled to `output_shape` through a per-axis scale and translation.
    """
)

RANDOM = declare(
    """
    SEED_DTYPE
        The dtype of seed tensors (the state of a `SeedGenerator`).
    make_seed(seed)
        A seed tensor (two `SEED_DTYPE` numbers) from an integer seed.
    normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        Samples from a normal distribution.
    uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None)
        Samples from a uniform distribution on `[minval, maxval)`.
    truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)
        Normal samples re-drawn beyond two standard deviations.
    randint(shape, minval, maxval, dtype='int32', seed=None)
        Integers uniformly drawn from `[minval, maxval)`.
    categorical(logits, num_samples, dtype='int32', seed=None)
        Class indices drawn from the categorical distributions given by `logits`.
    dropout(inputs, rate, noise_shape=None, seed=None)
        Zero each element with probability `rate`, scaling the rest by `1 / (1 - rate)`.
    shuffle(x, axis=0, seed=None)
        A random permutation of `x` along `axis`.
    gamma(shape, alpha, dtype=None, seed=None)
        Samples from a Gamma distribution with concentration `alpha` and rate 1.
    binomial(shape, counts, probabilities, dtype=None, seed=None)
        Numbers of successes in `counts` trials of success probability `probabilities`.
    beta(shape, alpha, beta, dtype=None, seed=None)
        Samples from a Beta distribution with parameters `alpha` and `beta`.
    """
)

EXECUTION = declare(
    """
    STATEFUL
        True where `fit` runs steps statefully (torch: `train_step(self, data)` updates
        the variables in place), False where steps are pure functions of the state (JAX).
    Program(fn, name, donate_argnums=(), static_argnums=(), compiled=True, max_signatures=32, gradients=False, live=False, jit=None, replay=None)
        A step compiled once per input signature; `compiled=False` runs it as is;
        `gradients=True` for a step that differentiates (a taping engine records only then);
        `live=True` for a stateful engine's step on the live variables (no strict scope);
        `jit=model` on an eager engine compiles the model's `call` inside the step
        (`compile(jit_compile=True)`: `torch.compile`), ignored where steps compile whole;
        `replay=variables_for` on an eager engine runs a read-only step (predict's) from a
        graph of its operations captured once per signature, while `variables_for()`
        names the variables it reads (None: eagerly); ignored where steps compile whole.
    program(fn, name, **kwargs)
        Make the `Program` that runs the step `fn` (see `Program`'s arguments).
    captured(fn, name, variables_for)
        On an eager engine, `fn(data)` (a stateful train step's forward pass and loss) run
        from a graph of its operations captured once per input signature, under autograd,
        while `variables_for()` names the variables it reads (None: eagerly); `fn` itself
        where steps compile whole.
    no_grad()
        A context in which operations are not recorded for differentiation (an optimizer
        update on a taping engine); changes nothing on JAX.
    gradients(loss, variables)
        On a stateful engine, the gradients of the scalar `loss` just computed with respect
        to `variables` (Variables), detached; a stateless engine refuses, naming
        `value_and_grad`.
    profile_trace(log_dir)
        A context running the engine's own profiler over the block; the trace is written
        for TensorBoard under `log_dir/plugins/profile/<run>/` (`jax.profiler`'s layout).
    """
)

LAYER = declare(
    """
    LayerBase(...)
        The engine's base of every `Layer` (`torch.nn.Module` on torch; nothing on JAX).
    dense(x, kernel, bias=None)
        `Dense`'s math, `x @ kernel + bias` exactly as `matmul` then `add` give it, with
        one fused kernel where the engine has one.
    wrap_modules(wrapper)
        From now on a layer replaces a bare engine module assigned as its attribute by
        `wrapper(module)` (Keras's torch backend wraps a `torch.nn.Module` so); nothing on JAX.
    module_variables(module, path, who)
        `TorchModuleWrapper`'s parameters: checks `module` (a `torch.nn.Module`), moves it
        to the engine's device and returns `[(name, Variable)]`, each Variable holding the
        parameter's own tensor. JAX, which has no modules, raises naming the fix.
    call_module(module, variables, training, args, kwargs)
        `module(*args, **kwargs)` with its parameters read through `variables` (so
        stateless scopes and abstract evaluation apply); `training` False puts it in
        eval mode, anything else in train mode (Keras's rule).
    module_state(module)
        The module's `state_dict()` (parameters and buffers) as NumPy arrays by name.
    load_module_state(module, state, who)
        Load `{name: array}` into the module's `state_dict`, refusing other entries or shapes.
    serialize_module(module)
        The module pickled (`torch.save`) as base64 text, Keras's `TorchModuleWrapper` config.
    deserialize_module(data)
        The module `serialize_module` wrote; runs pickle, so callers check `safe_mode` first.
    """
)

OPTIMIZERS = declare(
    """
    fused_apply(kind, variables, grads, slots, learning_rate, step, hyper)
        One optimizer step applied in place to the live `variables` with the engine's
        fused kernels (`kind` `"sgd"` or `"adam"`, `slots` the slot Variables of each
        variable, `hyper` the rule's hyperparameters); False when the engine has none,
        and the generic update runs.
    """
)

DISTRIBUTION = declare(
    """
    MODEL_PARALLEL
        Whether variables may be split over devices (`ModelParallel`).
    MODEL_PARALLEL_MESSAGE
        Why not, when `MODEL_PARALLEL` is False (names what to use instead).
    list_devices(device_type=None)
        The engine's devices as strings such as `"cpu:0"` (of `device_type` when given).
    to_mesh(shape, axis_names, devices)
        The engine's device mesh of `shape` over `devices` (strings), axes `axis_names`.
    to_layout(axes, mesh)
        The engine's layout splitting dimension i of a tensor over mesh axis `axes[i]`
        (`None`: not split) of `mesh` (from `to_mesh`).
    distribute_tensor(x, layout)
        `x` placed on the layout's devices, sharded as it says.
    distribute_data(x, layout)
        This process's part of a batch (its own rows) placed as part of the global batch
        `layout` splits over the devices of every process.
    distribute_variable(x, layout)
        A new variable's value placed as `layout` says; in a job of several processes
        every process gets process 0's value (so all replicas start equal).
    create_distributed(fn, layout)
        Run `fn()`, which returns `(value, extras)`, so that `value` (a new variable's
        initial value) is made directly in `layout`, each device computing its own part
        (never whole on one device); returns `(value, extras)`, `extras` (small arrays,
        such as advanced seed states) as ordinary arrays of this process.
    all_reduce_mean(values)
        Each tensor of `values` averaged over the processes of the job (the gradients of
        data-parallel training); as it is with one process, or where the compiled step
        already reduces them (JAX).
    layout_of(x)
        The engine layout of tensor `x`, or `None`.
    step_done(values, mesh)
        Called with a step's results under a distribution over `mesh` (from `to_mesh`);
        waits for them where the engine cannot safely queue the next step.
    initialize(job_addresses=None, num_processes=None, process_id=None)
        Join the processes of one job, coordinated at `job_addresses` (`host:port`).
    process_count()
        How many processes take part (1 unless `initialize` joined a job).
    process_index()
        This process's rank among `process_count()`.
    """
)

# Exporting inference programs (`lamina.export`) ------------------------------------------
EXPORT = declare(
    """
    FORMATS
        The export formats the engine writes (`Model.export(format=...)`), its own
        program format first.
    write_program(fn, weights, arguments, format, filepath, output_names=None, options=None)
        Trace `fn(values, *args)` once for inference and write it to `filepath` in
        `format`: `weights` maps names to the tensors the program keeps (passed to `fn`
        as the list `values`, in order), `arguments` is a tuple of positional arguments
        as nested lists/tuples/dicts of specs (`.shape` with `None` for a size left free,
        `.dtype`, `.name`), `output_names` names the flat outputs where the format has
        names, `options` are the format's own options.
    read_program(filepath, format)
        A callable running a program the engine wrote in `format` in the format's own
        runtime (`jax.export.deserialize`, `torch.export.load`).
    """
)

ENGINE: dict[str, dict[str, Declaration]] = {
    "core": CORE,
    "numpy": NUMPY,
    "nn": NN,
    "math": MATH,
    "linalg": LINALG,
    "image": IMAGE,
    "random": RANDOM,
    "execution": EXECUTION,
    "layer": LAYER,
    "optimizers": OPTIMIZERS,
    "distribution": DISTRIBUTION,
    "export": EXPORT,
}


# What lamina.backend provides itself, whatever the engine ------------------------------
COMMON: dict[str, dict[str, Declaration]] = {
    "config": declare(
        """
        backend()
            Name of the engine in use.
        floatx()
            The default float dtype, such as `"float32"`.
        set_floatx(value)
            Set the default float dtype.
        epsilon()
            The fuzz factor used to avoid division by zero.
        set_epsilon(value)
            Set the fuzz factor.
        image_data_format()
            The default image layout: `"channels_last"` or `"channels_first"`.
        set_image_data_format(data_format)
            Set the default image layout.
        standardize_data_format(data_format)
            Resolve `None` to the default image layout and validate the value.
        """
    ),
    "common.variables": declare(
        """
        Variable(initializer, shape=None, dtype=None, trainable=True, name=None, path=None, *, autocast=True, aggregation='none', synchronization='auto')
            The engine-independent base of every engine's Variable.
        StatelessScope(state_mapping=(), collect_losses=False)
            A scope mapping Variables to values: reads come from it, assigns are recorded.
        current_stateless_scope()
            The innermost StatelessScope, or `None`.
        in_stateless_scope()
            Whether a StatelessScope is active.
        standardize_dtype(dtype)
            The canonical string name of a dtype (`"float32"`, `"int64"`, ...).
        AllocationBudget(max_bytes, what, how_to_raise)
            A cap on the bytes Variables may allocate inside the scope.
        deferred_initialization()
            A block (a load) in which built-in initializers take their seeds at once but
            draw a Variable's value only when it is read or the block ends unassigned.
        structure_version()
            A number that changes whenever a variable is created or trainability changes.
        bump_structure_version()
            Change `structure_version()` (a layer's `trainable` flag was set).
        relaxed(keep_scopes=False)
            A context suspending the strict check of compiled steps (and, unless
            `keep_scopes`, the stateless scopes): a stateful step reads live variables.
        set_pending_sync(fn)
            Register the write-back run before any variable is read or assigned outside
            a stateless scope (`fit` holding its state between compiled calls).
        """
    ),
    "common.name_scope": declare(
        """
        name_scope(name, caller=None, deduplicate=True, override_parent=None)
            A context adding `name` to the path of the variables made inside it.
        current_path()
            The path of the innermost open name scope (`""` outside any).
        """
    ),
    "common.symbolic_scope": declare(
        """
        SymbolicScope()
            A context marking symbolic (abstract) evaluation.
        get_symbolic_scope()
            The innermost open SymbolicScope, or `None`.
        in_symbolic_scope()
            Whether a SymbolicScope is open.
        """
    ),
    "common.devices": declare(
        """
        VALID_FORMS
            The device names `lamina.device` takes, in words.
        parse_device_name(device_name)
            `(kind, index)` of a device name such as `"gpu:1"` (`"cuda"` is `"gpu"`).
        unavailable(device_name, available)
            The error for a device this machine does not have.
        """
    ),
    "common.execution": declare(
        """
        RetraceWarning(...)
            Issued when one compiled program keeps being traced for new signatures.
        profile()
            A context collecting each program's calls, compiles and seconds in the block.
        profiling()
            Whether a `profile()` block is collecting.
        record_call(name, seconds, traced)
            Report one program call to the active profiles (engines' Programs call this).
        """
    ),
    "common.global_state": declare(
        """
        to_snake_case(name)
            Keras's rule: `Conv2DTranspose` -> `conv2d_transpose`.
        unique_name(base)
            `base` the first time, then `base_1`, `base_2`, ...
        register_reset_hook(fn)
            Run `fn()` on `clear_session()`.
        reset_session()
            Reset automatic names and run the reset hooks.
        current_distribution()
            The distribution set with `lamina.distribution.set_distribution`, or `None`.
        set_current_distribution(value)
            Record the distribution in use (`None`: one device).
        """
    ),
    "common.classic": declare(
        """
        register_classic_api(namespace)
            Make the classic API's names reachable as `lamina.backend.<name>`
            (`lamina.legacy` registers itself when `lamina` is imported).
        classic_api()
            The registered classic namespace, or `None` before the registration.
        NOT_REGISTERED
            Why a classic name is missing when nothing registered the classic API.
        """
    ),
    "common.dtypes": declare(
        """
        result_type(*dtypes)
            The dtype Keras 3 promotes `dtypes` to (Python `int`/`float`/`bool` are weak).
        is_float_dtype(dtype)
            Whether `dtype` is a floating type (`float16/32/64`, `bfloat16`).
        is_int_dtype(dtype)
            Whether `dtype` is a signed or unsigned integer type.
        """
    ),
    "common.shapes": declare(
        """
        conv_transpose_output_length(length, kernel_size, stride, padding='valid', output_padding=None, dilation=1)
            Keras's length of a transposed convolution's output along one axis.
        check_resize_args(interpolation, methods, crop, pad, fill_mode, ndim, size)
            Validate `resize`'s arguments; returns the checked size.
        aspect_ratio_window(height, width, size, crop)
            Where `resize` crops (`crop`) or pads `(height, width)` to `size`'s aspect ratio.
        check_affine_args(interpolation, fill_mode)
            Validate `affine_transform`'s arguments.
        check_map_coordinates_args(input_shape, coordinates_shape, order, fill_mode)
            Validate `map_coordinates`'s arguments.
        check_scale_and_translate_args(input_shape, output_shape, spatial_dims, n_scale, n_translation, method)
            Validate `scale_and_translate`'s arguments; returns the checked output shape
            and spatial dims.
        """
    ),
    "": declare(
        """
        function(inputs, outputs, updates=None, name=None)
            The classic `K.function`: a callable from input values to output values.
        clear_session(free_memory=True)
            Reset automatic layer names and the global seed state (and the reset hooks'
            state); with `free_memory`, run Python's garbage collector too.
        """
    ),
}

# The names `lamina.backend` offers at its top level: the engine modules, its own names,
# and these re-exports of engine `core` and of `COMMON` names.
NAMESPACE: frozenset[str] = frozenset(
    [
        *ENGINE,
        *COMMON[""],
        *COMMON["config"],
        "StatelessScope",
        "Program",
        "RetraceWarning",
        "profile",
        "set_pending_sync",
        "result_type",
        "is_float_dtype",
        "is_int_dtype",
        "current_stateless_scope",
        "in_stateless_scope",
        "standardize_dtype",
        "Variable",
        "block_until_ready",
        "cast",
        "cond",
        "convert_to_numpy",
        "convert_to_tensor",
        "fori_loop",
        "is_tensor",
        "jit",
        "scan",
        "shape",
        "stop_gradient",
        "value_and_grad",
        "while_loop",
    ]
)
