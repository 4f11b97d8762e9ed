"""A layer's first input given by keyword, as Keras binds it (issue 38 item 1).

`layer(source=x, source_mask=m)` for `call(self, source, source_mask=None)` works eagerly,
symbolically (the node records the call, and the graph's config, `from_config` and a
`.keras` file carry it), inside a subclassed model's `call` and inside `fit`, each compared
with Keras 3 on the same data and weights. Keras's own config of such a graph (its node
has no positional arguments) loads into lamina. The built-in layers take their first input
under Keras's name for it, a `build` of several shapes gets each by name, and every public
callable with a first tensor takes it by Keras's keyword.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

import lamina  # noqa: E402
from lamina import layers, ops  # noqa: E402
from lamina.layers.layer_arguments import first_call_argument  # noqa: E402

X = np.arange(24, dtype="float32").reshape(2, 3, 4) / 10.0
MASK = np.array([[True, True, False], [True, False, False]])
Y = np.ones((2, 3, 4), "float32")


def _np(x):
    return np.asarray(ops.convert_to_numpy(x)) if not isinstance(x, np.ndarray) else x


def masked_scale(mod):
    """The same layer in lamina and in Keras: `source * w`, zeroed where masked."""

    class MaskedScale(mod.layers.Layer):
        def build(self, source_shape):
            self.w = self.add_weight(shape=(source_shape[-1],), initializer="ones", name="w")

        def call(self, source, source_mask=None):
            out = source * self.w
            if source_mask is not None:
                out = out * mod.ops.expand_dims(mod.ops.cast(source_mask, out.dtype), -1)
            return out

    return MaskedScale


def functional(mod):
    source = mod.Input((3, 4), name="source")
    mask = mod.Input((3,), dtype="bool", name="mask")
    out = masked_scale(mod)(name="scale")(source=source, source_mask=mask)
    return mod.Model([source, mask], out)


def subclassed(mod):
    class Holder(mod.Model):
        def __init__(self):
            super().__init__()
            self.scale = masked_scale(mod)()

        def call(self, data):
            return self.scale(source=data[0], source_mask=data[1])

    return Holder()


EXPECTED = X * MASK[..., None]


def test_eager_call_by_keyword_matches_keras():
    ours = masked_scale(lamina)()(source=X, source_mask=MASK)
    theirs = masked_scale(keras)()(source=X, source_mask=MASK)
    np.testing.assert_allclose(_np(ours), np.asarray(theirs), rtol=1e-6)
    np.testing.assert_allclose(_np(ours), EXPECTED, rtol=1e-6)
    # Only the first input by keyword, the rest positionally-free, as Keras binds it.
    np.testing.assert_allclose(_np(masked_scale(lamina)()(source=X)), X, rtol=1e-6)


def test_symbolic_call_by_keyword_records_the_node_and_round_trips(tmp_path):
    model = functional(lamina)
    theirs = np.asarray(functional(keras)([X, MASK]))
    np.testing.assert_allclose(_np(model([X, MASK])), theirs, rtol=1e-6)
    node = model.get_layer("scale")._inbound_nodes[0]
    assert node.call_args[0] is model.inputs[0]
    assert node.call_kwargs["source_mask"] is model.inputs[1]
    assert [t.name for t in node.input_tensors] == ["source", "mask"]

    custom = {"MaskedScale": type(model.get_layer("scale"))}
    config = model.get_config()
    clone = lamina.Model.from_config(config, custom_objects=custom)
    np.testing.assert_allclose(_np(clone([X, MASK])), theirs, rtol=1e-6)
    assert clone.get_config() == config

    path = str(tmp_path / "keyword.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path, custom_objects=custom)
    np.testing.assert_allclose(_np(loaded([X, MASK])), theirs, rtol=1e-6)


def test_keras_config_of_a_keyword_node_loads():
    # Keras records `layer(source=..., source_mask=...)` with no positional arguments.
    config = functional(keras).get_config()
    (entry,) = [e for e in config["layers"] if e["name"] == "scale"]
    assert entry["inbound_nodes"][0]["args"] in ([], ())
    assert set(entry["inbound_nodes"][0]["kwargs"]) == {"source", "source_mask"}
    model = lamina.Model.from_config(config, custom_objects={"MaskedScale": masked_scale(lamina)})
    np.testing.assert_allclose(_np(model([X, MASK])), EXPECTED, rtol=1e-6)


def test_subclassed_call_and_fit_by_keyword_match_keras():
    results = {}
    for mod in (lamina, keras):
        model = subclassed(mod)
        first = model([X, MASK])
        model.compile(optimizer=mod.optimizers.SGD(0.1), loss="mse")
        history = model.fit([X, MASK], Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
        results[mod.__name__] = (_np(first), history.history["loss"], _np(model.scale.w))
    ours, theirs = results["lamina"], results["keras"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5)


def test_functional_fit_with_a_keyword_node_matches_keras():
    losses = []
    for mod in (lamina, keras):
        model = functional(mod)
        model.compile(optimizer=mod.optimizers.SGD(0.1), loss="mse")
        history = model.fit([X, MASK], Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
        losses.append(history.history["loss"])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


def test_call_without_inputs_names_the_argument():
    with pytest.raises(TypeError, match=r"pass the first input positionally or as `source`"):
        masked_scale(lamina)()(source_mask=MASK)


# Built-in layers: Keras's name for the first input ----------------------------------------
SEQ = np.linspace(-1.0, 1.0, 2 * 3 * 2, dtype="float32").reshape(2, 3, 2)
IMAGES = np.linspace(0.0, 1.0, 2 * 4 * 4 * 1, dtype="float32").reshape(2, 4, 4, 1)
BUILT_IN = {
    # name: (constructor arguments, input, Keras's keyword)
    "LSTM": ((2,), SEQ, "sequences"),
    "GRU": ((2,), SEQ, "sequences"),
    "SimpleRNN": ((2,), SEQ, "sequences"),
    "ConvLSTM1D": ((2, 1), SEQ[..., None], "sequences"),
    "RMSNormalization": ((), SEQ, "x"),
    "RandomFlip": ((), IMAGES, "data"),
    "Resizing": ((2, 2), IMAGES, "data"),
    "CenterCrop": ((2, 2), IMAGES, "data"),
    "Dense": ((2,), SEQ, "inputs"),
    "Add": ((), [SEQ, SEQ], "inputs"),
}


def _build(module, name, args):
    return getattr(module.layers, name)(*args)


@pytest.mark.parametrize("name", list(BUILT_IN))
def test_built_in_layer_takes_its_first_input_by_keras_keyword(name):
    args, data, keyword = BUILT_IN[name]
    assert first_call_argument(getattr(keras.layers, name)) == keyword
    assert first_call_argument(getattr(layers, name)) == keyword
    layer = _build(lamina, name, args)
    positional = layer(data, training=False)  # (the same flip both times)
    by_name = layer(**{keyword: data}, training=False)
    np.testing.assert_allclose(_np(by_name), _np(positional), rtol=1e-6)
    spec = [lamina.Input(np.shape(d)[1:]) for d in data] if name == "Add" else None
    symbolic = layer(**{keyword: spec if spec else lamina.Input(data.shape[1:])})
    keras_spec = (
        [keras.Input(np.shape(d)[1:]) for d in data] if spec else keras.Input(data.shape[1:])
    )
    assert symbolic.shape == _build(keras, name, args)(keras_spec).shape


def test_every_keras_layer_takes_its_first_input_under_keras_name():
    differ = {}
    for name in dir(keras.layers):
        theirs = getattr(keras.layers, name)
        ours = getattr(layers, name, None)
        if inspect.isclass(theirs) and issubclass(theirs, keras.layers.Layer) and ours:
            if first_call_argument(theirs) not in (first_call_argument(ours), None):
                differ[name] = (first_call_argument(theirs), first_call_argument(ours))
    assert not differ


def _first_parameter(fn, skip_self):
    parameters = list(inspect.signature(fn).parameters.values())[1 if skip_self else 0 :]
    return parameters[0].name if parameters else None


def _public_callables():
    """(label, Keras callable, lamina callable, skip self) for the callables a Keras
    program calls with its first tensor by keyword."""
    for module in ("activations", "losses", "ops"):
        for name in dir(getattr(keras, module)):
            theirs, ours = (
                getattr(getattr(keras, module), name),
                getattr(getattr(lamina, module), name, None),
            )
            if inspect.isfunction(theirs) and callable(ours) and not name.startswith("_"):
                yield f"{module}.{name}", theirs, ours, False
    for module, method in (
        ("regularizers", "__call__"),
        ("constraints", "__call__"),
        ("initializers", "__call__"),
        ("losses", "call"),
        ("metrics", "update_state"),
    ):
        for name in dir(getattr(keras, module)):
            theirs = getattr(getattr(keras, module), name)
            ours = getattr(getattr(lamina, module), name, None)
            if inspect.isclass(theirs) and inspect.isclass(ours) and method in theirs.__dict__:
                yield (
                    f"{module}.{name}.{method}",
                    getattr(theirs, method),
                    getattr(ours, method),
                    True,
                )


def test_public_callables_take_their_first_argument_by_keras_keyword():
    differ = []
    for label, theirs, ours, skip_self in _public_callables():
        try:
            keyword = _first_parameter(theirs, skip_self)
            accepted = set(inspect.signature(ours).parameters)
        except (TypeError, ValueError):
            continue
        if keyword not in (None, "args", "kwargs") and keyword not in accepted:
            if "kwargs" not in accepted:
                differ.append((label, keyword))
    assert not differ


def test_regularizer_and_optimizer_take_keras_keywords():
    eye = np.eye(2, dtype="float32")
    assert float(lamina.regularizers.OrthogonalRegularizer()(inputs=eye)) == float(
        keras.regularizers.OrthogonalRegularizer()(inputs=eye)
    )
    w = lamina.Variable(np.ones(2, "float32"))
    for make in (lamina.optimizers.Adam, lamina.optimizers.SGD):
        optimizer = make()
        optimizer.build(var_list=[w])  # Keras's Adam names it so (its SGD `variables`)
        assert optimizer.built
    lamina.optimizers.SGD().build(variables=[w])


# A build of several shapes --------------------------------------------------------------
def two_shapes(mod):
    class QueryValue(mod.layers.Layer):
        def build(self, query_shape, value_shape):
            self.w = self.add_weight(
                shape=(query_shape[-1], value_shape[-1]), initializer="ones", name="w"
            )

        def call(self, query, value):
            return mod.ops.matmul(query, self.w) + value

    return QueryValue


def test_build_of_several_shapes_gets_each_by_name(tmp_path):
    q, v = np.ones((2, 3), "float32"), np.full((2, 4), 0.5, "float32")
    expected = np.asarray(two_shapes(keras)()(q, v))
    for call in (lambda layer: layer(q, v), lambda layer: layer(value=v, query=q)):
        np.testing.assert_allclose(_np(call(two_shapes(lamina)())), expected, rtol=1e-6)
    a, b = lamina.Input((3,)), lamina.Input((4,))
    layer = two_shapes(lamina)(name="qv")
    model = lamina.Model([a, b], layer(query=a, value=b))
    theirs = two_shapes(keras)()
    theirs(query=keras.Input((3,)), value=keras.Input((4,)))
    assert layer.get_build_config() == theirs.get_build_config()
    assert layer.get_build_config()["shapes_dict"]["value_shape"] == (None, 4)
    path = str(tmp_path / "two.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path, custom_objects={"QueryValue": type(layer)})
    np.testing.assert_allclose(_np(loaded([q, v])), expected, rtol=1e-6)
    rebuilt = two_shapes(lamina)()
    rebuilt.build_from_config(layer.get_build_config())
    assert rebuilt.w.shape == (3, 4)
