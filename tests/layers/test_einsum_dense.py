"""EinsumDense: shapes from the equation (Keras's table), numerics against NumPy's
einsum and against Keras with copied weights, config and `.keras` files both ways,
training, and the errors for bad equations and shapes."""

import inspect
import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina import Input, Model, initializers, layers, ops
from lamina.testing import check_layer

os.environ.setdefault("KERAS_BACKEND", "jax")

RNG = np.random.default_rng(0)
ZEROS_KERNEL = {"kernel_initializer": "zeros"}


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _keras():
    return pytest.importorskip("keras")


# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
_KERAS_WARNING = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

# (equation, bias_axes, input_shape, output_shape, kernel, bias, output): Keras's own
# table of expected shapes (keras/src/layers/core/einsum_dense_test.py).
SHAPES = [
    ("ab,b->a", None, (2, 32), (), (32,), None, (2,)),
    ("ab,bc->ac", None, (2, 32), 64, (32, 64), None, (2, 64)),
    ("abc,cde->abde", None, (2, 1, 2), (1, 3, 4), (2, 3, 4), None, (2, 1, 3, 4)),
    ("abc,cde->abde", "e", (2, 1, 2), (1, 3, 4), (2, 3, 4), (4,), (2, 1, 3, 4)),
    ("abc,cde->abde", "d", (2, 1, 2), (1, 3, 4), (2, 3, 4), (3, 1), (2, 1, 3, 4)),
    ("abc,cde->abde", "be", (2, 7, 2), (7, 3, 4), (2, 3, 4), (7, 1, 4), (2, 7, 3, 4)),
    ("BFNH,NHD->BFD", None, (2, 1, 2, 3), (1, 4), (2, 3, 4), None, (2, 1, 4)),
    ("abc,cd->abd", None, (2, 1, 2), (1, 4), (2, 4), None, (2, 1, 4)),
    ("i,d->id", None, (2,), (2,), (2,), None, (2, 2)),
    ("ibd,nd->ibn", None, (2, 2, 1), (2, 2), (2, 1), None, (2, 2, 2)),
    ("...b,bc->...c", None, (2, 32), (64,), (32, 64), None, (2, 64)),
    ("...bc,bc->...b", None, (2, 32, 64), (32,), (32, 64), None, (2, 32)),
    ("...b,bc->...c", None, (2, 3, 32), (64,), (32, 64), None, (2, 3, 64)),
    ("...c,cde->...de", "e", (2, 1, 2), (3, 4), (2, 3, 4), (4,), (2, 1, 3, 4)),
    ("...c,cde->...de", "d", (2, 1, 2), (3, 4), (2, 3, 4), (3, 1), (2, 1, 3, 4)),
    ("...c,cde->...de", "de", (2, 1, 2), (3, 4), (2, 3, 4), (3, 4), (2, 1, 3, 4)),
    ("bc...,cd->bd...", None, (2, 1, 2, 3), (4,), (1, 4), None, (2, 4, 2, 3)),
    ("bc...,cde->bde...", "d", (2, 1, 2), (3, 4), (1, 3, 4), (3, 1, 1), (2, 3, 4, 2)),
    ("abc,cde->abde", "de", (2, 5, 6), (None, 2, 4), (6, 2, 4), (2, 4), (2, 5, 2, 4)),
]
SHAPE_IDS = [f"{s[0]}-{s[1]}-{i}" for i, s in enumerate(SHAPES)]


def _np_reference(layer, x):
    kernel, *bias = layer.get_weights()
    out = np.einsum(layer.equation, x, kernel)
    return out + bias[0] if bias else out


@pytest.mark.parametrize(
    "equation, bias_axes, shape, output_shape, kernel, bias, out", SHAPES, ids=SHAPE_IDS
)
def test_shapes_from_equation_and_numerics_match_numpy(
    equation, bias_axes, shape, output_shape, kernel, bias, out
):
    # Zero initial weights (random ones are set below): a random draw compiles per shape.
    kwargs = {"bias_axes": bias_axes, "kernel_initializer": "zeros"}
    layer = layers.EinsumDense(equation, output_shape, **kwargs)
    x = _rand(*shape)
    y = layer(x)
    assert tuple(layer.kernel.shape) == kernel
    assert (None if layer.bias is None else tuple(layer.bias.shape)) == bias
    assert [w.name for w in layer.weights] == ["kernel", "bias"][: 1 + (bias is not None)]
    assert tuple(y.shape) == out
    # A non-zero bias too, so a misplaced one shows.
    layer.set_weights([_rand(*w.shape) for w in layer.weights])
    np.testing.assert_allclose(
        ops.convert_to_numpy(layer(x)), _np_reference(layer, x), rtol=1e-5, atol=1e-5
    )
    # Symbolic: the batch stays unknown; every other axis is resolved from the input.
    assert layer.compute_output_shape((None,) + shape[1:]) == (None,) + out[1:]
    inp = Input(batch_shape=(None,) + shape[1:])
    assert layers.EinsumDense(equation, output_shape, **kwargs)(inp).shape == (None,) + out[1:]


@_KERAS_WARNING
@pytest.mark.parametrize(
    "equation, bias_axes, shape, output_shape, activation",
    [
        ("ab,bc->ac", "c", (3, 4), 5, "relu"),
        ("abc,cde->abde", "be", (2, 3, 4), (3, 2, 5), "tanh"),
        ("...x,xy->...y", "y", (2, 3, 2, 4), 5, None),
        ("bc...,cde->bde...", "d", (2, 3, 4, 2), (2, 5), None),
        ("BFNH,NHD->BFD", "D", (2, 3, 2, 4), (3, 6), "sigmoid"),
    ],
)
def test_matches_keras_with_copied_weights(equation, bias_axes, shape, output_shape, activation):
    keras = _keras()
    x = _rand(*shape)
    # Zero initial weights (both get the same random ones below): a draw compiles per shape.
    kwargs = {"activation": activation, "bias_axes": bias_axes, "kernel_initializer": "zeros"}
    ours = layers.EinsumDense(equation, output_shape, **kwargs)
    theirs = keras.layers.EinsumDense(equation, output_shape, **kwargs)
    ours.build(shape)
    theirs.build(shape)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    weights = [_rand(*w.shape) for w in ours.weights]
    ours.set_weights(weights)
    theirs.set_weights(weights)
    np.testing.assert_allclose(
        ops.convert_to_numpy(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5
    )


def test_conformance():
    check_layer(
        layers.EinsumDense,
        {
            "equation": "abc,cde->abde",
            "output_shape": (None, 2, 3),
            "bias_axes": "de",
            "kernel_initializer": "ones",  # a random draw compiles per shape: slow
        },
        input_shape=(2, 4, 5),
        expected_output_shape=(2, 4, 2, 3),
        expected_num_trainable_weights=2,
    )
    check_layer(
        layers.EinsumDense,
        {
            "equation": "...b,bc->...c",
            "output_shape": 3,
            "activation": "relu",
            "kernel_initializer": "ones",
        },
        input_shape=(2, 4, 5),
        expected_output_shape=(2, 4, 3),
        expected_num_trainable_weights=1,
    )


def test_fan_scaled_initializer_counts_output_axes_as_fan_out():
    # Kernel (c=50, d=2, e=2): Keras's fans are 50 in, 4 out, so the Glorot limit is
    # sqrt(6 / 54) = 0.333; the convolution-style fans (100, 100) would give 0.173.
    init = initializers.GlorotUniform(seed=1)
    layer = layers.EinsumDense("abc,cde->abde", (None, 2, 2), kernel_initializer=init)
    layer.build((None, 3, 50))
    kernel = ops.convert_to_numpy(layer.kernel)
    assert 0.25 < np.abs(kernel).max() <= np.sqrt(6 / 54) + 1e-6
    assert init.input_axes is None and init.output_axes is None  # the user's is untouched
    # Axes given by the user are kept.
    init = initializers.VarianceScaling(
        1.0, "fan_in", "uniform", input_axes=[0, 1], output_axes=[2]
    )
    layer = layers.EinsumDense("abc,cde->abde", (None, 2, 2), kernel_initializer=init)
    layer.build((None, 3, 50))
    assert np.abs(ops.convert_to_numpy(layer.kernel)).max() <= np.sqrt(3 / 100) + 1e-6


@_KERAS_WARNING
def test_config_keys_match_keras_and_round_trip():
    keras = _keras()
    kwargs = {
        "equation": "abc,cd->abd",
        "output_shape": (None, 4),
        "bias_axes": "d",
        "activation": "relu",
        "kernel_regularizer": "l2",
        "activity_regularizer": "l1",
        "kernel_constraint": "non_neg",
        "kernel_initializer": "ones",
    }
    ours = layers.EinsumDense(**kwargs)
    theirs = keras.layers.EinsumDense(**kwargs)
    config = ours.get_config()
    assert set(config) == set(theirs.get_config())
    assert config["output_shape"] == (None, 4) and config["equation"] == "abc,cd->abd"
    clone = layers.EinsumDense.from_config(config)
    assert clone.get_config() == config
    # A config written by Keras builds the same layer.
    from lamina.common import serialization

    keras_config = json.loads(json.dumps(keras.saving.serialize_keras_object(theirs)))
    revived = serialization.deserialize_keras_object(keras_config, "layers")
    assert type(revived) is layers.EinsumDense
    assert revived.partial_output_shape == (None, 4) and revived.bias_axes == "d"
    x = _rand(2, 3, 5)
    revived(x)
    clone(x)
    revived.set_weights([_rand(*w.shape) for w in revived.weights])
    clone.set_weights(revived.get_weights())
    np.testing.assert_allclose(
        ops.convert_to_numpy(clone(x)), ops.convert_to_numpy(revived(x)), atol=1e-6
    )


def test_default_name_matches_keras():
    # Weights files key layers by this snake-cased class name.
    assert layers.EinsumDense("ab,bc->ac", 2).name.startswith("einsum_dense")


def test_keras_signature_covered():
    keras = pytest.importorskip("keras")
    ours = set(inspect.signature(layers.EinsumDense).parameters)
    theirs = set(inspect.signature(keras.layers.EinsumDense).parameters)
    assert theirs <= ours


def _lamina_model():
    x = Input((3, 4))
    # Zero initial weights (`_perturb` randomizes them): a random draw compiles per shape.
    zeros = {"kernel_initializer": "zeros"}
    h = layers.EinsumDense("abc,cde->abde", (None, 2, 5), "tanh", "de", **zeros)(x)
    y = layers.EinsumDense("...de,def->...f", 3, bias_axes="f", **zeros)(h)
    return Model(x, y)


def _perturb(model):
    for w in model.weights:
        w.assign(ops.convert_to_numpy(w) + _rand(*w.shape) * 0.1)


@_KERAS_WARNING
def test_lamina_file_loads_in_keras(tmp_path):
    keras = _keras()
    model = _lamina_model()
    _perturb(model)
    path = str(tmp_path / "from_lamina.keras")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    names = [c["class_name"] for c in config["config"]["layers"]]
    assert names.count("EinsumDense") == 2
    loaded = keras.models.load_model(path)
    x = _rand(2, 3, 4)
    np.testing.assert_allclose(
        loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-5
    )


@_KERAS_WARNING
def test_keras_file_loads_in_lamina(tmp_path):
    keras = _keras()
    x = keras.Input((3, 4))
    zeros = {"kernel_initializer": "zeros"}
    h = keras.layers.EinsumDense("abc,cde->abde", (3, 2, 5), bias_axes="be", **zeros)(x)
    y = keras.layers.EinsumDense("bc...,cd->bd...", (6,), None, "d", **zeros)(h)
    model = keras.Model(x, y)
    _perturb(model)
    path = str(tmp_path / "from_keras.keras")
    model.save(path)
    loaded = lamina.models.load_model(path)
    data = _rand(2, 3, 4)
    np.testing.assert_allclose(
        loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-5, atol=1e-5
    )


def test_fit_lowers_the_loss():
    x = _rand(64, 3, 4)
    target = np.einsum("abc,cd->abd", x, _rand(4, 2)) + 0.5
    model = lamina.Sequential(
        [Input((3, 4)), layers.EinsumDense("abc,cd->abd", (None, 2), bias_axes="d")]
    )
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    history = model.fit(x, target, epochs=8, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"equation": "ab,bc", "output_shape": 3}, ValueError, "invalid equation 'ab,bc'"),
        ({"equation": "ab->b", "output_shape": 3}, ValueError, "invalid equation"),
        ({"equation": "a1,1c->ac", "output_shape": 3}, ValueError, "invalid equation"),
        ({"equation": "ab...,bc->ac", "output_shape": 3}, ValueError, "invalid equation"),
        ({"equation": "b...,bc->c...", "output_shape": 3}, ValueError, "invalid equation"),
        ({"equation": 12, "output_shape": 3}, TypeError, "string such as"),
        ({"equation": "ab,bc->az", "output_shape": 3}, ValueError, "output axis 'z'"),
        ({"equation": "ab,bcz->ac", "output_shape": 3}, ValueError, "kernel axis 'z'"),
        ({"equation": "abb,bc->ac", "output_shape": 3}, ValueError, "repeats"),
        ({"equation": "ab,bc->ac", "output_shape": "3"}, ValueError, "output_shape"),
        ({"equation": "ab,bc->ac", "output_shape": (0,)}, ValueError, "output_shape"),
        ({"equation": "ab,bc->ac", "output_shape": 3, "bias_axes": "x"}, ValueError, "bias_axes"),
        ({"equation": "ab,bc->ac", "output_shape": 3, "bias_axes": "cc"}, ValueError, "distinct"),
        ({"equation": "ab,bc->ac", "output_shape": 3, "lora_rank": 0}, ValueError, "lora_rank=0"),
        (
            {"equation": "ab,bc->ac", "output_shape": 3, "quantization_config": {"mode": "int8"}},
            ValueError,
            "quantization_config",
        ),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        layers.EinsumDense(**kwargs)


@pytest.mark.parametrize(
    "equation, output_shape, shape, match",
    [
        ("abc,cd->abd", (4,), (2, 3, 5), r"must give 2 size\(s\)"),
        ("abc,cd->abd", (None, 4), (2, 5), "rank exactly 3"),
        ("...bc,cd->...bd", (None, 4), (5,), "rank at least 2"),
        ("abc,cd->abd", (7, 4), (2, 3, 5), "size 3 in the input"),
        ("ab,bc->ac", (None,), (2, 5), "size of kernel axis 'c'"),
    ],
)
def test_bad_shapes_raise_clear_errors(equation, output_shape, shape, match):
    layer = layers.EinsumDense(equation, output_shape)
    with pytest.raises(ValueError, match=match):
        layer.build(shape)


def test_wrong_input_after_build_names_the_layer():
    layer = layers.EinsumDense("abc,cd->abd", (None, 4), name="proj", kernel_initializer="zeros")
    layer(_rand(2, 3, 5))
    with pytest.raises(ValueError, match="proj"):
        layer(_rand(2, 3, 6))
    constrained = layers.EinsumDense(
        "ab,bc->ac", 2, name="proj2", kernel_constraint="non_neg", lora_rank=2
    )
    with pytest.raises(ValueError, match="proj2.*kernel_constraint"):
        constrained.build((1, 2))


def test_gradients_match_numpy():
    # loss = sum(R * (einsum(x, K) + b)): dK = einsum(x, R), db = R summed over the
    # axes the bias broadcasts over, dx = einsum(R, K).
    from lamina import backend, ops

    layer = layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="be", **ZEROS_KERNEL)
    x, readout = _rand(2, 4, 5), _rand(2, 4, 2, 3)
    layer.build(x.shape)
    layer.set_weights([_rand(5, 2, 3), _rand(4, 1, 3)])
    weights = layer.trainable_weights

    def loss(params):
        with backend.StatelessScope(list(zip(weights, params[:2], strict=True))):
            return ops.sum(ops.multiply(layer(params[2]), readout))

    params = [w.value for w in weights] + [ops.convert_to_tensor(x)]
    _, (d_kernel, d_bias, d_x) = backend.value_and_grad(loss)(params)
    kernel = layer.get_weights()[0]
    np.testing.assert_allclose(
        ops.convert_to_numpy(d_kernel), np.einsum("abc,abde->cde", x, readout), atol=1e-4
    )
    d_bias_ref = readout.sum(axis=(0, 2))[:, None, :]  # bias (b=4, d=1, e=3)
    np.testing.assert_allclose(ops.convert_to_numpy(d_bias), d_bias_ref, atol=1e-4)
    np.testing.assert_allclose(
        ops.convert_to_numpy(d_x), np.einsum("abde,cde->abc", readout, kernel), atol=1e-4
    )


def test_flat_equations_run_as_a_dense_product_and_others_as_einsum():
    from lamina.layers.einsum_dense import _flat_plan, _parse_equation

    def plan(equation, bias_axes=None):
        return _flat_plan(_parse_equation(equation), bias_axes)

    assert plan("abc,cde->abde", "de") == (2, 1)  # attention's query/key/value projection
    assert plan("abcd,cde->abe", "e") == (2, 2)  # its output projection
    assert plan("ab,bc->ac", "c") == (1, 1)
    assert plan("abc,cde->abde") == (2, 1)
    assert plan("abc,cde->abde", "e") is None  # a bias over part of the output axes
    assert plan("abc,cde->abde", "be") is None
    assert plan("...b,bc->...c") is None
    assert plan("ibd,nd->ibn") is None  # the contracted axis last in the kernel
    assert plan("ab,b->a") == (1, 1)  # a product with one output column


@pytest.mark.engine("jax")
@_KERAS_WARNING
@pytest.mark.parametrize(
    "equation, bias_axes, shape, output_shape",
    [
        ("abc,cde->abde", "de", (2, 5, 6), (None, 2, 4)),
        ("abcd,cde->abe", "e", (2, 5, 2, 4), (None, 6)),
        ("abc,cd->abd", None, (2, 5, 6), (None, 3)),
        ("abc,cde->abde", "e", (2, 5, 6), (None, 2, 4)),  # the einsum path, for contrast
    ],
)
def test_gradients_match_keras(equation, bias_axes, shape, output_shape):
    import jax
    import jax.numpy as jnp

    keras = _keras()
    x = _rand(*shape)
    ours = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)
    theirs = keras.layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)
    ours.build(shape)
    theirs.build(shape)
    weights = [_rand(*w.shape) for w in ours.weights]
    ours.set_weights(weights)
    theirs.set_weights(weights)

    def grads(layer):
        def loss(ws, a):
            return jnp.sum(jnp.sin(layer.stateless_call(ws, [], a)[0]))

        return jax.jit(jax.grad(loss, (0, 1)))([jnp.asarray(w) for w in weights], x)

    for a, b in zip(jax.tree.leaves(grads(ours)), jax.tree.leaves(grads(theirs)), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
