"""Reading a legacy HDF5 model file: its attributes, layer weights and optimizer state.

A companion of `legacy_h5` (which holds the load and save entry points). `_Reader`
reads one file's attributes (text, JSON, name lists split into `name0`, `name1`, ...)
and names the part being read in every error. `read_model_weights` matches the file's
layer groups to the model's layers by position and checks every count, shape and dtype
before any value is read; `_restore_optimizer` maps the optimizer state Keras 3 or
Keras 2 wrote onto the optimizer's variables, or warns and leaves it fresh.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from lamina.common import serialization

MAX_CONFIG_BYTES = 64 * 1024**2

# Keras 2 optimizer slot names -> lamina's (Keras 3's) slot names.
KERAS2_SLOTS = {
    "m": "momentum",
    "v": "velocity",
    "vhat": "velocity_hat",
    "accum_grad": "accumulated_grad",
    "accum_var": "accumulated_delta_var",
}


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


# Layer weights -------------------------------------------------------------------------


def _legacy_weights(layer) -> list:
    # The order Keras 2 saved in (and Keras 3 keeps for these files): trainable first.
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


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


def read_weights_by_name(group, model, reader, where: str, skip_mismatch: bool = False) -> list:
    """`(variable, value)` pairs for `model` from a `model_weights`-style group, matched
    by layer name as Keras 2's `load_weights(by_name=True)` did.

    Each layer group of the file feeds every model layer of that name; model layers the
    file does not name keep their weights, and file groups no layer has are ignored. A
    different number of weights, or a weight of a different shape, is an error naming
    the layer, or with `skip_mismatch` a warning and that layer (count) or that weight
    (shape) left as it is.
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    if "layer_names" not in group.attrs and "layer_names0" not in group.attrs:
        reader.fail(f"group {where!r}", "it has no 'layer_names' attribute.")
    by_name: dict[str, list] = {}
    for layer in model.layers:
        by_name.setdefault(layer.name, []).append(layer)
    assignments = []
    for name in reader.names(group, "layer_names", f"group {where!r}"):
        layers = by_name.get(name, [])
        if not layers:
            continue
        sub = group.get(name)
        part = f"layer group {where}/{name}"
        if not isinstance(sub, h5py.Group):
            reader.fail(part, "it is listed in 'layer_names' but is not a group in the file.")
        weight_names = reader.names(sub, "weight_names", part)
        for layer in layers:
            variables = _legacy_weights(layer)
            if len(weight_names) != len(variables):
                why = (
                    f"it holds {len(weight_names)} weight(s) but layer {layer.name!r} "
                    f"({type(layer).__name__}) has {len(variables)}"
                )
                if not skip_mismatch:
                    reader.fail(part, why + " (pass skip_mismatch=True to skip it).")
                warnings.warn(
                    f"Skipping the weights of layer {layer.name!r}: the file's {part} {why[3:]} "
                    "(skip_mismatch=True).",
                    UserWarning,
                    stacklevel=2,
                )
                continue
            for weight_name, variable in zip(weight_names, variables):
                dataset = sub.get(weight_name)
                shape = tuple(getattr(dataset, "shape", ()) or ())
                if skip_mismatch and dataset is not None and shape != tuple(variable.shape):
                    warnings.warn(
                        f"Skipping weight {variable.path!r} of layer {layer.name!r}: the file's "
                        f"{part}/{weight_name} has shape {shape}, the weight "
                        f"{tuple(variable.shape)} (skip_mismatch=True).",
                        UserWarning,
                        stacklevel=2,
                    )
                    continue
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


# Optimizer state -----------------------------------------------------------------------


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
