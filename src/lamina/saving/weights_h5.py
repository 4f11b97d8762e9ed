"""`.weights.h5` files: every layer's own variables, nested as Keras 3 nests them.

Layout: `layers/<layer name>/vars/<i>` for each layer's own variables (in `weights`
order), with sublayers of a layer under its `layers/` group, and the model's own variables
under `vars/`. Writes go to a temporary file beside the target that is renamed into place,
so a failed save leaves any previous file intact.
"""

from __future__ import annotations

import os
import tempfile

import h5py
import numpy as np


def _own(layer) -> list:
    return layer._own_weights()


def _write(group, layer):
    own = group.create_group("vars", track_order=True)
    for i, v in enumerate(_own(layer)):
        own.create_dataset(str(i), data=v.numpy())
    # Seed state (dropout, noise) is saved too, so training resumes with the same draws.
    for i, generator in enumerate(layer._seed_generators()):
        name = "seed_generator" if i == 0 else f"seed_generator_{i}"
        group.create_group(name).create_group("vars").create_dataset(
            "0", data=generator.state.numpy()
        )
    children = layer._sublayers()
    if children:
        sub = group.create_group("layers", track_order=True)
        for child in children:
            if child.name in sub:
                continue
            _write(sub.create_group(child.name, track_order=True), child)


def write_model(f, model) -> None:
    """Write the model's weights (and its optimizer's state, if built) into open file `f`."""
    _write(f, model)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and getattr(optimizer, "built", False):
        group = f.create_group("optimizer", track_order=True).create_group("vars", track_order=True)
        for i, v in enumerate(optimizer.variables):
            group.create_dataset(str(i), data=v.numpy())


def check_safe(f) -> None:
    """Refuse HDF5 external links, soft links and external datasets anywhere in `f`."""

    def visit(group, path):
        for name in group:
            link = group.get(name, getlink=True)
            where = f"{path}/{name}"
            if isinstance(link, (h5py.ExternalLink, h5py.SoftLink)):
                raise ValueError(
                    f"Refusing to load weights: {where!r} is an HDF5 {type(link).__name__}; "
                    "weights files may only contain their own data."
                )
            item = group[name]
            if isinstance(item, h5py.Group):
                visit(item, where)
            elif isinstance(item, h5py.Dataset) and (item.external or item.is_virtual):
                raise ValueError(
                    f"Refusing to load weights: dataset {where!r} stores its data outside the file."
                )

    visit(f, "")


def read_model(f, model, restore_optimizer: bool = False) -> None:
    """Load weights from open file `f` into `model` (all shapes checked before assigning)."""
    check_safe(f)
    assignments: list = []
    _read(f, model, model.name, assignments)
    optimizer = getattr(model, "optimizer", None)
    if restore_optimizer and optimizer is not None and "optimizer" in f:
        if not optimizer.built:
            optimizer.build(model.trainable_variables)
        stored = f["optimizer"]["vars"]
        variables = optimizer.variables
        if len(stored) != len(variables):
            raise ValueError(
                f"The file holds {len(stored)} optimizer variables; the model's optimizer has "
                f"{len(variables)}."
            )
        for i, v in enumerate(variables):
            data = stored[str(i)]
            if tuple(data.shape) != tuple(v.shape):
                raise ValueError(
                    f"Optimizer variable {v.name!r} has shape {tuple(v.shape)}, the file holds "
                    f"{tuple(data.shape)}."
                )
            assignments.append((v, np.asarray(data)))
    for variable, value in assignments:
        variable.assign(value)


def save_weights(model, filepath) -> None:
    """Write `model`'s weights to `filepath` (must end in `.weights.h5`), atomically."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(".weights.h5"):
        raise ValueError(f"Weights files must end in `.weights.h5`; received {filepath!r}.")
    directory = os.path.dirname(os.path.abspath(filepath))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".weights.h5", dir=directory)
    os.close(fd)
    try:
        with h5py.File(tmp, "w") as f:
            _write(f, model)
        os.replace(tmp, filepath)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _read(group, layer, path, assignments):
    own = _own(layer)
    stored = group.get("vars")
    count = len(stored) if stored is not None else 0
    if count != len(own):
        raise ValueError(
            f"Layer {path!r} has {len(own)} weight(s) but the file holds {count} for it. "
            "The file was saved from a different architecture."
        )
    for i, v in enumerate(own):
        dataset = stored[str(i)]
        if not isinstance(dataset, h5py.Dataset) or dataset.external or dataset.is_virtual:
            raise ValueError(
                f"Entry {path}/vars/{i} is not an internal dataset; refusing to load it."
            )
        if tuple(dataset.shape) != tuple(v.shape):
            raise ValueError(
                f"Weight {v.path!r} has shape {tuple(v.shape)}, but the file holds shape "
                f"{tuple(dataset.shape)} for it."
            )
        assignments.append((v, np.asarray(dataset)))
    for i, generator in enumerate(layer._seed_generators()):
        name = "seed_generator" if i == 0 else f"seed_generator_{i}"
        stored_seed = group.get(f"{name}/vars/0")
        if (
            isinstance(stored_seed, h5py.Dataset)
            and tuple(stored_seed.shape) == generator.state.shape
        ):
            assignments.append((generator.state, np.asarray(stored_seed)))
    children = layer._sublayers()
    sub = group.get("layers")
    stored_names = list(sub.keys()) if sub is not None else []
    by_name = all(child.name in stored_names for child in children)
    if not by_name and len(stored_names) != len(children):
        missing = [c.name for c in children if c.name not in stored_names]
        raise ValueError(
            f"The file has no weights for layer(s) {missing} under {path!r} and cannot match "
            f"them by position either ({len(stored_names)} stored, {len(children)} in the model)."
        )
    # Layers are matched by name; when the names differ (e.g. a rebuilt model with new
    # automatic names), by position, as classic Keras's load_weights did.
    for i, child in enumerate(children):
        stored = sub[child.name] if by_name else sub[stored_names[i]]
        _read(stored, child, f"{path}/{child.name}", assignments)


def load_weights(model, filepath) -> None:
    """Load weights saved by `save_weights` into `model` (all shapes checked first)."""
    filepath = os.fspath(filepath)
    with h5py.File(filepath, "r") as f:
        read_model(f, model)
