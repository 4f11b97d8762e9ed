"""Every public op that Keras 3 also has takes Keras's parameters (names, order, defaults).

Keras is a test-only reference here: a call written for `keras.ops` must mean the same to
`lamina.ops`.
"""

from __future__ import annotations

import inspect
import os

import pytest

from lamina import ops

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras parameters lamina leaves out, each with why. The lamina signature must still be
# Keras's with these removed.
KERAS_ONLY: dict[str, set] = {}
# lamina ops Keras 3 does not have.
LAMINA_ONLY = {
    "mish",
    "result_type",
    "random.draw_seed",
    "random.global_seed_generator",
    "random.portable_normal",
    "random.portable_truncated_normal",
    "random.portable_uniform",
    "random.set_global_seed",
}


def _pairs():
    for name in ops.__all__:
        obj = getattr(ops, name)
        if callable(obj) and not inspect.ismodule(obj):
            yield name, obj, getattr(keras.ops, name, None)
    for name in ops.image.__all__:
        yield f"image.{name}", getattr(ops.image, name), getattr(keras.ops.image, name, None)
    for name in ops.random.__all__:
        yield f"random.{name}", getattr(ops.random, name), getattr(keras.random, name, None)


PAIRS = sorted(_pairs(), key=lambda p: p[0])


def _params(fn, leave_out=()):
    return [
        (p.name, p.kind, p.default)
        for p in inspect.signature(fn).parameters.values()
        if p.name not in leave_out
    ]


@pytest.mark.parametrize("name, op, keras_op", PAIRS, ids=[p[0] for p in PAIRS])
def test_signature_matches_keras(name, op, keras_op):
    if keras_op is None:
        assert name in LAMINA_ONLY, f"lamina.ops.{name} is not in Keras; list it in LAMINA_ONLY"
        return
    assert name not in LAMINA_ONLY
    expected = _params(keras_op, KERAS_ONLY.get(name, ()))
    assert _params(op) == expected, (
        f"lamina.ops.{name}{inspect.signature(op)} differs from Keras's "
        f"{inspect.signature(keras_op)}"
    )
