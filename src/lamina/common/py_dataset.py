"""PyDataset: a dataset that produces batches by index, as Keras's `PyDataset` does.

Public as `lamina.utils.PyDataset` (and Keras's older name, `lamina.utils.Sequence`); it
lives on this low floor because layers (a lookup layer's `adapt`) and `fit` read it.
"""

from __future__ import annotations

import collections
from concurrent.futures import ThreadPoolExecutor


class PyDataset:
    """Base class for datasets that produce batches by index.

    Implement `__len__` (batches per epoch) and `__getitem__(index)` returning `(x, y)` or
    `(x, y, sample_weight)`; `on_epoch_end` is called after each epoch.

    >>> import numpy as np
    >>> class Squares(PyDataset):
    ...     def __len__(self):
    ...         return 2
    ...     def __getitem__(self, i):
    ...         x = np.arange(4.0).reshape(4, 1) + 4 * i
    ...         return x, x ** 2
    >>> len(Squares())
    2
    """

    def __init__(
        self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10
    ):
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__.")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__.")

    def on_epoch_end(self) -> None:
        """Called after each epoch (e.g. to reshuffle)."""

    @property
    def num_batches(self) -> int:
        return len(self)


def read_in_order(dataset, start: int, stop: int):
    """Yield `dataset[start]`, ..., `dataset[stop - 1]`, read ahead on its workers.

    With `dataset.workers > 1` (or `use_multiprocessing=True`) up to `max_queue_size`
    batches are read ahead on that many threads (processes are not forked: a process
    running an accelerator engine cannot be forked safely), and they are yielded in
    index order, so training sees what a single reader would give. A batch that fails
    raises its own exception, with the traceback of the line that raised it, where that
    batch would have been yielded. Closing the generator (the loop ended, stopped early or
    failed) cancels what was not started and waits for the running reads: no thread
    outlives it.

    Args:
        dataset: a `PyDataset` (or any object with `__getitem__`, and optionally
            `workers`, `use_multiprocessing` and `max_queue_size`).
        start: the first index.
        stop: one past the last index.

    >>> class Tens(PyDataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return 10 * i
    >>> list(read_in_order(Tens(workers=3), 1, 4))
    [10, 20, 30]
    """
    workers = max(int(getattr(dataset, "workers", 1) or 1), 1)
    if getattr(dataset, "use_multiprocessing", False):
        workers = max(workers, 2)
    if workers == 1:
        for index in range(start, stop):
            yield dataset[index]
        return
    ahead = max(int(getattr(dataset, "max_queue_size", 10) or 1), workers)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lamina-py-dataset")
    pending: collections.deque = collections.deque()
    try:
        index = start
        while index < stop or pending:
            while index < stop and len(pending) < ahead:
                pending.append(pool.submit(dataset.__getitem__, index))
                index += 1
            yield pending.popleft().result()  # a worker's exception, as it was raised
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)
