"""The JAX engine's base of every `Layer`: nothing to add (a JAX model is plain Python)."""

from __future__ import annotations


class LayerBase:
    """Engine behaviour mixed into `Layer`; on JAX there is none."""

    __slots__ = ()
