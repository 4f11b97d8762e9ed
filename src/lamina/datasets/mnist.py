"""MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28 grayscale.

Reads Keras's `mnist.npz` from the cache (`<cache root>/datasets/mnist.npz`, see
`lamina.utils.get_file`), downloading it from Keras's origin when absent.
"""

from __future__ import annotations

from lamina.datasets import _files

ORIGIN = f"{_files.ORIGIN_FOLDER}mnist.npz"
FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path="mnist.npz"):
    """Load MNIST as `(x_train, y_train), (x_test, y_test)`.

    Args:
        path: file name of the data in the cache folder (`~/.keras/datasets` unless
            `LAMINA_HOME`/`KERAS_HOME` say otherwise).

    Returns:
        `x_train`: uint8 array `(60000, 28, 28)`, pixels 0..255; `y_train`: uint8
        array `(60000,)`, digits 0..9; `x_test`, `y_test`: the same for the 10,000
        test images.

    Example:

    ```python
    (x_train, y_train), (x_test, y_test) = lamina.datasets.mnist.load_data()
    assert x_train.shape == (60000, 28, 28)
    ```

    License: Yann LeCun and Corinna Cortes hold the copyright of MNIST, a derivative
    of NIST's data, available under CC BY-SA 3.0.
    """
    path = _files.fetch(path, ORIGIN, FILE_HASH)
    x_train, y_train, x_test, y_test = _files.load_arrays(
        path, ("x_train", "y_train", "x_test", "y_test"), "MNIST"
    )
    return (x_train, y_train), (x_test, y_test)
