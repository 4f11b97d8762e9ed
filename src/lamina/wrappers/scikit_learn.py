"""Classic Keras's `keras.wrappers.scikit_learn`: `KerasClassifier` and `KerasRegressor`
in Keras 2's form, `Wrapper(build_fn=..., **sk_params)`.

`build_fn` builds and compiles a model; `sk_params` are its arguments and those of the
model's `fit`, `predict`, `predict_classes` and `evaluate`, each handed to the calls
that take it (`epochs=3, batch_size=16, hidden=8`). The wrappers are scikit-learn
estimators (`get_params`/`set_params` over `build_fn` and `sk_params`), so
`GridSearchCV(KerasClassifier(build_fn), {"hidden": [4, 8], "epochs": [2, 4]})` searches
over both. As in Keras 2, `fit` returns the `History`, a classifier's `score` is the
model's accuracy from `evaluate` (compile it with `metrics=["accuracy"]`) and a
regressor's is the negated loss.

Keras 3's wrappers, with a model or a builder passed as `model=`, are
`lamina.wrappers.SKLearnClassifier` / `SKLearnRegressor`. This module needs scikit-learn
(`pip install lamina[sklearn]`).

>>> import numpy as np
>>> import lamina
>>> from lamina import layers
>>> def build(hidden=4):
...     model = lamina.Sequential([layers.Input((3,)), layers.Dense(hidden, activation="relu"),
...                                layers.Dense(2, activation="softmax")])
...     model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
...     return model
>>> clf = KerasClassifier(build_fn=build, hidden=8, epochs=2, verbose=0)
>>> x, y = np.random.default_rng(0).normal(size=(20, 3)), np.array(["a", "b"] * 10)
>>> _ = clf.fit(x, y)
>>> clf.predict(x[:3]).dtype.kind, clf.predict_proba(x[:3]).shape
('U', (3, 2))
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from lamina.wrappers.utils import SKLEARN_MISSING, compile_loss

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
except ImportError as err:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError(SKLEARN_MISSING.format(name="lamina.wrappers.scikit_learn")) from err

from lamina.models import Sequential
from lamina.utils import to_categorical


def _takes(fn, name: str) -> bool:
    parameters = inspect.signature(fn).parameters
    return name in parameters and parameters[name].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def _loss_name(model) -> str | None:
    loss = compile_loss(model)
    return getattr(loss, "__name__", loss) if not isinstance(loss, str) else loss


class BaseWrapper(BaseEstimator):
    """The shared part of `KerasClassifier` and `KerasRegressor`.

    Args:
        build_fn: a function (or an object whose `__call__` does it) that returns a
            compiled model; None: the wrapper's own `__call__` (a subclass defines it).
        **sk_params: arguments of `build_fn` and of the model's `fit`, `predict`,
            `predict_classes` and `evaluate`; each call receives those it takes.
    """

    # The model methods whose arguments are legal `sk_params`, as in Keras 2.
    _model_methods = (Sequential.fit, Sequential.predict, Sequential.evaluate)

    def __init__(self, build_fn=None, **sk_params):
        self.build_fn = build_fn
        self.sk_params = sk_params
        self.check_params(sk_params)

    def _builder(self):
        if self.build_fn is None:
            return self.__call__
        if isinstance(self.build_fn, (types.FunctionType, types.MethodType)):
            return self.build_fn
        return self.build_fn.__call__

    def check_params(self, params) -> None:
        """Raise a ValueError naming any of `params` that no call would take."""
        callables = list(self._model_methods)
        if hasattr(Sequential, "predict_classes"):
            callables.append(Sequential.predict_classes)
        callables.append(self._builder())
        for name in params:
            if not any(_takes(fn, name) for fn in callables):
                if name == "nb_epoch":
                    raise ValueError("`nb_epoch` is Keras 1's name: use `epochs`.")
                raise ValueError(
                    f"{type(self).__name__}: {name!r} is not an argument of build_fn or of the "
                    "model's fit, predict, predict_classes or evaluate."
                )

    def get_params(self, deep: bool = True) -> dict:
        """`build_fn` and the `sk_params` (the same objects, so scikit-learn's `clone`
        recognises them)."""
        return {"build_fn": self.build_fn, **self.sk_params}

    def set_params(self, **params):
        """Update `sk_params` (and `build_fn`); returns the wrapper."""
        if "build_fn" in params:
            self.build_fn = params.pop("build_fn")
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def filter_sk_params(self, fn, override=None) -> dict:
        """The `sk_params` that `fn` takes, updated with `override`."""
        chosen = {k: v for k, v in self.sk_params.items() if _takes(fn, k)}
        chosen.update(override or {})
        return chosen

    def fit(self, x, y, **kwargs):
        """Build a new model with `build_fn` and train it on `(x, y)`; returns the
        `History`. `kwargs` are `fit` arguments, over the `sk_params`."""
        builder = self._builder()
        self.model = builder(**self.filter_sk_params(builder))
        if _loss_name(self.model) == "categorical_crossentropy" and np.ndim(y) != 2:
            y = to_categorical(y, getattr(self, "n_classes_", None))
        fit_args = self.filter_sk_params(Sequential.fit)
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)


class KerasClassifier(ClassifierMixin, BaseWrapper):
    """A scikit-learn classifier around a model built by `build_fn` (Keras 2's form).

    Labels may be any values (strings, numbers): `fit` maps them to `0..n-1` (one-hot
    when the model's loss is `categorical_crossentropy`), `predict` maps back.

    Args:
        build_fn: returns a compiled model with one output: a softmax over the
            classes, or one sigmoid unit for two classes.
        **sk_params: see `BaseWrapper`.

    Attributes:
        classes_: the labels seen by `fit`, sorted.
        n_classes_: their number.
        model: the trained model.
    """

    def fit(self, x, y, sample_weight=None, **kwargs):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1):
            y = y.reshape(-1)
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError(f"KerasClassifier: invalid shape for y: {y.shape}.")
        self.n_classes_ = len(self.classes_)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return super().fit(x, y, **kwargs)

    def predict(self, x, **kwargs):
        """The predicted labels (from `classes_`)."""
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        probabilities = np.asarray(self.model.predict(x, **kwargs))
        if probabilities.shape[-1] > 1:
            indices = probabilities.argmax(axis=-1)
        else:
            indices = (probabilities[..., 0] > 0.5).astype("int32")
        return self.classes_[indices]

    def predict_proba(self, x, **kwargs):
        """The class probabilities, `(samples, classes)`; a one-unit sigmoid output gives
        both columns, `[1 - p, p]`."""
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        probabilities = np.asarray(self.model.predict(x, **kwargs))
        if probabilities.shape[1] == 1:
            probabilities = np.hstack([1 - probabilities, probabilities])
        return probabilities

    def score(self, x, y, sample_weight=None, **kwargs):
        """The model's accuracy on `(x, y)`, from `evaluate` (a metric named `accuracy`
        or `acc` must be compiled in)."""
        y = np.searchsorted(self.classes_, np.asarray(y).reshape(-1))
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        if _loss_name(self.model) == "categorical_crossentropy":
            y = to_categorical(y, self.n_classes_)
        results = self.model.evaluate(x, y, return_dict=True, **kwargs)
        for name in ("accuracy", "acc"):
            if name in results:
                return float(results[name])
        raise ValueError(
            "KerasClassifier.score needs the model's accuracy: compile it with "
            f"`metrics=['accuracy']`. It computes {sorted(results)}."
        )


class KerasRegressor(RegressorMixin, BaseWrapper):
    """A scikit-learn regressor around a model built by `build_fn` (Keras 2's form).

    `score` is the negated loss from `evaluate` (greater is better, as scikit-learn
    expects). `predict` drops a last axis of size 1.
    """

    def predict(self, x, **kwargs):
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        predictions = np.asarray(self.model.predict(x, **kwargs))
        if predictions.shape[-1] == 1:
            return np.squeeze(predictions, axis=-1)
        return predictions

    def score(self, x, y, sample_weight=None, **kwargs):
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        loss = self.model.evaluate(x, y, **kwargs)
        if isinstance(loss, (list, tuple)):
            loss = loss[0]
        return -float(loss)


__all__ = ["BaseWrapper", "KerasClassifier", "KerasRegressor"]
