"""Callback: the hooks into fit / evaluate / predict that a user overrides.

A `Callback` overrides the hooks it needs; the trainer never calls a callback
directly but through one `CallbackList` (`callback_list.py`), which hands every
callback the model and the run's params and forwards each hook, in list order.
"""

from __future__ import annotations


class Callback:
    """Base class of callbacks: override any hook to act during training.

    Every hook receives a `logs` dict (empty in the `*_begin` hooks): batch hooks get
    the running values of the loss and metrics, `on_epoch_end` the epoch's values (with
    `val_` entries when there is validation data), `on_predict_batch_end` the batch
    `outputs`. Callbacks may add entries to the epoch logs (as `LearningRateScheduler`
    adds `learning_rate`); callbacks later in the list see them.

    Attributes:
        model: the model being trained (set by `set_model`); a callback stops
            training by setting `self.model.stop_training = True`. Reading it brings
            the model's variables up to date with the trainer's state, as Keras 3 does
            on JAX, so it costs a copy when read in a hook run on every batch.
        params: the run's parameters: `epochs`, `steps` (batches per epoch, `None`
            when unknown) and `verbose`.

    >>> class CountEpochs(Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         self.count = epoch + 1
    >>> cb = CountEpochs()
    >>> cb.on_epoch_end(2, {"loss": 0.1})
    >>> cb.count
    3
    """

    _model = None  # also when a subclass's __init__ skips super().__init__()

    def __init__(self):
        self._model = None
        self.params: dict = {}

    @property
    def model(self):
        # As Keras 3 does on JAX: the trainer may hold the training state apart from
        # the model's variables; reading `model` brings the variables up to date, so
        # a callback sees (and saves) the current weights. Hooks that run every batch
        # and need no weights read `_model` instead, to leave the state where it is.
        model = self._model
        hook = getattr(model, "_sync_state_for_callbacks", None)
        if hook is not None:
            hook()
        return model

    @model.setter
    def model(self, model) -> None:
        self._model = model

    def set_model(self, model) -> None:
        self._model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    # fit
    def on_train_begin(self, logs=None):
        """Called once at the start of `fit`."""

    def on_train_end(self, logs=None):
        """Called once at the end of `fit`; `logs` are the last epoch's."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of epoch `epoch` (0-based)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of epoch `epoch` with its training and validation logs."""

    def on_train_batch_begin(self, batch, logs=None):
        """Called before training batch `batch` (0-based, within the epoch)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after training batch `batch` with the running loss and metrics."""
        self.on_batch_end(batch, logs=logs)

    def on_batch_begin(self, batch, logs=None):
        """Legacy name of `on_train_batch_begin`."""

    def on_batch_end(self, batch, logs=None):
        """Legacy name of `on_train_batch_end`."""

    # evaluate (also the validation inside fit)
    def on_test_begin(self, logs=None):
        """Called at the start of `evaluate`."""

    def on_test_end(self, logs=None):
        """Called at the end of `evaluate` with its final logs."""

    def on_test_batch_begin(self, batch, logs=None):
        """Called before evaluation batch `batch`."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after evaluation batch `batch`."""

    # predict
    def on_predict_begin(self, logs=None):
        """Called at the start of `predict`."""

    def on_predict_end(self, logs=None):
        """Called at the end of `predict`."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before prediction batch `batch`."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after prediction batch `batch`; `logs["outputs"]` holds its outputs."""
