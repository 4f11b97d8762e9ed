"""Global numeric configuration shared by every engine: float type, fuzz factor, image layout."""

from __future__ import annotations

import os

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_BACKEND = os.environ.get("LAMINA_BACKEND", "jax").strip().lower() or "jax"

_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
_DATA_FORMATS = ("channels_last", "channels_first")


def backend() -> str:
    """Name of the engine in use (`"jax"` unless `LAMINA_BACKEND` says otherwise)."""
    return _BACKEND


def floatx() -> str:
    """The default float dtype, as a string such as `"float32"`."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float dtype (`"float16"`, `"bfloat16"`, `"float32"`, `"float64"`)."""
    global _FLOATX
    value = str(value)
    if value not in _FLOAT_TYPES:
        raise ValueError(f"Unknown floatx {value!r}. Expected one of {list(_FLOAT_TYPES)}.")
    _FLOATX = value


def epsilon() -> float:
    """The fuzz factor used to avoid division by zero (default `1e-7`)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Set the fuzz factor returned by `epsilon()`."""
    global _EPSILON
    _EPSILON = float(value)


def image_data_format() -> str:
    """The default image layout: `"channels_last"` or `"channels_first"`."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Set the default image layout (`"channels_last"` or `"channels_first"`)."""
    global _IMAGE_DATA_FORMAT
    value = str(data_format).lower()
    if value not in _DATA_FORMATS:
        raise ValueError(
            f"Unknown data_format {data_format!r}. Expected one of {list(_DATA_FORMATS)}."
        )
    _IMAGE_DATA_FORMAT = value


def standardize_data_format(data_format: str | None) -> str:
    """Resolve `None` to the global default and validate the value."""
    if data_format is None:
        return image_data_format()
    value = str(data_format).lower()
    if value not in _DATA_FORMATS:
        raise ValueError(
            f"Unknown data_format {data_format!r}. Expected one of {list(_DATA_FORMATS)}."
        )
    return value
