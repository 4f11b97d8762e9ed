"""Callback and CallbackList: hooks into fit / evaluate / predict."""

from __future__ import annotations


class Callback:
    """Base class of callbacks. Override any hook; each receives a `logs` dict.

    `self.model` is the model being trained; `self.params` holds `epochs`, `steps` and
    `verbose`.
    """

    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_model(self, model) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = dict(params)

    # Training
    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_batch_begin(self, batch, logs=None): ...
    def on_batch_end(self, batch, logs=None): ...

    # Evaluation
    def on_test_begin(self, logs=None): ...
    def on_test_end(self, logs=None): ...
    def on_test_batch_begin(self, batch, logs=None): ...
    def on_test_batch_end(self, batch, logs=None): ...

    # Prediction
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...
    def on_predict_batch_begin(self, batch, logs=None): ...
    def on_predict_batch_end(self, batch, logs=None): ...


_HOOKS = [
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
]


class CallbackList:
    """Calls every hook on a list of callbacks, adding History / ProgbarLogger if asked.

    Args:
        callbacks: the user's callbacks.
        add_history: append a `History` (the model's `history`).
        add_progbar: append a `ProgbarLogger`.
        model: the model, given to every callback.
        **params: `epochs`, `steps`, `verbose`, given to every callback.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        from lamina.callbacks.history import History
        from lamina.callbacks.progbar_logger import ProgbarLogger

        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(
                    f"callbacks must be Callback instances; received {type(cb).__name__} {cb!r}."
                )
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if add_history:
            self.callbacks.append(History())
        self.model = model
        self.params = params
        for cb in self.callbacks:
            if model is not None:
                cb.set_model(model)
            cb.set_params(params)

    def append(self, callback) -> None:
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)


def _dispatch(name):
    def hook(self, *args, **kwargs):
        for cb in self.callbacks:
            getattr(cb, name)(*args, **kwargs)

    hook.__name__ = name
    return hook


for _name in _HOOKS:
    setattr(CallbackList, _name, _dispatch(_name))
