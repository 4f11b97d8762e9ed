"""The backend contract: the checklist every engine package must satisfy.

A new engine (backend/torch/) must export every name below from the same module, as a
function (or class) with the same parameters as the JAX backend.
"""

import importlib
import inspect

import pytest

REQUIRED = {
    "core": [
        "Variable",
        "convert_to_tensor",
        "convert_to_numpy",
        "is_tensor",
        "shape",
        "cast",
        "stop_gradient",
        "cond",
        "scan",
        "fori_loop",
        "while_loop",
        "vectorized_map",
        "slice",
        "slice_update",
        "unstack",
        "compute_output_spec",
        "jit",
        "value_and_grad",
        "block_until_ready",
    ],
    "numpy": [
        "zeros",
        "ones",
        "full",
        "zeros_like",
        "ones_like",
        "full_like",
        "eye",
        "identity",
        "arange",
        "linspace",
        "tril",
        "triu",
        "abs",
        "negative",
        "sign",
        "sqrt",
        "square",
        "exp",
        "log",
        "log1p",
        "sin",
        "cos",
        "tanh",
        "floor",
        "ceil",
        "round",
        "reciprocal",
        "logical_not",
        "isnan",
        "isinf",
        "isfinite",
        "add",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "mod",
        "power",
        "maximum",
        "minimum",
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "clip",
        "where",
        "matmul",
        "dot",
        "einsum",
        "tensordot",
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "any",
        "all",
        "argmax",
        "argmin",
        "cumsum",
        "cumprod",
        "reshape",
        "transpose",
        "expand_dims",
        "squeeze",
        "concatenate",
        "stack",
        "split",
        "tile",
        "repeat",
        "pad",
        "take",
        "take_along_axis",
        "sort",
        "searchsorted",
        "digitize",
        "bincount",
        "argsort",
        "broadcast_to",
        "flip",
        "roll",
        "get_item",
    ],
    "nn": [
        "relu",
        "relu6",
        "sigmoid",
        "hard_sigmoid",
        "softplus",
        "softsign",
        "silu",
        "leaky_relu",
        "elu",
        "selu",
        "gelu",
        "mish",
        "softmax",
        "log_softmax",
        "one_hot",
        "moments",
        "conv",
        "depthwise_conv",
        "separable_conv",
        "conv_transpose",
        "max_pool",
        "average_pool",
    ],
    "math": ["top_k", "in_top_k", "logsumexp", "erf", "rsqrt", "norm"],
    "random": [
        "make_seed",
        "normal",
        "uniform",
        "truncated_normal",
        "randint",
        "categorical",
        "dropout",
        "shuffle",
    ],
    "image": ["resize", "affine_transform"],
}
ENGINES = ["jax"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("module", sorted(REQUIRED))
def test_engine_provides_every_function(engine, module):
    mod = importlib.import_module(f"lamina.backend.{engine}.{module}")
    missing = [name for name in REQUIRED[module] if not hasattr(mod, name)]
    assert not missing, f"backend {engine}.{module} lacks {missing}"


PARAMETERS = {
    # The parameters a caller may pass by name; every engine must accept exactly these.
    ("numpy", "reshape"): ["x", "newshape"],
    ("numpy", "sum"): ["x", "axis", "keepdims"],
    ("numpy", "concatenate"): ["xs", "axis"],
    ("numpy", "pad"): ["x", "pad_width", "mode", "constant_values"],
    ("numpy", "where"): ["condition", "x1", "x2"],
    ("nn", "softmax"): ["x", "axis"],
    ("nn", "one_hot"): ["x", "num_classes", "axis", "dtype"],
    ("nn", "gelu"): ["x", "approximate"],
    ("math", "top_k"): ["x", "k", "sorted"],
    ("random", "normal"): ["shape", "mean", "stddev", "dtype", "seed"],
    ("random", "dropout"): ["inputs", "rate", "noise_shape", "seed"],
    ("core", "scan"): ["f", "init", "xs", "length", "reverse", "unroll"],
    ("core", "jit"): ["fn", "donate_argnums", "static_argnums"],
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("module, name", sorted(PARAMETERS))
def test_engine_signatures(engine, module, name):
    fn = getattr(importlib.import_module(f"lamina.backend.{engine}.{module}"), name)
    assert list(inspect.signature(fn).parameters) == PARAMETERS[(module, name)]


def test_public_ops_cover_backend_functions():
    from lamina import ops

    for module in ("numpy", "nn", "math"):
        for name in REQUIRED[module]:
            assert hasattr(ops, name), f"lamina.ops lacks {name}"


def test_backend_selection_and_config():
    from lamina import backend

    assert backend.backend() == "jax"
    assert backend.floatx() == "float32" and backend.epsilon() == 1e-7
    assert backend.image_data_format() == "channels_last"
    backend.set_epsilon(1e-5)
    backend.set_image_data_format("channels_first")
    try:
        assert backend.epsilon() == 1e-5 and backend.image_data_format() == "channels_first"
        with pytest.raises(ValueError, match="Unknown data_format 'nhwc'"):
            backend.set_image_data_format("nhwc")
        with pytest.raises(ValueError, match="Unknown floatx 'int8'"):
            backend.set_floatx("int8")
    finally:
        backend.set_epsilon(1e-7)
        backend.set_image_data_format("channels_last")


def test_unknown_backend_is_refused():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import lamina"],
        env={"LAMINA_BACKEND": "tensorflow", "PATH": ""},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "Unknown LAMINA_BACKEND 'tensorflow'" in result.stderr
