"""JAX's random numbers computed on the host in NumPy, for engines other than JAX.

A model built with the same seed should start from the same weights on every engine.
JAX's generator is counter-based (threefry2x32): element `i` of a draw is a hash of the
key and `i`, so any engine can compute the same numbers without JAX, here in vectorized
NumPy. This module reproduces, for a key `(k0, k1)` (a seed tensor's two numbers, as JAX
reads a raw `uint32[2]` key) and JAX's partitionable threefry (its default since 0.5):

- `random_bits`: `jax.random.bits`' 32-bit words, `bits1 ^ bits2` of the hash of the
  64-bit counter `i` split into its high and low words;
- `uniform`: JAX's float32 uniform (the 23 high bits become a mantissa in `[1, 2)`,
  minus one, then `u * (maxval - minval) + minval`, at least `minval`): bit for bit;
- `normal`, `truncated_normal`: `sqrt(2) * erfinv(u)` of a uniform on JAX's interval,
  with the single-precision `erfinv` XLA computes (Giles' polynomial). The uniform is
  exact; the `erfinv` here agrees with XLA's to a few float32 ulps at most (its
  logarithm is the host's, not XLA's; the tests state the bound).

Everything is float32, the dtype of every model's variables; other dtypes are cast
from it by the caller.
"""

from __future__ import annotations

import concurrent.futures
import math
import os

import numpy as np

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA
# Elements hashed per block: small enough that a block's arrays stay in cache, large
# enough that NumPy's per-call overhead is paid rarely.
_BLOCK = 1 << 16


def _rounds(x0, x1, rotations, tmp):
    for r in rotations:
        np.add(x0, x1, out=x0)
        np.left_shift(x1, np.uint32(r), out=tmp)
        np.right_shift(x1, np.uint32(32 - r), out=x1)
        np.bitwise_or(x1, tmp, out=x1)
        np.bitwise_xor(x1, x0, out=x1)


def _hash(k0: int, k1: int, x0, x1, tmp):
    """threefry2x32 (20 rounds) of the counter words `(x0, x1)`, in place."""
    ks = (np.uint32(k0), np.uint32(k1), np.uint32(k0 ^ k1 ^ _PARITY))
    x0 += ks[0]
    x1 += ks[1]
    for step in range(5):
        _rounds(x0, x1, _ROTATIONS[step % 2], tmp)
        x0 += ks[(step + 1) % 3]
        x1 += np.uint32((int(ks[(step + 2) % 3]) + step + 1) & 0xFFFFFFFF)


def key_words(seed) -> tuple[int, int]:
    """The two 32-bit words of a seed (a pair of integers, as a seed tensor holds)."""
    values = [int(v) for v in np.asarray(seed).reshape(-1).tolist()]
    if len(values) != 2:
        raise ValueError(f"A seed has two numbers; received {len(values)}: {values!r}.")
    return values[0] & 0xFFFFFFFF, values[1] & 0xFFFFFFFF


def _blocks(size: int, fill, dtype=np.float32):
    """`fill(x0, x1, tmp, out)` block by block over a draw of `size` numbers: `x0, x1`
    hold the 64-bit counters of the block's elements (high and low words), `tmp` is
    scratch space and `out` the block's part of the result.

    Blocks are independent, and NumPy lets go of the GIL inside its loops: a large draw
    shares its blocks between threads.
    """
    out = np.empty(size, dtype)
    starts = range(0, size, _BLOCK)
    workers = min(len(starts) // 4, os.cpu_count() or 1, 8)
    if workers <= 1:
        _fill_blocks(starts, fill, out)
        return out
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        parts = [starts[i::workers] for i in range(workers)]
        for done in [pool.submit(_fill_blocks, part, fill, out) for part in parts]:
            done.result()
    return out


def _fill_blocks(starts, fill, out):
    block = min(out.size, _BLOCK)
    x0, x1, tmp = (np.empty(block, np.uint32) for _ in range(3))
    counter = np.arange(block, dtype=np.uint64)
    for start in starts:
        n = min(block, out.size - start)
        index = counter[:n] + np.uint64(start)
        x0[:n] = index >> np.uint64(32)
        x1[:n] = index  # the low word (assignment truncates)
        fill(x0[:n], x1[:n], tmp[:n], out[start : start + n])


def random_bits(seed, shape) -> np.ndarray:
    """`jax.random.bits(key, shape, uint32)` for the raw key `seed`."""
    k0, k1 = key_words(seed)

    def fill(x0, x1, tmp, out):
        _hash(k0, k1, x0, x1, tmp)
        np.bitwise_xor(x0, x1, out=out)

    return _blocks(math.prod(shape), fill, np.uint32).reshape(shape)


_ONE_BITS = np.uint32(0x3F800000)


def _unit(k0, k1):
    """A fill writing JAX's float32 uniform on `[0, 1)` (from 23 random bits)."""

    def fill(x0, x1, tmp, out):
        _hash(k0, k1, x0, x1, tmp)
        np.bitwise_xor(x0, x1, out=x0)
        np.right_shift(x0, np.uint32(9), out=x0)
        np.bitwise_or(x0, _ONE_BITS, out=x0)
        np.subtract(x0.view(np.float32), np.float32(1.0), out=out)

    return fill


def _scaled(fill, minval, maxval):
    """`fill`, then JAX's `max(minval, u * (maxval - minval) + minval)` in float32 (the
    multiply-add fused, as XLA's CPU code does)."""
    low, high = np.float32(minval), np.float32(maxval)
    width = np.float32(high - low)

    def scaled(x0, x1, tmp, out):
        fill(x0, x1, tmp, out)
        np.maximum(_fma(out, width, low), low, out=out)

    return scaled


def uniform(seed, shape, minval=0.0, maxval=1.0) -> np.ndarray:
    """`jax.random.uniform(key, shape, float32, minval, maxval)`, bit for bit."""
    k0, k1 = key_words(seed)
    fill = _scaled(_unit(k0, k1), minval, maxval)
    return _blocks(math.prod(shape), fill).reshape(shape)


def _fma(a, b, c):
    """`a * b + c` rounded once to float32, as a fused multiply-add does (XLA's CPU
    code fuses them): float32 products are exact in float64."""
    product = np.multiply(a, b, dtype=np.float64)
    product += c
    return product.astype(np.float32)


# XLA's CPU logarithm of float32 (Cephes' `logf`): the mantissa `m` in
# [sqrt(1/2), sqrt(2)) and exponent `e`, a polynomial in `m - 1`, then `e * log(2)`
# added in two parts.
_LOG = np.array(
    [
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    ],
    np.float32,
)
_F = np.float32


def _log(v):
    # frexp by bits (NumPy's is slow): `v` is a positive normal number here.
    bits = v.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(_F)
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F)
    low = x < _F(0.707106781186547524)
    e = e - low.astype(_F)
    x = (x - _F(1.0)) + np.where(low, x, _F(0.0))
    x2 = x * x
    x3 = x2 * x
    y = _fma(_fma(x, _LOG[0], _LOG[1]), x, _LOG[2])
    y1 = _fma(_fma(x, _LOG[3], _LOG[4]), x, _LOG[5])
    y2 = _fma(_fma(x, _LOG[6], _LOG[7]), x, _LOG[8])
    y = _fma(_fma(y, x3, y1), x3, y2)
    y = _fma(y, x3, _F(-2.12194440e-4) * e)
    x = _fma(x2, _F(-0.5), x) + y
    return _fma(e, _F(0.693359375), x)


# XLA's log1p: a Cephes rational function below sqrt(2) - 1 in magnitude, else
# log(1 + x).
_LOG1P_NUMERATOR = (
    4.5270000862445199635215e-5,
    4.9854102823193375972212e-1,
    6.5787325942061044846969e0,
    2.9911919328553073277375e1,
    6.0949667980987787057556e1,
    5.7112963590585538103336e1,
    2.0039553499201281259648e1,
)
_LOG1P_DENOMINATOR = (
    1.0,
    1.5062909083469192043167e1,
    8.3047565967967209469434e1,
    2.2176239823732856465394e2,
    3.0909872225312059774938e2,
    2.1642788614495947685003e2,
    6.0118660497603843919306e1,
)


def _polynomial(x, coefficients):
    p = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        p = _fma(p, x, _F(c))
    return p


def _log1p(x):
    """XLA's log1p of float32 `x`; each branch computed only where it is taken."""
    out = np.empty_like(x)
    small = np.abs(x) < _F(0.41421356237309504880)
    xs = x[small]
    x2 = xs * xs
    ratio = _polynomial(xs, _LOG1P_NUMERATOR) / _polynomial(xs, _LOG1P_DENOMINATOR)
    out[small] = xs + _fma(_F(-0.5), x2, (xs * x2) * ratio)
    large = ~small
    out[large] = _log(x[large] + _F(1.0))
    return out


# XLA's single-precision erfinv (M. Giles, "Approximating the erfinv function"): a
# polynomial in w = -log1p(-x^2), one set of coefficients below w = 5, one above.
_ERFINV_SMALL = np.array(
    [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ],
    np.float32,
)
_ERFINV_LARGE = np.array(
    [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ],
    np.float32,
)
_SQRT2 = np.float32(math.sqrt(2.0))


def _erfinv_polynomial(w, coefficients, offset):
    w = w - _F(offset) if offset == 2.5 else np.sqrt(w) - _F(offset)
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = _fma(p, w, c)
    return p


def _erfinv_sqrt2(u: np.ndarray) -> None:
    """`u = sqrt(2) * erfinv(u)` in place, in float32 as XLA's CPU code computes it."""
    w = -_log1p(u * -u)
    large = w >= _F(5.0)  # the tails, |u| > 0.9966: few
    p = _erfinv_polynomial(w, _ERFINV_SMALL, 2.5)
    if large.any():
        p[large] = _erfinv_polynomial(w[large], _ERFINV_LARGE, 3.0)
    np.multiply(p, u, out=p)
    edge = np.abs(u) == _F(1.0)
    if edge.any():
        p[edge] = u[edge] * _F(np.inf)
    np.multiply(p, _SQRT2, out=u)


def _normal_fill(k0, k1, minval, maxval):
    uniform_fill = _scaled(_unit(k0, k1), minval, maxval)

    def fill(x0, x1, tmp, out):
        uniform_fill(x0, x1, tmp, out)
        _erfinv_sqrt2(out)

    return fill


# JAX's normal inverts a uniform on [nextafter(-1, 0), 1).
_NORMAL_LOW = float(np.nextafter(np.float32(-1.0), np.float32(0.0)))
# erf(-2 / sqrt(2)) and erf(2 / sqrt(2)) as XLA computes them in float32 (JAX's
# truncated normal inverts a uniform between them); a test checks them against JAX.
_TRUNCATED_LOW = float(np.array(0xBF745A18, np.uint32).view(np.float32))
_TRUNCATED_HIGH = float(np.array(0x3F745A18, np.uint32).view(np.float32))
_TWO_INSIDE = float(np.nextafter(np.float32(2.0), np.float32(0.0)))


def normal(seed, shape) -> np.ndarray:
    """`jax.random.normal(key, shape, float32)` (see the module doc on `erfinv`)."""
    k0, k1 = key_words(seed)
    fill = _normal_fill(k0, k1, _NORMAL_LOW, 1.0)
    return _blocks(math.prod(shape), fill).reshape(shape)


def truncated_normal(seed, shape) -> np.ndarray:
    """`jax.random.truncated_normal(key, -2.0, 2.0, shape, float32)`."""
    k0, k1 = key_words(seed)
    inner = _normal_fill(k0, k1, _TRUNCATED_LOW, _TRUNCATED_HIGH)
    bound = np.float32(_TWO_INSIDE)

    def fill(x0, x1, tmp, out):
        inner(x0, x1, tmp, out)
        np.clip(out, -bound, bound, out=out)

    return _blocks(math.prod(shape), fill).reshape(shape)


_DRAWS = {"normal": normal, "truncated_normal": truncated_normal}


def sample(kind: str, seed, shape, first: float, second: float) -> np.ndarray:
    """A float32 draw as lamina's engines compute it from JAX's numbers: `kind` is
    `"uniform"` (`first, second` are `minval, maxval`) or `"normal"` /
    `"truncated_normal"` (`first, second` are `mean, stddev`: the standard sample times
    `stddev` plus `mean`, rounded after each as JAX rounds)."""
    shape = tuple(int(d) for d in shape)
    if kind == "uniform":
        return uniform(seed, shape, first, second)
    values = _DRAWS[kind](seed, shape)
    np.multiply(values, np.float32(second), out=values)
    np.add(values, np.float32(first), out=values)
    return values
