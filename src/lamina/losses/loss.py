"""The `Loss` base class and the reduction helpers every loss and metric shares.

A loss is two steps. `call(y_true, y_pred)` gives one value per sample (or per
timestep); `__call__` then weights those values by `sample_weight` and an optional
boolean `mask`, and reduces them:

- `"sum_over_batch_size"` (alias `"mean"`): the weighted sum divided by the number of
  loss elements; with a mask, by the number of unmasked elements (masked entries count
  in neither the numerator nor the denominator).
- `"mean_with_sample_weight"`: the weighted sum divided by the sum of the weights as
  given (as Keras 3: a scalar weight is summed once, not once per element; with a mask,
  the sum of the masked weights).
- `"sum"`: the weighted sum.
- `"none"` (or `None`): the weighted per-sample values, unreduced.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from lamina import backend, ops
from lamina.backend.common.global_state import to_snake_case
from lamina.common import serialization
from lamina.graph.operation import any_symbolic, symbolic_call

REDUCTIONS = ("none", "sum", "sum_over_batch_size", "mean", "mean_with_sample_weight")


def graph_function(fn):
    """Make a loss or metric function work on graph tensors as an op does.

    Called with any KerasTensor argument, `fn` records one graph node (its output spec
    from the engine's abstract evaluation) instead of computing: classic programs write
    `loss = losses.binary_crossentropy(inputs, outputs)` on a model's tensors (a VAE's
    loss, fed to `add_loss` or a `K.function`). Called on values, it computes.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if any_symbolic(args, kwargs):
            return symbolic_call(fn, fn.__name__, args, kwargs)
        return fn(*args, **kwargs)

    return wrapper


def standardize_reduction(reduction) -> str:
    """Validate a reduction name; `None` means `"none"`."""
    if reduction is None:
        return "none"
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"Invalid reduction {reduction!r}. Expected one of {list(REDUCTIONS)} or None."
        )
    return reduction


def divide_no_nan(x, y):
    """`x / y`, with 0 wherever `y == 0`."""
    y = ops.convert_to_tensor(y)
    nonzero = ops.not_equal(y, 0)
    return ops.where(nonzero, ops.divide(x, ops.where(nonzero, y, 1)), 0)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1: bool = True):
    """Make two tensors whose ranks differ by a trailing unit axis the same rank.

    As Keras does: `(n, 1)` against `(n,)` gives `(n, 1)` and `(n, 1)` (rank-1 inputs
    are expanded), `(n, t, 1)` against `(n, t)` squeezes the unit axis.

    >>> import numpy as np
    >>> a, b = squeeze_or_expand_to_same_rank(np.zeros((4, 1)), np.zeros(4))
    >>> tuple(a.shape), tuple(b.shape)
    ((4, 1), (4, 1))
    """
    r1, r2 = len(ops.shape(x1)), len(ops.shape(x2))
    if r1 == r2 + 1 and ops.shape(x1)[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = ops.expand_dims(x2, -1)
        else:
            x1 = ops.squeeze(x1, -1)
    elif r2 == r1 + 1 and ops.shape(x2)[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = ops.expand_dims(x1, -1)
        else:
            x2 = ops.squeeze(x2, -1)
    return x1, x2


def broadcast_weights(weights, values, what: str = "sample_weight"):
    """Broadcast per-sample `weights` to the shape of `values` (trailing axes added).

    `(n,)` weights against `(n, t)` values weight every timestep of a sample; trailing
    unit axes of the weights are dropped. Raises a ValueError naming `what` when the
    shapes cannot match.
    """
    values_shape = tuple(ops.shape(values))
    while len(ops.shape(weights)) > len(values_shape) and ops.shape(weights)[-1] == 1:
        weights = ops.squeeze(weights, -1)
    while len(ops.shape(weights)) < len(values_shape):
        weights = ops.expand_dims(weights, -1)
    weights_shape = tuple(ops.shape(weights))
    compatible = len(weights_shape) == len(values_shape) and all(
        w in (1, v) for w, v in zip(weights_shape, values_shape)
    )
    if not compatible:
        raise ValueError(
            f"`{what}` of shape {weights_shape} cannot be broadcast to the loss values of "
            f"shape {values_shape}. Pass one weight per sample (shape (batch,)) or one per "
            "loss element."
        )
    return ops.broadcast_to(weights, values_shape)


def _weigh(values, weights):
    """`values` and `weights` in one shape: per-sample weights first, else NumPy's rule.

    Weights line up with the leading axes of the values (one weight per sample weighs
    each of its timesteps). Where they do not, Keras multiplies the two with NumPy
    broadcasting (trailing axes aligned): per-sample weights on a loss already reduced
    to a scalar (`Dice`, `Tversky` with `axis=None`) then give one weighted copy per
    sample, and the reduction counts those copies.
    """
    try:
        return values, broadcast_weights(weights, values)
    except ValueError as error:
        try:
            shape = np.broadcast_shapes(tuple(ops.shape(values)), tuple(ops.shape(weights)))
        except ValueError:
            raise error from None
    return ops.broadcast_to(values, shape), ops.broadcast_to(weights, shape)


def reduce_weighted_values(
    values,
    sample_weight=None,
    mask=None,
    reduction: str | None = "sum_over_batch_size",
    dtype=None,
):
    """Weight `values` by `sample_weight` and `mask`, then reduce them.

    >>> import numpy as np
    >>> float(reduce_weighted_values(np.array([1.0, 2.0, 3.0]), mask=np.array([1, 1, 0])))
    1.5
    """
    reduction = standardize_reduction(reduction)
    values = ops.convert_to_tensor(values, dtype=dtype or backend.floatx())
    dtype = ops.dtype(values)
    weights = given_weights = None
    if sample_weight is not None:
        values, given_weights = squeeze_or_expand_to_same_rank(
            values, ops.cast(sample_weight, dtype)
        )
        values, weights = _weigh(values, given_weights)
    mask_weights = None
    if mask is not None:
        mask_weights = broadcast_weights(ops.cast(mask, dtype), values, what="mask")
        weights = mask_weights if weights is None else weights * mask_weights
    if weights is not None:
        values = values * weights
    if reduction == "none" or len(ops.shape(values)) == 0:
        return values
    if weights is None and reduction != "sum":
        # Unweighted: the mean itself (one op, and one node for an eager backward pass,
        # where a sum then a division are two). No elements give 0, as divide_no_nan.
        return ops.mean(values) if math.prod(ops.shape(values)) else ops.sum(values) * 0
    total = ops.sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        # Keras divides by the sum of the weights as given, before they are broadcast
        # to the values: a scalar weight `w` gives `sum(w * values) / w` (the sum, not
        # the mean), and (n, 1) weights on (n, t) values count each sample once. A mask
        # multiplies the weights first, which broadcasts them (as in Keras's apply_mask).
        divisor = ops.sum(weights if mask_weights is not None else given_weights)
    elif mask_weights is not None:
        divisor = ops.sum(mask_weights)
    else:
        count = math.prod(ops.shape(values))
        # A known element count: one division (0 elements give 0, as divide_no_nan).
        return total / count if count else total * 0
    return divide_no_nan(total, divisor)


class Loss:
    """Base class for losses: per-sample values from `call`, then weighting and reduction.

    Subclass it and implement `call(y_true, y_pred)` returning one value per sample (or
    per timestep). Built-in losses wrap a function with `LossFunctionWrapper`.

    Args:
        name: the loss name (default: the class name in snake case).
        reduction: `"sum_over_batch_size"` (default), `"mean"` (same),
            `"mean_with_sample_weight"`, `"sum"`, or `"none"`/`None`.
        dtype: the dtype computations run in (default `floatx()`).

    Call arguments:
        y_true: the targets.
        y_pred: the predictions.
        sample_weight: optional weights, one per sample or one per loss element.
        mask: optional boolean mask with the shape of the per-sample losses (or a
            prefix of it); masked entries count in neither sum nor denominator.

    >>> import numpy as np
    >>> from lamina import ops
    >>> class MeanFourthPower(Loss):
    ...     def call(self, y_true, y_pred):
    ...         return ops.mean((y_pred - y_true) ** 4, axis=-1)
    >>> loss = MeanFourthPower(name="fourth")
    >>> float(loss(np.zeros((2, 2)), np.array([[1.0, 1.0], [2.0, 2.0]])))  # (1 + 16) / 2
    8.5
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = dtype

    @property
    def dtype(self) -> str:
        return backend.standardize_dtype(self._dtype or backend.floatx())

    # A loss of integer class labels keeps integer targets as they are (Keras casts them
    # to the loss dtype and back: the same labels, below 2**24, for two more ops).
    _integer_targets = False

    def __call__(self, y_true, y_pred, sample_weight=None, mask=None):
        y_pred = ops.convert_to_tensor(y_pred, dtype=self.dtype)
        if self._integer_targets:
            y_true = ops.convert_to_tensor(y_true)
            if "int" not in ops.dtype(y_true):
                y_true = ops.cast(y_true, self.dtype)
        else:
            y_true = ops.convert_to_tensor(y_true, dtype=self.dtype)
        losses = self.call(y_true, y_pred)
        own_mask = self.compute_loss_mask(y_true, y_pred)
        if own_mask is not None:
            if mask is None:
                mask = own_mask
            else:
                mask = ops.logical_and(
                    ops.cast(broadcast_weights(mask, losses, what="mask"), "bool"), own_mask
                )
        return reduce_weighted_values(
            losses,
            sample_weight=sample_weight,
            mask=mask,
            reduction=self.reduction,
            dtype=self.dtype,
        )

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__} must implement `call(y_true, y_pred)`.")

    def compute_loss_mask(self, y_true, y_pred):
        """A boolean mask of loss entries this loss itself ignores, or `None`."""
        return None

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction, "dtype": self._dtype}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A `Loss` computing per-sample values with a plain function `fn(y_true, y_pred, **kwargs)`.

    Args:
        fn: the loss function.
        reduction: see `Loss`.
        name: the loss name (default: the function's name).
        dtype: see `Loss`.
        **kwargs: keyword arguments passed to `fn` on each call.

    >>> import numpy as np
    >>> loss = LossFunctionWrapper(lambda t, p: (t - p) ** 2, name="sq")
    >>> float(loss(np.array([1.0, 2.0]), np.array([0.0, 0.0])))
    2.5
    """

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(
            name=name or getattr(fn, "__name__", None), reduction=reduction, dtype=dtype
        )
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._fn_kwargs)
        if type(self) is LossFunctionWrapper:
            config["fn"] = serialization.serialize_keras_object(self.fn, "losses")
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if cls is LossFunctionWrapper and "fn" in config:
            config["fn"] = serialization.deserialize_keras_object(
                config["fn"], "losses", custom_objects, printable_module_name="loss function"
            )
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} reduction={self.reduction!r}>"


serialization.register_builtin("losses", Loss)
serialization.register_builtin("losses", LossFunctionWrapper)
