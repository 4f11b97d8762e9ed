"""A layer subclass's `build`, wrapped to run inside the layer's name scope."""

from __future__ import annotations

import functools


def scoped_build(build):
    """`build` run inside the layer's name scope (Layer subclasses' `build`s get it), so
    a direct `layer.build(shape)` names the sublayers it builds as a call would.

    As Keras's build wrapper, the outermost `build` (not a `super().build` inside one)
    leaves the layer built, with its build shape recorded, even when the subclass's
    `build` does not set `self.built`: a layer built by a direct `layer.build(shape)` is
    not built again (with new weights) by its first call."""

    @functools.wraps(build)
    def scoped(self, *args, **kwargs):
        state = self.__dict__
        depth = state.get("_build_depth", 0)
        state["_build_depth"] = depth + 1
        try:
            with self._open_name_scope():
                out = build(self, *args, **kwargs)
        finally:
            state["_build_depth"] = depth
        if depth == 0:
            if self._build_shapes is None and len(args) == 1 and not kwargs:
                self._build_shapes = args[0]  # what `get_build_config` saves
            self.built = True
        return out

    scoped._opens_name_scope = True
    return scoped


def build_on_first_call(layer, inputs, shapes) -> None:
    """How `Layer._maybe_build` builds a layer on its first call: `build(shapes)`. (A
    subclassed `Model` builds on the data instead; see `Model._build_on_first_call`.)"""
    del inputs
    layer.build(shapes)
