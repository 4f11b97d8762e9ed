"""What keeps one model safe when several threads use it at once.

A model's state has two parts that threads can share:

- **The weights.** `predict` (and `evaluate`) only read them; a train step replaces
  them (on JAX the step *donates* the old buffers, which are gone afterwards; on torch
  the optimizer updates them in place). A `StateLock` lets any number of readers in at
  once, or one writer: readers take a consistent snapshot (all of one step) and hold it
  until their outputs are computed, and a train step waits until no reader holds
  buffers it is about to donate or overwrite.
- **The metric variables.** `evaluate`, `test_on_batch`, `train_on_batch` and `fit`
  reset and accumulate them, so two of these at once would mix their counts. They run
  one at a time per model (`metrics_lock`), except that `fit`, which keeps its metrics
  for its whole length, makes the others raise a clear error when they are called from
  another thread while it runs, rather than block until training ends.

Both locks are per model, made on first use, and kept in its runtime record (never
copied with the model).
"""

from __future__ import annotations

import contextlib
import threading


class StateLock:
    """A readers-writer lock, reentrant for both kinds in one thread.

    A thread that holds the write side may also read (its own reads pass). A thread
    that holds only the read side and asks to write waits for the other readers to
    leave.
    """

    def __init__(self):
        # The plain lock taken directly (a C-level context manager) and the condition
        # only to wait and wake: `with condition` costs Python frames, and waking with
        # nobody waiting costs more, which a one-sample `predict` shows.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._waiting = 0
        self._readers: dict[int, int] = {}
        self._writer: int | None = None
        self._depth = 0

    def _wait(self) -> None:
        # Called with the lock held.
        self._waiting += 1
        try:
            self._cond.wait()
        finally:
            self._waiting -= 1

    @contextlib.contextmanager
    def reading(self):
        me = self.acquire_read()
        try:
            yield
        finally:
            self.release_read(me)

    # `reading()` without a generator: for the one-sample `model(x)`, where the
    # context manager's own cost (~1.5 us) shows.
    def acquire_read(self) -> int:
        me = threading.get_ident()
        with self._lock:
            while self._writer is not None and self._writer != me:
                self._wait()
            self._readers[me] = self._readers.get(me, 0) + 1
        return me

    def release_read(self, me: int) -> None:
        with self._lock:
            left = self._readers[me] - 1
            if left:
                self._readers[me] = left
            else:
                del self._readers[me]
                if self._waiting:
                    self._cond.notify_all()

    @contextlib.contextmanager
    def writing(self):
        me = threading.get_ident()
        with self._lock:
            if self._writer == me:
                self._depth += 1
            else:
                while self._writer is not None or any(t != me for t in self._readers):
                    self._wait()
                self._writer = me
                self._depth = 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._writer = None
                    if self._waiting:
                        self._cond.notify_all()


_MAKING = threading.Lock()  # guards the lazy creation of each model's locks


def _locks(model) -> tuple:
    record = model._runtime
    locks = record.locks
    if locks is None:
        with _MAKING:
            locks = record.locks
            if locks is None:
                locks = record.locks = (StateLock(), threading.RLock())
    return locks


def state_lock(model) -> StateLock:
    """The model's weights lock (see the module docstring)."""
    return _locks(model)[0]


@contextlib.contextmanager
def metrics_in_use(model, what: str):
    """Run `what` (`"evaluate"`, `"fit"`, ...) as the one user of the model's metric
    variables; raise if `fit` runs on the model in another thread."""
    lock = _locks(model)[1]
    record = model._runtime
    fitting = record.fit_thread
    if fitting is not None and fitting != threading.get_ident():
        raise RuntimeError(
            f"{what} was called on model {model.name!r} from one thread while `fit` is "
            "training it in another. They share the model's metric variables (and "
            f"{what} would read weights halfway through training), so this is refused "
            f"rather than mixing their results. Call {what} after `fit` returns, from a "
            "callback (`on_epoch_end`), or on a copy of the model "
            "(`lamina.models.clone_model` plus `set_weights`). `predict` may run from "
            "other threads during `fit`: it sees the weights of a complete step."
        )
    with lock:
        if what != "fit":
            yield
            return
        record.fit_thread = threading.get_ident()
        try:
            yield
        finally:
            if fitting is None:  # the outermost fit of this thread
                record.fit_thread = None
