"""CIFAR-10: 50,000 training and 10,000 test 32x32 colour images in 10 classes.

Reads Keras's copy of `cifar-10-python.tar.gz` from the cache: the archive is
`<cache root>/datasets/cifar-10-batches-py-target_archive`, unpacked (safely) into
`cifar-10-batches-py-target/`, as Keras 3 lays it out (see `lamina.utils.get_file`).

| Label | Class      | Label | Class |
|:-----:|------------|:-----:|-------|
| 0     | airplane   | 5     | dog   |
| 1     | automobile | 6     | frog  |
| 2     | bird       | 7     | horse |
| 3     | cat        | 8     | ship  |
| 4     | deer       | 9     | truck |
"""

from __future__ import annotations

import os

import numpy as np

from lamina.datasets import _cifar, _files

DIRNAME = "cifar-10-batches-py-target"
ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


def load_data():
    """Load CIFAR-10 as `(x_train, y_train), (x_test, y_test)`.

    Returns:
        `x_train`: uint8 array `(50000, 32, 32, 3)` (`(50000, 3, 32, 32)` when
        `image_data_format()` is `"channels_first"`), pixels 0..255; `y_train`: uint8
        array `(50000, 1)`, classes 0..9; `x_test`, `y_test`: the same for the 10,000
        test images.

    A small share of CIFAR-10's labels are known to be wrong; that is the data set's,
    not the loader's.
    """
    root = _files.fetch(DIRNAME, ORIGIN, FILE_HASH, extract=True)
    folder = os.path.join(root, "cifar-10-batches-py")
    batches = [_cifar.load_batch(os.path.join(folder, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([data for data, _ in batches]).astype("uint8")
    y_train = np.concatenate([np.asarray(labels) for _, labels in batches]).astype("uint8")
    x_test, y_test = _cifar.load_batch(os.path.join(folder, "test_batch"))
    x_test = x_test.astype("uint8")
    y_train = y_train.reshape(len(y_train), 1)
    y_test = np.reshape(y_test, (len(y_test), 1)).astype("uint8")
    return (_cifar.to_image_data_format(x_train), y_train), (
        _cifar.to_image_data_format(x_test),
        y_test,
    )
