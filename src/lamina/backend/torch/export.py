"""Inference programs written with `torch.export` (`.pt2`) and `torch.onnx` (`.onnx`).

`write_program` wraps a pure function of the weights and the inputs in a small
`torch.nn.Module` whose buffers are the weights (so they are the program's state, named
after the variables' paths, not constants captured from Python), and exports it:

- `"torch"`: `torch.export.export` (non-strict: lamina's Python runs once on fake
  tensors), saved with `torch.export.save`; any PyTorch process runs it with
  `torch.export.load(path).module()(*args)`.
- `"onnx"`: `torch.onnx.export(..., dynamo=True)` (the same capture, converted to ONNX by
  `onnxscript`); ONNX Runtime and any other ONNX runtime run it. ONNX has flat, named
  inputs and outputs: nested inputs are flattened (`lamina.tree` order) and so are the
  outputs.

A dimension given as `None` is exported as a dynamic dimension (`batch` for axis 0,
shared by every input). The capture runs once on sample inputs of size 2 along each
such axis (torch specializes sizes 0 and 1).
"""

from __future__ import annotations

import contextlib
import io
import logging
import pathlib
import warnings

import torch

from lamina import tree
from lamina.backend.common.variables import strict_trace
from lamina.backend.torch.core import TORCH_DTYPES

FORMATS = ("torch", "onnx")

_SAMPLE_SIZE = 2
_ONNX_OPTIONS = ("opset_version", "optimize", "external_data")


def _buffer_name(name: str, taken: set) -> str:
    # `.` separates module names in torch's lookups; keep the variable path readable.
    key = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "weight"
    if key[0].isdigit():
        key = f"w_{key}"
    candidate, i = key, 1
    while candidate in taken:
        candidate, i = f"{key}_{i}", i + 1
    taken.add(candidate)
    return candidate


class _Program(torch.nn.Module):
    """`fn(values, *args)` as a module whose buffers are the weights."""

    def __init__(self, fn, weights, structure=None):
        super().__init__()
        self._fn = fn
        self._structure = structure  # set: forward takes flat tensors (ONNX)
        self._keys = []
        taken: set = set()
        for name, value in weights.items():
            key = _buffer_name(name, taken)
            # Contiguous: torch's program archive writes whole storages, and warns
            # about a column-major kernel (`Variable._store_for`) as a slice.
            self.register_buffer(key, value.detach().contiguous())
            self._keys.append(key)

    def forward(self, *args):
        if self._structure is not None:
            args = tree.pack_sequence_as(self._structure, list(args))
        values = [getattr(self, key) for key in self._keys]
        with strict_trace("export"):
            outputs = self._fn(values, *args)
        if self._structure is not None:
            return tuple(tree.flatten(outputs))
        return outputs


def _dims_maker():
    """`dims(spec)`: the `dynamic_shapes` entry of one input (`None` sizes are dynamic;
    axis 0 is the `batch` dimension every input shares)."""
    batch = torch.export.Dim("batch")
    taken = {"batch"}

    def dims(spec):
        found = {}
        for axis, size in enumerate(spec.shape):
            if size is None:
                if axis == 0:
                    found[axis] = batch
                else:
                    # Named after the input and axis: torch's errors name the dimension.
                    found[axis] = torch.export.Dim(
                        _buffer_name(f"{spec.name or 'input'}_axis{axis}", taken)
                    )
        return found or None

    return dims


def _sample(spec):
    shape = tuple(_SAMPLE_SIZE if s is None else int(s) for s in spec.shape)
    return torch.ones(shape, dtype=TORCH_DTYPES[spec.dtype])


@contextlib.contextmanager
def _quiet():
    """torch's exporters print progress, log advisories (torchvision ops skipped) and
    warn; an export that succeeds says nothing, one that fails raises."""
    loggers = [logging.getLogger(name) for name in ("torch.onnx", "torch.export", "onnxscript")]
    levels = [logger.level for logger in loggers]
    try:
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


_CAPTURE_HINT = (
    "torch.export could not capture the model's inference computation. If the message "
    "is about a dynamic dimension (a `None` size in the input signature) being "
    "specialized or constrained, give that dimension a fixed size in `input_signature` "
    "(e.g. `lamina.layers.InputSpec(shape=(None, 32), dtype='float32')`)."
)


def _capture(module, samples, dynamic, options):
    """`torch.export.export` of `module`, with an error that says what to do."""
    kwargs = {"strict": False, **options}
    kwargs.setdefault("dynamic_shapes", {"args": dynamic})
    try:
        with _quiet():
            return torch.export.export(module, samples, **kwargs)
    except Exception as error:  # torch raises many kinds; ours explains what to do
        raise ValueError(f"{_CAPTURE_HINT}\ntorch said: {error}") from error


def write_program(fn, weights, arguments, format, filepath, output_names=None, options=None):
    """Export `fn(values, *args)` with `weights` as buffers; write it in `format`."""
    options = dict(options or {})
    if format == "torch":
        import inspect

        allowed = set(inspect.signature(torch.export.export).parameters) - {
            "mod",
            "args",
            "kwargs",
        }
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise ValueError(
                f"Unknown option(s) {unknown} for format='torch'; it passes "
                f"{sorted(allowed)} to torch.export.export."
            )
        samples = tuple(tree.map_structure(_sample, a) for a in arguments)
        dims = _dims_maker()
        # The entries are dicts: packed in as leaves, not mapped (a dict reads as structure).
        dynamic = tuple(
            tree.pack_sequence_as(a, [dims(s) for s in tree.flatten(a)]) for a in arguments
        )
        program = _capture(_Program(fn, weights), samples, dynamic, options)
        torch.export.save(program, str(filepath))
        return
    if format != "onnx":
        raise ValueError(f"The torch engine writes formats {list(FORMATS)}; received {format!r}.")
    unknown = sorted(set(options) - set(_ONNX_OPTIONS))
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for format='onnx'; it accepts {list(_ONNX_OPTIONS)}."
        )
    structure = tuple(arguments)
    flat_specs = tree.flatten(structure)
    flat_samples = tuple(_sample(s) for s in flat_specs)
    dims = _dims_maker()
    flat_dynamic = tuple(dims(s) for s in flat_specs)
    input_names = [getattr(s, "name", None) or f"input_{i}" for i, s in enumerate(flat_specs)]
    optimize = options.pop("optimize", True)
    external_data = options.pop("external_data", None)
    # Captured here, with the dynamic dimensions required: torch.onnx's own capture falls
    # back to fixed sizes when a dimension cannot stay dynamic (an LSTM's time axis),
    # giving a model that refuses every other size.
    program = _capture(_Program(fn, weights, structure=structure), flat_samples, flat_dynamic, {})
    try:
        with _quiet():
            onnx_program = torch.onnx.export(
                program,
                flat_samples,
                dynamo=True,
                input_names=input_names,
                output_names=list(output_names) if output_names else None,
                optimize=optimize,
                verbose=False,
                opset_version=options.get("opset_version"),
            )
            onnx_program.save(str(filepath), external_data=external_data)
    except ImportError as error:
        raise ImportError(
            "format='onnx' needs the `onnx` and `onnxscript` packages: "
            "`pip install lamina[export]` (or `pip install onnx onnxscript onnxruntime`)."
        ) from error
    except Exception as error:
        raise ValueError(f"{_CAPTURE_HINT}\ntorch.onnx said: {error}") from error


def read_program(filepath, format):
    """A callable running a `.pt2` program written by `write_program` (`"torch"`)."""
    if format != "torch":
        raise ValueError(
            f"The torch engine runs format 'torch' (.pt2) programs; received {format!r}."
        )
    with _quiet():
        module = torch.export.load(str(pathlib.Path(filepath))).module()

    def call(*args):
        args = tree.map_structure(torch.as_tensor, args)
        with torch.no_grad():
            return module(*args)

    return call
