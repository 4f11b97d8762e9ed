"""`fit`, `evaluate`, `predict` and the `*_on_batch` methods build a subclassed model
from the data's own batches (issue 38 item 4).

A `call` built around the batch size (noise of shape `(self.batch_size, 1)`, common in
diffusion and contrastive models) must only ever see real batch sizes, as in Keras 3,
which builds from the first batch; lamina once found the output structure by abstract
evaluation with stand-in batch sizes. Each case records the batch sizes `call` saw and
compares them, and the losses, with Keras. A functional graph keeps its `None` batch.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

BATCH = 4
X = np.linspace(-1.0, 1.0, 8 * 3, dtype="float32").reshape(8, 3)
Y = np.linspace(0.0, 1.0, 8, dtype="float32").reshape(8, 1)


def fixed_batch_model(mod):
    """`call` adds an offset of the fixed shape `(batch_size, 1)` and records the batch
    sizes it is called with (a traced call sees the same concrete sizes)."""

    class FixedBatch(mod.Model):
        def __init__(self, batch_size):
            super().__init__()
            self.batch_size = batch_size
            self.dense = mod.layers.Dense(1, kernel_initializer="ones")
            self.seen = set()

        def call(self, x):
            self.seen.add(x.shape[0])
            offset = mod.ops.full((self.batch_size, 1), 0.5)
            return self.dense(x) + offset

    return FixedBatch(BATCH)


def _run(mod, how):
    model = fixed_batch_model(mod)
    model.compile(optimizer=mod.optimizers.SGD(0.05), loss="mse")
    if how == "fit":
        out = model.fit(X, Y, batch_size=BATCH, epochs=2, verbose=0, shuffle=False)
        out = out.history["loss"]
    elif how == "evaluate":
        out = model.evaluate(X, Y, batch_size=BATCH, verbose=0)
    elif how == "predict":
        out = model.predict(X, batch_size=BATCH, verbose=0)
    elif how == "train_on_batch":
        out = [model.train_on_batch(X[:BATCH], Y[:BATCH]) for _ in range(2)]
    elif how == "test_on_batch":
        out = model.test_on_batch(X[:BATCH], Y[:BATCH])
    else:
        out = model.predict_on_batch(X[:BATCH])
    return np.asarray(ops.convert_to_numpy(out) if mod is lamina else out), model.seen


@pytest.mark.parametrize(
    "how", ["fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch"]
)
def test_subclassed_call_sees_only_real_batch_sizes(how):
    ours, seen = _run(lamina, how)
    theirs, keras_seen = _run(keras, how)
    assert seen == keras_seen == {BATCH}
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_a_dataset_of_batches_builds_from_its_first_batch():
    def batches():
        for start in range(0, 8, BATCH):
            yield X[start : start + BATCH], Y[start : start + BATCH]

    model = fixed_batch_model(lamina)
    model.compile(optimizer="sgd", loss="mse")
    model.fit(batches(), epochs=1, steps_per_epoch=2, verbose=0)
    assert model.seen == {BATCH}


def test_functional_graph_keeps_its_unknown_batch():
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, lamina.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y, batch_size=BATCH, epochs=1, verbose=0)
    assert model.output.shape == (None, 1)
    assert model.predict(X[:3], verbose=0).shape == (3, 1)
