"""`audio_dataset_from_directory`: a folder of `.wav` files (one subfolder per class) as a
dataset `fit` takes directly.

Keras's arguments, defaults, file order and split, on the standard library's `wave`
module and NumPy instead of tf.data and `tf.audio.decode_wav`: float32 waveforms of
shape `(sequence_length, channels)`, 16-bit samples divided by 32768 as TensorFlow
does, batches zero-padded to their longest clip (Keras's `padded_batch`), and labels
as `image_dataset_from_directory` gives them. Files are decoded when their batch is
asked for.
"""

from __future__ import annotations

import math
import os
import wave

import numpy as np

from lamina.utils import dataset_utils
from lamina.utils.dataset_utils import SampleDataset

ALLOWED_FORMATS = (".wav",)

# Integer PCM sample widths (bytes) and the divisor that maps them into [-1, 1).
_SCALES = {1: 2.0**7, 2: 2.0**15, 3: 2.0**23, 4: 2.0**31}

_NO_RAGGED = (
    "audio_dataset_from_directory received ragged=True, but lamina has no ragged tensors. "
    "Pass ragged=False (the default: each batch is zero-padded to its longest clip), set "
    "`output_sequence_length` to cut or pad every clip to one length, or pass "
    "batch_size=None to get one clip at a time at its own length."
)


def audio_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size: int | None = 32,
    sampling_rate: int | None = None,
    output_sequence_length: int | None = None,
    ragged: bool = False,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    verbose: bool = True,
):
    """Make a dataset of waveforms (and labels) from the `.wav` files in a directory.

    With `labels="inferred"` the directory holds one subdirectory per class
    (`main/class_a/a_1.wav`, ...), searched recursively; classes are numbered in
    alphanumeric order of their folder names (or the order of `class_names`). Files
    must be integer PCM WAV (8-, 16-, 24- or 32-bit; TensorFlow reads only 16-bit),
    scaled into `[-1, 1)`. The result is a `PyDataset` that `fit`, `evaluate` and
    `predict` take directly, with `.class_names` and `.file_paths`.

    Args:
        directory: The data folder.
        labels: `"inferred"`, `None` (waveforms only), or a list/tuple of integer
            labels, one per `.wav` file in the sorted order of the file paths.
        label_mode: `"int"` (int32), `"categorical"` (float32 one-hot), `"binary"`
            (float32 `(batch, 1)`, exactly two classes) or `None`.
        class_names: With `labels="inferred"`, the subdirectories to use, in label order.
        batch_size: Clips per batch (default 32); `None` yields single clips, each at
            its own length.
        sampling_rate: Resample every clip to this rate (samples per second) with a
            Kaiser-windowed polyphase filter (`scipy.signal.resample_poly`'s; Keras uses
            tensorflow-io's resampler, whose values differ slightly). None keeps each
            file's own rate.
        output_sequence_length: Cut or zero-pad every clip to this many samples (after
            resampling; Keras cuts before resampling, which contradicts its own
            documentation). None pads each batch to its longest clip.
        ragged: Must be False: lamina has no ragged tensors (a `ValueError` says what to
            do instead).
        shuffle: Whether to shuffle (default True); False keeps alphanumeric order.
        seed: Seed for the shuffle (needed with `validation_split` and `shuffle`).
        validation_split: Fraction in `(0, 1)` of the files kept for validation.
        subset: `"training"`, `"validation"` or `"both"` (returns the pair
            `(training, validation)`); only with `validation_split`.
        follow_links: Whether to descend into symlinked subdirectories.
        verbose: Whether to print how many files and classes were found.

    Returns:
        A `PyDataset` yielding `audio` (label_mode None) or `(audio, labels)`, where
        `audio` is float32 of shape `(batch, sequence_length, channels)`; or a
        `(training, validation)` pair with `subset="both"`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> import wave
    >>> for label, n in (("no", 80), ("yes", 120)):  # one mono 16-bit clip per class
    ...     os.makedirs(os.path.join(tmp.name, label))
    ...     with wave.open(os.path.join(tmp.name, label, "clip.wav"), "wb") as w:
    ...         w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
    ...         w.writeframes(np.zeros(n, "<i2").tobytes())
    >>> ds = utils.audio_dataset_from_directory(tmp.name, batch_size=2, shuffle=False)
    Found 2 files belonging to 2 classes.
    >>> ds.class_names
    ['no', 'yes']
    >>> [(x.shape, y.tolist()) for x, y in ds]  # padded to the longest clip
    [((2, 120, 1), [0, 1])]
    >>> tmp.cleanup()
    """
    dataset_utils.check_labels_args(labels, label_mode, class_names, "audio")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise ValueError(_NO_RAGGED)
    if sampling_rate is not None:
        if isinstance(sampling_rate, bool) or not isinstance(sampling_rate, (int, np.integer)):
            raise ValueError(
                "`sampling_rate` should have an integer value. "
                f"Received: sampling_rate={sampling_rate!r}"
            )
        if sampling_rate <= 0:
            raise ValueError(
                f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}"
            )
    if output_sequence_length is not None and (
        isinstance(output_sequence_length, bool)
        or not isinstance(output_sequence_length, (int, np.integer))
        or output_sequence_length <= 0
    ):
        raise ValueError(
            "`output_sequence_length` must be None or a positive integer (samples per "
            f"clip). Received: output_sequence_length={output_sequence_length!r}"
        )
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    dataset_utils.check_batch_size(batch_size)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)

    if seed is None:
        seed = int(np.random.randint(1e6))
    file_paths, labels, class_names = dataset_utils.index_directory(
        directory,
        labels,
        formats=ALLOWED_FORMATS,
        class_names=class_names,
        shuffle=shuffle,
        seed=seed,
        follow_links=follow_links,
        verbose=verbose,
    )
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 class_names. '
            f"Received: class_names={class_names}"
        )
    num_classes = len(class_names) if class_names else 0
    loader = _AudioLoader(sampling_rate, output_sequence_length, label_mode is not None)

    def make(paths, subset_labels, subset_shuffle, what):
        if not paths:
            raise ValueError(
                f"No {what} found in directory {os.fspath(directory)!r}. "
                f"Allowed format(s): {ALLOWED_FORMATS}"
            )
        fields = [np.asarray(paths, dtype=object)]
        if label_mode is not None:
            fields.append(dataset_utils.encode_labels(subset_labels, label_mode, num_classes))
        dataset = SampleDataset(fields, loader, batch_size, shuffle=subset_shuffle, seed=seed)
        dataset.class_names = class_names
        dataset.file_paths = list(paths)
        return dataset

    return dataset_utils.make_subsets(
        make, file_paths, labels, validation_split, subset, shuffle, "audio files"
    )


class _AudioLoader:
    """Decode, resample, cut and pad the clips of one batch (a picklable callable)."""

    def __init__(self, sampling_rate, output_sequence_length, with_labels):
        self.sampling_rate = sampling_rate
        self.output_sequence_length = output_sequence_length
        self.with_labels = with_labels

    def __call__(self, fields):
        clips = [self.load(path) for path in fields[0]]
        channels = {clip.shape[1] for clip in clips}
        if len(channels) > 1:
            found = {os.fspath(p): c.shape[1] for p, c in zip(fields[0], clips)}
            raise ValueError(
                "A batch holds clips with different numbers of channels, which cannot be "
                f"stacked: {found}. Convert the files to one channel count, or pass "
                "batch_size=None."
            )
        length = max(len(clip) for clip in clips)
        audio = np.zeros((len(clips), length, channels.pop()), dtype="float32")
        for i, clip in enumerate(clips):
            audio[i, : len(clip)] = clip
        return (audio, fields[1]) if self.with_labels else audio

    def load(self, path) -> np.ndarray:
        """One file as float32 `(samples, channels)`, resampled, cut or padded."""
        clip, rate = read_wav(path)
        if self.sampling_rate is not None and rate != self.sampling_rate:
            clip = resample(clip, rate, self.sampling_rate)
        n = self.output_sequence_length
        if n is not None:
            clip = clip[:n] if len(clip) >= n else np.pad(clip, ((0, n - len(clip)), (0, 0)))
        return clip


def read_wav(path) -> tuple[np.ndarray, int]:
    """Decode an integer PCM `.wav` file: float32 `(samples, channels)` in `[-1, 1)`,
    and its sampling rate.

    16-bit samples are divided by 32768, as `tf.audio.decode_wav` does; 8-bit ones
    (unsigned) are centred on 128 and divided by 128, 24- and 32-bit ones divided by
    `2**23` and `2**31`.
    """
    try:
        with wave.open(os.fspath(path), "rb") as f:
            channels, width, rate = f.getnchannels(), f.getsampwidth(), f.getframerate()
            data = f.readframes(f.getnframes())
    except (wave.Error, EOFError) as error:
        raise ValueError(
            f"Cannot decode the audio file {os.fspath(path)!r} ({error}). "
            "audio_dataset_from_directory reads integer PCM WAV files (8-, 16-, 24- or "
            "32-bit); convert it (e.g. to 16-bit PCM) or remove it."
        ) from error
    if width not in _SCALES or channels < 1:
        raise ValueError(
            f"The audio file {os.fspath(path)!r} has {channels} channel(s) of {8 * width}-bit "
            "samples; audio_dataset_from_directory reads 8-, 16-, 24- or 32-bit integer "
            "PCM. Convert it (e.g. to 16-bit PCM) or remove it."
        )
    usable = len(data) // (width * channels) * width * channels  # a truncated last frame
    raw = np.frombuffer(data[:usable], dtype=np.uint8)
    if width == 1:
        samples = raw.astype("float32") - 128.0
    elif width == 3:
        triples = raw.reshape(-1, 3).astype(np.int32)
        value = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        samples = np.where(value >= 2**23, value - 2**24, value).astype("float32")
    else:
        samples = np.frombuffer(raw.tobytes(), dtype=f"<i{width}").astype("float32")
    clip = (samples / np.float32(_SCALES[width])).reshape(-1, channels)
    return clip.astype("float32"), rate


def resample(clip: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    """Resample `(samples, channels)` from `rate_in` to `rate_out` samples per second.

    A polyphase filter, as `scipy.signal.resample_poly(clip, up, down, axis=0)` with its
    defaults: the rates reduced to `up / down`, a low-pass FIR of `20 * max(up, down) +
    1` taps (windowed sinc, Kaiser window with beta 5, cut at `1 / max(up, down)` of
    Nyquist), and `ceil(samples * up / down)` output samples.
    """
    g = math.gcd(int(rate_in), int(rate_out))
    up, down = int(rate_out) // g, int(rate_in) // g
    if up == down:
        return clip
    n_in = len(clip)
    n_out = -(-n_in * up // down)
    if n_in == 0:
        return np.zeros((0, clip.shape[1]), dtype="float32")
    half = 10 * max(up, down)
    taps = np.arange(-half, half + 1, dtype=np.float64)
    cutoff = 1.0 / max(up, down)
    h = cutoff * np.sinc(cutoff * taps) * np.kaiser(2 * half + 1, 5.0)
    h *= up / h.sum()
    # out[m] = sum_n clip[n] * h[m * down + half - n * up], over the n where that index
    # of h exists: at most 2 * half // up + 1 of them (one phase of the filter).
    width = 2 * half // up + 1
    x = clip.astype(np.float64)
    out = np.empty((n_out, clip.shape[1]), dtype=np.float64)
    block = max(1, 2**20 // width)
    for start in range(0, n_out, block):
        position = np.arange(start, min(start + block, n_out)) * down + half
        n = (position // up)[:, None] - np.arange(width)[None, :]
        k = position[:, None] - n * up
        valid = (k <= 2 * half) & (n >= 0) & (n < n_in)
        coefficients = np.where(valid, h[np.minimum(k, 2 * half)], 0.0)
        out[start : start + len(position)] = np.einsum(
            "mt,mtc->mc", coefficients, x[np.clip(n, 0, max(n_in - 1, 0))]
        )
    return out.astype("float32")
