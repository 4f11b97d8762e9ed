"""CallbackList: how the trainer calls its callbacks, one hook at a time, in order.

It lives beside, not inside, `callback.py`: it builds the default `History` and
`ProgbarLogger`, which are `Callback`s themselves, so `callback.py` and they would
otherwise import each other.
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.callbacks.callback import Callback
from lamina.callbacks.history import History
from lamina.callbacks.progbar_logger import ProgbarLogger


def _as_keras_shows(logs: dict, convert: bool) -> dict:
    """`logs` as Keras 3 hands them to callbacks (its `pythonify_logs`): a new dict,
    keys sorted, nested dicts flattened in their place, and with `convert` each tensor
    a NumPy array and each scalar a Python float."""
    out = {}
    for key, value in sorted(logs.items(), key=lambda item: item[0]):
        if isinstance(value, dict):
            out.update(_as_keras_shows(value, convert))
            continue
        if convert:
            if backend.is_tensor(value):
                value = backend.convert_to_numpy(value)
            if np.ndim(value) == 0 and isinstance(value, (int, float, np.generic, np.ndarray)):
                value = float(value)
        out[key] = value
    return out


class CallbackList(Callback):
    """Calls each hook on every callback in order; adds `History` / `ProgbarLogger`.

    The trainer builds one per `fit` / `evaluate` / `predict` call. As in Keras 3, the
    user's callbacks come first, then a `History` (when `add_history` and none was
    given), then a `ProgbarLogger` (when `add_progbar` and none was given), so the
    bar and the history show what the user's callbacks added to the logs.

    Args:
        callbacks: the user's callbacks (a list, or `None`).
        add_history: add a `History` that becomes `model.history`.
        add_progbar: add a `ProgbarLogger`.
        model: the model, given to every callback.
        **params: given to every callback's `set_params`: `epochs`, `steps`, `verbose`.

    >>> seen = []
    >>> class Log(Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         seen.append((epoch, logs["loss"]))
    >>> cbs = CallbackList([Log()], add_history=True, epochs=1, steps=2, verbose=0)
    >>> cbs.on_epoch_end(0, {"loss": 0.5})
    >>> seen, cbs.history.history
    ([(0, 0.5)], {'loss': [0.5]})
    """

    def __init__(
        self,
        callbacks=None,
        add_history: bool = False,
        add_progbar: bool = False,
        model=None,
        **params,
    ):
        super().__init__()
        if isinstance(callbacks, Callback):
            callbacks = [callbacks]
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(
                    "callbacks must be Callback instances (subclass "
                    f"lamina.callbacks.Callback); received {type(cb).__name__} {cb!r}."
                )
        self.history = next((c for c in self.callbacks if isinstance(c, History)), None)
        self.progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        if add_history and self.history is None:
            self.history = History()
            self.callbacks.append(self.history)
        if add_progbar and self.progbar is None:
            self.progbar = ProgbarLogger()
            self.callbacks.append(self.progbar)
        self.set_model(model)
        self.set_params(params)

    def set_model(self, model) -> None:
        if model is None:
            return
        super().set_model(model)
        if self.history is not None:
            model.history = self.history
        for cb in self.callbacks:
            cb.set_model(model)

    def set_params(self, params: dict) -> None:
        self.params = params
        if params:
            for cb in self.callbacks:
                cb.set_params(params)

    def append(self, callback: Callback) -> None:
        """Add a callback, giving it the list's model and params."""
        if self._model is not None:
            callback.set_model(self._model)
        if self.params:
            callback.set_params(self.params)
        self.callbacks.append(callback)

    def reads_batch_logs(self, *hooks, progbar: bool = True) -> bool:
        """Whether some callback here has its own method for one of `hooks` (batch-end
        hooks: `"on_train_batch_end"`, the legacy `"on_batch_end"`,
        `"on_test_batch_end"`), which receives each batch's logs: a subclass's method or
        a function set on the instance (`LambdaCallback`). `progbar=False` leaves the
        progress bar out."""
        for cb in self.callbacks:
            if not progbar and isinstance(cb, ProgbarLogger):
                continue
            for hook in hooks:
                if getattr(getattr(cb, hook), "__func__", None) is not getattr(Callback, hook):
                    return True
        return False

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    def _reads_batch_logs(self, hook: str) -> bool:
        """Whether a callback other than the progress bar (which reads tensors itself)
        has its own `hook`, so the batch's logs must become Python values for it."""
        hooks = (hook, "on_batch_end") if hook == "on_train_batch_end" else (hook,)
        return self.reads_batch_logs(*hooks, progbar=False)

    def _call(self, hook: str, *args) -> None:
        logs = args[-1]
        if logs is None:
            logs = {}
        elif logs:
            # Values become Python floats only for a reader: the conversion waits for
            # the device, which a batch's logs nobody reads need not do.
            convert = not hook.endswith("batch_end") or self._reads_batch_logs(hook)
            logs = _as_keras_shows(logs, convert)
        # As in Keras, every callback gets a dict (`logs.get(...)` works in any hook),
        # one dict shared by the list so later callbacks see additions.
        args = (*args[:-1], logs)
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_batch_end", batch, logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs)
