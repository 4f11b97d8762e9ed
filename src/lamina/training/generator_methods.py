"""Keras 2's generator methods (`fit_generator`, `evaluate_generator`,
`predict_generator`), which Keras 3 removed: the same loops as `fit` / `evaluate` /
`predict`, with Keras 2's arguments, and a warning that names the modern call.

`workers`, `max_queue_size` and `use_multiprocessing` load batches ahead of the step
that uses them: a `Sequence` / `PyDataset` (batches by index) on `workers` threads, a
generator on one background thread (a Python generator cannot be read from several
threads at once). Batches keep their order, so results equal a plain `fit`.

`fit_generator`, `evaluate_generator` and `predict_generator` are the model's methods
of those names (see `Trainer`).
"""

from __future__ import annotations

import queue
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`Model.{old}` is deprecated (Keras 3 removed it): use `Model.{new}`, which "
        "takes generators and `PyDataset`s directly.",
        UserWarning,
        stacklevel=3,
    )


def _check_workers(workers, max_queue_size, who: str) -> None:
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
        raise ValueError(f"{who}: `workers` must be an int >= 0; received {workers!r}.")
    if not isinstance(max_queue_size, int) or max_queue_size < 1:
        raise ValueError(
            f"{who}: `max_queue_size` must be an int >= 1; received {max_queue_size!r}."
        )


class _IndexedPrefetch:
    """A `Sequence` whose batches are loaded ahead, in order, on a thread pool."""

    def __init__(self, sequence, workers: int, max_queue_size: int):
        self.sequence = sequence
        self.workers = workers
        self.max_queue_size = max_queue_size

    def __len__(self) -> int:
        return len(self.sequence)

    def __iter__(self):
        count = len(self.sequence)
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            pending: list = []
            index = 0
            while index < count or pending:
                while index < count and len(pending) < self.max_queue_size:
                    pending.append(pool.submit(self.sequence.__getitem__, index))
                    index += 1
                yield pending.pop(0).result()  # re-raises a worker's exception here

    def on_epoch_end(self) -> None:
        if hasattr(self.sequence, "on_epoch_end"):
            self.sequence.on_epoch_end()


class _GeneratorPrefetch:
    """A generator read ahead by one background thread into a bounded queue."""

    _END = object()

    def __init__(self, generator, max_queue_size: int):
        self.generator = generator
        self.max_queue_size = max_queue_size
        self._queue = None
        self._stop = threading.Event()

    def __iter__(self):
        return self

    def _fill(self):
        try:
            for item in self.generator:
                while not self._stop.is_set():
                    try:
                        self._queue.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
            self._queue.put((self._END, None))
        except BaseException as error:  # handed to the training thread, with traceback
            self._queue.put((self._END, error))

    def __next__(self):
        if self._queue is None:
            self._queue = queue.Queue(maxsize=self.max_queue_size)
            threading.Thread(target=self._fill, daemon=True, name="lamina-generator").start()
        item, error = self._queue.get()
        if error is not None:
            raise error
        if item is self._END:
            self._queue.put((self._END, None))  # later calls end too
            raise StopIteration
        return item

    def close(self) -> None:
        self._stop.set()


def _prefetched(data, workers, use_multiprocessing, max_queue_size, who):
    """`data` wrapped to load ahead as Keras 2's enqueuers did (or as it is, workers=0)."""
    _check_workers(workers, max_queue_size, who)
    if use_multiprocessing:
        warnings.warn(
            f"{who}: use_multiprocessing=True loads batches on {max(workers, 1)} thread(s) "
            "instead of processes (forking a process that runs an accelerator engine is "
            "unsafe); the batches and their order are the same.",
            UserWarning,
            stacklevel=3,
        )
    if workers == 0 or isinstance(data, (tuple, list)):
        return data
    if hasattr(data, "__getitem__") and hasattr(data, "__len__"):
        return _IndexedPrefetch(data, workers, max_queue_size)
    return _GeneratorPrefetch(data, max_queue_size)


def _close(*sources) -> None:
    """Stop the reading threads of generators: the loop is over."""
    for source in sources:
        if isinstance(source, _GeneratorPrefetch):
            source.close()


def fit_generator(
    self,
    generator,
    steps_per_epoch=None,
    epochs: int = 1,
    verbose=1,
    callbacks=None,
    validation_data=None,
    validation_steps=None,
    validation_freq: int = 1,
    class_weight=None,
    max_queue_size: int = 10,
    workers: int = 1,
    use_multiprocessing: bool = False,
    shuffle: bool = True,
    initial_epoch: int = 0,
):
    """Keras 2's `fit_generator`: `fit` on a generator or `Sequence` (deprecated).

    `generator` yields `(x, y)` or `(x, y, sample_weight)` batches; a plain generator
    needs `steps_per_epoch`, as in Keras 2. `validation_data` may be a generator, a
    `Sequence` or a tuple of arrays. Returns the `History`.
    """
    _deprecated("fit_generator", "fit")
    data = _prefetched(generator, workers, use_multiprocessing, max_queue_size, "fit_generator")
    if validation_data is not None and not isinstance(validation_data, (tuple, list)):
        validation_data = _prefetched(
            validation_data, workers, False, max_queue_size, "fit_generator"
        )
    try:
        return self.fit(
            data,
            steps_per_epoch=steps_per_epoch,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            validation_data=validation_data,
            validation_steps=validation_steps,
            validation_freq=validation_freq,
            class_weight=class_weight,
            shuffle=shuffle,
            initial_epoch=initial_epoch,
        )
    finally:
        _close(data, validation_data)


def evaluate_generator(
    self,
    generator,
    steps=None,
    callbacks=None,
    max_queue_size: int = 10,
    workers: int = 1,
    use_multiprocessing: bool = False,
    verbose=0,
):
    """Keras 2's `evaluate_generator`: `evaluate` on a generator (deprecated)."""
    _deprecated("evaluate_generator", "evaluate")
    data = _prefetched(
        generator, workers, use_multiprocessing, max_queue_size, "evaluate_generator"
    )
    try:
        return self.evaluate(data, steps=steps, callbacks=callbacks, verbose=verbose)
    finally:
        _close(data)


def predict_generator(
    self,
    generator,
    steps=None,
    callbacks=None,
    max_queue_size: int = 10,
    workers: int = 1,
    use_multiprocessing: bool = False,
    verbose=0,
):
    """Keras 2's `predict_generator`: `predict` on a generator (deprecated)."""
    _deprecated("predict_generator", "predict")
    data = _prefetched(generator, workers, use_multiprocessing, max_queue_size, "predict_generator")
    try:
        return self.predict(data, steps=steps, callbacks=callbacks, verbose=verbose)
    finally:
        _close(data)
