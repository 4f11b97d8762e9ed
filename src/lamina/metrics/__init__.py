"""`lamina.metrics`: stateful metrics (Keras's set) and per-sample metric functions.

`get` resolves Keras's names: class names (`"AUC"`), their snake-case forms
(`"auc"`, `"binary_accuracy"`, `"categorical_crossentropy"`) and the short forms
`"mse"`, `"mae"`, `"mape"`, `"msle"`, `"bce"`; each gives a new metric object.
`"accuracy"`/`"acc"` give plain `Accuracy`: in `compile`, binary, categorical or
sparse accuracy is chosen from the shapes of the targets and outputs (Keras 3's rule).
Keras's per-sample loss functions (`mean_absolute_error`, `hinge`...) are here too.

>>> import numpy as np
>>> from lamina import metrics
>>> m = metrics.get("mae")
>>> float(m(np.zeros((2, 1)), np.ones((2, 1))))
1.0
"""

from __future__ import annotations

import inspect

from lamina.common import serialization
from lamina.losses import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)

# Keras also offers the per-sample loss functions here, for `metrics=[fn]`.
from lamina.losses import cosine_similarity as _cosine_similarity_loss
from lamina.metrics.accuracy_metrics import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from lamina.metrics.confusion_metrics import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from lamina.metrics.correlation_metrics import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from lamina.metrics.f_score_metrics import F1Score, FBetaScore
from lamina.metrics.iou_metrics import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from lamina.metrics.metric import Metric
from lamina.metrics.probabilistic_metrics import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    Hinge,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from lamina.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum
from lamina.metrics.regression_metrics import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    R2Score,
    RootMeanSquaredError,
    cosine_similarity,
)
from lamina.metrics.sensitivity_metrics import (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)

# Keras 2's metrics module offered the loss functions under their short names too
# (`metrics.mse(y_true, y_pred)`, a VAE's `metrics.binary_crossentropy(x, x_decoded)`).
# Only as attributes: `get("mse")` still gives a MeanSquaredError metric object.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
cosine_proximity = cosine = _cosine_similarity_loss

# Name -> class for `get`: each class's default name (its snake-case name) plus
# Keras's short forms. Metric *functions* stay reachable by name through `deserialize`.
_NAMES: dict[str, type] = dict(
    {
        "mean": Mean,
        "sum": Sum,
        "accuracy": Accuracy,
        "acc": Accuracy,
        "binary_accuracy": BinaryAccuracy,
        "categorical_accuracy": CategoricalAccuracy,
        "sparse_categorical_accuracy": SparseCategoricalAccuracy,
        "top_k_categorical_accuracy": TopKCategoricalAccuracy,
        "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
        "auc": AUC,
        "precision": Precision,
        "recall": Recall,
        "true_positives": TruePositives,
        "true_negatives": TrueNegatives,
        "false_positives": FalsePositives,
        "false_negatives": FalseNegatives,
        "f1_score": F1Score,
        "fbeta_score": FBetaScore,
        "f_beta_score": FBetaScore,
        "mean_squared_error": MeanSquaredError,
        "mean_absolute_error": MeanAbsoluteError,
        "mean_absolute_percentage_error": MeanAbsolutePercentageError,
        "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
        "root_mean_squared_error": RootMeanSquaredError,
        "logcosh": LogCoshError,
        "log_cosh_error": LogCoshError,
        "log_cosh": LogCoshError,
        "cosine_similarity": CosineSimilarity,
        "r2_score": R2Score,
        "binary_crossentropy": BinaryCrossentropy,
        "categorical_crossentropy": CategoricalCrossentropy,
        "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
        "kl_divergence": KLDivergence,
        "kld": KLDivergence,
        "KLD": KLDivergence,
        "poisson": Poisson,
        "hinge": Hinge,
        "squared_hinge": SquaredHinge,
        "categorical_hinge": CategoricalHinge,
        "mse": MeanSquaredError,
        "MSE": MeanSquaredError,
        "mae": MeanAbsoluteError,
        "MAE": MeanAbsoluteError,
        "mape": MeanAbsolutePercentageError,
        "MAPE": MeanAbsolutePercentageError,
        "msle": MeanSquaredLogarithmicError,
        "MSLE": MeanSquaredLogarithmicError,
        "bce": BinaryCrossentropy,
        "BCE": BinaryCrossentropy,
        "pearson_correlation": PearsonCorrelation,
        "concordance_correlation": ConcordanceCorrelation,
        "precision_at_recall": PrecisionAtRecall,
        "recall_at_precision": RecallAtPrecision,
        "sensitivity_at_specificity": SensitivityAtSpecificity,
        "specificity_at_sensitivity": SpecificityAtSensitivity,
        "binary_io_u": BinaryIoU,
    }
)

# The registry knows every name `get` takes, so a saved model's compile_config (which
# `load_model` checks against it) may name metrics as `compile` accepted them ("mae").
# A name already registered keeps its object (`"accuracy"` the function).
for _name, _cls in _NAMES.items():
    if _name not in serialization.builtins("metrics"):
        serialization.register_builtin("metrics", _cls, name=_name)


def serialize(metric):
    """A metric's config dict (or a metric function's name).

    >>> config = serialize(AUC(num_thresholds=50))
    >>> config["class_name"], config["config"]["num_thresholds"]
    ('AUC', 50)
    """
    return serialization.serialize_keras_object(metric, "metrics")


def deserialize(config, custom_objects=None):
    """Rebuild a metric from `serialize` output, or resolve a class or function name.

    >>> metric = deserialize(serialize(Precision(thresholds=0.7)))
    >>> type(metric).__name__, metric.thresholds
    ('Precision', [0.7])
    """
    return serialization.deserialize_keras_object(
        config, "metrics", custom_objects, printable_module_name="metric"
    )


def get(identifier):
    """Resolve a metric: `None`, a name, a config dict, a class, a Metric, or a function.

    Names and classes give a new metric with default arguments; functions and Metric
    objects are returned as they are.

    >>> type(get("accuracy")).__name__
    'Accuracy'
    >>> get("auc").name
    'auc'
    """
    if identifier is None:
        return None
    if isinstance(identifier, str):
        obj = _NAMES.get(identifier)
        if obj is None:
            obj = deserialize(identifier)
    elif isinstance(identifier, dict):
        obj = deserialize(identifier)
    else:
        obj = identifier
    if inspect.isclass(obj):
        obj = obj()
    if not callable(obj) and not isinstance(obj, Metric):
        raise ValueError(
            f"Could not interpret metric identifier {identifier!r}: expected a metric name "
            "such as 'auc', a config dict, a Metric instance or a function (y_true, y_pred)."
        )
    return obj


__all__ = [
    "AUC",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "cosine",
    "cosine_proximity",
    "kld",
    "kullback_leibler_divergence",
    "mae",
    "mape",
    "mse",
    "msle",
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "BinaryIoU",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "ConcordanceCorrelation",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "FalseNegatives",
    "FalsePositives",
    "Hinge",
    "IoU",
    "KLDivergence",
    "LogCoshError",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanIoU",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Metric",
    "OneHotIoU",
    "OneHotMeanIoU",
    "PearsonCorrelation",
    "Poisson",
    "Precision",
    "PrecisionAtRecall",
    "R2Score",
    "Recall",
    "RecallAtPrecision",
    "RootMeanSquaredError",
    "SensitivityAtSpecificity",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "SpecificityAtSensitivity",
    "SquaredHinge",
    "Sum",
    "TopKCategoricalAccuracy",
    "TrueNegatives",
    "TruePositives",
    "accuracy",
    "binary_accuracy",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "concordance_correlation",
    "cosine_similarity",
    "deserialize",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "pearson_correlation",
    "poisson",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "squared_hinge",
    "top_k_categorical_accuracy",
]
