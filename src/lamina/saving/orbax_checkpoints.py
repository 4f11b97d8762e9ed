"""Orbax checkpoints, as Keras 3 writes them with `callbacks.OrbaxCheckpoint` and reads
them with `load_model` / `load_weights`: a folder of numbered steps, each holding the
model's state tree (`model.get_state_tree()`) as the checkpointable `"pytree"` and,
unless only weights were saved, the model's config as `"model_config"`.

Orbax (`pip install orbax-checkpoint`, lamina's `orbax` extra) is imported only when a
checkpoint is read or written; it runs on JAX, so on the torch engine the arrays go
through NumPy.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings

from lamina.common.orbax_module import orbax_v1

# What a checkpoint's state tree may hold (`get_state_tree`'s groups).
STATE_GROUPS = (
    "trainable_variables",
    "non_trainable_variables",
    "optimizer_variables",
    "metrics_variables",
)


def is_orbax_checkpoint(path) -> bool:
    """Whether `path` is a folder of Orbax checkpoint steps (or one step's folder)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        return False
    try:
        contents = os.listdir(path)
    except OSError:
        return False
    markers = {"orbax.checkpoint", "pytree.orbax-checkpoint", "checkpoint_metadata", "pytree"}
    if not markers.isdisjoint(contents):
        return True
    return any(
        ".orbax-checkpoint-tmp" in item
        or (item.isdigit() and os.path.isdir(os.path.join(path, item)))
        for item in contents
    )


def _step_dir(path: str, what: str) -> tuple[str, str, int]:
    """`(root, step folder, step)`: the latest step of a checkpoint folder, or the
    given step folder itself."""
    steps = [
        int(item)
        for item in os.listdir(path)
        if item.isdigit() and os.path.isdir(os.path.join(path, item))
    ]
    if steps:
        step = max(steps)
        return path, os.path.join(path, str(step)), step
    name = os.path.basename(os.path.normpath(path))
    if name.isdigit():
        return os.path.dirname(os.path.normpath(path)), path, int(name)
    raise ValueError(f"No valid checkpoints found in {path!r} (no numbered step folders).")


@contextlib.contextmanager
def _quiet_restore():
    """Orbax warns that arrays restored without a target sharding take the saved one;
    lamina restores onto the arrays' own device, so the warning says nothing here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sharding info not provided", UserWarning)
        yield


def _numpy_tree(tree):
    import numpy as np

    if isinstance(tree, dict):
        return {key: _numpy_tree(value) for key, value in tree.items()}
    return np.asarray(tree)


def load_model(path, custom_objects=None, compile=True, safe_mode=True):
    """The model of the latest step of an Orbax checkpoint folder (written with the
    model's config: not `save_weights_only`)."""
    from lamina.common import serialization
    from lamina.saving import keras_file

    ocp = orbax_v1("Loading an Orbax checkpoint")
    path = os.fspath(path)
    root, _, step = _step_dir(path, "model")
    checkpointer = ocp.training.Checkpointer(directory=root)
    with ocp.Context():
        saved = set(checkpointer.checkpointables_metadata(step).metadata.keys())
        if "model_config" not in saved:
            raise ValueError(
                f"The Orbax checkpoint {path!r} holds no model configuration (it was saved "
                "with save_weights_only=True): build the model and use `load_weights`."
            )
        loaded = checkpointer.load_checkpointables(step, {"model_config": None})
        config = json.loads(loaded["model_config"]["config"])
        compile_config = config.pop("compile_config", None)
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
        if compile and compile_config:
            keras_file.compile_loaded_model(model, compile_config, custom_objects)
        with _quiet_restore():
            state = checkpointer.load_checkpointables(step, {"pytree": None})["pytree"]
    _set_state(model, state)
    return model


def load_weights(model, path) -> None:
    """Set `model`'s state from the latest step of an Orbax checkpoint folder (or from
    the given step's folder)."""
    ocp = orbax_v1("Loading an Orbax checkpoint")
    root, _, step = _step_dir(os.fspath(path), "weights")
    checkpointer = ocp.training.Checkpointer(directory=root)
    with ocp.Context(), _quiet_restore():
        state = checkpointer.load_checkpointables(step, {"pytree": None})["pytree"]
    _set_state(model, state)


def _set_state(model, state) -> None:
    state = {key: _numpy_tree(state[key]) for key in STATE_GROUPS if key in state}
    optimizer = getattr(model, "optimizer", None)
    if state.get("optimizer_variables") and optimizer is not None and not optimizer.built:
        optimizer.build(model.trainable_variables)  # so that its slots exist to be set
    model.set_state_tree(state)


__all__ = ["is_orbax_checkpoint", "load_model", "load_weights"]
