"""Global numeric configuration shared by every engine: float type, fuzz factor, image layout."""

from __future__ import annotations

import os

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"

_BACKENDS = ("jax", "torch")


def _choose_backend() -> str:
    """`LAMINA_BACKEND`, else `KERAS_BACKEND` when it names one of our engines, else jax."""
    name = os.environ.get("LAMINA_BACKEND", "").strip().lower()
    if name:
        if name not in _BACKENDS:
            raise ValueError(
                f"Unknown LAMINA_BACKEND {name!r}. Available backends: {list(_BACKENDS)}. "
                "Set LAMINA_BACKEND to one of them, or unset it for the default ('jax')."
            )
        return name
    keras_name = os.environ.get("KERAS_BACKEND", "").strip().lower()
    # Keras's other engines (tensorflow, numpy, openvino) are not ours: keep the default.
    return keras_name if keras_name in _BACKENDS else "jax"


_BACKEND = _choose_backend()

_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
_DATA_FORMATS = ("channels_last", "channels_first")


def backend() -> str:
    """Name of the engine in use: `"jax"` (the default) or `"torch"`.

    Chosen once, at import, from `LAMINA_BACKEND`, or from `KERAS_BACKEND` when
    `LAMINA_BACKEND` is unset and `KERAS_BACKEND` names `"jax"` or `"torch"`.

    >>> backend() in ("jax", "torch")
    True
    """
    return _BACKEND


def floatx() -> str:
    """The default float dtype, as a string such as `"float32"`.

    >>> floatx()
    'float32'
    """
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float dtype (`"float16"`, `"bfloat16"`, `"float32"`, `"float64"`).

    >>> set_floatx("float64")
    >>> floatx()
    'float64'
    >>> set_floatx("float32")
    """
    global _FLOATX
    value = str(value)
    if value not in _FLOAT_TYPES:
        raise ValueError(f"Unknown floatx {value!r}. Expected one of {list(_FLOAT_TYPES)}.")
    _FLOATX = value


def epsilon() -> float:
    """The fuzz factor used to avoid division by zero (default `1e-7`).

    >>> epsilon()
    1e-07
    """
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Set the fuzz factor returned by `epsilon()`.

    >>> set_epsilon(1e-5)
    >>> epsilon()
    1e-05
    >>> set_epsilon(1e-7)
    """
    global _EPSILON
    _EPSILON = float(value)


def image_data_format() -> str:
    """The default image layout: `"channels_last"` or `"channels_first"`.

    >>> image_data_format()
    'channels_last'
    """
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Set the default image layout (`"channels_last"` or `"channels_first"`).

    >>> set_image_data_format("channels_first")
    >>> image_data_format()
    'channels_first'
    >>> set_image_data_format("channels_last")
    """
    global _IMAGE_DATA_FORMAT
    value = str(data_format).lower()
    if value not in _DATA_FORMATS:
        raise ValueError(
            f"Unknown data_format {data_format!r}. Expected one of {list(_DATA_FORMATS)}."
        )
    _IMAGE_DATA_FORMAT = value


def standardize_data_format(data_format: str | None) -> str:
    """Resolve `None` to the global default and validate the value.

    >>> from lamina import backend
    >>> backend.standardize_data_format(None), backend.standardize_data_format("Channels_First")
    ('channels_last', 'channels_first')
    """
    if data_format is None:
        return image_data_format()
    value = str(data_format).lower()
    if value not in _DATA_FORMATS:
        raise ValueError(
            f"Unknown data_format {data_format!r}. Expected one of {list(_DATA_FORMATS)}."
        )
    return value
