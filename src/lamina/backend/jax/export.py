"""Inference programs written and read with `jax.export` (serialized StableHLO).

`write_program` traces a pure function of the weights and the inputs with `jax.jit`,
exports it with `jax.export.export` and writes `Exported.serialize()`'s bytes. The
weights are baked into the program as constants, so the file is self-contained: any JAX
process runs it with `jax.export.deserialize(data).call(*args)`, without lamina or the
model's Python code. A dimension given as `None` becomes a symbolic dimension (`batch`
for axis 0, shared by every input; `a`, `b`, ... for the others, one per input and axis),
so one program serves every batch size.

The file format is jax's own: a program written by one jax version is read by later ones
for the compatibility window jax documents for `jax.export` (about six months).
"""

from __future__ import annotations

import itertools
import pathlib
import string

import jax
import numpy as np
from jax import export as jax_export

from lamina import tree
from lamina.backend.common.variables import strict_trace

FORMATS = ("stablehlo",)

_OPTIONS = ("platforms",)


def _dim_names():
    return itertools.chain(
        string.ascii_lowercase,
        ("".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)),
    )


def _symbolic_specs(arguments):
    scope = jax_export.SymbolicScope()
    names = _dim_names()
    free = []

    def spec(leaf):
        dims = []
        for axis, size in enumerate(leaf.shape):
            if size is not None:
                dims.append(str(int(size)))
            elif axis == 0:
                dims.append("batch")
            else:
                dims.append(next(names))
                free.append((leaf.name, axis, dims[-1]))
        shape = jax_export.symbolic_shape(", ".join(dims), scope=scope) if dims else ()
        return jax.ShapeDtypeStruct(shape, np.dtype(leaf.dtype))

    return tuple(tree.map_structure(spec, arg) for arg in arguments)


_SYMBOLIC_HINT = (
    "The computation needs the concrete size of a dimension the input signature leaves "
    "free (None). Give that dimension a fixed size in `input_signature`, e.g. "
    "`lamina.layers.InputSpec(shape=(None, 32), dtype='float32')` instead of `(None, None)`."
)


def write_program(fn, weights, arguments, format, filepath, output_names=None, options=None):
    """Export `fn(values, *args)` with the weights baked in; write the serialized bytes."""
    del output_names  # a jax program keeps its outputs' structure, not names
    if format not in FORMATS:
        raise ValueError(f"The jax engine writes formats {list(FORMATS)}; received {format!r}.")
    options = dict(options or {})
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for format='stablehlo'; it accepts {list(_OPTIONS)} "
            "(`platforms`: the platforms to lower for, e.g. ('cpu', 'cuda'); default: the "
            "platform of this process)."
        )
    values = [jax.numpy.asarray(v) for v in weights.values()]

    def program(*args):
        with strict_trace("export"):
            return fn(values, *args)

    specs = _symbolic_specs(arguments)
    platforms = options.get("platforms")
    if isinstance(platforms, str):
        platforms = (platforms,)
    try:
        exported = jax_export.export(jax.jit(program), platforms=platforms)(*specs)
    except jax.errors.InconclusiveDimensionOperation as error:
        raise ValueError(f"{_SYMBOLIC_HINT}\njax said: {error}") from None
    pathlib.Path(filepath).write_bytes(exported.serialize())


def read_program(filepath, format):
    """The `Exported.call` of a program written by `write_program`."""
    if format not in FORMATS:
        raise ValueError(
            f"A {format!r} file is not run by the jax engine, which reads {list(FORMATS)}."
        )
    data = bytearray(pathlib.Path(filepath).read_bytes())
    return jax_export.deserialize(data).call
