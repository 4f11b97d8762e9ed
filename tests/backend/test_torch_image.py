"""The torch engine's `image` functions against the JAX engine's (an independent
reference): every interpolation with and without antialiasing, the aspect-ratio options,
every affine fill mode, both data formats, batched and single images, and gradients.

Each grid's JAX results come from one compiled program (`jax_batch`).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# The torch engine against the JAX one: each comparison runs once, in the torch pass.
pytestmark = pytest.mark.engine("torch")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from lamina.backend import standardize_dtype  # noqa: E402
from lamina.backend.jax import image as jimage  # noqa: E402
from lamina.backend.torch import core as tcore  # noqa: E402
from lamina.backend.torch import image as timage  # noqa: E402

FORMATS = ("channels_last", "channels_first")


def _t(x):
    return tcore.convert_to_tensor(x)


def _dtype(x):
    return tcore.dtype_name(x.dtype) if isinstance(x, torch.Tensor) else standardize_dtype(x.dtype)


def assert_same(t_out, j_out, tol=2e-5):
    assert _dtype(t_out) == _dtype(j_out), (_dtype(t_out), _dtype(j_out))
    assert tuple(t_out.shape) == tuple(j_out.shape)
    t_host = t_out.detach().float().cpu().numpy()
    np.testing.assert_allclose(t_host, np.asarray(j_out, "float32"), rtol=tol, atol=tol)


def jax_batch(calls):
    """`[fn(*arrays) for fn, arrays in calls]`, computed by JAX as one compiled program."""
    fns = [fn for fn, _ in calls]
    return jax.jit(lambda arrays: [fn(*a) for fn, a in zip(fns, arrays, strict=True)])(
        [tuple(jnp.asarray(a) for a in arrays) for _, arrays in calls]
    )


# Gradients checked are those of `sum(out * w)` for a fixed, shape-derived weighting `w`.
def _weighted_sum_jax(out):
    return (out * jnp.cos(jnp.arange(out.size) * 0.7).reshape(out.shape)).sum()


def _weighted_sum(out):
    w = torch.cos(torch.arange(out.numel(), dtype=torch.float32, device=out.device) * 0.7)
    return (out * w.reshape(out.shape)).sum()


def _images(seed, shape, data_format, batched=True, dtype="float32"):
    x = np.random.default_rng(seed).normal(size=shape) * 50
    x = x.astype(dtype)
    if data_format == "channels_first":
        x = np.moveaxis(x, -1, -len(shape) + 1 if batched else 0).copy()
    return x if batched else x[0]


# resize -------------------------------------------------------------------------------
INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5")
SIZES = ((4, 5), (13, 20), (7, 4))  # down, up, one axis kept and one down
RESIZE_CASES = [
    (interpolation, antialias, size, FORMATS[i % 2], i % 3 != 2)
    for i, (interpolation, antialias, size) in enumerate(
        itertools.product(INTERPOLATIONS, (False, True), SIZES)
    )
]


def _resize_case(i):
    interpolation, antialias, size, data_format, batched = RESIZE_CASES[i]
    x = _images(i, (2, 7, 9, 3), data_format, batched)
    args = dict(interpolation=interpolation, antialias=antialias, data_format=data_format)
    return x, size, args


@functools.cache
def resize_jax():
    calls = []
    for i in range(len(RESIZE_CASES)):
        x, size, args = _resize_case(i)
        calls.append((lambda a, size=size, args=args: jimage.resize(a, size, **args), (x,)))
    grads = [
        (jax.grad(lambda a, fn=fn: _weighted_sum_jax(fn(a))), arrays) for fn, arrays in calls[::4]
    ]
    return jax_batch(calls), jax_batch(grads)


@pytest.mark.parametrize("i", range(len(RESIZE_CASES)), ids=[str(c) for c in RESIZE_CASES])
def test_resize_matches_jax(i):
    x, size, args = _resize_case(i)
    values, grads = resize_jax()
    assert_same(timage.resize(_t(x), size, **args), values[i], tol=1e-4)
    if i % 4 == 0:
        xt = _t(x).requires_grad_(True)
        _weighted_sum(timage.resize(xt, size, **args)).backward()
        np.testing.assert_allclose(
            xt.grad.cpu().numpy(), np.asarray(grads[i // 4]), rtol=1e-4, atol=1e-5
        )


# Other ranks (1-D and 3-D sizes), dtypes and the aspect-ratio options, in one program.
OTHER_RESIZE_CASES = [
    # (input shape, input dtype, size, keyword arguments)
    ((2, 9, 3), "float32", (5,), dict(interpolation="bilinear")),
    ((2, 9, 3), "float32", (14,), dict(interpolation="bicubic", antialias=True)),
    ((2, 5, 6, 4, 2), "float32", (3, 8, 5), dict(interpolation="bilinear", antialias=True)),
    ((2, 5, 6, 4, 2), "float32", (3, 8, 5), dict(interpolation="nearest")),
    ((2, 7, 9, 3), "uint8", (4, 5), dict(interpolation="bilinear")),
    ((2, 7, 9, 3), "int32", (10, 5), dict(interpolation="nearest")),
    ((2, 7, 9, 3), "float16", (4, 12), dict(interpolation="bicubic")),
    ((2, 7, 9, 3), "bfloat16", (4, 12), dict(interpolation="bilinear")),
    ((2, 7, 9, 3), "float32", (4, 4), dict(crop_to_aspect_ratio=True)),
    ((2, 7, 9, 3), "float32", (6, 3), dict(crop_to_aspect_ratio=True, interpolation="nearest")),
    ((7, 9, 3), "float32", (8, 4), dict(crop_to_aspect_ratio=True, data_format="channels_first")),
    ((2, 7, 9, 3), "float32", (4, 4), dict(pad_to_aspect_ratio=True, fill_value=2.5)),
    ((2, 7, 9, 3), "float32", (3, 8), dict(pad_to_aspect_ratio=True)),
    ((2, 7, 9, 3), "uint8", (9, 3), dict(pad_to_aspect_ratio=True, fill_value=7)),
    ((3, 7, 9), "float32", (5, 11), dict(pad_to_aspect_ratio=True, data_format="channels_first")),
    ((2, 7, 9, 3), "float32", (7, 9), dict(interpolation="lanczos3")),
]


def _other_resize_input(i):
    shape, dtype, _, _ = OTHER_RESIZE_CASES[i]
    x = np.random.default_rng(100 + i).uniform(0, 200, size=shape)
    return x.astype(dtype) if dtype != "bfloat16" else x.astype("float32")


@functools.cache
def other_resize_jax():
    calls = []
    for i, (_, dtype, size, args) in enumerate(OTHER_RESIZE_CASES):
        cast = (lambda a: a.astype(jnp.bfloat16)) if dtype == "bfloat16" else (lambda a: a)
        calls.append(
            (
                lambda a, size=size, args=args, cast=cast: jimage.resize(cast(a), size, **args),
                (_other_resize_input(i),),
            )
        )
    return jax_batch(calls)


@pytest.mark.parametrize(
    "i", range(len(OTHER_RESIZE_CASES)), ids=[str(c[1:]) for c in OTHER_RESIZE_CASES]
)
def test_resize_ranks_dtypes_and_aspect_ratio_match_jax(i):
    _, dtype, size, args = OTHER_RESIZE_CASES[i]
    x = _t(_other_resize_input(i))
    if dtype == "bfloat16":
        x = x.to(torch.bfloat16)
    tol = {"float16": 0.5, "bfloat16": 2.0}.get(dtype, 1e-3)
    assert_same(timage.resize(x, size, **args), other_resize_jax()[i], tol=tol)


def test_resize_errors_name_the_problem():
    x = np.zeros((2, 7, 9, 3), "float32")
    with pytest.raises(ValueError, match="unknown interpolation 'cubic'"):
        timage.resize(x, (4, 4), interpolation="cubic")
    with pytest.raises(ValueError, match="only one of"):
        timage.resize(x, (4, 4), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="fill_mode must be 'constant'"):
        timage.resize(x, (4, 4), fill_mode="reflect")
    with pytest.raises(ValueError, match="rank 1"):
        timage.resize(np.zeros(5, "float32"), (4,))
    with pytest.raises(ValueError, match="2-D `size`"):
        timage.resize(x, (4,), crop_to_aspect_ratio=True)


# affine_transform ---------------------------------------------------------------------
TRANSFORMS = np.array(
    [
        # rotation by 0.3 rad about the centre, with a shift
        [0.9553, -0.2955, 1.3171, 0.2955, 0.9553, -1.7113, 0.0, 0.0],
        # zoom out with shear
        [1.3127, 0.2171, -2.1419, -0.1333, 1.4411, -1.3337, 0.0, 0.0],
        # projective
        [0.9137, 0.1123, 0.4171, 0.0519, 1.1071, -0.3713, 0.0213, -0.0317],
    ],
    "float32",
)
AFFINE_CASES = [
    (interpolation, mode, FORMATS[i % 2], (i // 2) % 2 == 0)
    for i, (interpolation, mode) in enumerate(
        itertools.product(
            ("bilinear", "nearest"), ("constant", "nearest", "wrap", "mirror", "reflect")
        )
    )
]


def _affine_case(i):
    interpolation, mode, data_format, batched = AFFINE_CASES[i]
    x = _images(200 + i, (3, 6, 7, 2), data_format, batched)
    transform = TRANSFORMS if batched else TRANSFORMS[2]
    args = dict(
        interpolation=interpolation, fill_mode=mode, fill_value=1.5, data_format=data_format
    )
    return x, transform, args


@functools.cache
def affine_jax():
    calls = []
    for i in range(len(AFFINE_CASES)):
        x, transform, args = _affine_case(i)
        calls.append(
            (lambda a, t, args=args: jimage.affine_transform(a, t, **args), (x, transform))
        )
    grads = [
        (jax.grad(lambda a, t, fn=fn: _weighted_sum_jax(fn(a, t))), arrays)
        for fn, arrays in calls[:5]  # bilinear, every mode
    ]
    return jax_batch(calls), jax_batch(grads)


@pytest.mark.parametrize("i", range(len(AFFINE_CASES)), ids=[str(c) for c in AFFINE_CASES])
def test_affine_transform_matches_jax(i):
    x, transform, args = _affine_case(i)
    values, grads = affine_jax()
    assert_same(timage.affine_transform(_t(x), _t(transform), **args), values[i], tol=1e-3)
    if i < 5:
        xt = _t(x).requires_grad_(True)
        _weighted_sum(timage.affine_transform(xt, _t(transform), **args)).backward()
        np.testing.assert_allclose(
            xt.grad.cpu().numpy(), np.asarray(grads[i]), rtol=1e-4, atol=1e-4
        )


def test_affine_transform_shares_one_transform_and_keeps_integer_dtypes():
    x = np.random.default_rng(3).integers(0, 255, size=(2, 6, 7, 3)).astype("uint8")
    single = TRANSFORMS[0]
    for interpolation in ("nearest", "bilinear"):
        expected = jimage.affine_transform(
            x, single, interpolation=interpolation, fill_mode="reflect"
        )
        got = timage.affine_transform(
            x, single.tolist(), interpolation=interpolation, fill_mode="reflect"
        )
        assert_same(got, expected, tol=1.0)  # float rounding may move a truncation by one


def test_affine_transform_on_one_pixel_axes():
    # A mirror over one pixel has no period; every index maps to that pixel.
    x = np.arange(6, dtype="float32").reshape(1, 1, 6, 1)
    shift = np.array([1, 0, 0.6, 0, 1, 0.7, 0, 0], "float32")
    for mode in ("mirror", "reflect", "wrap", "nearest"):
        assert_same(
            timage.affine_transform(x, shift, fill_mode=mode),
            jimage.affine_transform(x, shift, fill_mode=mode),
            tol=1e-5,
        )


def test_affine_transform_errors_name_the_problem():
    x = np.zeros((2, 6, 7, 3), "float32")
    with pytest.raises(ValueError, match="unknown interpolation 'bicubic'"):
        timage.affine_transform(x, TRANSFORMS[0], interpolation="bicubic")
    with pytest.raises(ValueError, match="unknown fill_mode 'edge'"):
        timage.affine_transform(x, TRANSFORMS[0], fill_mode="edge")
    with pytest.raises(ValueError, match="rank 3"):
        timage.affine_transform(np.zeros((6, 7), "float32"), TRANSFORMS[0])
    with pytest.raises(ValueError, match=r"shape \(2, 8\); received shape \(3, 8\)"):
        timage.affine_transform(x, TRANSFORMS)


def test_functions_run_on_the_meta_device():
    # Abstract evaluation (compute_output_spec) runs them on shapes without data.
    x = torch.empty(2, 7, 9, 3, device="meta")
    for interpolation in INTERPOLATIONS:
        assert timage.resize(x, (4, 5), interpolation, antialias=True).shape == (2, 4, 5, 3)
    transform = torch.zeros(2, 8, device="meta")
    assert timage.affine_transform(x, transform).shape == (2, 7, 9, 3)
