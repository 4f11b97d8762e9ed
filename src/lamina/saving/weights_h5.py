"""`.weights.h5` files: every layer's own variables, nested as Keras 3 nests them.

Layout (Keras 3's): `vars/<i>` holds an object's own variables (trainable first);
a functional or Sequential model's layers sit in `layers/<class name>[_k]/` (named by
class and position, not by layer name, so a rebuilt model with new automatic names
loads); other layers' sublayers and seed generators sit under their attribute names,
walked in Keras's order (see `_children`: a subclassed model's sublayers whose attribute
sorts after "layers" sit in its `layers/` container); the optimizer's variables under
`optimizer/vars/<i>`, written by `save_weights` too and restored by `load_weights`.
Each layer fills and reads its own `vars` entry through `save_own_variables` /
`load_own_variables` (Keras's per-layer store), so a layer that overrides them files
extra state or reads an older layout; a layer that overrides `load_own_variables` is
handed its entry after every other part of the file has been checked, before any weight
is assigned. Writes go to a temporary file beside the target that is renamed into
place, so a failed save leaves any previous file intact.
"""

from __future__ import annotations

import os
import warnings
import zipfile

import numpy as np

from lamina.backend.common.global_state import to_snake_case
from lamina.common import serialization
from lamina.saving.atomic import atomic_write


def _own(layer) -> list:
    # What a file holds for a layer: its weights, or what the layer files instead (a LoRA
    # layer files its merged kernel and no LoRA factors, as Keras does).
    saved = getattr(layer, "_saved_variables", None)
    return saved() if saved is not None else layer._own_weights()


def _class_key(obj) -> str:
    # A model is filed under its Keras class name, which only it knows: a plain
    # functional `Model` is Keras's `Functional`; a user's subclass keeps its own name.
    keras_names = getattr(obj, "_keras_serialized_names", None)
    if getattr(obj, "_is_graph_network", False) and keras_names is not None:
        return to_snake_case(keras_names()[1])
    return to_snake_case(type(obj).__name__)


def _container(items) -> list:
    """Keras names the layers of a list by class: `dense`, `dense_1`, `input_layer`..."""
    used: dict[str, int] = {}
    out = []
    for item in items:
        key = _class_key(item)
        if key in used:
            used[key] += 1
            key = f"{key}_{used[key]}"
        else:
            used[key] = 0
        out.append((key, item))
    return out


def _name_key(attr: str) -> str:
    # Keras visits private attributes (`_x`) after public ones.
    return f"~{attr}" if attr.startswith("_") else attr


def _attributes(layer) -> list:
    from lamina.layers.layer import _UNTRACKED

    return [
        (attr, value)
        for attr, value in layer.__dict__.items()
        if attr not in _UNTRACKED and not attr.startswith("__")
    ]


def _children(layer) -> list:
    """`(relative path, child)` for every saveable child, named as Keras 3 names them.

    Functional and Sequential models keep their layers in a `layers` container. Other
    layers are walked by attribute name, sorted with private ones (`_x`) last; lists and
    dicts of layers become containers named by class (`dense`, `dense_1`, ...). A
    subclassed model also has Keras's `layers` property, a container of all its direct
    sublayers walked in its sorted place, so a sublayer whose attribute sorts after
    "layers" is filed as `layers/<class>_k`. A child may appear more than once (in a
    container after its attribute): the walk keeps the first path, but the later
    appearance still takes its number in the container, as in Keras. Seed generators
    are children too, so dropout draws resume where they left off.
    """
    from lamina.layers.layer import Layer
    from lamina.ops.random import SeedGenerator

    if getattr(layer, "_function", None) is not None:
        stack = getattr(layer, "_stack", None)
        items = stack if stack is not None else layer._layers
        # Keras op nodes (`x != 0`) are not layers in Keras: no entry in its container.
        items = [item for item in items if not getattr(item, "_is_keras_op", False)]
        return [(f"layers/{key}", child) for key, child in _container(items)]
    attributes = _attributes(layer)
    if isinstance(getattr(type(layer), "layers", None), property):
        attributes.append(("layers", layer.layers))  # a subclassed model
    out = []
    for attr, value in sorted(attributes, key=lambda pair: _name_key(pair[0])):
        if isinstance(value, (Layer, SeedGenerator)):
            out.append((attr, value))
        elif isinstance(value, (list, tuple, dict)):
            values = list(value.values()) if isinstance(value, dict) else list(value)
            members = [v for v in values if isinstance(v, Layer)]
            out.extend((f"{attr}/{key}", child) for key, child in _container(members))
    return out


def _legacy_paths(layer) -> dict:
    """`{id(child): path}` as lamina filed children before it followed Keras's walk:
    every attribute in plain sorted order, containers numbered without the children
    already seen, no `layers` container. Read as a fallback, so older files load."""
    from lamina.layers.layer import Layer
    from lamina.ops.random import SeedGenerator

    out: dict = {}
    for attr, value in sorted(_attributes(layer)):
        if isinstance(value, (Layer, SeedGenerator)):
            out.setdefault(id(value), attr)
        elif isinstance(value, (list, tuple, dict)):
            values = list(value.values()) if isinstance(value, dict) else list(value)
            members = [v for v in values if isinstance(v, Layer) and id(v) not in out]
            for key, child in _container(members):
                out[id(child)] = f"{attr}/{key}"
    return out


def _legacy_layout(group, obj, children):
    """`_legacy_paths(obj)` when `group` holds `obj`'s children as lamina filed them
    before it followed Keras's walk (some Keras path missing, every old one present),
    else None. Decided for the object as a whole, not per child: an old container
    numbering can name a different child at a Keras path (`pair/dense`)."""
    from lamina.ops.random import SeedGenerator

    if getattr(obj, "_function", None) is not None:
        return None  # graph models' `layers/` container has not changed
    first: dict = {}
    for path, child in children:
        if not isinstance(child, SeedGenerator) and (_own(child) or _children(child)):
            first.setdefault(id(child), path)
    if all(path in group for path in first.values()):
        return None
    legacy = _legacy_paths(obj)
    if all(legacy.get(key) is not None and legacy[key] in group for key in first):
        return legacy
    return None


def _write(group, obj, visited):
    from lamina.ops.random import SeedGenerator

    # Keras writes an object once, at the first path its walk meets it on.
    visited.add(id(obj))
    own = group.create_group("vars", track_order=True)
    if isinstance(obj, SeedGenerator):
        own.create_dataset("0", data=obj.state.numpy())
        return
    # The layer fills its own entry (Keras's `save_own_variables`): by default its
    # weights as "0", "1", ...; an override may file more, under any name.
    store: dict = {}
    obj.save_own_variables(store)
    for key, value in store.items():
        own.create_dataset(str(key), data=_to_numpy(value))
    for path, child in _children(obj):
        if id(child) not in visited:
            _write(group.require_group(path), child, visited)


def _to_numpy(value):
    # What a layer put in its store: a NumPy array (the default), or a variable or
    # engine tensor from an override (Keras's own overrides store variables).
    from lamina import ops
    from lamina.backend.common.variables import Variable

    if isinstance(value, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        return np.asarray(value)
    if isinstance(value, Variable):
        return value.numpy()

    return ops.convert_to_numpy(value)


def write_model(f, model) -> None:
    """Write the model's weights (and its optimizer's state, if built) into open file `f`."""
    _write(f, model, set())
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and getattr(optimizer, "built", False):
        group = f.create_group("optimizer", track_order=True).create_group("vars", track_order=True)
        for i, v in enumerate(optimizer.variables):
            group.create_dataset(str(i), data=v.numpy())


# What h5py and NumPy raise on a damaged or altered weights file: bad bytes in an
# object header or B-tree (OSError, KeyError, RuntimeError), data that is not numbers
# (ValueError, TypeError), and the odd IndexError/OverflowError from corrupt sizes.
class MissingFileError(FileNotFoundError, ValueError):
    """A file to load that does not exist: a `FileNotFoundError`, and the `ValueError`
    Keras raises for it (so either `except` catches it)."""


def check_exists(filepath, what: str) -> None:
    """Raise `MissingFileError` naming `what` was to be loaded if `filepath` is absent."""
    if not os.path.exists(filepath):
        where = os.path.abspath(filepath)
        shown = f"{filepath!r}" if where == filepath else f"{filepath!r} ({where})"
        raise MissingFileError(
            f"Cannot load {what} from {shown}: no such file. Check the path (a relative "
            f"one is relative to the working directory, {os.getcwd()!r})."
        )


H5_ERRORS = (
    ValueError,
    TypeError,
    OSError,
    KeyError,
    RuntimeError,
    IndexError,
    OverflowError,
    AttributeError,
    UnicodeError,
)

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def check_global_heaps(data, where: str) -> None:
    """Refuse an HDF5 file whose global heap would send libhdf5 into an endless loop.

    Variable-length strings (the JSON attributes of a legacy `.h5` file) live in
    "global heap collections". libhdf5 (2.0) walks a collection's objects by their
    sizes, and an object with index 0 and size 0 (zeroed bytes, say) makes it step by
    nothing forever, inside C code where no signal or timeout reaches it. This walks
    each collection the same way first, on the raw bytes (`bytes` or an `mmap`), and
    raises a ValueError naming `where` instead.
    """
    lengths = None
    for offset in (0, 512, 1024, 2048):
        if data[offset : offset + 8] == HDF5_SIGNATURE:
            version = data[offset + 8]
            lengths = data[offset + 14] if version in (0, 1) else data[offset + 10]
            break
    if lengths not in (2, 4, 8):
        return  # not HDF5, or sizes libhdf5 refuses by itself
    header = 8 + lengths  # signature, version, reserved, collection size
    object_header = 8 + lengths  # index, reference count, reserved, object size
    start = data.find(b"GCOL")
    while start >= 0:
        if data[start + 4] == 1:
            size = int.from_bytes(data[start + 8 : start + 8 + lengths], "little")
            end = min(start + size, len(data))
            p = start + header
            while p + object_header <= end:
                index = int.from_bytes(data[p : p + 2], "little")
                length = int.from_bytes(data[p + 8 : p + 8 + lengths], "little")
                step = object_header + ((length + 7) & ~7) if index else length
                if step == 0:
                    raise ValueError(
                        f"{where}: its HDF5 global heap at byte {start} is damaged (an "
                        f"empty free-space record at byte {p}); the file cannot be read."
                    )
                p += step
        start = data.find(b"GCOL", start + 4)


MAX_H5_DEPTH = 64  # Keras nests a few levels per nested model; 64 is far beyond real files.
MAX_H5_OBJECTS = 1_000_000


def check_safe(f) -> None:
    """Refuse HDF5 external links, soft links, external and virtual datasets anywhere in
    `f`, and groups nested deeper than `MAX_H5_DEPTH` (a hard-link cycle, e.g. a group
    linked into itself, counts as infinitely deep). Walks iteratively: no RecursionError.
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    stack = [(f, "", 0)]
    visited = 0
    while stack:
        group, path, depth = stack.pop()
        if depth > MAX_H5_DEPTH:
            raise ValueError(
                f"Refusing to load weights: {path!r} is nested more than {MAX_H5_DEPTH} groups "
                "deep (or sits in a cycle of hard links); real weights files are shallow."
            )
        for name in group:
            visited += 1
            if visited > MAX_H5_OBJECTS:
                raise ValueError(
                    f"Refusing to load weights: the file has more than {MAX_H5_OBJECTS} entries."
                )
            link = group.get(name, getlink=True)
            where = f"{path}/{name}"
            if not isinstance(link, h5py.HardLink):
                raise ValueError(
                    f"Refusing to load weights: {where!r} is an HDF5 {type(link).__name__}; "
                    "weights files may only contain their own data."
                )
            item = group[name]
            if isinstance(item, h5py.Group):
                stack.append((item, where, depth + 1))
            elif isinstance(item, h5py.Dataset) and (item.external or item.is_virtual):
                raise ValueError(
                    f"Refusing to load weights: dataset {where!r} stores its data outside the file."
                )


def read_model(
    f,
    model,
    restore_optimizer: bool | str = False,
    skip_mismatch: bool = False,
    objects_to_skip=None,
) -> None:
    """Load weights from open file `f` into `model` (all shapes checked before assigning).

    With `skip_mismatch`, a layer whose weight count or shapes differ from the file's
    (or that the file lacks) keeps its weights, with a warning naming it.
    `restore_optimizer=True` also loads the optimizer's state and raises when it does
    not fit (a `.keras` file); `"warn"` loads it when it fits and otherwise warns and
    keeps the optimizer as it is (`load_weights`, as Keras does). The layers (or the
    optimizer) in `objects_to_skip` keep their weights, what lies inside them included.
    """
    check_safe(f)
    assignments: list = []
    # As Keras: the objects to skip count as already read, so the walk passes them by.
    skipped = {id(obj) for obj in objects_to_skip or ()}
    _read(f, model, model.name, assignments, skip_mismatch, set(skipped))
    optimizer = getattr(model, "optimizer", None)
    if id(optimizer) in skipped:
        optimizer = None
    if restore_optimizer and optimizer is not None and "optimizer" in f:
        _read_optimizer(f, model, optimizer, assignments, strict=restore_optimizer is True)
    # Layers that read their own entries run first: an error there leaves every weight
    # as it was before the load.
    assignments.sort(key=lambda pair: not isinstance(pair[0], _OwnState))
    for variable, value in assignments:
        variable.assign(value)


def _read_optimizer(f, model, optimizer, assignments, strict: bool) -> None:
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    stored = f["optimizer"].get("vars") if isinstance(f["optimizer"], h5py.Group) else None
    if not isinstance(stored, h5py.Group):
        raise ValueError("Entry optimizer/vars is missing or not a group of weights.")
    base = 1 + (optimizer._learning_rate is not None)
    if not optimizer.built and len(stored) != base and model.trainable_variables:
        # Keras skips an optimizer that has not been built yet (its state is lost);
        # building it for the model's variables first restores the state instead.
        optimizer.build(model.trainable_variables)
    variables = optimizer.variables
    if len(stored) == base and (strict or not optimizer.built):
        # Saved before its first step: no slots in the file, and none made here (the
        # first step builds them), so loading allocates only what the file holds. (For
        # `load_weights` into an optimizer that has stepped, its count differs and it is
        # skipped, as Keras skips it: a reset step count would not fit its moments.)
        variables = variables[:base]
    if len(stored) != len(variables):
        if strict:
            raise ValueError(
                f"The file holds {len(stored)} optimizer variables; the model's optimizer "
                f"has {len(variables)}."
            )
        # Keras's own message (`Optimizer.load_own_variables`): the state is skipped.
        warnings.warn(
            f"Skipping variable loading for optimizer '{optimizer.name}', because it has "
            f"{len(variables)} variables whereas the saved optimizer has {len(stored)} "
            "variables. ",
            UserWarning,
            stacklevel=5,
        )
        return
    values = []
    for i, v in enumerate(variables):
        data = stored.get(str(i))
        if not isinstance(data, h5py.Dataset):
            raise ValueError(f"Entry optimizer/vars/{i} is missing or not a dataset.")
        if tuple(data.shape) != tuple(v.shape):
            why = (
                f"Optimizer variable {v.name!r} has shape {tuple(v.shape)}, the file holds "
                f"{tuple(data.shape)} (entry optimizer/vars/{i})."
            )
            if strict:
                raise ValueError(why)
            warnings.warn(
                f"Skipping variable loading for optimizer '{optimizer.name}': {why}",
                UserWarning,
                stacklevel=5,
            )
            return
        values.append((v, _numbers(data, f"optimizer/vars/{i}")))
    assignments.extend(values)


def save_weights(model, filepath, overwrite: bool = True, max_shard_size=None) -> None:
    """Write `model`'s weights to `filepath`, atomically.

    The name picks the layout, as it did across Keras versions: a path ending in
    `.weights.h5` gets Keras 3's layout (with the optimizer's state, once built); any
    other name (`w.h5`, `x.hdf5`, `weights00.h5`) gets Keras 2's HDF5 weights layout
    (`layer_names` / `weight_names`), which Keras 2 loads. A `.keras` path is refused:
    that is a whole-model file (`model.save`).

    `overwrite=False` refuses to replace an existing file (`FileExistsError`; Keras asks
    on the terminal). `max_shard_size` is Keras's size limit for splitting the weights
    over several files; lamina writes one file, so only `None` is accepted.

    >>> import os, tempfile, lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
    >>> save_weights(model, path)  # the same as model.save_weights(path)
    >>> os.path.exists(path)
    True
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    from lamina.saving import legacy_h5

    if max_shard_size is not None:
        raise ValueError(
            f"save_weights received max_shard_size={max_shard_size!r}; lamina "
            "writes all the weights to one `.weights.h5` file and does not shard "
            "them. Leave `max_shard_size` unset."
        )
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath!r} exists and overwrite=False.")
    if filepath.endswith(".keras"):
        raise ValueError(
            f"save_weights cannot write a `.keras` file ({filepath!r}): that is a whole-model "
            "file, written by `model.save`. Use a `.weights.h5` path (Keras 3's weights "
            "layout) or another `.h5` name (Keras 2's)."
        )
    if not filepath.endswith(".weights.h5"):
        return legacy_h5.save_weights(model, filepath)
    with atomic_write(filepath) as tmp, h5py.File(tmp, "w") as f:
        write_model(f, model)  # with the optimizer's state, as Keras's save_weights


def _skip(path, obj, why) -> None:
    warnings.warn(
        f"Skipping the weights of {type(obj).__name__} {getattr(obj, 'name', path)!r} "
        f"({path}): {why} (skip_mismatch=True); it keeps its current weights.",
        UserWarning,
        stacklevel=4,
    )


class _OwnState:
    """Hands a layer that overrides `load_own_variables` its whole entry of the file
    (Keras's per-layer store), once every other entry has been checked."""

    def __init__(self, layer, path, skip_mismatch):
        self.layer, self.path, self.skip_mismatch = layer, path, skip_mismatch

    def assign(self, store) -> None:
        if not self.skip_mismatch:
            self.layer.load_own_variables(store)
            return
        try:
            self.layer.load_own_variables(store)
        except Exception as err:  # Keras skips a layer whose own loading fails, too
            _skip(self.path, self.layer, f"its load_own_variables raised {err!r}")


def _overrides_load(obj) -> bool:
    from lamina.layers import keras_methods

    method = getattr(type(obj), "load_own_variables", None)
    return method is not None and method is not keras_methods.load_own_variables


def _read_store(stored, path) -> dict:
    """Every entry of a layer's `vars` group, checked to be internal numeric datasets."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    store = {}
    for key in stored:
        dataset = stored[key]
        if not isinstance(dataset, h5py.Dataset) or dataset.external or dataset.is_virtual:
            raise ValueError(
                f"Entry {path}/vars/{key} is not an internal dataset; refusing to load it."
            )
        store[key] = _numbers(dataset, f"{path}/vars/{key}")
    return store


def _read(group, obj, path, assignments, skip_mismatch, visited):
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    from lamina.ops.random import SeedGenerator

    visited.add(id(obj))
    is_seed = isinstance(obj, SeedGenerator)
    own = [obj.state] if is_seed else _own(obj)
    stored = group.get("vars")
    if stored is not None and not isinstance(stored, h5py.Group):
        raise ValueError(f"Entry {path}/vars is not a group of weights.")
    if not is_seed and _overrides_load(obj):
        # The layer reads its entry itself (Keras's `load_own_variables` override: extra
        # state, an older layout); it runs after every check of the file has passed.
        store = _read_store(stored, path) if stored is not None else {}
        assignments.append((_OwnState(obj, path, skip_mismatch), store))
        own = []
        stored = None
    named = [k for k in stored if not k.isdigit()] if stored is not None else []
    count = len(stored) if stored is not None else 0
    mismatch = count != len(own)
    if mismatch and is_seed:
        return  # a file without seed state: keep the current one
    if mismatch and skip_mismatch:
        _skip(path, obj, f"it has {len(own)} weight(s), the file holds {count}")
        own = []
    elif mismatch:
        hint = (
            f" The file also files entries by name ({named}): a layer that saves extra "
            "state with `save_own_variables` must read it with its own "
            "`load_own_variables`."
            if named
            else " The file was saved from a different architecture."
        )
        raise ValueError(
            f"Layer {path!r} has {len(own)} weight(s) but the file holds {count} for it.{hint}"
        )
    if skip_mismatch and own:
        shapes = [tuple(getattr(stored.get(str(i)), "shape", ()) or ()) for i in range(count)]
        if any(shape != tuple(v.shape) for shape, v in zip(shapes, own)):
            _skip(
                path,
                obj,
                f"its weights have shapes {[tuple(v.shape) for v in own]}, the file's {shapes}",
            )
            own = []
    for i, v in enumerate(own):
        dataset = stored.get(str(i))
        if dataset is None:
            raise ValueError(
                f"Entry {path}/vars holds {count} item(s) but no {str(i)!r}: its weights are "
                "not numbered 0, 1, ... as written."
            )
        if not isinstance(dataset, h5py.Dataset) or dataset.external or dataset.is_virtual:
            raise ValueError(
                f"Entry {path}/vars/{i} is not an internal dataset; refusing to load it."
            )
        if tuple(dataset.shape) != tuple(v.shape):
            raise ValueError(
                f"Weight {v.path!r} has shape {tuple(v.shape)}, but the file holds shape "
                f"{tuple(dataset.shape)} for it (entry {path}/vars/{i})."
            )
        assignments.append((v, _numbers(dataset, f"{path}/vars/{i}")))
    if is_seed:
        return
    children = _children(obj)
    legacy = _legacy_layout(group, obj, children)
    for child_path, child in children:
        if id(child) in visited:
            continue  # read at the first path the walk met it on, as it was written
        visited.add(id(child))
        if legacy is not None:
            child_path = legacy.get(id(child), child_path)
        sub = group.get(child_path)
        if sub is not None and not isinstance(sub, h5py.Group):
            raise ValueError(f"Entry {path}/{child_path} is not a group; the file is damaged.")
        if sub is None:
            if isinstance(child, SeedGenerator):
                continue
            if (_own(child) or _children(child)) and skip_mismatch:
                _skip(f"{path}/{child_path}", child, "the file has no weights for it")
                continue
            if _own(child) or _children(child):
                raise ValueError(
                    f"The file has no weights for {path}/{child_path} ({type(child).__name__} "
                    f"{child.name!r}). It was saved from a different architecture."
                )
            continue
        _read(sub, child, f"{path}/{child_path}", assignments, skip_mismatch, visited)


def check_file_heaps(filepath, where: str) -> None:
    """`check_global_heaps` on the file at `filepath`, mapped rather than read."""
    import mmap

    with open(filepath, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            check_global_heaps(data, where)


def _numbers(dataset, where: str):
    """The values of `dataset`, refused unless they are numbers (or booleans)."""
    if dataset.dtype.kind not in "fiub":
        raise ValueError(f"Entry {where} holds {dataset.dtype} data, not numbers.")
    return np.asarray(dataset)


def load_weights(
    model, filepath, skip_mismatch: bool = False, by_name: bool = False, objects_to_skip=None
) -> None:
    """Load weights saved by `save_weights` into `model` (all shapes checked first).

    A damaged or mismatched file raises one ValueError naming the file and the entry;
    with `skip_mismatch=True`, layers whose weights do not match keep theirs, and each
    is named in a warning. The optimizer's state in the file is restored when the
    model has an optimizer it fits (warned about and skipped when it does not).
    `by_name=True` (Keras 2) matches a Keras 2-layout file's layer groups to the
    model's layers by name instead of by position. `objects_to_skip` (Keras 3, for
    `.weights.h5` files): layers, or the optimizer, whose weights are left as they are.

    >>> import os, tempfile, numpy as np, lamina
    >>> def build():
    ...     return lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    >>> model, twin = build(), build()
    >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
    >>> save_weights(model, path)
    >>> load_weights(twin, path)
    >>> np.array_equal(twin.get_weights()[0], model.get_weights()[0])
    True
    """
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    from lamina.saving import legacy_h5

    filepath = os.fspath(filepath)
    if objects_to_skip is not None and not filepath.endswith(".weights.h5"):
        raise ValueError(
            f"`objects_to_skip` applies to '.weights.h5' files only (as in Keras); received "
            f"filepath={filepath!r}. Save the weights with `save_weights('x.weights.h5')`."
        )
    check_exists(filepath, "weights")
    from lamina.saving import orbax_checkpoints

    if orbax_checkpoints.is_orbax_checkpoint(filepath):  # a folder `OrbaxCheckpoint` wrote
        return orbax_checkpoints.load_weights(model, filepath)
    if zipfile.is_zipfile(filepath):
        # A `.keras` archive (`ModelCheckpoint("x.keras")`): Keras 3 reads the weights
        # out of it, and so does lamina, whatever the file's name.
        from lamina.saving import keras_file

        return keras_file.load_weights(model, filepath, skip_mismatch)
    if not os.path.isfile(filepath):
        raise ValueError(f"Cannot load weights from {filepath!r}: it is not a file.")
    check_file_heaps(filepath, f"Cannot load weights from {filepath!r}")
    try:
        f = h5py.File(filepath, "r")
    except (OSError, ValueError) as err:
        raise ValueError(
            f"Cannot load weights from {filepath!r}: it is not a readable HDF5 file "
            f"({type(err).__name__}: {err})."
        ) from err
    with f:
        if legacy_h5.is_legacy_weights(f):  # Keras 2 `save_weights("w.h5")`, whole `.h5`
            return legacy_h5.load_weights(f, model, filepath, skip_mismatch, by_name)
        if by_name:
            raise ValueError(
                f"load_weights(by_name=True) reads Keras 2's HDF5 weights layout (files saved "
                f"under names such as `w.h5`); {filepath!r} is in Keras 3's `.weights.h5` "
                "layout, whose weights are matched by the model's structure: load it "
                "without by_name."
            )
        try:
            read_model(
                f,
                model,
                restore_optimizer="warn",
                skip_mismatch=skip_mismatch,
                objects_to_skip=objects_to_skip,
            )
        except H5_ERRORS as err:
            raise serialization.config_error(err, f"Cannot load weights from {filepath!r}") from err
