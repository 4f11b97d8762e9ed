"""Keras 3's step API in its stateful form, for engines that run steps on the live
variables (torch; the seam's `backend.execution.step_form` says so).

There the variables *are* the state: a step reads them, differentiates the loss it just
computed and updates them in place, as in Keras's guide "Customizing what happens in
`fit()` with PyTorch":

- `train_step(self, data) -> logs`: forward pass with `training=True`, `compute_loss`,
  gradients of the (scaled) loss with respect to `trainable_variables`,
  `optimizer.apply`, then `compute_metrics`;
- `test_step(self, data) -> logs` and `predict_step(self, data) -> outputs`.

`compute_loss`, `compute_metrics`, `get_metrics_result` and the rest are shared with the
pure form (`steps.py`); `fit`, `evaluate` and `predict` call these steps through the
model, so an override is what runs. When the train programs are made
(`prepare_train_programs`), the default step's forward pass and loss are handed to the
engine to capture once per input signature (`backend.execution.captured`).
"""

from __future__ import annotations

import functools

from lamina import backend
from lamina.backend.common.global_state import current_distribution, learning_phase_or
from lamina.common.data_utils import unpack_x_y_sample_weight
from lamina.layers.layer import Layer
from lamina.training import programs, runtime, steps, structures
from lamina.training.steps import batch_size


def forward(model, x, training):
    # The classic `K.set_learning_phase`, when fixed, is the phase every step runs in.
    training = learning_phase_or(training)
    kwargs = {"training": training} if model._call_has_training_arg else {}
    # Layer by layer (not `model(x)`'s one-program path), so the output masks the loss
    # and metrics need are recorded.
    y_pred = model._unpack_singleton(Layer.__call__(model, x, **kwargs))
    model._runtime.step_output_masks = (y_pred, steps.own_output_masks(model, y_pred))
    return y_pred


def loss_of(model, x, y, y_pred, sample_weight, training):
    loss = steps.call_compute_loss(model, x, y, y_pred, sample_weight, training)
    per_output = steps.take_per_output_losses(model, y_pred)
    # The trackers read the loss; their update is not part of what is differentiated.
    with backend.execution.no_grad():
        steps.update_loss_trackers(model, loss, per_output, batch_size(x))
    return loss


def forward_and_loss(model, data):
    """The default train step's forward pass and loss on one batch `data` (tensors):
    `(y_pred, output_masks, loss, per_output_losses)`. Within `fit` it runs from a graph
    captured per input signature where it may (`backend.execution.captured`, set up by
    `prepare_train_programs`), so it must compute tensors and nothing else."""
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    y_pred = forward(model, x, True)
    loss = steps.call_compute_loss(model, x, y, y_pred, sample_weight, True)
    per_output = steps.take_per_output_losses(model, y_pred)
    return y_pred, model._runtime.step_output_masks[1], loss, per_output


def prepare_train_programs(model) -> None:
    """Capture the default step's forward pass and loss per input signature (for the
    programs `fit` is about to make), unless the step runs eagerly or its call is
    compiled with `torch.compile`."""
    record = model._runtime
    if not model.run_eagerly and getattr(model, "jit_compile", None) is not True:
        record.forward_and_loss = backend.execution.captured(
            functools.partial(forward_and_loss, model),
            f"forward pass and loss of model {model.name!r}",
            programs.capture_variables(model),
        )
    else:
        record.forward_and_loss = None


def evaluation(model, data, logs=True):
    """The default test step on one batch `data` (tensors): the forward pass, the loss
    trackers' and the compiled metrics' updates; returns the logs (`logs=False`: none,
    for a pass in which no callback reads a batch's logs; `pass_logs` reads the metrics
    at its end). Within `evaluate` it runs from a graph captured per input signature
    where it may (as `forward_and_loss` does), the metrics' new totals coming out of the
    graph."""
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    y_pred = forward(model, x, False)
    loss_of(model, x, y, y_pred, sample_weight, False)
    if not logs:
        steps.update_compiled_metrics(model, x, y, y_pred, sample_weight)
        return {}
    return model.compute_metrics(x, y, y_pred, sample_weight)


def prepare_test_programs(model) -> None:
    """Capture the default test step per input signature (for the programs `evaluate`
    is about to make), unless steps run eagerly or the call is `torch.compile`d."""
    record = model._runtime
    if not model.run_eagerly and getattr(model, "jit_compile", None) is not True:
        record.evaluation, record.evaluation_unread = (
            backend.execution.captured(
                functools.partial(evaluation, model, logs=logs),
                f"test step of model {model.name!r}",
                programs.evaluation_variables(model),
            )
            for logs in (True, False)
        )
    else:
        record.evaluation = record.evaluation_unread = None


def ready_for_step(model, x, y, training) -> None:
    """Build what `fit` would have built (output structure, metrics, optimizer) when a
    step is called directly, as Keras's torch backend allows."""
    if (
        model._structures_built
        and (y is None or model._metrics_built)
        and (not training or model.optimizer is None or structures.optimizer_built(model))
    ):
        return
    if model.optimizer is not None:
        structures.ensure_built(model, x, y)
    else:
        structures.build_structures(model, x)


def train_step(self, data):
    """One training step on the live variables; returns the logs.

    `data` is `(x, y)` or `(x, y, sample_weight)`.
    """
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    ready_for_step(self, x, y, True)
    record = self._runtime
    try:
        captured = record.forward_and_loss
        if captured is not None:
            y_pred, masks, loss, per_output = captured(data)
        else:
            y_pred, masks, loss, per_output = forward_and_loss(self, data)
        record.step_output_masks = (y_pred, masks)
        # The trackers read the loss; their update is not what is differentiated.
        with backend.execution.no_grad():
            steps.update_loss_trackers(self, loss, per_output, batch_size(x))
        trainable = runtime.state_variables(self)[0]
        optimizer = self.optimizer
        if trainable and optimizer is not None:
            # Differentiated scaled (`loss_scale_factor`; `apply` unscales).
            grads = backend.execution.gradients(optimizer.scale_loss(loss), trainable)
            with backend.execution.no_grad():
                optimizer.apply(grads, trainable)
        with backend.execution.no_grad():
            if record.batch_logs_unread:
                # Inside `fit`, with no callback reading a batch's logs: the epoch's
                # logs are read from the metrics at its end (`epoch_logs`), so each
                # step's `get_metrics_result()` (a few eager ops) would go unread.
                steps.update_compiled_metrics(self, x, y, y_pred, sample_weight)
                return {}
            return self.compute_metrics(x, y, y_pred, sample_weight)
    finally:
        record.step_output_masks = None


def test_step(self, data):
    """One evaluation step on the live variables; returns the logs."""
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    ready_for_step(self, x, y, False)
    try:
        record = self._runtime
        logs = not record.test_logs_unread
        captured = record.evaluation if logs else record.evaluation_unread
        if captured is not None:
            return captured(data)
        return evaluation(self, data, logs)
    finally:
        self._runtime.step_output_masks = None


def predict_step(self, data):
    """The model's outputs on one batch (`training=False`)."""
    x, _, _ = unpack_x_y_sample_weight(data)
    kwargs = {"training": learning_phase_or(False)} if self._call_has_training_arg else {}
    outputs = self(x, **kwargs)
    return outputs


def batch_logs_skippable(model, callback_list) -> bool:
    """Whether `fit` may let the default stateful `train_step` return empty logs: no
    callback reads a batch's logs, and neither the step nor the metrics methods it calls
    are overridden (an override sees exactly what Keras gives it)."""
    return _logs_skippable(model, callback_list, train_step, "on_train_batch_end", "on_batch_end")


def test_logs_skippable(model, callback_list) -> bool:
    """`batch_logs_skippable` for `evaluate` and the default stateful `test_step`."""
    return _logs_skippable(model, callback_list, test_step, "on_test_batch_end")


def _logs_skippable(model, callback_list, step, *hooks) -> bool:
    cls, name = type(model), step.__name__
    skippable = (
        getattr(cls, name) is step
        and cls.compute_metrics is steps.compute_metrics
        and cls.get_metrics_result is steps.get_metrics_result
        and not {name, "compute_metrics", "get_metrics_result"} & vars(model).keys()
        and not callback_list.reads_batch_logs(*hooks)
    )
    # In a data-parallel job reading the logs is a collective: every process must skip
    # them alike (a progress bar on process 0 only is common).
    distribution = current_distribution()
    return skippable if distribution is None else distribution._all_agree(skippable)
