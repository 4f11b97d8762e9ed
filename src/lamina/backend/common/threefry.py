"""JAX's random numbers computed on the host in NumPy: the initial values of every engine.

A model built with the same seed should start from the same weights on every engine.
JAX's generator is counter-based (threefry2x32): element `i` of a draw is a hash of the
key and `i`, so any engine can compute the same numbers without JAX, here in vectorized
NumPy. Every engine draws initial values with this module (`portable_*` in each
engine's `random`), so they are equal on every engine bit for bit. For a key
`(k0, k1)` (a seed tensor's two numbers, as JAX reads a raw `uint32[2]` key) and JAX's
partitionable threefry (its default since 0.5):

- `random_bits`: `jax.random.bits`' 32-bit words (`bits1 ^ bits2` of the hash of the
  64-bit counter `i` split into its high and low words), bit for bit;
- `uniform`: JAX's float32 uniform (the 23 high bits become a mantissa in `[1, 2)`,
  minus one, then `max(minval, u * (maxval - minval) + minval)`);
- `normal`, `truncated_normal`: `sqrt(2) * erfinv(u)` of a uniform on JAX's interval,
  with the single-precision `erfinv` polynomial XLA uses (Giles').

The float transforms are JAX's formulas rounded in float32 by NumPy, one rounding per
operation. XLA rounds them as its compiler chooses (fused multiply-adds and its own
logarithm on a CPU with default optimization, others on a GPU or with other flags), so
`jax.random`'s own draws agree with these to a few float32 ulps, not always bit for bit
(4 ulps at most in the tests). Emulating XLA's roundings exactly is possible on the host
but made a draw some 20 times slower, and no single JAX rounding exists to match.

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
    """`fill`, then JAX's `max(minval, u * (maxval - minval) + minval)` in float32."""
    low, high = np.float32(minval), np.float32(maxval)
    width = np.float32(high - low)

    def scaled(x0, x1, tmp, out):
        fill(x0, x1, tmp, out)
        np.multiply(out, width, out=out)
        np.add(out, low, out=out)
        np.maximum(out, low, out=out)

    return scaled


def uniform(seed, shape, minval=0.0, maxval=1.0) -> np.ndarray:
    """`jax.random.uniform(key, shape, float32, minval, maxval)` (to an ulp)."""
    k0, k1 = key_words(seed)
    fill = _scaled(_unit(k0, k1), minval, maxval)
    return _blocks(math.prod(shape), fill).reshape(shape)


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


def _horner(w, coefficients):
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        np.multiply(p, w, out=p)
        np.add(p, c, out=p)
    return p


def _erfinv_sqrt2(u: np.ndarray) -> None:
    """`u = sqrt(2) * erfinv(u)` in place, in float32 (`|u| < 1` here)."""
    w = np.multiply(u, u)
    np.negative(w, out=w)
    np.log1p(w, out=w)
    np.negative(w, out=w)
    large = w >= np.float32(5.0)  # the tails, |u| > 0.9966: few
    p = _horner(w - np.float32(2.5), _ERFINV_SMALL)
    if large.any():
        p[large] = _horner(np.sqrt(w[large]) - np.float32(3.0), _ERFINV_LARGE)
    np.multiply(p, u, out=p)
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
    """`jax.random.normal(key, shape, float32)` (to a few ulps: see the module doc)."""
    k0, k1 = key_words(seed)
    fill = _normal_fill(k0, k1, _NORMAL_LOW, 1.0)
    return _blocks(math.prod(shape), fill).reshape(shape)


def truncated_normal(seed, shape) -> np.ndarray:
    """`jax.random.truncated_normal(key, -2.0, 2.0, shape, float32)` (to a few ulps)."""
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
    `stddev` plus `mean`, rounded after each, as JAX computes it)."""
    shape = tuple(int(d) for d in shape)
    if kind == "uniform":
        return uniform(seed, shape, first, second)
    values = _DRAWS[kind](seed, shape)
    np.multiply(values, np.float32(second), out=values)
    np.add(values, np.float32(first), out=values)
    return values
