"""Recurrent layers and wrappers: conformance and numerics against NumPy step loops."""

import numpy as np
import pytest

from lamina import Input, Model, layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(0)


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_simple(x, w, h):
    k, rk, b = w
    return np.tanh(x @ k + h @ rk + b)


def _np_lstm(x, w, state):
    k, rk, b = w
    h, c = state
    z = x @ k + h @ rk + b
    i, f, g, o = np.split(z, 4, axis=-1)
    c = _sig(f) * c + _sig(i) * np.tanh(g)
    h = _sig(o) * np.tanh(c)
    return h, c


def _np_gru(x, w, h, reset_after):
    k, rk, b = w
    u = h.shape[-1]
    if reset_after:
        xz = x @ k + b[0]
        inner = h @ rk + b[1]
        z = _sig(xz[:, :u] + inner[:, :u])
        r = _sig(xz[:, u : 2 * u] + inner[:, u : 2 * u])
        hh = np.tanh(xz[:, 2 * u :] + r * inner[:, 2 * u :])
    else:
        xz = x @ k + b
        z = _sig(xz[:, :u] + h @ rk[:, :u])
        r = _sig(xz[:, u : 2 * u] + h @ rk[:, u : 2 * u])
        hh = np.tanh(xz[:, 2 * u :] + (r * h) @ rk[:, 2 * u :])
    return z * h + (1 - z) * hh


def _np_run(kind, x, w, units, reset_after=True, backwards=False):
    steps = range(x.shape[1])[::-1] if backwards else range(x.shape[1])
    h = np.zeros((x.shape[0], units), "float32")
    c = np.zeros_like(h)
    outs = []
    for t in steps:
        if kind == "simple":
            h = _np_simple(x[:, t], w, h)
        elif kind == "lstm":
            h, c = _np_lstm(x[:, t], w, (h, c))
        else:
            h = _np_gru(x[:, t], w, h, reset_after)
        outs.append(h)
    return np.stack(outs, 1), h, c


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


CONFORMANCE = [
    (layers.SimpleRNN, {"units": 3}, (2, 4, 5), (2, 3), 3),
    (layers.LSTM, {"units": 3, "return_sequences": True}, (2, 4, 5), (2, 4, 3), 3),
    (layers.GRU, {"units": 3}, (2, 4, 5), (2, 3), 3),
    (
        layers.RNN,
        {"cell": [layers.SimpleRNNCell(3), layers.GRUCell(2)], "return_sequences": True},
        (2, 4, 5),
        (2, 4, 2),
        6,
    ),
    (
        layers.Bidirectional,
        {"layer": layers.LSTM(2, return_sequences=True)},
        (2, 4, 5),
        (2, 4, 4),
        6,
    ),
    (
        layers.Bidirectional,
        {"layer": layers.GRU(2), "merge_mode": "sum"},
        (2, 4, 5),
        (2, 2),
        6,
    ),
    (layers.TimeDistributed, {"layer": layers.Dense(3)}, (2, 4, 5), (2, 4, 3), 2),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, out_shape, n_train",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, out_shape, n_train):
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        expected_output_shape=out_shape,
        expected_num_trainable_weights=n_train,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
        check_gradient=True,
    )


def test_weight_shapes_match_keras():
    x = _rand(2, 4, 5)
    lstm = layers.LSTM(3)
    lstm(x)
    assert [tuple(w.shape) for w in lstm.weights] == [(5, 12), (3, 12), (12,)]
    np.testing.assert_array_equal(ops.convert_to_numpy(lstm.cell.bias)[3:6], 1.0)
    gru = layers.GRU(3)
    gru(x)
    assert [tuple(w.shape) for w in gru.weights] == [(5, 9), (3, 9), (2, 9)]
    gru2 = layers.GRU(3, reset_after=False)
    gru2(x)
    assert tuple(gru2.weights[2].shape) == (9,)


@pytest.mark.parametrize(
    "kind, kwargs",
    [
        ("simple", {}),
        ("lstm", {}),
        ("gru", {"reset_after": True}),
        ("gru", {"reset_after": False}),
    ],
)
@pytest.mark.parametrize("backwards", [False, True])
def test_forward_matches_numpy(kind, kwargs, backwards):
    cls = {"simple": layers.SimpleRNN, "lstm": layers.LSTM, "gru": layers.GRU}[kind]
    x = _rand(2, 5, 3)
    layer = cls(4, return_sequences=True, return_state=True, go_backwards=backwards, **kwargs)
    out = layer(x)
    w = layer.get_weights()
    ref_seq, ref_h, ref_c = _np_run(kind, x, w, 4, kwargs.get("reset_after", True), backwards)
    np.testing.assert_allclose(ops.convert_to_numpy(out[0]), ref_seq, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(out[1]), ref_h, atol=1e-5)
    if kind == "lstm":
        np.testing.assert_allclose(ops.convert_to_numpy(out[2]), ref_c, atol=1e-5)
    # unroll=True gives the same result.
    un = cls(4, return_sequences=True, go_backwards=backwards, unroll=True, **kwargs)
    un(x)
    un.set_weights(w)
    np.testing.assert_allclose(ops.convert_to_numpy(un(x)), ref_seq, atol=1e-5)


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM])
def test_masked_sequences_equal_unpadded_run(cls):
    x = _rand(2, 5, 3)
    lengths = [5, 3]
    mask = np.array([[t < n for t in range(5)] for n in lengths])
    layer = cls(4, return_sequences=True)
    out = ops.convert_to_numpy(layer(x, mask=mask))
    last = cls(4)
    last(x)
    last.set_weights(layer.get_weights())
    final = ops.convert_to_numpy(last(x, mask=mask))
    for b, n in enumerate(lengths):
        ref = ops.convert_to_numpy(layer(x[b : b + 1, :n]))[0]
        np.testing.assert_allclose(out[b, :n], ref, atol=1e-5)
        # Masked steps repeat the previous output; the final output is the last real one.
        np.testing.assert_allclose(out[b, n:], np.repeat(ref[-1:], 5 - n, 0), atol=1e-5)
        np.testing.assert_allclose(final[b], ref[-1], atol=1e-5)
    zero = cls(4, return_sequences=True, zero_output_for_mask=True)
    zero(x)
    zero.set_weights(layer.get_weights())
    z = ops.convert_to_numpy(zero(x, mask=mask))
    np.testing.assert_allclose(z[1, 3:], 0.0)


def test_masking_through_embedding_in_a_model():
    inp = Input(shape=(None,), dtype="int32")
    emb = layers.Embedding(6, 3, mask_zero=True)(inp)
    out = layers.LSTM(2)(emb)
    model = Model(inp, out)
    tokens = np.array([[1, 2, 0, 0], [3, 4, 5, 1]], "int32")
    full = ops.convert_to_numpy(model(tokens))
    short = ops.convert_to_numpy(model(tokens[:1, :2]))
    np.testing.assert_allclose(full[0], short[0], atol=1e-5)


def test_stateful_and_reset_states():
    x = _rand(2, 6, 3)
    ref = layers.GRU(4, unroll=True)
    ref(x)
    layer = layers.GRU(4, stateful=True, unroll=True)
    layer(x[:, :3])
    layer.set_weights(ref.get_weights())
    layer.reset_states()
    layer(x[:, :3])
    second = ops.convert_to_numpy(layer(x[:, 3:]))
    np.testing.assert_allclose(second, ops.convert_to_numpy(ref(x)), atol=1e-5)
    layer.reset_states()
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x[:, :3])), ops.convert_to_numpy(ref(x[:, :3])), atol=1e-5
    )
    with pytest.raises(AttributeError):
        layers.GRU(2).reset_states()


def test_stateful_fit_carries_states_between_batches():
    # was, on torch: "a variable needed for gradient computation has been modified by an
    # inplace operation" (the step read the live state tensors, then assigned them)
    x = _rand(4, 3, 2)
    model = Model(inp := Input(batch_shape=(2, 3, 2)), layers.LSTM(3, stateful=True)(inp))
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(
        x, np.zeros((4, 3), "float32"), batch_size=2, epochs=2, shuffle=False, verbose=0
    )
    assert np.all(np.isfinite(history.history["loss"]))
    state = ops.convert_to_numpy(model.layers[-1].states[0])
    assert state.shape == (2, 3) and np.any(state != 0)


def test_initial_state_and_errors():
    x = _rand(2, 4, 3)
    layer = layers.LSTM(2, return_state=True)
    _, h, c = layer(x)
    h0, c0 = _rand(2, 2), _rand(2, 2)
    out, _, _ = layer(x, initial_state=[h0, c0])
    w = layer.get_weights()
    h_ref, c_ref = h0, c0
    for t in range(4):
        h_ref, c_ref = _np_lstm(x[:, t], w, (h_ref, c_ref))
    np.testing.assert_allclose(ops.convert_to_numpy(out), h_ref, atol=1e-5)
    with pytest.raises(ValueError, match="expects 2 initial state"):
        layer(x, initial_state=[h0])
    with pytest.raises(ValueError, match="must have shape"):
        layer(x, initial_state=[h0, _rand(2, 3)])


def test_dropout_runs_in_training_only():
    x = _rand(2, 4, 3)
    layer = layers.LSTM(3, dropout=0.5, recurrent_dropout=0.5, seed=1)
    a = ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(a, ops.convert_to_numpy(layer(x)))
    b = ops.convert_to_numpy(layer(x, training=True))
    assert b.shape == a.shape and not np.allclose(a, b)


@pytest.mark.parametrize("mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_merge_modes(mode):
    x = _rand(2, 4, 3)
    lstm = layers.LSTM(2, return_sequences=True, unroll=True)
    bi = layers.Bidirectional(lstm, merge_mode=mode)
    out = bi(x)
    fw = layers.LSTM(2, return_sequences=True, unroll=True)
    bw = layers.LSTM(2, return_sequences=True, go_backwards=True, unroll=True)
    fw(x)
    bw(x)
    fw.set_weights(bi.forward_layer.get_weights())
    bw.set_weights(bi.backward_layer.get_weights())
    y, y_rev = ops.convert_to_numpy(fw(x)), ops.convert_to_numpy(bw(x))[:, ::-1]
    expected = {
        "concat": np.concatenate([y, y_rev], -1),
        "sum": y + y_rev,
        "mul": y * y_rev,
        "ave": (y + y_rev) / 2,
    }
    if mode is None:
        np.testing.assert_allclose(ops.convert_to_numpy(out[0]), y, atol=1e-5)
        np.testing.assert_allclose(ops.convert_to_numpy(out[1]), y_rev, atol=1e-5)
    else:
        np.testing.assert_allclose(ops.convert_to_numpy(out), expected[mode], atol=1e-5)


def test_bidirectional_return_state_and_errors():
    x = _rand(2, 4, 3)
    bi = layers.Bidirectional(layers.LSTM(2, return_state=True))
    out = bi(x)
    assert [tuple(o.shape) for o in out] == [(2, 4)] + [(2, 2)] * 4
    inp = Input(shape=(4, 3))
    sym = bi(inp)
    assert [s.shape for s in sym] == [(None, 4)] + [(None, 2)] * 4
    with pytest.raises(ValueError, match="merge_mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="go_backwards"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))


def test_time_distributed_matches_per_step_dense():
    x = _rand(2, 4, 3)
    td = layers.TimeDistributed(layers.Dense(5))
    out = ops.convert_to_numpy(td(x))
    for t in range(4):
        np.testing.assert_allclose(out[:, t], ops.convert_to_numpy(td.layer(x[:, t])), atol=1e-6)


def test_cells_standalone_and_stacked():
    x = _rand(2, 3)
    cell = layers.GRUCell(4)
    h, states = cell(x, [np.zeros((2, 4), "float32")])
    ref = _np_gru(x, cell.get_weights(), np.zeros((2, 4), "float32"), True)
    np.testing.assert_allclose(ops.convert_to_numpy(h), ref, atol=1e-5)
    assert len(states) == 1
    stacked = layers.StackedRNNCells([layers.SimpleRNNCell(3), layers.LSTMCell(2)])
    assert stacked.state_size == [3, [2, 2]]  # Keras: one entry per cell
    # A direct call takes the states flat or nested per cell, with the same result.
    x, h3, h2, c2 = _rand(2, 3), _rand(2, 3), _rand(2, 2), _rand(2, 2)
    stacked.build((2, 3))
    out_flat, states_flat = stacked.call(x, [h3, h2, c2])
    out_nested, states_nested = stacked.call(x, [[h3], [h2, c2]])
    np.testing.assert_allclose(ops.convert_to_numpy(out_flat), ops.convert_to_numpy(out_nested))
    assert len(states_flat) == len(states_nested) == 3
    rnn = layers.RNN(stacked, return_state=True)
    out = rnn(_rand(2, 5, 3))
    # Keras's structure: one list per cell (SimpleRNN: [h]; LSTM: [h, c]).
    assert tuple(out[0].shape) == (2, 2) and tuple(out[1][0].shape) == (2, 3)
    assert [tuple(o.shape) for o in out[2]] == [(2, 2), (2, 2)]


def test_bidirectional_lstm_text_model_learns():
    rng = np.random.default_rng(1)
    n, steps, vocab = 256, 6, 8
    tokens = rng.integers(1, vocab, size=(n, steps)).astype("int32")
    # Class: whether token 1 occurs before token 2 (order matters; needs context).
    labels = np.zeros(n, "int32")
    for i in range(n):
        seq = list(tokens[i])
        labels[i] = int(seq[0] > seq[-1])
    inp = Input(shape=(steps,), dtype="int32")
    x = layers.Embedding(vocab, 8)(inp)
    x = layers.Bidirectional(layers.LSTM(8))(x)
    out = layers.Dense(2, activation="softmax")(x)
    model = Model(inp, out)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(tokens, labels, epochs=25, batch_size=32, verbose=0)
    preds = ops.convert_to_numpy(model.predict(tokens, verbose=0)).argmax(-1)
    assert (preds == labels).mean() > 0.75


def test_encoder_decoder_step_by_step_equals_one_pass():
    enc_in = Input(shape=(5, 3))
    _, h, c = layers.LSTM(4, return_state=True)(enc_in)
    dec_in = Input(shape=(None, 2))
    decoder = layers.LSTM(4, return_sequences=True, return_state=True)
    dec_seq, _, _ = decoder(dec_in, initial_state=[h, c])
    dense = layers.Dense(2)
    model = Model([enc_in, dec_in], dense(dec_seq))
    src, tgt = _rand(2, 5, 3), _rand(2, 4, 2)
    full = ops.convert_to_numpy(model([src, tgt]))
    encoder = Model(enc_in, [h, c])
    state = [ops.convert_to_numpy(s) for s in encoder(src)]
    steps = []
    for t in range(4):
        y, hh, cc = decoder(tgt[:, t : t + 1], initial_state=state)
        state = [hh, cc]
        steps.append(ops.convert_to_numpy(dense(y))[:, 0])
    np.testing.assert_allclose(np.stack(steps, 1), full, atol=1e-5)


def test_config_round_trip_of_wrappers():
    layer = layers.LSTM(3, dropout=0.1, go_backwards=True, name="enc")
    config = layer.get_config()
    assert config["units"] == 3 and config["go_backwards"] and "cell" not in config
    clone = layers.LSTM.from_config(config)
    assert clone.get_config() == config
    bi = layers.Bidirectional(layers.GRU(2))
    assert bi.forward_layer.name.startswith("forward_")
    assert bi.backward_layer.go_backwards


def _np_masked_simple(x, w, mask, h0, zero_output, backwards=False):
    """Keras's masked loop: a masked step keeps the state and emits the previous output
    (the initial state before the first step), or zeros with `zero_output_for_mask`."""
    steps = range(x.shape[1])[::-1] if backwards else range(x.shape[1])
    h, outs = h0, []
    for t in steps:
        m = mask[:, t, None]
        new = _np_simple(x[:, t], w, h)
        outs.append(np.where(m, new, 0.0 if zero_output else h))
        h = np.where(m, new, h)
    return np.stack(outs, 1), h


def test_masked_steps_match_a_numpy_step_loop_with_initial_state_and_zero_output():
    x = _rand(3, 5, 2)
    # Pre-padding (as pad_sequences makes), a gap, and post-padding.
    mask = np.array([[0, 0, 1, 1, 1], [1, 0, 1, 1, 0], [1, 1, 1, 0, 0]], bool)
    h0 = _rand(3, 4)
    for zero_output in (False, True):
        layer = layers.SimpleRNN(4, return_sequences=True, zero_output_for_mask=zero_output)
        out = ops.convert_to_numpy(layer(x, mask=mask, initial_state=[h0]))
        ref, h = _np_masked_simple(x, layer.get_weights(), mask, h0, zero_output)
        np.testing.assert_allclose(out, ref, atol=1e-5)
        last = layers.SimpleRNN(4, return_state=True, zero_output_for_mask=zero_output)
        last(x)
        last.set_weights(layer.get_weights())
        final, state = last(x, mask=mask, initial_state=[h0])
        # The last output is the last real step's output, never zeroed.
        np.testing.assert_allclose(ops.convert_to_numpy(final), h, atol=1e-5)
        np.testing.assert_allclose(ops.convert_to_numpy(state), h, atol=1e-5)


def test_bidirectional_outputs_zeros_at_masked_steps_as_keras():
    x = _rand(2, 5, 3)
    mask = np.array([[1, 1, 1, 0, 0], [0, 1, 1, 1, 1]], bool)
    bi = layers.Bidirectional(layers.SimpleRNN(4, return_sequences=True))
    assert bi.forward_layer.zero_output_for_mask and bi.backward_layer.zero_output_for_mask
    out = ops.convert_to_numpy(bi(x, mask=mask))
    h0 = np.zeros((2, 4), "float32")
    fw, _ = _np_masked_simple(x, bi.forward_layer.get_weights(), mask, h0, True)
    bw, _ = _np_masked_simple(x, bi.backward_layer.get_weights(), mask, h0, True, True)
    np.testing.assert_allclose(out, np.concatenate([fw, bw[:, ::-1]], -1), atol=1e-5)
    assert np.all(out[~mask] == 0)
    # Without return_sequences the layers keep repeating outputs (nothing to zero).
    last = layers.Bidirectional(layers.SimpleRNN(4))
    assert not last.forward_layer.zero_output_for_mask
    # Round trip keeps the behaviour.
    again = layers.Bidirectional.from_config(bi.get_config())
    assert again.forward_layer.zero_output_for_mask and again.backward_layer.zero_output_for_mask


def test_stacked_lstm_cells_take_and_return_keras_nested_states():
    x = _rand(2, 4, 3)
    cells = [layers.LSTMCell(4), layers.LSTMCell(2)]
    rnn = layers.RNN(cells, return_state=True)
    out, first, second = rnn(x)
    assert [tuple(s.shape) for s in first] == [(2, 4), (2, 4)]
    assert [tuple(s.shape) for s in second] == [(2, 2), (2, 2)]
    w1, w2 = cells[0].get_weights(), cells[1].get_weights()
    init = [[_rand(2, 4), _rand(2, 4)], [_rand(2, 2), _rand(2, 2)]]
    (h1, c1), (h2, c2) = init
    for t in range(4):
        h1, c1 = _np_lstm(x[:, t], w1, (h1, c1))
        h2, c2 = _np_lstm(h1, w2, (h2, c2))
    out, first, second = rnn(x, initial_state=init)
    np.testing.assert_allclose(ops.convert_to_numpy(out), h2, atol=1e-5)
    for got, ref in zip([*first, *second], [h1, c1, h2, c2], strict=True):
        np.testing.assert_allclose(ops.convert_to_numpy(got), ref, atol=1e-5)
    # A flat list of the same tensors is accepted too; a wrong count is refused.
    flat = rnn(x, initial_state=[t for pair in init for t in pair])
    np.testing.assert_allclose(ops.convert_to_numpy(flat[0]), h2, atol=1e-5)
    with pytest.raises(ValueError, match=r"expects 4 initial state.*\[\[4, 4\], \[2, 2\]\]"):
        rnn(x, initial_state=init[:1])
    # Symbolically: the encoder's nested states feed a decoder's initial_state.
    enc_in, dec_in = Input((4, 3)), Input((3, 3))
    enc = layers.RNN([layers.LSTMCell(4), layers.LSTMCell(2)], return_state=True)
    _, *enc_states = enc(enc_in)
    assert [tuple(s.shape) for s in enc_states[1]] == [(None, 2), (None, 2)]
    dec = layers.RNN([layers.LSTMCell(4), layers.LSTMCell(2)], return_sequences=True)
    model = Model([enc_in, dec_in], dec(dec_in, initial_state=enc_states))
    e, d = _rand(2, 4, 3), _rand(2, 3, 3)
    _, *states = enc(e)
    np.testing.assert_allclose(
        ops.convert_to_numpy(model([e, d])),
        ops.convert_to_numpy(dec(d, initial_state=states)),
        atol=1e-5,
    )


def test_bad_masks_and_states_name_the_layer_and_shapes():
    x = _rand(2, 5, 3)
    with pytest.raises(ValueError, match=r"'lstm_bad'.*\(2, 5\).*\(2, 4\)"):
        layers.LSTM(2, name="lstm_bad")(x, mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"mask must have shape.*\(2, 5\)"):
        layers.Bidirectional(layers.GRU(2))(x, mask=np.ones((5, 2), bool))
    with pytest.raises(ValueError, match=r"'gru_bad': initial state 0 must have shape \(2, 2\)"):
        layers.GRU(2, name="gru_bad")(x, initial_state=[_rand(2, 3)])
    with pytest.raises(ValueError, match="even number of initial states"):
        layers.Bidirectional(layers.GRU(2))(x, initial_state=[_rand(2, 2)] * 3)
    with pytest.raises(ValueError, match=r"rank 3.*shape \(2, 5\)"):
        layers.LSTM(2)(_rand(2, 5))
    with pytest.raises(ValueError, match="time_major=True"):
        layers.LSTM(2, time_major=True)
    layers.LSTM(2, time_major=False)  # a Keras 2 config's default loads
