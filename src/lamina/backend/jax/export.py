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

`"onnx"` converts the same traced function with `jax2onnx` when that package is
installed (it is not a lamina dependency: it brings flax, orbax and tensorstore, and a
conversion takes seconds). Inputs and outputs are flattened and named, as ONNX wants.
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

FORMATS = ("stablehlo", "onnx")

_OPTIONS = {"stablehlo": ("platforms",), "onnx": ("opset_version",)}


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


def _check_options(format, options):
    unknown = sorted(set(options) - set(_OPTIONS[format]))
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for format={format!r}; it accepts "
            f"{list(_OPTIONS[format])} (`platforms`: the platforms to lower for, e.g. "
            "('cpu', 'cuda'), default: this process's; `opset_version`: the ONNX opset)."
        )


def write_program(fn, weights, arguments, format, filepath, output_names=None, options=None):
    """Export `fn(values, *args)` with the weights baked in; write the serialized bytes
    (`"stablehlo"`), or an ONNX model converted by `jax2onnx` (`"onnx"`)."""
    if format not in FORMATS:
        raise ValueError(f"The jax engine writes formats {list(FORMATS)}; received {format!r}.")
    options = dict(options or {})
    _check_options(format, options)
    values = [jax.numpy.asarray(v) for v in weights.values()]
    specs = _symbolic_specs(arguments)
    if format == "onnx":
        _write_onnx(fn, values, arguments, specs, filepath, output_names, options)
        return

    def program(*args):
        with strict_trace("export"):
            return fn(values, *args)

    platforms = options.get("platforms")
    if isinstance(platforms, str):
        platforms = (platforms,)
    try:
        exported = jax_export.export(jax.jit(program), platforms=platforms)(*specs)
    except jax.errors.InconclusiveDimensionOperation as error:
        raise ValueError(f"{_SYMBOLIC_HINT}\njax said: {error}") from None
    pathlib.Path(filepath).write_bytes(exported.serialize())


_JAX2ONNX_MISSING = (
    "format='onnx' on the jax engine converts the program with the `jax2onnx` package, "
    "which is not installed (`pip install jax2onnx`; it brings flax, orbax and "
    "tensorstore, so lamina does not depend on it). Alternatives: format='stablehlo', "
    "or export with LAMINA_BACKEND=torch, whose format='onnx' needs only onnx and "
    "onnxscript."
)


def _write_onnx(fn, values, arguments, specs, filepath, output_names, options):
    try:
        from jax2onnx import to_onnx
    except ImportError as error:
        raise ImportError(_JAX2ONNX_MISSING) from error
    structure = tuple(arguments)
    flat_specs = tree.flatten(structure)
    flat_avals = tree.flatten(specs)

    def program(*flat):
        args = tree.pack_sequence_as(structure, list(flat))
        with strict_trace("export"):
            return tuple(tree.flatten(fn(values, *args)))

    names = [getattr(s, "name", None) or f"input_{i}" for i, s in enumerate(flat_specs)]
    kwargs = {"opset": options["opset_version"]} if "opset_version" in options else {}
    try:
        to_onnx(
            program,
            flat_avals,
            input_names=names,
            output_names=list(output_names) if output_names else None,
            return_mode="file",
            output_path=str(filepath),
            **kwargs,
        )
    except jax.errors.InconclusiveDimensionOperation as error:
        raise ValueError(f"{_SYMBOLIC_HINT}\njax said: {error}") from None


def read_program(filepath, format):
    """The `Exported.call` of a program written by `write_program`."""
    if format != "stablehlo":
        raise ValueError(
            f"A {format!r} file is not run by the jax engine, which runs 'stablehlo' programs "
            "(an ONNX model runs in onnxruntime)."
        )
    data = bytearray(pathlib.Path(filepath).read_bytes())
    return jax_export.deserialize(data).call
