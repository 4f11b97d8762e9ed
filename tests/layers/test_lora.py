"""LoRA on Dense, EinsumDense, Embedding and Conv1D/2D/3D, against Keras 3: the same base
and LoRA weights give the same outputs; only the LoRA factors train; `.keras` files move
both ways (the merged kernel is what a file holds); configs round-trip; and the
quantization options lamina does not have (all but int8) are refused."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers, ops

os.environ.setdefault("KERAS_BACKEND", "jax")

# Keras's NumPy-level `__array__` trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(7)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


@pytest.fixture
def merged_files(monkeypatch):
    """Weights files hold what `_saved_variables()` gives (a LoRA layer's merged kernel,
    as Keras files hold). Until `lamina.saving.weights_h5._own` asks layers for it, this
    applies that one-line hook; once it does, the fixture changes nothing."""
    from lamina.saving import weights_h5

    probe = layers.Dense(1, lora_rank=1)
    probe.build((None, 1))
    if len(weights_h5._own(probe)) != 2:
        monkeypatch.setattr(
            weights_h5,
            "_own",
            lambda layer: getattr(layer, "_saved_variables", layer._own_weights)(),
        )


# (name, make(module) -> layer, input shape, input dtype). Small shapes, zero-initialized
# base weights: every weight is overwritten with seeded values before the comparison.
KINDS = {
    "dense": (lambda m: m.layers.Dense(3, kernel_initializer="zeros"), (2, 4), "float32"),
    "einsum_dense": (
        lambda m: m.layers.EinsumDense(
            "abc,cde->abde", (None, 2, 3), bias_axes="de", kernel_initializer="zeros"
        ),
        (2, 3, 4),
        "float32",
    ),
    "embedding": (
        lambda m: m.layers.Embedding(6, 3, embeddings_initializer="zeros"),
        (2, 4),
        "int32",
    ),
    "conv1d": (
        lambda m: m.layers.Conv1D(3, 2, padding="causal", kernel_initializer="zeros"),
        (1, 5, 2),
        "float32",
    ),
    "conv2d": (
        lambda m: m.layers.Conv2D(4, 2, groups=2, kernel_initializer="zeros"),
        (1, 4, 4, 2),
        "float32",
    ),
    "conv3d": (
        lambda m: m.layers.Conv3D(2, 2, kernel_initializer="zeros"),
        (1, 3, 3, 3, 2),
        "float32",
    ),
}


def _input(shape, dtype):
    if dtype == "int32":
        return RNG.integers(0, 6, shape).astype("int32")
    return _rand(*shape)


def test_same_weights_give_keras_outputs(keras):
    # One test item for every kind: each item pays the suite's per-test setup.
    for kind, (make, shape, dtype) in KINDS.items():
        ours, theirs = make(lamina), make(keras)
        ours.build(shape)
        theirs.build(shape)
        ours.enable_lora(2, lora_alpha=6, a_initializer="zeros")
        theirs.enable_lora(2, lora_alpha=6, a_initializer="zeros")
        # The same weights, listed in the same order (the frozen base first, as Keras).
        # (Paths compared below the layer's own name: auto-names count per process.)
        assert [w.path.removeprefix(ours.name + "/") for w in ours.weights] == [
            w.path.removeprefix(theirs.name + "/") for w in theirs.weights
        ], kind
        assert all(w.path.startswith(ours.name + "/") for w in ours.weights), kind
        assert [w.trainable for w in ours.weights] == [w.trainable for w in theirs.weights]
        values = [_rand(*w.shape) * 0.5 for w in theirs.weights]
        theirs.set_weights(values)
        ours.set_weights(values)
        base = "embeddings" if kind == "embedding" else "kernel"
        np.testing.assert_allclose(
            _np(getattr(ours, base)), np.asarray(getattr(theirs, base)), rtol=1e-5, atol=1e-6
        )
        if kind in ("conv1d", "conv3d"):
            continue  # the same merged kernel; Conv2D runs the shared convolution path
        x = _input(shape, dtype)
        np.testing.assert_allclose(
            _np(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5, err_msg=kind
        )


def test_constructor_lora_matches_numpy_and_keras_shapes(keras):
    x = _rand(2, 4)
    layer = layers.Dense(3, lora_rank=2, lora_alpha=8, name="d")
    layer(x)
    assert layer.lora_enabled and (layer.lora_rank, layer.lora_alpha) == (2, 8)
    theirs = keras.layers.Dense(3, lora_rank=2, name="d")
    theirs.build((2, 4))
    expected = [(w.path, tuple(w.shape), w.trainable) for w in theirs.weights]
    assert [(w.path, tuple(w.shape), w.trainable) for w in layer.weights] == expected
    assert [w.dtype for w in layer.weights[2:]] == ["float32", "float32"]
    # b starts at zero: the layer starts equal to its base kernel.
    w, bias, a, b = (_np(v) for v in layer.weights)
    assert not b.any()
    np.testing.assert_allclose(_np(layer(x)), x @ w + bias, rtol=1e-5, atol=1e-6)
    new_b = _rand(2, 3)
    layer.lora_kernel_b.assign(new_b)
    reference = x @ (w + (8 / 2) * (a @ new_b)) + bias
    np.testing.assert_allclose(_np(layer(x)), reference, rtol=1e-5, atol=1e-5)


def test_fit_trains_only_the_lora_factors():
    x, y = _rand(16, 4), _rand(16, 2)
    inputs = Input((4,))
    hidden = layers.Dense(3, name="frozen_base")
    model = Model(inputs, layers.Dense(2, name="head")(hidden(inputs)))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)  # a plain first fit, cached step
    kernel_before = _np(hidden.kernel)
    hidden.enable_lora(2)
    assert [w.path for w in hidden.trainable_weights] == [
        "frozen_base/bias",
        "frozen_base/lora_kernel_a",
        "frozen_base/lora_kernel_b",
    ]
    assert [w.path for w in hidden.non_trainable_weights] == ["frozen_base/kernel"]
    model.compile(optimizer="sgd", loss="mse")
    before = {w.path: _np(w) for w in model.weights}
    # b starts at zero, so a's gradient is zero on the first step: take two.
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    changed = {w.path for w in model.weights if not np.array_equal(_np(w), before[w.path])}
    assert "frozen_base/kernel" not in changed
    assert {"frozen_base/lora_kernel_a", "frozen_base/lora_kernel_b"} <= changed
    np.testing.assert_array_equal(_np(hidden._kernel), kernel_before)
    assert not np.allclose(_np(hidden.kernel), kernel_before)


def _keras_lora_model(module):
    inputs = module.Input((4,))
    h = module.layers.Dense(3, activation="tanh", lora_rank=2, name="adapted")(inputs)
    return module.Model(inputs, module.layers.Dense(2, name="head")(h))


def _randomize(model):
    for w in model.weights:
        w.assign(_rand(*w.shape) * 0.5)


def test_keras_lora_file_loads_into_lamina(keras, tmp_path, merged_files):
    theirs = _keras_lora_model(keras)
    _randomize(theirs)  # nonzero b: the merged kernel differs from the base one
    path = str(tmp_path / "keras_lora.keras")
    theirs.save(path)
    x = _rand(3, 4)
    ours = lamina.models.load_model(path)
    np.testing.assert_allclose(
        _np(ours.predict(x, verbose=0)), theirs.predict(x, verbose=0), rtol=1e-5, atol=1e-5
    )
    adapted = ours.get_layer("adapted")
    assert adapted.lora_enabled and adapted.lora_rank == 2
    # Loading resets the factors: the merged kernel now sits in the base kernel.
    assert not _np(adapted.lora_kernel_a).any() and not _np(adapted.lora_kernel_b).any()
    np.testing.assert_allclose(
        _np(adapted._kernel), np.asarray(theirs.get_layer("adapted").kernel), atol=1e-6
    )


def test_lamina_lora_file_loads_into_keras_and_a_plain_model(keras, tmp_path, merged_files):
    ours = _keras_lora_model(lamina)
    _randomize(ours)
    x = _rand(3, 4)
    expected = _np(ours.predict(x, verbose=0))
    path = str(tmp_path / "lamina_lora.keras")
    ours.save(path)
    theirs = keras.models.load_model(path)
    np.testing.assert_allclose(theirs.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-5)
    assert theirs.get_layer("adapted").lora_enabled
    # The weights file holds the merged kernel: a model without LoRA loads it.
    weights = str(tmp_path / "lamina_lora.weights.h5")
    ours.save_weights(weights)
    inputs = Input((4,))
    h = layers.Dense(3, activation="tanh", name="adapted")(inputs)
    plain = Model(inputs, layers.Dense(2, name="head")(h))
    plain.load_weights(weights)
    np.testing.assert_allclose(_np(plain.predict(x, verbose=0)), expected, rtol=1e-5, atol=1e-5)


def test_configs_round_trip_and_match_keras(keras):
    for kind, (make, shape, _) in KINDS.items():
        theirs = make(keras)
        config = {**theirs.get_config(), "lora_rank": 2, "lora_alpha": 4}
        keras_config = json.loads(json.dumps(type(theirs).from_config(config).get_config()))
        ours = type(make(lamina)).from_config(keras_config)
        assert (ours.lora_rank, ours.lora_alpha) == (2, 4), kind
        if kind == "dense":  # building enables LoRA (each kind's build: above)
            ours.build(shape)
            assert ours.lora_enabled
        ours_config = ours.get_config()
        # (lamina writes `activity_regularizer` only where it always did.)
        ignored = {"activity_regularizer"}
        assert set(ours_config) - ignored == set(keras_config) - ignored, kind
        assert (ours_config["lora_rank"], ours_config["lora_alpha"]) == (2, 4)
        clone = type(ours).from_config(ours_config)
        assert clone.get_config() == ours_config
        # Without LoRA the keys are absent, as in Keras.
        assert "lora_rank" not in make(lamina).get_config()


def test_mixed_precision_keeps_float32_factors():
    layer = layers.Dense(3, lora_rank=2, dtype="mixed_bfloat16")
    y = layer(_rand(2, 4))
    assert lamina.backend.standardize_dtype(y.dtype) == "bfloat16"
    assert layer.lora_kernel_a.dtype == "float32" and layer.lora_kernel_b.dtype == "float32"


def test_signatures_match_keras_positions(keras):
    import inspect

    for name in ("Dense", "Embedding", "EinsumDense", "Conv2D"):
        ours = list(inspect.signature(getattr(layers, name)).parameters)
        theirs = list(inspect.signature(getattr(keras.layers, name)).parameters)
        # Conv2D: Keras takes lora_rank/lora_alpha through **kwargs; lamina after the rest.
        assert ours[: len(theirs) - 1] == theirs[:-1], name


def test_errors_say_what_to_do():
    # Modes a layer does not quantize in (tests/layers/test_quantize.py and
    # test_quantize_modes.py) are refused with the reason.
    with pytest.raises(ValueError, match="expected a lamina.quantizers.QuantizationConfig"):
        layers.Dense(2, quantization_config={"mode": "int4"})
    with pytest.raises(ValueError, match="quantized dtype policy of mode 'float8'"):
        layers.Embedding(4, 2, dtype="float8_from_float32")
    quantized_policy = {
        "class_name": "GPTQDTypePolicy",
        "config": {"mode": "gptq/4/-1", "source_name": "float32"},
    }
    with pytest.raises(ValueError, match="mode 'gptq'.*ReversibleEmbedding \\(int8, int4\\)"):
        layers.Embedding(3, 2, dtype=quantized_policy)
    with pytest.raises(NotImplementedError, match="does not have a `quantize` method"):
        layers.Conv2D(2, 2).quantize("int8")
    quantized = layers.Dense(2, name="quantized")
    quantized.build((None, 3))
    quantized.quantize("int8")
    with pytest.raises(ValueError, match="'quantized' is quantized"):
        quantized.enable_lora(1)
    with pytest.raises(ValueError, match="lora_rank=-1"):
        layers.Conv1D(2, 2, lora_rank=-1)
    with pytest.raises(ValueError, match="lora_alpha=0"):
        layers.Dense(2, lora_rank=2, lora_alpha=0)
    with pytest.raises(ValueError, match="'late'.*not built"):
        layers.Dense(2, name="late").enable_lora(2)
    twice = layers.Dense(2, lora_rank=1, name="twice")
    twice.build((None, 3))
    with pytest.raises(ValueError, match="'twice'.*already enabled"):
        twice.enable_lora(2)
    constrained = layers.Embedding(4, 2, embeddings_constraint="non_neg", lora_rank=2)
    with pytest.raises(ValueError, match="embeddings_constraint"):
        constrained.build()
    # As in Keras, the transposed, depthwise and separable convolutions have no LoRA.
    with pytest.raises(TypeError, match="lora_rank"):
        layers.Conv2DTranspose(2, 2, lora_rank=2)
    depthwise = layers.DepthwiseConv2D(2)
    depthwise.build((1, 3, 3, 2))
    with pytest.raises(NotImplementedError, match="DepthwiseConv2D"):
        depthwise.enable_lora(2)
