"""`KerasFileEditor`: look inside a `.keras` or `.weights.h5` file and edit its weights
without building the model, as Keras 3's `keras.saving.KerasFileEditor` does.

The weights are read into a nested dict that mirrors the file: an object's path
(`layers/dense`) holds its weights by name (`"0"`, `"1"`, ...) and the objects inside
it. Objects and weights can be renamed, deleted and added; `save` writes the result as
a `.weights.h5` file in Keras 3's layout, which `load_weights` reads (Keras's and
lamina's), so a file saved from one architecture can be fitted to another. `compare`
checks the file against a model.

Files are read with lamina's checks (no links out of the file, no external datasets),
and printing uses plain text (Keras colours it with `rich`).
"""

from __future__ import annotations

import io
import json
import os

import numpy as np

from lamina.saving import keras_file, weights_h5
from lamina.saving.atomic import atomic_write

# Keras's limit on one dataset read into memory (4 GiB).
MAX_WEIGHT_BYTES = 1 << 32


def _extract(group, path: str, names: dict) -> dict:
    """The weights under `group` as a nested dict. An object's `vars` group holds its
    own weights; its other groups are the objects inside it. Empty objects are left
    out, as Keras leaves them out."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    if "name" in group.attrs:
        names[path] = str(group.attrs["name"])
    result: dict = {}
    own = group.get("vars") if isinstance(group, h5py.Group) else None
    if isinstance(own, h5py.Group):
        for key in own:
            result[key] = _dataset(own[key], f"{path}/vars/{key}")
    for key in group:
        if key == "vars" and isinstance(own, h5py.Group):
            continue
        item = group[key]
        where = f"{path}/{key}"
        if isinstance(item, h5py.Group):
            inner = _extract(item, where, names)
            if inner:
                result[key] = inner
        else:
            result[key] = _dataset(item, where)
    return result


def _dataset(item, where: str) -> np.ndarray:
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    if not isinstance(item, h5py.Dataset):
        raise ValueError(f"Entry {where!r} is neither a group nor a dataset.")
    size = int(np.prod(item.shape, dtype=object)) * item.dtype.itemsize
    if size > MAX_WEIGHT_BYTES:
        raise ValueError(
            f"Weight {where!r} holds {size} bytes, more than the {MAX_WEIGHT_BYTES} bytes "
            "an editor reads into memory."
        )
    return item[()]


def _write(f, weights: dict) -> None:
    """Write the nested dict as Keras 3 lays weights out: each object's weights in its
    `<path>/vars` group (created only for an object with weights of its own)."""
    for name, value in weights.items():
        if isinstance(value, dict):
            continue
        f.require_group("vars").create_dataset(name, data=np.asarray(value))
    for name, value in weights.items():
        if isinstance(value, dict) and value:
            _write(f.require_group(name), value)


def _weights_of(model) -> dict:
    """The nested dict `KerasFileEditor` would read from `model`'s weights file."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        weights_h5.write_model(f, model)
    buffer.seek(0)
    with h5py.File(buffer, "r") as f:
        return _extract(f, "", {})


class KerasFileEditor:
    """Inspect and edit the weights in a `.keras` or `.weights.h5` file.

    Opening the file prints its name (and, for a `.keras` file, the Keras version and
    date it was saved with). `summary()` prints the weights' tree; `weights_dict` holds
    it, `config` and `metadata` a `.keras` file's `config.json` and `metadata.json`.

    Args:
        filepath: a path ending in `.keras` or `.weights.h5`.

    >>> import os, tempfile
    >>> import lamina
    >>> from lamina import layers
    >>> model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2), layers.Dense(1)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> model.save(path)
    >>> editor = KerasFileEditor(path)  # doctest: +ELLIPSIS
    Keras model file '...model.keras'
    Saved with Keras ... - date: ...
    >>> sorted(editor.weights_dict["layers"])
    ['dense', 'dense_1']
    >>> editor.delete_object("dense_1")
    >>> editor.weights_dict["layers"]["dense"]["0"].shape
    (3, 2)
    """

    def __init__(self, filepath):
        import h5py  # imported when used: it costs ~0.1 s at `import lamina`

        self.filepath = os.fspath(filepath)
        self.metadata = None
        self.config = None
        self.model = None
        if self.filepath.endswith(".keras"):
            weights_h5.check_exists(self.filepath, "model")
            with keras_file._open_archive(self.filepath) as zf:
                config = keras_file._read_bounded(
                    zf, "config.json", keras_file.MAX_CONFIG_BYTES, self.filepath
                )
                metadata = keras_file._read_bounded(
                    zf, "metadata.json", keras_file.MAX_CONFIG_BYTES, self.filepath
                )
                data = keras_file._read_bounded(
                    zf, keras_file.WEIGHTS, keras_file.MAX_ENTRY_BYTES, self.filepath
                )
            self.config = json.loads(config)
            self.metadata = json.loads(metadata)
            source = io.BytesIO(data)
        elif self.filepath.endswith(".weights.h5"):
            weights_h5.check_exists(self.filepath, "weights")
            source = self.filepath
        else:
            raise ValueError(
                "Invalid filename: expected a `.keras` or `.weights.h5` extension. "
                f"Received: filepath={self.filepath}"
            )
        with h5py.File(source, "r") as f:
            weights_h5.check_safe(f)
            self.object_metadata: dict = {}
            names: dict = {}
            self.weights_dict = _extract(f, "", names)
        self.object_metadata = {path.lstrip("/"): {"name": name} for path, name in names.items()}
        print(f"Keras model file '{self.filepath}'")
        if self.metadata is not None:
            print(
                f"Saved with Keras {self.metadata.get('keras_version')} - date: "
                f"{self.metadata.get('date_saved')}"
            )

    # Looking ------------------------------------------------------------------------------
    def summary(self):
        """Print the tree of objects and weights (name, shape and dtype of each)."""
        print("Weights structure")
        for line in self._tree(self.weights_dict, "  ", first=True, path=""):
            print(line)

    # Keras's messages point to `weights_summary()`; it is `summary()`.
    weights_summary = summary

    def _tree(self, weights: dict, prefix: str, first: bool, path: str) -> list[str]:
        lines = []
        items = list(weights.items())
        for index, (key, value) in enumerate(items):
            inner = f"{path}/{key}" if path else key
            last = index == len(items) - 1
            connector = "> " if first and index == 0 else ("└─ " if last else "├─ ")
            if isinstance(value, dict):
                label = f"{prefix}{connector}{key}"
                name = self.object_metadata.get(inner, {}).get("name")
                if name:
                    label += f" ('{name}')"
                lines.append(label)
                lines += self._tree(
                    value, prefix + ("    " if last else "│   "), first=False, path=inner
                )
            else:
                lines.append(f"{prefix}{connector}{key}: shape={value.shape}, dtype={value.dtype}")
        return lines

    def compare(self, reference_model):
        """Check the file's weights against `reference_model`'s: every object and
        weight present in both, with the same shapes. Prints what differs.

        Returns:
            `{"status": "success" | "error", "error_count": n, "match_count": m}`.
        """
        print("Running comparison")
        reference = _weights_of(reference_model)
        checked: set = set()
        errors, matches = self._compare(self.weights_dict, reference, "", checked, True)
        reverse_errors, _ = self._compare(reference, self.weights_dict, "", checked, False)
        errors += reverse_errors
        print("─────────────────────")
        if errors == 0:
            print(
                "Comparison successful: saved file is compatible with the reference model\n"
                f"    Found {matches} matching weight{'' if matches == 1 else 's'}"
            )
            status = "success"
        else:
            print(
                f"Found {errors} error{'' if errors == 1 else 's'}: saved file is not "
                "compatible with the reference model"
            )
            status = "error"
        return {"status": status, "error_count": errors, "match_count": matches}

    def _compare(self, target, reference, path, checked, file_is_target):
        target_name, reference_name = (
            ("saved file", "reference model")
            if file_is_target
            else ("reference model", "saved file")
        )
        errors = matches = 0
        for key, value in reference.items():
            inner = f"{path}/{key}"
            if inner in checked:
                continue
            if key not in target:
                errors += 1
                checked.add(inner)
                kind = "Object" if isinstance(value, dict) else "Weight"
                print(f"...{kind} {inner} present in {reference_name}, missing from {target_name}")
                if isinstance(value, dict):
                    print(
                        f"    In {reference_name}, {inner} contains the following keys: {list(value)}"
                    )
            elif isinstance(value, dict):
                if not isinstance(target[key], dict):
                    errors += 1
                    checked.add(inner)
                    print(f"...{inner} is an object in {reference_name}, a weight in {target_name}")
                    continue
                more_errors, more_matches = self._compare(
                    target[key], value, inner, checked, file_is_target
                )
                errors += more_errors
                matches += more_matches
            elif np.shape(target[key]) != np.shape(value):
                errors += 1
                checked.add(inner)
                print(
                    f"...Weight shape mismatch for {inner}\n"
                    f"    In {reference_name}: shape={np.shape(value)}\n"
                    f"    In {target_name}: shape={np.shape(target[key])}"
                )
            else:
                matches += 1
        return errors, matches

    # Editing ------------------------------------------------------------------------------
    def _holder(self, source_name: str):
        """`(dict, key)`: where the object or weight `source_name` (a path, or a name
        that occurs once in the file) sits."""
        if "/" in source_name:
            *parents, leaf = source_name.split("/")
            holder = self.weights_dict
            for part in parents:
                if not isinstance(holder.get(part), dict):
                    raise ValueError(f"Path '{source_name}' not found in model.")
                holder = holder[part]
            if leaf not in holder:
                raise ValueError(f"Path '{source_name}' not found in model.")
            return holder, leaf
        found = []

        def search(weights):
            if source_name in weights:
                found.append(weights)
            for value in weights.values():
                if isinstance(value, dict):
                    search(value)

        search(self.weights_dict)
        if len(found) > 1:
            raise ValueError(
                f"Name '{source_name}' occurs more than once in the model; try passing a "
                "complete path"
            )
        if not found:
            raise ValueError(
                f"Source name '{source_name}' does not appear in the model. Use "
                "`editor.summary()` to list all objects."
            )
        return found[0], source_name

    def rename_object(self, object_name, new_name):
        """Rename an object (a path such as `"layers/dense"`, or a name that occurs
        once). `new_name` is a name, not a path."""
        if "/" in new_name:
            raise ValueError(
                "Argument `target_name` should be a leaf name, not a full path name. "
                f"Received: target_name='{new_name}'"
            )
        holder, key = self._holder(object_name)
        holder[new_name] = holder.pop(key)

    def delete_object(self, object_name):
        """Delete an object (a path, or a name that occurs once) and all it holds."""
        holder, key = self._holder(object_name)
        holder.pop(key)

    def add_object(self, object_path, weights):
        """Add an object at `object_path` (its parent must exist) holding `weights`,
        a dict of weight names (`"0"`, `"1"`, ...) to arrays."""
        if not isinstance(weights, dict):
            raise ValueError(
                "Argument `weights` should be a dict where keys are weight names (usually "
                "'0', '1', etc.) and values are NumPy arrays. "
                f"Received: type(weights)={type(weights)}"
            )
        *parents, leaf = object_path.split("/")
        holder = self.weights_dict
        for part in parents:
            if not isinstance(holder.get(part), dict):
                raise ValueError(f"Path '{'/'.join(parents)}' not found in model.")
            holder = holder[part]
        holder[leaf] = {name: np.asarray(value) for name, value in weights.items()}

    def delete_weight(self, object_name, weight_name):
        """Delete the weight `weight_name` of the object `object_name`."""
        holder, key = self._holder(object_name)
        if weight_name not in holder[key]:
            raise ValueError(
                f"Weight {weight_name} not found in object {object_name}. Weights found: "
                f"{list(holder[key])}"
            )
        holder[key].pop(weight_name)

    def add_weights(self, object_name, weights):
        """Add (or replace) weights of the object `object_name`: a dict of weight
        names to arrays."""
        if not isinstance(weights, dict):
            raise ValueError(
                "Argument `weights` should be a dict where keys are weight names (usually "
                "'0', '1', etc.) and values are NumPy arrays. "
                f"Received: type(weights)={type(weights)}"
            )
        holder, key = self._holder(object_name)
        holder[key].update({name: np.asarray(value) for name, value in weights.items()})

    # Writing ------------------------------------------------------------------------------
    def save(self, filepath):
        """Write the (edited) weights to a `.weights.h5` file, atomically."""
        import h5py  # imported when used: it costs ~0.1 s at `import lamina`

        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(
                "Invalid `filepath` argument: expected a `.weights.h5` extension. "
                f"Received: filepath={filepath}"
            )
        with atomic_write(filepath) as tmp, h5py.File(tmp, "w") as f:
            _write(f, self.weights_dict)

    def resave_weights(self, filepath):
        """`save`: write the weights to a `.weights.h5` file."""
        self.save(filepath)


__all__ = ["KerasFileEditor"]
