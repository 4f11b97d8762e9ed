"""int64 NumPy data as each engine's steps receive it, as Keras 3 hands it over there.

Keras 3 on torch gives a `train_step` int64 batches for int64 data (NumPy's default
integer), and a torch user's own code relies on it: `torch.nn.functional.cross_entropy`
refuses int32 labels. On JAX, which runs without 64-bit types, the same data arrives as
int32 in Keras and in lamina. Float64 data is float32 on both (Keras's data adapter casts
it). Every path data takes to a step is tried: arrays (batch by batch, and held on the
device), several batches per call, a generator, a `PyDataset`, the `*_on_batch` calls,
`evaluate` and `predict`.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import backend, layers
from lamina.training import data_adapter

# What Keras 3 gives a step for int64 data on each engine (checked against Keras 3.15:
# torch.int64 on its torch backend, int32 on JAX).
EXPECTED = {"torch": "int64", "jax": "int32"}[backend.backend()]

RNG = np.random.default_rng(0)
X = RNG.integers(0, 10, (12, 3))  # int64, as NumPy makes integers
Y = RNG.integers(0, 2, 12)


class Recording(lamina.Model):
    """A functional model that notes the dtypes its steps receive."""

    seen: dict

    def train_step(self, *args):
        self._note("train", args[-1])
        return super().train_step(*args)

    def test_step(self, *args):
        self._note("test", args[-1])
        return super().test_step(*args)

    def predict_step(self, *args):
        self._note("predict", args[-1])
        return super().predict_step(*args)

    def _note(self, kind, data):
        x, y, _ = lamina.utils.unpack_x_y_sample_weight(data)
        self.seen[kind] = (
            backend.standardize_dtype(x.dtype),
            None if y is None else backend.standardize_dtype(y.dtype),
        )


def _model(**compile_kwargs):
    inputs = lamina.Input((3,), dtype="int64")
    hidden = layers.Flatten()(layers.Embedding(10, 4)(inputs))
    model = Recording(inputs, layers.Dense(2)(hidden))
    model.seen = {}
    model.compile(
        "sgd",
        lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["sparse_categorical_accuracy"],
        **compile_kwargs,
    )
    return model


def _expected_loss(model, x, y):
    """Mean sparse cross-entropy of the model's logits, in NumPy."""
    logits = np.asarray(model.predict(x, verbose=0), "float64")
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(y)), y].mean()


@pytest.mark.parametrize("resident", [False, True])
@pytest.mark.parametrize("steps_per_execution", [1, 2])
def test_array_data_reaches_the_steps_as_keras_gives_it(monkeypatch, resident, steps_per_execution):
    monkeypatch.setattr(data_adapter, "RESIDENT_BYTES", 2**30 if resident else 0)
    model = _model(steps_per_execution=steps_per_execution)
    model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
    logs = model.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True)
    model.predict(X, batch_size=4, verbose=0)
    if steps_per_execution == 1:
        assert model.seen == {
            "train": (EXPECTED, EXPECTED),
            "test": (EXPECTED, EXPECTED),
            "predict": (EXPECTED, None),
        }
    # The loss and accuracy of int64 labels, against NumPy on the model's own logits.
    np.testing.assert_allclose(logs["loss"], _expected_loss(model, X, Y), rtol=1e-5)
    hits = np.argmax(model.predict(X, verbose=0), axis=1) == Y
    np.testing.assert_allclose(logs["sparse_categorical_accuracy"], hits.mean(), rtol=1e-6)


def test_generator_pydataset_and_on_batch_data_arrive_alike():
    model = _model()

    def batches():
        for start in range(0, 12, 4):
            yield X[start : start + 4], Y[start : start + 4]

    model.fit(batches(), epochs=1, verbose=0)
    assert model.seen["train"] == (EXPECTED, EXPECTED)

    class Batches(lamina.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return X[4 * i : 4 * i + 4], Y[4 * i : 4 * i + 4]

    model.evaluate(Batches(), verbose=0)
    assert model.seen["test"] == (EXPECTED, EXPECTED)
    model = _model()  # (JAX notes a step's dtypes when it traces: a new model traces again)
    model.train_on_batch(X[:4], Y[:4])
    model.test_on_batch(X[:4], Y[:4])
    model.predict_on_batch(X[:4])
    assert model.seen == {
        "train": (EXPECTED, EXPECTED),
        "test": (EXPECTED, EXPECTED),
        "predict": (EXPECTED, None),
    }


def test_float64_data_becomes_float32_on_every_engine():
    inputs = lamina.Input((3,))
    model = Recording(inputs, layers.Dense(1)(inputs))
    model.seen = {}
    model.compile("sgd", "mse")
    model.fit(RNG.random((8, 3)), RNG.random((8, 1)), verbose=0)
    assert model.seen["train"] == ("float32", "float32")


@pytest.mark.engine("torch")
def test_a_torch_loss_on_the_labels_runs_in_fit_and_evaluate_as_on_keras():
    # A Keras-on-torch program: its own `compute_loss` with torch's cross-entropy, which
    # takes int64 labels only (int32 ones raise "expected target dtype to be Long").
    import torch

    class TorchLoss(lamina.Model):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            return torch.nn.functional.cross_entropy(y_pred, y)

    inputs = lamina.Input((4,))
    model = TorchLoss(inputs, layers.Dense(3)(inputs))
    model.compile("sgd")
    x = RNG.random((16, 4)).astype("float32")
    y = RNG.integers(0, 3, 16)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    logits = torch.from_numpy(np.asarray(model.predict(x, verbose=0)))
    expected = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y)).item()
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=16, verbose=0), expected, rtol=1e-5)
