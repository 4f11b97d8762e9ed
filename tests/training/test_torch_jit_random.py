"""`compile(jit_compile=True)` on torch with layers that draw random numbers.

Each draw is captured as one node of the graph (the custom op `lamina::random_draw`)
whose seed the graph computes from the layer's SeedGenerator state, so a compiled model
with Dropout or noise trains without falling back to eager, and bit for bit as the same
model run eagerly from the same seeds: the same masks, losses and weights.
"""

import numpy as np
import pytest

from lamina import Input, Sequential, backend, layers, losses, ops, optimizers
from lamina.ops import random

pytestmark = pytest.mark.engine("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((48, 6)).astype("float32")
Y = RNG.integers(0, 3, (48,))

RANDOM_LAYERS = {
    "dropout": lambda: layers.Dropout(0.5, seed=3),
    "gaussian_noise": lambda: layers.GaussianNoise(0.5, seed=3),
    "gaussian_dropout": lambda: layers.GaussianDropout(0.3, seed=3),
}


def _model(random_layer):
    return Sequential(
        [
            Input((6,)),
            layers.Dense(8, activation="relu"),
            RANDOM_LAYERS[random_layer](),
            layers.Dense(3),
        ]
    )


def _compiled(model, jit_compile):
    model.compile(
        optimizer=optimizers.Adam(0.01),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    return model


def _seed_state(model):
    return [ops.convert_to_numpy(v) for v in model.variables if "seed_generator" in v.path]


@pytest.mark.parametrize("random_layer", sorted(RANDOM_LAYERS))
def test_fit_twice_is_bitwise_the_eager_fit_from_the_same_seeds(random_layer):
    import torch._dynamo.utils

    eager = _compiled(_model(random_layer), False)
    jitted = _compiled(_model(random_layer), True)
    jitted.set_weights(eager.get_weights())
    start = _seed_state(jitted)
    graphs = torch._dynamo.utils.counters["stats"]
    runs = []
    for model in (eager, jitted):
        first = model.fit(X, Y, batch_size=16, epochs=1, shuffle=False, verbose=0)
        compiled_graphs = graphs["unique_graphs"]
        second = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        if model is jitted:
            assert graphs["unique_graphs"] == compiled_graphs  # no recompile per step
        runs.append((first.history["loss"] + second.history["loss"], model.get_weights()))
    (eager_losses, eager_weights), (jit_losses, jit_weights) = runs
    assert np.isfinite(eager_losses).all()
    assert jit_losses == eager_losses  # bitwise: the same masks from the same seeds
    for a, b in zip(jit_weights, eager_weights, strict=True):
        np.testing.assert_array_equal(a, b)
    # The seed state advanced once per step (9 steps), as the eager run's did.
    for a, b, s in zip(_seed_state(jitted), _seed_state(eager), start, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a[1] == s[1] + 9
    compiled = backend.execution._compiled_call_for(jitted)
    assert compiled.failed is None
    assert compiled.capture_count == 1  # one input signature, training=True


def test_dropout_draws_a_new_mask_each_training_call_and_none_in_predict():
    model = Sequential([Input((6,)), layers.Dense(5), layers.Dropout(0.5, seed=7)])
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    dense = model.layers[0]
    kernel, bias = (ops.convert_to_numpy(w) for w in dense.weights)
    expected = X[:16] @ kernel + bias  # NumPy: the model without dropout
    train_call = backend.execution.program(
        lambda x: model(x, training=True), "a training call", jit=model, live=True
    )
    x = ops.convert_to_tensor(X[:16])
    masks = []
    for _ in range(2):
        y = ops.convert_to_numpy(train_call(x))
        kept = y != 0
        assert 0.2 < kept.mean() < 0.8  # rate 0.5: about half dropped
        np.testing.assert_allclose(y[kept], 2.0 * expected[kept], rtol=1e-6, atol=1e-6)
        masks.append(kept)
    assert (masks[0] != masks[1]).any()  # the seed state advanced between the calls
    compiled = backend.execution._compiled_call_for(model)
    assert compiled.capture_count == 1 and compiled.failed is None
    predicted = model.predict(X[:16], batch_size=16, verbose=0)
    np.testing.assert_allclose(predicted, expected, rtol=1e-6, atol=1e-6)  # inactive


class _GammaScale(layers.Layer):
    """Scales by Gamma noise whose concentration is trained (a reparameterized draw)."""

    def build(self, input_shape):
        self.alpha = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        self.seed_generator = random.SeedGenerator(5)

    def call(self, x, training=None):
        return x * random.gamma(ops.shape(x), self.alpha, seed=self.seed_generator)


# AOTAutograd traces the backward in anomaly mode: torch adds its own warning beside ours.
@pytest.mark.filterwarnings("ignore:Error detected in GeneratedBackward")
@pytest.mark.parametrize("compiler", ["eager", "aot_eager"])
def test_the_gradient_to_a_draws_parameters_is_the_eager_one(compiler, monkeypatch):
    monkeypatch.setenv("LAMINA_TORCH_COMPILE_BACKEND", compiler)
    runs, start = [], None
    for jit_compile in (False, True):
        model = Sequential([Input((6,)), _GammaScale(), layers.Dense(1)])
        if start is None:
            start = model.get_weights()
        model.set_weights(start)
        model.compile(optimizer="sgd", loss="mse", jit_compile=jit_compile)
        if jit_compile and compiler == "aot_eager":
            # AOTAutograd traces the backward ahead, without the seed's value: the call
            # says so once and runs eagerly.
            with pytest.warns(UserWarning, match="only when the backward runs eagerly"):
                model.fit(X, X[:, :1], batch_size=16, epochs=1, shuffle=False, verbose=0)
        else:
            model.fit(X, X[:, :1], batch_size=16, epochs=1, shuffle=False, verbose=0)
        runs.append(model.get_weights())
    for a, b in zip(runs[1], runs[0], strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs[0][0], np.ones(6))  # alpha was trained


def test_random_crop_compiles_and_trains_bitwise_as_eager():
    # Its window's offsets are drawn as tensors; the slice keeps them tensors (gathered
    # at `offset + arange(size)`), so the captured graph needs no value in Python.
    images = RNG.standard_normal((32, 6, 6, 1)).astype("float32")
    labels = RNG.integers(0, 3, (32,))

    def model():
        net = Sequential(
            [Input((6, 6, 1)), layers.RandomCrop(4, 4, seed=3), layers.Flatten(), layers.Dense(3)]
        )
        return net

    eager, jitted = _compiled(model(), False), _compiled(model(), True)
    jitted.set_weights(eager.get_weights())
    runs = []
    for net in (eager, jitted):
        history = net.fit(images, labels, batch_size=16, epochs=2, shuffle=False, verbose=0)
        runs.append((history.history["loss"], net.get_weights()))
    assert runs[1][0] == runs[0][0]
    for a, b in zip(runs[1][1], runs[0][1], strict=True):
        np.testing.assert_array_equal(a, b)
    compiled = backend.execution._compiled_call_for(jitted)
    assert compiled.failed is None
    assert compiled.capture_count == 1


def test_slice_with_tensor_starts_clamps_as_dynamic_slice():
    import torch

    x = np.arange(5 * 6, dtype="float32").reshape(5, 6)
    # (start, size) per axis -> the start lax.dynamic_slice uses: a negative start counts
    # from the end, then it is clamped so that the window fits.
    for starts, sizes in [
        ((1, 2), (3, 4)),
        ((-2, 0), (2, 6)),
        ((4, 5), (3, 2)),
        ((-9, -1), (2, 2)),
    ]:
        expected_starts = [
            min(max(s + d if s < 0 else s, 0), d - n)
            for s, d, n in zip(starts, x.shape, sizes, strict=True)
        ]
        window = tuple(slice(s, s + n) for s, n in zip(expected_starts, sizes, strict=True))
        for given in (
            [torch.tensor(s) for s in starts],  # each a tensor
            torch.tensor(starts),  # one tensor of starts
            [torch.tensor(starts[0]), starts[1]],  # mixed
        ):
            out = ops.convert_to_numpy(ops.slice(x, given, sizes))
            np.testing.assert_array_equal(out, x[window])
