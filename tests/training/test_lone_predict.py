"""A one-sample `predict` repeated on a plain NumPy batch takes a shorter path.

From a signature's first calls on, `predict(x)` with one ready NumPy batch, no callbacks
and `verbose=0` calls the engine's program for that signature directly
(`Program.lone_runner`): the serving call, where each microsecond shows. These tests pin
that the path is taken and that it never gives another answer than the ordinary one: it
follows the weights through `fit` and `set_weights`, keeps the seed state a layer
advances at inference, and steps aside for another shape, input checks and profiling.
"""

import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, layers, ops
from lamina.training import batch_methods

RNG = np.random.default_rng(0)


def _mlp():
    lamina.utils.set_random_seed(0)
    model = Sequential([Input((6,)), layers.Dense(5, activation="relu"), layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def _numpy_forward(model, x):
    (w1, b1), (w2, b2) = [layer.get_weights() for layer in model.layers]
    return np.maximum(x @ w1 + b1, 0.0) @ w2 + b2


@pytest.fixture
def ordinary_calls(monkeypatch):
    """Counts the predicts that went the ordinary way (which packs the batch)."""

    def spy(model):
        calls = []
        original = batch_methods.predict_step_data
        monkeypatch.setattr(
            batch_methods, "predict_step_data", lambda m: calls.append(1) or original(m)
        )
        return calls

    return spy


def test_the_short_path_is_taken_and_follows_the_weights(ordinary_calls):
    model = _mlp()
    x = RNG.standard_normal((1, 6)).astype("float32")
    for _ in range(3):
        model.predict(x, verbose=0)
    calls = ordinary_calls(model)

    def check(batch):
        got = model.predict(batch, verbose=0)
        np.testing.assert_allclose(got, _numpy_forward(model, batch), rtol=1e-5, atol=1e-6)

    for _ in range(3):
        check(x)
    assert calls == []
    model.fit(RNG.standard_normal((8, 6)), RNG.standard_normal((8, 3)), epochs=1, verbose=0)
    check(x)  # (fit may make new programs or variables: the ordinary call then)
    calls.clear()
    model.fit(RNG.standard_normal((8, 6)), RNG.standard_normal((8, 3)), epochs=1, verbose=0)
    model.set_weights([w * 0.5 for w in model.get_weights()])
    for _ in range(2):
        check(x)
    assert calls == []
    check(RNG.standard_normal((4, 6)).astype("float32"))  # another shape: ordinary, right
    assert calls


def test_input_checks_and_profiles_see_the_short_path_calls(ordinary_calls):
    model = _mlp()
    x = RNG.standard_normal((1, 6)).astype("float32")
    for _ in range(3):
        model.predict(x, verbose=0)
    lamina.config.enable_input_checks()
    try:
        with pytest.raises(ValueError, match="non-finite"):
            model.predict(np.full((1, 6), np.nan, "float32"), verbose=0)
    finally:
        lamina.config.disable_input_checks()
    with lamina.backend.profile() as prof:
        model.predict(x, verbose=0)
    assert sum(s.calls for s in prof.stats.values()) == 1


class _NoisyAtInference(layers.Layer):
    """Adds fresh noise on every call, inference included, from its own seed state."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = lamina.random.SeedGenerator(7)

    def call(self, x):
        return x + lamina.random.normal(ops.shape(x), seed=self.seed_generator)


def test_seed_state_advanced_at_inference_is_kept_on_the_short_path():
    model = Sequential([Input((4,)), _NoisyAtInference()])
    x = np.zeros((1, 4), "float32")
    outputs = [model.predict(x, verbose=0) for _ in range(6)]
    for a, b in zip(outputs, outputs[1:]):
        assert not np.array_equal(a, b)  # new noise each call, as Keras advances the seed


def test_the_short_path_steps_aside_for_what_it_does_not_handle(monkeypatch):
    model = _mlp()
    answers = []  # per call of the short path: did it answer (True) or step aside?
    made = batch_methods.lone

    def spied(model, fns, runner):
        serve = made(model, fns, runner)

        def spy(*args):
            out = serve(*args)
            answers.append(out is not None)
            return out

        return spy

    monkeypatch.setattr(batch_methods, "lone", spied)
    x = RNG.standard_normal((4, 6)).astype("float32")
    for _ in range(3):
        model.predict(x, verbose=0)

    def check(taken, **kwargs):
        answers.clear()
        got = model.predict(x, verbose=0, **kwargs)
        np.testing.assert_allclose(got, _numpy_forward(model, x), rtol=1e-5, atol=1e-6)
        assert answers == ([True] if taken else [False] if answers else []), kwargs

    check(True)
    check(True, batch_size=4)  # a batch_size that holds the batch
    check(False, batch_size=2)  # two batches of 2
    seen = []

    class Count(lamina.callbacks.Callback):
        def on_predict_batch_end(self, batch, logs=None):
            seen.append(batch)

    check(False, callbacks=[Count()])
    assert seen == [0]
    with pytest.raises(ValueError, match="batch_size"):
        model.predict(x, verbose=0, batch_size=0)
    model.stateful = True  # predicts then run one at a time, on the ordinary path
    check(False)
    model.stateful = False
    check(True)
    model.compile(optimizer="sgd", loss="mse")  # new programs: the old short path is dropped
    check(False)
