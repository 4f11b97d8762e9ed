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
