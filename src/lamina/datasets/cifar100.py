"""CIFAR-100: 50,000 training and 10,000 test 32x32 colour images, labelled with 100
fine classes grouped into 20 coarse superclasses.

Reads Keras's copy of `cifar-100-python.tar.gz` from the cache: the archive is
`<cache root>/datasets/cifar-100-python-target_archive`, unpacked (safely) into
`cifar-100-python-target/`, as Keras 3 lays it out (see `lamina.utils.get_file`).
"""

from __future__ import annotations

import os

import numpy as np

from lamina.datasets import _cifar, _files

DIRNAME = "cifar-100-python-target"
ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode="fine"):
    """Load CIFAR-100 as `(x_train, y_train), (x_test, y_test)`.

    Args:
        label_mode: `"fine"` (100 classes) or `"coarse"` (20 superclasses).

    Returns:
        `x_train`: uint8 array `(50000, 32, 32, 3)` (`(50000, 3, 32, 32)` when
        `image_data_format()` is `"channels_first"`); `y_train`: integer array
        `(50000, 1)` (int64, as Keras returns it), classes 0..99 or 0..19; `x_test`,
        `y_test`: the same for the 10,000 test images.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(
            f'`label_mode` must be one of "fine", "coarse". Received: label_mode={label_mode!r}.'
        )
    root = _files.fetch(DIRNAME, ORIGIN, FILE_HASH, extract=True)
    folder = os.path.join(root, "cifar-100-python")
    key = f"{label_mode}_labels"
    x_train, y_train = _cifar.load_batch(os.path.join(folder, "train"), key, "CIFAR-100")
    x_test, y_test = _cifar.load_batch(os.path.join(folder, "test"), key, "CIFAR-100")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    return (_cifar.to_image_data_format(x_train), y_train), (
        _cifar.to_image_data_format(x_test),
        y_test,
    )
