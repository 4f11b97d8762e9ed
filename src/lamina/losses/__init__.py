"""`lamina.losses`: Keras's losses, as classes and as per-sample functions.

Resolve a loss from a name with `get` (`"mse"`, `"categorical_crossentropy"`,
`"BinaryCrossentropy"`, a config dict, or a callable), and check targets against a
loss on the host with `check_targets` before training.

>>> import numpy as np
>>> from lamina import losses
>>> losses.get("mse") is losses.mean_squared_error
True
>>> float(losses.MeanSquaredError()(np.zeros((2, 2)), np.ones((2, 2))))
1.0
"""

from __future__ import annotations

import inspect

from lamina.common import serialization
from lamina.losses.checks import check_targets
from lamina.losses.hinge import (
    CategoricalHinge,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from lamina.losses.loss import (
    Loss,
    LossFunctionWrapper,
    reduce_weighted_values,
    squeeze_or_expand_to_same_rank,
)
from lamina.losses.metric_learning import Circle, circle
from lamina.losses.probabilistic import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from lamina.losses.regression import (
    CosineSimilarity,
    Huber,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    cosine_similarity,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from lamina.losses.segmentation import Dice, Tversky, dice, tversky
from lamina.losses.sequence import CTC, ctc

# Keras's short names (and the classic long ones) for the loss functions.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
bce = BCE = binary_crossentropy
# Keras 2's names: its `cosine_proximity` is Keras 3's `cosine_similarity` loss (the
# negative cosine), and 2.3's `huber_loss` is `huber`.
cosine_proximity = cosine = cosine_similarity
huber_loss = huber

_ALIASES = {
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error,
    "kld": kl_divergence,
    "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence,
    "logcosh": log_cosh,
    "huber_loss": huber,
    "cosine_proximity": cosine_similarity,
    "cosine": cosine_similarity,
    "bce": binary_crossentropy,
    "BCE": binary_crossentropy,
}
for _name, _obj in _ALIASES.items():
    serialization.register_builtin("losses", _obj, name=_name)


def serialize(loss):
    """A loss's config dict (or a loss function's name).

    >>> serialize(MeanSquaredError(name="mse_loss"))["config"]["name"]
    'mse_loss'
    >>> serialize(mean_squared_error)
    'mean_squared_error'
    """
    return serialization.serialize_keras_object(loss, "losses")


def deserialize(name, custom_objects=None):
    """Rebuild a loss from `serialize` output or a name (names give functions or classes).

    `name` is Keras's word for the argument (it takes a config as well).

    >>> type(deserialize(serialize(Huber(delta=2.0)))).__name__
    'Huber'
    >>> deserialize("mean_absolute_error").__name__
    'mean_absolute_error'
    """
    return serialization.deserialize_keras_object(
        name, "losses", custom_objects, printable_module_name="loss function"
    )


def get(identifier):
    """Resolve a loss: `None`, a name, a config dict, a class, or a callable.

    A class name gives an instance with default arguments; a function name gives the
    function.

    >>> get("categorical_crossentropy").__name__
    'categorical_crossentropy'
    >>> get("BinaryCrossentropy").name
    'binary_crossentropy'
    """
    if identifier is None:
        return None
    obj = deserialize(identifier) if isinstance(identifier, (str, dict)) else identifier
    if inspect.isclass(obj):
        obj = obj()
    if not callable(obj):
        raise ValueError(
            f"Could not interpret loss identifier {identifier!r}: expected a loss name such "
            "as 'mse', a config dict, a Loss instance or a function (y_true, y_pred)."
        )
    return obj


__all__ = [
    "CTC",
    "CategoricalGeneralizedCrossEntropy",
    "Circle",
    "Dice",
    "Tversky",
    "categorical_generalized_cross_entropy",
    "circle",
    "ctc",
    "dice",
    "tversky",
    "BCE",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Hinge",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "LossFunctionWrapper",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
    "bce",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "check_targets",
    "cosine",
    "cosine_proximity",
    "cosine_similarity",
    "deserialize",
    "get",
    "hinge",
    "huber",
    "huber_loss",
    "kl_divergence",
    "kld",
    "kullback_leibler_divergence",
    "log_cosh",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "reduce_weighted_values",
    "serialize",
    "sparse_categorical_crossentropy",
    "squared_hinge",
    "squeeze_or_expand_to_same_rank",
]
