"""Data from the torch world on either engine: torch tensors and `DataLoader`s feed
`fit`, `evaluate` and `predict` exactly as the same NumPy arrays would."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

X = np.random.RandomState(0).rand(40, 4).astype("float32")
Y = (X.sum(axis=1) > 2).astype("int32")


def _model():
    lamina.utils.set_random_seed(1)
    inp = lamina.Input((4,))
    model = lamina.Model(inp, lamina.layers.Dense(2, activation="softmax")(inp))
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def _loader(*arrays, **kwargs):
    return DataLoader(TensorDataset(*(torch.from_numpy(a) for a in arrays)), **kwargs)


def _fit_arrays():
    model = _model()
    history = model.fit(X, Y, batch_size=8, shuffle=False, epochs=2, verbose=0).history
    return model, history


def test_fit_on_a_dataloader_equals_fit_on_the_arrays():
    reference, expected = _fit_arrays()
    model = _model()
    history = model.fit(_loader(X, Y, batch_size=8), epochs=2, verbose=0).history
    np.testing.assert_allclose(history["loss"], expected["loss"], rtol=1e-6)
    np.testing.assert_allclose(history["accuracy"], expected["accuracy"])
    for a, b in zip(model.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_torch_tensors_are_arrays():
    _, expected = _fit_arrays()
    model = _model()
    history = model.fit(
        torch.from_numpy(X), torch.from_numpy(Y), batch_size=8, shuffle=False, epochs=2, verbose=0
    ).history
    np.testing.assert_allclose(history["loss"], expected["loss"], rtol=1e-6)
    out = model.predict(torch.from_numpy(X), verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (40, 2)


def test_evaluate_and_predict_on_dataloaders():
    model, _ = _fit_arrays()
    expected = model.evaluate(X, Y, batch_size=8, verbose=0)
    got = model.evaluate(_loader(X, Y, batch_size=8), verbose=0)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    # A dataset of inputs only yields one-element lists: they are the inputs.
    np.testing.assert_allclose(
        model.predict(_loader(X, batch_size=8), verbose=0),
        ops.convert_to_numpy(model.predict(X, batch_size=8, verbose=0)),
        rtol=1e-6,
    )


def test_a_shuffling_loader_with_a_seeded_generator_is_reproducible():
    def run():
        model = _model()
        loader = _loader(
            X, Y, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(3)
        )
        return model.fit(loader, epochs=3, verbose=0).history["loss"]

    first, second = run(), run()
    np.testing.assert_array_equal(first, second)
    _, unshuffled = _fit_arrays()
    assert not np.allclose(first[:2], unshuffled["loss"])  # it did shuffle


def test_steps_per_epoch_continues_through_the_loader():
    model = _model()
    history = model.fit(_loader(X, Y, batch_size=8), steps_per_epoch=3, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    # The second epoch continues the loader's pass (batches 4 and 5 of 5), as Keras does.
    assert int(ops.convert_to_numpy(model.optimizer.iterations.value)) == 5


def test_steps_per_epoch_starts_a_new_pass_once_the_loader_is_used_up():
    # As with arrays (and in Keras 3): epoch 1 ends with the pass (batches 3-4), epoch 2
    # starts a second pass, so 4 epochs of 3 steps over 5 batches take 3+2+3+2 steps.
    loader_model = _model()
    loader_model.fit(_loader(X, Y, batch_size=8), steps_per_epoch=3, epochs=4, verbose=0)
    assert int(ops.convert_to_numpy(loader_model.optimizer.iterations.value)) == 10
    array_model = _model()
    array_model.fit(X, Y, batch_size=8, shuffle=False, steps_per_epoch=3, epochs=4, verbose=0)
    for a, b in zip(loader_model.get_weights(), array_model.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_generator_yielding_lists_gives_x_and_y_as_keras_reads_them():
    def batches():
        for i in range(0, 40, 8):
            yield [X[i : i + 8], Y[i : i + 8]]

    _, expected = _fit_arrays()
    model = _model()
    history = model.fit(batches(), epochs=1, verbose=0).history
    np.testing.assert_allclose(history["loss"][0], expected["loss"][0], rtol=1e-6)
