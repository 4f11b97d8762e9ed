"""Utilities: seeding, serialization, and data helpers (`to_categorical`, `normalize`,
`pad_sequences`), as `keras.utils`.

The high-level utilities (datasets from directories, `get_file`, `plot_model`,
`FeatureSpace`, ...) live here; the low helpers every floor uses (the serialization
registry, `PyDataset`, interactive logging, `unpack_x_y_sample_weight`) live in
`lamina.common`, and this package re-exports their public names at Keras's paths.
"""

from lamina.backend import clear_session
from lamina.backend.common.variables import standardize_dtype
from lamina.callbacks.progbar import Progbar
from lamina.common.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from lamina.common.io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from lamina.common.object_registration import get_custom_objects
from lamina.common.py_dataset import PyDataset
from lamina.common.py_dataset import PyDataset as Sequence  # Keras's older name
from lamina.common.serialization import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    register_serializable,
    serialize_keras_object,
)
from lamina.graph.keras_tensor import is_keras_tensor
from lamina.utils import bounding_boxes as bounding_boxes  # the keras.utils submodule

# Classic Keras's module paths (`keras.utils.np_utils.to_categorical`, ...): thin
# modules over lamina's own functions, attributes here as in Keras 2.
from lamina.utils import (  # noqa: F401
    conv_utils,
    data_utils,
    generic_utils,
    io_utils,
    np_utils,
    vis_utils,
)
from lamina.utils import legacy as legacy  # keras.utils.legacy: Keras 2 configs
from lamina.utils.audio_dataset import audio_dataset_from_directory
from lamina.utils.config import Config
from lamina.utils.data_utils import GeneratorEnqueuer, OrderedEnqueuer, SequenceEnqueuer
from lamina.utils.dataset_utils import split_dataset
from lamina.utils.feature_space import FeatureSpace
from lamina.utils.file_utils import get_file
from lamina.utils.graph_utils import get_source_inputs
from lamina.utils.image_dataset import image_dataset_from_directory
from lamina.utils.image_utils import array_to_img, img_to_array, load_img, save_img
from lamina.utils.io_utils import HDF5Matrix
from lamina.utils.model_visualization import model_to_dot, model_to_svg, plot_model
from lamina.utils.numerical import normalize, to_categorical
from lamina.utils.random import set_random_seed
from lamina.utils.sequence import pad_sequences
from lamina.utils.text_dataset import text_dataset_from_directory
from lamina.utils.timeseries_dataset import timeseries_dataset_from_array

__all__ = [
    "FeatureSpace",
    "GeneratorEnqueuer",
    "HDF5Matrix",
    "OrderedEnqueuer",
    "SequenceEnqueuer",
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
