"""Initializers: shapes, dtypes, distribution statistics, seeds, names and configs."""

import math

import numpy as np
import pytest

import lamina
from lamina import initializers, ops

SHAPE = (200, 300)  # 60k samples: sample std is within ~0.5% of the true one
FAN_IN, FAN_OUT = 200, 300
TRUNCATION = 0.87962566103423978  # std of a unit normal truncated to [-2, 2]


def uniform(limit):
    return {"low": -limit, "high": limit, "std": limit / math.sqrt(3)}


def truncated(std):
    """Keras scales the untruncated std so the truncated samples have `std`."""
    return {"std": std, "bound": 2 * std / TRUNCATION}


# (identifier, expected statistics on SHAPE)
STATISTICS = [
    ("zeros", {"low": 0.0, "high": 0.0}),
    ("ones", {"low": 1.0, "high": 1.0}),
    (initializers.Constant(-2.5), {"low": -2.5, "high": -2.5}),
    ("random_normal", {"mean": 0.0, "std": 0.05}),
    (initializers.RandomNormal(1.0, 2.0), {"mean": 1.0, "std": 2.0}),
    ("random_uniform", uniform(0.05)),
    (initializers.RandomUniform(0.0, 1.0), {"low": 0.0, "high": 1.0, "mean": 0.5}),
    ("truncated_normal", {"std": 0.05 * TRUNCATION, "bound": 0.1}),
    ("glorot_uniform", uniform(math.sqrt(6 / (FAN_IN + FAN_OUT)))),
    ("glorot_normal", truncated(math.sqrt(2 / (FAN_IN + FAN_OUT)))),
    ("he_uniform", uniform(math.sqrt(6 / FAN_IN))),
    ("he_normal", truncated(math.sqrt(2 / FAN_IN))),
    ("lecun_uniform", uniform(math.sqrt(3 / FAN_IN))),
    ("lecun_normal", truncated(math.sqrt(1 / FAN_IN))),
    ("variance_scaling", truncated(math.sqrt(1 / FAN_IN))),
    (
        initializers.VarianceScaling(3.0, "fan_out", "untruncated_normal"),
        {"mean": 0.0, "std": math.sqrt(3.0 / FAN_OUT)},
    ),
    (
        initializers.VarianceScaling(0.5, "fan_avg", "uniform"),
        uniform(math.sqrt(3 * 0.5 / ((FAN_IN + FAN_OUT) / 2))),
    ),
]


@pytest.mark.parametrize("identifier, stats", STATISTICS, ids=[str(c[0]) for c in STATISTICS])
def test_statistics(identifier, stats):
    values = np.asarray(initializers.get(identifier)(SHAPE))
    assert values.shape == SHAPE and values.dtype == np.float32
    if "low" in stats:
        assert values.min() >= stats["low"] and values.max() <= stats["high"]
    if "bound" in stats:
        assert np.abs(values).max() <= stats["bound"] * (1 + 1e-6)
    if "std" in stats:
        assert abs(values.std() / stats["std"] - 1) < 0.02
    mean = stats.get("mean", 0.0 if "std" in stats else None)
    if mean is not None:
        assert abs(values.mean() - mean) < 0.02 * max(stats.get("std", 1.0), 1e-3) + 1e-6


@pytest.mark.parametrize(
    "shape, fans",
    [
        ((), (1, 1)),
        ((7,), (7, 7)),
        ((4, 5), (4, 5)),
        ((3, 16, 32), (48, 96)),
        ((3, 3, 16, 32), (144, 288)),
        ((2, 3, 3, 4, 8), (72, 144)),
    ],
)
def test_compute_fans_uses_the_receptive_field(shape, fans):
    assert initializers.compute_fans(shape) == fans


def test_conv_kernel_variance_and_explicit_axes():
    init = initializers.VarianceScaling(2.0, "fan_out", "untruncated_normal", seed=1)
    values = np.asarray(init((3, 3, 64, 128)))
    assert abs(values.std() / math.sqrt(2.0 / (9 * 128)) - 1) < 0.02
    assert initializers.compute_fans((4, 5, 6), input_axes=[0, 1], output_axes=[2]) == (20, 6)
    init = initializers.GlorotUniform(input_axes=[0], output_axes=[1, 2], seed=0)
    limit = math.sqrt(6 / (40 + 5 * 6))
    assert np.abs(np.asarray(init((40, 5, 6)))).max() <= limit
    assert initializers.deserialize(initializers.serialize(init)).input_axes == [0]


@pytest.mark.parametrize(
    "identifier, dtype",
    [
        ("zeros", "int32"),
        ("ones", "bfloat16"),
        ("glorot_uniform", "float16"),
        ("he_normal", "bfloat16"),
        ("random_normal", "float16"),
        ("orthogonal", "float16"),
        ("identity", "int32"),
    ],
)
def test_dtypes(identifier, dtype):
    assert ops.dtype(initializers.get(identifier)((4, 4), dtype=dtype)) == dtype


RANDOM_CLASSES = [
    initializers.RandomNormal,
    initializers.RandomUniform,
    initializers.TruncatedNormal,
    initializers.VarianceScaling,
    initializers.GlorotNormal,
    initializers.GlorotUniform,
    initializers.HeNormal,
    initializers.HeUniform,
    initializers.LecunNormal,
    initializers.LecunUniform,
    initializers.Orthogonal,
]


@pytest.mark.parametrize("cls", RANDOM_CLASSES, ids=lambda c: c.__name__)
def test_seeds(cls):
    a, b = cls(seed=3), cls(seed=3)
    first = np.asarray(a((5, 4)))
    np.testing.assert_array_equal(first, np.asarray(b((5, 4))))  # reproducible from construction
    assert not np.array_equal(first, np.asarray(a((5, 4))))  # new values on each call
    assert not np.array_equal(first, np.asarray(cls(seed=4)((5, 4))))
    np.testing.assert_array_equal(first, np.asarray(a.clone()((5, 4))))  # clone restarts
    generator = lamina.ops.random.SeedGenerator(3)
    np.testing.assert_array_equal(first, np.asarray(cls(seed=generator)((5, 4))))
    # seed=None draws from the global generator, which set_random_seed resets.
    lamina.utils.set_random_seed(11)
    unseeded = np.asarray(cls()((5, 4)))
    lamina.utils.set_random_seed(11)
    np.testing.assert_array_equal(unseeded, np.asarray(cls()((5, 4))))


@pytest.mark.parametrize("seed", ["3", 1.5, True])
def test_bad_seeds_are_refused(seed):
    with pytest.raises(ValueError, match="seed must be an int"):
        initializers.RandomNormal(seed=seed)


@pytest.mark.parametrize(
    "shape, gain",
    [((6, 4), 1.0), ((4, 6), 2.0), ((5, 5), 0.5), ((3, 3, 2, 8), 1.0), ((2, 3, 10), 3.0)],
)
def test_orthogonal(shape, gain):
    values = np.asarray(initializers.Orthogonal(gain=gain, seed=1)(shape), "float64")
    assert values.shape == shape
    flat = values.reshape(-1, shape[-1])
    small = min(flat.shape)
    gram = flat.T @ flat if flat.shape[0] >= flat.shape[1] else flat @ flat.T
    np.testing.assert_allclose(gram, gain**2 * np.eye(small), atol=1e-5)


def test_orthogonal_needs_rank_two():
    with pytest.raises(ValueError, match="rank >= 2; received shape=\\(4,\\)"):
        initializers.Orthogonal()((4,))


def test_identity_constant_and_arrays():
    np.testing.assert_array_equal(
        np.asarray(initializers.Identity(gain=3.0)((2, 3))), 3 * np.eye(2, 3)
    )
    with pytest.raises(ValueError, match="needs a 2D shape"):
        initializers.Identity()((2, 2, 2))
    np.testing.assert_array_equal(np.asarray(initializers.Constant(7)((2,), "int32")), [7, 7])
    array = np.arange(6.0).reshape(2, 3)
    init = initializers.get(array)
    np.testing.assert_array_equal(np.asarray(init((2, 3))), array)
    with pytest.raises(ValueError, match="has shape \\(2, 3\\)"):
        init((3, 2))


ALL_INSTANCES = [
    initializers.Zeros(),
    initializers.Ones(),
    initializers.Constant(0.25),
    initializers.Identity(gain=0.5),
    initializers.RandomNormal(mean=1.0, stddev=2.0, seed=4),
    initializers.RandomUniform(-1.0, 3.0, seed=5),
    initializers.TruncatedNormal(stddev=0.2),
    initializers.VarianceScaling(2.0, "fan_avg", "uniform", seed=6),
    initializers.GlorotNormal(seed=7),
    initializers.GlorotUniform(),
    initializers.HeNormal(),
    initializers.HeUniform(seed=8),
    initializers.LecunNormal(),
    initializers.LecunUniform(),
    initializers.Orthogonal(gain=1.5, seed=9),
]


@pytest.mark.parametrize("init", ALL_INSTANCES, ids=repr)
def test_config_round_trip(init):
    config = initializers.serialize(init)
    assert config["module"] == "keras.initializers"
    assert config["class_name"] == type(init).__name__ and config["registered_name"] is None
    restored = initializers.deserialize(config)
    assert type(restored) is type(init) and restored.get_config() == init.get_config()
    assert type(initializers.get(config)) is type(init)
    assert type(type(init).from_config(init.get_config())) is type(init)


NAMES = {
    initializers.Zeros: ["zeros", "zero", "Zeros"],
    initializers.Ones: ["ones", "one", "Ones"],
    initializers.Constant: ["constant", "Constant"],
    initializers.Identity: ["identity", "Identity", "IdentityInitializer"],
    initializers.RandomNormal: ["random_normal", "normal", "RandomNormal"],
    initializers.RandomUniform: ["random_uniform", "uniform", "RandomUniform"],
    initializers.TruncatedNormal: ["truncated_normal", "TruncatedNormal"],
    initializers.VarianceScaling: ["variance_scaling", "VarianceScaling"],
    initializers.GlorotNormal: ["glorot_normal", "GlorotNormal"],
    initializers.GlorotUniform: ["glorot_uniform", "GlorotUniform"],
    initializers.HeNormal: ["he_normal", "HeNormal"],
    initializers.HeUniform: ["he_uniform", "HeUniform"],
    initializers.LecunNormal: ["lecun_normal", "LecunNormal"],
    initializers.LecunUniform: ["lecun_uniform", "LecunUniform"],
    initializers.Orthogonal: ["orthogonal", "Orthogonal", "OrthogonalInitializer"],
}


@pytest.mark.parametrize("cls", list(NAMES), ids=lambda c: c.__name__)
def test_string_names(cls):
    for name in NAMES[cls]:
        assert type(initializers.get(name)) is cls
        assert getattr(initializers, name, cls) is cls  # the snake_case aliases are classes
    assert type(initializers.get(cls)) is cls


def test_get_passes_instances_and_functions_through():
    assert initializers.get(None) is None
    init = initializers.HeNormal()
    assert initializers.get(init) is init
    fn = lambda shape, dtype=None: ops.ones(shape)  # noqa: E731
    assert initializers.get(fn) is fn


def test_errors_name_the_valid_choices():
    with pytest.raises(ValueError, match=r"Unknown initializer: 'glorot'.*'glorot_uniform'"):
        initializers.get("glorot")
    with pytest.raises(ValueError, match=r"Could not interpret initializer 3.*'he_normal'"):
        initializers.get(3)
    with pytest.raises(ValueError, match="mode must be one of"):
        initializers.VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="distribution must be one of"):
        initializers.VarianceScaling(distribution="gaussian")
    with pytest.raises(ValueError, match="scale must be a positive float"):
        initializers.VarianceScaling(scale=0.0)
    with pytest.raises(ValueError, match="unknown config keys \\['stdev'\\]"):
        initializers.RandomNormal.from_config({"stdev": 1.0})
    assert initializers.VarianceScaling(distribution="normal").distribution == "truncated_normal"
