"""Classic Keras's `keras.utils.io_utils`: `HDF5Matrix` (a dataset of an HDF5 file used
as an array), `ask_to_proceed_with_overwrite`, and the interactive-logging switches
(`lamina.common.io_utils`, re-exported at Keras's path).

>>> import os, tempfile, h5py, numpy as np
>>> path = os.path.join(tempfile.mkdtemp(), "data.h5")
>>> with h5py.File(path, "w") as f:
...     _ = f.create_dataset("x", data=np.arange(10.0).reshape(5, 2))
>>> x = HDF5Matrix(path, "x", start=1, end=4)
>>> x.shape, float(x[0][0]), x[[2, 0]].tolist()
((3, 2), 2.0, [[6.0, 7.0], [2.0, 3.0]])
"""

from __future__ import annotations

import numpy as np

from lamina.common.io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
    print_msg,
)


class HDF5Matrix:
    """Rows `start:end` of a dataset in an HDF5 file, read as an array when indexed.

    Pass it to `fit`, `evaluate` or `predict` where an array goes: lamina reads the rows
    it covers into memory once (`np.asarray(matrix)`); indexing reads only the rows
    asked for (any order: rows are read in increasing order and put back, as h5py
    needs).

    Args:
        datapath: the HDF5 file.
        dataset: the name of the dataset in it.
        start, end: the rows used (`end=None`: to the last row).
        normalizer: a function applied to what is read.

    >>> import os, tempfile
    >>> import h5py
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "data.h5")
    >>> with h5py.File(path, "w") as f:
    ...     _ = f.create_dataset("x", data=np.arange(12.0).reshape(6, 2))
    >>> x_train = utils.HDF5Matrix(path, "x", start=2, end=5)  # rows 2, 3, 4
    >>> x_train.shape, x_train[0].tolist(), x_train[[2, 0]].tolist()
    ((3, 2), [4.0, 5.0], [[8.0, 9.0], [4.0, 5.0]])
    >>> float(np.asarray(x_train).sum())
    39.0
    >>> tmp.cleanup()
    """

    _files: dict = {}

    def __init__(self, datapath, dataset, start=0, end=None, normalizer=None):
        import h5py

        key = str(datapath)
        if key not in HDF5Matrix._files:
            HDF5Matrix._files[key] = h5py.File(key, "r")
        self.data = HDF5Matrix._files[key][dataset]
        self.start = int(start)
        self.end = self.data.shape[0] if end is None else int(end)
        if not 0 <= self.start <= self.end <= self.data.shape[0]:
            raise ValueError(
                f"HDF5Matrix rows {self.start}:{self.end} are outside the dataset "
                f"{dataset!r} of {self.data.shape[0]} rows."
            )
        self.normalizer = normalizer

    def __len__(self) -> int:
        return self.end - self.start

    def _read(self, rows):
        values = self.data[rows]
        return self.normalizer(values) if self.normalizer is not None else values

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            return self._read(slice(self.start + start, self.start + stop, step))
        if isinstance(key, (list, np.ndarray)):
            rows = np.asarray(key, dtype=np.int64)
            rows = np.where(rows < 0, rows + len(self), rows)
            if rows.size and (rows.min() < 0 or rows.max() >= len(self)):
                raise IndexError(f"HDF5Matrix index out of range: {key!r} for {len(self)} rows.")
            unique, inverse = np.unique(rows, return_inverse=True)
            return np.asarray(self._read(list(unique + self.start)))[inverse]
        index = int(key)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"HDF5Matrix index {key} out of range for {len(self)} rows.")
        return self._read(self.start + index)

    def __array__(self, dtype=None, copy=None):
        values = np.asarray(self[:])
        return values.astype(dtype) if dtype is not None else values

    @property
    def shape(self) -> tuple:
        return (len(self),) + tuple(self.data.shape[1:])

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


def ask_to_proceed_with_overwrite(filepath) -> bool:
    """Ask on the terminal whether to overwrite `filepath`; True for yes."""
    answer = input(f"[WARNING] {filepath} exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    return answer == "y"


__all__ = [
    "HDF5Matrix",
    "ask_to_proceed_with_overwrite",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "print_msg",
]
