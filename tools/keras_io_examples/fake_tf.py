"""A stand-in for the parts of TensorFlow that keras-io programs use only to feed data:
`tf.data.Dataset` (from_tensor_slices, map, batch, shuffle, prefetch, cache, take, skip,
zip, repeat, unbatch) computed eagerly on NumPy, and `tf.data.AUTOTUNE`.

A batched dataset is a `keras.utils.PyDataset`, which Keras 3 and lamina both take in
`fit`/`evaluate`/`predict`. Everything else in `tensorflow` raises
`ModuleNotFoundError` naming the attribute, so a program that needs TensorFlow for more
than feeding data fails saying so (the runner reports it as "needs TensorFlow").
"""

from __future__ import annotations

import builtins
import types

import numpy as np


class NotEmulated(ModuleNotFoundError):
    pass


def _map_structure(fn, *xs):
    x = xs[0]
    if isinstance(x, dict):
        return {k: _map_structure(fn, *(v[k] for v in xs)) for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)(_map_structure(fn, *parts) for parts in zip(*xs, strict=True))
    return fn(*xs)


def _to_numpy(x):
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        try:
            return np.asarray(x.numpy())
        except Exception:  # noqa: BLE001
            pass
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def install(py_dataset_base, program):
    """Make `import tensorflow` (and `tensorflow.data`) in the file `program` give the
    stand-in. Only there: it stays out of `sys.modules`, where Keras 3 (which tries
    `import tensorflow` for its TensorFlow paths) and matplotlib (which asks
    `sys.modules["tensorflow"]` about every array it plots) would find it."""
    tf = build(py_dataset_base)
    real_import = builtins.__import__

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if (
            level == 0
            and (name == "tensorflow" or name.startswith("tensorflow."))
            and globals is not None
            and globals.get("__file__") == program
        ):
            if name == "tensorflow.data" and fromlist:
                return tf.data
            if name not in ("tensorflow", "tensorflow.data"):
                getattr(tf, name.split(".")[1])  # raises, naming what is not emulated
            return tf
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = _import
    return tf


def build(py_dataset_base):
    """The stand-in `tensorflow` module, its datasets subclasses of `py_dataset_base`."""

    class Dataset(py_dataset_base):
        def __init__(self, elements, batched=False):
            super().__init__()
            self._elements = list(elements)
            self._batched = batched

        # --- PyDataset protocol (used by fit / evaluate / predict)
        def __len__(self):
            return len(self._elements)

        def __getitem__(self, i):
            if i >= len(self._elements):
                raise IndexError(i)
            return self._elements[i]

        def __iter__(self):
            return iter(self._elements)

        @property
        def num_batches(self):
            return len(self._elements)

        # --- constructors
        @staticmethod
        def from_tensor_slices(data):
            first = data
            while isinstance(first, (dict, list, tuple)):
                first = next(iter(first.values())) if isinstance(first, dict) else first[0]
            n = len(first)
            arrays = _map_structure(_to_numpy, data)
            return Dataset([_map_structure(lambda a, i=i: a[i], arrays) for i in range(n)])

        @staticmethod
        def zip(datasets):
            return Dataset(list(zip(*(d._elements for d in datasets), strict=False)))

        @staticmethod
        def range(*args):
            return Dataset([np.int64(i) for i in range(*args)])

        # --- transformations
        def map(self, fn, num_parallel_calls=None, **kwargs):
            out = []
            for e in self._elements:
                r = fn(*e) if isinstance(e, tuple) else fn(e)
                out.append(_map_structure(_to_numpy, r))
            return Dataset(out, self._batched)

        def batch(self, batch_size, drop_remainder=False, **kwargs):
            out = []
            for s in range(0, len(self._elements), batch_size):
                chunk = self._elements[s : s + batch_size]
                if drop_remainder and len(chunk) < batch_size:
                    break
                out.append(_map_structure(lambda *xs: np.stack(xs), *chunk))
            return Dataset(out, batched=True)

        def unbatch(self):
            out = []
            for b in self._elements:
                first = b
                while isinstance(first, (dict, list, tuple)):
                    first = next(iter(first.values())) if isinstance(first, dict) else first[0]
                out.extend(_map_structure(lambda a, i=i: a[i], b) for i in range(len(first)))
            return Dataset(out)

        def shuffle(self, buffer_size=None, seed=None, **kwargs):
            order = np.random.RandomState(seed or 0).permutation(len(self._elements))
            return Dataset([self._elements[i] for i in order], self._batched)

        def take(self, n):
            return Dataset(self._elements[:n] if n >= 0 else self._elements, self._batched)

        def skip(self, n):
            return Dataset(self._elements[n:], self._batched)

        def prefetch(self, *a, **k):
            return self

        def cache(self, *a, **k):
            return self

        def repeat(self, count=None):
            return self

        def as_numpy_iterator(self):
            return iter(self._elements)

    data = types.ModuleType("tensorflow.data")
    data.Dataset = Dataset
    data.AUTOTUNE = -1
    data.experimental = types.SimpleNamespace(AUTOTUNE=-1)

    class _TF(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            raise NotEmulated(
                f"the runner emulates only tf.data; this program uses tensorflow.{name}"
            )

    tf = _TF("tensorflow")
    tf.data = data
    # Libraries that find `tensorflow` imported ask whether a value is one of its
    # tensors (matplotlib does, for every array it plots): none is.
    tf.is_tensor = lambda x: False
    tf.Tensor = type("Tensor", (), {})
    return tf
