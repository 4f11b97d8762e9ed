"""`Model.export` and `ExportArchive`: a model's inference as a program people serve.

Keras 3's default export format, a TensorFlow SavedModel, needs TensorFlow. lamina
writes each engine's own serving format instead, traced from the model's inference
(`training=False`) with its weights inside, so the artefact runs without lamina or the
model's Python code:

| engine | `format=` | written | run with |
| --- | --- | --- | --- |
| jax | `"stablehlo"` | `jax.export.Exported.serialize()` bytes | `jax.export.deserialize(data).call(x)` |
| jax | `"onnx"` | an ONNX model (`jax2onnx`, if installed) | `onnxruntime.InferenceSession(path)` |
| torch | `"torch"` | a `.pt2` `torch.export` program | `torch.export.load(path).module()(x)` |
| torch | `"onnx"` | an ONNX model (`torch.onnx`, dynamo) | `onnxruntime.InferenceSession(path)` |

Why these: StableHLO through `jax.export` is JAX's own portable, versioned program
format (the input of XLA, IREE and TF Serving's XLA path) and needs no converter; on
torch, `torch.export` is PyTorch's ahead-of-time program (Keras 3's `format="torch"`) and
ONNX is what most serving stacks take. ONNX from JAX goes through the `jax2onnx`
converter, used when it is installed: it converts lamina's programs correctly (LSTM
included) but pulls in flax, orbax and tensorstore (~200 MB) and takes seconds per
model, so lamina does not depend on it.

A size given as `None` in the input signature (the batch, by default) stays free in the
program: `batch` for axis 0, shared by every input. `lamina.export.load` runs any of
these artefacts in this process (jax's deserializer, `torch.export.load`, ONNX Runtime).

>>> import numpy as np, tempfile, os, lamina
>>> from lamina import export
>>> x = lamina.Input((3,))
>>> model = lamina.Model(x, lamina.layers.Dense(2)(x))
>>> path = os.path.join(tempfile.mkdtemp(), "model.stablehlo")
>>> model.export(path, format="stablehlo", verbose=False)
>>> reloaded = export.load(path)
>>> data = np.ones((5, 3), "float32")
>>> bool(np.allclose(reloaded.serve(data), model.predict(data, verbose=0), atol=1e-6))
True
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import numpy as np

from lamina import tree
from lamina.backend import config as backend_config
from lamina.backend import core as backend_core
from lamina.backend import export as engine_export
from lamina.backend.common.variables import StatelessScope, Variable, standardize_dtype
from lamina.common import io_utils
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

DEFAULT_ENDPOINT_NAME = "serve"

# Every engine's formats, so that a format of the other engine is named as such.
FORMATS_BY_ENGINE = {"jax": ("stablehlo", "onnx"), "torch": ("torch", "onnx")}
SUFFIXES = {"stablehlo": ".stablehlo", "torch": ".pt2", "onnx": ".onnx"}
_KERAS_ONLY = {
    "tf_saved_model": "a TensorFlow SavedModel needs TensorFlow",
    "litert": "LiteRT (TFLite) conversion needs TensorFlow or litert-torch",
    "openvino": "OpenVINO conversion needs the openvino package and a TensorFlow model",
}
_MANIFEST = "manifest.json"
_VARIABLES = "variables.npz"


def _engine() -> str:
    return backend_config.backend()


def check_format(format) -> str:
    """`format` if this engine writes it; otherwise an error naming what to use."""
    engine = _engine()
    mine = FORMATS_BY_ENGINE[engine]
    if format in mine:
        return format
    listed = ", ".join(repr(f) for f in mine)
    if format in _KERAS_ONLY:
        raise ValueError(
            f"format={format!r} is not written by lamina: {_KERAS_ONLY[format]}. On the "
            f"{engine} engine lamina writes format={listed}."
        )
    for other, formats in FORMATS_BY_ENGINE.items():
        if format in formats:
            raise ValueError(
                f"format={format!r} is written by lamina's {other} engine, and this process "
                f"runs the {engine} engine (which writes {listed}). Set LAMINA_BACKEND="
                f"{other} before importing lamina to export in that format."
            )
    every = sorted({f for formats in FORMATS_BY_ENGINE.values() for f in formats})
    raise ValueError(
        f"Unknown export format {format!r}. On the {engine} engine lamina writes {listed} "
        f"(all engines: {every})."
    )


# Input signatures -----------------------------------------------------------------------
def _make_spec(x, name=None, free_batch=True) -> InputSpec:
    """One input's spec: an InputSpec (as given), or a graph tensor, array or any object
    with `shape` and `dtype` (a `tf.TensorSpec`, `jax.ShapeDtypeStruct`)."""
    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(
                f"An InputSpec in an export signature needs both `shape` and `dtype`; "
                f"received {x!r}."
            )
        return InputSpec(shape=x.shape, dtype=x.dtype, name=x.name or name)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        shape = tuple(None if s is None else int(s) for s in x.shape)
        graph_or_data = hasattr(x, "_keras_history") or backend_core.is_tensor(x)
        if (graph_or_data or isinstance(x, np.ndarray)) and free_batch and shape:
            shape = (None,) + shape[1:]  # as Keras: a sample's batch size is not fixed
        dtype = standardize_dtype(x.dtype if not hasattr(x.dtype, "name") else x.dtype.name)
        return InputSpec(shape=shape, dtype=dtype, name=getattr(x, "name", None) or name)
    raise TypeError(
        f"Unsupported entry {x!r} (type {type(x).__name__}) in an export input signature. "
        "Use `lamina.layers.InputSpec(shape=..., dtype=...)`, a KerasTensor, or an array whose "
        "shape and dtype to take."
    )


def _name_specs(structure):
    """Give the specs of one endpoint distinct names (dict keys where there are some)."""
    taken: set = set()

    def name(path, spec):
        base = spec.name or path or "input"
        candidate, i = base, 1
        while candidate in taken:
            candidate, i = f"{base}_{i}", i + 1
        taken.add(candidate)
        return InputSpec(shape=spec.shape, dtype=spec.dtype, name=candidate)

    def walk(s, path):
        if isinstance(s, dict):
            return {k: walk(s[k], str(k)) for k in sorted(s)}
        if isinstance(s, (list, tuple)):
            return type(s)(walk(v, path) for v in s)
        return name(path, s)

    return walk(structure, "")


def standardize_signature(input_signature) -> tuple:
    """The positional arguments of an endpoint: a tuple of nested specs."""
    if not isinstance(input_signature, (list, tuple)):
        input_signature = [input_signature]
    return tuple(tree.map_structure(_make_spec, arg) for arg in input_signature)


def model_input_signature(model) -> list:
    """The signature `model(inputs)` is exported with when none is given (as Keras)."""
    function = getattr(model, "_function", None)
    if function is not None:
        return [tree.map_structure(_make_spec, function._inputs_struct)]
    shapes = getattr(model, "_build_shapes", None)
    if not model.built or shapes is None:
        raise ValueError(
            f"Model {model.name!r} has not been built or called, so its input shapes are "
            "unknown. Call it once on data (or build it) before exporting, or pass "
            "`input_signature=[lamina.layers.InputSpec(shape=(None, ...), dtype=...)]`."
        )

    def spec(shape):
        return InputSpec(shape=(None,) + tuple(shape)[1:], dtype=model.compute_dtype)

    is_shape = lambda s: (
        isinstance(s, (list, tuple)) and all(d is None or isinstance(d, int) for d in s)
    )

    def walk(s):
        if is_shape(s):
            return spec(s)
        if isinstance(s, dict):
            return {k: walk(v) for k, v in s.items()}
        return type(s)(walk(v) for v in s)

    return [walk(shapes)]


# The archive -----------------------------------------------------------------------------
class _Endpoint:
    def __init__(self, name, fn, arguments, output_names=None):
        self.name = name
        self.fn = fn
        self.arguments = arguments
        self.output_names = output_names


class ExportArchive:
    """Endpoints (functions of tracked layers' variables) written as inference programs.

    lamina's counterpart of Keras's `keras.export.ExportArchive`: track the layers or
    models whose variables the endpoints use, add named endpoints with their input
    signatures, then `write_out(filepath)` writes a directory holding one program per
    endpoint in the engine's format (`<name>.stablehlo` on jax, `<name>.pt2` on torch,
    see `lamina.export`), a `manifest.json` describing them, and `variables.npz` with the
    variable collections. `lamina.export.load(filepath)` returns an object with each
    endpoint as a method and each collection as a list of arrays.

    Endpoints run in inference: the variables are read, never assigned. An endpoint
    that assigns a variable (a stateful RNN carrying its states, a metric) is refused.

    >>> import numpy as np, tempfile, lamina
    >>> from lamina import export
    >>> x = lamina.Input((3,))
    >>> model = lamina.Model(x, lamina.layers.Dense(2)(x))
    >>> archive = export.ExportArchive()
    >>> archive.track(model)
    >>> archive.add_endpoint(
    ...     name="serve",
    ...     fn=lambda x: model(x, training=False),
    ...     input_signature=[lamina.layers.InputSpec(shape=(None, 3), dtype="float32")],
    ... )
    >>> archive.add_variable_collection("weights", model.weights)
    >>> path = tempfile.mkdtemp()
    >>> archive.write_out(path, verbose=False)
    >>> reloaded = export.load(path)
    >>> reloaded.serve(np.ones((4, 3), "float32")).shape
    (4, 2)
    >>> [w.shape for w in reloaded.weights]
    [(3, 2), (2,)]
    """

    def __init__(self):
        self._tracked: list = []
        self._endpoints: dict[str, _Endpoint] = {}
        self._collections: dict[str, list] = {}

    # Variables --------------------------------------------------------------------------
    @property
    def variables(self) -> list:
        """Every variable of the tracked layers (each once)."""
        found: dict[int, Variable] = {}
        for resource in self._tracked:
            for variable in _variables_of(resource):
                found.setdefault(id(variable), variable)
        return list(found.values())

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        return [v for v in self.variables if not v.trainable]

    def track(self, resource) -> None:
        """Track a built layer or model: endpoints may read its variables."""
        if not isinstance(resource, Layer):
            raise ValueError(
                f"ExportArchive.track takes a lamina Layer or Model; received {resource!r} "
                f"of type {type(resource).__name__}."
            )
        if not resource.built:
            raise ValueError(
                f"Layer {resource.name!r} has not been built: call it on data (or build it) "
                "before tracking it, so that its variables exist."
            )
        if not any(r is resource for r in self._tracked):
            self._tracked.append(resource)

    def add_endpoint(self, name, fn, input_signature=None, **kwargs) -> None:
        """Add the endpoint `name`, running `fn(*args)` for `args` of `input_signature`.

        Args:
            name: the endpoint's name (a method of the reloaded artefact).
            fn: a function of engine tensors that uses the tracked layers, e.g.
                `lambda x: model(x, training=False)`.
            input_signature: the positional arguments of `fn`: a list with one entry per
                argument, each an `InputSpec` (with `shape` and `dtype`; `None` sizes stay
                free), a KerasTensor, an array, or a nested list/tuple/dict of these.
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(
                f"An endpoint name must be a Python identifier (it becomes a method of the "
                f"reloaded artefact); received {name!r}."
            )
        if name in self._endpoints or name in self._collections:
            raise ValueError(f"Endpoint name {name!r} is already taken.")
        if input_signature is None:
            raise ValueError(
                f"add_endpoint({name!r}) needs an `input_signature`: a list with one "
                "`lamina.layers.InputSpec(shape=..., dtype=...)` (or nested structure of them) per "
                "positional argument of `fn`."
            )
        if kwargs:
            raise ValueError(
                f"add_endpoint got unexpected keyword arguments {sorted(kwargs)} (Keras's "
                "TensorFlow-only options such as `jax2tf_kwargs` have no meaning here)."
            )
        owner = fn if isinstance(fn, Layer) else getattr(fn, "__self__", None)
        if isinstance(owner, Layer):  # `fn=model` or `fn=model.call`: its layer is used
            self.track(owner)
        if not self._tracked:
            raise ValueError(
                "Track the layers or models the endpoint uses first: "
                "`archive.track(model)` before `archive.add_endpoint(...)`."
            )
        arguments = _name_specs(list(standardize_signature(input_signature)))
        self._endpoints[name] = _Endpoint(name, fn, tuple(arguments))

    def track_and_add_endpoint(self, name, resource, input_signature, **kwargs) -> None:
        """`track(resource)`, then an endpoint `name` calling it in inference mode."""
        self.track(resource)
        self.add_endpoint(
            name, lambda *args: resource(*args, training=False), input_signature, **kwargs
        )

    def add_variable_collection(self, name, variables) -> None:
        """Save `variables` (a list of Variables) as a collection readable after reloading."""
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(
                f"add_variable_collection({name!r}) takes a list, tuple or set of Variables; "
                f"received {type(variables).__name__}."
            )
        bad = [v for v in variables if not isinstance(v, Variable)]
        if bad:
            raise ValueError(
                f"add_variable_collection({name!r}) takes Variables; received {bad[0]!r}."
            )
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"A collection name must be an identifier; received {name!r}.")
        if name in self._endpoints or name in self._collections:
            raise ValueError(f"Name {name!r} is already taken by an endpoint or a collection.")
        self._collections[name] = list(variables)

    # Writing ----------------------------------------------------------------------------
    def write_out(self, filepath, options=None, verbose=True, format=None) -> None:
        """Write the archive to the directory `filepath` (replacing what is there).

        Args:
            filepath: the directory to write.
            options: a dict of the format's own options (`platforms` for `"stablehlo"`;
                `torch.export.export`'s arguments for `"torch"`; `opset_version` for
                `"onnx"`).
            verbose: print where the archive went and its endpoints.
            format: the programs' format, by default the engine's own (`"stablehlo"` on
                jax, `"torch"` on torch).
        """
        if not self._endpoints:
            raise ValueError(
                "The archive has no endpoint: add one with `add_endpoint(name, fn, "
                "input_signature)` before `write_out`."
            )
        format = check_format(format or FORMATS_BY_ENGINE[_engine()][0])
        if options is not None and not isinstance(options, dict):
            raise ValueError(
                f"write_out's `options` is a dict of the format's options in lamina; received "
                f"{type(options).__name__} (a tf.saved_model.SaveOptions needs TensorFlow)."
            )
        path = pathlib.Path(filepath)
        if path.exists() and not path.is_dir():
            raise ValueError(f"write_out writes a directory; {str(path)!r} is a file.")
        staging = path.with_name(path.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        try:
            manifest = {"format": format, "engine": _engine(), "endpoints": {}}
            for endpoint in self._endpoints.values():
                file = endpoint.name + SUFFIXES[format]
                self._write_endpoint(endpoint, staging / file, format, options)
                manifest["endpoints"][endpoint.name] = {
                    "file": file,
                    "inputs": [_describe(a) for a in endpoint.arguments],
                }
            if self._collections:
                arrays = {}
                for name, variables in self._collections.items():
                    for i, variable in enumerate(variables):
                        arrays[f"{name}/{i}"] = backend_core.convert_to_numpy(variable.value)
                np.savez(staging / _VARIABLES, **arrays)
                manifest["variable_collections"] = {
                    name: [v.path for v in variables]
                    for name, variables in self._collections.items()
                }
            (staging / _MANIFEST).write_text(json.dumps(manifest, indent=2))
            if path.exists():
                shutil.rmtree(path)
            os.replace(staging, path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if verbose:
            io_utils.print_msg(_summary(str(path), format, self._endpoints))

    def _write_endpoint(self, endpoint, filepath, format, options) -> None:
        variables = self.variables
        for resource in self._tracked:
            runtime = getattr(resource, "_runtime_state", None)
            if runtime is not None:
                for variable in runtime():
                    if all(variable is not v for v in variables):
                        variables.append(variable)
        weights = {}
        for variable in variables:
            key, i = variable.path, 1
            while key in weights:
                key, i = f"{variable.path}_{i}", i + 1
            weights[key] = variable.value
        pure = _pure_function(endpoint, variables)
        engine_export.write_program(
            pure,
            weights,
            endpoint.arguments,
            format,
            str(filepath),
            output_names=endpoint.output_names,
            options=options,
        )


def _variables_of(resource) -> list:
    return list(resource.variables)


def _pure_function(endpoint, variables):
    """`fn(values, *args)`: the endpoint run with `values` standing for `variables`."""

    def pure(values, *args):
        with StatelessScope(list(zip(variables, values)), collect_losses=True) as scope:
            outputs = endpoint.fn(*args)
        if scope.updates:
            names = sorted({v.path for v, _ in scope.updates})
            raise ValueError(
                f"Endpoint {endpoint.name!r} assigns variables {names}: an exported program "
                "cannot carry state from one call to the next. Export a function that only "
                "reads them (a stateful RNN: build it with stateful=False)."
            )
        return outputs

    return pure


def _describe(argument):
    def one(spec):
        return {"name": spec.name, "shape": list(spec.shape), "dtype": spec.dtype}

    return tree.map_structure(one, argument)


def _summary(path, format, endpoints) -> str:
    lines = [f"Saved {format} artifact at '{path}'. Endpoints:"]
    for endpoint in endpoints.values():
        inputs = ", ".join(
            f"{s.name}: {s.dtype}{list(s.shape)}" for s in tree.flatten(list(endpoint.arguments))
        )
        lines.append(f"* {endpoint.name}({inputs})")
    return "\n".join(lines)


# Model.export ---------------------------------------------------------------------------
def export_model(
    model, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs
):
    """Write `model`'s inference (`model(inputs, training=False)`) as one program file.

    See `Model.export`; `kwargs` are the format's options (`platforms` for
    `"stablehlo"`, `torch.export.export`'s arguments for `"torch"`, `opset_version` for
    `"onnx"`).
    """
    format = check_format(format)
    filepath = str(filepath)
    if format == "torch" and not filepath.endswith(".pt2"):
        raise ValueError(
            f"format='torch' writes a torch.export program, whose file name ends in '.pt2' "
            f"(as Keras requires); received {filepath!r}."
        )
    if input_signature is None:
        input_signature = model_input_signature(model)
    arguments = _name_specs(list(standardize_signature(input_signature)))
    endpoint = _Endpoint(
        DEFAULT_ENDPOINT_NAME,
        lambda *args: model(*args, training=False),
        tuple(arguments),
        _output_names(model),
    )
    archive = ExportArchive()
    archive.track(model)
    parent = os.path.dirname(os.path.abspath(filepath))
    os.makedirs(parent, exist_ok=True)
    # Written beside the target, then moved into place: a failed export leaves no file.
    # ONNX is written in place: a large model's weights go to a side file named after it.
    base, suffix = os.path.splitext(filepath)
    partial = filepath if format == "onnx" else f"{base}.partial{suffix}"
    done = False
    try:
        archive._write_endpoint(endpoint, partial, format, kwargs)
        if partial != filepath:
            os.replace(partial, filepath)
        done = True
    finally:
        if not done and os.path.exists(partial):
            os.remove(partial)
    if verbose is None or verbose:
        io_utils.print_msg(_summary(filepath, format, {endpoint.name: endpoint}))


def _output_names(model):
    function = getattr(model, "_function", None)
    if function is None:
        return None
    outputs = function._outputs_struct
    if isinstance(outputs, dict):
        return sorted(outputs)
    return list(model.output_names)


# Loading ---------------------------------------------------------------------------------
class LoadedArtifact:
    """An exported artefact loaded for inference: each endpoint is a method, each
    variable collection a list of NumPy arrays.

    >>> import os, tempfile
    >>> import numpy as np
    >>> import lamina
    >>> tmp = tempfile.TemporaryDirectory()
    >>> x = lamina.Input((3,))
    >>> model = lamina.Model(x, lamina.layers.Dense(2, kernel_initializer="ones")(x))
    >>> path = os.path.join(tmp.name, "model.stablehlo")
    >>> model.export(path, format="stablehlo", verbose=False)
    >>> artifact = lamina.export.load(path)
    >>> artifact  # doctest: +ELLIPSIS
    <LoadedArtifact '...model.stablehlo': endpoints ['serve']>
    >>> np.asarray(artifact.serve(np.full((1, 3), 2.0, "float32"))).tolist()
    [[6.0, 6.0]]
    >>> tmp.cleanup()
    """

    def __init__(self, path, endpoints, collections):
        self.path = path
        self._endpoints = endpoints
        for name, fn in endpoints.items():
            setattr(self, name, fn)
        for name, arrays in collections.items():
            setattr(self, name, arrays)

    def __repr__(self) -> str:
        return f"<LoadedArtifact {self.path!r}: endpoints {sorted(self._endpoints)}>"


def _format_of(path: pathlib.Path, format):
    if format is not None:
        return format
    for name, suffix in SUFFIXES.items():
        if path.name.endswith(suffix):
            return name
    raise ValueError(
        f"Cannot tell the format of {str(path)!r} from its name (known suffixes: "
        f"{sorted(SUFFIXES.values())}); pass `format=` ({sorted(SUFFIXES)})."
    )


def _onnx_program(path):
    try:
        import onnxruntime
    except ImportError as error:
        raise ImportError(
            "Running an ONNX model needs onnxruntime: `pip install lamina[export]`."
        ) from error
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    def call(*args):
        flat = tree.flatten(list(args))
        if len(flat) != len(names):
            raise ValueError(
                f"This ONNX model takes {len(names)} inputs {names}; received {len(flat)}."
            )
        feed = {n: np.asarray(backend_core.convert_to_numpy(v)) for n, v in zip(names, flat)}
        outputs = session.run(None, feed)
        return outputs[0] if len(outputs) == 1 else outputs

    return call


def _program(path, format):
    if format == "onnx":
        return _onnx_program(path)
    engine = _engine()
    if format not in FORMATS_BY_ENGINE[engine]:
        owner = next((e for e, f in FORMATS_BY_ENGINE.items() if format in f), None)
        raise ValueError(
            f"{str(path)!r} is a {format!r} program, run by lamina's {owner} engine; this "
            f"process runs the {engine} engine. Set LAMINA_BACKEND={owner} to load it."
        )
    return engine_export.read_program(str(path), format)


def load(filepath, format=None) -> LoadedArtifact:
    """Load what `Model.export` or `ExportArchive.write_out` wrote, to run it here.

    Args:
        filepath: a program file (`.stablehlo`, `.pt2`, `.onnx`) or an archive directory.
        format: the file's format when its name does not say.

    Returns:
        A `LoadedArtifact`: `artifact.serve(x)` (and any other endpoint) runs the program
        in its runtime; variable collections are lists of NumPy arrays.

    >>> import os, tempfile
    >>> import numpy as np
    >>> import lamina
    >>> tmp = tempfile.TemporaryDirectory()
    >>> x = lamina.Input((3,))
    >>> model = lamina.Model(x, lamina.layers.Dense(2, kernel_initializer="ones")(x))
    >>> path = os.path.join(tmp.name, "model.stablehlo")
    >>> model.export(path, format="stablehlo", verbose=False)
    >>> artifact = lamina.export.load(path)  # runs without the model's Python code
    >>> np.asarray(artifact.serve(np.ones((2, 3), "float32"))).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    >>> tmp.cleanup()
    """
    path = pathlib.Path(filepath)
    if not path.exists():
        raise FileNotFoundError(f"No exported artefact at {str(path)!r}.")
    if not path.is_dir():
        fn = _program(path, _format_of(path, format))
        return LoadedArtifact(str(path), {DEFAULT_ENDPOINT_NAME: fn}, {})
    manifest_path = path / _MANIFEST
    if not manifest_path.exists():
        raise ValueError(
            f"{str(path)!r} is a directory without {_MANIFEST}: not an ExportArchive written "
            "by lamina."
        )
    manifest = json.loads(manifest_path.read_text())
    endpoints = {
        name: _program(path / entry["file"], manifest["format"])
        for name, entry in manifest["endpoints"].items()
    }
    collections = {}
    if manifest.get("variable_collections"):
        with np.load(path / _VARIABLES) as data:
            for name, paths in manifest["variable_collections"].items():
                collections[name] = [np.array(data[f"{name}/{i}"]) for i in range(len(paths))]
    return LoadedArtifact(str(path), endpoints, collections)
