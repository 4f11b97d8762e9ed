"""Targets and sample weights, spread over a model's outputs and checked.

`y` and `sample_weight` arrive as one array, a list (one per output) or a dict keyed by
output name; the loop works with flat lists in output order, `None` where an output got
nothing. Each mistake is named with the model's output names.
"""

from __future__ import annotations

import numpy as np

from lamina import losses as losses_module
from lamina.common.data_utils import pack_x_y_sample_weight
from lamina.training import data_adapter


def flatten_targets(names, y, what="y") -> list:
    """One target per output (None where none was given), from an array, list or dict."""
    if y is None:
        return [None] * len(names)
    if isinstance(y, dict):
        unknown = sorted(set(y) - set(names))
        if unknown:
            raise ValueError(
                f"{what} has keys {unknown} that match no output. The model's outputs are {names}."
            )
        return [y.get(n) for n in names]
    if isinstance(y, (list, tuple)) and len(names) > 1:
        if len(y) != len(names):
            raise ValueError(
                f"The model has {len(names)} outputs {names}, but {what} has {len(y)} "
                "entries. Pass one target per output (or a dict keyed by output name)."
            )
        return list(y)
    if len(names) != 1:
        raise ValueError(
            f"The model has {len(names)} outputs {names}; pass {what} as a list or a dict "
            "with one entry per output."
        )
    if isinstance(y, (list, tuple)) and y and all(hasattr(v, "shape") for v in y):
        if len(y) != 1:
            raise ValueError(
                f"The model has 1 output {names}, but {what} has {len(y)} entries. Pass one array."
            )
        return [y[0]]
    return [y]


def check_targets_given(names, losses, y_flat, y) -> None:
    """Every output with a loss needs a target (Keras fails obscurely; we name it)."""
    if losses is None:
        return
    missing = [
        name
        for name, loss, yt in zip(names, losses, y_flat, strict=True)
        if loss is not None and yt is None
    ]
    if not missing:
        return
    if y is None:
        raise ValueError(
            f"No targets were given (y is None), but the model was compiled with a loss "
            f"for its output(s) {missing}. Pass y (or yield (x, y) batches), or compile "
            "with loss=None for a model that adds its own losses."
        )
    raise ValueError(
        f"The output(s) {missing} have a loss but received no target: y has no entry "
        f"for them. The model's outputs are {names}; pass a target for "
        "each output with a loss, or set that output's loss to None in compile."
    )


def sample_weights(names, y_flat, sample_weight, class_weight) -> list:
    """One sample-weight array (or None) per output; `class_weight` folds into the first."""
    if sample_weight is not None and len(names) > 1 and hasattr(sample_weight, "shape"):
        # One array for a model of several outputs weighs each output's loss and
        # weighted metrics, as in Keras 3, which takes only a weight per sample so.
        if len(sample_weight.shape) != 1:
            raise ValueError(
                f"The model has {len(names)} outputs {names}; one `sample_weight` array for "
                "all of them must hold one weight per sample (shape (num_samples,)); "
                f"received shape {tuple(sample_weight.shape)}. Pass a list or a dict with "
                "one array per output for weights of another shape."
            )
        sw = [sample_weight] * len(names)
    elif sample_weight is not None:
        sw = flatten_targets(names, sample_weight, "sample_weight")
    else:
        sw = [None] * len(names)
    if class_weight is not None:
        if len(names) > 1:
            raise ValueError(
                "class_weight is supported only for single-output models; use "
                "sample_weight for each output instead."
            )
        y = np.asarray(y_flat[0])
        labels = (
            y.argmax(axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(len(y), -1)[:, 0]
        )
        labels = np.rint(labels).astype(int)
        weights = np.array([class_weight.get(int(c), 1.0) for c in labels], dtype="float32")
        sw[0] = weights if sw[0] is None else np.asarray(sw[0], "float32") * weights
    return sw


class StepData:
    """Turns batches `(x, y, sample_weight)` into the `data` a step receives.

    Made once per pass from the built model (its output names, losses and output specs,
    how its graph orders inputs) and the pass's `class_weight`: targets are spread over
    the outputs and checked, class weights are folded into the sample weights, inputs
    are put in graph order, and the result is packed as `(x, y)` or
    `(x, y, sample_weight)`. The loops hand batches from the adapter through it straight
    to the programs.
    """

    def __init__(self, model, class_weight=None):
        self.names = list(getattr(model, "_output_names_cache", None) or [])
        compile_loss = getattr(model, "_compile_loss", None)
        self.losses = compile_loss.losses if compile_loss is not None else None
        self.class_weight = class_weight
        functional = getattr(model, "_function", None) is not None
        self._standardize = model._standardize_inputs if functional else None
        self._host = functional and model._host_plan() is not None
        if self._host:
            # Host layers (TextVectorization, StringLookup, ...) run here, per batch.
            self._standardize = model._prepare_host_inputs
        self._model = model

    def check(self, y_flat) -> None:
        """Refuse targets a loss cannot take (labels out of range, wrong shapes)."""
        if not self.names or self.losses is None:
            return
        from lamina.training.compile_utils import flatten_outputs

        outputs = flatten_outputs(self._model._output_struct)
        for loss, yt, yp in zip(self.losses, y_flat, outputs, strict=True):
            if loss is not None and yt is not None and hasattr(yt, "shape"):
                losses_module.check_targets(loss, np.asarray(yt), yp)

    def check_all(self, y) -> None:
        """Check a whole target array once, before the first step."""
        if y is not None and self.names:
            self.check(flatten_targets(self.names, y))

    def __call__(self, x, y=None, sample_weight=None, check=True):
        if self.names:
            y_flat = flatten_targets(self.names, y)
            check_targets_given(self.names, self.losses, y_flat, y)
            if check:
                self.check(y_flat)
            if self.class_weight is not None:
                sw = sample_weights(self.names, y_flat, sample_weight, self.class_weight)
                sample_weight = sw[0] if len(sw) == 1 else sw
        return pack_x_y_sample_weight(self.inputs_of(x), y, sample_weight)

    def inputs_of(self, x):
        """`x` in the order the model's graph takes its inputs."""
        if not self._host:
            if self._standardize is not None:
                x = self._model._select_inputs(x)  # a classic generator's extra keys
            data_adapter.refuse_text(x, self._model)
        return self._standardize(x) if self._standardize is not None else x

    def inputs(self, x):
        """The `data` a predict step receives: `x` in graph order, packed."""
        return pack_x_y_sample_weight(self.inputs_of(x))
