"""PyDataset: a dataset that produces batches by index, as Keras's `PyDataset` does."""

from __future__ import annotations


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
