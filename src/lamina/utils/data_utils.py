"""Classic Keras's `keras.utils.data_utils`: `get_file`, `Sequence`, and the enqueuers
that read a `Sequence` or a generator ahead of the training loop on worker threads.

`Sequence` is `lamina.utils.PyDataset` (Keras's older name for it); `get_file` and
`validate_file` are lamina's. The enqueuers keep Keras 2's interface (`start`, `get`,
`stop`, `is_running`) for programs that drive their own loops; `fit` itself reads
`Sequence`s and generators without them. Workers are threads: with
`use_multiprocessing=True` lamina still uses threads (the batches come out the same).

>>> import numpy as np
>>> class Batches(Sequence):
...     def __len__(self):
...         return 3
...     def __getitem__(self, i):
...         return np.full((2, 1), i)
>>> enqueuer = OrderedEnqueuer(Batches())
>>> enqueuer.start(workers=2, max_queue_size=4)
>>> batches = enqueuer.get()
>>> [int(next(batches)[0, 0]) for _ in range(4)]
[0, 1, 2, 0]
>>> enqueuer.stop()
"""

from __future__ import annotations

import queue
import random
import threading
from concurrent.futures import ThreadPoolExecutor

from lamina.common.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from lamina.common.py_dataset import PyDataset
from lamina.common.py_dataset import PyDataset as Sequence
from lamina.utils.file_utils import get_file, validate_file


class SequenceEnqueuer:
    """Base of the enqueuers: runs `data` on worker threads and hands out what they
    produce, in a bounded queue, through `get()`.

    Args:
        data: a `Sequence` (or, for `GeneratorEnqueuer`, a generator).
        use_multiprocessing: accepted for Keras 2's signature; workers are threads.

    >>> from lamina import utils
    >>> issubclass(utils.OrderedEnqueuer, utils.SequenceEnqueuer)
    True
    >>> enqueuer = utils.GeneratorEnqueuer(iter([1, 2]))  # start / get / stop / is_running
    >>> enqueuer.start(workers=1, max_queue_size=2)
    >>> enqueuer.is_running(), list(enqueuer.get())
    (True, [1, 2])
    >>> enqueuer.stop(); enqueuer.is_running()
    False
    """

    def __init__(self, data, use_multiprocessing: bool = False):
        self.sequence = data
        self.use_multiprocessing = use_multiprocessing
        self._queue = None
        self._stop = threading.Event()
        self._thread = None

    def is_running(self) -> bool:
        return self._thread is not None and not self._stop.is_set()

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Start `workers` threads filling a queue of at most `max_queue_size` items."""
        self._queue = queue.Queue(max(1, max_queue_size))
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(max(1, workers),), daemon=True)
        self._thread.start()

    def _put(self, item) -> bool:
        """Queue `item`, waiting for room; False once the enqueuer is stopped."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, workers: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def get(self):
        """A generator of the items the workers produce; an error in a worker is raised
        here."""
        while self.is_running() or (self._queue is not None and not self._queue.empty()):
            try:
                kind, item = self._queue.get(timeout=0.05)
            except queue.Empty:
                continue
            if kind == "error":
                self.stop()
                raise item
            if kind == "end":
                return
            yield item

    def stop(self, timeout=None) -> None:
        """Stop the workers and wait (at most `timeout` seconds) for them to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None


class OrderedEnqueuer(SequenceEnqueuer):
    """Reads a `Sequence` ahead, epoch after epoch, keeping its order.

    Args:
        sequence: a `Sequence` (`__len__`, `__getitem__`, optional `on_epoch_end`).
        use_multiprocessing: accepted; workers are threads.
        shuffle: visit the batches of each epoch in a random order.

    >>> import numpy as np
    >>> from lamina import utils
    >>> class Batches(utils.Sequence):
    ...     def __len__(self):
    ...         return 2
    ...     def __getitem__(self, i):
    ...         return np.full((2, 1), i)
    >>> enqueuer = utils.OrderedEnqueuer(Batches())
    >>> enqueuer.start(workers=2, max_queue_size=4)
    >>> batches = enqueuer.get()  # endless: epoch after epoch, in order
    >>> [int(next(batches)[0, 0]) for _ in range(5)]
    [0, 1, 0, 1, 0]
    >>> enqueuer.stop()
    """

    def __init__(self, sequence, use_multiprocessing: bool = False, shuffle: bool = False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def _run(self, workers: int) -> None:
        try:
            with ThreadPoolExecutor(workers) as pool:
                while not self._stop.is_set():
                    order = list(range(len(self.sequence)))
                    if self.shuffle:
                        random.shuffle(order)
                    # At most `workers` batches in flight ahead of the queue, in order.
                    pending = []
                    for index in order:
                        pending.append(pool.submit(self.sequence.__getitem__, index))
                        if len(pending) >= workers and not self._put(
                            ("item", pending.pop(0).result())
                        ):
                            return
                    for future in pending:
                        if not self._put(("item", future.result())):
                            return
                    if hasattr(self.sequence, "on_epoch_end"):
                        self.sequence.on_epoch_end()
        except Exception as error:  # handed to the reader, raised by `get`
            self._put(("error", error))


class GeneratorEnqueuer(SequenceEnqueuer):
    """Runs a generator on a worker thread, queueing what it yields.

    Args:
        generator: a generator (or any iterator); drawn from by one thread, since a
            generator cannot be advanced by two at once.
        use_multiprocessing: accepted; the worker is a thread.
        wait_time, random_seed: accepted for Keras 2's signature.

    >>> from lamina import utils
    >>> def squares():
    ...     for i in range(4):
    ...         yield i * i
    >>> enqueuer = utils.GeneratorEnqueuer(squares())
    >>> enqueuer.start(max_queue_size=2)
    >>> list(enqueuer.get())  # ends when the generator does
    [0, 1, 4, 9]
    >>> enqueuer.stop()
    """

    def __init__(self, generator, use_multiprocessing=False, wait_time=None, random_seed=None):
        super().__init__(generator, use_multiprocessing)

    def _run(self, workers: int) -> None:
        try:
            for item in self.sequence:
                if not self._put(("item", item)):
                    return
            self._put(("end", None))
        except Exception as error:
            self._put(("error", error))


__all__ = [
    "GeneratorEnqueuer",
    "OrderedEnqueuer",
    "PyDataset",
    "Sequence",
    "SequenceEnqueuer",
    "get_file",
    "pack_x_y_sample_weight",
    "unpack_x_y_sample_weight",
    "validate_file",
]
