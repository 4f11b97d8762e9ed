"""Data and model parallelism with Keras 3's `keras.distribution` API (see
`distribution_lib`)."""

from lamina.distribution.distribution_lib import (
    DataParallel,
    DeviceMesh,
    Distribution,
    LayoutMap,
    ModelParallel,
    TensorLayout,
    distribute_tensor,
    distribution,
    get_device_count,
    initialize,
    list_devices,
    set_distribution,
)

__all__ = [
    "DataParallel",
    "DeviceMesh",
    "Distribution",
    "LayoutMap",
    "ModelParallel",
    "TensorLayout",
    "distribute_tensor",
    "distribution",
    "get_device_count",
    "initialize",
    "list_devices",
    "set_distribution",
]
