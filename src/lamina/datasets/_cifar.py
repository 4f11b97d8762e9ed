"""Reading the CIFAR "python version" batches (pickled dicts of uint8 rows)."""

from __future__ import annotations

import numpy as np

from lamina.backend import image_data_format
from lamina.datasets import _files


def load_batch(fpath, label_key="labels", what="CIFAR"):
    """`(data, labels)` of one batch file: data `(n, 3, 32, 32)`, labels a list."""
    batch = _files.load_pickle(fpath, what)
    try:
        batch = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
        data, labels = batch["data"], batch[label_key]
        data = np.asarray(data).reshape(len(data), 3, 32, 32)
        if len(labels) != len(data):
            raise ValueError(f"{len(data)} images for {len(labels)} labels")
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise _files.unreadable(fpath, e, what) from e
    return data, labels


def to_image_data_format(x):
    """Keras stores channels first; `channels_last` (the default) moves them last."""
    return x.transpose(0, 2, 3, 1) if image_data_format() == "channels_last" else x
