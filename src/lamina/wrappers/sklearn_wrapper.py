"""scikit-learn estimators around lamina models: a classifier, a regressor and a transformer.

Each wrapper is a scikit-learn estimator (`get_params`, `set_params`, `fit`, `predict` or
`transform`), so a lamina model can sit in a `Pipeline`, be searched by `GridSearchCV`
and scored by `cross_val_score`. The model is passed as `model=`: either a compiled
model, which each `fit` clones (same architecture and compile settings, new weights), or
a callable `model(X=X, y=y, **model_kwargs)` that builds and compiles one from the
training data, as in Keras 3's `keras.wrappers`.

>>> import numpy as np
>>> from lamina import Input, Model, layers
>>> from lamina.wrappers import SKLearnRegressor
>>> def build(X, y):
...     inputs = Input((X.shape[1],))
...     model = Model(inputs, layers.Dense(y.shape[1])(inputs))
...     model.compile(optimizer="sgd", loss="mse", jit_compile=False)
...     return model
>>> reg = SKLearnRegressor(model=build, fit_kwargs={"epochs": 2, "verbose": 0})
>>> reg.fit(np.ones((8, 3)), np.arange(8.0)).predict(np.ones((2, 3))).shape
(2,)
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from lamina.wrappers.utils import SKLEARN_MISSING

try:
    import sklearn
except ImportError as err:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError(SKLEARN_MISSING.format(name="lamina.wrappers")) from err
try:  # `validate_data` and `__sklearn_tags__` arrived in scikit-learn 1.6.
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as err:  # pragma: no cover - exercised only with an old scikit-learn
    raise ImportError(
        f"lamina.wrappers needs scikit-learn 1.6 or newer; found {sklearn.__version__}. "
        "Upgrade it with `pip install -U lamina[sklearn]`."
    ) from err
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from lamina.backend import floatx
from lamina.models import Model, load_model
from lamina.wrappers.utils import (
    as_2d_output,
    check_model,
    clone_untrained,
    loss_key,
    output_width,
    portable_compile_args,
    restore_compile_args,
)

# SciPy sparse matrices (a TfidfVectorizer's output) go to `fit` and `predict` as they are:
# lamina densifies them a batch at a time. Keras 3's wrappers refuse them.
_SPARSE_FORMATS = ("csr", "csc", "coo")

_ARGS_DOC = """
    Args:
        model: a compiled lamina `Model`, or a callable that builds and compiles one. A
            model is cloned by each `fit` (same architecture and compile settings, new
            weights) unless `warm_start=True`. A callable is called as
            `model(X=X, y=y, **model_kwargs)` with the validated training data (for the
            classifier, `y` one-hot encoded), so it can size the input and output layers.
        warm_start: when True, the model is not cloned: the first `fit` trains the model
            passed as `model=` in place, and each later `fit` continues from the weights
            of the previous one (`model_`).
        model_kwargs: keyword arguments for `model` when it is a callable.
        fit_kwargs: keyword arguments for `model.fit` (`epochs`, `batch_size`,
            `verbose`, `callbacks`, ...). Keyword arguments given to the wrapper's `fit`
            take precedence over these. Predictions run quietly (`verbose=0`).

    Attributes:
        model_: the fitted lamina model.
        history_: the per-epoch logs of the last `fit` (`History.history`), extended
            over successive fits when `warm_start=True`.
        n_features_in_: the number of features seen by `fit`.
"""


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def _compile_objects(spec, found: dict) -> dict:
    """The functions and classes `compile` was given, by the name the file records."""
    if isinstance(spec, (list, tuple)):
        for item in spec:
            _compile_objects(item, found)
    elif isinstance(spec, dict):
        for item in spec.values():
            _compile_objects(item, found)
    elif spec is None or isinstance(spec, (str, int, float, bool)):
        pass
    elif isinstance(spec, type) or not hasattr(spec, "get_config"):
        found[getattr(spec, "__name__", repr(spec))] = spec
    else:
        found[type(spec).__name__] = type(spec)
    return found


class _SavedModel:
    """A lamina model carried through pickle as the bytes of its `.keras` file.

    What `compile` was given travels beside it (functions pickled by reference), and the
    loaded model is compiled with it again, so a custom loss need not be registered.
    """

    def __init__(self, model: Model):
        compiled_with = [getattr(model, "_compile_args", {}), getattr(model, "optimizer", None)]
        self.custom_objects = _compile_objects(compiled_with, {})
        self.compile_args = portable_compile_args(model)
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "model.keras")
            model.save(path)
            with open(path, "rb") as f:
                self.data = f.read()

    def load(self) -> Model:
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "model.keras")
            with open(path, "wb") as f:
                f.write(self.data)
            model = load_model(path, custom_objects=self.custom_objects)
        if self.compile_args is not None and getattr(model, "optimizer", None) is not None:
            restore_compile_args(model, self.compile_args)
        return model


class SKLBase(BaseEstimator):
    """What the three wrappers share: building the model, fitting it, predicting."""

    # Set by each wrapper: does `fit` take several target columns, must y be numeric.
    _multi_output = True
    _y_numeric = True

    def __init__(self, model, warm_start=False, model_kwargs=None, fit_kwargs=None):
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Weights start random and training shuffles: two fits differ.
        tags.non_deterministic = True
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True  # fit takes SciPy sparse rows, densifying each batch
        return tags

    # Pickling (joblib workers, saved pipelines): models travel as `.keras` files, so a
    # model needs no more than `Model.save` supports (registered custom objects).
    def __getstate__(self):
        state = dict(super().__getstate__())  # object.__getstate__ returns __dict__ itself
        shared = state.get("model_") is not None and state.get("model_") is state.get("model")
        for key in ("model", "model_"):
            if isinstance(state.get(key), Model):
                state[key] = _SavedModel(state[key])
        if shared:
            state["model_"] = "model"
        return state

    def __setstate__(self, state):
        state = dict(state)
        for key in ("model", "model_"):
            if isinstance(state.get(key), _SavedModel):
                state[key] = state[key].load()
        if state.get("model_") == "model":
            state["model_"] = state["model"]
        super().__setstate__(state)

    @property
    def epoch_(self) -> int:
        """The number of epochs the fitted model has been trained for."""
        return getattr(self, "_epochs_trained", 0)

    def set_fit_request(self, **kwargs):
        """Request metadata (e.g. `sample_weight=True`) to be routed to `fit`.

        Only available with `sklearn.set_config(enable_metadata_routing=True)`; see
        scikit-learn's metadata routing guide. Each keyword is a parameter of `model.fit`
        and its value an alias: True, False, None or a string.

        Returns:
            The estimator.
        """
        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                f"{type(self).__name__}.set_fit_request is only available when metadata "
                "routing is enabled: call "
                "`sklearn.set_config(enable_metadata_routing=True)` first."
            )
        request = self._get_metadata_request()
        for param, alias in kwargs.items():
            request.fit.add_request(param=param, alias=alias)
        self._metadata_request = request
        return self

    # fit -----------------------------------------------------------------------------
    def fit(self, X, y, **kwargs):
        """Train the model on `X` and `y`.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.
            y: array-like of shape `(n_samples,)` or `(n_samples, n_outputs)`.
            **kwargs: keyword arguments for `model.fit`, over `fit_kwargs`.

        Returns:
            The fitted estimator.
        """
        name = type(self).__name__
        if y is None:
            raise ValueError(
                f"{name} requires y to be passed, but the target y is None: fit trains the "
                "model on X and y. For a model trained to reproduce its input (an "
                "autoencoder), pass y=X."
            )
        continuing = bool(self.warm_start) and hasattr(self, "model_")
        X, y = validate_data(
            self,
            X,
            y,
            reset=not continuing,
            allow_nd=True,
            accept_sparse=_SPARSE_FORMATS,
            multi_output=self._multi_output,
            y_numeric=self._y_numeric,
        )
        X = X.astype(floatx(), copy=False)
        y_model = self._encode_target(y, reset=not continuing)
        self._check_sample_weight(y, kwargs.get("sample_weight"))
        model = self._get_model(X, y_model)
        check_model(model, name)
        y_model = self._adapt_target_to_model(model, y, y_model)
        self.__dict__.pop("_codes", None)  # the classifier's label indices, used up
        settings = {**(self.fit_kwargs or {}), **kwargs}
        history = model.fit(X, y_model, **settings)
        logs = dict(getattr(history, "history", {}) or {})
        if continuing:
            previous = getattr(self, "history_", {})
            logs = {key: list(previous.get(key, [])) + list(values) for key, values in logs.items()}
            self._epochs_trained = self.epoch_ + len(getattr(history, "epoch", []))
        else:
            self._epochs_trained = len(getattr(history, "epoch", []))
        self.history_ = logs
        self.model_ = model
        return self

    def _get_model(self, X, y):
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        name = type(self).__name__
        if isinstance(self.model, Model):
            if self.model_kwargs:
                raise ValueError(
                    f"{name}: model_kwargs {sorted(self.model_kwargs)} are passed to `model` "
                    "when it is a callable that builds the model; received a Model "
                    "instance. Pass a callable, or drop model_kwargs."
                )
            return self.model if self.warm_start else clone_untrained(self.model, name)
        if callable(self.model):
            return self.model(X=X, y=y, **(self.model_kwargs or {}))
        raise TypeError(
            f"{name}: `model` must be a compiled lamina Model or a callable that returns "
            f"one; received {type(self.model).__name__}."
        )

    def _encode_target(self, y, reset):
        """Regressors and transformers give the model 2-D targets."""
        type_of_target(y, input_name="y", raise_unknown=True)
        if reset:
            self._y_ndim = y.ndim
        y = np.asarray(y, dtype=floatx())
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def _adapt_target_to_model(self, model, y, y_model):
        return y_model

    def _check_sample_weight(self, y, sample_weight):
        pass

    # predict -------------------------------------------------------------------------
    def _model_output(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, allow_nd=True, accept_sparse=_SPARSE_FORMATS)
        return self.model_.predict(X.astype(floatx(), copy=False), verbose=0)

    def predict(self, X):
        """The model's predictions for `X`, with targets shaped as in `fit`.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array of shape `(n_samples,)` when `fit` got 1-D targets, else
            `(n_samples, n_outputs)`.
        """
        raw = as_2d_output(self._model_output(X), type(self).__name__)
        if self._y_ndim == 1 and raw.shape[1] == 1:
            return raw[:, 0]
        return raw


class SKLearnClassifier(ClassifierMixin, SKLBase):
    """A scikit-learn classifier around a lamina model.

    Labels can be any values scikit-learn accepts for binary or multiclass targets; they
    are kept in `classes_` and the model sees them one-hot encoded (so the callable
    building the model can size its output as `y.shape[1]`). The encoding follows the
    compiled loss: a `sparse_categorical_crossentropy` model gets class indices, and a
    binary model with a single output unit (e.g. sigmoid with `binary_crossentropy`)
    gets a 0/1 column. `predict` returns labels from `classes_`, `predict_proba` class
    probabilities (softmax or sigmoid of the outputs when the loss has
    `from_logits=True`), and `decision_function` the model's raw outputs, as Keras's.

    >>> import numpy as np
    >>> from lamina import Input, Model, layers
    >>> from lamina.wrappers import SKLearnClassifier
    >>> def build(X, y):  # y arrives one-hot: (n_samples, n_classes)
    ...     inputs = Input((X.shape[1],))
    ...     model = Model(inputs, layers.Dense(y.shape[1], activation="softmax")(inputs))
    ...     model.compile(optimizer="sgd", loss="categorical_crossentropy")
    ...     return model
    >>> clf = SKLearnClassifier(model=build, fit_kwargs={"epochs": 1, "verbose": 0})
    >>> X, y = np.random.default_rng(0).normal(size=(8, 3)), np.array(["cat", "dog"] * 4)
    >>> clf.fit(X, y).classes_.tolist(), clf.predict(X[:3]).shape, clf.predict_proba(X[:3]).shape
    (['cat', 'dog'], (3,), (3, 2))
    """

    __doc__ += _ARGS_DOC + "        classes_: the class labels seen by `fit`, sorted.\n"

    _multi_output = False
    _y_numeric = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Small networks trained for few epochs do not reach scikit-learn's score bars.
        tags.classifier_tags.poor_score = True
        return tags

    def _encode_target(self, y, reset):
        check_classification_targets(y)
        target_type = type_of_target(y, input_name="y")
        if target_type not in ("binary", "multiclass"):
            raise ValueError(
                f"SKLearnClassifier supports binary and multiclass targets; received a "
                f"{target_type!r} target of shape {np.shape(y)}. For several outputs, "
                "use SKLearnRegressor or one classifier per output."
            )
        if reset:
            classes = np.unique(y)
            if len(classes) < 2:
                raise ValueError(
                    f"SKLearnClassifier needs at least 2 classes to train; y has only one "
                    f"class: {classes[0]!r}."
                )
            self.classes_ = classes
            self._y_ndim = 1
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if len(unseen):
            raise ValueError(
                f"SKLearnClassifier: y has labels {unseen.tolist()} not seen by the first "
                f"fit (classes_ = {self.classes_.tolist()}); a warm-started fit keeps the "
                "classes of the first one."
            )
        self._codes = np.searchsorted(self.classes_, y)
        return np.eye(len(self.classes_), dtype=floatx())[self._codes]

    def _check_sample_weight(self, y, sample_weight):
        if sample_weight is None:
            return
        weighted = np.unique(np.asarray(y)[np.asarray(sample_weight).reshape(-1) > 0])
        if len(weighted) < 2:
            raise ValueError(
                "SKLearnClassifier needs at least 2 classes with a positive sample_weight "
                f"to train; only {weighted.tolist()} has one."
            )

    def _adapt_target_to_model(self, model, y, y_model):
        loss, from_logits = loss_key(model)
        width = output_width(model)
        n_classes = len(self.classes_)
        self._from_logits = from_logits
        if loss.startswith("sparsecategorical"):
            return self._codes.astype("int32")
        if width == 1:
            if n_classes != 2:
                raise ValueError(
                    f"SKLearnClassifier: the model has one output unit, which fits a "
                    f"binary target, but y has {n_classes} classes. Give the output layer "
                    f"{n_classes} units (e.g. `Dense(y.shape[1], activation='softmax')`)."
                )
            return self._codes.astype(floatx())[:, None]
        if width is not None and width != n_classes:
            raise ValueError(
                f"SKLearnClassifier: the model outputs {width} units but y has "
                f"{n_classes} classes ({self.classes_.tolist()}); size the output layer "
                "from y (`Dense(y.shape[1])` in the model-building callable)."
            )
        return y_model

    def decision_function(self, X):
        """The model's raw outputs for `X` (probabilities or logits), as Keras's.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array of shape `(n_samples, n_model_outputs)`.
        """
        return self._raw_output(X)

    def _raw_output(self, X):
        return as_2d_output(self._model_output(X), type(self).__name__)

    def predict(self, X):
        """The predicted class label of each sample, from `classes_`.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array of shape `(n_samples,)`.
        """
        raw = self._raw_output(X)
        if raw.shape[1] == 1:
            threshold = 0.0 if self._from_logits else 0.5
            index = (raw[:, 0] > threshold).astype(int)
        else:
            index = np.argmax(raw, axis=1)
        return self.classes_[index]

    def predict_proba(self, X):
        """The probability of each class in `classes_` for each sample.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array of shape `(n_samples, n_classes)` whose rows sum to 1.
        """
        raw = self._raw_output(X).astype(np.float64)
        if self._from_logits:
            if raw.shape[1] == 1:
                positive = 1.0 / (1.0 + np.exp(-raw[:, 0]))
                return np.stack([1.0 - positive, positive], axis=1)
            return _softmax(raw)
        if raw.min() < -1e-6 or (raw.shape[1] == 1 and raw.max() > 1 + 1e-6):
            raise ValueError(
                "SKLearnClassifier.predict_proba: the model's outputs are not "
                f"probabilities (they range over [{raw.min():.3g}, {raw.max():.3g}]). "
                "End the model with a softmax (or sigmoid) activation, or compile it "
                "with a loss that has `from_logits=True` so the wrapper applies one."
            )
        raw = np.clip(raw, 0.0, None)
        if raw.shape[1] == 1:
            positive = np.clip(raw[:, 0], 0.0, 1.0)
            return np.stack([1.0 - positive, positive], axis=1)
        totals = raw.sum(axis=1, keepdims=True)
        totals[totals == 0] = 1.0
        return raw / totals


class SKLearnRegressor(RegressorMixin, SKLBase):
    """A scikit-learn regressor around a lamina model.

    The model sees 2-D float targets `(n_samples, n_outputs)` (a 1-D `y` becomes one
    column), and `predict` returns the model's outputs shaped as `y` was in `fit`.
    Several target columns are supported (multi-output regression).

    >>> import numpy as np
    >>> from lamina import Input, Model, layers
    >>> from lamina.wrappers import SKLearnRegressor
    >>> def build(X, y):  # y arrives as (n_samples, n_outputs)
    ...     inputs = Input((X.shape[1],))
    ...     model = Model(inputs, layers.Dense(y.shape[1])(inputs))
    ...     model.compile(optimizer="sgd", loss="mse")
    ...     return model
    >>> reg = SKLearnRegressor(model=build, fit_kwargs={"epochs": 1, "verbose": 0})
    >>> reg.fit(np.ones((8, 3)), np.arange(8.0)).predict(np.ones((2, 3))).shape
    (2,)
    """

    __doc__ += _ARGS_DOC

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        tags.target_tags.multi_output = True
        return tags

    def predict(self, X):
        """The model's predictions for `X`, as float64, shaped as `y` was in `fit`.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array of shape `(n_samples,)` when `fit` got 1-D targets, else
            `(n_samples, n_outputs)`.
        """
        # scikit-learn's metrics and meta-estimators expect double precision.
        return super().predict(X).astype(np.float64)


class SKLearnTransformer(TransformerMixin, SKLBase):
    """A scikit-learn transformer around a lamina model: `transform` returns its outputs.

    A transformer in scikit-learn's sense (a pipeline step mapping `X` to features), not
    the attention architecture. `fit` trains the model on `X` and `y` as the regressor
    does; `transform(X)` returns `model_.predict(X)`, e.g. an embedding for the next
    step of a `Pipeline`. To use an already trained model without training it again,
    wrap the fitted transformer in `sklearn.frozen.FrozenEstimator`.

    >>> import numpy as np
    >>> from lamina import Input, Model, layers
    >>> from lamina.wrappers import SKLearnTransformer
    >>> def build(X, y):  # a 2-unit embedding of X, trained to predict y
    ...     inputs = Input((X.shape[1],))
    ...     model = Model(inputs, layers.Dense(2)(inputs))
    ...     model.compile(optimizer="sgd", loss="mse")
    ...     return model
    >>> embed = SKLearnTransformer(model=build, fit_kwargs={"epochs": 1, "verbose": 0})
    >>> embed.fit(np.ones((8, 3)), np.zeros((8, 2))).transform(np.ones((5, 3))).shape
    (5, 2)
    """

    __doc__ += _ARGS_DOC

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        # The model decides the output dtype (floatx), whatever the input's.
        tags.transformer_tags.preserves_dtype = []
        return tags

    def transform(self, X):
        """The model's outputs for `X`.

        Args:
            X: array-like of shape `(n_samples, n_features, ...)`.

        Returns:
            A NumPy array, `model_.predict(X)`: `(n_samples, n_model_outputs)` for a
            model with one 2-D output.
        """
        out = self._model_output(X)
        if isinstance(out, (list, tuple)) and len(out) == 1:
            out = out[0]
        return np.asarray(out) if not isinstance(out, (list, tuple, dict)) else out
