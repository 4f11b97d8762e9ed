"""Dtype promotion, the same for every engine: Keras 3's `result_type` rules.

Keras 3 promotes on JAX's type lattice: each dtype sits below the dtypes it converts to
without loss, and the result of mixing dtypes is their least upper bound (their *join*).
Python scalars are *weak*: `int` and `float` stand for the abstract nodes `"int"` and
`"float"`, which yield to any concrete dtype of their kind (`uint8` and `int` give
`uint8`, `float16` and `float` give `float16`). A weak result takes the width of
`floatx()`; 64-bit results are reported as 32-bit, as on JAX without x64.

The joins of every pair of lattice nodes are computed once into `PROMOTION_TABLE`.

>>> result_type("int8", "uint8")
'int16'
>>> result_type("bfloat16", "float16")
'float32'
>>> result_type("uint8", int), result_type("int32", float)
('uint8', 'float32')
"""

from __future__ import annotations

import itertools

from lamina.backend import config
from lamina.backend.common.variables import standardize_dtype

# Each node and the nodes directly above it. "int" and "float" are the weak Python types.
_ABOVE = {
    "bool": ("int",),
    "int": ("uint8", "int8", "complex64"),
    "uint8": ("uint16", "int16"),
    "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"),
    "uint64": ("float",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("float",),
    "float": ("bfloat16", "float16"),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "complex64": ("complex128",),
    "complex128": (),
}
_WEAK = ("int", "float")
# Without x64 a 64-bit result is its 32-bit counterpart (Keras's rule on JAX and torch).
_NARROW = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
_NO_IMPLICIT = ("float8_e4m3fn", "float8_e5m2")


def _upper_sets() -> dict[str, frozenset]:
    """Each node with every node reachable above it (itself included)."""
    result: dict[str, frozenset] = {}

    def visit(node):
        if node not in result:
            result[node] = frozenset({node}).union(*(visit(up) for up in _ABOVE[node]))
        return result[node]

    for node in _ABOVE:
        visit(node)
    return result


_UP = _upper_sets()


def _join(a: str, b: str) -> str:
    common = _UP[a] & _UP[b]
    # The least common upper bound is the one every other common bound lies above.
    (least,) = [c for c in common if common <= _UP[c]]
    return least


PROMOTION_TABLE: dict[tuple[str, str], str] = {
    (a, b): _join(a, b) for a, b in itertools.product(_ABOVE, repeat=2)
}


def _node(dtype) -> tuple[str, bool]:
    """The lattice node of one argument of `result_type`, and whether it is weak."""
    if dtype is int or dtype is float:
        return ("int" if dtype is int else "float"), True
    if dtype is bool:
        return "bool", False
    if dtype is None:
        return config.floatx(), False
    return standardize_dtype(dtype), False


def _resolve_weak(node: str) -> str:
    """A weak result as a concrete dtype, at the width of `floatx()`."""
    width = config.floatx()[-2:]
    kind = node.rstrip("0123456789")
    if kind == "bool":
        return "bool"
    return f"{kind if kind in ('int', 'uint') else 'float'}{width}"


def result_type(*dtypes) -> str:
    """The dtype that mixing `dtypes` gives under Keras 3's promotion rules.

    Args:
        *dtypes: dtypes (strings, NumPy or engine dtypes), or the Python types `int` and
            `float` for weak scalars (and `bool`). `None` means `floatx()`.

    Returns:
        The result dtype's name; `floatx()` when no dtype is given.

    >>> result_type("int32", "float16")
    'float16'
    >>> result_type(int, float)
    'float32'
    """
    if not dtypes:
        return config.floatx()
    nodes = [_node(d) for d in dtypes]
    for name, _ in nodes:
        if name in _NO_IMPLICIT:
            raise ValueError(
                f"result_type: {name} has no implicit promotion to other dtypes; cast it "
                f"explicitly first. Received dtypes {dtypes}."
            )
    names = {name for name, _ in nodes}
    all_weak = all(weak for _, weak in nodes)
    if len(names) == 1 and not all_weak:
        # One concrete dtype: no promotion (lets dtypes outside the lattice, e.g.
        # "string", through).
        result, weak = names.pop(), False
    else:
        if all_weak:
            # Promote the concrete counterparts (int -> int32, float -> float32), then
            # keep the result weak.
            names = {standardize_dtype(name) for name in names}
        unknown = sorted(n for n in names if n not in _UP)
        if unknown:
            raise ValueError(
                f"result_type: no promotion rule for dtype {unknown[0]!r}. Expected "
                f"dtypes among {[n for n in _ABOVE if n not in _WEAK]}."
            )
        result = names.pop()
        for name in names:
            result = PROMOTION_TABLE[(result, name)]
        weak = all_weak or result in _WEAK
    if weak and result != "bool":
        result = _resolve_weak(result)
    return _NARROW.get(result, result)


def is_float_dtype(dtype) -> bool:
    """Whether `dtype` is a floating type (`float16/32/64`, `bfloat16`), as Keras's.

    >>> is_float_dtype("bfloat16"), is_float_dtype("int32")
    (True, False)
    """
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype) -> bool:
    """Whether `dtype` is a signed or unsigned integer type, as Keras's.

    >>> is_int_dtype("uint8"), is_int_dtype("bool")
    (True, False)
    """
    return standardize_dtype(dtype).startswith(("int", "uint"))
