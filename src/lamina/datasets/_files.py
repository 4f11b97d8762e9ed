"""What the Keras data sets share: where they come from, and reading their files safely.

The files are Keras's own (same names, origins and hashes), fetched with
`lamina.utils.get_file`, so a cache that Keras filled is read as is. The IMDB and
Reuters `.npz` files hold ragged sequences as pickled object arrays and CIFAR ships
pickles; they are read with an unpickler that can build NumPy arrays and nothing
else, so a tampered file cannot run code. A file that cannot be read raises one
`ValueError` that names it.
"""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np

from lamina.utils.file_utils import get_file

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

# The only globals a pickled NumPy array needs; both spellings of `multiarray`
# (numpy < 2 wrote `numpy.core`, numpy >= 2 writes `numpy._core`).
_RECONSTRUCT = np.zeros(0).__reduce__()[0]
_ALLOWED_GLOBALS = {
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
    ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
}


class ArrayUnpickler(pickle.Unpickler):
    """Unpickles plain Python data and NumPy arrays; refuses every other global."""

    def find_class(self, module, name):
        try:
            return _ALLOWED_GLOBALS[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing to load `{module}.{name}`: a data set file holds only NumPy arrays"
            ) from None


def fetch(fname, origin, file_hash=None, **kwargs) -> str:
    """`get_file` into the `datasets` cache folder, as Keras's loaders call it."""
    return get_file(fname=fname, origin=origin, file_hash=file_hash, **kwargs)


def unreadable(path, error, what="data set") -> ValueError:
    return ValueError(
        f"Could not read {path!r} as the {what} file Keras publishes "
        f"({type(error).__name__}: {error}). The cached file is probably corrupt or "
        "truncated: delete it and load the data again to download a fresh copy."
    )


READ_ERRORS = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, pickle.UnpicklingError)


def load_arrays(path, keys, what="data set") -> tuple:
    """The named arrays of a numeric `.npz` file (no pickles allowed)."""
    try:
        # An open file, not the path: np.load leaks its own handle when the zip is bad.
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as f:
            return tuple(f[key] for key in keys)
    except READ_ERRORS as e:
        raise unreadable(path, e, what) from e


def _read_npy(raw: bytes):
    buffer = io.BytesIO(raw)
    version = np.lib.format.read_magic(buffer)
    if version[0] == 1:
        _, _, dtype = np.lib.format.read_array_header_1_0(buffer)
    elif version[0] in (2, 3):
        # Version 3 differs from 2 only in the header's text encoding.
        _, _, dtype = np.lib.format.read_array_header_2_0(buffer)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if dtype.hasobject:
        return ArrayUnpickler(buffer).load()
    buffer.seek(0)
    return np.lib.format.read_array(buffer, allow_pickle=False)


def load_object_arrays(path, keys, what="data set") -> tuple:
    """The named arrays of an `.npz` whose arrays may be pickled object arrays."""
    try:
        with zipfile.ZipFile(path) as archive:
            return tuple(_read_npy(archive.read(f"{key}.npy")) for key in keys)
    except READ_ERRORS as e:
        raise unreadable(path, e, what) from e


def load_pickle(path, what="data set"):
    """A Python-2-era pickle (CIFAR batches): byte strings stay bytes."""
    try:
        with open(path, "rb") as f:
            return ArrayUnpickler(f, encoding="bytes").load()
    except READ_ERRORS as e:
        raise unreadable(path, e, what) from e


def check_test_split(test_split) -> None:
    if isinstance(test_split, bool) or not isinstance(test_split, (int, float, np.floating)):
        raise TypeError(f"test_split must be a float in [0, 1); received {test_split!r}.")
    if not 0 <= test_split < 1:
        raise ValueError(
            f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 "
            "(exclusive of 1): the fraction of the samples held out for testing."
        )


def remove_long_seq(maxlen, sequences, labels):
    """Keep the sequences strictly shorter than `maxlen` (Keras's rule), with labels."""
    kept_x, kept_y = [], []
    for x, y in zip(sequences, labels):
        if len(x) < maxlen:
            kept_x.append(x)
            kept_y.append(y)
    return kept_x, kept_y


def shuffled(rng, *arrays):
    """Each array reordered by one `rng.shuffle` of its indices (Keras's shuffle)."""
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return tuple(a[indices] for a in arrays)
