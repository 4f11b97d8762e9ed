"""`text_dataset_from_directory`: a folder of `.txt` files (one subfolder per class) as
a dataset `fit` takes directly.

Keras's arguments, defaults, file order and split; each batch is a NumPy array of
strings (what `TextVectorization` and `StringLookup` read), with labels as
`image_dataset_from_directory` gives them.
"""

from __future__ import annotations

import os

import numpy as np

from lamina.utils import dataset_utils
from lamina.utils.dataset_utils import SampleDataset

ALLOWLIST_FORMATS = (".txt",)


def text_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size: int | None = 32,
    max_length: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    format: str = "tf",
    verbose: bool = True,
):
    """Make a dataset of texts (and labels) from the `.txt` files in a directory.

    With `labels="inferred"` the directory holds one subdirectory per class
    (`main/class_a/a_1.txt`, ...), searched recursively; classes are numbered in
    alphanumeric order of their folder names (or the order of `class_names`). Each
    file is read whole as UTF-8, line endings kept as they are. The result is a
    `PyDataset` that `fit`, `evaluate` and `predict` take directly, with
    `.class_names` and `.file_paths`.

    Args:
        directory: The data folder.
        labels: `"inferred"`, `None` (texts only), or a list/tuple of integer labels,
            one per `.txt` file in the sorted order of the file paths.
        label_mode: `"int"` (int32), `"categorical"` (float32 one-hot), `"binary"`
            (float32 `(batch, 1)`, exactly two classes) or `None`.
        class_names: With `labels="inferred"`, the subdirectories to use, in label order.
        batch_size: Texts per batch (default 32); `None` yields single texts.
        max_length: Keep at most this many bytes of each text's UTF-8 encoding (None:
            all), as Keras does (`tf.strings.substr` counts bytes). Keras yields the
            cut bytes; lamina yields `str`, so when the cut falls inside a multi-byte
            character that partial character is dropped (the text may then hold a few
            bytes fewer than `max_length`).
        shuffle: Whether to shuffle (default True); False keeps alphanumeric order.
        seed: Seed for the shuffle (needed with `validation_split` and `shuffle`).
        validation_split: Fraction in `(0, 1)` of the files kept for validation.
        subset: `"training"`, `"validation"` or `"both"` (returns the pair
            `(training, validation)`); only with `validation_split`.
        follow_links: Whether to descend into symlinked subdirectories.
        format: Accepted for Keras compatibility (`"tf"` or `"grain"`); either gives
            the same `PyDataset`.
        verbose: Whether to print how many files and classes were found.

    Returns:
        A `PyDataset` yielding `texts` (label_mode None) or `(texts, labels)`, where
        `texts` is a NumPy string array of shape `(batch,)`; or a
        `(training, validation)` pair with `subset="both"`.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from lamina import utils
    >>> tmp = tempfile.TemporaryDirectory()
    >>> for label, text in (("neg", "a dull film"), ("pos", "a great film")):
    ...     os.makedirs(os.path.join(tmp.name, label))
    ...     with open(os.path.join(tmp.name, label, "review.txt"), "w") as f:
    ...         _ = f.write(text)
    >>> ds = utils.text_dataset_from_directory(tmp.name, batch_size=2, shuffle=False)
    Found 2 files belonging to 2 classes.
    >>> ds.class_names
    ['neg', 'pos']
    >>> [(x.tolist(), y.tolist()) for x, y in ds]
    [(['a dull film', 'a great film'], [0, 1])]
    >>> tmp.cleanup()
    """
    dataset_utils.check_labels_args(labels, label_mode, class_names, "text")
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format!r}')
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    if max_length is not None and (
        isinstance(max_length, bool)
        or not isinstance(max_length, (int, np.integer))
        or max_length < 0
    ):
        raise ValueError(
            f"`max_length` must be None or a non-negative integer. Received: {max_length!r}"
        )
    dataset_utils.check_batch_size(batch_size)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)

    if seed is None:
        seed = int(np.random.randint(1e6))
    file_paths, labels, class_names = dataset_utils.index_directory(
        directory,
        labels,
        formats=ALLOWLIST_FORMATS,
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

    def make(paths, subset_labels, subset_shuffle, what):
        if not paths:
            raise ValueError(
                f"No {what} found in directory {os.fspath(directory)!r}. Allowed format: .txt"
            )
        fields = [np.asarray(paths, dtype=object)]
        if label_mode is not None:
            fields.append(dataset_utils.encode_labels(subset_labels, label_mode, num_classes))
        loader = _TextLoader(max_length, label_mode is not None)
        dataset = SampleDataset(fields, loader, batch_size, shuffle=subset_shuffle, seed=seed)
        dataset.class_names = class_names
        dataset.file_paths = list(paths)
        return dataset

    return dataset_utils.make_subsets(
        make, file_paths, labels, validation_split, subset, shuffle, "text files"
    )


class _TextLoader:
    """Read the text files of one batch into a NumPy string array."""

    def __init__(self, max_length, with_labels):
        self.max_length = max_length
        self.with_labels = with_labels

    def __call__(self, fields):
        texts = np.array([self.read(path) for path in fields[0]], dtype=str)
        if not self.with_labels:
            return texts
        return texts, fields[1]

    def read(self, path) -> str:
        with open(path, "rb") as f:
            data = f.read() if self.max_length is None else f.read(self.max_length)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            cut_inside_a_character = (
                self.max_length is not None
                and len(data) == self.max_length
                and error.reason == "unexpected end of data"
            )
            if cut_inside_a_character:
                # `max_length` counts bytes: drop the partial character at the cut.
                return data[: error.start].decode("utf-8")
            raise ValueError(
                f"The text file {os.fspath(path)!r} is not valid UTF-8 ({error}). Re-encode "
                "it as UTF-8 or remove it."
            ) from error
