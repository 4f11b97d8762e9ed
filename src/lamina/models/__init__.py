"""`lamina.models`: Model (functional and subclassed), Sequential, and loading configs."""

from __future__ import annotations

import json

from lamina.common import serialization
from lamina.models.cloning import clone_model
from lamina.models.model import Model
from lamina.models.sequential import Sequential
from lamina.saving import load_model, save_model


def model_from_config(config: dict, custom_objects: dict | None = None):
    """Build a model (or layer) from `serialize`-style config: `{"class_name", "config"}`.

    >>> import lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    >>> config = lamina.saving.serialize_keras_object(model)
    >>> clone = model_from_config(config)
    >>> clone.output_shape, clone is model
    ((None, 2), False)
    """
    return serialization.deserialize_keras_object(
        config, "layers", custom_objects=custom_objects, printable_module_name="model"
    )


def model_from_json(json_string: str, custom_objects: dict | None = None):
    """Build a model from `model.to_json()` output (architecture only, no weights).

    >>> from lamina import Input, layers, Model
    >>> x = Input((3,))
    >>> model = Model(x, layers.Dense(2)(x))
    >>> clone = model_from_json(model.to_json())
    >>> [type(layer).__name__ for layer in clone.layers]
    ['InputLayer', 'Dense']
    """
    try:
        config = json.loads(json_string)
    except RecursionError:
        raise ValueError(
            "model_from_json received JSON nested too deeply to parse; a model config is "
            f"nested at most {serialization.MAX_CONFIG_DEPTH} levels."
        ) from None
    except json.JSONDecodeError as err:
        raise ValueError(f"model_from_json received text that is not valid JSON: {err}") from err
    return model_from_config(config, custom_objects=custom_objects)


__all__ = [
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_config",
    "model_from_json",
    "save_model",
]
