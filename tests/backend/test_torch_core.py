"""The torch engine's core, execution, random and math modules, whatever engine is active.

The modules are imported directly, so these run under the default JAX engine too; the
references are NumPy/SciPy formulas, Python loops and the JAX engine.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special

torch = pytest.importorskip("torch")

# The torch engine against the JAX one: each comparison runs once, in the torch pass.
pytestmark = pytest.mark.engine("torch")

from lamina.backend import config  # noqa: E402
from lamina.backend.common.execution import RetraceWarning  # noqa: E402
from lamina.backend.common.variables import StatelessScope, standardize_dtype  # noqa: E402
from lamina.backend.jax import core as jax_core  # noqa: E402
from lamina.backend.torch import core, execution, random  # noqa: E402
from lamina.backend.torch import math as tmath  # noqa: E402
from lamina.graph.keras_tensor import KerasTensor  # noqa: E402


def _dtype(x) -> str:
    return standardize_dtype(x.dtype)


# Conversion ---------------------------------------------------------------------------
CONVERSIONS = [
    1.0,
    3,
    True,
    np.float32(2.0),
    np.int64(4),
    np.int8(4),
    np.arange(3.0),
    np.arange(3),
    np.arange(3, dtype="uint8"),
    np.arange(3, dtype="float16"),
    np.array([True, False]),
    [1, 2],
    [1.0, 2.0],
    [[True]],
]


@pytest.mark.parametrize("value", CONVERSIONS, ids=repr)
def test_convert_to_tensor_gives_the_jax_engines_dtypes(value):
    t = core.convert_to_tensor(value)
    assert isinstance(t, torch.Tensor)
    assert _dtype(t) == _dtype(jax_core.convert_to_tensor(value))
    np.testing.assert_array_equal(core.convert_to_numpy(t), np.asarray(value))


@pytest.mark.parametrize("dtype", ["float64", "int64", "bfloat16", "int8", "bool", "float16"])
def test_convert_to_tensor_casts_to_an_explicit_dtype(dtype):
    t = core.convert_to_tensor([1.0, 0.0], dtype=dtype)
    assert _dtype(t) == dtype
    assert _dtype(core.cast(t, "float32")) == "float32"
    assert _dtype(core.convert_to_tensor(torch.ones(2), dtype=dtype)) == dtype


def test_python_floats_follow_floatx():
    config.set_floatx("float16")
    try:
        assert _dtype(core.convert_to_tensor(1.5)) == "float16"
        assert _dtype(core.convert_to_tensor(np.ones(2))) == "float16"
    finally:
        config.set_floatx("float32")


def test_tensors_pass_through_without_a_copy():
    for t in (torch.ones(2), torch.arange(3), torch.ones(2, dtype=torch.float64)):
        assert core.convert_to_tensor(t) is t
        assert core.convert_to_tensor(t, dtype=_dtype(t)) is t
    v = core.Variable(np.ones(2, "float32"))
    assert core.convert_to_tensor(v) is v.value


def test_conversion_never_aliases_the_callers_data():
    a = np.arange(4.0, dtype="float32")
    t = core.convert_to_tensor(a)
    a[0] = 9.0
    assert t[0].item() == 0.0
    back = core.convert_to_numpy(t)
    t.add_(1.0)  # an in-place update (an optimizer step) does not reach the copy
    np.testing.assert_array_equal(back, [0.0, 1.0, 2.0, 3.0])


def test_lists_of_tensors_are_stacked():
    w = torch.ones(2, requires_grad=True)
    t = core.convert_to_tensor([w * 2, torch.zeros(2)])
    assert t.shape == (2, 2) and t.requires_grad  # stacked in torch, not through NumPy
    mixed = core.convert_to_tensor([[torch.tensor(1), 2], [3, 4]], dtype="float32")
    np.testing.assert_array_equal(mixed.numpy(), [[1.0, 2.0], [3.0, 4.0]])


def test_odd_numpy_layouts_convert():
    reversed_ = np.arange(4.0)[::-1]
    np.testing.assert_array_equal(
        core.convert_to_numpy(core.convert_to_tensor(reversed_)), reversed_
    )
    frozen = np.ones(3)
    frozen.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(core.convert_to_numpy(core.convert_to_tensor(frozen)), frozen)


def test_convert_to_numpy_detaches_and_keeps_bfloat16():
    w = torch.ones(3, requires_grad=True)
    np.testing.assert_array_equal(core.convert_to_numpy(w * 2), [2.0, 2.0, 2.0])
    b = core.convert_to_numpy(core.convert_to_tensor([1.5], dtype="bfloat16"))
    assert standardize_dtype(b.dtype) == "bfloat16" and float(b[0]) == 1.5
    for value in ([1, 2], np.ones(2), 3.0):
        assert isinstance(core.convert_to_numpy(value), np.ndarray)
    with pytest.raises(ValueError, match="'meta' device"):
        core.convert_to_numpy(torch.ones(2, device="meta"))


def test_predicates_shape_and_stop_gradient():
    t = core.convert_to_tensor(np.zeros((2, 3)))
    assert core.is_tensor(t) and not core.is_tensor(np.zeros(2))
    assert core.is_concrete(t) and core.is_concrete(np.zeros(2))
    assert not core.is_concrete(torch.ones(2, device="meta"))
    assert core.shape(t) == (2, 3) and all(type(d) is int for d in core.shape(t))
    w = torch.ones(2, requires_grad=True)
    assert not core.stop_gradient(w * 3).requires_grad
    assert core.SUPPORTS_SPARSE_TENSORS is False


def test_unknown_dtype_is_a_clear_error():
    with pytest.raises(ValueError, match="no PyTorch equivalent"):
        core.to_torch_dtype("str")


# Variables ----------------------------------------------------------------------------
def test_variable_reads_assigns_and_converts():
    v = core.Variable(np.array([1.0, 2.0]), name="v")
    assert v.dtype == "float32" and v.shape == (2,) and isinstance(v.value, torch.Tensor)
    v.assign(torch.tensor([3.0, 4.0], dtype=torch.float64))
    assert v.value.dtype == torch.float32
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0])
    np.testing.assert_array_equal(np.asarray(v), [4.0, 5.0])
    assert float(v.numpy()[0]) == 4.0 and int(core.Variable(3)) == 3 and bool(core.Variable(True))
    # The value is one Parameter for the variable's life, written in place; trainable
    # floats record gradients, and the initial tensor is copied, not shared.
    assert isinstance(v.value, torch.nn.Parameter) and v.value.requires_grad
    param = v.value
    v.assign([7.0, 8.0])
    assert v.value is param
    source = torch.ones(2)
    shared = core.Variable(source)
    shared.assign([5.0, 5.0])
    assert source.tolist() == [1.0, 1.0]
    frozen = core.Variable(np.ones(2, "float32"), trainable=False)
    assert not frozen.value.requires_grad
    frozen.trainable = True
    assert frozen.value.requires_grad
    assert np.asarray(v, dtype="float64").dtype == np.float64
    with pytest.raises(ValueError, match=r"cannot assign a value of shape \(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    counter = core.Variable(0, dtype="int64", trainable=False)
    assert counter.value.dtype == torch.int64
    init = core.Variable(lambda shape, dtype: np.ones(shape, dtype), shape=(2, 2))
    assert init.value.dtype == torch.float32


def test_variable_in_a_stateless_scope():
    v = core.Variable(np.ones(2, "float32"))
    with StatelessScope([(v, torch.zeros(2))]) as scope:
        assert v.value.sum().item() == 0.0
        v.assign(torch.full((2,), 5.0))
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])
    ((var, value),) = scope.updates
    assert var is v and value.sum().item() == 10.0


# Differentiation ----------------------------------------------------------------------
def _loss(params, x):
    w, b = params["w"], params["b"]
    return ((x @ w + b[0]) ** 2).sum() + (b[1] ** 3).sum()


def test_value_and_grad_matches_analytic_gradients():
    rng = np.random.RandomState(0)
    x, w = rng.randn(4, 3).astype("float32"), rng.randn(3, 2).astype("float32")
    b0, b1 = rng.randn(2).astype("float32"), rng.randn(2).astype("float32")
    params = {"w": torch.tensor(w), "b": [torch.tensor(b0), torch.tensor(b1)]}
    value, grads = core.value_and_grad(_loss)(params, torch.tensor(x))
    r = x @ w + b0
    np.testing.assert_allclose(value.item(), (r**2).sum() + (b1**3).sum(), rtol=1e-5)
    np.testing.assert_allclose(grads["w"].numpy(), x.T @ (2 * r), rtol=1e-5)
    np.testing.assert_allclose(grads["b"][0].numpy(), (2 * r).sum(0), rtol=1e-5)
    np.testing.assert_allclose(grads["b"][1].numpy(), 3 * b1**2, rtol=1e-5)
    assert isinstance(grads["b"], list) and set(grads) == {"w", "b"}
    leaves = [value, grads["w"], *grads["b"]]
    assert not any(t.requires_grad for t in leaves)
    assert all(p.grad is None and not p.requires_grad for p in (params["w"], *params["b"]))


def test_value_and_grad_with_aux_unused_inputs_and_no_grad_around():
    def fn(ws, scale):
        y = ws[0] * scale
        return y.sum(), {"y": y, "n": 3}

    ws = [torch.tensor([1.0, 2.0]), torch.tensor([5.0]), torch.tensor([1, 2])]
    with torch.no_grad():  # a program that did not ask for gradients
        (value, aux), grads = core.value_and_grad(fn, has_aux=True)(ws, 3.0)
    assert value.item() == 9.0 and aux["n"] == 3 and not aux["y"].requires_grad
    np.testing.assert_array_equal(aux["y"].numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(grads[0].numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(grads[1].numpy(), [0.0])  # unused: zeros
    assert grads[2].dtype == torch.int64 and grads[2].sum().item() == 0
    with pytest.raises(ValueError, match=r"return a scalar .*shape \(2,\)"):
        core.value_and_grad(lambda ws: ws[0] * 2)(ws)


def test_value_and_grad_agrees_with_jax():
    x = np.linspace(-1, 1, 5).astype("float32")

    def fn(w):  # operators only: the same code on both engines
        return (w * w * w - w * 2.0).sum()

    _, g_torch = core.value_and_grad(fn)(torch.tensor(x))
    _, g_jax = jax_core.value_and_grad(fn)(jax_core.convert_to_tensor(x))
    np.testing.assert_allclose(g_torch.numpy(), np.asarray(g_jax), rtol=1e-6)


# Control flow -------------------------------------------------------------------------
def _step(carry, x):
    total, count = carry
    return (total + x["a"] * 2.0, count + 1), {"sq": x["a"] * x["a"], "b": x["b"] + count}


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_jax(reverse):
    xs = {"a": np.arange(12.0, dtype="float32").reshape(4, 3), "b": np.arange(4, dtype="int32")}
    init = (np.zeros(3, "float32"), np.int32(0))
    (t_total, t_count), t_ys = core.scan(
        _step,
        tuple(core.convert_to_tensor(v) for v in init),
        {k: core.convert_to_tensor(v) for k, v in xs.items()},
        reverse=reverse,
    )
    (j_total, j_count), j_ys = jax_core.scan(
        _step,
        tuple(jax_core.convert_to_tensor(v) for v in init),
        {k: jax_core.convert_to_tensor(v) for k, v in xs.items()},
        reverse=reverse,
    )
    np.testing.assert_allclose(t_total.numpy(), np.asarray(j_total))
    assert int(t_count) == int(j_count) == 4
    for key in ("sq", "b"):
        np.testing.assert_allclose(t_ys[key].numpy(), np.asarray(j_ys[key]))
        assert _dtype(t_ys[key]) == _dtype(j_ys[key])


def test_scan_without_xs_uses_length():
    def body(c, _):
        return c * 2.0, c

    carry, ys = core.scan(body, core.convert_to_tensor(1.0), None, length=4)
    assert carry.item() == 16.0
    np.testing.assert_array_equal(ys.numpy(), [1.0, 2.0, 4.0, 8.0])
    with pytest.raises(ValueError, match="needs `length`"):
        core.scan(body, 1.0, None)
    with pytest.raises(ValueError, match="same leading length"):
        core.scan(body, 1.0, [torch.ones(2), torch.ones(3)])


def test_loops_and_cond_match_python():
    total = 0
    for i in range(2, 7):
        total = total * 2 + i
    assert int(core.fori_loop(2, 7, lambda i, v: v * 2 + i, core.convert_to_tensor(0))) == total
    out = core.while_loop(
        lambda s: s[0] < 10, lambda s: (s[0] + 3, s[1] * 2), (core.convert_to_tensor(0), 1)
    )
    assert int(out[0]) == 12 and out[1] == 16
    capped = core.while_loop(lambda v: v < 100, lambda v: v + 1, 0, maximum_iterations=5)
    assert capped == 5
    pred = core.convert_to_tensor(True)
    assert core.cond(pred, lambda: "yes", lambda: "no") == "yes"
    assert core.cond(core.convert_to_tensor(0) > 1, lambda: 1, lambda: 2) == 2


def test_vectorized_map_and_unstack():
    x = np.arange(6.0, dtype="float32").reshape(3, 2)
    out = core.vectorized_map(lambda row: row.sum() * row, core.convert_to_tensor(x))
    np.testing.assert_allclose(out.numpy(), x.sum(1, keepdims=True) * x)
    parts = core.unstack(core.convert_to_tensor(x), axis=1)
    assert len(parts) == 2
    np.testing.assert_array_equal(parts[1].numpy(), x[:, 1])


# Slicing ------------------------------------------------------------------------------
@pytest.mark.parametrize("start", [(0, 1), (1, 2), (2, 3), (-1, 0)])
def test_slice_and_slice_update_match_jax(start):
    x = np.arange(20.0, dtype="float32").reshape(4, 5)
    update = -np.ones((2, 3), "float32")
    got = core.slice(core.convert_to_tensor(x), start, (2, 3))
    want = jax_core.slice(jax_core.convert_to_tensor(x), start, (2, 3))
    np.testing.assert_array_equal(got.numpy(), np.asarray(want))  # starts clamped as in lax
    tx = core.convert_to_tensor(x)
    got = core.slice_update(tx, core.convert_to_tensor(list(start)), update)
    want = jax_core.slice_update(jax_core.convert_to_tensor(x), start, update)
    np.testing.assert_array_equal(got.numpy(), np.asarray(want))
    np.testing.assert_array_equal(tx.numpy(), x)  # functional: the input is untouched


# Abstract evaluation ------------------------------------------------------------------
def _spec(*a, **k):
    return core.compute_output_spec(
        *a, **k, is_spec=lambda x: isinstance(x, KerasTensor), make_spec=KerasTensor
    )


def test_output_spec_of_a_dense_like_fn_with_a_variable():
    kernel = core.Variable(np.ones((4, 5), "float32"), name="kernel")
    seen_meta = []

    def dense(x):
        w = core.convert_to_tensor(kernel)
        seen_meta.append(w.is_meta)
        kernel.assign(w * 2.0)  # discarded: a stateless scope is open
        return {"y": torch.matmul(x, w), "n": x.shape[0]}

    out = _spec(dense, (KerasTensor((None, 4)),), {})
    assert out["y"].shape == (None, 5) and out["y"].dtype == "float32"
    assert out["n"].shape == () and out["n"].dtype == "int32"
    assert seen_meta == [True, True]  # two fills, both on the meta device
    np.testing.assert_array_equal(kernel.numpy(), np.ones((4, 5)))
    assert not core._meta[0]


def test_variables_read_directly_join_the_meta_evaluation():
    bias = core.Variable(np.ones(5, "float32"), name="bias")
    devices = []

    def add(x):
        devices.append(bias.value.device.type)
        return x + bias.value  # torch refuses `meta + cpu`: the read must be on meta

    assert _spec(add, (KerasTensor((None, 5)),), {}).shape == (None, 5)
    assert devices == ["meta", "meta"]
    assert bias.value.device.type == "cpu"


def test_output_spec_of_a_reshape_and_known_shapes():
    out = _spec(lambda x: x.reshape(x.shape[0], -1), (KerasTensor((None, 4, 3)),), {})
    assert out.shape == (None, 12)
    out = _spec(
        lambda x, y: (x.to(torch.int32), y), (KerasTensor((2, 3)),), {"y": KerasTensor((1,))}
    )
    assert out[0].shape == (2, 3) and out[0].dtype == "int32" and out[1].shape == (1,)


def test_output_spec_falls_back_to_real_tensors_when_meta_fails():
    calls = []

    def needs_data(x):
        calls.append(x.device.type)
        return x + x.sum().item()  # `.item()` has no meaning on meta

    out = _spec(needs_data, (KerasTensor((None, 2)),), {})
    assert out.shape == (None, 2) and calls[0] == "meta" and calls[-1] == "cpu"
    assert not core._meta[0]

    def broken(x):
        raise ValueError("a bug in the layer")

    with pytest.raises(ValueError, match="a bug in the layer"):
        _spec(broken, (KerasTensor((None, 2)),), {})
    assert not core._meta[0]


def test_variables_created_during_abstract_evaluation_hold_real_data():
    made = []

    def builds(x):
        made.append(core.Variable(lambda shape, dtype: torch.ones(shape), shape=(2,)))
        return x

    _spec(builds, (KerasTensor((None, 2)),), {})
    assert all(not v.value.is_meta for v in made)


# Execution ----------------------------------------------------------------------------
def test_program_counts_one_trace_per_signature():
    prog = execution.program(lambda x, n: x * n, "double", static_argnums=(1,))
    for shape, n in [((2,), 2), ((2,), 2), ((3,), 2), ((2,), 3), ((3,), 2)]:
        prog(torch.ones(shape), n)
    assert prog.trace_count == 3 and prog.name == "double" and prog.compiled
    assert repr(prog) == "<Program double: traced 3 time(s)>"
    eager = execution.Program(lambda x: x, "eager", compiled=False)
    eager(torch.ones(1))
    assert eager.trace_count == 0


def test_program_warns_on_a_retrace_storm_and_bounds_its_record():
    prog = execution.Program(lambda x: x, "storm", max_signatures=2)
    with pytest.warns(RetraceWarning, match="storm has been compiled 6 times"):
        for n in range(6):
            prog(torch.ones(n))
    assert len(prog._signatures) <= 2


def test_program_runs_without_autograd_unless_asked():
    w = torch.ones(2, requires_grad=True)
    assert not execution.program(lambda: w * 2, "plain")().requires_grad
    assert execution.program(lambda: w * 2, "grad", gradients=True)().requires_grad

    def train(values):  # value_and_grad works in either kind
        return core.value_and_grad(lambda ws: (ws[0] ** 2).sum())(values)[1]

    for gradients in (False, True):
        (g,) = execution.program(train, "step", gradients=gradients)([torch.ones(2)])
        np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])


def test_program_scope_is_strict_as_a_jax_trace():
    outside = core.Variable(np.ones(2, "float32"), name="outside")
    inside = core.Variable(np.ones(2, "float32"), name="inside")

    def step(value):
        with StatelessScope([(inside, value)]):
            return core.convert_to_tensor(inside) + core.convert_to_tensor(outside)

    with pytest.raises(ValueError, match="tried to read variable 'outside'"):
        execution.program(step, "strict step")(torch.zeros(2))
    # Uncompiled (run_eagerly) it is ordinary code.
    out = execution.program(step, "eager step", compiled=False)(torch.zeros(2))
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])


def test_a_live_program_reads_the_live_variables_and_restores_the_autograd_mode():
    outside = core.Variable(np.ones(2, "float32"), name="outside")

    def step(value):
        return core.convert_to_tensor(outside) + value

    out = execution.program(step, "live step", live=True)(torch.zeros(2))
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])
    for enabled in (True, False):
        with torch.set_grad_enabled(enabled):
            for gradients in (False, True):
                prog = execution.program(step, "step", gradients=gradients, live=True)
                prog(torch.zeros(2))
                assert torch.is_grad_enabled() is enabled
                with pytest.raises(ZeroDivisionError):
                    execution.program(lambda: 1 / 0, "fails", gradients=gradients)()
                assert torch.is_grad_enabled() is enabled


def test_jax_programs_refuse_live_steps():
    from lamina.backend.jax import execution as jax_execution

    with pytest.raises(ValueError, match="needs a stateful engine"):
        jax_execution.program(lambda x: x, "pure step", live=True)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16", "int8", "uint8", "bool"])
def test_numpy_batches_convert_to_the_same_dtype_as_copies(dtype):
    host = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    for arr in (host, np.asfortranarray(host), host[:, ::2]):
        t = core.convert_to_tensor(arr)
        assert _dtype(t) == dtype and tuple(t.shape) == arr.shape
        np.testing.assert_array_equal(t.numpy(), arr)
        before = arr.copy()
        arr[...] = 1  # the tensor never aliases the caller's array
        np.testing.assert_array_equal(t.numpy(), before)


def test_gradients_of_a_recorded_loss():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    unused = torch.zeros(3, requires_grad=True)
    loss = (w**2).sum()
    gw, gu = execution.gradients(loss, [w, unused])
    np.testing.assert_array_equal(gw.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(gu.numpy(), np.zeros(3))
    frozen = core.Variable(np.ones(2, "float32"), name="frozen", trainable=False)
    with pytest.raises(ValueError, match=r"variables \['frozen'\] do not record gradients"):
        execution.gradients(loss, [frozen])


# Random -------------------------------------------------------------------------------
SEED = random.make_seed(42)


def test_seed_dtype_supports_the_seed_generator_arithmetic():
    assert _dtype(SEED) == random.SEED_DTYPE
    state = core.Variable(SEED, dtype=random.SEED_DTYPE, trainable=False)
    state.assign(state.value + core.convert_to_tensor([0, 1], dtype=random.SEED_DTYPE))
    assert state.value.tolist() == [0, 43]


@pytest.mark.parametrize(
    "draw",
    [
        lambda s: random.normal((50,), seed=s),
        lambda s: random.uniform((50,), seed=s),
        lambda s: random.truncated_normal((50,), seed=s),
        lambda s: random.randint((50,), 0, 1000, seed=s),
        lambda s: random.categorical(torch.zeros(2, 10), 20, seed=s),
        lambda s: random.dropout(torch.ones(50), 0.5, seed=s),
        lambda s: random.shuffle(torch.arange(50), seed=s),
    ],
)
def test_samples_are_a_function_of_the_seed(draw):
    a, b = draw(SEED), draw(random.make_seed(42))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), draw(SEED + torch.tensor([0, 1])).numpy())
    assert not np.array_equal(a.numpy(), draw(random.make_seed(43)).numpy())


def test_distributions():
    n = 20000
    x = random.normal((n,), mean=2.0, stddev=3.0, seed=SEED).numpy()
    assert x.dtype == np.float32 and abs(x.mean() - 2.0) < 0.1 and abs(x.std() - 3.0) < 0.1
    u = random.uniform((n,), minval=-1.0, maxval=3.0, seed=SEED).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    t = random.truncated_normal((n,), mean=1.0, stddev=2.0, seed=SEED).numpy()
    # A standard normal cut at +-2 has standard deviation 0.8796.
    assert t.min() >= 1.0 - 4.0 and t.max() <= 1.0 + 4.0
    assert abs(t.mean() - 1.0) < 0.05 and abs(t.std() - 2.0 * 0.8796) < 0.05
    k = random.randint((n,), 3, 7, seed=SEED)
    assert k.dtype == torch.int32 and set(k.tolist()) == {3, 4, 5, 6}
    assert _dtype(random.normal((2,), dtype="bfloat16", seed=SEED)) == "bfloat16"
    assert _dtype(random.uniform((2,), dtype="float16", seed=SEED)) == "float16"


def test_categorical_frequencies():
    probs = np.array([[0.1, 0.6, 0.3], [0.0, 0.0, 1.0]])
    with np.errstate(divide="ignore"):
        logits = core.convert_to_tensor(np.log(probs))
    draws = random.categorical(logits, 5000, seed=SEED)
    assert draws.shape == (2, 5000) and draws.dtype == torch.int32
    freq = np.bincount(draws[0].numpy(), minlength=3) / 5000
    np.testing.assert_allclose(freq, probs[0], atol=0.03)
    assert set(draws[1].tolist()) == {2}


def test_a_program_refuses_compiler_options_it_could_not_use():
    # XLA's options (JAX's `step_programs` passes them for whole compiled steps): torch
    # compiles no step whole, so it says so rather than drop them.
    with pytest.raises(ValueError, match="takes no compiler_options.*fusion_emitters"):
        execution.Program(lambda x: x, "p", compiler_options={"xla_cpu_use_fusion_emitters": False})
    assert execution.Program(lambda x: x, "p", compiler_options=None).compiler_options is None


def test_dropout_keeps_x_over_keep_and_a_dropped_nan_stays_nan():
    # The kept values are `x / keep_prob` exactly (NumPy's division of the same float32s)
    # and the dropped are 0, as `where` gave; a dropped NaN or infinity stays NaN, as in
    # torch's own `nn.Dropout` (docs/guides/choosing_an_engine.md). `rate=1` drops all.
    x = np.random.default_rng(1).normal(size=(64, 33)).astype("float32")
    y = random.dropout(torch.from_numpy(x), 0.3, seed=SEED).numpy()
    kept = y != 0
    assert 0.6 < kept.mean() < 0.8
    np.testing.assert_array_equal(y, np.where(kept, x / np.float32(0.7), 0.0))
    odd = torch.tensor([np.nan, np.inf, -np.inf, 1.0] * 250)
    out = random.dropout(odd, 0.5, seed=SEED).numpy()
    assert np.isnan(out[0::4]).all()  # a NaN input: NaN, kept or dropped
    # An infinity: kept as an infinity, dropped as NaN (0 * inf), never 0.
    assert np.isinf(out[1::4]).any() and np.isnan(out[1::4]).any()
    assert not (out[1::4] == 0).any()
    np.testing.assert_array_equal(out[3::4][out[3::4] != 0], 2.0)
    np.testing.assert_array_equal(random.dropout(odd, 1.0, seed=SEED).numpy(), 0.0)


def test_dropout_keeps_exactly_the_draws_below_keep_prob(monkeypatch):
    # The mask is computed with float kernels, not a comparison: it must keep exactly
    # where the uniform draw is below `keep_prob` (NumPy's float32 comparison), draws
    # one float away from the threshold and at it included.
    keep = np.float32(0.7)
    edges = [np.nextafter(keep, np.float32(0)), keep, np.nextafter(keep, np.float32(1))]
    u = np.concatenate([edges, [0.0, 1.0 - 2**-24], np.linspace(0, 1, 995)]).astype("float32")
    monkeypatch.setattr(random, "_draw", lambda *a, **k: torch.from_numpy(u.copy()))
    x = np.linspace(-3.0, 3.0, u.size).astype("float32")
    for dtype in ("float32", "float64"):
        y = random.dropout(torch.from_numpy(x.astype(dtype)), 0.3, seed=SEED).numpy()
        expected = np.where(u < keep, x.astype(dtype) / np.asarray(0.7, dtype), 0.0)
        np.testing.assert_array_equal(y, expected.astype(dtype))
    assert (y[:3] != 0).tolist() == [True, False, False]


def test_dropout_scales_and_shuffle_permutes():
    x = torch.ones(10000)
    y = random.dropout(x, 0.25, seed=SEED).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1.0 / 0.75)
    assert abs(kept.mean() - 0.75) < 0.02
    rows = random.dropout(torch.ones(4, 1000), 0.5, noise_shape=(4, 1), seed=SEED).numpy()
    assert all(len(set(r.tolist())) == 1 for r in rows)  # one draw per row
    x = torch.arange(12).reshape(3, 4)
    s = random.shuffle(x, axis=1, seed=SEED)
    assert sorted(s[0].tolist()) == [0, 1, 2, 3]
    # Row 0 of `x` is 0..3, so it spells the permutation: every row moved with it.
    np.testing.assert_array_equal(s.numpy(), x.numpy()[:, s[0].tolist()])


def test_random_during_abstract_evaluation_gives_shapes_only():
    out = _spec(lambda x: random.dropout(x, 0.5, seed=SEED), (KerasTensor((None, 3)),), {})
    assert out.shape == (None, 3)


# Math ---------------------------------------------------------------------------------
def test_top_k_and_in_top_k():
    x = np.array([[1.0, 5.0, 3.0, 4.0], [9.0, 2.0, 8.0, 0.0]], "float32")
    values, indices = tmath.top_k(core.convert_to_tensor(x), 2)
    np.testing.assert_array_equal(values.numpy(), -np.sort(-x, axis=1)[:, :2])
    np.testing.assert_array_equal(indices.numpy(), np.argsort(-x, axis=1)[:, :2])
    assert indices.dtype == torch.int32
    hit = tmath.in_top_k(core.convert_to_tensor([2, 3]), core.convert_to_tensor(x), 2)
    np.testing.assert_array_equal(hit.numpy(), [False, False])
    hit = tmath.in_top_k(core.convert_to_tensor([3, 2]), core.convert_to_tensor(x), 2)
    np.testing.assert_array_equal(hit.numpy(), [True, True])


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_logsumexp(axis, keepdims):
    x = np.random.RandomState(1).randn(3, 4).astype("float32") * 10
    got = tmath.logsumexp(core.convert_to_tensor(x), axis=axis, keepdims=keepdims)
    want = scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_erf_and_rsqrt():
    x = np.linspace(-3, 3, 13).astype("float32")
    np.testing.assert_allclose(
        tmath.erf(core.convert_to_tensor(x)).numpy(), scipy.special.erf(x), atol=1e-6
    )
    assert _dtype(tmath.erf(core.convert_to_tensor([1, 2]))) == "float32"
    pos = np.array([0.25, 1.0, 4.0], "float32")
    np.testing.assert_allclose(tmath.rsqrt(core.convert_to_tensor(pos)).numpy(), 1 / np.sqrt(pos))


def test_segment_sum():
    data = np.arange(12.0, dtype="float32").reshape(6, 2)
    ids = np.array([0, 0, 2, 1, 2, 5])
    want = np.zeros((4, 2), "float32")
    for row, i in zip(data, ids):
        if i < 4:
            want[i] += row  # out-of-range ids are dropped, as in JAX
    got = tmath.segment_sum(core.convert_to_tensor(data), core.convert_to_tensor(ids), 4)
    np.testing.assert_array_equal(got.numpy(), want)
    inferred = tmath.segment_sum(core.convert_to_tensor(data), core.convert_to_tensor(ids))
    assert inferred.shape == (6, 2)
    ints = tmath.segment_sum(core.convert_to_tensor([1, 2, 3]), core.convert_to_tensor([1, 1, 0]))
    assert ints.dtype == torch.int32 and ints.tolist() == [3, 3]


@pytest.mark.parametrize(
    "ord, axis",
    [(None, None), (1, 1), (2, 0), (np.inf, 1), ("fro", None), ("nuc", (0, 1)), (1, (0, 1))],
)
def test_norm(ord, axis):
    x = np.random.RandomState(2).randn(3, 4).astype("float32")
    got = tmath.norm(core.convert_to_tensor(x), ord=ord, axis=axis)
    np.testing.assert_allclose(got.numpy(), np.linalg.norm(x, ord=ord, axis=axis), rtol=1e-5)
    kept = tmath.norm(core.convert_to_tensor(x), axis=1, keepdims=True)
    assert kept.shape == (3, 1)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(mode):
    x = np.random.RandomState(3).randn(5, 3).astype("float32")
    q, r = tmath.qr(core.convert_to_tensor(x), mode=mode)
    nq, nr = np.linalg.qr(x, mode=mode)
    assert q.shape == nq.shape and r.shape == nr.shape
    np.testing.assert_allclose((q @ r).numpy(), x, atol=1e-5)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(nr), atol=1e-5)
    with pytest.raises(ValueError, match="unknown mode 'full'"):
        tmath.qr(core.convert_to_tensor(x), mode="full")
