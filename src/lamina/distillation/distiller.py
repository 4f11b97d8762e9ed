"""`Distiller`: a model that trains a student from a frozen teacher (Keras 3's).

The Distiller *is* the student for `call` and `predict`; what changes is `compute_loss`,
which the ordinary `train_step` and `test_step` call: the student's loss on the labels
and the distillation losses between teacher and student are mixed as

    total = student_loss_weight * student_loss
            + (1 - student_loss_weight) * sum(weight_i * distillation_loss_i)

and each part is logged (`student_loss`, `distillation_loss`, `total_loss`) beside
`loss`. Intermediate features come from one extra graph model per side that returns
every layer output a `FeatureDistillation` names, so a step runs the teacher once.
"""

from __future__ import annotations

import warnings

from lamina import metrics as metrics_module
from lamina import ops, tree
from lamina.common import serialization
from lamina.distillation.distillation_loss import CATEGORY, _convert_loss_to_function
from lamina.layers import Layer
from lamina.models import Model, Sequential

_BASE_KEYS = ("name", "trainable", "dtype")


def _is_scalar_loss(value) -> bool:
    shape = getattr(value, "shape", None)
    return shape is None or len(shape) == 0


class Distiller(Model):
    """Trains a student model from a teacher model's outputs (knowledge distillation).

    The teacher is frozen (`trainable = False`); the student learns from the labels
    through the loss given to `compile` and from the teacher through the
    distillation losses. Calling the Distiller (and `predict`) runs the student.

    Args:
        teacher: a trained `lamina.Model`, the source of knowledge; frozen here.
        student: the `lamina.Model` to train; use `distiller.student` afterwards.
        distillation_losses: a `DistillationLoss` (`LogitsDistillation`,
            `FeatureDistillation`, or your own) or a list of them.
        distillation_loss_weights: one weight per distillation loss (same length as
            the list); `None` weights each 1.0.
        student_loss_weight: the weight of the student's loss on the labels, between
            0 and 1; the distillation losses get `1 - student_loss_weight`.
            Defaults to 0.5.
        name: the model's name. Defaults to `"distiller"`.

    >>> from lamina import Input, Model, layers
    >>> from lamina.distillation import LogitsDistillation
    >>> x = Input((4,))
    >>> teacher = Model(x, layers.Dense(3)(layers.Dense(8, activation="relu")(x)))
    >>> student = Model(x, layers.Dense(3)(x))
    >>> distiller = Distiller(teacher, student, LogitsDistillation(temperature=2.0))
    >>> distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    >>> distiller.metrics_names  # what `fit` logs
    ['loss', 'student_loss', 'distillation_loss', 'total_loss']

    Train with `distiller.fit(x, y)`; calling the distiller (and `predict`) runs the
    student, and `distiller.student` is the trained model.
    """

    def __init__(
        self,
        teacher,
        student,
        distillation_losses,
        distillation_loss_weights=None,
        student_loss_weight=0.5,
        name="distiller",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        self._validate_models(teacher, student)
        self.teacher = teacher
        self.student = student

        if isinstance(student_loss_weight, bool) or not isinstance(
            student_loss_weight, (int, float)
        ):
            raise ValueError(
                f"student_loss_weight must be a number, got {type(student_loss_weight)} "
                f"({student_loss_weight!r}). Pass a float between 0.0 and 1.0."
            )
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(
                "student_loss_weight must be between 0.0 and 1.0, got "
                f"{student_loss_weight}. It weights the student's own loss; the "
                "distillation losses get 1 - student_loss_weight."
            )
        self.student_loss_weight = student_loss_weight

        if distillation_losses is None:
            raise ValueError(
                "'distillation_losses' cannot be `None`. Provide a distillation loss "
                "(e.g., LogitsDistillation or FeatureDistillation) or a list of "
                "distillation losses."
            )
        if not isinstance(distillation_losses, (list, tuple)):
            self.distillation_losses = [distillation_losses]
            self.distillation_loss_weights = [1.0]
        else:
            self.distillation_losses = distillation_losses
            if distillation_loss_weights is None:
                self.distillation_loss_weights = [1.0] * len(distillation_losses)
            else:
                if len(distillation_loss_weights) != len(distillation_losses):
                    raise ValueError(
                        "Number of distillation_loss_weights "
                        f"({len(distillation_loss_weights)}) must match number of "
                        f"distillation_losses ({len(distillation_losses)}). Give one "
                        "weight per loss, or None for equal weights."
                    )
                self.distillation_loss_weights = distillation_loss_weights

        for distillation_loss in self.distillation_losses:
            distillation_loss.validate_model_compatibility(teacher, student)
        self._create_multi_feature_extractors()

        self.teacher.trainable = False

        self.student_loss_tracker = metrics_module.Mean(name="student_loss")
        self.distillation_loss_tracker = metrics_module.Mean(name="distillation_loss")
        self.total_loss_tracker = metrics_module.Mean(name="total_loss")

    # Validation ----------------------------------------------------------------------
    def _validate_models(self, teacher, student) -> None:
        for role, model in (("Teacher", teacher), ("Student", student)):
            if not isinstance(model, Model):
                raise ValueError(
                    f"{role} must be a lamina.Model (keras.Model), got {type(model)}. Wrap "
                    "the network in a Model (functional, Sequential or subclassed)."
                )
        teacher_inputs, student_inputs = teacher.inputs, student.inputs
        if teacher_inputs is None or student_inputs is None:
            return
        self._map_pairs(self._assert_shapes_are_compatible, teacher_inputs, student_inputs, "input")
        teacher_outputs, student_outputs = teacher.outputs, student.outputs
        self._map_pairs(
            self._assert_shapes_are_compatible, teacher_outputs, student_outputs, "output"
        )
        self._map_pairs(self._assert_same_dtype, teacher_inputs, student_inputs, "input")
        self._map_pairs(self._assert_same_dtype, teacher_outputs, student_outputs, "output")

    @staticmethod
    def _map_pairs(check, teacher_tensors, student_tensors, context) -> None:
        try:
            tree.assert_same_structure(teacher_tensors, student_tensors)
        except ValueError as err:
            raise ValueError(
                f"Teacher and student have different {context} structures: the teacher "
                f"has {len(teacher_tensors)} {context}(s), the student "
                f"{len(student_tensors)}. ({err})"
            ) from None
        for t, s in zip(teacher_tensors, student_tensors):
            check(t, s, context)

    @staticmethod
    def _assert_shapes_are_compatible(teacher_tensor, student_tensor, context) -> None:
        shape1, shape2 = tuple(teacher_tensor.shape), tuple(student_tensor.shape)
        if len(shape1) != len(shape2):
            raise ValueError(
                f"Teacher and student {context} shapes have different dimensions. "
                f"Teacher: {shape1}, Student: {shape2}."
            )
        for dim1, dim2 in zip(shape1, shape2):
            if dim1 is not None and dim2 is not None and dim1 != dim2:
                raise ValueError(
                    f"Teacher and student {context} shapes are incompatible. Teacher: "
                    f"{shape1}, Student: {shape2}. All dimensions must match."
                )

    @staticmethod
    def _assert_same_dtype(teacher_tensor, student_tensor, context) -> None:
        if teacher_tensor.dtype != student_tensor.dtype:
            raise ValueError(
                f"Teacher and student {context} dtypes must match. Teacher: "
                f"{teacher_tensor.dtype}, Student: {student_tensor.dtype}."
            )

    # Feature extraction --------------------------------------------------------------
    def _create_multi_feature_extractors(self) -> None:
        teacher_names, student_names = [], []
        for loss in self.distillation_losses:
            name = getattr(loss, "teacher_layer_name", None)
            if name and name not in teacher_names:
                teacher_names.append(name)
            name = getattr(loss, "student_layer_name", None)
            if name and name not in student_names:
                student_names.append(name)
        self._teacher_feature_extractor = self._create_feature_extractor(
            self.teacher, teacher_names
        )
        self._student_feature_extractor = self._create_feature_extractor(
            self.student, student_names
        )

    @staticmethod
    def _create_feature_extractor(model, layer_names):
        """A graph model from `model`'s inputs to its final output and each named
        layer's output (a dict keyed `"final_output"` and by layer name)."""
        if not layer_names:
            return None
        if model.inputs is None:
            raise ValueError(
                f"Cannot create feature extractor for {model.name}. The model has no "
                "symbolic inputs attribute; build it with Input (functional or "
                "Sequential) to distill its intermediate layers."
            )
        if isinstance(model, Sequential):
            final_output = model.layers[-1].output
        else:
            final_output = model.output
        outputs = {"final_output": final_output}
        for layer_name in layer_names:
            outputs[layer_name] = model.get_layer(name=layer_name).output
        return Model(
            inputs=model.inputs, outputs=outputs, name=f"{model.name}_multi_feature_extractor"
        )

    def _extract_all_teacher_features(self, x):
        if self._teacher_feature_extractor is not None:
            return self._teacher_feature_extractor(x, training=False)
        return {"final_output": self.teacher(x, training=False)}

    def _extract_all_student_features(self, x, y_pred):
        if self._student_feature_extractor is not None:
            return self._student_feature_extractor(x, training=True)
        return {"final_output": y_pred}

    @staticmethod
    def _get_distillation_loss_features(distillation_loss, all_features, is_teacher):
        if is_teacher:
            layer_name = distillation_loss.teacher_layer_name or "final_output"
        else:
            layer_name = distillation_loss.student_layer_name or "final_output"
        if layer_name not in all_features:
            raise ValueError(
                f"Layer '{layer_name}' not found in extracted features. Available: "
                f"{list(all_features.keys())}"
            )
        return all_features[layer_name]

    # Training ------------------------------------------------------------------------
    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs) -> None:
        """Configure training: the optimizer of the student and the student's loss.

        Args:
            optimizer: the optimizer (a name or an object). Defaults to `"adam"`.
            loss: the student's loss on the labels (required): a name, a loss object
                or function, or a structure of them matching the outputs.
            metrics: a list of metrics on the student's outputs.
            **kwargs: the other arguments of `Model.compile`.
        """
        if loss is None:
            raise ValueError(
                "'loss' cannot be `None`. The Distiller needs the student's loss on the "
                "labels, e.g. compile(loss='sparse_categorical_crossentropy'); set "
                "student_loss_weight=0.0 to train on the distillation losses only."
            )
        self._student_loss = tree.map_structure(_convert_loss_to_function, loss)
        self._student_loss_for_serialization = loss
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(
                f"metrics must be a list or tuple, got {type(metrics)}. Wrap it in a "
                "list, e.g. metrics=['accuracy']."
            )
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)
        # Saved in the compile config, so a loaded Distiller is compiled again.
        self._compile_args["loss"] = loss

    def _compile_from_config(self, config: dict, custom_objects=None) -> None:
        if config.get("loss") is None:
            # A file written by Keras: its Distiller's compile config has no loss.
            warnings.warn(
                "`compile()` was not called as part of model loading because the "
                "Distiller's compile config holds no student loss (Keras does not save "
                "it). Call `compile()` manually after loading.",
                UserWarning,
                stacklevel=2,
            )
            return
        super()._compile_from_config(config, custom_objects)

    def call(self, inputs, training=None, **kwargs):
        """The student's outputs."""
        return self.student(inputs, training=training, **kwargs)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The weighted mix of the student's loss and the distillation losses (scalar).

        `sample_weight` is not used, as in Keras. Updates the `student_loss`,
        `distillation_loss` and `total_loss` trackers.
        """
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            if not hasattr(self, "_student_loss"):
                raise RuntimeError(
                    "The Distiller has no student loss: call `compile(loss=...)` before "
                    "training or evaluating it."
                )
            loss_values = tree.map_structure(
                lambda loss_fn, target, output: loss_fn(target, output),
                self._student_loss,
                y,
                y_pred,
            )
            flat = tree.flatten(loss_values)
            student_loss = ops.sum(ops.stack(flat)) if len(flat) > 1 else flat[0]
            if not _is_scalar_loss(student_loss):
                student_loss = ops.mean(student_loss)

        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            teacher_features = self._extract_all_teacher_features(x)
            student_features = self._extract_all_student_features(x, y_pred)
            for loss_fn, weight in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(loss_fn, "teacher_layer_name", None) is not None:
                    try:
                        teacher_output = self._get_distillation_loss_features(
                            loss_fn, teacher_features, is_teacher=True
                        )
                        student_output = self._get_distillation_loss_features(
                            loss_fn, student_features, is_teacher=False
                        )
                    except ValueError as err:
                        raise RuntimeError(
                            f"Failed to extract features for {type(loss_fn).__name__} "
                            f"targeting teacher layer '{loss_fn.teacher_layer_name}' and "
                            f"student layer '{loss_fn.student_layer_name}'. Original "
                            f"error: {err}"
                        ) from err
                else:
                    teacher_output = teacher_features["final_output"]
                    student_output = y_pred
                loss_fn.validate_outputs(teacher_output, student_output)
                current = loss_fn.compute_loss(teacher_output, student_output)
                if not _is_scalar_loss(current):
                    raise ValueError(
                        f"Distillation loss {type(loss_fn).__name__} returned a non-scalar "
                        f"loss with shape {tuple(current.shape)}. The compute_loss method "
                        "must return a scalar tensor (reduce it, e.g. with ops.mean)."
                    )
                distillation_loss = ops.add(distillation_loss, ops.multiply(weight, current))

        total_loss = ops.add(
            ops.multiply(self.student_loss_weight, student_loss),
            ops.multiply(ops.subtract(1.0, self.student_loss_weight), distillation_loss),
        )
        # The trackers read the losses; their updates are not differentiated.
        self.student_loss_tracker.update_state(ops.stop_gradient(student_loss))
        self.distillation_loss_tracker.update_state(ops.stop_gradient(distillation_loss))
        self.total_loss_tracker.update_state(ops.stop_gradient(total_loss))
        return total_loss

    def reset_metrics(self) -> None:
        super().reset_metrics()
        self.student_loss_tracker.reset_state()
        self.distillation_loss_tracker.reset_state()
        self.total_loss_tracker.reset_state()

    # Serialization -------------------------------------------------------------------
    def _keras_serialized_names(self):
        if type(self) is Distiller:
            return "keras.distillation", "Distiller", None
        return type(self).__module__, type(self).__name__, None

    def get_config(self) -> dict:
        # The model's own arguments (`name`, `trainable`, `dtype`), then the Distiller's.
        own = {k: v for k, v in Layer.get_config(self).items() if k in _BASE_KEYS}
        return {
            **own,
            "teacher": serialization.serialize_keras_object(self.teacher, "layers"),
            "student": serialization.serialize_keras_object(self.student, "layers"),
            "distillation_losses": [
                serialization.serialize_keras_object(loss) for loss in self.distillation_losses
            ],
            "distillation_loss_weights": list(self.distillation_loss_weights),
            "student_loss_weight": self.student_loss_weight,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None, **kwargs):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = serialization.deserialize_keras_object(
                config[key], "layers", custom_objects=custom_objects, printable_module_name=key
            )
        config["distillation_losses"] = [
            serialization.deserialize_keras_object(
                spec,
                CATEGORY,
                custom_objects=custom_objects,
                printable_module_name="distillation loss",
            )
            for spec in config["distillation_losses"]
        ]
        return cls(**config)


serialization.register_builtin("layers", Distiller)
serialization.register_builtin("models", Distiller)
