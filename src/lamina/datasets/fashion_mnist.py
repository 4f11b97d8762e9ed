"""Fashion-MNIST: 60,000 training and 10,000 test 28x28 grayscale images of clothes.

Reads Keras's four gzipped IDX files from `<cache root>/datasets/fashion-mnist/`
(see `lamina.utils.get_file`), downloading them from Keras's origin when absent.
Keras publishes no hashes for these files, so none are checked (as in Keras).

| Label | Class       | Label | Class      |
|:-----:|-------------|:-----:|------------|
| 0     | T-shirt/top | 5     | Sandal     |
| 1     | Trouser     | 6     | Shirt      |
| 2     | Pullover    | 7     | Sneaker    |
| 3     | Dress       | 8     | Bag        |
| 4     | Coat        | 9     | Ankle boot |
"""

from __future__ import annotations

import gzip
import os

import numpy as np

from lamina.datasets import _files

ORIGIN_FOLDER = _files.ORIGIN_FOLDER
CACHE_SUBDIR = os.path.join("datasets", "fashion-mnist")
FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)
# IDX magic numbers: unsigned bytes, with 1 (labels) or 3 (images) dimensions.
_LABELS_MAGIC, _IMAGES_MAGIC = 0x801, 0x803


def _read_idx(path, magic, count=None):
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as e:
        raise _files.unreadable(path, e, "Fashion-MNIST") from e
    header = 8 if magic == _LABELS_MAGIC else 16
    fields = np.frombuffer(data[:header], ">u4") if len(data) >= header else None
    n = None if fields is None else int(fields[1])
    expected = n if magic == _LABELS_MAGIC else (n or 0) * 28 * 28
    if fields is None or fields[0] != magic or len(data) - header != expected:
        raise _files.unreadable(
            path,
            ValueError(
                f"not an IDX file of {'labels' if magic == _LABELS_MAGIC else '28x28 images'}"
            ),
            "Fashion-MNIST",
        )
    if count is not None and n != count:
        raise _files.unreadable(path, ValueError(f"{n} images for {count} labels"), "Fashion-MNIST")
    array = np.frombuffer(data, np.uint8, offset=header).copy()  # writable, unlike Keras's
    return array if magic == _LABELS_MAGIC else array.reshape(n, 28, 28)


def load_data():
    """Load Fashion-MNIST as `(x_train, y_train), (x_test, y_test)`.

    Returns:
        `x_train`: uint8 array `(60000, 28, 28)`; `y_train`: uint8 array `(60000,)`,
        classes 0..9 (see the module docstring); `x_test`, `y_test`: the same for the
        10,000 test images.

    License: Fashion-MNIST is copyright Zalando SE, under the MIT license.
    """
    paths = [_files.fetch(name, ORIGIN_FOLDER + name, cache_subdir=CACHE_SUBDIR) for name in FILES]
    y_train = _read_idx(paths[0], _LABELS_MAGIC)
    x_train = _read_idx(paths[1], _IMAGES_MAGIC, len(y_train))
    y_test = _read_idx(paths[2], _LABELS_MAGIC)
    x_test = _read_idx(paths[3], _IMAGES_MAGIC, len(y_test))
    return (x_train, y_train), (x_test, y_test)
