"""Keras 3's step API in its stateful form, for engines that run steps statefully (torch).

On such an engine (`backend.execution.STATEFUL`) the variables *are* the state: a step
reads them, differentiates the loss it just computed and updates them in place, as in
Keras's guide "Customizing what happens in `fit()` with PyTorch":

- `train_step(self, data) -> logs`: forward pass with `training=True`, `compute_loss`,
  gradients of the (scaled) loss with respect to `trainable_variables`,
  `optimizer.apply`, then `compute_metrics`;
- `test_step(self, data) -> logs` and `predict_step(self, data) -> outputs`.

`compute_loss`, `compute_metrics`, `get_metrics_result` and the rest are shared with the
stateless form (`steps.py`); `fit`, `evaluate` and `predict` call these steps through
the model, so an override is what runs (see `programs.py`).
"""

from __future__ import annotations

from lamina import backend
from lamina.layers.layer import Layer
from lamina.training.steps import StepAPI, _batch_size
from lamina.utils.data_utils import unpack_x_y_sample_weight


class StatefulStepAPI(StepAPI):
    """`train_step(data)`, `test_step(data)` and `predict_step(data)` on live variables."""

    def _stateful_forward(self, x, training):
        kwargs = {"training": training} if self._call_has_training_arg else {}
        # Layer by layer (not `model(x)`'s one-program path), so the output masks the
        # loss and metrics need are recorded.
        y_pred = self._unpack_singleton(Layer.__call__(self, x, **kwargs))
        masks = self.__dict__.pop("_last_output_masks", None)
        self.__dict__["_step_output_masks"] = (
            y_pred,
            masks[1] if masks is not None and masks[0] is y_pred else None,
        )
        return y_pred

    def _stateful_loss(self, x, y, y_pred, sample_weight, training):
        loss = self._call_compute_loss(x, y, y_pred, sample_weight, training)
        last = self.__dict__.pop("_last_per_output_losses", None)
        per_output = last[1] if last is not None and last[0] is y_pred else []
        # The trackers read the loss; their update is not part of what is differentiated.
        with backend.execution.no_grad():
            self._update_loss_trackers(loss, per_output, _batch_size(x))
        return loss

    def _forward_and_loss(self, data):
        """The default train step's forward pass and loss on one batch `data` (tensors):
        `(y_pred, output_masks, loss, per_output_losses)`. Within `fit` it runs from a
        graph captured per input signature where it may (`backend.execution.captured`,
        set up by `programs.py`), so it must compute tensors and nothing else."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._stateful_forward(x, True)
        loss = self._call_compute_loss(x, y, y_pred, sample_weight, True)
        last = self.__dict__.pop("_last_per_output_losses", None)
        per_output = last[1] if last is not None and last[0] is y_pred else []
        return y_pred, self.__dict__["_step_output_masks"][1], loss, per_output

    def _prepare_train_programs(self) -> None:
        """Capture the default step's forward pass and loss per input signature (for
        the programs `fit` is about to make), unless the step runs eagerly or its call
        is compiled with `torch.compile`."""
        from lamina.training.programs import _capture_variables

        if not self.run_eagerly and getattr(self, "jit_compile", None) is not True:
            self.__dict__["_train_capture"] = backend.execution.captured(
                self._forward_and_loss,
                f"forward pass and loss of model {self.name!r}",
                _capture_variables(self),
            )
        else:
            self.__dict__.pop("_train_capture", None)

    def _ready_for_step(self, x, y, training) -> None:
        """Build what `fit` would have built (output structure, metrics, optimizer) when
        a step is called directly, as Keras's torch backend allows."""
        if (
            self._structures_built
            and (y is None or self.__dict__.get("_metrics_built", False))
            and (not training or self.optimizer is None or self.optimizer_built())
        ):
            return
        if self.optimizer is not None:
            self._ensure_built(x, y)
        else:
            self._build_structures(x)

    def train_step(self, data):
        """One training step on the live variables; returns the logs.

        `data` is `(x, y)` or `(x, y, sample_weight)`.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        self._ready_for_step(x, y, True)
        try:
            forward_and_loss = self.__dict__.get("_train_capture") or self._forward_and_loss
            y_pred, masks, loss, per_output = forward_and_loss(data)
            self.__dict__["_step_output_masks"] = (y_pred, masks)
            # The trackers read the loss; their update is not what is differentiated.
            with backend.execution.no_grad():
                self._update_loss_trackers(loss, per_output, _batch_size(x))
            trainable = self._state_variables()[0]
            optimizer = self.optimizer
            if trainable and optimizer is not None:
                # Differentiated scaled (`loss_scale_factor`; `apply` unscales).
                grads = backend.execution.gradients(optimizer.scale_loss(loss), trainable)
                with backend.execution.no_grad():
                    optimizer.apply(grads, trainable)
            with backend.execution.no_grad():
                if self.__dict__.get("_train_batch_logs_unread"):
                    # Inside `fit`, with no callback reading a batch's logs: the epoch's
                    # logs are read from the metrics at its end (`_epoch_logs`), so each
                    # step's `get_metrics_result()` (a few eager ops) would go unread.
                    self._update_compiled_metrics(x, y, y_pred, sample_weight)
                    return {}
                return self.compute_metrics(x, y, y_pred, sample_weight)
        finally:
            self.__dict__.pop("_step_output_masks", None)

    def test_step(self, data):
        """One evaluation step on the live variables; returns the logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        self._ready_for_step(x, y, False)
        try:
            y_pred = self._stateful_forward(x, False)
            self._stateful_loss(x, y, y_pred, sample_weight, False)
            return self.compute_metrics(x, y, y_pred, sample_weight)
        finally:
            self.__dict__.pop("_step_output_masks", None)

    def predict_step(self, data):
        """The model's outputs on one batch (`training=False`)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        kwargs = {"training": False} if self._call_has_training_arg else {}
        outputs = self(x, **kwargs)
        self.__dict__.pop("_last_output_masks", None)
        return outputs


def batch_logs_skippable(model, callback_list) -> bool:
    """Whether `fit` may let the default stateful `train_step` return empty logs: no
    callback reads a batch's logs, and neither the step nor the metrics methods it calls
    are overridden (an override sees exactly what Keras gives it)."""
    cls = type(model)
    return (
        backend.execution.STATEFUL
        and cls.train_step is StatefulStepAPI.train_step
        and cls.compute_metrics is StepAPI.compute_metrics
        and cls.get_metrics_result is StepAPI.get_metrics_result
        and not {"train_step", "compute_metrics", "get_metrics_result"} & model.__dict__.keys()
        and not callback_list.reads_train_batch_logs()
    )


def step_api():
    """The step API of the engine in use: stateful on torch, pure functions on JAX."""
    return StatefulStepAPI if backend.execution.STATEFUL else StepAPI
