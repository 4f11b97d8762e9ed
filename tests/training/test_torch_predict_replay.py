"""`predict` on torch replays a captured graph of its step from a signature's second call.

The first call with an input signature runs the step eagerly; the second runs it
eagerly while a dispatch mode records its aten operations into a graph; later calls run
that graph (`backend/torch/execution.py`, `_Replay`). These tests pin that the replay
engages for models made of lamina's layers, gives outputs bitwise equal to the eager
step (the same kernels run) and equal to a NumPy forward pass, follows the weights as
they change, and never replays what it cannot repeat: a user's layer or `Lambda` (their
Python runs on every call), an overridden `predict_step`, a step that assigns, adds a
loss, or reads a tensor's value in Python.
"""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import lamina
from lamina import Input, Model, Sequential, layers, ops

pytestmark = pytest.mark.engine("torch")

RNG = np.random.default_rng(0)


def _mlp(seed=0):
    lamina.utils.set_random_seed(seed)
    model = Sequential(
        [
            Input((6,)),
            layers.Dense(5, activation="relu"),
            layers.Dense(4, activation="tanh"),
            layers.Dense(3),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    return model


def _numpy_forward(model, x):
    (w1, b1), (w2, b2), (w3, b3) = [layer.get_weights() for layer in model.layers]
    h = np.maximum(x @ w1 + b1, 0.0)
    h = np.tanh(h @ w2 + b2)
    return h @ w3 + b3


def _replay(model):
    return model.predict_function["one"].replay


def test_the_second_call_captures_and_later_calls_replay_the_same_outputs():
    model = _mlp()
    x = RNG.standard_normal((4, 6)).astype("float32")
    first = model.predict(x, verbose=0)  # eager
    replay = _replay(model)
    assert replay.graph_count == 0
    second = model.predict(x, verbose=0)  # eager, recorded
    assert replay.graph_count == 1 and replay.off is None
    later = [model.predict(x, verbose=0) for _ in range(3)]
    assert replay.graph_count == 1  # one graph per signature, not per call
    for out in [second, *later]:
        np.testing.assert_array_equal(out, first)  # the same kernels: bitwise
    np.testing.assert_allclose(first, _numpy_forward(model, x), rtol=1e-5, atol=1e-6)
    # predict_on_batch shares the program, and so the graph.
    np.testing.assert_array_equal(model.predict_on_batch(x), first)


def test_the_replay_follows_the_weights_and_new_shapes():
    model = _mlp()
    x = RNG.standard_normal((2, 6)).astype("float32")
    for _ in range(3):
        model.predict(x, verbose=0)
    assert _replay(model).graph_count == 1
    model.fit(RNG.standard_normal((8, 6)), RNG.standard_normal((8, 3)), epochs=1, verbose=0)
    np.testing.assert_allclose(
        model.predict(x, verbose=0), _numpy_forward(model, x), rtol=1e-5, atol=1e-6
    )
    model.set_weights([w * 0.5 for w in model.get_weights()])
    np.testing.assert_allclose(
        model.predict(x, verbose=0), _numpy_forward(model, x), rtol=1e-5, atol=1e-6
    )
    other = RNG.standard_normal((7, 6)).astype("float32")  # a new signature
    for _ in range(3):
        np.testing.assert_allclose(
            model.predict(other, verbose=0), _numpy_forward(model, other), rtol=1e-5, atol=1e-6
        )
    assert _replay(model).graph_count == 2
    # A batched predict (full batches and a smaller last one) agrees too.
    many = RNG.standard_normal((21, 6)).astype("float32")
    for _ in range(2):
        np.testing.assert_allclose(
            model.predict(many, batch_size=8, verbose=0),
            _numpy_forward(model, many),
            rtol=1e-5,
            atol=1e-6,
        )


def _gallery():
    image = Sequential(
        [
            Input((6, 6, 2)),
            layers.Conv2D(3, 3, padding="same"),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(2, activation="softmax"),
        ]
    )
    recurrent = Sequential(
        [Input((5, 3)), layers.Masking(), layers.LSTM(4, return_sequences=True), layers.GRU(2)]
    )
    tokens = Input((5,), dtype="int32")
    embedded = layers.Embedding(11, 4)(tokens)
    attention = Model(
        tokens, layers.LayerNormalization()(layers.MultiHeadAttention(2, 3)(embedded, embedded))
    )
    a, b = Input((3,), name="a"), Input((3,), name="b")
    two_in_two_out = Model(
        {"a": a, "b": b},
        {"s": layers.Dense(2)(layers.Concatenate()([a, b])), "t": layers.Add()([a, b])},
    )
    normalized = Sequential(
        [Input((3,)), layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0])]
    )
    x_rec = RNG.standard_normal((2, 5, 3)).astype("float32")
    x_rec[:, 3:] = 0.0  # masked steps
    return [
        (image, RNG.standard_normal((2, 6, 6, 2)).astype("float32")),
        (recurrent, x_rec),
        (attention, RNG.integers(0, 11, (2, 5)).astype("int32")),
        (
            two_in_two_out,
            {
                "a": RNG.standard_normal((2, 3)).astype("float32"),
                "b": RNG.standard_normal((2, 3)).astype("float32"),
            },
        ),
        (normalized, RNG.standard_normal((2, 3)).astype("float32")),
    ]


@pytest.mark.parametrize("case", range(5), ids=["conv", "rnn", "attention", "dicts", "norm"])
def test_lamina_layers_replay_bitwise_equal_to_the_eager_step(case):
    lamina.utils.set_random_seed(1)
    model, x = _gallery()[case]
    model.compile(loss="mse")
    outs = [model.predict(x, verbose=0) for _ in range(4)]
    replay = _replay(model)
    assert replay.off is None and replay.graph_count == 1
    for out in outs[1:]:
        lamina.tree.map_structure(np.testing.assert_array_equal, out, outs[0])
    if case == 4:  # Normalization: (x - mean) / sqrt(variance)
        np.testing.assert_allclose(outs[3], (x - [1, 2, 3]) / [1, 2, 3], rtol=1e-6)


def test_a_users_layer_and_a_lambda_run_their_python_on_every_call():
    calls = []

    class Counted(layers.Layer):
        def call(self, x):
            calls.append(1)
            return x * 2.0

    def counted(x):
        calls.append(1)
        return x + 1.0

    for middle in (Counted(), layers.Lambda(counted)):
        model = Sequential([Input((3,)), middle, layers.Dense(2)])
        calls.clear()  # building the model ran the call symbolically
        x = np.ones((1, 3), "float32")
        for _ in range(4):
            model.predict(x, verbose=0)
        assert len(calls) == 4
        assert _replay(model).graph_count == 0


def test_an_overridden_predict_step_runs_on_every_call():
    class Doubling(Model):
        steps = 0

        def predict_step(self, data):
            type(self).steps += 1
            return super().predict_step(data) * 2.0

    inputs = Input((3,))
    model = Doubling(inputs, layers.Dense(2, kernel_initializer="ones")(inputs))
    model.compile(loss="mse")
    x = np.ones((1, 3), "float32")
    for _ in range(4):
        np.testing.assert_allclose(model.predict(x, verbose=0), [[6.0, 6.0]])
    assert Doubling.steps == 4


def test_a_subclass_of_a_lamina_layer_that_keeps_its_call_replays():
    class Wide(layers.Dense):
        def __init__(self, **kwargs):
            super().__init__(7, **kwargs)

    model = Sequential([Input((3,)), Wide()])
    x = np.ones((2, 3), "float32")
    outs = [model.predict(x, verbose=0) for _ in range(3)]
    assert _replay(model).graph_count == 1
    np.testing.assert_array_equal(outs[2], outs[0])


class _Norm(layers.Layer):
    """Reads a tensor's value in Python to decide what to compute."""

    @classmethod
    def _call_is_pure(cls):
        return True  # claims purity (its call is defined here): the tape must catch the read

    def call(self, x):
        if float(ops.max(x)) > 10.0:
            return x / 10.0
        return x


def test_a_step_that_reads_a_value_in_python_is_not_replayed():
    model = Sequential([Input((2,)), _Norm()])
    small, large = np.ones((1, 2), "float32"), np.full((1, 2), 50.0, "float32")
    for _ in range(3):
        np.testing.assert_allclose(model.predict(small, verbose=0), small)
    assert "reads a tensor's value" in _replay(model).off
    np.testing.assert_allclose(model.predict(large, verbose=0), large / 10.0)
    assert _replay(model).graph_count == 0


def test_a_step_that_adds_a_loss_runs_eagerly_and_one_that_assigns_replays_its_assignments():
    model = Sequential([Input((3,)), layers.Dense(2, activity_regularizer="l2")])
    x = np.ones((1, 3), "float32")
    outs = [model.predict(x, verbose=0) for _ in range(3)]
    assert "adds losses" in _replay(model).off
    np.testing.assert_array_equal(outs[2], outs[0])

    # A stateful RNN carries its state from call to call (predict_on_batch, the step):
    # the state is an input of the replayed graph and its new value an output, assigned
    # after each replay.
    rnn = Sequential([Input((2, 1), batch_size=1), layers.SimpleRNN(2, stateful=True)])
    x = np.ones((1, 2, 1), "float32")
    outs = [rnn.predict_on_batch(x) for _ in range(4)]
    assert _replay(rnn).off is None and _replay(rnn).graph_count == 1
    assert not np.array_equal(outs[0], outs[1]) and not np.array_equal(outs[1], outs[2])
    assert not np.array_equal(outs[2], outs[3])  # the replay (4th call) moved it on too
    rnn.reset_states()
    np.testing.assert_array_equal(rnn.predict_on_batch(x), outs[0])
    eager = Sequential([Input((2, 1), batch_size=1), layers.SimpleRNN(2, stateful=True)])
    eager.set_weights(rnn.get_weights()[:3])
    eager.compile(run_eagerly=True)
    for out in outs:
        np.testing.assert_array_equal(eager.predict_on_batch(x), out)


def test_run_eagerly_never_replays():
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    x = np.ones((1, 6), "float32")
    for _ in range(3):
        model.predict(x, verbose=0)
    assert _replay(model) is None


def test_predicts_from_several_threads_agree():
    model = _mlp()
    xs = [RNG.standard_normal((3, 6)).astype("float32") for _ in range(4)]
    expected = [_numpy_forward(model, x) for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(20):
                np.testing.assert_allclose(
                    model.predict(xs[i], verbose=0), expected[i], rtol=1e-5, atol=1e-6
                )
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_capturing_does_not_import_torch_dynamo():
    # torch's dispatch modes import torch._dynamo (~1 s) on their first operation unless
    # told otherwise: a second predict must not pay that.
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import lamina
        model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
        for _ in range(3):
            model.predict(np.ones((1, 3), "float32"), verbose=0)
        assert model.predict_function["one"].replay.graph_count == 1
        print("torch._dynamo" in sys.modules)
        """
    )
    env = {**os.environ, "LAMINA_BACKEND": "torch"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"


def test_a_repeated_one_batch_predict_takes_the_short_path_and_stays_correct(monkeypatch):
    # From a signature's third call on, a plain NumPy batch runs the captured graph with
    # nothing else looked up (`Program.lone_runner`): the step's ordinary call is not
    # made. Whatever may change what the graph computes sends the call back to it.
    model = _mlp()
    x = RNG.standard_normal((1, 6)).astype("float32")
    for _ in range(2):
        model.predict(x, verbose=0)
    program = model.predict_function["one"]
    ordinary = []  # calls of this predict program's ordinary path
    original = program._run
    monkeypatch.setattr(program, "_run", lambda args: ordinary.append(1) or original(args))

    def check(batch):
        np.testing.assert_allclose(
            model.predict(batch, verbose=0), _numpy_forward(model, batch), rtol=1e-5, atol=1e-6
        )

    for _ in range(3):
        check(x)
    assert ordinary == []  # the short path ran
    check(x.copy(order="F")[:, ::1])  # a copy of the caller's array, any layout
    x_keep = x.copy()
    out = model.predict(x, verbose=0)
    out[:] = 0.0  # the result is the caller's own array
    np.testing.assert_array_equal(x, x_keep)
    check(x)

    # In-place training and new weights: read at each call.
    model.fit(RNG.standard_normal((8, 6)), RNG.standard_normal((8, 3)), epochs=1, verbose=0)
    check(x)
    model.set_weights([w * 0.5 for w in model.get_weights()])
    check(x)
    assert ordinary == []

    # Another shape or dtype takes the ordinary call (and is right).
    check(RNG.standard_normal((3, 6)).astype("float32"))
    check(x.astype("float16"))
    assert ordinary

    # A frozen layer changes the model's structure: the ordinary call again, then the
    # short path for the new graph.
    ordinary.clear()
    model.layers[0].trainable = False
    check(x)
    assert ordinary
    for _ in range(2):
        check(x)
    ordinary.clear()
    check(x)
    assert ordinary == []

    # Input checks on: a NaN is refused as on the ordinary path.
    lamina.config.enable_input_checks()
    try:
        with pytest.raises(ValueError, match="non-finite"):
            model.predict(np.full((1, 6), np.nan, "float32"), verbose=0)
    finally:
        lamina.config.disable_input_checks()

    # A profile block counts the call (the ordinary path times it).
    with lamina.backend.profile() as prof:
        check(x)
    assert sum(s.calls for s in prof.stats.values()) == 1

    # A new compile makes new programs; the old short path is not used.
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    ordinary.clear()
    calls = []
    monkeypatch.setattr(model, "predict_step", lambda data: calls.append(1) or model(data))
    for _ in range(3):
        check(x)
    assert len(calls) == 3


def test_values_made_from_constants_alone_are_kept_in_the_graph_and_outputs_are_fresh():
    # `where(x > 0, x, 0.0)` makes its 0.0 with `scalar_tensor` on every eager call; the
    # graph keeps it as a constant instead. A constant the step returns is copied on each
    # replay, so that changing one call's output in place never reaches the next.
    import torch

    from lamina.backend.torch import replay as replay_lib

    def step(state, x):
        return {"relu": ops.where(x > 0, x, 0.0), "zeros": ops.zeros((2,))}

    replay = replay_lib.Replay(lambda: [], "constants")
    x = torch.tensor([-1.0, 2.0, -3.0])
    eager = step(None, x)
    captured = replay.run(step, None, x)
    assert replay.off is None and replay.graph_count == 1
    ((forward, _, _),) = replay._graphs.values()
    made = [n.target for n in forward.__self__.graph.nodes if n.op == "call_function"]
    assert torch.ops.aten.scalar_tensor.default not in made
    assert torch.ops.aten.zeros.default not in made
    first = replay.run(step, None, x)
    first["zeros"].add_(5.0)
    second = replay.run(step, None, torch.tensor([4.0, -5.0, 6.0]))
    for out in (captured, first):
        np.testing.assert_array_equal(out["relu"].numpy(), eager["relu"].numpy())
    np.testing.assert_array_equal(second["relu"].numpy(), [4.0, 0.0, 6.0])
    np.testing.assert_array_equal(second["zeros"].numpy(), [0.0, 0.0])
    assert second["zeros"] is not first["zeros"]


def test_the_replayed_forward_calls_each_operation_directly_with_fx_s_results():
    # `_direct_forward`: FX's generated code with `torch.ops.aten.<op>.<overload>(...)`
    # replaced by the operation's C++ entry point; the outputs are FX's own, bitwise.
    model = _mlp()
    x = RNG.standard_normal((4, 6)).astype("float32")
    for _ in range(3):
        out = model.predict(x, verbose=0)
    ((forward, stores, _),) = _replay(model)._graphs.values()
    assert forward.__func__.__code__.co_filename == "<lamina replay>"
    assert any(name.startswith("_op_aten_addmm") for name in forward.__func__.__globals__)
    import torch

    inputs = [store["_param"] for store in stores] + [torch.from_numpy(x)]
    with torch.no_grad():
        direct, fx = forward(*inputs), forward.__self__.forward(*inputs)
    direct, fx = ([v for v in lamina.tree.flatten(o) if v is not None] for o in (direct, fx))
    assert len(direct) == len(fx) >= 1
    for a, b in zip(direct, fx, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(direct[0].numpy(), out)


def test_permutes_that_undo_each_other_are_folded_out_of_the_graph():
    # Channels-last layers each convert to torch's layout and back: between a
    # convolution and the BatchNormalization after it the two permutes cancel, and the
    # graph keeps neither; the outputs stay bitwise the eager call's.
    import torch

    lamina.utils.set_random_seed(2)
    model = Sequential(
        [
            Input((6, 6, 2)),
            layers.Conv2D(3, 3),
            layers.BatchNormalization(),
            layers.Conv2D(4, 2),
            layers.Flatten(),
        ]
    )
    x = RNG.standard_normal((2, 6, 6, 2)).astype("float32")
    outs = [model.predict(x, verbose=0) for _ in range(3)]  # eager, captured, replayed
    for out in outs[1:]:
        np.testing.assert_array_equal(out, outs[0])
    ((forward, _, _),) = _replay(model)._graphs.values()
    permute = torch.ops.aten.permute.default
    for node in forward.__self__.graph.nodes:
        inner = node.args[0] if node.args else None
        if node.target is permute and getattr(inner, "target", None) is permute:
            composed = [inner.args[1][axis] for axis in node.args[1]]
            assert composed != list(range(len(composed)))
    kept = [n for n in forward.__self__.graph.nodes if n.target is permute]
    assert kept  # the conversions at the model's edges (and the kernels' views) remain
