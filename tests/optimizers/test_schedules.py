"""Every learning-rate schedule against its NumPy formula, eager and under `jax.jit`."""

import math

import jax
import numpy as np
import pytest

from lamina import backend, ops
from lamina.optimizers import schedules


def cosine_restarts(t, initial, first, t_mul, m_mul, alpha):
    fraction, period, peak = t / first, 1.0, 1.0
    while fraction >= period:  # walk whole periods, each t_mul times longer
        fraction, period, peak = fraction - period, period * t_mul, peak * m_mul
    cosine = 0.5 * peak * (1 + math.cos(math.pi * fraction / period))
    return initial * ((1 - alpha) * cosine + alpha)


def cosine(t, peak, steps, alpha=0.0):
    return peak * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * min(t, steps) / steps)) + alpha)


SCHEDULES = [
    (schedules.ExponentialDecay(0.1, 10, 0.5), lambda t: 0.1 * 0.5 ** (t / 10)),
    (schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True), lambda t: 0.1 * 0.5 ** (t // 10)),
    (schedules.InverseTimeDecay(0.1, 10, 0.5), lambda t: 0.1 / (1 + 0.5 * t / 10)),
    (
        schedules.InverseTimeDecay(0.1, 10, 0.5, staircase=True),
        lambda t: 0.1 / (1 + 0.5 * (t // 10)),
    ),
    (
        schedules.PiecewiseConstantDecay([5, 15], [0.3, 0.2, 0.1]),
        lambda t: 0.3 if t <= 5 else 0.2 if t <= 15 else 0.1,
    ),
    (
        schedules.PolynomialDecay(0.1, 20, 0.01, power=2.0),
        lambda t: (0.1 - 0.01) * (1 - min(t, 20) / 20) ** 2 + 0.01,
    ),
    (
        schedules.PolynomialDecay(0.1, 10, 0.01, cycle=True),
        lambda t: (0.1 - 0.01) * (1 - t / (10 * max(1, math.ceil(t / 10)))) + 0.01,
    ),
    (schedules.CosineDecay(0.1, 20, alpha=0.1), lambda t: cosine(t, 0.1, 20, 0.1)),
    # Without a warmup target, Keras ignores warmup_steps.
    (schedules.CosineDecay(0.1, 20, warmup_steps=5), lambda t: cosine(t, 0.1, 20)),
    (
        schedules.CosineDecay(0.0, 20, warmup_target=0.1, warmup_steps=10),
        lambda t: 0.1 * t / 10 if t < 10 else cosine(t - 10, 0.1, 20),
    ),
    (
        schedules.CosineDecayRestarts(1.0, 10, t_mul=2.0, m_mul=0.5, alpha=0.1),
        lambda t: cosine_restarts(t, 1.0, 10, 2.0, 0.5, 0.1),
    ),
    (
        schedules.CosineDecayRestarts(0.5, 4, t_mul=1.0, m_mul=0.9),
        lambda t: cosine_restarts(t, 0.5, 4, 1.0, 0.9, 0.0),
    ),
]
IDS = [f"{type(s).__name__}-{i}" for i, (s, _) in enumerate(SCHEDULES)]
STEPS = (0, 1, 4, 5, 9, 10, 11, 16, 25, 40, 75)


@pytest.mark.parametrize("schedule, formula", SCHEDULES, ids=IDS)
def test_matches_formula_eager_and_jitted(schedule, formula):
    expected = [formula(t) for t in STEPS]
    eager = [float(schedule(t)) for t in STEPS]
    np.testing.assert_allclose(eager, expected, rtol=1e-5, atol=1e-7)
    if backend.backend() == "jax":  # traced: the schedule is jit- and vmap-safe
        jitted = jax.jit(jax.vmap(schedule))(np.array(STEPS, "int32"))
        np.testing.assert_allclose(ops.convert_to_numpy(jitted), expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("schedule, formula", SCHEDULES, ids=IDS)
def test_config_round_trip(schedule, formula):
    config = schedule.get_config()
    assert type(schedule).from_config(config).get_config() == config
    serialized = schedules.serialize(schedule)
    assert serialized["module"] == "keras.optimizers.schedules"
    assert schedules.deserialize(serialized).get_config() == config


def test_errors():
    with pytest.raises(ValueError, match="decay_steps"):
        schedules.ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match="first_decay_steps"):
        schedules.CosineDecayRestarts(0.1, -1)
    with pytest.raises(ValueError, match="one more value than boundaries"):
        schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.2])
    with pytest.raises(NotImplementedError, match="__call__"):
        schedules.LearningRateSchedule()(0)
    with pytest.raises(ValueError, match="Unknown learning rate schedule"):
        schedules.deserialize({"class_name": "Nope", "config": {}})
