"""The strict stateless scope of compiled steps, random state in compiled programs, and
the trace bookkeeping of the `model(x)` program (issue 12).

Inside a compiled step every variable read or written must be part of the state: one
that is not (held where the model does not track it) would be frozen into the program as
a constant, or its update silently lost. Randomness must come from seed state that the
program carries, as Keras 3 requires under JAX tracing.
"""

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _model_around(layer, shape=(3,)):
    inputs = lamina.Input(shape)
    return lamina.Model(inputs, layer(inputs))


def _hidden_variable(name):
    # Created outside any layer and referenced only from a closure: no model tracks it.
    return lamina.Variable(np.full((3,), 2.0, "float32"), name=name)


# the strict stateless scope of jitted JAX steps; torch steps are stateful.
@pytest.mark.engine("jax")
def test_reading_an_untracked_variable_in_predict_names_it():
    hidden = _hidden_variable("hidden_scale")

    class ReadsHidden(layers.Layer):
        def call(self, x):
            return x * hidden.value

        def compute_output_shape(self, input_shape):
            return input_shape

    model = _model_around(ReadsHidden())
    with pytest.raises(ValueError, match="hidden_scale"):
        model.predict(np.ones((2, 3), "float32"), verbose=0)


# the strict stateless scope of jitted JAX steps; torch steps are stateful.
@pytest.mark.engine("jax")
def test_reading_an_untracked_variable_in_fit_names_it():
    hidden = _hidden_variable("hidden_offset")

    class ReadsHidden(layers.Layer):
        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(3,), initializer="ones", name="kernel")

        def call(self, x):
            return x * self.kernel + hidden.value

        def compute_output_shape(self, input_shape):
            return input_shape

    model = _model_around(ReadsHidden())
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 3), "float32")
    with pytest.raises(ValueError, match="hidden_offset"):
        model.fit(x, x, epochs=1, batch_size=2, verbose=0)


# the strict stateless scope of jitted JAX steps; torch steps are stateful.
@pytest.mark.engine("jax")
def test_assigning_an_untracked_variable_in_fit_names_it():
    counter = lamina.Variable(np.zeros((), "float32"), name="hidden_counter")

    class CountsCalls(layers.Layer):
        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(3,), initializer="ones", name="kernel")

        def call(self, x):
            counter.assign(ops.zeros(()) + 1.0)  # an update the step would lose
            return x * self.kernel

        def compute_output_shape(self, input_shape):
            return input_shape

    model = _model_around(CountsCalls())
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 3), "float32")
    with pytest.raises(ValueError, match="hidden_counter"):
        model.fit(x, x, epochs=1, batch_size=2, verbose=0)


def test_unseeded_random_op_in_call_is_refused_or_fresh_each_predict():
    class UnseededNoise(layers.Layer):
        def call(self, x):
            return x + lamina.random.normal(ops.shape(x))

        def compute_output_shape(self, input_shape):
            return input_shape

    model = _model_around(UnseededNoise())
    x = np.zeros((2, 3), "float32")
    # Keras 3 raises "[JAX RNG] When tracing a JAX function, you should only use seeded
    # random ops ... create a `SeedGenerator`". Carrying the global seed state in the
    # program would be acceptable too; the same noise on every call never is.
    try:
        first = model.predict(x, verbose=0)
    except ValueError as error:
        assert "seed" in str(error).lower(), error
        return
    second = model.predict(x, verbose=0)
    assert not np.allclose(first, second)


class SeededNoise(layers.Layer):
    """Noise added on every call, training or not, from the layer's own seed state."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = lamina.random.SeedGenerator(7)

    def call(self, x):
        return x + lamina.random.normal(ops.shape(x), seed=self.seed_generator)


def test_seed_generator_state_advances_across_predict_calls():
    noise = SeededNoise()
    model = _model_around(noise)
    x = np.zeros((2, 3), "float32")
    states = [ops.convert_to_numpy(noise.seed_generator.state.value).copy()]
    outputs = []
    for _ in range(2):
        outputs.append(model.predict(x, verbose=0))
        states.append(ops.convert_to_numpy(noise.seed_generator.state.value).copy())
    # Keras 3: the state goes [7, 0] -> [7, 1] -> [7, 2] and the two outputs differ.
    assert not np.allclose(outputs[0], outputs[1])
    assert not np.array_equal(states[0], states[1])
    assert not np.array_equal(states[1], states[2])


# counts traces of model.call_function; torch's model(x) runs layer by layer.
@pytest.mark.engine("jax")
def test_model_call_program_counts_traces_and_warns_on_a_retrace_storm():
    inputs = lamina.Input((None, 2))
    model = lamina.Model(inputs, layers.Dense(3)(inputs))
    lengths = range(1, 8)  # seven sequence lengths: seven traces of one program
    with pytest.warns(lamina.backend.RetraceWarning) as record:
        for length in lengths:
            out = model(np.ones((2, length, 2), "float32"))
            assert tuple(out.shape) == (2, length, 3)
    assert issubclass(lamina.backend.RetraceWarning, UserWarning)
    assert model.call_function.trace_count == len(lengths)
    messages = [str(w.message) for w in record if issubclass(w.category, UserWarning)]
    # The first warning comes on the sixth trace and names what was being traced.
    assert any("(2, 6, 2)" in m for m in messages), messages
    # A shape seen before is served from the cache: no new trace, no new warning.
    model(np.ones((2, 3, 2), "float32"))
    assert model.call_function.trace_count == len(lengths)


def test_program_cache_is_bounded_and_retraces_after_eviction():
    import lamina

    bounded = lamina.backend.execution.program(lambda x: x * 2.0, "bounded", max_signatures=2)
    roomy = lamina.backend.execution.program(lambda x: x * 2.0, "roomy")
    for program in (bounded, roomy):
        for n in (1, 2, 3):  # a third signature empties a cache bounded to two
            program(np.ones((n,), "float32"))
        assert program.trace_count == 3
        program(np.ones((1,), "float32"))
    assert bounded.trace_count == 4  # evicted, traced again
    assert roomy.trace_count == 3  # still cached


def test_a_retrace_warning_names_the_changing_batch_and_the_callers_line():
    """A step takes the weights too: the warning shows the leaves that changed (the
    batch), not the first weights, and points at the user's line, not into the engine."""
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.warns(lamina.backend.RetraceWarning) as record:
        for rows in range(1, 8):
            model.train_on_batch(np.ones((rows, 4), "float32"), np.ones((rows, 2), "float32"))
    warning = next(w for w in record if issubclass(w.category, lamina.backend.RetraceWarning))
    message = str(warning.message)
    assert "(6, 4) float32, (6, 2) float32]" in message, message
    assert "(4, 2) float32" not in message.split("signatures:")[1].split("]")[0], message
    assert warning.filename == __file__
