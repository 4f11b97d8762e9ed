"""Keras 3 top-level names: `version`, `name_scope`, `device`, `SymbolicScope`, and
`import lamina.random`. Expected values are Keras 3.15's (run on both its engines)."""

import importlib

import numpy as np
import pytest

import lamina
from lamina import layers


def test_version_is_the_package_version():
    assert lamina.version() == lamina.__version__ == importlib.metadata.version("lamina")
    assert {"version", "name_scope", "device", "SymbolicScope"} <= set(lamina.__all__)


def test_import_lamina_random_is_ops_random():
    random = importlib.import_module("lamina.random")
    from lamina.random import SeedGenerator, normal

    assert random is lamina.random is lamina.ops.random
    sample = normal((2, 3), seed=SeedGenerator(1))
    assert tuple(sample.shape) == (2, 3)


# name_scope ----------------------------------------------------------------------------
def _paths(layer):
    return [v.path for v in layer.weights]


def test_explicit_name_scopes_prefix_variable_paths():
    # Keras: "outer/v", "outer/inner/variable", "outer/ll/ww", "outer/dense/kernel".
    with lamina.name_scope("outer") as scope:
        assert isinstance(scope, lamina.name_scope) and scope.name == "outer"
        assert lamina.Variable(1.0, name="v").path == "outer/v"
        with lamina.name_scope("inner"):
            assert lamina.Variable(1.0).path == "outer/inner/variable"
        holder = layers.Layer(name="ll")
        assert holder.add_weight(shape=(), name="ww").path == "outer/ll/ww"
        dense = layers.Dense(2, name="dd")
        dense.build((None, 3))
    assert _paths(dense) == ["outer/dd/kernel", "outer/dd/bias"]
    assert lamina.Variable(1.0, name="v").path == "v"


def test_name_scope_arguments_as_keras():
    with lamina.name_scope("outer"):
        with lamina.name_scope("outer"):  # no caller: not deduplicated
            assert lamina.Variable(1.0, name="v").path == "outer/outer/v"
        with lamina.name_scope("inner", override_parent="top"):
            assert lamina.Variable(1.0, name="v").path == "top/inner/v"
        with lamina.name_scope("inner", override_parent=""):
            assert lamina.Variable(1.0, name="v").path == "inner/v"
        owner = object()
        with lamina.name_scope("same", caller=owner):
            with lamina.name_scope("same", caller=owner):  # same caller: one level
                assert lamina.Variable(1.0, name="v").path == "outer/same/v"
    for bad in ("a/b", 3):
        with pytest.raises(ValueError, match="string without '/'"):
            lamina.name_scope(bad)


def test_layer_paths_match_keras():
    # (a) alone, (b) in a Sequential started by an Input, and in a functional model.
    dense = layers.Dense(2, name="solo")
    dense.build((None, 3))
    assert _paths(dense) == ["solo/kernel", "solo/bias"]
    seq = lamina.Sequential([lamina.Input((3,)), layers.Dense(2, name="d1")], name="seq")
    assert _paths(seq) == ["seq/d1/kernel", "seq/d1/bias"]
    lazy = lamina.Sequential([layers.Dense(2, name="d2")], name="lazy")
    lazy(np.ones((1, 3), "float32"))
    assert _paths(lazy) == ["lazy/d2/kernel", "lazy/d2/bias"]
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Dense(2, name="d3")(inputs))
    assert _paths(model) == ["d3/kernel", "d3/bias"]
    outer = lamina.Sequential([lamina.Input((3,)), seq], name="outer_seq")
    assert _paths(outer) == ["seq/d1/kernel", "seq/d1/bias"]  # built before: kept


class _BuildsInBuild(layers.Layer):
    def build(self, input_shape):
        self.inner = layers.Dense(2, name="inner")
        self.inner.build(input_shape)
        self.w = self.add_weight(shape=(1,), name="w")

    def call(self, x):
        return self.inner(x)


class _BuildsInCall(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = layers.Dense(2, name="inner")

    def call(self, x):
        return self.inner(x)


@pytest.mark.engine("jax")
def test_sublayer_paths_match_keras():
    # (c) Keras: ['outer_l/w', 'outer_l/dense/kernel', ...] (weights in Keras's order).
    x = np.ones((1, 3), "float32")
    layer = _BuildsInBuild(name="b1")
    layer(x)
    assert _paths(layer) == ["b1/w", "b1/inner/kernel", "b1/inner/bias"]
    direct = _BuildsInBuild(name="b2")
    direct.build((None, 3))
    assert _paths(direct) == ["b2/w", "b2/inner/kernel", "b2/inner/bias"]
    eager = _BuildsInCall(name="c1")
    eager(x)
    assert _paths(eager) == ["c1/inner/kernel", "c1/inner/bias"]
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, _BuildsInCall(name="c2")(inputs))
    assert _paths(model) == ["c2/inner/kernel", "c2/inner/bias"]
    with lamina.name_scope("top"):
        seq = lamina.Sequential([lamina.Input((3,)), layers.Dense(2, name="dd")], name="s")
    assert _paths(seq) == ["top/s/dd/kernel", "top/s/dd/bias"]
    # The path is fixed where a layer is first built, not where it is called later.
    with lamina.name_scope("elsewhere"):
        layer(x)
    assert _paths(layer)[0] == "b1/w"


# device --------------------------------------------------------------------------------
def _device_kind(x):
    device = getattr(x, "device", None)
    if callable(device):  # a JAX array's `device` is a method in some versions
        device = device()
    if device is None:
        (device,) = x.devices()
    return str(getattr(device, "platform", None) or device.type)


@pytest.mark.parametrize("name", ["cpu", "cpu:0", "CPU:0"])
def test_device_places_new_tensors(name):
    with lamina.device(name):
        ones = lamina.ops.ones((2,))
        converted = lamina.ops.convert_to_tensor(np.arange(3.0))
        variable = lamina.Variable(np.zeros(2, "float32"))
    for x in (ones, converted, variable.value):
        assert _device_kind(x) == "cpu"
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(converted), np.arange(3.0))


def test_device_refuses_unknown_and_missing_devices():
    with pytest.raises(ValueError, match=r"'tpux:0'.*\"cpu\", \"gpu\" or \"tpu\""):
        lamina.device("tpux:0")
    with pytest.raises(ValueError, match=r"Unknown device name 3"):
        lamina.device(3)
    with pytest.raises(ValueError, match=r"'cpu:7' is not available.*'cpu:0'"):
        lamina.device("cpu:7")


# SymbolicScope -------------------------------------------------------------------------
def test_symbolic_scope_is_open_while_layers_run_symbolically():
    from lamina.backend.common.symbolic_scope import in_symbolic_scope

    seen = []

    class Probe(layers.Layer):
        def call(self, x):
            seen.append(in_symbolic_scope())
            return x

    assert not in_symbolic_scope()
    with lamina.SymbolicScope() as scope:
        assert isinstance(scope, lamina.SymbolicScope) and in_symbolic_scope()
    assert not in_symbolic_scope()
    Probe()(lamina.Input((2,)))  # Keras: True on a symbolic call (once per stand-in size)
    assert seen and all(seen)
    Probe()(np.ones((1, 2), "float32"))  # Keras: False on data
    assert seen[-1] is False
