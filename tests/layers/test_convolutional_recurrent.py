"""ConvLSTM1D/2D/3D against Keras 3 (the reference): outputs, states, masks, gradients,
stateful runs, configs and `.keras` files in both directions.

Each run of a recurrent layer compiles its time loop, so the tests keep to few calls,
one input shape where they can, and run Keras's reference compiled (`jax.jit`)."""

import inspect
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, backend, layers, ops

RNG = np.random.default_rng(3)
SHAPE = (2, 3, 5, 5, 2)  # batch, time, rows, cols, channels
# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
KERAS_ARRAY_WARNING = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def _rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    return keras


# Tests set their own weights or train from zeros: the default random initializers
# (orthogonal's QR, the random bits) cost compilations per shape.
ZEROS = {"kernel_initializer": "zeros", "recurrent_initializer": "zeros"}


def _twins(keras, name, kwargs, input_shape):
    """The same layer in Keras and in lamina, built on `input_shape`, with equal seeded
    weights (copied in Keras's order: kernel, recurrent_kernel, bias)."""
    kwargs = {**ZEROS, **kwargs}
    ours = getattr(layers, name)(**kwargs)
    theirs = getattr(keras.layers, name)(**kwargs)
    ours.build(input_shape)
    theirs.build(input_shape)
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    values = [_rand(*w.shape, scale=0.3) for w in theirs.weights]
    theirs.set_weights(values)
    ours.set_weights(values)
    return ours, theirs


def _keras_run(layer, x, **kwargs):
    """`layer(x, **kwargs)` for a Keras layer, as one compiled program."""
    import jax

    def run(trainable, non_trainable, x, kwargs):
        return layer.stateless_call(trainable, non_trainable, x, **kwargs)[0]

    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]
    return jax.jit(run)(trainable, non_trainable, x, kwargs)


def _close(ours, theirs):
    ours = ours if isinstance(ours, (list, tuple)) else [ours]
    theirs = theirs if isinstance(theirs, (list, tuple)) else [theirs]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(_np(a), np.asarray(b), rtol=1e-4, atol=1e-5)


# (layer, kwargs, input shape): the options that change the numbers, on tiny shapes.
CASES = [
    ("ConvLSTM2D", {"filters": 2, "kernel_size": (2, 3), "strides": (1, 2), "padding": "same",
                    "data_format": "channels_first", "return_sequences": True,
                    "return_state": True, "go_backwards": True, "unit_forget_bias": False},
     (2, 3, 2, 5, 5)),
    ("ConvLSTM1D", {"filters": 2, "kernel_size": 3, "padding": "same", "dilation_rate": 2,
                    "return_sequences": True, "unroll": True}, (2, 3, 6, 2)),
    ("ConvLSTM3D", {"filters": 2, "kernel_size": 2, "return_state": True, "use_bias": False,
                    "activation": "relu"}, (2, 3, 3, 3, 3, 1)),
]  # fmt: skip


@pytest.mark.parametrize("name, kwargs, shape", CASES, ids=[c[0] for c in CASES])
def test_outputs_and_states_match_keras(keras, name, kwargs, shape):
    ours, theirs = _twins(keras, name, kwargs, shape)
    x = _rand(*shape)
    _close(ours(x), _keras_run(theirs, x))
    expected = theirs.compute_output_shape(shape)
    expected = list(expected) if kwargs.get("return_state") else expected
    assert ours.compute_output_shape(shape) == expected


def test_mask_and_initial_state_match_keras(keras):
    # Keras 3.15's ConvLSTM cannot take a mask (its step broadcasts a (batch, 1) mask
    # against feature maps), so a masked run is compared with Keras on the unmasked
    # steps: a masked step keeps the states and repeats the previous output; a masked
    # first step (pre-padding) emits the initial `h`.
    kwargs = {"filters": 2, "kernel_size": 3, "padding": "same", "return_sequences": True,
              "return_state": True}  # fmt: skip
    ours, theirs = _twins(keras, "ConvLSTM2D", kwargs, SHAPE)
    x = _rand(*SHAPE)
    h0, c0 = _rand(2, 5, 5, 2), _rand(2, 5, 5, 2)
    mask = np.array([[False, True, True], [True, True, True]])
    out, h, c = ours(x, mask=mask, initial_state=[h0, c0])
    full = _keras_run(theirs, x, initial_state=[h0, c0])
    late = _keras_run(theirs, x[:1, 1:], initial_state=[h0[:1], c0[:1]])
    _close([out[1], h[1], c[1]], [full[0][1], full[1][1], full[2][1]])
    _close([out[0, 0], out[0, 1:], h[0], c[0]], [h0[0], late[0][0], late[1][0], late[2][0]])


def test_gradients_match_keras(keras):
    import jax

    ours, theirs = _twins(keras, "ConvLSTM2D", {"filters": 2, "kernel_size": 3}, SHAPE)
    x = _rand(*SHAPE)
    readout = _rand(2, 3, 3, 2)
    seed_state = [v.value for v in theirs.non_trainable_variables]

    def their_loss(values, inputs):
        y, _ = theirs.stateless_call(values, seed_state, inputs)
        return (y * readout).sum()

    their_values = [w.value for w in theirs.trainable_weights]
    expected = jax.jit(jax.grad(their_loss, argnums=(0, 1)))(their_values, x)
    weights = ours.trainable_weights

    def our_loss(params):
        with backend.StatelessScope(list(zip(weights, params[:-1], strict=True))):
            y = ours(params[-1])
        return ops.sum(ops.multiply(y, readout))

    params = [w.value for w in weights] + [ops.convert_to_tensor(x)]
    _, grads = backend.value_and_grad(our_loss)(params)
    _close(grads, list(expected[0]) + [expected[1]])


def test_stateful_runs_continue_and_reset(keras):
    kwargs = {"filters": 2, "kernel_size": 3, "padding": "same"}
    ours, theirs = _twins(keras, "ConvLSTM2D", kwargs, (2, 6, 5, 5, 2))
    stateful = layers.ConvLSTM2D(**ZEROS, **kwargs, stateful=True)
    stateful.build(SHAPE)
    stateful.set_weights(ours.get_weights())
    x = _rand(2, 6, 5, 5, 2)
    stateful(x[:, :3])
    _close(stateful(x[:, 3:]), _keras_run(theirs, x))  # two halves == the whole sequence
    assert [tuple(s.shape) for s in stateful.states] == [(2, 5, 5, 2)] * 2
    h0, c0 = _rand(2, 5, 5, 2), _rand(2, 5, 5, 2)
    stateful.reset_states([h0, c0])
    _close(stateful.states, [h0, c0])
    stateful.reset_states()
    _close(stateful.states, [np.zeros((2, 5, 5, 2))] * 2)


def test_dropout_is_training_only_and_trains():
    model = Sequential(
        [
            Input(SHAPE[1:]),
            layers.ConvLSTM2D(
                2, 3, padding="same", dropout=0.3, recurrent_dropout=0.3, seed=1, **ZEROS
            ),
            layers.Flatten(),
            layers.Dense(1),
        ]
    )
    x, y = _rand(4, *SHAPE[1:]), _rand(4, 1)
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse")
    losses = model.fit(x, y, batch_size=2, epochs=3, verbose=0).history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]
    # Inference ignores dropout: two predictions agree.
    predicted = model.predict(x, verbose=0)
    np.testing.assert_allclose(model.predict(x, verbose=0), predicted)


def test_dropout_masks_apply_per_gate_as_keras(keras):
    # Keras draws one input and one recurrent mask per gate; given the same masks, the
    # two cells compute the same training step.
    kwargs = {"filters": 2, "kernel_size": 3, "padding": "same", "dropout": 0.5,
              "recurrent_dropout": 0.5}  # fmt: skip
    ours, theirs = _twins(keras, "ConvLSTM2D", kwargs, SHAPE)
    x, h0, c0 = _rand(2, 5, 5, 2), _rand(2, 5, 5, 2), _rand(2, 5, 5, 2)
    masks = (RNG.random((8, 2, 5, 5, 2)) < 0.5).astype("float32") * 2.0
    for cell in (ours.cell, theirs.cell):
        cell._dropout_mask = list(masks[:4])
        cell._recurrent_dropout_mask = list(masks[4:])
    _close(ours.cell(x, [h0, c0], training=True)[1], theirs.cell(x, [h0, c0], training=True)[1])


def test_config_round_trip_and_keras_config(keras):
    kwargs = {"filters": 2, "kernel_size": (3, 2), "strides": (1, 2), "padding": "same",
              "recurrent_dropout": 0.1, "return_sequences": True, "go_backwards": True,
              "unit_forget_bias": False, "seed": 4}  # fmt: skip
    layer = layers.ConvLSTM2D(**kwargs)
    config = layer.get_config()
    assert layers.ConvLSTM2D.from_config(config).get_config() == config
    assert (layer.filters, layer.kernel_size, layer.strides) == (2, (3, 2), (1, 2))
    theirs = keras.layers.ConvLSTM2D(**kwargs).get_config()
    assert sorted(set(theirs) ^ set(config)) == []
    rebuilt = lamina.utils.deserialize_keras_object({"class_name": "ConvLSTM2D", "config": theirs})
    assert isinstance(rebuilt, layers.ConvLSTM2D)
    assert {k: v for k, v in rebuilt.get_config().items() if k != "name"} == {
        k: v for k, v in config.items() if k != "name"
    }


@pytest.mark.parametrize("name", ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"])
def test_signature_matches_keras(keras, name):
    # Keras's arguments, in Keras's order (so positional calls agree), with its defaults.
    def params(cls):
        found = inspect.signature(cls.__init__).parameters.values()
        return [(p.name, p.default) for p in found if p.kind == p.POSITIONAL_OR_KEYWORD]

    theirs = params(getattr(keras.layers, name))
    assert params(getattr(layers, name))[: len(theirs)] == theirs


@KERAS_ARRAY_WARNING
def test_keras_written_file_loads_and_round_trips(keras, tmp_path):
    x = _rand(*SHAPE)
    inputs = keras.Input(SHAPE[1:])
    conv = keras.layers.ConvLSTM2D(
        2, 3, padding="same", return_sequences=True, return_state=True, **ZEROS
    )
    out, h, _ = conv(inputs)
    theirs = keras.Model(inputs, [out, h])
    theirs.set_weights([_rand(*w.shape, scale=0.3) for w in theirs.weights])
    theirs.save(tmp_path / "theirs.keras")
    expected = theirs.predict(x, verbose=0)
    ours = lamina.models.load_model(tmp_path / "theirs.keras")
    _close(ours.predict(x, verbose=0), expected)
    # And back: lamina's file loads in lamina and in Keras with the same weights.
    ours.save(tmp_path / "ours.keras")
    again = lamina.models.load_model(tmp_path / "ours.keras")
    assert isinstance(again.layers[1], layers.ConvLSTM2D)
    back = keras.models.load_model(tmp_path / "ours.keras")
    for model in (again, back):
        for a, b in zip(model.get_weights(), theirs.get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)


def test_symbolic_shapes_in_a_functional_model():
    inputs = Input(SHAPE[1:])
    conv = layers.ConvLSTM2D(2, 3, return_sequences=True, return_state=True, **ZEROS)
    out, h, c = conv(inputs)
    assert (tuple(out.shape), tuple(h.shape), tuple(c.shape)) == (
        (None, 3, 3, 3, 2),
        (None, 3, 3, 2),
        (None, 3, 3, 2),
    )
    decoded = layers.ConvLSTM1D(1, 2, padding="same", **ZEROS)(layers.Reshape((3, 9, 2))(out))
    model = lamina.Model(inputs, [decoded, h])
    assert [tuple(t.shape) for t in model.outputs] == [(None, 9, 1), (None, 3, 3, 2)]


def test_bad_arguments_and_inputs_name_what_was_received():
    with pytest.raises(ValueError, match="padding"):
        layers.ConvLSTM2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="filters"):
        layers.ConvLSTM2D(0, 3)
    with pytest.raises(ValueError, match="dilation_rate"):
        layers.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="kernel_size"):
        layers.ConvLSTM3D(2, (3, 3))
    with pytest.raises(ValueError, match="rank 5"):
        layers.ConvLSTM2D(2, 3, **ZEROS)(np.zeros((2, 3, 5, 2), "float32"))
    with pytest.raises(ValueError, match="spatial and channel"):
        layers.ConvLSTM2D(2, 3)(Input((3, None, 5, 2)))
    with pytest.raises(ValueError, match="larger than the input"):
        layers.ConvLSTM2D(2, 7, **ZEROS)(Input(SHAPE[1:]))
    layer = layers.ConvLSTM2D(2, 3, padding="same", **ZEROS)
    x = np.zeros(SHAPE, "float32")
    with pytest.raises(ValueError, match=r"state 0 .*\(batch, 5, 5, 2\).*\(2, 4, 4, 2\)"):
        layer(x, initial_state=[np.zeros((2, 4, 4, 2), "float32")] * 2)
    with pytest.raises(ValueError, match="2 states"):
        layer(x, initial_state=[np.zeros((2, 5, 5, 2), "float32")])
    with pytest.raises(ValueError, match=r"\(None, None, 5, 5, 2\), received .*6, 6, 2"):
        layer(np.zeros((2, 3, 6, 6, 2), "float32"))  # the states are sized for 5 x 5
