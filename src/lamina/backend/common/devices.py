"""Device names, as `lamina.device` takes them: `"cpu"`, `"cpu:0"`, `"gpu:1"`, `"cuda:0"`.

The engines place tensors (`backend/<engine>/core.py`, `device_scope`); this module
reads the name the same way for all of them.

>>> from lamina.backend.common.devices import parse_device_name
>>> parse_device_name("GPU:1"), parse_device_name("cuda"), parse_device_name("cpu")
(('gpu', 1), ('gpu', 0), ('cpu', 0))
"""

from __future__ import annotations

import re

# `cuda` is torch's word for a GPU; Keras's torch backend maps `gpu` to it.
_KINDS = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "tpu": "tpu"}
VALID_FORMS = (
    '"cpu", "gpu" or "tpu", optionally with a device index ("cpu:0", "gpu:1"); '
    '"cuda" and "cuda:<index>" are the same as "gpu"'
)


def parse_device_name(device_name) -> tuple[str, int]:
    """`(kind, index)` for a device name: kind `"cpu"`, `"gpu"` or `"tpu"`, index >= 0."""
    if isinstance(device_name, str):
        found = re.fullmatch(r"\s*([a-zA-Z]+)\s*(?::\s*(\d+))?\s*", device_name)
        if found and found.group(1).lower() in _KINDS:
            return _KINDS[found.group(1).lower()], int(found.group(2) or 0)
    raise ValueError(
        f"Unknown device name {device_name!r}. Expected {VALID_FORMS}; for example "
        'lamina.device("cpu:0") or lamina.device("gpu:0").'
    )


def unavailable(device_name, available: list[str]) -> ValueError:
    """The error for a well-formed device name that this machine does not have."""
    return ValueError(
        f"Device {device_name!r} is not available here; the available devices are "
        f"{available}. Pass one of them (for example lamina.device({available[0]!r}))."
    )
