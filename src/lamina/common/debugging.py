"""Switches for debugging runs: caps on `fit`'s epochs and steps, and input checks.

Users set them through `lamina.config` (`lamina.config.set_max_epochs`, ...); `fit`,
`evaluate` and `predict` read them here.

The caps are Keras 3's: `set_max_epochs(n)` makes every `fit` run at most `n` epochs,
`set_max_steps_per_epoch(n)` makes every epoch of `fit` (and every `evaluate` and
`predict` pass) take at most `n` batches, each with a warning when it shortens a run.
They let a long script be smoke-tested without editing it, also through the
environment variables `LAMINA_MAX_EPOCHS` and `LAMINA_MAX_STEPS_PER_EPOCH` (Keras's
`KERAS_MAX_EPOCHS` and `KERAS_MAX_STEPS_PER_EPOCH` are read too, so a Keras job's
settings carry over).

Input checks are lamina's own, off by default as they cost a pass over the data:
`enable_input_checks()` makes `fit`, `evaluate`, `predict` and the `*_on_batch` methods
refuse inputs, targets and sample weights holding NaN or infinity, naming the array,
the batch (for generators) and the first bad position, before the batch reaches a step.
They play the part of `jax_debug_nans` or TensorFlow's `enable_check_numerics` for the
data side, where a NaN loss most often starts. `LAMINA_CHECK_INPUTS=1` turns them on.
"""

from __future__ import annotations

import os


def _from_environment(*names: str):
    for name in names:
        value = os.environ.get(name)
        if value:
            try:
                return int(value)
            except ValueError:
                raise ValueError(
                    f"The environment variable {name}={value!r} must be a positive integer."
                ) from None
    return None


_STATE = {
    "max_epochs": _from_environment("LAMINA_MAX_EPOCHS", "KERAS_MAX_EPOCHS"),
    "max_steps_per_epoch": _from_environment(
        "LAMINA_MAX_STEPS_PER_EPOCH", "KERAS_MAX_STEPS_PER_EPOCH"
    ),
    "input_checks": os.environ.get("LAMINA_CHECK_INPUTS", "").lower() in ("1", "true"),
}


def _check_cap(value, what: str):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} takes a positive int or None (no limit); received {value!r}.")
    return value


def set_max_epochs(max_epochs: int | None) -> None:
    """Cap the number of epochs of every `fit` (for debugging runs).

    A `fit` asking for more epochs runs `max_epochs` of them, with a warning.

    Args:
        max_epochs: the most epochs any `fit` runs, or `None` for no limit.

    >>> set_max_epochs(2)
    >>> max_epochs()
    2
    >>> set_max_epochs(None)
    """
    _STATE["max_epochs"] = _check_cap(max_epochs, "set_max_epochs")


def max_epochs() -> int | None:
    """The cap on `fit`'s epochs set by `set_max_epochs` (or the environment), or None.

    Returns:
        The integer limit, or `None` when there is none.

    >>> set_max_epochs(2)
    >>> max_epochs()
    2
    >>> set_max_epochs(None)
    """
    return _STATE["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch: int | None) -> None:
    """Cap the batches of each epoch of `fit`, and of `evaluate` and `predict`.

    A pass that would take more batches takes the first `max_steps_per_epoch`, with a
    warning (the next epoch of `fit` continues where the last one stopped, as with
    `steps_per_epoch`).

    Args:
        max_steps_per_epoch: the most batches per epoch, or `None` for no limit.

    >>> set_max_steps_per_epoch(2)  # a quick run of a script: two batches per epoch
    >>> max_steps_per_epoch()
    2
    >>> set_max_steps_per_epoch(None)
    """
    _STATE["max_steps_per_epoch"] = _check_cap(max_steps_per_epoch, "set_max_steps_per_epoch")


def max_steps_per_epoch() -> int | None:
    """The cap set by `set_max_steps_per_epoch` (or the environment), or None.

    Returns:
        The integer limit, or `None` when there is none.

    >>> max_steps_per_epoch() is None
    True
    """
    return _STATE["max_steps_per_epoch"]


def enable_input_checks() -> None:
    """Refuse NaN and infinite values in the data given to `fit`, `evaluate`, `predict`.

    Arrays are checked once, when the call starts; a generator's or PyDataset's
    batches one by one, as they arrive. The error names the array (`x`, `y`,
    `sample_weight`, or an entry of them), the batch for a generator, and the first bad
    position. Off by default (Keras does not check): it costs one pass over the data.

    >>> enable_input_checks()
    >>> is_input_checks_enabled()
    True
    >>> disable_input_checks()
    """
    _STATE["input_checks"] = True


def disable_input_checks() -> None:
    """Turn the NaN/infinity checks of `enable_input_checks` off (the default).

    >>> disable_input_checks()
    >>> is_input_checks_enabled()
    False
    """
    _STATE["input_checks"] = False


def is_input_checks_enabled() -> bool:
    """Whether `fit`, `evaluate` and `predict` check their data for NaN and infinity.

    Returns:
        True after `enable_input_checks()` (or with `LAMINA_CHECK_INPUTS=1`).

    >>> is_input_checks_enabled()
    False
    """
    return _STATE["input_checks"]
