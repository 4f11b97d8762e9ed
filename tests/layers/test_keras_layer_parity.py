"""Differences from Keras 3 that the layer sweep found, pinned here whatever the
sweep's sample: the sweep itself (every layer against Keras 3 on the same weights and
input, in every calling mode) is the differential harness, `tests/parity/`, and its
cases are in `tests/parity/layer_cases.py`."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

pytestmark = [
    # Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    # The deprecation of LayerNormalization(rms_scaling=True), Keras's and lamina's.
    pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`:UserWarning"),
    # Keras's MixUp asks JAX for an int64 arange, which JAX truncates with a warning.
    pytest.mark.filterwarnings("ignore:.*Explicitly requested dtype int64:UserWarning"),
]

RNG = np.random.default_rng(1234)


def _f(*shape):
    return RNG.normal(size=shape).astype("float32")


def _numpy(value):
    if value is None:
        return None
    return np.asarray(ops.convert_to_numpy(value))


# -- differences the sweep found, pinned whatever the day's sample -------------------


def test_multi_head_attention_compute_output_shape_takes_keras_arguments():
    # Keras's signature is compute_output_shape(query_shape, value_shape, key_shape=None);
    # lamina's MultiHeadAttention took only one shape (TypeError on two).
    for L in (keras.layers, lamina.layers):
        layer = L.MultiHeadAttention(num_heads=2, key_dim=3, output_shape=(4, 2))
        assert layer.compute_output_shape((None, 5, 6), (None, 7, 3)) == (None, 5, 4, 2)
        assert layer.compute_output_shape((None, 5, 6), (None, 7, 3), (None, 7, 2)) == (
            None,
            5,
            4,
            2,
        )
        with pytest.raises(ValueError, match="key"):
            layer.compute_output_shape((None, 5, 6), (None, 7, 3), (None, 8, 2))
    # The symbolic call still gives the scores' spec too.
    query, value = lamina.Input((5, 6)), lamina.Input((7, 3))
    out, scores = lamina.layers.MultiHeadAttention(2, 3)(query, value, return_attention_scores=True)
    assert out.shape == (None, 5, 6) and scores.shape == (None, 2, 5, 7)


_M1 = np.array([[1, 1, 0], [1, 0, 0]], bool)
_M2 = np.array([[1, 0, 0], [1, 1, 0]], bool)
_A, _B = _f(2, 3, 2), _f(2, 3, 2)


@pytest.mark.parametrize("name", ["Add", "Maximum", "Minimum", "Multiply", "Concatenate"])
def test_merge_masks_as_keras(name):
    # Keras 3: an element-wise merge keeps a step that any input keeps (no mask when an
    # input has none); Concatenate keeps a step that any concatenated feature keeps; and
    # Maximum/Minimum ignore a masked input's values, Multiply takes them as 1 (lamina
    # ANDed the masks and merged the masked values).
    from keras.src import backend as keras_backend

    for masks in [(_M1, _M2), (_M1, None), (None, _M2)]:
        a, b = keras.ops.convert_to_tensor(_A), keras.ops.convert_to_tensor(_B)
        for x, m in zip((a, b), masks, strict=True):
            if m is not None:
                keras_backend.set_keras_mask(x, keras.ops.convert_to_tensor(m))
        keras_layer = getattr(keras.layers, name)()
        expected = np.asarray(keras_layer([a, b]))
        expected_mask = keras_layer.compute_mask([a, b], list(masks))

        layer = getattr(lamina.layers, name)()
        got = layer([_A, _B], mask=list(masks))
        np.testing.assert_allclose(_numpy(got), expected, rtol=1e-6, atol=1e-6)
        got_mask = layer.compute_mask([_A, _B], list(masks))
        assert (got_mask is None) == (expected_mask is None), (masks, got_mask, expected_mask)
        if expected_mask is not None:
            np.testing.assert_array_equal(_numpy(got_mask), np.asarray(expected_mask))


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic"])
def test_resizing_keeps_integer_images_integer(interpolation):
    # Keras 3 rounds a resized integer image and casts it back, saturating (bicubic
    # overshoots 0..255); lamina returned the float32 resize.
    images = np.zeros((1, 4, 4, 1), "uint8")
    images[0, 1:3, 1:3, 0] = 255
    expected = keras.layers.Resizing(7, 5, interpolation=interpolation)(images)
    got = lamina.layers.Resizing(7, 5, interpolation=interpolation)(images)
    assert _numpy(got).dtype == np.uint8
    np.testing.assert_array_equal(_numpy(got), np.asarray(expected))


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda L: L.Flatten(), (3, 2)),
        (lambda L: L.Reshape((6,)), (3, 2)),
        (lambda L: L.Permute((2, 1)), (3, 2)),
        (lambda L: L.RepeatVector(2), (3,)),
        (lambda L: L.Cropping1D(1), (4, 2)),
        (lambda L: L.ZeroPadding1D(1), (4, 2)),
        (lambda L: L.UpSampling1D(2), (4, 2)),
        (lambda L: L.Identity(), (3,)),
        (lambda L: L.Activation("relu"), (3,)),
        (lambda L: L.Resizing(3, 2), (4, 4, 1)),
    ],
)
def test_an_integer_input_gives_the_dtype_its_call_gives(make, shape):
    # The harness found symbolic specs of float32 where the call on data gives the
    # integer dtype back (Keras's own symbolic call does so for Flatten, Reshape, Permute
    # and Identity, and its call on data for all of them).
    x = np.arange(2 * int(np.prod(shape))).reshape((2,) + shape).astype("int32") % 7
    expected = str(keras.ops.convert_to_numpy(make(keras.layers)(x)).dtype)
    layer = make(lamina.layers)
    assert str(_numpy(layer(x)).dtype) == expected
    assert layer(lamina.Input(shape, dtype="int32")).dtype == expected


def test_softmax_passes_its_mask_on_as_keras():
    from keras.src import backend as keras_backend

    from lamina.graph.masks import get_mask

    x, mask = _f(2, 3), np.array([[1, 1, 0], [1, 0, 0]], bool)
    expected = keras_backend.get_keras_mask(keras.layers.Softmax()(x, mask=mask))
    got = get_mask(lamina.layers.Softmax()(x, mask=mask))
    np.testing.assert_array_equal(_numpy(got), np.asarray(expected))


def test_a_bare_model_call_augments_as_keras():
    # Keras's augmentation layers default their call to training=True, so `model(x)`
    # augments and `predict` does not; lamina's compiled `model(x)` on JAX ran them in
    # inference.
    images = np.random.default_rng(0).uniform(size=(4, 6, 5, 3)).astype("float32")
    for L, base in ((keras.layers, keras), (lamina.layers, lamina)):
        inputs = base.Input((6, 5, 3))
        model = base.Model(inputs, L.RandomFlip(seed=3)(inputs))
        flipped = np.asarray(base.ops.convert_to_numpy(model(images)))
        assert not np.allclose(flipped, images), base.__name__
        np.testing.assert_array_equal(model.predict(images, verbose=0), images)
        kept = np.asarray(base.ops.convert_to_numpy(model(images, training=False)))
        np.testing.assert_array_equal(kept, images)


def test_a_direct_build_leaves_the_layer_built_as_keras_does():
    """Keras's guides call `layer.build(shape)` on a layer whose `build` never sets
    `self.built`: the layer is built, keeps its weights on the first call, and saves
    the build shape."""
    seen = {}
    for K in (keras, lamina):

        class Scale(K.layers.Layer):
            def build(self, input_shape, K=K):
                self.w = self.add_weight(shape=(input_shape[-1], 2))

            def call(self, x, K=K):
                return K.ops.matmul(x, self.w)

        class Wider(Scale):  # a build that calls its parent's: built once, at the end
            def build(self, input_shape):
                super().build(input_shape)
                self.seen_built_inside = self.built
                self.b = self.add_weight(shape=(2,))

        layer = Scale()
        layer.build((None, 3))
        kernel = layer.w
        layer(np.ones((1, 3), "float32"))
        wider = Wider()
        wider.build((None, 3))
        seen[K.__name__] = (
            layer.built,
            len(layer.weights),
            layer.w is kernel,
            layer.get_build_config(),
            wider.built,
            wider.seen_built_inside,
            len(wider.weights),
        )
    assert seen["lamina"] == seen["keras"]
    assert seen["lamina"][:3] == (True, 1, True)


def test_weights_in_creation_order_and_dense_files_kernel_and_bias(tmp_path):
    """Keras's saving guide: a Variable made in `__init__` comes before the weights
    `build` adds; a Dense subclass files only kernel and bias (its own variable is its
    to save, by overriding `save_own_variables`)."""

    seen, files = {}, {}
    for K in (keras, lamina):

        class WithVariable(K.layers.Dense):
            def __init__(self, units, K=K, **kwargs):
                super().__init__(units, **kwargs)
                self.my_variable = K.Variable(np.zeros((units,)), name="my_variable")

        class Plain(K.layers.Layer):
            def __init__(self, K=K):
                super().__init__()
                self.v = K.Variable(np.zeros((2,)), name="v_init")

            def build(self, input_shape):
                self.k = self.add_weight(shape=(input_shape[-1], 2), name="k_build")

            def call(self, x):
                return x @ self.k + self.v

        layer, plain = WithVariable(1), Plain()
        layer.build((None, 3))
        plain.build((None, 3))
        store = {}
        layer.save_own_variables(store)
        seen[K.__name__] = (
            [w.name for w in layer.weights],
            [w.name for w in plain.weights],
            sorted(store),
        )
        model = K.Sequential([K.Input((3,)), WithVariable(2), Plain()])
        path = str(tmp_path / f"{K.__name__}.weights.h5")
        model.save_weights(path)
        files[K.__name__] = (model, path)
    assert seen["lamina"] == seen["keras"]
    assert seen["lamina"] == (["my_variable", "kernel", "bias"], ["v_init", "k_build"], ["0", "1"])
    # lamina reads Keras's file (Keras itself refuses it, counting my_variable).
    model = files["lamina"][0]
    model.load_weights(files["keras"][1])
    expected = [np.asarray(w) for w in files["keras"][0].get_weights()]
    got = [np.asarray(w) for w in model.get_weights()]
    for a, b in zip(got[1:], expected[1:], strict=True):  # all but my_variable, not filed
        np.testing.assert_array_equal(a, b)


def test_a_direct_build_of_a_builtin_layer_records_its_shape():
    configs = {}
    for K in (keras, lamina):
        dense = K.layers.Dense(2)
        dense.build((None, 3))
        configs[K.__name__] = dense.get_build_config()
    assert configs["lamina"] == configs["keras"] == {"input_shape": (None, 3)}
