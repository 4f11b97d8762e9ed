"""Targets against outputs: a missing target or a shape that cannot match is named clearly."""

import numpy as np
import pytest

from lamina import Input, Model, Sequential, layers

X = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")


def _dense(units, loss="mse", metrics=None):
    model = Sequential([Input((4,)), layers.Dense(units, name="out")])
    model.compile(optimizer="sgd", loss=loss, metrics=metrics)
    return model


def _two_outputs(losses):
    inp = Input((4,))
    model = Model(inp, {"a": layers.Dense(5, name="a")(inp), "b": layers.Dense(1, name="b")(inp)})
    model.compile(optimizer="sgd", loss=losses)
    return model


def test_dict_targets_missing_an_output_with_a_loss():
    model = _two_outputs({"a": "mse", "b": "mse"})
    with pytest.raises(ValueError, match=r"\['b'\] have a loss but received no target"):
        model.fit(X, {"a": np.zeros((8, 5))}, verbose=0)
    with pytest.raises(ValueError, match=r"\['b'\]"):
        model.evaluate(X, {"a": np.zeros((8, 5))}, verbose=0)


def test_output_without_a_loss_needs_no_target():
    model = _two_outputs({"a": "mse"})
    model.fit(X, {"a": np.zeros((8, 5), "float32")}, verbose=0)
    assert model.metrics_names == ["loss"]  # one output with a loss: no a_loss, as in Keras


@pytest.mark.parametrize("method", ["fit", "evaluate", "train_on_batch"])
def test_no_targets_with_a_compiled_loss(method):
    model = _dense(3)
    with pytest.raises(ValueError, match=r"y is None.*\['out'\]"):
        if method == "train_on_batch":
            model.train_on_batch(X)
        else:
            getattr(model, method)(X, verbose=0)


@pytest.mark.parametrize(
    "target_shape", [(8, 3), (8, 5, 2), (8,)], ids=["width", "rank_up", "rank_down"]
)
def test_targets_that_cannot_match_the_output(target_shape):
    model = _dense(5)
    pattern = (
        rf"loss 'mse' of output 'out' received targets of shape "
        rf"{re_shape(target_shape)} for predictions of shape \(8, 5\)"
    )
    with pytest.raises(ValueError, match=pattern):
        model.fit(X, np.zeros(target_shape, "float32"), batch_size=8, verbose=0)
    with pytest.raises(ValueError, match=pattern):
        model.evaluate(X, np.zeros(target_shape, "float32"), batch_size=8, verbose=0)

    def gen():
        while True:
            yield X, np.zeros(target_shape, "float32")

    with pytest.raises(ValueError, match=pattern):
        model.fit(gen(), steps_per_epoch=1, verbose=0)


def re_shape(shape):
    return str(tuple(shape)).replace("(", r"\(").replace(")", r"\)")


def test_metric_shape_mismatch_names_the_metric():
    # The loss broadcasts (n, 1) targets; a metric on another output shape is named.
    model = _dense(5, loss=lambda t, p: (p - 0.0) ** 2, metrics=["mae"])
    with pytest.raises(ValueError, match=r"metric 'mae' of output 'out'.*\(8, 3\)"):
        model.fit(X, np.zeros((8, 3), "float32"), batch_size=8, verbose=0)


@pytest.mark.parametrize(
    ("units", "loss", "target"),
    [
        (1, "mse", np.zeros((8,), "float32")),  # (n,) for an (n, 1) output
        (5, "mse", np.zeros((8, 1), "float32")),  # broadcasts along the features
        (3, "sparse_categorical_crossentropy", np.zeros((8,), "int32")),
        (3, "sparse_categorical_crossentropy", np.zeros((8, 1), "int32")),
    ],
)
def test_legitimate_target_shapes_still_train(units, loss, target):
    model = _dense(units, loss=loss, metrics=["mae"] if loss == "mse" else ["accuracy"])
    history = model.fit(X, target, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])


@pytest.mark.parametrize(
    "extra, before, after",
    [
        # Keras 3.15's lists, checked by hand: `compile_metrics` from `compile` on whenever
        # metrics were given (even an empty list), before the per-output losses.
        ({"metrics": {"a": ["mae"], "b": ["mse"]}}, ["loss", "compile_metrics"], None),
        ({"metrics": []}, ["loss", "compile_metrics"], None),
        ({"weighted_metrics": {"a": ["mae"]}}, ["loss", "compile_metrics"], None),
        ({}, ["loss"], ["loss", "a_loss", "b_loss"]),
    ],
)
def test_metrics_names_in_keras_order(extra, before, after):
    model = _two_outputs({"a": "mse", "b": "mae"})
    model.compile(optimizer="sgd", loss={"a": "mse", "b": "mae"}, **extra)
    assert model.metrics_names == before
    y = {"a": np.ones((8, 5), "float32"), "b": np.ones((8, 1), "float32")}
    model.fit(X, y, verbose=0)
    assert model.metrics_names == (after or before + ["a_loss", "b_loss"])
    # evaluate's list keeps Keras's order of values: the losses, then the metrics.
    logs = model.evaluate(X, y, verbose=0, return_dict=True)
    values = model.evaluate(X, y, verbose=0)
    names = ["loss", "a_loss", "b_loss"] + sorted(set(logs) - {"loss", "a_loss", "b_loss"})
    np.testing.assert_allclose(values, [logs[n] for n in names], rtol=1e-6)


@pytest.mark.parametrize("as_dict", [True, False])
def test_per_output_losses_follow_the_loss_dict_order(as_dict):
    """Keras 3 walks a `loss` dict in its own order for a model with dict outputs (list
    outputs keep the outputs' order), and `evaluate`'s list follows `metrics_names`: a
    program that unpacks `loss, zeta_loss, alpha_loss = model.evaluate(...)` must get
    each output's own loss (checked against NumPy's MSE of `predict`)."""
    inp = Input((4,))
    heads = {"zeta": layers.Dense(1, name="zeta")(inp), "alpha": layers.Dense(2, name="alpha")(inp)}
    model = Model(inp, heads if as_dict else [heads["zeta"], heads["alpha"]])
    model.compile(optimizer="sgd", loss={"zeta": "mse", "alpha": "mae"})
    y = {"zeta": np.full((8, 1), 1.0, "float32"), "alpha": np.full((8, 2), 10.0, "float32")}
    targets = y if as_dict else [y["zeta"], y["alpha"]]
    model.fit(X, targets, verbose=0)
    expected_order = ["zeta", "alpha"] if as_dict else ["alpha", "zeta"]
    if not as_dict:
        expected_order = [n for n in model.output_names]  # the outputs' order
    assert model.metrics_names == ["loss"] + [f"{n}_loss" for n in expected_order]
    pred = model.predict(X, verbose=0)
    pred = pred if as_dict else dict(zip(["zeta", "alpha"], pred))
    per_output = {
        "zeta": np.mean((pred["zeta"] - y["zeta"]) ** 2),
        "alpha": np.mean(np.abs(pred["alpha"] - y["alpha"])),
    }
    total, *losses = model.evaluate(X, targets, verbose=0)
    np.testing.assert_allclose(losses, [per_output[n] for n in expected_order], rtol=1e-5)
    np.testing.assert_allclose(total, sum(per_output.values()), rtol=1e-5)
