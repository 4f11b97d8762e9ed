"""`timeseries_dataset_from_array`: sliding windows over an array, as a dataset `fit`
takes directly.

Keras's arguments, defaults and window arithmetic; windows are gathered from the array
when their batch is asked for, so the windows are never all held in memory.
"""

from __future__ import annotations

import numpy as np

from lamina.utils import dataset_utils
from lamina.utils.dataset_utils import SampleDataset


def timeseries_dataset_from_array(
    data,
    targets,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    format: str = "tf",
):
    """Make a dataset of sliding windows (and targets) over a timeseries.

    Window `i` starts at `start_index + i * sequence_stride` and holds the
    `sequence_length` steps `start, start + sampling_rate, ...`; its target is
    `targets[start]` (counted from `start_index`, as in Keras). Only windows that end
    before `end_index` are made. With `shuffle`, the window order is permuted by
    `np.random.RandomState(seed)` (and redrawn each epoch).

    Args:
        data: Array-like of timesteps, shape `(steps, ...)`.
        targets: Targets aligned with `data` (`targets[i]` goes with the window
            starting at step `i`), or None for windows only.
        sequence_length: Steps per window.
        sequence_stride: Steps between the starts of consecutive windows.
        sampling_rate: Steps between the rows inside a window.
        batch_size: Windows per batch (default 128); None yields single windows.
        shuffle: Whether to shuffle the windows.
        seed: Seed for the shuffle.
        start_index: First step used (default 0).
        end_index: Step where the data used ends, exclusive (default `len(data)`).
        format: Accepted for Keras compatibility (`"tf"` or `"grain"`).

    Returns:
        A `PyDataset` yielding `windows` or `(windows, targets)`, with windows of shape
        `(batch, sequence_length, ...)` in `data`'s dtype.

    >>> import numpy as np
    >>> ds = timeseries_dataset_from_array(np.arange(10), None, sequence_length=3,
    ...                                    sequence_stride=2, batch_size=2)
    >>> [w.tolist() for w in ds]
    [[[0, 1, 2], [2, 3, 4]], [[4, 5, 6], [6, 7, 8]]]
    """
    for name, value in (
        ("sequence_length", sequence_length),
        ("sequence_stride", sequence_stride),
        ("sampling_rate", sampling_rate),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"`{name}` must be a positive integer. Received: {name}={value!r}")
    if sequence_length <= 0:
        raise ValueError(
            f"`sequence_length` must be higher than 0. Received: sequence_length={sequence_length}"
        )
    length = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(
                f"`start_index` must be 0 or greater. Received: start_index={start_index}"
            )
        if start_index >= length:
            raise ValueError(
                "`start_index` must be lower than the length of the data. Received: "
                f"start_index={start_index}, for data of length {length}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. Received: "
                f"start_index={start_index}, and end_index={end_index}"
            )
        if end_index >= length:
            raise ValueError(
                "`end_index` must be lower than the length of the data. Received: "
                f"end_index={end_index}, for data of length {length}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(
            f"`sampling_rate` must be higher than 0. Received: sampling_rate={sampling_rate}"
        )
    if sampling_rate >= length:
        raise ValueError(
            "`sampling_rate` must be lower than the length of the data. Received: "
            f"sampling_rate={sampling_rate}, for data of length {length}"
        )
    if sequence_stride <= 0:
        raise ValueError(
            f"`sequence_stride` must be higher than 0. Received: sequence_stride={sequence_stride}"
        )
    if sequence_stride >= length:
        raise ValueError(
            "`sequence_stride` must be lower than the length of the data. Received: "
            f"sequence_stride={sequence_stride}, for data of length {length}"
        )
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format!r}')
    dataset_utils.check_batch_size(batch_size)
    if targets is not None and len(targets) == 0:
        raise ValueError("`targets` is empty: pass one target per timestep, or None.")

    start_index = int(start_index or 0)
    end_index = int(end_index or length)
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    start_positions = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = int(np.random.randint(1e6))
        np.random.RandomState(seed).shuffle(start_positions)

    loader = _WindowLoader(
        np.asarray(data),
        None if targets is None else np.asarray(targets),
        int(sequence_length),
        int(sampling_rate),
        start_index,
    )
    return SampleDataset([start_positions], loader, batch_size, shuffle=shuffle, seed=seed)


class _WindowLoader:
    """Gather the windows (and targets) starting at the given positions."""

    def __init__(self, data, targets, sequence_length, sampling_rate, start_index):
        self.data = data
        self.targets = targets
        self.offsets = np.arange(sequence_length, dtype=np.int64) * sampling_rate
        self.start_index = start_index

    def __call__(self, fields):
        starts = fields[0] + self.start_index
        windows = self.data[starts[:, None] + self.offsets]
        if self.targets is None:
            return windows
        return windows, self.targets[starts]
