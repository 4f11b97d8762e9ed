"""One seed, one model, on every engine (issue 34): every built-in initializer draws the
same numbers on JAX and on torch, `fit` shuffles in the same order, and a model built
with the same seed starts from the same weights and ends its first epoch within float32
rounding of the other engine's.

This process records on its engine, a fresh process records on the other, and the two
records are compared; run on each engine, each direction is checked once.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lamina import backend

pytest.importorskip("torch")

OTHER = {"jax": "torch", "torch": "jax"}[backend.backend()]
# After one epoch (4 steps of Adam) the engines' float32 matmuls and reductions, summed
# in different orders, leave the weights this close.
FIT_ATOL = 1e-5


def record(path):
    """Everything compared between engines, saved to `path` (an `.npz`)."""
    import numpy as np

    import lamina
    from lamina import initializers, ops
    from lamina.common import serialization

    out = {}
    classes = {cls for cls in serialization.builtins("initializers").values()}
    for cls in sorted(classes, key=lambda c: c.__name__):
        if cls is initializers.Initializer:  # the abstract base
            continue
        seeded = issubclass(cls, initializers.RandomInitializer)
        initializer = cls(seed=5) if seeded else cls()
        shape = (16, 1, 6) if cls is initializers.STFT else (7, 5)
        for call in range(2):  # the second call draws from the advanced seed
            out[f"{cls.__name__}/{call}"] = ops.convert_to_numpy(initializer(shape))
    # Other float dtypes are the float32 draw, cast.
    for dtype in ("float16", "bfloat16"):
        values = initializers.TruncatedNormal(seed=5)((7, 5), dtype=dtype)
        out[f"cast/{dtype}"] = ops.convert_to_numpy(ops.cast(values, "float32"))
    # Unseeded initializers draw from the global generator that set_random_seed restarts.
    lamina.utils.set_random_seed(11)
    out["GlorotUniform/global"] = ops.convert_to_numpy(initializers.GlorotUniform()((3, 4)))

    # A small model without dropout: a kernel of every common kind.
    lamina.utils.set_random_seed(3)
    model = lamina.Sequential(
        [
            lamina.Input((6, 4)),
            lamina.layers.Conv1D(5, 3, kernel_initializer="he_normal"),
            lamina.layers.SimpleRNN(4),
            lamina.layers.Dense(8, activation="relu", kernel_initializer="lecun_normal"),
            lamina.layers.Dense(3),
        ]
    )
    for i, w in enumerate(model.get_weights()):
        out[f"initial/{i}"] = w
    rng = np.random.RandomState(0)
    x, y = rng.rand(32, 6, 4).astype("float32"), rng.randint(0, 3, 32)
    model.compile(
        optimizer=lamina.optimizers.Adam(0.01),
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    model.fit(x, y, batch_size=8, epochs=1, shuffle=True, verbose=0)
    for i, w in enumerate(model.get_weights()):
        out[f"trained/{i}"] = w

    # The shuffle order, seen through the per-batch losses of a model that cannot learn
    # (learning rate 0, zero weights): with one sample per batch, batch k's loss is the
    # target of the k-th sample taken, which is its index.
    lamina.utils.set_random_seed(9)
    still = lamina.Sequential(
        [lamina.Input((1,)), lamina.layers.Dense(1, use_bias=False, kernel_initializer="zeros")]
    )
    still.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mae")
    seen = []

    class Order(lamina.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(float(logs["loss"]))  # the running mean over the epoch

    n = 12
    still.fit(
        np.zeros((n, 1), "float32"),
        np.arange(n, dtype="float32"),
        batch_size=1,
        epochs=2,
        shuffle=True,
        verbose=0,
        callbacks=[Order()],
    )
    means = np.array(seen, np.float64).reshape(2, n)
    steps = np.arange(1, n + 1)
    totals = means * steps
    out["order"] = np.rint(np.diff(totals, axis=1, prepend=0.0)).astype(int)
    np.savez(path, **out)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("engine_parity")
    (folder / "recorder.py").write_text(textwrap.dedent(inspect.getsource(record)))
    env = dict(os.environ, LAMINA_BACKEND=OTHER)
    env.pop("KERAS_BACKEND", None)
    script = f"import recorder; recorder.record('{OTHER}.npz')"
    other = subprocess.run(
        [sys.executable, "-c", script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert other.returncode == 0, other.stderr[-3000:]
    record(folder / "here.npz")
    return dict(np.load(folder / "here.npz")), dict(np.load(folder / f"{OTHER}.npz"))


def test_every_builtin_initializer_draws_the_same_numbers_on_every_engine(records):
    here, there = records
    names = sorted(k for k in here if k.split("/")[0][0].isupper())
    assert "Orthogonal/0" in names and "HeNormal/1" in names and "STFT/0" in names
    for name in names:
        assert here[name].dtype == there[name].dtype == np.float32, name
        np.testing.assert_array_equal(here[name], there[name], err_msg=name)
    for dtype in ("float16", "bfloat16"):
        np.testing.assert_array_equal(here[f"cast/{dtype}"], there[f"cast/{dtype}"])
        assert np.abs(here[f"cast/{dtype}"] - here["TruncatedNormal/0"]).max() < 1e-2
    # The two calls of a seeded initializer draw different numbers.
    assert not np.array_equal(here["RandomNormal/0"], here["RandomNormal/1"])


def test_a_model_built_with_the_same_seed_starts_from_the_same_weights(records):
    here, there = records
    initial = sorted(k for k in here if k.startswith("initial/"))
    assert len(initial) == 9
    for name in initial:
        np.testing.assert_array_equal(here[name], there[name], err_msg=name)


def test_one_epoch_of_fit_ends_within_float32_rounding(records):
    here, there = records
    for name in sorted(k for k in here if k.startswith("trained/")):
        moved = np.abs(here[name] - here[name.replace("trained", "initial")]).max()
        assert moved > 1e-3, name  # the epoch trained every weight
        np.testing.assert_allclose(here[name], there[name], rtol=0, atol=FIT_ATOL, err_msg=name)


def test_fit_shuffles_in_the_same_order_on_every_engine(records):
    here, there = records
    order = here["order"]
    np.testing.assert_array_equal(order, there["order"])
    # NumPy's global generator, which set_random_seed seeds, draws each epoch's order.
    assert sorted(order[0]) == list(range(12)) and not np.array_equal(order[0], order[1])
    rng = np.random.RandomState(9)
    np.testing.assert_array_equal(order, [rng.permutation(12), rng.permutation(12)])
