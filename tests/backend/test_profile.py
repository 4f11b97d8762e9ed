"""`backend.profile()`: every compiled program reports its calls, compiles and time."""

from __future__ import annotations

import numpy as np

import lamina
from lamina import backend, layers


def _model():
    inp = lamina.Input((3,))
    model = lamina.Model(inp, layers.Dense(2)(layers.Dense(4)(inp)), name="prof")
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_fit_evaluate_predict_and_model_call_report_each_program():
    model = _model()
    x = np.random.RandomState(0).rand(20, 3).astype("float32")
    y = np.zeros((20, 2), "float32")
    with backend.profile() as prof:
        model.fit(x, y, batch_size=5, epochs=2, verbose=0)  # 4 steps per epoch
        model.evaluate(x, y, batch_size=10, verbose=0)
        model.predict(x, batch_size=10, verbose=0)
        model(x[:2])
    names = list(prof.stats)
    train = [n for n in names if "train" in n]
    assert train and sum(prof.stats[n].calls for n in train) == 8
    assert sum(prof.stats[n].traces for n in train) == 1  # one batch shape, one compile
    assert any("test" in n for n in names) and any("predict" in n for n in names)
    # On JAX `model(x)` runs a compiled program too; on torch it runs layer by layer.
    model_call = 1 if backend.backend() == "jax" else 0
    assert sum(s.calls for s in prof.stats.values()) >= 8 + 2 + 2 + model_call
    assert all(s.seconds > 0 for s in prof.stats.values())
    table = prof.table()
    assert table.splitlines()[0].split() == ["program", "calls", "compiles", "seconds"]
    assert all(n in table for n in names)


def test_nothing_is_collected_outside_a_profile_block():
    model = _model()
    x = np.ones((4, 3), "float32")
    with backend.profile() as prof:
        pass
    model.predict(x, verbose=0)
    assert prof.stats == {}
    assert not backend.common.execution.profiling()


def test_nested_profiles_both_collect():
    f = backend.function([x := lamina.Input((2,))], [x + 1.0])
    with backend.profile() as outer:
        f([np.ones((1, 2), "float32")])
        with backend.profile() as inner:
            f([np.ones((1, 2), "float32")])
    assert sum(s.calls for s in outer.stats.values()) == 2
    assert sum(s.calls for s in inner.stats.values()) == 1
