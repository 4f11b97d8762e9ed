"""Legacy HDF5 model files: what `model.save("m.h5")` wrote in Keras 2 / tf.keras.

Keras 3 still writes and reads this layout, and most models trained before 2023 live in
it. One HDF5 file holds:

- root attributes `model_config` (the architecture as JSON: `{"class_name", "config"}`),
  `keras_version`, `backend` and, for a compiled model, `training_config` (the
  `compile` arguments, with the optimizer as `optimizer_config`);
- a `model_weights` group: attribute `layer_names`, then one group per layer whose
  attribute `weight_names` lists its datasets (trainable weights first). Weights are
  matched to the rebuilt model by *position*: the k-th layer with weights in the file
  feeds the k-th layer with weights in the model, the names are only labels;
- an `optimizer_weights` group (attribute `weight_names`) with the optimizer's state.

Keras 2 configs differ from Keras 3's: `batch_input_shape`, `input_dtype`, inbound
nodes as lists (`[[["dense", 0, 0, {}]]]`), dtype policies named `Policy`, Lambda
functions as marshalled bytecode lists. They are converted here, then built through
lamina's own deserialization, with the same allowlist and hostile-file defences as a
`.keras` file: class names resolve only through the registry, configs are bounded in
depth, variables in total size (by the file's size), bytecode loads only with
`safe_mode=False`, and HDF5 external links and external datasets are refused. Anything
that cannot load raises one `ValueError` naming the part of the file and why.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
import zipfile

import numpy as np

from lamina.saving import weights_h5
from lamina.saving.atomic import atomic_write
from lamina.saving.keras_ops import KERAS_OPS
from lamina.utils import serialization

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
SUFFIXES = (".h5", ".hdf5")
MAX_CONFIG_BYTES = 64 * 1024**2
LOAD_SLACK_BYTES = 64 * 1024**2  # variables a file need not store: metrics, seeds
# HDF5 (with the default, oldest file format) cannot keep an attribute larger than
# this in an object header; long name lists are split into `name0`, `name1`, ...
HEADER_LIMIT = 64512
KERAS_VERSION = "3.8.0"

logger = logging.getLogger("lamina")

# Keras 2 optimizer slot names -> lamina's (Keras 3's) slot names.
KERAS2_SLOTS = {
    "m": "momentum",
    "v": "velocity",
    "vhat": "velocity_hat",
    "accum_grad": "accumulated_grad",
    "accum_var": "accumulated_delta_var",
}
RECURRENT_CLASSES = frozenset(
    {"LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell", "ConvLSTM2D"}
)
# tf.keras 2 layers that wrap a TensorFlow function (`x * 2` in a functional model).
TF_OP_LAYERS = frozenset({"TFOpLambda", "SlicingOpLambda", "TensorFlowOpLayer"})
# Where Keras 3 keeps the op classes that are not in `keras.src.ops.numpy`.
KERAS_OP_MODULES = {
    "Cast": "keras.src.ops.core",
    "Relu": "keras.src.ops.nn",
    "Sigmoid": "keras.src.ops.nn",
    "Softmax": "keras.src.ops.nn",
}
# Keras 2 Lambda config keys Keras 3 no longer has.
LAMBDA_LEGACY_KEYS = ("module", "function_type", "output_shape_type", "output_shape_module")


def is_legacy_path(filepath) -> bool:
    """Whether `filepath` names a legacy HDF5 model file by its suffix."""
    return str(filepath).lower().endswith(SUFFIXES)


def has_hdf5_signature(filepath) -> bool:
    """Whether the file starts with the HDF5 signature (at 0 or a user-block offset)."""
    try:
        with open(filepath, "rb") as f:
            for offset in (0, 512, 1024, 2048):
                f.seek(offset)
                if f.read(8) == HDF5_SIGNATURE:
                    return True
    except OSError:
        return False
    return False


def is_legacy_file(filepath) -> bool:
    """Whether `load_model` should read `filepath` as a legacy HDF5 model file."""
    filepath = os.fspath(filepath)
    if not os.path.isfile(filepath) or zipfile.is_zipfile(filepath):
        return is_legacy_path(filepath) and not os.path.exists(filepath)
    return is_legacy_path(filepath) or has_hdf5_signature(filepath)


# Saving --------------------------------------------------------------------------------


def save_dispatch(model, filepath, overwrite: bool, kwargs: dict) -> bool:
    """Handle Keras 3's `save_model` keyword arguments; write an `.h5` file when the path
    asks for one (returns True), else leave the `.keras` save to the caller (False).

    As in Keras 3 the suffix decides the format: `save_format` is accepted (and
    noted as deprecated) only when it agrees with a `.h5`/`.hdf5`/`.keras` path, and
    `include_optimizer` applies to `.h5` files.
    """
    kwargs = dict(kwargs)
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", None)
    if kwargs.get("zipped") in (None, True):
        kwargs.pop("zipped", None)
    if kwargs:
        raise ValueError(
            f"save_model got unsupported argument(s) {sorted(kwargs)}; it takes "
            "`overwrite`, `include_optimizer` (for .h5 files) and `save_format`."
        )
    path = os.fspath(filepath)
    if save_format:
        if not (is_legacy_path(path) or path.endswith(".keras")):
            raise ValueError(
                f"save_format={save_format!r} is deprecated (as in Keras 3): the file's suffix "
                f"picks the format. Received filepath={path!r}; end it in `.keras` (the "
                "native format) or `.h5` (the legacy HDF5 format)."
            )
        logger.warning(
            "The `save_format` argument is deprecated; the format follows the file's suffix. "
            "Received save_format=%r.",
            save_format,
        )
    if not is_legacy_path(path):
        return False
    save_model(model, path, overwrite=overwrite, include_optimizer=include_optimizer)
    return True


def _attr_names(group, name: str, values: list[str]) -> None:
    data = [v.encode("utf8") for v in values]
    too_long = [v for v in data if len(v) > HEADER_LIMIT]
    if too_long:
        raise ValueError(f"Cannot save names longer than {HEADER_LIMIT} bytes: {too_long[:3]}.")
    array = np.asarray(data) if data else np.asarray([], dtype="S1")
    chunks = 1
    parts = np.array_split(array, chunks)
    while any(p.nbytes > HEADER_LIMIT for p in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks == 1:
        group.attrs[name] = array
    else:
        for i, part in enumerate(parts):
            group.attrs[f"{name}{i}"] = part


def _legacy_weights(layer) -> list:
    # The order Keras 2 saved in (and Keras 3 keeps for these files): trainable first.
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _unique_names(prefix: str, variables) -> list[str]:
    names, used = [], set()
    for v in variables:
        name = f"{prefix}/{v.path}" if prefix else v.path
        base, k = name, 1
        while name in used:
            name = f"{base}_{k}"
            k += 1
        used.add(name)
        names.append(name)
    return names


def _write_subset(group, names, variables) -> None:
    _attr_names(group, "weight_names", names)
    for name, v in zip(names, variables):
        group.create_dataset(name, data=np.asarray(v.numpy()))


def _training_config(model):
    compile_config = model._compile_config()
    optimizer = compile_config.pop("optimizer")
    compile_config.setdefault("loss_weights", None)
    compile_config["optimizer_config"] = {
        "class_name": optimizer["class_name"],
        "config": optimizer["config"],
    }
    return compile_config


def save_model(model, filepath, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write `model` as a legacy HDF5 (`.h5`) file that Keras 3 (and lamina) can load.

    Architecture, weights and, when `include_optimizer` and the model is compiled, the
    compile arguments and the optimizer's state. Written atomically.

    Args:
        model: a functional or Sequential model (one with a `get_config`).
        filepath: where to write; should end in `.h5` or `.hdf5`.
        overwrite: whether to replace an existing file.
        include_optimizer: whether to save the compile arguments and optimizer state.
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    from lamina import backend

    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath!r} exists and overwrite=False.")
    logger.warning(
        "You are saving your model as an HDF5 file via `model.save()` or `save_model()`. "
        "This file format is considered legacy; prefer the native format, e.g. "
        "`model.save('my_model.keras')`."
    )
    config = serialization.serialize_keras_object(model, "layers")
    metadata = {
        "keras_version": KERAS_VERSION,
        "backend": backend.backend(),
        "model_config": {"class_name": config["class_name"], "config": config["config"]},
    }
    optimizer = getattr(model, "optimizer", None)
    compiled = getattr(model, "compiled", False) and optimizer is not None
    if include_optimizer and compiled:
        metadata["training_config"] = _training_config(model)
    with atomic_write(filepath) as tmp, h5py.File(tmp, "w") as f:
        for key, value in metadata.items():
            f.attrs[key] = json.dumps(value).encode("utf8") if isinstance(value, dict) else value
        group = f.create_group("model_weights")
        layers = list(model.layers)
        _attr_names(group, "layer_names", [layer.name for layer in layers])
        group.attrs["backend"] = backend.backend().encode("utf8")
        group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
        for layer in sorted(layers, key=lambda layer: layer.name):
            weights = _legacy_weights(layer)
            _write_subset(group.create_group(layer.name), _unique_names("", weights), weights)
        _write_subset(group.create_group("top_level_model_weights"), [], [])
        if include_optimizer and compiled and getattr(optimizer, "built", False):
            variables = optimizer.variables
            _write_subset(
                f.create_group("optimizer_weights"),
                _unique_names(optimizer.name, variables),
                variables,
            )


# Loading -------------------------------------------------------------------------------


class _Reader:
    """Reads one file, naming the part being read in every error."""

    def __init__(self, filepath):
        self.filepath = filepath

    def fail(self, part: str, why: str, err=None):
        message = f"Cannot load {self.filepath!r}: {part}: {why}"
        raise ValueError(message) from err

    def text_attr(self, obj, name: str, where: str, required: bool = False):
        if name not in obj.attrs:
            if required:
                self.fail(
                    f"{where} attribute {name!r}",
                    "it is missing. This HDF5 file is not a whole-model file written by "
                    "`model.save('...h5')` (a weights-only file loads with "
                    "`model.load_weights`).",
                )
            return None
        try:
            value = obj.attrs[name]
        except (OSError, TypeError, ValueError, KeyError, RuntimeError) as err:
            self.fail(f"{where} attribute {name!r}", f"it cannot be read ({err}).", err)
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value[()]
        if isinstance(value, (bytes, np.bytes_)):
            if len(value) > MAX_CONFIG_BYTES:
                self.fail(f"{where} attribute {name!r}", f"it is over {MAX_CONFIG_BYTES} bytes.")
            try:
                value = bytes(value).decode("utf8")
            except UnicodeDecodeError as err:
                self.fail(f"{where} attribute {name!r}", "it is not UTF-8 text.", err)
        if not isinstance(value, str):
            self.fail(
                f"{where} attribute {name!r}",
                f"expected text, found {type(value).__name__}.",
            )
        if len(value) > MAX_CONFIG_BYTES:
            self.fail(f"{where} attribute {name!r}", f"it is over {MAX_CONFIG_BYTES} bytes.")
        return value

    def json_attr(self, obj, name: str, required: bool = False):
        text = self.text_attr(obj, name, "root", required)
        if text is None:
            return None
        try:
            value = json.loads(text)
        except RecursionError:
            self.fail(
                f"attribute {name!r}",
                f"its JSON is nested too deeply (at most {serialization.MAX_CONFIG_DEPTH} levels).",
            )
        except ValueError as err:
            self.fail(f"attribute {name!r}", f"it is not valid JSON ({err}).", err)
        if not isinstance(value, dict):
            self.fail(
                f"attribute {name!r}",
                f"expected a JSON object, found {type(value).__name__}.",
            )
        try:
            serialization.config_depth(value)
        except ValueError as err:
            self.fail(f"attribute {name!r}", str(err), err)
        return value

    def names(self, group, name: str, where: str) -> list[str]:
        """A list-of-names attribute, possibly split into `name0`, `name1`, ..."""
        if name in group.attrs:
            chunks = [name]
        else:
            chunks = []
            while f"{name}{len(chunks)}" in group.attrs:
                chunks.append(f"{name}{len(chunks)}")
        out: list[str] = []
        for chunk in chunks:
            try:
                values = np.asarray(group.attrs[chunk])
            except (OSError, TypeError, ValueError, KeyError, RuntimeError) as err:
                self.fail(f"{where} attribute {chunk!r}", f"it cannot be read ({err}).", err)
            if values.size == 0:
                continue
            if values.ndim != 1 or values.dtype.kind not in "SUO":
                self.fail(
                    f"{where} attribute {chunk!r}",
                    f"expected a list of names, found {values.dtype} with shape {values.shape}.",
                )
            for v in values:
                if isinstance(v, (bytes, np.bytes_)):
                    try:
                        v = bytes(v).decode("utf8")
                    except UnicodeDecodeError as err:
                        self.fail(f"{where} attribute {chunk!r}", "a name is not UTF-8.", err)
                if not isinstance(v, str) or not v:
                    self.fail(f"{where} attribute {chunk!r}", f"{v!r} is not a name.")
                out.append(v)
        return out


def load_model(filepath, custom_objects=None, compile: bool = True, safe_mode: bool = True):
    """Load a whole model from a legacy HDF5 file (Keras 2 / tf.keras / Keras 3 `.h5`).

    Args:
        filepath: the `.h5` / `.hdf5` file.
        custom_objects: names of custom classes and functions the config refers to.
        compile: whether to compile the model from the file's `training_config` (and
            restore the optimizer's state when the file holds it).
        safe_mode: refuse Lambda layers stored as Python bytecode (the default).

    Returns:
        The model, compiled when `compile` and the file was saved compiled.

    >>> import os, tempfile, lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     model.save(os.path.join(folder, "model.h5"))
    ...     loaded = lamina.saving.load_model(os.path.join(folder, "model.h5"))
    >>> [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    True
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    filepath = os.fspath(filepath)
    reader = _Reader(filepath)
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file: {filepath!r}.")
    try:
        weights_h5.check_file_heaps(filepath, "its HDF5 data")
    except ValueError as err:
        reader.fail("its HDF5 data", str(err).split(": ", 1)[1], err)
    try:
        f = h5py.File(filepath, "r")
    except (OSError, ValueError) as err:
        reader.fail("the file", f"it is not a readable HDF5 file ({err}).", err)
    with f:
        try:
            return _load(f, reader, filepath, custom_objects, compile, safe_mode)
        except (OSError, KeyError, RuntimeError, IndexError, OverflowError, UnicodeError) as err:
            # h5py reports damaged bytes inside the file as these.
            reader.fail("its HDF5 data", f"it is damaged ({type(err).__name__}: {err}).", err)


def _load(f, reader, filepath, custom_objects, compile, safe_mode):
    try:
        weights_h5.check_safe(f)
    except ValueError as err:
        reader.fail("its HDF5 structure", str(err), err)
    model_config = reader.json_attr(f, "model_config", required=True)
    model_config = upgrade_config(model_config, reader, safe_mode)
    if "model_weights" not in f:
        reader.fail("group 'model_weights'", "it is missing, so the file holds no weights.")
    budget = serialization.build_budget(
        2 * os.path.getsize(filepath) + LOAD_SLACK_BYTES,
        f"Refusing to load {filepath!r}",
        f"The file takes {os.path.getsize(filepath):,} bytes, so its model_config asks for "
        "far more than the file holds: the file is damaged or was altered.",
    )
    with budget:
        try:
            model = serialization.deserialize_keras_object(
                model_config,
                "layers",
                custom_objects=custom_objects,
                printable_module_name="model",
                safe_mode=safe_mode,
            )
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
            reader.fail("its model_config", f"{type(err).__name__}: {err}", err)
        if not hasattr(model, "layers"):
            reader.fail(
                "its model_config",
                f"it describes a {type(model).__name__}, not a model.",
            )
        assignments = read_model_weights(f["model_weights"], model, reader, "model_weights")
        for variable, value in assignments:
            variable.assign(value)
        training_config = reader.json_attr(f, "training_config") if compile else None
        if training_config is not None:
            _compile(model, training_config, f, reader, custom_objects)
    return model


def _lambda(config: dict, who: str, reader, safe_mode):
    for key in LAMBDA_LEGACY_KEYS:
        config.pop(key, None)
    function = config.get("function")
    if isinstance(function, list):  # Keras 2: [base64 bytecode, defaults, closure]
        if safe_mode:
            reader.fail(
                f"its model_config, {who}",
                "this Lambda layer stores its function as Python bytecode, and loading it "
                "would run code from the file, so it is refused in safe mode. If you trust "
                "the file, load it with `safe_mode=False`.",
            )
        if len(function) != 3 or not isinstance(function[0], str):
            reader.fail(
                f"its model_config, {who}", "its 'function' is not [code, defaults, closure]."
            )
        config["function"] = {
            "class_name": "__lambda__",
            "config": {"code": function[0], "defaults": function[1], "closure": function[2]},
        }


def upgrade_config(config, reader, safe_mode=True):
    """A Keras 2 model config in the Keras 3 form lamina's deserialization reads."""
    if not isinstance(config.get("class_name"), str) or "config" not in config:
        reader.fail(
            "its model_config",
            "expected a JSON object with 'class_name' and 'config' keys; found keys "
            f"{sorted(config)[:10]}.",
        )
    # Iterative walk over every `{"class_name", "config"}` dict (layers, nested models,
    # wrapped layers and cells, initializers): depth is already bounded.
    stack = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        stack.extend(item.values())
        class_name, inner = item.get("class_name"), item.get("config")
        if not isinstance(class_name, str):
            continue
        if (
            class_name.startswith("Custom>")
            and serialization.get_registered_object(class_name) is None
        ):
            item["class_name"] = class_name = class_name[len("Custom>") :]
        if class_name == "Sequential" and isinstance(inner, list):  # Keras <= 2.2
            item["config"] = inner = {"layers": inner}
            stack.append(inner)
        if not isinstance(inner, dict):
            continue
        who = f"layer {inner.get('name')!r} ({class_name})"
        if "batch_input_shape" in inner and class_name == "InputLayer":
            inner.setdefault("batch_shape", inner.pop("batch_input_shape"))
        if class_name == "InputLayer" and "input_dtype" in inner:
            inner.setdefault("dtype", inner.pop("input_dtype"))
        dtype = inner.get("dtype")
        if isinstance(dtype, dict) and dtype.get("class_name") == "Policy":
            name = (dtype.get("config") or {}).get("name")
            inner["dtype"] = name if isinstance(name, str) else None
        axis = inner.get("axis")
        if isinstance(axis, list) and len(axis) == 1 and isinstance(axis[0], int):
            inner["axis"] = axis[0]
        if class_name in TF_OP_LAYERS:
            reader.fail(
                f"its model_config, {who}",
                "this layer is a TensorFlow function that tf.keras 2 recorded in the graph "
                f"({inner.get('function')!r}); neither lamina nor Keras 3 can run TensorFlow "
                "ops from a file. Rebuild the model in code (with `lamina.ops` for that step) "
                "and load this file's weights into it with `model.load_weights(path)`.",
            )
        if class_name == "Lambda":
            _lambda(inner, who, reader, safe_mode)
        if class_name in RECURRENT_CLASSES:
            # Keras 2's choice of kernel (1: many small products, 2: fused); the same
            # mathematics either way, and not an argument lamina's layers take.
            inner.pop("implementation", None)
        if isinstance(inner.get("layers"), list):
            _shift_nested_nodes(inner["layers"])
            for entry in inner["layers"]:
                _mark_keras_op(entry)
    return config


def _mark_keras_op(entry) -> None:
    """Keras 3's legacy writer drops the `module` of op nodes (`x != 0` under an
    `Embedding(mask_zero=True)` is `{"class_name": "NotEqual", "config": {"name": ...}}`),
    so Keras 3 itself cannot read such files back. An entry named like a Keras op whose
    config has neither `trainable` nor `dtype` (which every layer writes) is such a node:
    it is given back its module, so it resolves in lamina's Keras-op registry."""
    if not isinstance(entry, dict) or "module" in entry or "inbound_nodes" not in entry:
        return
    inner = entry.get("config")
    class_name = entry.get("class_name")
    if (
        isinstance(class_name, str)
        and class_name in KERAS_OPS
        and isinstance(inner, dict)
        and "trainable" not in inner
        and "dtype" not in inner
    ):
        entry["module"] = KERAS_OP_MODULES.get(class_name, "keras.src.ops.numpy")


def _owns_first_node(entry) -> bool:
    """Whether Keras 2 gave this nested model a node of its own before its calls: a
    functional model always, a Sequential one when it starts with an InputLayer."""
    if not isinstance(entry, dict) or not isinstance(entry.get("config"), (dict, list)):
        return False
    inner = entry["config"]
    layers = inner.get("layers") if isinstance(inner, dict) else inner
    if not isinstance(layers, list):
        return False
    if entry.get("class_name") in ("Functional", "Model"):
        return True
    first = layers[0] if layers else None
    return (
        entry.get("class_name") == "Sequential"
        and isinstance(first, dict)
        and first.get("class_name") == "InputLayer"
    )


def _shift_nested_nodes(layers: list) -> None:
    """Keras 2's list-form inbound nodes count a nested model's own node: its first call
    is node 1. lamina counts only calls, so those references move down by one."""
    names = [
        entry.get("name") or entry["config"].get("name")
        for entry in layers
        if _owns_first_node(entry) and isinstance(entry["config"], dict)
    ]
    nested = {name for name in names if isinstance(name, str)}
    if not nested:
        return
    for entry in layers:
        nodes = entry.get("inbound_nodes") if isinstance(entry, dict) else None
        for node in nodes if isinstance(nodes, list) else []:
            for source in node if isinstance(node, list) else []:
                if (
                    isinstance(source, list)
                    and len(source) >= 3
                    and isinstance(source[0], str)
                    and source[0] in nested
                    and isinstance(source[1], int)
                    and source[1] >= 1
                ):
                    source[1] -= 1


def read_model_weights(group, model, reader, where: str, skip_mismatch: bool = False) -> list:
    """`(variable, value)` pairs for `model` from a `model_weights`-style group.

    Layers with weights are matched by position (Keras's topological loading); every
    count, shape and dtype is checked before any value is read. With `skip_mismatch`, a
    layer whose weight count or shapes differ is left as it is, with a warning.
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    if "layer_names" not in group.attrs and "layer_names0" not in group.attrs:
        reader.fail(f"group {where!r}", "it has no 'layer_names' attribute.")
    saved = []
    for name in reader.names(group, "layer_names", f"group {where!r}"):
        sub = group.get(name)
        if sub is None:
            reader.fail(
                f"layer group {where}/{name}",
                "it is listed in 'layer_names' but missing from the file.",
            )
        if not isinstance(sub, h5py.Group):
            reader.fail(f"layer group {where}/{name}", "it is not an HDF5 group.")
        weight_names = reader.names(sub, "weight_names", f"layer group {where}/{name}")
        if weight_names:
            saved.append((name, sub, weight_names))
    layers = [layer for layer in model.layers if _legacy_weights(layer)]
    if len(saved) != len(layers):
        reader.fail(
            f"group {where!r}",
            f"it holds weights for {len(saved)} layer(s) {[s[0] for s in saved][:20]}, but "
            f"the model has {len(layers)} layer(s) with weights "
            f"{[layer.name for layer in layers][:20]}.",
        )
    assignments = []
    for (name, sub, weight_names), layer in zip(saved, layers):
        variables = _legacy_weights(layer)
        part = f"layer group {where}/{name}"
        if skip_mismatch and _legacy_mismatch(sub, weight_names, variables):
            warnings.warn(
                f"Skipping the weights of layer {layer.name!r} ({type(layer).__name__}): the "
                f"file's {part} holds {_legacy_shapes(sub, weight_names)}, the layer has "
                f"{[tuple(v.shape) for v in variables]} (skip_mismatch=True).",
                UserWarning,
                stacklevel=2,
            )
            continue
        if len(weight_names) != len(variables):
            reader.fail(
                part,
                f"it holds {len(weight_names)} weight(s) but layer {layer.name!r} "
                f"({type(layer).__name__}) has {len(variables)}.",
            )
        for weight_name, variable in zip(weight_names, variables):
            dataset = sub.get(weight_name)
            assignments.append(
                (variable, _dataset_value(dataset, variable, f"{part}/{weight_name}", reader))
            )
    return assignments


def _legacy_shapes(sub, weight_names) -> list:
    return [tuple(getattr(sub.get(n), "shape", ()) or ()) for n in weight_names]


def _legacy_mismatch(sub, weight_names, variables) -> bool:
    if len(weight_names) != len(variables):
        return True
    shapes = _legacy_shapes(sub, weight_names)
    return any(shape != tuple(v.shape) for shape, v in zip(shapes, variables))


def _dataset_value(dataset, variable, part, reader):
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    if dataset is None:
        reader.fail(f"weight {part}", "it is listed in 'weight_names' but missing.")
    if not isinstance(dataset, h5py.Dataset):
        reader.fail(f"weight {part}", "it is not a dataset.")
    if tuple(dataset.shape) != tuple(variable.shape):
        reader.fail(
            f"weight {part}",
            f"it has shape {tuple(dataset.shape)}, but {variable.path!r} needs shape "
            f"{tuple(variable.shape)}.",
        )
    if dataset.dtype.kind not in "fiub":
        reader.fail(f"weight {part}", f"it holds {dataset.dtype} data, not numbers.")
    return _cast(np.asarray(dataset[()]), variable)


def _cast(value, variable):
    try:
        return value.astype(np.dtype(str(variable.dtype)))
    except TypeError:  # a dtype NumPy does not name (bfloat16): the variable casts
        return value


# Compiling -----------------------------------------------------------------------------


def _upgrade_optimizer(config: dict) -> dict:
    config = dict(config)
    inner = dict(config.get("config") or {})
    if isinstance(config.get("class_name"), str) and config["class_name"].startswith("Custom>"):
        config["class_name"] = config["class_name"][len("Custom>") :]
    if "lr" in inner:
        inner.setdefault("learning_rate", inner.pop("lr"))
        inner.pop("lr", None)
    decay = inner.pop("decay", None)
    if decay:
        logger.warning(
            "The file's optimizer sets decay=%r, a Keras 2 argument Keras 3 dropped; it is "
            "ignored (use a learning-rate schedule instead).",
            decay,
        )
    for key in ("is_legacy_optimizer", "jit_compile"):
        inner.pop(key, None)
    config["config"] = inner
    return config


def _upgrade_metric(spec):
    """Keras 2 wrote compiled metrics as `MeanMetricWrapper` configs naming their function."""
    if isinstance(spec, list):
        return [_upgrade_metric(s) for s in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _upgrade_metric(v) for k, v in spec.items()}
    if isinstance(spec, dict) and spec.get("class_name") == "MeanMetricWrapper":
        # Its name ("mae", "accuracy") is what `compile` was given; `compile` resolves
        # it through the registry like any metric name.
        inner = spec.get("config") or {}
        for candidate in (inner.get("name"), inner.get("fn")):
            if isinstance(candidate, str):
                return candidate
    return spec


def _single(spec):
    # Keras 2 wrote one list of metrics per output: `[["mae"]]` for a one-output model.
    if isinstance(spec, list) and len(spec) == 1 and isinstance(spec[0], list):
        return spec[0]
    return spec


def _upgrade_loss(spec):
    if isinstance(spec, list):
        return [_upgrade_loss(s) for s in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _upgrade_loss(v) for k, v in spec.items()}
    if isinstance(spec, dict) and isinstance(spec.get("config"), dict):
        inner = dict(spec["config"])
        if inner.get("reduction") == "auto":  # Keras 2's default
            inner["reduction"] = "sum_over_batch_size"
        return {**spec, "config": inner}
    return spec


def _check_loss_names(compile_config, custom_objects) -> None:
    """Every loss *name* must resolve through the registry now, at load. (Metric names
    resolve through the same registry when the model first runs its metrics.)"""
    from lamina import losses

    with serialization.custom_object_scope(custom_objects or {}):
        stack = [compile_config.get("loss")]
        while stack:
            spec = stack.pop()
            if isinstance(spec, list):
                stack.extend(spec)
            elif isinstance(spec, dict) and "class_name" not in spec:
                stack.extend(spec.values())  # per-output dict
            elif isinstance(spec, str):
                try:
                    losses.get(spec)
                except (ValueError, TypeError) as err:
                    raise ValueError(
                        f"its loss {spec!r} is not a lamina loss nor a registered custom "
                        f"object ({err}). Pass it in `custom_objects`."
                    ) from err


def _compile(model, training_config, f, reader, custom_objects):
    optimizer_config = training_config.get("optimizer_config")
    if not isinstance(optimizer_config, dict) or "class_name" not in optimizer_config:
        reader.fail(
            "attribute 'training_config'",
            "its 'optimizer_config' is missing or not a {'class_name', 'config'} object; "
            "load with `compile=False` and compile the model yourself.",
        )
    try:
        compile_config = {
            "optimizer": _upgrade_optimizer(optimizer_config),
            "loss": _upgrade_loss(training_config.get("loss")),
            "metrics": _upgrade_metric(_single(training_config.get("metrics"))),
            "weighted_metrics": _upgrade_metric(training_config.get("weighted_metrics")),
            "loss_weights": training_config.get("loss_weights"),
        }
        for key in ("run_eagerly", "steps_per_execution", "jit_compile"):
            if key in training_config:
                compile_config[key] = training_config[key]
        _check_loss_names(compile_config, custom_objects)
        model._compile_from_config(compile_config, custom_objects)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
        reader.fail(
            "attribute 'training_config'",
            f"the model cannot be compiled from it ({type(err).__name__}: {err}). Load with "
            "`compile=False` and compile the model yourself.",
            err,
        )
    if "optimizer_weights" in f:
        _restore_optimizer(model, f["optimizer_weights"], reader)


def _restore_optimizer(model, group, reader) -> None:
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    optimizer = model.optimizer
    names = reader.names(group, "weight_names", "group 'optimizer_weights'")
    why = None
    try:
        optimizer.build(model.trainable_variables)
        variables = optimizer.variables
        datasets = []
        for name in names:
            dataset = group.get(name)
            if not isinstance(dataset, h5py.Dataset) or dataset.dtype.kind not in "fiub":
                raise LookupError(f"optimizer weight {name!r} is missing or not numeric")
            datasets.append((name, dataset))
        pairs = _match_optimizer(optimizer, model, variables, datasets)
        if pairs is None:
            why = (
                f"the file holds {len(names)} optimizer weight(s) in a layout that does not "
                f"match {type(optimizer).__name__}'s {len(variables)} variable(s)"
            )
        else:
            values = []
            for variable, (name, dataset) in pairs:
                if tuple(dataset.shape) != tuple(variable.shape):
                    raise LookupError(
                        f"optimizer weight {name!r} has shape {tuple(dataset.shape)}, "
                        f"{variable.path!r} needs {tuple(variable.shape)}"
                    )
                values.append((variable, np.asarray(dataset[()])))
            for variable, value in values:
                variable.assign(_cast(value, variable))
    except LookupError as err:
        why = str(err).strip("'\"")
    if why is not None:
        warnings.warn(
            f"Loading {reader.filepath!r}: the optimizer state could not be restored "
            f"({why}); the model is compiled with a freshly initialized "
            f"{type(optimizer).__name__}.",
            stacklevel=4,
        )


def _match_optimizer(optimizer, model, variables, datasets):
    """Pair the optimizer's variables with the file's optimizer weights, or None.

    Keras 3 wrote them in the optimizer's own order (iterations, learning rate, slots
    per variable), which is lamina's; Keras 2 wrote `iter` and then each slot for every
    variable in turn (`Adam/dense/kernel/m:0`), which is mapped by slot name.
    """
    if len(datasets) == len(variables) and all(
        tuple(d.shape) == tuple(v.shape) for v, (_, d) in zip(variables, datasets)
    ):
        return list(zip(variables, datasets))
    if not datasets or not datasets[0][0].split(":")[0].endswith(("iter", "iteration")):
        return None
    pairs = [(optimizer.iterations, datasets[0])]
    trainable = list(model.trainable_variables)
    by_slot: dict[str, list] = {}
    for name, dataset in datasets[1:]:
        parts = name.split(":")[0].split("/")
        slot = parts[-1]
        if slot not in KERAS2_SLOTS and slot not in optimizer._slots and len(parts) > 2:
            slot = parts[1]  # Keras 2.11+: `Adam/m/dense/kernel`
        by_slot.setdefault(KERAS2_SLOTS.get(slot, slot), []).append((name, dataset))
    if set(by_slot) != set(optimizer._slots):
        return None
    for slot, saved in by_slot.items():
        if len(saved) != len(trainable):
            return None
        pairs.extend(zip(optimizer._slots[slot], saved))
    return pairs


# Weights only --------------------------------------------------------------------------


def is_legacy_weights(f) -> bool:
    """Whether open HDF5 file `f` is in the legacy layout: a Keras 2 `save_weights("w.h5")`
    file (root attribute `layer_names`) or a whole-model `.h5` file (`model_weights`)."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    try:
        if "layer_names" in f.attrs or "layer_names0" in f.attrs:
            return True
        group = f.get("model_weights", getlink=True)
        return isinstance(group, h5py.HardLink) and isinstance(f["model_weights"], h5py.Group)
    except (OSError, KeyError, RuntimeError, ValueError) as err:
        _Reader(f.filename).fail(
            "its HDF5 data", f"it is damaged ({type(err).__name__}: {err}).", err
        )


def load_weights(f, model, filepath, skip_mismatch: bool = False) -> None:
    """Load the weights of legacy file `f` (open) into `model`, matched by topology.

    Every count and shape is checked before any weight is assigned; a mismatch is one
    `ValueError` naming the layer group and what differs.
    """
    reader = _Reader(os.fspath(filepath))
    try:
        try:
            weights_h5.check_safe(f)
        except ValueError as err:
            reader.fail("its HDF5 structure", str(err), err)
        group, where = (f["model_weights"], "model_weights") if "model_weights" in f else (f, "/")
        assignments = read_model_weights(group, model, reader, where, skip_mismatch)
    except (OSError, KeyError, RuntimeError, IndexError, OverflowError, UnicodeError) as err:
        reader.fail("its HDF5 data", f"it is damaged ({type(err).__name__}: {err}).", err)
    for variable, value in assignments:
        variable.assign(value)
