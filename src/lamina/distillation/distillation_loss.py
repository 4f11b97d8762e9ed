"""What a `Distiller` minimizes besides the student's own loss: distillation losses.

A distillation loss compares the teacher's outputs (or an intermediate layer's) with the
student's and returns one scalar. `LogitsDistillation` compares final outputs after
dividing them by a temperature; `FeatureDistillation` compares the outputs of two named
layers. Subclass `DistillationLoss` and override `compute_loss` for another rule.

Numerics follow Keras 3's `keras.distillation` exactly, quirks included: a loss named by
a string resolves as `lamina.losses.get` resolves it, so the default
`loss="kl_divergence"` is the *function* `kl_divergence`, applied to the
temperature-scaled logits as they are. Only a `KLDivergence` *instance* turns both
sides into probabilities with a softmax and multiplies the result by `temperature**2`
(the textbook knowledge-distillation loss); pass `loss=lamina.losses.KLDivergence()`
for that.
"""

from __future__ import annotations

from lamina import losses as losses_module
from lamina import ops, tree
from lamina.common import serialization

CATEGORY = "distillation"


def _convert_loss_to_function(loss_item):
    """A loss name resolved to its function (or a class name to an instance); other
    values (a loss object, a callable, `None`) are kept as they are."""
    if loss_item is None:
        return None
    if isinstance(loss_item, str):
        try:
            loss_fn = losses_module.get(loss_item)
        except ValueError as err:
            raise ValueError(
                f"Unknown loss function: {loss_item!r}. Use a name from `lamina.losses` "
                "(e.g. 'mse', 'kl_divergence', 'categorical_crossentropy'), a Loss "
                f"instance or a function (y_true, y_pred). ({err})"
            ) from None
        if loss_fn is None:
            raise ValueError(f"Unknown loss function: {loss_item!r}.")
        return loss_fn
    return loss_item


def _check_some_loss(losses, who: str) -> None:
    if all(loss is None for loss in tree.flatten(losses)):
        raise ValueError(
            f"The `loss` argument in `{who}` must contain at least one non-`None` value; "
            f"received {losses!r}. `None` skips one output of a multi-output model; give "
            "a loss (e.g. 'mse') for the outputs to distill."
        )


def _sum_of(values):
    return ops.sum(ops.stack([ops.convert_to_tensor(v, "float32") for v in tree.flatten(values)]))


class DistillationLoss:
    """Base class of the losses a `Distiller` adds to the student's loss.

    Subclass it and override `compute_loss(teacher_outputs, student_outputs)` to return
    a scalar; `validate_outputs` and `validate_model_compatibility` may be overridden to
    check the models and their outputs before training.

    >>> import numpy as np
    >>> from lamina import distillation, ops
    >>> class MeanGap(distillation.DistillationLoss):  # the mean absolute gap of the outputs
    ...     def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
    ...         return ops.mean(ops.abs(teacher_outputs - student_outputs))
    >>> loss = MeanGap()
    >>> teacher, student = np.array([[1.0, 2.0]]), np.array([[1.5, 1.0]])
    >>> loss.validate_outputs(teacher, student)  # the same structure: no error
    >>> float(loss.compute_loss(teacher, student))
    0.75
    """

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The distillation loss (a scalar) between teacher and student outputs.

        Args:
            teacher_outputs: the teacher's outputs (a tensor or a structure of them).
            student_outputs: the student's outputs, nested as the teacher's.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement `compute_loss(teacher_outputs, "
            "student_outputs, **kwargs)` returning a scalar loss."
        )

    def validate_outputs(self, teacher_outputs, student_outputs) -> None:
        """Raise `ValueError` unless teacher and student outputs are nested alike."""
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student) -> None:
        """Raise `ValueError` if this loss cannot distill `teacher` into `student`."""

    def _keras_serialized_names(self):
        # Keras writes its built-in distillation losses under `keras.distillation`.
        cls = type(self)
        if serialization.builtins(CATEGORY).get(cls.__name__) is cls:
            return "keras.distillation", cls.__name__, None
        return cls.__module__, cls.__name__, None


class FeatureDistillation(DistillationLoss):
    """Matches the outputs of a teacher layer and a student layer.

    Transfers the teacher's intermediate representations: the loss between the named
    layers' outputs (or the final outputs, when a name is `None`), averaged.

    Args:
        loss: a loss name (`"mse"`, `"cosine_similarity"`, `"mae"`), a loss object or
            function, or a structure of them matching the outputs, where `None` skips
            an output. At least one must not be `None`. Defaults to `"mse"`.
        teacher_layer_name: the teacher layer whose output is distilled; `None` for
            the teacher's final output.
        student_layer_name: the student layer matched to it; `None` for the final
            output.

    >>> loss = FeatureDistillation("mse", teacher_layer_name="t_hidden", student_layer_name="s_hidden")
    >>> loss.get_config()
    {'loss': 'mean_squared_error', 'teacher_layer_name': 't_hidden', 'student_layer_name': 's_hidden'}
    """

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = tree.map_structure(_convert_loss_to_function, loss)
        _check_some_loss(self.loss, "FeatureDistillation")

    def validate_model_compatibility(self, teacher, student) -> None:
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [
                role
                for role, model in (("teacher", teacher), ("student", student))
                if getattr(model, "inputs", None) is None
            ]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(subclassed)} model(s) appear to "
                    "be subclassed (no symbolic inputs/outputs). Either use "
                    "Functional/Sequential models, or use FeatureDistillation without "
                    "layer names (to distill final outputs only), or use "
                    "LogitsDistillation instead."
                )
        for role, model, name in (
            ("teacher", teacher, self.teacher_layer_name),
            ("student", student, self.student_layer_name),
        ):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as err:
                    raise ValueError(f"In {role} model: {err}") from None

    def validate_outputs(self, teacher_outputs, student_outputs) -> None:
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except ValueError as err:
            raise ValueError(
                f"Loss structure mismatch: FeatureDistillation has one loss per output, "
                f"received loss {self.loss!r} for outputs nested as "
                f"{tree.map_structure(lambda _: '*', teacher_outputs)!r}. Give `loss` the "
                f"outputs' structure (None skips an output). Error: {err}"
            ) from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def apply_loss(loss_fn, teacher_features, student_features):
            if loss_fn is None:
                return 0.0
            return ops.mean(loss_fn(teacher_features, student_features))

        return _sum_of(tree.map_structure(apply_loss, self.loss, teacher_outputs, student_outputs))

    def get_config(self) -> dict:
        return {
            "loss": losses_module.serialize(self.loss),
            "teacher_layer_name": self.teacher_layer_name,
            "student_layer_name": self.student_layer_name,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        config["loss"] = _deserialize_losses(config.get("loss"), custom_objects)
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """Matches the student's final outputs to the teacher's, softened by a temperature.

    Both outputs are divided by `temperature` before the loss compares them. With a
    `KLDivergence` instance as the loss, both become probabilities (softmax) and the
    loss is multiplied by `temperature**2`; any other loss (the default
    `"kl_divergence"` function included, as in Keras) gets the scaled logits.

    Args:
        temperature: a positive number; higher values soften the distributions.
            Defaults to 3.0.
        loss: a loss name, object or function, or a structure of them matching the
            outputs (`None` skips an output). Defaults to `"kl_divergence"`.

    >>> from lamina import losses
    >>> loss = LogitsDistillation(temperature=4.0, loss=losses.KLDivergence())
    >>> loss.temperature, type(loss.loss).__name__
    (4.0, 'KLDivergence')
    """

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = tree.map_structure(_convert_loss_to_function, loss)
        _check_some_loss(self.loss, "LogitsDistillation")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(
                f"temperature must be a number, got {type(temperature)} ({temperature!r}). "
                "Pass a positive float such as 3.0."
            )
        if temperature <= 0.0:
            raise ValueError(
                f"temperature must be positive; received {temperature}. Pass a value > 0 "
                "(typically 2 to 5)."
            )

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        temperature = self.temperature
        teacher_scaled = tree.map_structure(lambda x: ops.divide(x, temperature), teacher_outputs)
        student_scaled = tree.map_structure(lambda x: ops.divide(x, temperature), student_outputs)

        def apply_loss(loss_fn, teacher_logits, student_logits):
            if loss_fn is None:
                return 0.0
            if isinstance(loss_fn, losses_module.KLDivergence):
                teacher_probs = ops.softmax(teacher_logits, axis=-1)
                student_probs = ops.softmax(student_logits, axis=-1)
                loss = ops.mean(loss_fn(teacher_probs, student_probs))
                return loss * (temperature**2)
            return ops.mean(loss_fn(teacher_logits, student_logits))

        return _sum_of(tree.map_structure(apply_loss, self.loss, teacher_scaled, student_scaled))

    def get_config(self) -> dict:
        return {
            "temperature": self.temperature,
            "loss": losses_module.serialize(self.loss),
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        config["loss"] = _deserialize_losses(config.get("loss"), custom_objects)
        return cls(**config)


def _deserialize_losses(spec, custom_objects=None):
    """A structure of serialized losses back to losses (names stay names, resolved by
    the constructor, so a function comes back as the same function)."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, list):
        return [_deserialize_losses(s, custom_objects) for s in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _deserialize_losses(v, custom_objects) for k, v in spec.items()}
    obj = losses_module.deserialize(spec, custom_objects=custom_objects)
    return obj() if isinstance(obj, type) else obj


for _cls in (DistillationLoss, FeatureDistillation, LogitsDistillation):
    serialization.register_builtin(CATEGORY, _cls)
