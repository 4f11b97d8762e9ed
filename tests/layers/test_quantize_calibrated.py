"""GPTQ and AWQ quantization of Dense and EinsumDense layers, against Keras 3 itself.

The reference is Keras's own per-layer algorithm (`keras.src.quantizers.gptq.GPTQ`,
`awq.AWQ`) fed the same calibration inputs block by block: Keras 3.15's
`Model.quantize("gptq" | "awq")` patches each layer's `call` to record its inputs, but
its quantized layers' `__call__` runs `quantized_call` instead, so the recording never
happens there (its Hessians stay zero and its AWQ scales one). The quantized weights
and outputs must match; `.keras` files move both ways (Keras's own end-to-end result
included)."""

import os
import warnings

import numpy as np
import pytest

import lamina
from lamina import dtype_policies, ops, quantizers
from lamina.layers.calibrated_quantization import calibration_windows

os.environ.setdefault("KERAS_BACKEND", "jax")

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

keras = pytest.importorskip("keras")
RNG = np.random.default_rng(3)
DATA = RNG.integers(0, 10, size=(40,)).astype("int32")
IDS = RNG.integers(0, 10, size=(3, 6)).astype("int32")


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def _model(lib, einsum=False):
    ids = lib.Input((6,), dtype="int32")
    # Four features: Keras's reference quantizes column by column, each column's
    # operations compiled anew, so its cost grows with the columns.
    emb = lib.layers.Embedding(10, 4, name="emb")
    if einsum:
        # Attention's two kernel forms: a projection (4, 2, 3) read as a (4, 6) matrix,
        # and an output (2, 3, 5) read as (6, 5), its inputs as rows of 6 features. Both
        # in one block, as in a transformer block (whose outputs are `(seq, features)`
        # again for the next block).
        first = lib.layers.EinsumDense(
            "abc,cde->abde", (None, 2, 3), bias_axes="de", activation="relu", name="first"
        )
        second = lib.layers.EinsumDense("abde,deg->abg", (None, 5), name="second")
        tokens = lib.Input((6, 4))
        block = lib.Model(tokens, second(first(tokens)), name="block")
        return lib.Model(ids, block(emb(ids))), emb, block, (first, second)
    else:
        first = lib.layers.Dense(4, activation="relu", name="first")
        second = lib.layers.Dense(5, name="second")
    return lib.Model(ids, second(first(emb(ids)))), emb, first, second


WEIGHTS = {
    einsum: [RNG.normal(size=w.shape).astype("float32") for w in _model(lamina, einsum)[0].weights]
    for einsum in (False, True)
}


def _config(lib, mode, emb, blocks, **options):
    cls = getattr(lib.quantizers, f"{mode.upper()}Config")
    # Keras cannot save a model whose config holds the structure (its layers); the
    # reference drives the blocks itself and passes none.
    structure = {"pre_block_layers": [emb], "sequential_blocks": blocks} if blocks else None
    return cls(
        dataset=[DATA],
        tokenizer=object(),  # the data are token ids already; Keras asks for one anyway
        num_samples=4,
        sequence_length=6,
        quantization_layer_structure=structure,
        **options,
    )


def _keras_reference(mode, options, einsum=False):
    """Keras's GPTQ/AWQ of each block, fed what its hooks were meant to record."""
    from keras.src.quantizers.awq import AWQ
    from keras.src.quantizers.gptq import GPTQ

    model, emb, first, second = _model(keras, einsum)
    model.set_weights(WEIGHTS[einsum])
    config = _config(keras, mode, emb, None, **options)
    inputs = [np.asarray(emb(window)) for window in calibration_windows(None, 6, [DATA], 4)]
    layers = second if einsum else (first, second)
    # One block: each layer records its inputs from the block's float pass.
    block_inputs = [inputs]
    for layer in layers[:-1] if einsum else ():
        block_inputs.append([np.asarray(layer(x)) for x in block_inputs[-1]])
    for index, layer in enumerate(layers):
        if einsum:
            inputs = block_inputs[index]
        algorithm = (GPTQ if mode == "gptq" else AWQ)(layer, config)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer.quantize(mode, config=config)
        for x in inputs:
            x = x.reshape(-1, int(algorithm.rows))
            if mode == "gptq":
                algorithm.update_hessian_with_batch(x)
            else:
                algorithm.update_activation_magnitudes(x)
        if mode == "gptq":
            algorithm.quantize_and_correct_layer()
        else:
            algorithm.quantize_layer()
        inputs = [np.asarray(layer(x)) for x in inputs]
    return model


@pytest.mark.parametrize(
    "mode, options, einsum",
    [
        ("gptq", {"weight_bits": 4, "group_size": 2, "activation_order": True}, False),
        ("awq", {"group_size": -1, "num_grid_points": 4}, False),
        ("gptq", {"weight_bits": 8, "group_size": 3}, True),
        ("awq", {"group_size": 2, "num_grid_points": 3}, True),
    ],
)
def test_calibrated_quantization_matches_keras(tmp_path, mode, options, einsum):
    theirs = _keras_reference(mode, options, einsum)
    ours, emb, first, second = _model(lamina, einsum)
    ours.set_weights(WEIGHTS[einsum])
    blocks = [first] if einsum else [first, second]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each warns for the Embedding, as Keras does
        ours.quantize(mode, config=_config(lamina, mode, emb, blocks, **options))
    if einsum:
        second = second[1]
    policy = f"{mode}/{options.get('weight_bits', 4)}/{options['group_size']}_from_float32"
    assert second.dtype_policy == dtype_policies.get(policy)
    read = {w.path: np.asarray(w) for w in theirs.weights}
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    for w in ours.weights:
        mine = _np(w.value)
        assert (mine.dtype, mine.shape) == (read[w.path].dtype, read[w.path].shape), w.path
        np.testing.assert_allclose(mine, read[w.path], rtol=1e-5, atol=1e-6, err_msg=w.path)
    expected = np.asarray(theirs.predict(IDS, verbose=0))
    np.testing.assert_allclose(ours.predict(IDS, verbose=0), expected, rtol=1e-5, atol=1e-5)

    ours.save(tmp_path / "l.keras")
    back = keras.saving.load_model(tmp_path / "l.keras")
    np.testing.assert_allclose(
        np.asarray(back.predict(IDS, verbose=0)), ours.predict(IDS, verbose=0), rtol=1e-5, atol=1e-5
    )
    # Keras 3.15 writes GPTQ/AWQ layers without their zero points (`kernel_zero`), so
    # neither it nor lamina can load its files: lamina refuses rather than guess.
    theirs.save(tmp_path / "k.keras")
    with pytest.raises(ValueError, match="weight\\(s\\) but the file holds"):
        lamina.saving.load_model(tmp_path / "k.keras")


def test_gptq_symmetric_8_bits_matches_keras_on_one_matrix():
    from keras.src.quantizers.gptq import gptq_quantize_matrix
    from keras.src.quantizers.quantizers import compute_quantization_parameters

    from lamina.quantizers import calibrated

    kernel = RNG.normal(size=(4, 3)).astype("float32")
    x = RNG.normal(size=(12, 4)).astype("float32")
    statistic = calibrated.HessianAccumulator(4)
    statistic.update(x)
    ours = calibrated.gptq_quantize_kernel(
        kernel,
        statistic.hessian,
        bits=8,
        group_size=-1,
        symmetric=True,
        per_channel=True,
        activation_order=False,
        damping=0.0,
    )
    theirs = gptq_quantize_matrix(
        kernel.T,
        np.linalg.inv(statistic.hessian),
        compute_scale_zero=lambda w: compute_quantization_parameters(
            w, bits=8, symmetric=True, per_channel=True
        ),
    )
    # 256 levels: the error feedback computed in another order of float32 operations
    # may put an entry one level over.
    assert np.abs(ours[0].astype(int) - np.asarray(theirs[0])).max() <= 1
    for mine, reference in zip(ours[1:], theirs[1:], strict=True):
        np.testing.assert_allclose(mine.astype("float32"), np.asarray(reference), rtol=1e-5)


def test_a_keras_quantized_config_and_weights_load():
    model, emb, first, second = _model(keras)
    model.set_weights(WEIGHTS[False])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns for the layers it cannot quantize
        model.quantize("gptq", config=_config(keras, "gptq", emb, [first, second], group_size=4))
    for layer in (first, second):
        layer.quantization_config.quantization_layer_structure = None  # unserializable
    config = model.get_config()
    again = lamina.Model.from_config(config)
    again.set_weights([np.asarray(w) for w in model.weights])
    np.testing.assert_allclose(
        again.predict(IDS, verbose=0),
        np.asarray(model.predict(IDS, verbose=0)),
        rtol=1e-5,
        atol=1e-5,
    )


def test_calibrated_errors_say_what_to_do():
    model, emb, first, second = _model(lamina)
    with pytest.raises(ValueError, match="GPTQConfig"):
        model.quantize("gptq")
    config = quantizers.AWQConfig(
        dataset=[DATA], tokenizer=object(), num_samples=2, sequence_length=6
    )
    with pytest.raises(ValueError, match="quantization structure"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Embedding's warning, as in Keras
        model.quantize("awq", config=config)
    with pytest.raises(ValueError, match="weight_bits"):
        quantizers.GPTQConfig(None, None, weight_bits=5)
    with pytest.raises(ValueError, match="4-bit"):
        quantizers.AWQConfig(None, None, weight_bits=8)
    with pytest.raises(TypeError, match="iterable"):
        calibration_windows(None, 6, 3, 2)
