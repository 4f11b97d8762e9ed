"""How many XLA programs a convnet's build, `fit`, `evaluate` and `predict` compile on JAX.

In a fresh process each program is a compile (tens of ms for an eager op, seconds for a
step): the first `fit` waits for all of them (issue 35). What is needed is one program
per step and batch shape; filled weights and optimizer slots (one `jnp.zeros` program per
shape), Python numbers cast to a dtype, and the epoch's metric results recomputed
eagerly after the last step each added programs of their own. The shapes here are odd
so that no other test's eager ops compiled the same programs first.
"""

import logging

import numpy as np
import pytest

from lamina import Input, Sequential, backend, layers

pytestmark = pytest.mark.skipif(backend.backend() != "jax", reason="XLA programs are JAX's")


def _compiled(caplog, fn) -> list:
    import jax

    caplog.clear()
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        fn()
    return [
        r.getMessage().split(" with ")[0] for r in caplog.records if "Compiling" in r.getMessage()
    ]


def test_build_fit_evaluate_predict_compile_one_program_per_step(caplog):
    layers.Dense(1).build((None, 2))  # the global seed generator's own programs, once
    rng = np.random.default_rng(0)
    x = rng.random((24, 9, 9, 1), dtype=np.float32)
    y = rng.integers(0, 5, 24).astype("int32")
    model = None

    def build():
        nonlocal model
        model = Sequential(
            [
                Input((9, 9, 1)),
                layers.Conv2D(7, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Flatten(),
                layers.Dense(5, activation="softmax"),
            ]
        )
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])

    assert _compiled(caplog, build) == []
    fit = _compiled(caplog, lambda: model.fit(x, y, batch_size=8, epochs=2, verbose=0))
    assert len(fit) == 1, fit  # the train step; no optimizer slots, no metric results
    evaluate = _compiled(caplog, lambda: model.evaluate(x, y, batch_size=8, verbose=0))
    assert len(evaluate) == 1, evaluate
    predict = _compiled(caplog, lambda: model.predict(x, batch_size=8, verbose=0))
    assert len(predict) == 1, predict
    # A last, partial batch is another shape: one more program for it, no more.
    partial = _compiled(caplog, lambda: model.fit(x[:20], y[:20], batch_size=8, verbose=0))
    assert len(partial) == 1, partial
