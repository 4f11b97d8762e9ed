"""A layer subclass's `build`, wrapped to run inside the layer's name scope."""

from __future__ import annotations

import functools


def scoped_build(build):
    """`build` run inside the layer's name scope (Layer subclasses' `build`s get it), so
    a direct `layer.build(shape)` names the sublayers it builds as a call would."""

    @functools.wraps(build)
    def scoped(self, *args, **kwargs):
        with self._open_name_scope():
            return build(self, *args, **kwargs)

    scoped._opens_name_scope = True
    return scoped


def build_on_first_call(layer, inputs, shapes) -> None:
    """How `Layer._maybe_build` builds a layer on its first call: `build(shapes)`. (A
    subclassed `Model` builds on the data instead; see `Model._build_on_first_call`.)"""
    del inputs
    layer.build(shapes)
