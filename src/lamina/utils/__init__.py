"""Utilities: seeding, serialization, and data helpers (`to_categorical`, `normalize`,
`pad_sequences`)."""

from lamina.utils import bounding_boxes as bounding_boxes  # the keras.utils submodule
from lamina.utils.audio_dataset import audio_dataset_from_directory
from lamina.utils.config import Config
from lamina.utils.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from lamina.utils.dataset_utils import split_dataset
from lamina.utils.file_utils import get_file
from lamina.utils.graph_utils import get_source_inputs
from lamina.utils.image_dataset import image_dataset_from_directory
from lamina.utils.image_utils import array_to_img, img_to_array, load_img, save_img
from lamina.utils.io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from lamina.utils.model_visualization import model_to_dot, model_to_svg, plot_model
from lamina.utils.numerical import normalize, to_categorical
from lamina.utils.object_registration import get_custom_objects
from lamina.utils.py_dataset import PyDataset
from lamina.utils.py_dataset import PyDataset as Sequence  # Keras's older name
from lamina.utils.random import set_random_seed
from lamina.utils.sequence import pad_sequences
from lamina.utils.serialization import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    register_serializable,
    serialize_keras_object,
)
from lamina.utils.text_dataset import text_dataset_from_directory
from lamina.utils.timeseries_dataset import timeseries_dataset_from_array

__all__ = [
    "FeatureSpace",
    "PyDataset",
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_registered_name",
    "get_registered_object",
    "register_keras_serializable",
    "register_serializable",
    "serialize_keras_object",
    "normalize",
    "pack_x_y_sample_weight",
    "unpack_x_y_sample_weight",
    "pad_sequences",
    "set_random_seed",
    "to_categorical",
    "array_to_img",
    "img_to_array",
    "load_img",
    "save_img",
    "audio_dataset_from_directory",
    "image_dataset_from_directory",
    "split_dataset",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
    "get_file",
    "model_to_dot",
    "model_to_svg",
    "plot_model",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "Config",
    "Progbar",
    "Sequence",
    "clear_session",
    "get_custom_objects",
    "get_source_inputs",
    "is_keras_tensor",
    "standardize_dtype",
]

# Names defined in packages that import lamina.utils themselves: loaded on first use.
_LATE = {
    "FeatureSpace": ("lamina.utils.feature_space", "FeatureSpace"),
    "Progbar": ("lamina.callbacks.progbar", "Progbar"),
    "clear_session": ("lamina.backend", "clear_session"),
    "is_keras_tensor": ("lamina.graph.keras_tensor", "is_keras_tensor"),
    "standardize_dtype": ("lamina.backend.common.variables", "standardize_dtype"),
}


def __getattr__(name):
    # FeatureSpace is built from lamina.layers, which imports lamina.utils: load it late.
    if name in _LATE:
        import importlib

        module, attribute = _LATE[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'lamina.utils' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LATE))
