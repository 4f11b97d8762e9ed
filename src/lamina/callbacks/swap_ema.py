"""SwapEMAWeights: evaluate (and optionally checkpoint) with the optimizer's EMA weights."""

from __future__ import annotations

from lamina import ops
from lamina.callbacks.callback import Callback


class SwapEMAWeights(Callback):
    """Swap the model's weights with the optimizer's moving averages around evaluation.

    With an optimizer made with `use_ema=True`, validation during `fit`, `evaluate` and
    `predict` run on the exponential moving average of the weights ("Polyak
    averaging"); the training weights come back when they end. The values are swapped
    in place, so other callbacks should not change the weights or the averages while
    they are swapped.

    Args:
        swap_on_epoch: also swap at each epoch's end (and back at the next epoch's
            start), so callbacks after this one (`ModelCheckpoint`) see the EMA weights.

    >>> import numpy as np
    >>> import lamina
    >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    >>> model.compile(optimizer=lamina.optimizers.SGD(0.1, use_ema=True), loss="mse")
    >>> x, y = np.ones((8, 2)), np.ones((8, 1))
    >>> history = model.fit(x, y, validation_data=(x, y), verbose=0,
    ...                     callbacks=[SwapEMAWeights()])
    >>> bool(np.isclose(history.history["val_loss"][-1], model.evaluate(x, y, verbose=0)))
    True
    """

    def __init__(self, swap_on_epoch: bool = False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _optimizer(self):
        optimizer = self.model.optimizer
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(
                "SwapEMAWeights needs an optimizer made with `use_ema=True`; the model's "
                f"optimizer is {optimizer!r} with use_ema={getattr(optimizer, 'use_ema', None)}."
                " Compile with e.g. optimizers.SGD(use_ema=True)."
            )
        return optimizer

    def _pairs(self):
        optimizer = self._optimizer()
        return list(zip(optimizer._trainable_variables, optimizer._averages, strict=True))

    def _swap(self) -> None:
        for variable, average in self._pairs():
            # A copy: on a stateful engine `value` is the variable's live storage.
            weights = ops.copy(variable.value)
            variable.assign(average.value)
            average.assign(weights)
        self._ema_weights_in_model = not self._ema_weights_in_model

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap()

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap()
            if epoch == self.params.get("epochs", 0) - 1:
                # `fit` ends by copying the averages into the weights: give it the EMA
                # values the model now holds, not the training weights swapped out.
                for variable, average in self._pairs():
                    average.assign(variable.value)

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap()

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap()

    # Keras's own on_predict_end leaves the EMA weights in the model (it checks the
    # flag the wrong way round); here predict restores them, as its docstring promises.
    on_predict_begin = on_test_begin
    on_predict_end = on_test_end
