"""The cases of the op harness (`test_op_parity.py`): one call per public op, written once
against a namespace `o` and run with `o = lamina.ops` and `o = keras.ops` (Keras 3 on JAX,
the reference; `o.random` is `keras.random` there).

An op with no entry in `CASES` gets a derived case from its signature: an op whose only
required argument is `x` is called on `X` (or on the input `DOMAIN` names for it), one
whose required arguments are `(x1, x2)` or `(x, y)` on `(X, Y)` (or `DOMAIN`'s pair). So a
new export is compared without an edit here; one that fits neither form fails
`test_every_op_is_covered` until it has a case or a reasoned entry in `NOT_COMPARED`.

A case is `(f, inputs)` or `(f, inputs, options)`; `f(o, *inputs)` is the call. Options:
`"spec"` compares only shapes and dtypes (random or uninitialised values);
`"eager_only"` skips the symbolic mode (the op takes functions, or its output shape
depends on values, or it returns Python values); `"rtol"`/`"atol"` widen the dtype's
tolerance where the two engines' algorithms round differently.
"""

from __future__ import annotations

import numpy as np

_R = np.random.RandomState(0)


def _rand(*shape, low=-2.0, high=2.0, dtype="float32"):
    return _R.uniform(low, high, size=shape).astype(dtype)


X = _rand(3, 4)
Y = _rand(3, 4)
POS = _rand(3, 4, low=0.2, high=0.9)  # the domain of log, arcsin, arctanh, ...
GT1 = _rand(3, 4, low=1.1, high=3.0)  # arccosh's
INTS = np.array([[5, 1, 7, 0], [2, 6, 3, 1], [4, 0, 2, 7]], "int32")
SHIFTS = np.array([[1, 2, 0, 3], [0, 1, 1, 2], [3, 0, 2, 1]], "int32")
BOOL = X > 0
BOOL2 = Y > 0
VEC = _rand(5)
VEC3 = _rand(3)
SQ = _rand(3, 3)
SPD = (SQ @ SQ.T + 3 * np.eye(3)).astype("float32")
UPPER = np.triu(SPD).astype("float32")
NANS = np.where(_R.uniform(size=(3, 4)) > 0.7, np.nan, X).astype("float32")
SPECIAL = np.array(
    [[0.0, -0.0, np.inf, -np.inf], [1.5, -2.5, np.nan, 3.0], [0.0, 1.0, -1.0, 2.0]], "float32"
)
IMG = _rand(2, 6, 6, 3, low=0.0, high=1.0)  # a batch of channels-last images
SEQ = _rand(2, 5, 4)  # (batch, steps, features)
KERNEL1D = _rand(3, 4, 2)
LOGITS = _rand(4, 5)
LABELS = np.array([1, 0, 4, 2], "int32")
ONEHOT = np.eye(5, dtype="float32")[LABELS]
PROBS = (np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)).astype("float32")
SIGNAL = _rand(2, 16)


def _average_pool_same_1d(x, size):
    """Pool windows of `size` with stride `size`, the last one cut at the input's end
    ("same" pads on the right only here), averaged over the elements they hold."""
    steps = -(-x.shape[1] // size)
    return np.stack(
        [x[:, i * size : (i + 1) * size].mean(axis=1) for i in range(steps)], axis=1
    ).astype(x.dtype)


def _sparsemax(x, axis=-1):
    """Martins & Astudillo (2016), Algorithm 1."""
    x = np.moveaxis(x, axis, -1).astype("float64")
    z = -np.sort(-x, axis=-1)
    cumulative = np.cumsum(z, axis=-1)
    support = 1 + np.arange(1, x.shape[-1] + 1) * z > cumulative
    size = support.sum(axis=-1, keepdims=True)
    tau = (np.take_along_axis(cumulative, size - 1, axis=-1) - 1) / size
    return np.moveaxis(np.maximum(x - tau, 0), -1, axis).astype("float32")


# Inputs of the derived cases, by op name (others take X, or (X, Y)).
DOMAIN = {
    **dict.fromkeys(
        "log log1p log2 log10 sqrt rsqrt arcsin arccos arctanh erfinv reciprocal".split(), (POS,)
    ),
    "arccosh": (GT1,),
    **dict.fromkeys("bitwise_invert bitwise_not bincount count_nonzero".split(), (INTS,)),
    "logical_not": (BOOL,),
    **dict.fromkeys(
        "cholesky cholesky_inverse det inv logdet slogdet eigh matrix_rank pinv lu_factor qr "
        "svd trace diagonal".split(),
        (SPD,),
    ),
    **dict.fromkeys(
        "nan_to_num isnan isinf isfinite isneginf isposinf signbit".split(), (SPECIAL,)
    ),
    **dict.fromkeys(
        "nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanprod "
        "nanstd nansum nanvar".split(),
        (NANS,),
    ),
    **dict.fromkeys("bartlett blackman hamming hanning".split(), (7,)),
    **dict.fromkeys("diag diagflat vander".split(), (VEC,)),
    "histogram": (VEC,),
    **dict.fromkeys(
        "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift left_shift "
        "right_shift gcd lcm".split(),
        (INTS, SHIFTS),
    ),
    **dict.fromkeys("logical_and logical_or logical_xor".split(), (BOOL, BOOL2)),
    "power": (POS, Y),
    "ldexp": (X, SHIFTS),
    "matmul": (X, Y.T.copy()),
    "dot": (X, Y.T.copy()),
    "cross": (_rand(3, 3), _rand(3, 3)),
    "correlate": (VEC, VEC3),
    "kron": (SQ, SQ),
    "vdot": (VEC, VEC),
    "inner": (X, Y),
    "cdist": (X, Y),
}

# Ops whose derived case would not be meaningful, and every op of another form.
CASES = {
    # -- core
    "convert_to_numpy": (lambda o, x: o.convert_to_numpy(x), (X,), {"eager_only": True}),
    "dtype": (lambda o, x: o.dtype(x), (X,), {"eager_only": True}),
    "is_tensor": (lambda o, x: o.is_tensor(o.convert_to_tensor(x)), (X,), {"eager_only": True}),
    "shape": (lambda o, x: o.shape(x), (X,), {"eager_only": True}),
    "size": (lambda o, x: o.size(x), (X,), {"eager_only": True}),
    "ndim": (lambda o, x: o.ndim(x), (X,), {"eager_only": True}),
    "cast": (lambda o, x: o.cast(x, "int32"), (X,)),
    "saturate_cast": (lambda o, x: o.saturate_cast(x * 100.0, "int8"), (X,)),
    "convert_to_tensor": (lambda o, x: o.convert_to_tensor(x, dtype="float16"), (X,)),
    "unstack": (lambda o, x: o.unstack(x, axis=1), (X,)),
    "cond": (
        lambda o, x: o.cond(o.sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0),
        (X,),
        {"eager_only": True},
    ),
    "while_loop": (
        lambda o, x: o.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 1.5), (0, x)),
        (X,),
        {"eager_only": True},
    ),
    "fori_loop": (
        lambda o, x: o.fori_loop(
            0, 3, lambda i, s: s + o.cast(i, "float32") * s, o.convert_to_tensor(x)
        ),
        (X,),
        {"eager_only": True},
    ),
    "scan": (
        lambda o, x: o.scan(lambda c, v: (c + v, c * v), o.zeros((4,)), x),
        (X,),
        {"eager_only": True},
    ),
    "associative_scan": (
        lambda o, x: o.associative_scan(lambda a, b: a + b, x, axis=1),
        (X,),
        {"eager_only": True},
    ),
    "map": (lambda o, x: o.map(lambda row: row * 2.0 + 1.0, x), (X,), {"eager_only": True}),
    "switch": (
        lambda o, x: o.switch(1, [lambda v: v + 1.0, lambda v: v * 3.0], x),
        (X,),
        {"eager_only": True},
    ),
    "vectorized_map": (
        lambda o, x: o.vectorized_map(lambda row: o.sum(row * row), x),
        (X,),
        {"eager_only": True},
    ),
    "vectorize": (
        lambda o, x: o.vectorize(lambda a: a * 2.0 + 1.0)(x),
        (X,),
        {"eager_only": True},
    ),
    "custom_gradient": (
        lambda o, x: o.custom_gradient(lambda v: (v * v, lambda g: g * 2.0 * v))(x),
        (X,),
        {"eager_only": True},
    ),
    "jvp": (
        lambda o, x: o.jvp(lambda v: o.sin(v) * v, (x,), (o.ones_like(x),)),
        (X,),
        {"eager_only": True},
    ),
    "linalg.jvp": (
        lambda o, x: o.linalg.jvp(lambda v: o.exp(v), (x,), (o.ones_like(x),)),
        (X,),
        {"eager_only": True},
    ),
    "stop_gradient": (lambda o, x: o.stop_gradient(x), (X,)),
    "scatter": (
        lambda o, v: o.scatter(np.array([[0, 1], [2, 3]], "int32"), v, (3, 4)),
        (np.array([1.5, -2.0], "float32"),),
    ),
    "scatter_update": (
        lambda o, x: o.scatter_update(x, np.array([[0, 1], [2, 3]], "int32"), [5.0, 6.0]),
        (X,),
    ),
    "slice": (lambda o, x: o.slice(x, (1, 1), (2, 2)), (X,)),
    "slice_update": (lambda o, x: o.slice_update(x, (1, 2), np.ones((2, 2), "float32")), (X,)),
    "get_item": (lambda o, x: o.get_item(x, 1), (X,)),
    "rearrange": (lambda o, x: o.rearrange(x, "a b -> b a"), (X,)),
    "result_type": (lambda o: o.result_type("int32", "float16"), (), {"eager_only": True}),
    # -- creation
    "zeros": (lambda o: o.zeros((2, 3)), ()),
    "ones": (lambda o: o.ones((2, 3), dtype="int32"), ()),
    "empty": (lambda o: o.empty((2, 3)), (), {"spec": True}),
    "empty_like": (lambda o, x: o.empty_like(x), (X,), {"spec": True}),
    "full": (lambda o: o.full((2, 3), 1.5), ()),
    "full_like": (lambda o, x: o.full_like(x, 2), (X,)),
    "eye": (lambda o: o.eye(3, 4, k=1), ()),
    "identity": (lambda o: o.identity(3), ()),
    "tri": (lambda o: o.tri(3, 4, k=-1), ()),
    "arange": (lambda o: [o.arange(5), o.arange(1.0, 3.0, 0.5), o.arange(2, 9, 3)], ()),
    "linspace": (lambda o: o.linspace(0.0, 1.0, 5), ()),
    "geomspace": (lambda o: o.geomspace(1.0, 100.0, 4), ()),
    "logspace": (lambda o: o.logspace(0.0, 2.0, 4), ()),
    "meshgrid": (lambda o, a, b: o.meshgrid(a, b), (VEC, VEC3)),
    "array": (lambda o, x: o.array(x, dtype="float16"), (X,)),
    "view": (lambda o, x: o.view(x, "int32"), (X,)),
    "kaiser": (lambda o: o.kaiser(6, 3.0), ()),
    # -- shapes and indexing
    "reshape": (lambda o, x: o.reshape(x, (2, -1)), (X,)),
    "expand_dims": (lambda o, x: o.expand_dims(x, 1), (X,)),
    "squeeze": (lambda o, x: o.squeeze(x[:1], axis=0), (X,)),
    "roll": (lambda o, x: o.roll(x, 2, axis=1), (X,)),
    "swapaxes": (lambda o, x: o.swapaxes(x, 0, 1), (X,)),
    "moveaxis": (lambda o, x: o.moveaxis(x, 0, -1), (X,)),
    "broadcast_to": (lambda o, v: o.broadcast_to(v, (3, 5)), (VEC,)),
    "pad": (lambda o, x: o.pad(x, ((1, 0), (0, 2)), constant_values=1.5), (X,)),
    "tile": (lambda o, x: o.tile(x, (2, 1)), (X,)),
    "repeat": (lambda o, x: o.repeat(x, 2, axis=0), (X,)),
    "take": (lambda o, x, i: o.take(x, i, axis=1), (X, np.array([3, 0, 1], "int32"))),
    "take_along_axis": (
        lambda o, x, i: o.take_along_axis(x, i, axis=1),
        (X, np.array([[0, 3], [1, 1], [2, 0]], "int32")),
    ),
    "split": (lambda o, x: o.split(x, 2, axis=1), (X,)),
    "array_split": (lambda o, x: o.array_split(x, 3, axis=1), (X,)),
    "dsplit": (lambda o, x: o.dsplit(x, 2), (SEQ,)),
    "hsplit": (lambda o, x: o.hsplit(x, 2), (X,)),
    "vsplit": (lambda o, x: o.vsplit(x, 3), (X,)),
    "concatenate": (lambda o, x, y: o.concatenate([x, y], axis=1), (X, Y)),
    "stack": (lambda o, x, y: o.stack([x, y], axis=1), (X, Y)),
    "hstack": (lambda o, x, y: o.hstack([x, y]), (X, Y)),
    "vstack": (lambda o, x, y: o.vstack([x, y]), (X, Y)),
    "dstack": (lambda o, x, y: o.dstack([x, y]), (X, Y)),
    "append": (lambda o, x, y: o.append(x, y, axis=0), (X, Y)),
    "transpose": (lambda o, x: o.transpose(x, (2, 0, 1)), (SEQ,)),
    "rot90": (lambda o, x: o.rot90(x, k=3), (X,)),
    "diagonal": (lambda o, x: o.diagonal(x, offset=1), (X,)),
    "trace": (lambda o, x: o.trace(x, offset=-1), (X,)),
    "tril": (lambda o, x: o.tril(x, k=1), (X,)),
    "triu": (lambda o, x: o.triu(x, k=-1), (X,)),
    "where": (
        lambda o, c, x, y: [o.where(c, x, y), o.where(c)],
        (BOOL, X, Y),
        {"eager_only": True},
    ),
    "select": (
        lambda o, c, d, x, y: o.select([c, d], [x, y], default=-1.0),
        (BOOL, BOOL2, X, Y),
    ),
    "clip": (lambda o, x: o.clip(x, -0.5, 1.0), (X,)),
    "searchsorted": (
        lambda o, s, v: o.searchsorted(s, v, side="right"),
        (np.sort(VEC), VEC3),
    ),
    "digitize": (lambda o, x: o.digitize(x, [-1.0, 0.0, 1.0]), (X,)),
    "unravel_index": (
        lambda o, i: o.unravel_index(i, (3, 4)),
        (np.array([0, 5, 11], "int32"),),
        {"eager_only": True},
    ),
    "argpartition": (
        lambda o, x: o.sort(o.argpartition(x, 2, axis=1)[:, :2], axis=1),
        (X,),
    ),
    "nonzero": (lambda o, x: o.nonzero(x), (BOOL,), {"eager_only": True}),
    "unique": (
        lambda o, x: o.unique(x, return_counts=True),
        (np.array([3, 1, 3, 2, 1], "int32"),),
        {"eager_only": True},
    ),
    "diff": (lambda o, x: o.diff(x, n=2, axis=1), (X,)),
    "trapezoid": (lambda o, y: o.trapezoid(y, dx=0.5), (X,)),
    "isin": (lambda o, x, y: o.isin(x, y), (INTS, SHIFTS)),
    "tensordot": (lambda o, x, y: o.tensordot(x, y, axes=([1], [1])), (X, Y)),
    "einsum": (lambda o, x, y: o.einsum("ij,kj->ik", x, y), (X, Y)),
    "polar": (lambda o, a, t: o.polar(a, t), (POS, X)),
    "cdist": (lambda o, x, y: o.cdist(x, y), (X, Y)),
    "quantile": (lambda o, x: o.quantile(x, 0.3, axis=1), (X,)),
    "nanquantile": (lambda o, x: o.nanquantile(x, [0.2, 0.7], axis=1), (NANS,)),
    "percentile": (lambda o, x: o.percentile(x, 40.0, axis=0), (X,)),
    "nanpercentile": (lambda o, x: o.nanpercentile(x, 40.0), (NANS,)),
    "histogram": (lambda o, x: o.histogram(x, bins=4), (VEC,), {"eager_only": True}),
    "bincount": (
        lambda o, x: o.bincount(x, minlength=9),
        (np.array([5, 1, 7, 0, 1, 1], "int32"),),
    ),
    "average": (lambda o, x, w: o.average(x, axis=1, weights=w), (X, POS[0])),
    "allclose": (lambda o, x: o.allclose(x, x + 1e-6), (X,)),
    "isclose": (lambda o, x: o.isclose(x, x + 1e-6), (X,)),
    "nextafter": (lambda o, x, y: o.nextafter(x, y), (X, Y), {"rtol": 0.0, "atol": 0.0}),
    "sort": (lambda o, x: o.sort(x, axis=0), (X,)),
    "top_k": (lambda o, x: o.top_k(x, 2), (X,)),
    "in_top_k": (lambda o, t, p: o.in_top_k(t, p, 2), (LABELS, LOGITS)),
    # -- nn
    "softmax": (lambda o, x: o.softmax(x, axis=0), (X,)),
    "log_softmax": (lambda o, x: o.log_softmax(x, axis=-1), (X,)),
    "threshold": (lambda o, x: o.threshold(x, 0.3, -1.0), (X,)),
    "glu": (lambda o, x: o.glu(x), (X,)),
    "layer_normalization": (
        lambda o, x: o.layer_normalization(x, gamma=POS[0], beta=Y[0], epsilon=1e-3),
        (X,),
    ),
    "rms_normalization": (lambda o, x: o.rms_normalization(x, scale=POS[0]), (X,)),
    "normalize": (lambda o, x: o.normalize(x, axis=0, order=1), (X,)),
    "batch_normalization": (
        lambda o, x: o.batch_normalization(x, Y[0], POS[0], axis=-1, offset=X[1], scale=POS[1]),
        (X,),
    ),
    "moments": (lambda o, x: o.moments(x, axes=[0]), (X,)),
    "one_hot": (lambda o, x: o.one_hot(x, 8), (INTS,)),
    "multi_hot": (lambda o, x: o.multi_hot(x, num_classes=8), (INTS,)),
    "conv": (
        lambda o, x, k: o.conv(x, k, strides=1, padding="same"),
        (SEQ, KERNEL1D),
        {"rtol": 1e-4},
    ),
    "depthwise_conv": (
        lambda o, x, k: o.depthwise_conv(x, k, padding="valid"),
        (SEQ, _rand(2, 4, 1)),
    ),
    "separable_conv": (
        lambda o, x, d, p: o.separable_conv(x, d, p, padding="same"),
        (SEQ, _rand(2, 4, 1), _rand(1, 4, 3)),
        {"rtol": 1e-4},
    ),
    "conv_transpose": (
        lambda o, x, k: o.conv_transpose(x, k, strides=2, padding="same"),
        (SEQ, _rand(3, 2, 4)),
        {"rtol": 1e-4},
    ),
    "max_pool": (lambda o, x: o.max_pool(x, 2, strides=1), (SEQ,)),
    "average_pool": (
        lambda o, x: o.average_pool(x, 2, padding="same"),
        (SEQ,),
        # Keras 3.15's JAX average_pool of one spatial axis with "same" padding fails to
        # broadcast its count of valid elements (shapes (3,) and (5,)): a NumPy reference
        # (the mean over each window's elements inside the input, as Keras documents).
        {"reference": lambda x: _average_pool_same_1d(x, 2)},
    ),
    "adaptive_average_pool": (lambda o, x: o.adaptive_average_pool(x, 2), (SEQ,)),
    "adaptive_max_pool": (lambda o, x: o.adaptive_max_pool(x, 3), (SEQ,)),
    "depth_to_space": (lambda o, x: o.depth_to_space(x, 2), (_rand(1, 2, 2, 8),)),
    "space_to_depth": (lambda o, x: o.space_to_depth(x, 2), (_rand(1, 4, 4, 2),)),
    "unfold": (lambda o, x: o.unfold(x, 2), (_rand(1, 2, 4, 4),)),
    "fold": (lambda o, x: o.fold(x, (3, 3), 2), (_rand(1, 8, 4),)),
    "dot_product_attention": (
        lambda o, q, k, v: o.dot_product_attention(q, k, v, is_causal=True),
        (_rand(1, 4, 2, 8), _rand(1, 4, 2, 8), _rand(1, 4, 2, 8)),
        {"rtol": 1e-4},
    ),
    "psnr": (lambda o, a, b: o.psnr(a, b, 2.0), (X, Y)),
    "binary_crossentropy": (lambda o, t, p: o.binary_crossentropy(t, p), (BOOL * 1.0, POS)),
    "categorical_crossentropy": (
        lambda o, t, p: o.categorical_crossentropy(t, p, from_logits=True),
        (ONEHOT, LOGITS),
    ),
    "sparse_categorical_crossentropy": (
        lambda o, t, p: o.sparse_categorical_crossentropy(t, p),
        (LABELS, PROBS),
    ),
    "ctc_loss": (
        lambda o, t, p: o.ctc_loss(t, p, np.array([2, 1], "int32"), np.array([5, 4], "int32")),
        (np.array([[1, 2], [3, 0]], "int32"), _rand(2, 5, 4)),
        {"rtol": 1e-4},
    ),
    "ctc_decode": (
        lambda o, p: o.ctc_decode(p, np.array([5, 4], "int32")),
        (_rand(2, 5, 4),),
        {"eager_only": True},
    ),
    "segment_sum": (lambda o, x: o.segment_sum(x, np.array([0, 0, 2], "int32"), 3), (X,)),
    "segment_max": (lambda o, x: o.segment_max(x, np.array([0, 1, 1], "int32"), 2), (X,)),
    "segment_min": (lambda o, x: o.segment_min(x, np.array([0, 1, 1], "int32"), 2), (X,)),
    "segment_prod": (lambda o, x: o.segment_prod(x, np.array([1, 1, 0], "int32"), 2), (X,)),
    "sparsemax": (
        lambda o, x: o.sparsemax(x),
        (X,),
        # Keras 3.15's sparsemax does not sum to 1 with more than one class in the support
        # (keras-team/keras#23425, fixed by #23469): a NumPy reference instead.
        {"reference": _sparsemax},
    ),
    "logsumexp": (lambda o, x: o.logsumexp(x, axis=1), (X,)),
    # -- math and signals
    "fft": (lambda o, r, i: o.fft((r, i)), (X, Y)),
    "fft2": (lambda o, r, i: o.fft2((r, i)), (X, Y)),
    "ifft2": (lambda o, r, i: o.ifft2((r, i)), (X, Y)),
    "rfft": (lambda o, x: o.rfft(x), (SIGNAL,)),
    "irfft": (lambda o, r, i: o.irfft((r, i)), (X, Y)),
    "stft": (lambda o, x: o.stft(x, 8, 4, 8), (SIGNAL,), {"rtol": 1e-4, "atol": 1e-4}),
    "istft": (
        lambda o, r, i: o.istft((r, i), 8, 4, 8),
        (_rand(2, 5, 5), _rand(2, 5, 5)),
        {"rtol": 1e-4, "atol": 1e-4},
    ),
    "extract_sequences": (lambda o, x: o.extract_sequences(x, 4, 3), (SIGNAL,)),
    "view_as_complex": (lambda o, x: o.real(o.view_as_complex(x)), (_rand(3, 2),)),
    "view_as_real": (lambda o, x: o.view_as_real(o.view_as_complex(x)), (_rand(3, 2),)),
    "real": (lambda o, x: o.real(x), (X,)),
    "imag": (lambda o, x: o.imag(x), (X,)),
    "conj": (lambda o, x: o.conj(x), (X,)),
    "conjugate": (lambda o, x: o.conjugate(x), (X,)),
    # -- linear algebra (sign- and order-free where the decomposition leaves them free)
    "eig": (
        lambda o, x: o.sort(o.real(o.eig(x)[0])),
        (SPD,),
        {"eager_only": True, "rtol": 1e-4, "atol": 1e-4},
    ),
    "eigh": (
        lambda o, x: [o.eigh(x)[0], o.abs(o.eigh(x)[1])],
        (SPD,),
        {"rtol": 1e-4, "atol": 1e-4},
    ),
    "svd": (lambda o, x: o.svd(x)[1], (SPD,), {"rtol": 1e-4, "atol": 1e-4}),
    "qr": (lambda o, x: o.abs(o.qr(x)[1]), (SPD,), {"rtol": 1e-4, "atol": 1e-4}),
    "lu_factor": (lambda o, x: o.lu_factor(x), (SPD,), {"rtol": 1e-4, "atol": 1e-4}),
    "norm": (lambda o, x: [o.norm(x), o.norm(x, ord=1, axis=0), o.norm(x, "fro")], (X,)),
    "solve": (lambda o, a, b: o.solve(a, b), (SPD, _rand(3, 2)), {"rtol": 1e-4, "atol": 1e-5}),
    "solve_triangular": (
        lambda o, a, b: o.solve_triangular(a, b),
        (UPPER, _rand(3, 2)),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "lstsq": (
        lambda o, a, b: o.lstsq(a, b),
        (X.T.copy(), _rand(4, 2)),
        {"rtol": 1e-4, "atol": 1e-4},
    ),
    "pinv": (lambda o, x: o.pinv(x), (SPD,), {"rtol": 1e-4, "atol": 1e-5}),
    "inv": (lambda o, x: o.inv(x), (SPD,), {"rtol": 1e-4, "atol": 1e-5}),
    "cholesky_inverse": (lambda o, x: o.cholesky_inverse(o.cholesky(x)), (SPD,), {"rtol": 1e-4}),
    # -- image
    "image.resize": (lambda o, x: o.image.resize(x, (4, 8)), (IMG,), {"rtol": 1e-4}),
    "image.affine_transform": (
        lambda o, x: o.image.affine_transform(
            x, np.array([[1.0, 0.1, 0.5, -0.1, 1.0, 0.3, 0.0, 0.0]] * 2, "float32")
        ),
        (IMG,),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "image.map_coordinates": (
        lambda o, x, c: o.image.map_coordinates(x, c, order=1, fill_mode="reflect"),
        (_rand(4, 5), _rand(2, 3, 4, low=-0.5, high=4.5)),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "image.scale_and_translate": (
        lambda o, x: o.image.scale_and_translate(
            x,
            (2, 4, 4, 3),
            np.array([0.7, 0.7], "float32"),
            np.array([0.5, 0.0], "float32"),
            (1, 2),
            "linear",
        ),
        (IMG,),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "image.hsv_to_rgb": (lambda o, x: o.image.hsv_to_rgb(x), (IMG,), {"rtol": 1e-4}),
    "image.rgb_to_hsv": (lambda o, x: o.image.rgb_to_hsv(x), (IMG,), {"rtol": 1e-4}),
    "image.rgb_to_grayscale": (lambda o, x: o.image.rgb_to_grayscale(x), (IMG,)),
    "image.crop_images": (
        lambda o, x: o.image.crop_images(x, 1, 2, target_height=3, target_width=2),
        (IMG,),
    ),
    "image.pad_images": (
        lambda o, x: o.image.pad_images(x, 1, 0, target_height=8, target_width=7),
        (IMG,),
    ),
    "image.gaussian_blur": (
        # Keras's JAX gaussian_blur reads data_format=None as channels_first (it never
        # standardizes it): the format is given, so that Keras computes what it documents.
        lambda o, x: o.image.gaussian_blur(x, (3, 3), (1.0, 0.7), data_format="channels_last"),
        (IMG,),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "image.sobel_edges": (lambda o, x: o.image.sobel_edges(x), (IMG,), {"rtol": 1e-4}),
    "image.ssim": (
        lambda o, a, b: o.image.ssim(a, b, filter_size=3),
        (IMG, IMG[::-1].copy()),
        {"rtol": 1e-4, "atol": 1e-5},
    ),
    "image.extract_patches": (lambda o, x: o.image.extract_patches(x, 2), (IMG,)),
    "image.extract_patches_3d": (
        lambda o, x: o.image.extract_patches_3d(x, 2),
        (_rand(1, 4, 4, 4, 2),),
    ),
    "image.elastic_transform": (
        lambda o, x: o.image.elastic_transform(x, seed=1),
        (IMG,),
        {"spec": True},
    ),
    "image.perspective_transform": (
        lambda o, x: o.image.perspective_transform(
            x,
            np.array([[[0, 0], [5, 0], [0, 5], [5, 5]]] * 2, "float32"),
            np.array([[[0.5, 0.2], [5, 0], [0, 4.5], [5.3, 5]]] * 2, "float32"),
        ),
        (IMG,),
        {"rtol": 1e-4, "atol": 1e-4},
    ),
    # -- random: the engines' streams differ, so shapes and dtypes (the distributions are
    # compared in tests/ops/test_random_distributions.py)
    "random.normal": (lambda o: o.random.normal((3, 4), seed=1), (), {"spec": True}),
    "random.uniform": (
        lambda o: o.random.uniform((3, 4), dtype="float16", seed=1),
        (),
        {"spec": True},
    ),
    "random.truncated_normal": (
        lambda o: o.random.truncated_normal((3, 4), seed=1),
        (),
        {"spec": True},
    ),
    "random.randint": (lambda o: o.random.randint((3, 4), 0, 5, seed=1), (), {"spec": True}),
    "random.beta": (lambda o: o.random.beta((3,), 2.0, 3.0, seed=1), (), {"spec": True}),
    "random.gamma": (lambda o: o.random.gamma((3,), 2.0, seed=1), (), {"spec": True}),
    "random.binomial": (
        lambda o: o.random.binomial((3,), 5.0, 0.3, seed=1),
        (),
        {"spec": True},
    ),
    "random.categorical": (
        lambda o, x: o.random.categorical(x, 3, seed=1),
        (LOGITS,),
        {"spec": True},
    ),
    "random.dropout": (lambda o, x: o.random.dropout(x, 0.5, seed=1), (X,), {"spec": True}),
    "random.shuffle": (lambda o, x: o.sort(o.random.shuffle(x, seed=1), axis=0), (X,)),
    "random.SeedGenerator": (
        lambda o: o.random.normal((2,), seed=o.random.SeedGenerator(3)),
        (),
        {"spec": True},
    ),
}

# Exports with no case, each with the reason.
NOT_COMPARED = {
    "mish": "lamina's own (Keras 3 has no ops.mish): tests/ops pins it to x * tanh(softplus(x))",
    "nn.mish": "the same: Keras 3's ops.nn has no mish",
    "random.draw_seed": "lamina's own (Keras 3 has no random.draw_seed): tests/ops",
    "random.global_seed_generator": "lamina's own (Keras 3 has none): tests/ops",
    "random.set_global_seed": "lamina's own (Keras 3 has none): tests/ops",
    "random.portable_normal": "lamina's own host draw of JAX's numbers (Keras 3 has none): "
    "compared with jax.random in tests/backend/test_threefry.py",
    "random.portable_uniform": "lamina's own host draw of JAX's numbers (Keras 3 has none): "
    "compared with jax.random in tests/backend/test_threefry.py",
    "random.portable_truncated_normal": "lamina's own host draw of JAX's numbers (Keras 3 "
    "has none): compared with jax.random in tests/backend/test_threefry.py",
}
