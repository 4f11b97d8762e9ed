"""A stand-in for the parts of TensorFlow that keras-io programs use only to feed data:
`tf.data.Dataset` (from_tensor_slices, map, batch, shuffle, prefetch, cache, take, skip,
zip, repeat, unbatch) computed eagerly on NumPy, `tf.data.AUTOTUNE`,
`tf.data.experimental.make_csv_dataset`, and the few array functions that those programs
call inside `Dataset.map` or on their inputs (`tf.expand_dims`, `tf.convert_to_tensor`,
`tf.shape`, `tf.random.uniform`, `Tensor.set_shape`), on NumPy too.

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


def _lists_as_arrays(x):
    if isinstance(x, dict):
        return {k: _lists_as_arrays(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_lists_as_arrays(v) for v in x)
    if isinstance(x, list):
        try:
            a = np.asarray([_to_numpy(v) for v in x])
        except ValueError:
            a = None
        return a if a is not None and a.dtype != object else [_lists_as_arrays(v) for v in x]
    return x


def _to_numpy(x):
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        try:
            return np.asarray(x.numpy())
        except Exception:  # noqa: BLE001
            pass
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


class _Tensor(np.ndarray):
    """What a `Dataset.map` function receives: a NumPy array that also answers the
    tf.Tensor methods those functions call (`set_shape`, `numpy`)."""

    def set_shape(self, shape):
        if len(shape) != self.ndim or any(
            s is not None and s != d for s, d in zip(shape, self.shape, strict=True)
        ):
            raise ValueError(f"set_shape {list(shape)} on an array of shape {self.shape}")

    def numpy(self):
        return np.asarray(self)


def _as_tensor(x):
    # A copy: `x += ...` in a map function must not change the dataset it maps.
    return x.copy().view(_Tensor) if isinstance(x, np.ndarray) and x.dtype != object else x


def _convert_to_tensor(value, dtype=None, **kwargs):
    # As TensorFlow: Python ints become int32, Python floats float32.
    a = np.asarray(value, dtype=dtype)
    if dtype is None and a.dtype == np.int64 and not isinstance(value, np.ndarray):
        a = a.astype("int32")
    if dtype is None and a.dtype == np.float64 and not isinstance(value, np.ndarray):
        a = a.astype("float32")
    return a


def _make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    **kwargs,
):
    """tf.data.experimental.make_csv_dataset for one CSV file: batches of
    (OrderedDict of columns, label) -- float32 / int32 / str columns as the defaults
    say, the remainder kept (as TensorFlow does for a finite num_epochs)."""
    import collections

    import pandas as pd

    df = pd.read_csv(
        file_pattern,
        header=0 if header else None,
        names=column_names,
        sep=field_delim,
        na_values=[na_value] if na_value else None,
        keep_default_na=False,
        dtype=str,
    )
    columns = {}
    for i, name in enumerate(df.columns):
        default = column_defaults[i] if column_defaults else None
        default = default[0] if isinstance(default, (list, tuple)) and default else default
        col = df[name]
        if isinstance(default, float):
            columns[name] = col.astype(float).fillna(default).to_numpy("float32")
        elif isinstance(default, int) and not isinstance(default, bool):
            columns[name] = col.astype(float).fillna(default).to_numpy("int32")
        else:
            fill = default if isinstance(default, str) else ""
            columns[name] = col.fillna(fill).to_numpy(str)
    if select_columns is not None:
        columns = {k: v for k, v in columns.items() if k in select_columns or k == label_name}
    n = len(df)
    order = np.random.RandomState(shuffle_seed or 0).permutation(n) if shuffle else np.arange(n)
    out = []
    for s in range(0, n, batch_size):
        idx = order[s : s + batch_size]
        feats = collections.OrderedDict((k, v[idx]) for k, v in columns.items() if k != label_name)
        out.append((feats, columns[label_name][idx]) if label_name else feats)
    return out


def install(py_dataset_base, program, keras_module=None):
    """Make `import tensorflow` (and `tensorflow.data`) in the file `program` give the
    stand-in. Only there: it stays out of `sys.modules`, where Keras 3 (which tries
    `import tensorflow` for its TensorFlow paths) and matplotlib (which asks
    `sys.modules["tensorflow"]` about every array it plots) would find it."""
    tf = build(py_dataset_base, keras_module)
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


class _Eager(np.ndarray):
    """An element a program iterates over answers `.numpy()`, as a TF eager tensor does."""

    def numpy(self):
        return np.asarray(self)


def _eager(x):
    return _map_structure(lambda a: np.asarray(a).view(_Eager), x)


def build(py_dataset_base, keras_module=None):
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
            return iter([_eager(e) for e in self._elements])

        @property
        def num_batches(self):
            return len(self._elements)

        # --- constructors
        @staticmethod
        def from_tensor_slices(data):
            # As tf.data: a list (not a tuple) of arrays of one shape is one tensor.
            data = _lists_as_arrays(data)
            first = data
            while isinstance(first, (dict, list, tuple)):
                first = next(iter(first.values())) if isinstance(first, dict) else first[0]
            n = len(first)
            arrays = _map_structure(_to_numpy, data)
            return Dataset([_map_structure(lambda a, i=i: a[i], arrays) for i in range(n)])

        @staticmethod
        def zip(datasets):
            parts = [d._elements if isinstance(d, Dataset) else list(d) for d in datasets]
            return Dataset(list(zip(*parts, strict=False)))

        @staticmethod
        def range(*args):
            return Dataset([np.int64(i) for i in range(*args)])

        # --- transformations
        def map(self, fn, num_parallel_calls=None, **kwargs):
            out = []
            for e in self._elements:
                e = _map_structure(_as_tensor, e)
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
    data.experimental = types.SimpleNamespace(
        AUTOTUNE=-1,
        make_csv_dataset=lambda *a, **k: Dataset(_make_csv_dataset(*a, **k), batched=True),
    )

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
    # Array functions that programs call in their `Dataset.map` functions or on inputs.
    tf.expand_dims = lambda x, axis, name=None: np.expand_dims(np.asarray(x), axis)
    tf.convert_to_tensor = _convert_to_tensor
    tf.shape = lambda x, out_type=None, name=None: np.asarray(np.shape(x), "int32")
    tf.float16, tf.float32, tf.float64 = np.float16, np.float32, np.float64
    tf.int32, tf.int64, tf.string = np.int32, np.int64, np.str_
    _rng = np.random.RandomState(1)
    tf.random = types.SimpleNamespace(
        uniform=lambda shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None: (
            _rng.uniform(minval, 1 if maxval is None else maxval, size=tuple(shape)).astype(dtype)
        )
    )
    # The few TensorFlow ops that programs call inside `Dataset.map` functions,
    # computed on NumPy (they run eagerly, element by element, as the maps do here).
    tf.uint8, tf.int32, tf.int64 = np.uint8, np.int32, np.int64
    tf.float16, tf.float32, tf.float64, tf.bool = np.float16, np.float32, np.float64, np.bool_
    tf.string = np.str_
    tf.cast = lambda x, dtype, name=None: np.asarray(x).astype(dtype)
    tf.expand_dims = lambda x, axis, name=None: np.expand_dims(np.asarray(x), axis)
    tf.zeros_like = lambda x, dtype=None, name=None: np.zeros_like(np.asarray(x), dtype=dtype)
    tf.equal = lambda x, y, name=None: np.equal(np.asarray(x), np.asarray(y))
    tf.math = types.SimpleNamespace(equal=tf.equal)
    if keras_module is not None:
        tf.keras = keras_module  # tf.keras.datasets.*.load_data: the runner's synthetic data
    return tf
