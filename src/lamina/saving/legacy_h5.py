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

This module holds detection, saving and the load entry points; `legacy_h5_config`
upgrades Keras 2 configs (model and `training_config`), `legacy_h5_weights` reads the
file's attributes, layer weights and optimizer state.
"""

from __future__ import annotations

import json
import logging
import os
import zipfile

import numpy as np

from lamina.backend.common.variables import deferred_initialization
from lamina.common import serialization
from lamina.saving import weights_h5
from lamina.saving.atomic import atomic_write
from lamina.saving.legacy_h5_config import (
    _check_loss_names,
    _single,
    _upgrade_loss,
    _upgrade_metric,
    _upgrade_optimizer,
    upgrade_config,
)
from lamina.saving.legacy_h5_weights import (
    _legacy_weights,
    _Reader,
    _restore_optimizer,
    read_model_weights,
    read_weights_by_name,
)

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
SUFFIXES = (".h5", ".hdf5")
LOAD_SLACK_BYTES = 64 * 1024**2  # variables a file need not store: metrics, seeds
# HDF5 (with the default, oldest file format) cannot keep an attribute larger than
# this in an object header; long name lists are split into `name0`, `name1`, ...
HEADER_LIMIT = 64512
KERAS_VERSION = "3.8.0"

logger = logging.getLogger("lamina")


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
    # The file sets the weights: their initializers draw only for what it leaves out.
    with budget, deferred_initialization():
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


# Compiling -----------------------------------------------------------------------------


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


def save_weights(model, filepath) -> None:
    """Write `model`'s weights in Keras 2's HDF5 weights layout, atomically: what Keras 2's
    `model.save_weights("w.h5")` wrote, and what it (and lamina) load back.

    The root has attributes `layer_names` (every layer of `model.layers`, in order),
    `backend` and `keras_version`; each layer has a group with attribute `weight_names`
    (its trainable weights first, then the others) and one dataset per name.
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    from lamina import backend

    filepath = os.fspath(filepath)
    layers = list(model.layers)
    with atomic_write(filepath) as tmp, h5py.File(tmp, "w") as f:
        _attr_names(f, "layer_names", [layer.name for layer in layers])
        f.attrs["backend"] = backend.backend().encode("utf8")
        f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
        for layer in layers:
            weights = _legacy_weights(layer)
            _write_subset(f.create_group(layer.name), _unique_names("", weights), weights)


def load_weights(f, model, filepath, skip_mismatch: bool = False, by_name: bool = False) -> None:
    """Load the weights of legacy file `f` (open) into `model`, matched by topology or,
    with `by_name`, by layer name (Keras 2's `load_weights(by_name=True)`).

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
        read = read_weights_by_name if by_name else read_model_weights
        assignments = read(group, model, reader, where, skip_mismatch)
    except (OSError, KeyError, RuntimeError, IndexError, OverflowError, UnicodeError) as err:
        reader.fail("its HDF5 data", f"it is damaged ({type(err).__name__}: {err}).", err)
    for variable, value in assignments:
        variable.assign(value)
