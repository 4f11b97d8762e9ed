"""Repeated `predict` / `evaluate` / `model(x)` calls leave no objects behind for the
cyclic garbage collector to promote.

An object the collector tracks that is still alive when a young collection runs moves to
an older generation; once enough have moved, a full collection walks every object alive
(the engine's too: ~100 ms on the CPU), a pause of several calls. `predict` once held
every call's engine arrays (tracked objects, about three per batch) until its pass
ended, and such a pause came every few hundred calls (issue 35). Here the young
collections run often (every 50 new objects) and the older ones never, so what a pass
leaves in the second generation is exactly what it promoted.
"""

import gc

import numpy as np
import pytest

from lamina import Input, Sequential, layers

BATCHES = 300


@pytest.fixture(scope="module")
def model():
    model = Sequential([Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def _promoted(call) -> int:
    """The most objects that sat in the second generation, beyond those there before,
    after any young collection during `call()`."""
    call()  # compiled, caches filled
    gc.collect()
    threshold = gc.get_threshold()
    before = len(gc.get_objects(1))
    most = [0]

    def watch(phase, info):
        if phase == "stop" and info["generation"] == 0:
            most[0] = max(most[0], len(gc.get_objects(1)) - before)

    gc.callbacks.append(watch)
    gc.set_threshold(50, 10**9, 10**9)
    try:
        call()
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(watch)
    return most[0]


@pytest.mark.parametrize("kind", ["predict", "evaluate"])
def test_a_pass_promotes_no_objects_per_batch(model, kind):
    x = np.random.default_rng(0).random((BATCHES * 8, 4), dtype=np.float32)
    if kind == "predict":
        promoted = _promoted(lambda: model.predict(x, batch_size=8, verbose=0))
    else:
        y = np.zeros((BATCHES * 8, 2), "float32")
        promoted = _promoted(lambda: model.evaluate(x, y, batch_size=8, verbose=0))
    # A pass's own few objects (the batches' source, the result), not some per batch.
    assert promoted < BATCHES // 3, promoted


def test_model_calls_promote_no_objects(model):
    x = np.ones((8, 4), "float32")

    def calls():
        for _ in range(BATCHES):
            model(x)

    assert _promoted(calls) < BATCHES // 3
