"""`.keras` files: a zip of `config.json`, `metadata.json`, `model.weights.h5` and the
layers' assets (`assets/<layer path>/...`, e.g. a StringLookup's `vocabulary.txt`).

Loading is safe by construction: class names resolve only through lamina's registry
(see `lamina.common.serialization`), zip entries must be plain relative names of bounded
size and compression ratio, and the weights file may not use HDF5 external links or
external storage. Saving writes a temporary file beside the target and renames it into
place, so a failed save leaves the previous file intact.

Assets sit where Keras 3 puts them: a layer with `save_assets(dir)` writes files into
its own folder, named by the layer's path in the weights file (`layers/string_lookup`,
`layers/text_vectorization/_lookup_layer`). Loading unpacks them into a private
temporary folder, bounded in count and size, and hands each layer its folder through
`load_assets(dir)`; entry names were checked for path tricks first, and nothing is
ever written outside that folder.
"""

from __future__ import annotations

import datetime
import io
import json
import lzma
import os
import tempfile
import zipfile
import zlib

from lamina.backend.common.variables import deferred_initialization
from lamina.common import serialization
from lamina.saving import keras_folder, weights_h5
from lamina.saving.atomic import atomic_write

CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ALLOWED_ENTRIES = {CONFIG, METADATA, WEIGHTS, "assets/"}
MAX_ENTRY_BYTES = 2 * 1024**3  # 2 GiB uncompressed per entry
MAX_CONFIG_BYTES = 64 * 1024**2
MAX_COMPRESSION_RATIO = 200
LOAD_SLACK_BYTES = 64 * 1024**2  # variables a file need not store: metrics, seeds
# Small entries (JSON configs, zero-initialised weights) may compress far better than
# 200:1 harmlessly; the ratio bound applies to entries that unpack past this size.
RATIO_CHECK_MIN_BYTES = 1024**2
KERAS_VERSION = "3.8.0"  # the Keras file format version these files follow
ASSETS = "assets"
MAX_ASSET_FILES = 10_000
MAX_ASSETS_BYTES = 1024**3  # all assets together, unpacked


def _asset_owners(model) -> list:
    """`(path, layer)` for every layer with assets, at the paths Keras gives them (the
    paths of the weights file), each layer once."""
    out, seen = [], set()
    stack = [("", model)]
    while stack:
        path, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if hasattr(obj, "save_assets") or hasattr(obj, "load_assets"):
            out.append((path, obj))
        if not hasattr(obj, "_own_weights"):
            continue  # a seed generator: no children
        children = weights_h5._children(obj)
        for child_path, child in reversed(children):
            stack.append((f"{path}/{child_path}" if path else child_path, child))
    return out


def _write_assets(zf: zipfile.ZipFile, model) -> None:
    owners = [(p, o) for p, o in _asset_owners(model) if hasattr(o, "save_assets")]
    if not owners:
        return
    with tempfile.TemporaryDirectory(prefix="lamina-assets-") as root:
        for path, owner in owners:
            folder = os.path.join(root, *path.split("/")) if path else root
            os.makedirs(folder, exist_ok=True)
            owner.save_assets(folder)
        for directory, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                full = os.path.join(directory, name)
                relative = os.path.relpath(full, root).replace(os.sep, "/")
                zf.write(full, f"{ASSETS}/{relative}")


def _read_assets(zf: zipfile.ZipFile, model, filepath) -> None:
    """Unpack the file's assets into a temporary folder and let each layer that has
    assets read its own folder."""
    owners = [(p, o) for p, o in _asset_owners(model) if hasattr(o, "load_assets")]
    entries = [
        info
        for info in zf.infolist()
        if info.filename.startswith(f"{ASSETS}/") and not info.filename.endswith("/")
    ]
    if not owners:
        return
    if len(entries) > MAX_ASSET_FILES:
        raise ValueError(
            f"Refusing to load {filepath!r}: it holds {len(entries)} asset files (limit "
            f"{MAX_ASSET_FILES})."
        )
    total = sum(info.file_size for info in entries)
    if total > MAX_ASSETS_BYTES:
        raise ValueError(
            f"Refusing to load {filepath!r}: its assets would unpack to {total} bytes (limit "
            f"{MAX_ASSETS_BYTES})."
        )
    with tempfile.TemporaryDirectory(prefix="lamina-assets-") as root:
        real_root = os.path.realpath(root)
        for info in entries:
            parts = info.filename.split("/")[1:]
            target = os.path.realpath(os.path.join(root, *parts))
            if not target.startswith(real_root + os.sep):
                raise ValueError(
                    f"Refusing to load {filepath!r}: asset {info.filename!r} would land "
                    "outside the assets folder."
                )
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(_read_bounded(zf, info.filename, MAX_ENTRY_BYTES))
        for path, owner in owners:
            folder = os.path.join(root, *path.split("/")) if path else root
            owner.load_assets(folder)


def save_model(model, filepath, overwrite: bool = True, zipped=None, **kwargs) -> None:
    """Save architecture, weights and compile/optimizer state to a `.keras` file (or, for
    a path ending in `.h5`/`.hdf5`, the legacy HDF5 format; see `legacy_h5`).

    Args:
        model: the model.
        filepath: a path ending in `.keras` (or `.h5`/`.hdf5`).
        overwrite: replace an existing file (else `FileExistsError`).
        zipped: `False` writes Keras 3's unzipped folder (`config.json`,
            `metadata.json`, `model.weights.h5`, `assets/`) at `filepath`, which must
            then not end in `.keras`; `load_model` reads such folders. The default
            (None, True) writes the `.keras` zip archive.
        **kwargs: Keras's `include_optimizer` (for `.h5` files) and the deprecated
            `save_format` (accepted when it agrees with the file's suffix, as in Keras).

    >>> import os, tempfile, lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="out")])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> save_model(model, path)  # the same as model.save(path)
    >>> [layer.name for layer in load_model(path).layers]
    ['out']
    """
    from lamina.saving import legacy_h5

    folder = zipped is not None and not zipped
    if folder and os.fspath(filepath).endswith(".keras"):
        raise ValueError(
            "When using `zipped=False`, the `filepath` argument should not end in "
            f"`.keras` (as in Keras: it names a folder). Received: filepath={filepath}"
        )
    # Keras reads these two from its keyword arguments too.
    options = {
        "include_optimizer": kwargs.pop("include_optimizer", True),
        "save_format": kwargs.pop("save_format", None),
        **kwargs,
    }
    if not folder and legacy_h5.save_dispatch(model, filepath, overwrite, options):
        return

    filepath = os.fspath(filepath)
    if not folder and not filepath.endswith(".keras"):
        raise ValueError(
            f"Model files must end in `.keras` (or `.h5`/`.hdf5` for the legacy HDF5 "
            f"format); received {filepath!r}. Add the `.keras` extension."
        )
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath!r} exists and overwrite=False.")
    if folder:
        archive = io.BytesIO()
        _write_archive(archive, model)
        keras_folder.write(archive.getvalue(), filepath, overwrite)
        return
    with atomic_write(filepath) as tmp:
        _write_archive(tmp, model)


def _write_archive(target, model) -> None:
    """Write `model`'s `.keras` archive to `target` (a path or a binary file)."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    config = model_config(model)
    metadata = {
        "keras_version": KERAS_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        "saved_by": "lamina",
    }
    weights = io.BytesIO()
    with h5py.File(weights, "w") as f:
        weights_h5.write_model(f, model)
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(METADATA, json.dumps(metadata))
        zf.writestr(CONFIG, json.dumps(config))
        zf.writestr(WEIGHTS, weights.getvalue())
        _write_assets(zf, model)


def model_config(model) -> dict:
    """The `config.json` of `model`'s `.keras` file: its Keras 3 config, with its build
    and compile configs (Orbax checkpoints store the same)."""
    config = serialization.serialize_keras_object(model, "layers")
    build = model.get_build_config()
    if build is not None:
        config["build_config"] = build
    # What the model's `get_compile_config` returns (a subclass may override it, as
    # Keras lets it), with the objects in it serialized.
    compile_config = model.get_compile_config() if getattr(model, "compiled", False) else None
    if compile_config is not None:
        config["compile_config"] = serialization.serialize_keras_object(compile_config)
    return config


def compile_loaded_model(model, compile_config, custom_objects) -> None:
    """Compile a loaded model from its file's `compile_config`, as Keras does: through
    the model's own `compile_from_config` where it overrides it (with `custom_objects`
    in scope), else from lamina's format."""
    if serialization.is_lamina_code(type(model).compile_from_config):
        model._compile_from_config(compile_config, custom_objects)
        return
    with serialization.custom_object_scope(custom_objects or {}):
        model.compile_from_config(compile_config)


def _check_zip(zf: zipfile.ZipFile, filepath) -> None:
    for info in zf.infolist():
        name = info.filename
        if name.startswith("/") or "\\" in name or ".." in name.split("/") or ":" in name:
            raise ValueError(
                f"Refusing to load {filepath!r}: zip entry {name!r} is not a plain relative name."
            )
        if name not in ALLOWED_ENTRIES and not name.startswith("assets/"):
            raise ValueError(
                f"Refusing to load {filepath!r}: unexpected zip entry {name!r}; a .keras file "
                f"holds only {sorted(ALLOWED_ENTRIES)}."
            )
        if info.file_size > MAX_ENTRY_BYTES:
            raise ValueError(
                f"Refusing to load {filepath!r}: entry {name!r} would unpack to "
                f"{info.file_size} bytes (limit {MAX_ENTRY_BYTES})."
            )
        if info.file_size > RATIO_CHECK_MIN_BYTES and info.file_size > MAX_COMPRESSION_RATIO * max(
            info.compress_size, 1
        ):
            raise ValueError(
                f"Refusing to load {filepath!r}: entry {name!r} has compression ratio "
                f"{info.file_size / max(info.compress_size, 1):.0f}:1 (limit {MAX_COMPRESSION_RATIO}:1); "
                "it looks like a zip bomb."
            )
    names = zf.namelist()
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ValueError(
            f"Refusing to load {filepath!r}: zip entry {duplicated[0]!r} appears more than "
            "once, so which copy is meant is ambiguous; the file is damaged or was altered."
        )
    for required in (CONFIG, WEIGHTS):
        if required not in names:
            raise ValueError(f"{filepath!r} is not a .keras file: it has no {required}.")


# What reading a damaged zip entry raises: a bad CRC or header (BadZipFile), a broken
# deflate/bzip2/lzma stream (zlib.error, OSError, LZMAError, EOFError), an unknown
# compression method (NotImplementedError).
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    OSError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
)


def _read_bounded(zf, name, limit, filepath=None):
    try:
        with zf.open(name) as f:
            data = f.read(limit + 1)
    except ZIP_ERRORS as err:
        where = f"{filepath!r}" if filepath is not None else "the file"
        raise ValueError(
            f"Cannot load {where}: zip entry {name!r} cannot be read, the file is damaged "
            f"({type(err).__name__}: {err})."
        ) from err
    if len(data) > limit:
        raise ValueError(f"Entry {name!r} is larger than {limit} bytes; refusing to load it.")
    return data


def _part_error(filepath, part: str, err: BaseException) -> Exception:
    """`err` as one exception naming the file and the part of it being read."""
    return serialization.config_error(err, f"Cannot load {filepath!r}: {part}")


def _parse_config(data: bytes, filepath):
    """`config.json` as a dict; too-deep nesting is a ValueError, never a RecursionError."""
    try:
        config = json.loads(data)
    except RecursionError:
        raise ValueError(
            f"Refusing to load {filepath!r}: its {CONFIG} is nested too deeply to parse "
            f"(lamina reads configs nested at most {serialization.MAX_CONFIG_DEPTH} levels)."
        ) from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(
            f"Refusing to load {filepath!r}: {CONFIG} is not valid JSON ({err})."
        ) from err
    if not isinstance(config, dict):
        raise ValueError(
            f"Refusing to load {filepath!r}: {CONFIG} must hold a JSON object; received "
            f"{type(config).__name__}."
        )
    return config


# Metric names `compile` resolves from the loss (`"accuracy"` -> SparseCategoricalAccuracy).
METRIC_ALIASES = ("accuracy", "acc", "crossentropy", "ce")


def _check_compile_names(compile_config, custom_objects, filepath) -> None:
    """Every loss and metric *name* in `compile_config` must be in the registry.

    `compile` resolves names lazily (at the first `fit`); a file's names are checked
    here, at load, so a name outside the registry is refused before anything runs.
    """
    if not isinstance(compile_config, dict):
        raise ValueError(
            f"Refusing to load {filepath!r}: compile_config must be a dict; received "
            f"{type(compile_config).__name__}."
        )
    for key, category in (
        ("loss", "losses"),
        ("metrics", "metrics"),
        ("weighted_metrics", "metrics"),
    ):
        stack = [compile_config.get(key)]
        while stack:
            spec = stack.pop()
            if isinstance(spec, list):
                stack.extend(spec)
            elif isinstance(spec, dict) and "class_name" not in spec:
                stack.extend(spec.values())  # per-output dict
            elif isinstance(spec, str):
                if category == "metrics" and spec in METRIC_ALIASES:
                    continue
                if (
                    serialization.get_registered_object(spec, custom_objects, category=category)
                    is None
                ):
                    raise ValueError(
                        f"Refusing to load {filepath!r}: its compile_config names {key} "
                        f"{spec!r}, which is not a lamina {category[:-1]} nor a registered "
                        "custom object. Pass it in `custom_objects`, or load with "
                        "`compile=False`."
                    )


def load_model(filepath, custom_objects=None, compile: bool = True, safe_mode: bool = True):
    """Load a model saved by `model.save` (or by Keras 3 for the layers lamina has), or a
    legacy HDF5 (`.h5`) model file from Keras 2 / tf.keras / Keras 3.

    >>> import os, tempfile, lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    >>> model.compile(optimizer="adam", loss="mse")
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> model.save(path)
    >>> restored = load_model(path)
    >>> restored.input_shape, type(restored.optimizer).__name__
    ((None, 3), 'Adam')
    """
    from lamina.saving import legacy_h5, orbax_checkpoints

    filepath = os.fspath(filepath)
    weights_h5.check_exists(filepath, "a model")
    if orbax_checkpoints.is_orbax_checkpoint(filepath):  # a folder `OrbaxCheckpoint` wrote
        return orbax_checkpoints.load_model(filepath, custom_objects, compile, safe_mode)
    if legacy_h5.is_legacy_file(filepath):
        return legacy_h5.load_model(filepath, custom_objects, compile, safe_mode)
    if keras_folder.is_model_folder(filepath):  # `save_model(..., zipped=False)`
        archive = keras_folder.as_archive(filepath, MAX_ENTRY_BYTES)
    else:
        archive = _open_archive(filepath)
    with archive as zf:
        config = _parse_config(_read_bounded(zf, CONFIG, MAX_CONFIG_BYTES, filepath), filepath)
        weights = _read_bounded(zf, WEIGHTS, MAX_ENTRY_BYTES, filepath)
        model = _build_and_fill(zf, filepath, config, weights, custom_objects, compile, safe_mode)
    return model


def _open_archive(filepath) -> zipfile.ZipFile:
    """The `.keras` zip at `filepath` (an existing path), open and checked."""
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"{filepath!r} is not a .keras (zip) file.")
    try:
        zf = zipfile.ZipFile(filepath)
    except ZIP_ERRORS + (ValueError,) as err:
        raise ValueError(
            f"Cannot load {filepath!r}: its zip directory is damaged ({type(err).__name__}: {err})."
        ) from err
    try:
        _check_zip(zf, filepath)
    except BaseException:
        zf.close()
        raise
    return zf


def load_weights(model, filepath, skip_mismatch: bool = False) -> None:
    """Load the weights (and the optimizer's state, where it fits) stored in the
    `.keras` archive at `filepath` into `model`, as Keras 3's `load_weights` does."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    with _open_archive(filepath) as zf:
        weights = _read_bounded(zf, WEIGHTS, MAX_ENTRY_BYTES, filepath)
    try:
        weights_h5.check_global_heaps(weights, "the file")
        with h5py.File(io.BytesIO(weights), "r") as f:
            weights_h5.read_model(f, model, restore_optimizer="warn", skip_mismatch=skip_mismatch)
    except weights_h5.H5_ERRORS as err:
        raise _part_error(filepath, WEIGHTS, err) from err


def _build_and_fill(zf, filepath, config, weights, custom_objects, compile, safe_mode):
    """The model of an open, checked `.keras` zip: built from `config`, its weights and
    assets loaded."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    compile_config = config.pop("compile_config", None)
    # An honest file stores every variable the model and its optimizer create, so what
    # loading may allocate is bounded by the weights' size (twice it, plus room for
    # metrics and seeds): a config asking for more is refused before it allocates.
    budget = serialization.build_budget(
        2 * len(weights) + LOAD_SLACK_BYTES,
        "building its model",
        f"The weights take {len(weights):,} bytes, so the config asks for far more than "
        "the file holds: the file is damaged or was altered.",
    )
    # The file sets the variables: their initializers draw only for what it leaves out
    # (a value put off is drawn when read, at the latest when this block ends).
    with budget, deferred_initialization():
        try:
            serialization.config_depth(config)
            model = serialization.deserialize_keras_object(
                config,
                "layers",
                custom_objects=custom_objects,
                printable_module_name="model",
                safe_mode=safe_mode,
            )
            build_config = config.get("build_config")
            if build_config and not model.built:
                model.build_from_config(build_config)
        except serialization.CONFIG_ERRORS as err:
            raise _part_error(filepath, CONFIG, err) from err
        if compile and compile_config:
            if serialization.is_lamina_code(type(model).compile_from_config):
                # lamina's format: its loss and metric names must be in the registry.
                _check_compile_names(compile_config, custom_objects, filepath)
            try:
                compile_loaded_model(model, compile_config, custom_objects)
            except serialization.CONFIG_ERRORS as err:
                raise _part_error(filepath, f"{CONFIG}, compile_config", err) from err
        try:
            weights_h5.check_global_heaps(weights, "the file")
            with h5py.File(io.BytesIO(weights), "r") as f:
                weights_h5.read_model(f, model, restore_optimizer=bool(compile and compile_config))
        except weights_h5.H5_ERRORS as err:
            raise _part_error(filepath, WEIGHTS, err) from err
    _read_assets(zf, model, filepath)
    return model
