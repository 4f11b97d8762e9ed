"""`check_layer`: the conformance check every layer passes.

It builds the layer eagerly and symbolically and checks that both agree, that the
weights have the expected counts, that `get_config` round-trips (to the same config and
the same outputs), that masks are passed or produced as declared, and that a gradient
step through the layer is finite.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina.common import serialization
from lamina.layers.input_layer import Input


def _make_input(shape, dtype, rng, low=None, high=None):
    if "int" in dtype:
        return rng.integers(low or 0, high or 5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _close(a, b, atol):
    for x, y in zip(_flat(a), _flat(b), strict=True):
        np.testing.assert_allclose(
            backend.convert_to_numpy(x), backend.convert_to_numpy(y), rtol=1e-5, atol=atol
        )


def _flat(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def check_layer(
    layer_cls,
    init_kwargs: dict | None = None,
    input_shape=(2, 3),
    input_dtype: str = "float32",
    input_data=None,
    expected_output_shape=None,
    expected_num_trainable_weights: int | None = None,
    expected_num_non_trainable_weights: int | None = None,
    supports_masking: bool | None = None,
    expected_mask_shape=None,
    call_kwargs: dict | None = None,
    check_gradient: bool = True,
    atol: float = 1e-5,
):
    """Run the conformance checks on `layer_cls(**init_kwargs)`; returns the eager layer.

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments.
        input_shape: full input shape (a list of shapes for multi-input layers).
        input_dtype: dtype of the generated input(s).
        input_data: explicit input array(s), instead of generated ones.
        expected_output_shape: full output shape for `input_shape`.
        expected_num_trainable_weights / expected_num_non_trainable_weights: counts.
        supports_masking: if set, the layer's `supports_masking` must equal it; when
            True, a mask given to the layer must come out unchanged (or as computed).
        expected_mask_shape: shape of the mask the layer produces from unmasked input.
        call_kwargs: extra keyword arguments for each call.
        check_gradient: check that a gradient through the layer is finite.

    >>> from lamina import layers
    >>> _ = check_layer(layers.Dense, {"units": 4}, input_shape=(2, 3),
    ...                 expected_output_shape=(2, 4), expected_num_trainable_weights=2)
    """
    init_kwargs = dict(init_kwargs or {})
    call_kwargs = dict(call_kwargs or {})
    rng = np.random.default_rng(0)
    multi = isinstance(input_shape, list)
    shapes = input_shape if multi else [input_shape]
    if input_data is None:
        data = [_make_input(s, input_dtype, rng) for s in shapes]
    else:
        data = list(input_data) if multi else [input_data]
    data_arg = data if multi else data[0]

    # 1. Eager call.
    layer = layer_cls(**init_kwargs)
    eager_out = layer(data_arg, **call_kwargs)
    if expected_output_shape is not None:
        got = [tuple(o.shape) for o in _flat(eager_out)]
        want = (
            expected_output_shape
            if isinstance(expected_output_shape, list)
            else [expected_output_shape]
        )
        assert got == [tuple(w) for w in want], f"eager output shape {got} != {want}"
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights, (
            f"{len(layer.trainable_weights)} trainable weights, expected {expected_num_trainable_weights}"
        )
    if expected_num_non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
    assert len(layer.weights) == len(layer.trainable_weights) + len(layer.non_trainable_weights)

    # 2. Symbolic call on Inputs, then the graph run on the same data and weights.
    sym_layer = layer_cls(**init_kwargs)
    inputs = [Input(batch_shape=(None,) + tuple(s[1:]), dtype=input_dtype) for s in shapes]
    sym_out = sym_layer(inputs if multi else inputs[0], **call_kwargs)
    for spec, real in zip(_flat(sym_out), _flat(eager_out), strict=True):
        assert spec.shape[1:] == tuple(real.shape[1:]), (
            f"symbolic shape {spec.shape} disagrees with eager shape {tuple(real.shape)}"
        )
        assert spec.dtype == backend.standardize_dtype(real.dtype)
    sym_layer.set_weights(layer.get_weights())
    from lamina.models.model import Model

    model = Model(inputs if multi else inputs[0], sym_out)
    _close(model(data_arg), eager_out, atol)

    # 3. Config round trip: same config, same outputs with the same weights.
    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == config
    clone(data_arg, **call_kwargs)
    clone.set_weights(layer.get_weights())
    _close(clone(data_arg, **call_kwargs), eager_out, atol)
    revived = serialization.deserialize_keras_object(
        serialization.serialize_keras_object(layer, "layers"), "layers"
    )
    assert type(revived) is layer_cls

    # 4. Masks.
    if supports_masking is not None:
        assert layer.supports_masking == supports_masking
    if supports_masking and not multi and len(data[0].shape) >= 2:
        mask = np.ones(data[0].shape[:2], dtype=bool)
        mask[:, -1] = False
        out_mask = layer.compute_mask(data[0], ops.convert_to_tensor(mask))
        from lamina.layers.layer import Layer

        passes_through = type(layer).compute_mask is Layer.compute_mask
        if passes_through and expected_mask_shape is None:
            np.testing.assert_array_equal(backend.convert_to_numpy(out_mask), mask)
    if expected_mask_shape is not None:
        out_mask = layer.compute_mask(data_arg, None)
        assert tuple(out_mask.shape) == tuple(expected_mask_shape)

    # 5. A gradient through the layer (with respect to its weights) is finite.
    if check_gradient and layer.trainable_weights:
        weights = layer.trainable_weights

        def loss_fn(values):
            with backend.StatelessScope(list(zip(weights, values, strict=True))):
                out = (
                    layer(data_arg, training=True, **call_kwargs)
                    if layer._call_has_training_arg
                    else layer(data_arg, **call_kwargs)
                )
            return ops.sum(ops.square(ops.cast(_flat(out)[0], "float32")))

        _, grads = backend.value_and_grad(loss_fn)([w.value for w in weights])
        for w, g in zip(weights, grads, strict=True):
            assert np.all(np.isfinite(backend.convert_to_numpy(g))), (
                f"non-finite gradient for {w.path}"
            )
    return layer
