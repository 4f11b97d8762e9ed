"""`gradient_accumulation_steps`, checked against Keras 3 itself (the reference).

Every `gradient_accumulation_steps`-th call of `apply` updates the weights from the mean
of the gradients since the last update; `iterations` counts updates, learning-rate
schedules count calls, EMA counts updates. Eagerly and inside compiled `fit` steps
(`steps_per_execution` included), on both engines.
"""

import os

import numpy as np
import pytest

import lamina

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

CASES = {
    "sgd": ("SGD", dict(learning_rate=0.1)),
    "adam": ("Adam", dict(learning_rate=0.01)),
    "adamw_ema": (
        "AdamW",
        dict(learning_rate=0.01, weight_decay=0.1, use_ema=True, ema_overwrite_frequency=2),
    ),
    "schedule": (
        "SGD",
        dict(learning_rate=keras.optimizers.schedules.ExponentialDecay(0.1, 1, 0.5)),
    ),
}


def _apply_steps(fw, name, kwargs, steps=7):
    if "learning_rate" in kwargs and not isinstance(kwargs["learning_rate"], float):
        config = keras.optimizers.schedules.serialize(kwargs["learning_rate"])
        kwargs = {**kwargs, "learning_rate": fw.optimizers.schedules.deserialize(config)}
    opt = getattr(fw.optimizers, name)(gradient_accumulation_steps=3, **kwargs)
    w = fw.Variable(np.array([1.0, -2.0, 3.0], "float32"))
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(steps):
        grad = fw.ops.convert_to_tensor(rng.standard_normal(3).astype("float32"))
        opt.apply([grad], [w])
        seen.append(
            (
                fw.ops.convert_to_numpy(w.value).copy(),
                int(fw.ops.convert_to_numpy(opt.iterations)),
            )
        )
    return seen, [tuple(v.shape) for v in opt.variables]


@pytest.mark.parametrize("case", sorted(CASES))
def test_apply_matches_keras_step_by_step(case):
    name, kwargs = CASES[case]
    ours, our_shapes = _apply_steps(lamina, name, kwargs)
    theirs, their_shapes = _apply_steps(keras, name, kwargs)
    for (w, it), (w_k, it_k) in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(w, w_k, rtol=1e-6, atol=1e-7)
        assert it == it_k
    # Weights move only at every third call; the accumulators are optimizer state, in
    # Keras's order (so .keras files move both ways).
    assert [it for _, it in ours] == [0, 0, 1, 1, 1, 2, 2]
    np.testing.assert_array_equal(ours[0][0], [1.0, -2.0, 3.0])
    assert our_shapes == their_shapes


def _fit(fw, steps_per_execution):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 4)).astype("float32")
    y = rng.standard_normal((40, 2)).astype("float32")
    model = fw.Sequential([fw.Input((4,)), fw.layers.Dense(2)])
    model.set_weights([np.full((4, 2), 0.1, "float32"), np.zeros(2, "float32")])
    optimizer = fw.optimizers.Adam(
        0.05, gradient_accumulation_steps=3, use_ema=True, ema_overwrite_frequency=2
    )
    model.compile(optimizer, "mse", steps_per_execution=steps_per_execution)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return model


@pytest.mark.parametrize("steps_per_execution", [1, 3])
def test_fit_matches_keras(steps_per_execution, tmp_path):
    ours = _fit(lamina, steps_per_execution)
    theirs = _fit(keras, 1)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert int(lamina.ops.convert_to_numpy(ours.optimizer.iterations)) == 3  # 10 calls // 3
    # The accumulators travel in the .keras file and load back.
    ours.save(tmp_path / "m.keras")
    loaded = lamina.models.load_model(tmp_path / "m.keras")
    assert loaded.optimizer.gradient_accumulation_steps == 3
    for a, b in zip(loaded.optimizer.variables, ours.optimizer.variables, strict=True):
        np.testing.assert_array_equal(
            lamina.ops.convert_to_numpy(a.value), lamina.ops.convert_to_numpy(b.value)
        )


@pytest.mark.parametrize("bad", [1, 0, -2, 2.5, True])
def test_bad_steps_are_refused(bad):
    with pytest.raises(ValueError, match="integer >= 2"):
        lamina.optimizers.SGD(gradient_accumulation_steps=bad)


def test_config_round_trip():
    opt = lamina.optimizers.Adam(gradient_accumulation_steps=4)
    assert opt.get_config()["gradient_accumulation_steps"] == 4
    again = lamina.optimizers.Adam.from_config(opt.get_config())
    assert again.gradient_accumulation_steps == 4
    from_keras = lamina.optimizers.deserialize(
        keras.optimizers.serialize(keras.optimizers.Adam(gradient_accumulation_steps=4))
    )
    assert from_keras.gradient_accumulation_steps == 4
