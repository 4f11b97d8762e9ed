"""The global flash-attention switch, as in `keras.config` (public as
`lamina.config.enable_flash_attention` and its siblings; attention layers read it here).

Keras keeps one process-wide setting that attention layers read when their own
`flash_attention` argument is `None`. It has two states that users can set: `None`
("auto": use a flash kernel when the engine, device and inputs allow it; the default,
and what `enable_flash_attention()` restores) and `False` (never).

lamina has no fused flash-attention kernel on any engine or device, so "auto" always
computes ordinary attention (the same numbers), and an explicit `flash_attention=True`
on `ops.dot_product_attention`, `MultiHeadAttention` or `GroupQueryAttention` is an
error, as it is in Keras on a CPU (where no such kernel exists either). Like Keras,
`clear_session()` resets the switch to `None`.

>>> from lamina import config
>>> config.disable_flash_attention()
>>> config.is_flash_attention_enabled()
False
>>> config.enable_flash_attention()
>>> config.is_flash_attention_enabled() is None
True
"""

from __future__ import annotations

from lamina.backend.common.global_state import register_reset_hook

# One cell so the functions below share the process-wide value. `None` is Keras's
# default ("auto"); `enable_flash_attention` also sets `None`, not `True`.
_FLASH_ATTENTION: list = [None]


def enable_flash_attention() -> None:
    """Let attention layers use flash attention where they can (Keras's default).

    Sets the global state back to `None` ("auto"), exactly as
    `keras.config.enable_flash_attention` does. lamina has no flash kernel, so layers
    then compute ordinary attention; see the module docstring.

    >>> enable_flash_attention()
    >>> is_flash_attention_enabled() is None  # "auto", the default
    True
    """
    _FLASH_ATTENTION[0] = None


def disable_flash_attention() -> None:
    """Tell attention layers never to use flash attention (the state becomes `False`).

    >>> disable_flash_attention()
    >>> is_flash_attention_enabled()
    False
    >>> enable_flash_attention()  # back to the default
    """
    _FLASH_ATTENTION[0] = False


def is_flash_attention_enabled() -> bool | None:
    """The global flash-attention state: `None` ("auto", the default) or `False`.

    As in Keras, `False` means disabled and anything else means enabled; a layer built
    with `flash_attention=None` takes this value.

    Returns:
        `None` after `enable_flash_attention()` (and by default), `False` after
        `disable_flash_attention()`.

    >>> is_flash_attention_enabled() in (None, False)  # not asked for
    True
    """
    return _FLASH_ATTENTION[0]


# Keras keeps the setting in its session state, so `clear_session()` restores "auto".
register_reset_hook(enable_flash_attention)
