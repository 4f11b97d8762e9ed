"""Hashing and HashedCrossing: categorical values to hash bins, on the host.

Keras 3 computes these with TensorFlow's string ops: FarmHash's `Fingerprint64`
(`farmhashna::Hash64`) for `Hashing` without a salt, SipHash-2-4 keyed by the salt with
one, and for `HashedCrossing` TensorFlow's `cross_hashed`: the fingerprints of the
features chained with `FingerprintCat64` from the key `0xDECAFCAFFE`. Integers are hashed
as their decimal text (`tf.as_string`), floats after truncation to int64. This module
computes the same functions in Python on NumPy arrays, so the bins are exactly those
Keras gives, with no TensorFlow.

Both layers run on the host (`_runs_on_host`): outside a model they take Python lists
and NumPy arrays and return NumPy arrays; as the first layers of a model the trainer
runs them on each batch before the compiled part.
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer
from lamina.layers.lookup import encode_on_host, host_array, is_text, register

_MASK64 = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_CROSS_KEY = 0xDECAFCAFFE  # TensorFlow's default `hash_key` of `cross_hashed`
_ENCODINGS = ("int", "one_hot", "multi_hot", "count")


# FarmHash Fingerprint64 ------------------------------------------------------------------
def _fetch64(data: bytes, i: int) -> int:
    return int.from_bytes(data[i : i + 8], "little")


def _fetch32(data: bytes, i: int) -> int:
    return int.from_bytes(data[i : i + 4], "little")


def _rotate(value: int, shift: int) -> int:
    return ((value >> shift) | (value << (64 - shift))) & _MASK64 if shift else value


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _MASK64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK64
    b ^= b >> 47
    return (b * mul) & _MASK64


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _MASK64
        a = (_fetch64(s, 0) + _K2) & _MASK64
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK64
        d = ((_rotate(a, 25) + b) * mul) & _MASK64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _MASK64
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _MASK64, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK64) * _K2) & _MASK64
    return _K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _MASK64
    a = (_fetch64(s, 0) * _K1) & _MASK64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK64
    d = (_fetch64(s, n - 16) * _K2) & _MASK64
    return _hash_len16(
        (_rotate((a + b) & _MASK64, 43) + _rotate(c, 30) + d) & _MASK64,
        (a + _rotate((b + _K2) & _MASK64, 18) + c) & _MASK64,
        mul,
    )


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _MASK64
    a = (_fetch64(s, 0) * _K2) & _MASK64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK64
    d = (_fetch64(s, n - 16) * _K2) & _MASK64
    y = (_rotate((a + b) & _MASK64, 43) + _rotate(c, 30) + d) & _MASK64
    z = _hash_len16(y, (a + _rotate((b + _K2) & _MASK64, 18) + c) & _MASK64, mul)
    e = (_fetch64(s, 16) * mul) & _MASK64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _MASK64
    h = ((z + _fetch64(s, n - 24)) * mul) & _MASK64
    return _hash_len16(
        (_rotate((e + f) & _MASK64, 43) + _rotate(g, 30) + h) & _MASK64,
        (e + _rotate((f + a) & _MASK64, 18) + g) & _MASK64,
        mul,
    )


def _weak_hash32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = (_fetch64(s, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _MASK64
    b = _rotate((b + a + z) & _MASK64, 21)
    c = a
    a = (a + x + y) & _MASK64
    b = (b + _rotate(a, 44)) & _MASK64
    return (a + z) & _MASK64, (b + c) & _MASK64


def fingerprint64(data: bytes) -> int:
    """FarmHash's `Fingerprint64` of `data` (TensorFlow's `Fingerprint64`), as an int in
    `[0, 2**64)`.

    >>> hex(fingerprint64(b""))
    '0x9ae16a3b2f90404f'
    """
    n = len(data)
    if n <= 16:
        return _hash_len0to16(data)
    if n <= 32:
        return _hash_len17to32(data)
    if n <= 64:
        return _hash_len33to64(data)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK64
    z = (_shift_mix((y * _K2 + 113) & _MASK64) * _K2) & _MASK64
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch64(data, 0)) & _MASK64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(data, i + 8)) & _MASK64, 37) * _K1) & _MASK64
        y = (_rotate((y + v[1] + _fetch64(data, i + 48)) & _MASK64, 42) * _K1) & _MASK64
        x ^= w[1]
        y = (y + v[0] + _fetch64(data, i + 40)) & _MASK64
        z = (_rotate((z + w[0]) & _MASK64, 33) * _K1) & _MASK64
        v = _weak_hash32(data, i, (v[1] * _K1) & _MASK64, (x + w[0]) & _MASK64)
        w = _weak_hash32(data, i + 32, (z + w[1]) & _MASK64, (y + _fetch64(data, i + 16)) & _MASK64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _MASK64
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _MASK64, w[1])
    v = ((v[0] + w[0]) & _MASK64, v[1])
    w = ((w[0] + v[0]) & _MASK64, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(data, i + 8)) & _MASK64, 37) * mul) & _MASK64
    y = (_rotate((y + v[1] + _fetch64(data, i + 48)) & _MASK64, 42) * mul) & _MASK64
    x ^= (w[1] * 9) & _MASK64
    y = (y + v[0] * 9 + _fetch64(data, i + 40)) & _MASK64
    z = (_rotate((z + w[0]) & _MASK64, 33) * mul) & _MASK64
    v = _weak_hash32(data, i, (v[1] * mul) & _MASK64, (x + w[0]) & _MASK64)
    w = _weak_hash32(data, i + 32, (z + w[1]) & _MASK64, (y + _fetch64(data, i + 16)) & _MASK64)
    z, x = x, z
    return _hash_len16(
        (_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK64,
        (_hash_len16(v[1], w[1], mul) + x) & _MASK64,
        mul,
    )


def _fingerprint_cat64(first: int, second: int) -> int:
    """TensorFlow's `FingerprintCat64`: combines two fingerprints (order matters)."""
    mul = 0xC6A4A7935BD1E995
    result = first ^ mul
    result ^= (_shift_mix((second * mul) & _MASK64) * mul) & _MASK64
    result = (result * mul) & _MASK64
    result = (_shift_mix(result) * mul) & _MASK64
    return _shift_mix(result)


# SipHash-2-4 ----------------------------------------------------------------------------
def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK64


def siphash64(data: bytes, key0: int, key1: int) -> int:
    """SipHash-2-4 of `data` under the 128-bit key `(key0, key1)` (TensorFlow's
    `to_hash_bucket_strong`)."""
    v0 = key0 ^ 0x736F6D6570736575
    v1 = key1 ^ 0x646F72616E646F6D
    v2 = key0 ^ 0x6C7967656E657261
    v3 = key1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, count):
        for _ in range(count):
            v0 = (v0 + v1) & _MASK64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(data)
    full = n - n % 8
    for i in range(0, full, 8):
        m = _fetch64(data, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


# Values to bins -------------------------------------------------------------------------
def _as_bytes(value, encoding: str = "utf-8") -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode(encoding)
    return str(int(value)).encode()  # TensorFlow's `as_string` of an int64


def hash_to_bins(values, num_bins: int, salt=None) -> np.ndarray:
    """Hash each value of an array into `[0, num_bins)` as Keras's `Hashing` does:
    FarmHash Fingerprint64 modulo `num_bins`, or SipHash-2-4 with `salt=(k0, k1)`."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        values = np.trunc(values).astype("int64")
    flat = values.ravel()
    if flat.size == 0:
        return np.zeros(values.shape, "int64")
    unique, inverse = np.unique(flat, return_inverse=True)
    if salt is None:
        bins = [fingerprint64(_as_bytes(v)) % num_bins for v in unique.tolist()]
    else:
        bins = [siphash64(_as_bytes(v), salt[0], salt[1]) % num_bins for v in unique.tolist()]
    return np.asarray(bins, "int64")[inverse].reshape(values.shape)


def _check_sparse(who: str, sparse) -> None:
    if sparse:
        raise ValueError(
            f"{who}: sparse=True needs TensorFlow sparse tensors, which lamina does not "
            f"have on the {backend.backend()!r} backend; use the default dense output."
        )


def _float_dtype(dtype):
    return dtype if dtype not in (None, "int32", "int64") else backend.floatx()


@register
class Hashing(Layer):
    """Hashes categorical values (strings or integers) into `num_bins` bins.

    Use it for categories too many or too open-ended to list in a vocabulary. The bins
    are stable across runs and machines and equal to Keras 3's: FarmHash Fingerprint64
    (or SipHash-2-4 with a `salt`) of each value's text, modulo the number of bins.

    Args:
        num_bins: the number of bins, the mask bin included when `mask_value` is set.
        mask_value: a value that maps to bin 0 (the others then use bins 1 to
            `num_bins - 1`); `None` for no mask.
        salt: an int, or two ints, keying SipHash instead of FarmHash.
        output_mode: `"int"` (bin indices), `"one_hot"`, `"multi_hot"` or `"count"`.
        sparse: only `False` (lamina has no sparse tensors).

    Call arguments:
        inputs: strings or integers: a list, a NumPy array or an engine array.

    >>> layer = Hashing(num_bins=3)
    >>> layer([["A"], ["B"], ["C"], ["D"], ["E"]]).ravel().tolist()
    [1, 0, 1, 1, 2]
    """

    _runs_on_host = True

    def __init__(
        self,
        num_bins,
        mask_value=None,
        salt=None,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs,
    ):
        dtype = kwargs.pop("dtype", None)
        if isinstance(dtype, dict):  # a Keras DTypePolicy
            dtype = dtype.get("config", {}).get("name")
        if dtype is None:
            dtype = "int64" if output_mode == "int" else backend.floatx()
        # Keras's Layer argument: hashing casts no input, so it is accepted and ignored.
        kwargs.pop("autocast", None)
        super().__init__(dtype=dtype, autocast=False, **kwargs)
        who = f"Hashing {self.name!r}"
        if num_bins is None or isinstance(num_bins, bool) or int(num_bins) <= 0:
            raise ValueError(f"{who}: num_bins must be a positive int; received {num_bins!r}.")
        if output_mode not in _ENCODINGS:
            raise ValueError(
                f"{who}: unknown output_mode {output_mode!r}; expected one of {list(_ENCODINGS)}."
            )
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError(
                f"{who}: output_mode='int' gives bin indices, so dtype must be 'int32' or "
                f"'int64'; received dtype={self.dtype!r}."
            )
        _check_sparse(who, sparse)
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = [int(s) for s in salt]
            elif isinstance(salt, int) and not isinstance(salt, bool):
                salt = [salt, salt]
            else:
                raise ValueError(
                    f"{who}: salt must be an int or a pair of ints; received {salt!r}."
                )
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = False
        self.built = True

    def _convert_inputs(self, x):
        return host_array(x, f"Hashing {self.name!r}")

    def call(self, inputs):
        values = host_array(inputs, f"Hashing {self.name!r}")
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            if is_text(values):
                mask = values == str(self.mask_value)
            else:
                mask = values == self.mask_value
        out = hash_to_bins(values, bins, self.salt)
        if mask is not None:
            out = np.where(mask, 0, out + 1)
        if self.output_mode == "int":
            return out.astype(self.dtype)
        return encode_on_host(out, self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        if not input_shape:
            return (self.num_bins,)
        if self.output_mode == "one_hot" and input_shape[-1] != 1:
            return input_shape + (self.num_bins,)
        return input_shape[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        return KerasTensor(self.compute_output_shape(inputs.shape), self.dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "num_bins": self.num_bins,
            "salt": self.salt,
            "mask_value": self.mask_value,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }


@register
class HashedCrossing(Layer):
    """Crosses categorical features by hashing each combination into `num_bins` bins.

    `HashedCrossing(num_bins)((a, b))` gives, per sample, the bin of the pair
    `(a[i], b[i])`, as Keras 3 (TensorFlow's `cross_hashed`) computes it.

    Args:
        num_bins: the number of bins.
        output_mode: `"int"` (bin indices) or `"one_hot"`.
        sparse: only `False` (lamina has no sparse tensors).

    Call arguments:
        inputs: a tuple or list of at least two features of equal shape, each of
            strings or integers, shaped `()`, `(batch,)` or `(batch, 1)`.

    >>> import numpy as np
    >>> layer = HashedCrossing(num_bins=5)
    >>> layer((np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102]))).tolist()
    [1, 4, 1, 1, 3]
    """

    _runs_on_host = True

    def __init__(self, num_bins, output_mode: str = "int", sparse: bool = False, **kwargs):
        dtype = kwargs.pop("dtype", None)
        if isinstance(dtype, dict):
            dtype = dtype.get("config", {}).get("name")
        if dtype is None:
            dtype = "int64" if output_mode == "int" else backend.floatx()
        # Keras's Layer argument: hashing casts no input, so it is accepted and ignored.
        kwargs.pop("autocast", None)
        super().__init__(dtype=dtype, autocast=False, **kwargs)
        who = f"HashedCrossing {self.name!r}"
        if output_mode not in ("int", "one_hot"):
            raise ValueError(
                f"{who}: unknown output_mode {output_mode!r}; expected 'int' or 'one_hot'."
            )
        if num_bins is None or isinstance(num_bins, bool) or int(num_bins) <= 0:
            raise ValueError(f"{who}: num_bins must be a positive int; received {num_bins!r}.")
        _check_sparse(who, sparse)
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = False
        self.built = True

    def _check_inputs(self, inputs):
        who = f"HashedCrossing {self.name!r}"
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                f"{who} should be called on a list or tuple of inputs; received "
                f"{type(inputs).__name__}."
            )
        if len(inputs) < 2:
            raise ValueError(
                f"{who} should be called on at least two inputs; received {len(inputs)}."
            )
        shapes = [tuple(x.shape) for x in inputs]
        first = shapes[0]
        if len(first) > 2 or (len(first) == 2 and first[-1] != 1):
            raise ValueError(
                f"{who}: all inputs should have shape (), (batch_size,) or (batch_size, 1); "
                f"received shapes {shapes}."
            )
        if any(s != first for s in shapes[1:]):
            raise ValueError(f"{who}: all inputs should have equal shape; received {shapes}.")

    def _convert_inputs(self, x):
        if not isinstance(x, (list, tuple)):
            return x
        return [host_array(v, f"HashedCrossing {self.name!r}") for v in x]

    def call(self, inputs):
        who = f"HashedCrossing {self.name!r}"
        if isinstance(inputs, (list, tuple)):
            inputs = [host_array(v, who) for v in inputs]
        self._check_inputs(inputs)
        for x in inputs:
            if not (is_text(x) or x.dtype.kind in "iu"):
                raise ValueError(
                    f"{who}: all inputs should have an integer or string dtype; received "
                    f"dtype {x.dtype}."
                )
        shape = inputs[0].shape
        columns = [x.ravel().tolist() for x in inputs]
        out = np.empty(len(columns[0]), "int64")
        for i, row in enumerate(zip(*columns, strict=True)):
            hashed = _CROSS_KEY
            for value in row:
                if isinstance(value, (str, bytes)):
                    feature = fingerprint64(_as_bytes(value))
                else:
                    feature = int(value) & _MASK64
                hashed = _fingerprint_cat64(hashed, feature)
            out[i] = hashed % self.num_bins
        out = out.reshape(shape)
        if self.output_mode == "int":
            return out.astype(self.dtype)
        return encode_on_host(out, "one_hot", self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if not first:
            return (self.num_bins,)
        if first[-1] != 1:
            return first + (self.num_bins,)
        return first[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f"HashedCrossing {self.name!r} should be called on a list or tuple of at "
                "least two inputs."
            )
        self._check_inputs(inputs)
        return KerasTensor(self.compute_output_shape([x.shape for x in inputs]), self.dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "num_bins": self.num_bins,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }
