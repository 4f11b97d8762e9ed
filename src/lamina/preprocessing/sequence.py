"""Classic sequence preprocessing: `pad_sequences`, `TimeseriesGenerator`, `skipgrams`,
`make_sampling_table`.

The Keras 2.x `keras.preprocessing.sequence` utilities. `TimeseriesGenerator` is a
`lamina.utils.PyDataset`, so `model.fit` takes it directly. `skipgrams` draws from
Python's `random` module exactly as Keras does, so the same `random.seed` gives the same
pairs.
"""

from __future__ import annotations

import json
import random

import numpy as np

from lamina.utils import PyDataset, pad_sequences

__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(
            f"TimeseriesGenerator: {name} must be an int >= {minimum}; received {value!r}."
        )
    return int(value)


class TimeseriesGenerator(PyDataset):
    """Batches of windows over a time series, with the target after each window.

    Sample `k` (for a window ending before time step `t`) is
    `data[t - length : t : sampling_rate]`, its target `targets[t]`; `t` runs from
    `start_index + length` to `end_index` in steps of `stride`.

    Args:
        data: an indexable of time steps (list or array), time on axis 0.
        targets: the target of each time step; same length as `data`.
        length: the window length, in time steps (before sampling).
        sampling_rate: the step between time steps kept inside a window.
        stride: the step between consecutive windows.
        start_index: time steps before this are not used as targets' windows' start.
        end_index: the last time step usable as a target (`None`: the last one).
        shuffle: draw the rows of each batch at random (with NumPy's global
            generator, as Keras does) instead of in order.
        reverse: give each window in reverse time order.
        batch_size: windows per batch (the last batch may be smaller).
        **kwargs: `workers`, `use_multiprocessing`, `max_queue_size` for `PyDataset`.

    >>> import numpy as np
    >>> series = np.arange(10)
    >>> generator = TimeseriesGenerator(series, series, length=3, batch_size=2)
    >>> len(generator)
    4
    >>> x, y = generator[0]
    >>> x.tolist(), y.tolist()
    ([[0, 1, 2], [1, 2, 3]], [3, 4])
    """

    def __init__(
        self,
        data,
        targets,
        length: int,
        sampling_rate: int = 1,
        stride: int = 1,
        start_index: int = 0,
        end_index: int | None = None,
        shuffle: bool = False,
        reverse: bool = False,
        batch_size: int = 128,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(data) != len(targets):
            raise ValueError(
                f"TimeseriesGenerator: data and targets must have the same length; data has "
                f"{len(data)} time steps, targets {len(targets)}."
            )
        self.data = data
        self.targets = targets
        self.length = _check_int("length", length, 1)
        self.sampling_rate = _check_int("sampling_rate", sampling_rate, 1)
        self.stride = _check_int("stride", stride, 1)
        self.batch_size = _check_int("batch_size", batch_size, 1)
        self.start_index = _check_int("start_index", start_index, 0) + self.length
        self.end_index = len(data) - 1 if end_index is None else int(end_index)
        self.shuffle = shuffle
        self.reverse = reverse
        if self.start_index > self.end_index:
            raise ValueError(
                f"TimeseriesGenerator: start_index + length = {self.start_index} is past "
                f"end_index = {self.end_index}, so no window has a target. Use a shorter "
                "length, an earlier start_index, a later end_index, or more data."
            )

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index: int):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            if not 0 <= index < len(self):
                raise IndexError(
                    f"TimeseriesGenerator: batch {index} asked for; it has {len(self)} batches."
                )
            first = self.start_index + self.batch_size * self.stride * index
            last = min(first + self.batch_size * self.stride, self.end_index + 1)
            rows = np.arange(first, last, self.stride)
        samples = np.array(
            [self.data[row - self.length : row : self.sampling_rate] for row in rows]
        )
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            samples = samples[:, ::-1, ...]
        return samples, targets

    def get_config(self) -> dict:
        """The generator's settings with `data` and `targets` as JSON strings."""
        config = {}
        for name in ("data", "targets"):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value = value.tolist()
            try:
                config[name] = json.dumps(value)
            except TypeError as error:
                raise TypeError(
                    f"TimeseriesGenerator.get_config: {name} is not JSON serializable "
                    f"({error}); convert it to a list or NumPy array of numbers."
                ) from error
        config.update(
            length=self.length,
            sampling_rate=self.sampling_rate,
            stride=self.stride,
            start_index=self.start_index,
            end_index=self.end_index,
            shuffle=self.shuffle,
            reverse=self.reverse,
            batch_size=self.batch_size,
        )
        return config

    def to_json(self, **kwargs) -> str:
        """The generator's config as a JSON string.

        Args:
            **kwargs: passed to `json.dumps`.
        """
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """Word2vec's subsampling probabilities for words ranked by frequency.

    Entry `i` is the probability of keeping the `i`-th most common word: word2vec's
    `min(1, sqrt(sampling_factor / f))` for a word of frequency `f`, with `f` estimated
    from the rank by Zipf's law (as Keras does). Pass it to `skipgrams` as
    `sampling_table`.

    Args:
        size: the number of ranks (the vocabulary size).
        sampling_factor: word2vec's sampling factor.

    Returns:
        A float64 array of length `size`.

    >>> make_sampling_table(4).round(6).tolist()
    [0.003152, 0.003152, 0.005476, 0.007416]
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"make_sampling_table: size must be a positive int; received {size!r}.")
    euler_gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    # Zipf: frequency(rank) ~ 1 / (rank * (log(rank) + gamma) + 1/2 - 1/(12 rank)).
    inverse_frequency = rank * (np.log(rank) + euler_gamma) + 0.5 - 1.0 / (12.0 * rank)
    scaled = sampling_factor * inverse_frequency
    return np.minimum(1.0, scaled / np.sqrt(scaled))


def skipgrams(
    sequence,
    vocabulary_size: int,
    window_size: int = 4,
    negative_samples: float = 1.0,
    shuffle: bool = True,
    categorical: bool = False,
    sampling_table=None,
    seed: int | None = None,
):
    """Word pairs for skip-gram training: neighbours (label 1) and random words (label 0).

    For each word `w_i` (index 0 is a non-word and skipped), every non-zero word within
    `window_size` positions gives a positive pair `[w_i, w_j]`. Then
    `int(n_positive * negative_samples)` negative pairs pair shuffled centre words with
    random indices in `[1, vocabulary_size)`. Randomness comes from Python's `random`
    module in Keras's order, so the same `random.seed(...)` gives Keras's pairs.

    Args:
        sequence: a list of word indices.
        vocabulary_size: the largest word index + 1.
        window_size: the half-window size.
        negative_samples: negatives per positive (0: none).
        shuffle: shuffle the pairs (with `seed`, or a seed drawn from `random`).
        categorical: labels as `[0, 1]` / `[1, 0]` instead of `1` / `0`.
        sampling_table: keep word `w` with probability `sampling_table[w]` (see
            `make_sampling_table`).
        seed: the seed for the final shuffle.

    Returns:
        `(couples, labels)`: a list of `[word, context]` pairs and their labels.

    >>> skipgrams([1, 2, 3], vocabulary_size=4, window_size=1, negative_samples=0, shuffle=False)
    ([[1, 2], [2, 1], [2, 3], [3, 2]], [1, 1, 1, 1])
    """
    if negative_samples > 0 and (
        isinstance(vocabulary_size, bool)
        or not isinstance(vocabulary_size, (int, np.integer))
        or vocabulary_size < 2
    ):
        raise ValueError(
            f"skipgrams: vocabulary_size must be an int >= 2 to draw negative samples; "
            f"received {vocabulary_size!r}."
        )
    positive, negative = ([0, 1], [1, 0]) if categorical else (1, 0)
    couples = []
    labels = []
    length = len(sequence)
    for i, center in enumerate(sequence):
        if not center:
            continue
        if sampling_table is not None and sampling_table[center] < random.random():
            continue
        for j in range(max(0, i - window_size), min(length, i + window_size + 1)):
            if j == i or not sequence[j]:
                continue
            couples.append([center, sequence[j]])
            labels.append(list(positive) if categorical else positive)
    if negative_samples > 0:
        num_negative = int(len(labels) * negative_samples)
        centers = [pair[0] for pair in couples]
        random.shuffle(centers)
        couples += [
            [centers[k % len(centers)], random.randint(1, vocabulary_size - 1)]
            for k in range(num_negative)
        ]
        labels += [list(negative) if categorical else negative for _ in range(num_negative)]
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10_000_000)
        # The same seed shuffles both lists, so pairs keep their labels.
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels
