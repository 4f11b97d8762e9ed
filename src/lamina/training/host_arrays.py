"""Training data that is not a NumPy array, read as Keras 3 reads it: pandas DataFrames
and Series, and SciPy sparse matrices.

Neither library is imported: their objects are recognised by their classes' modules.

- A DataFrame is its values (`to_numpy()`), a Series one column `(n, 1)`. Columns NumPy
  can only hold as Python objects are refused by name.
- A SciPy sparse matrix (a TF-IDF or one-hot matrix from scikit-learn, say) stays sparse
  on the host: `fit`, `evaluate` and `predict` take its rows a batch at a time and
  densify only that batch (`SparseRows`), so a matrix whose dense form would not fit in
  memory trains as Keras 3 trains it. The batches the model sees are dense: the numbers
  are those of the dense matrix.
"""

from __future__ import annotations

import numpy as np

from lamina import backend
from lamina.common.data_utils import pandas_kind
from lamina.layers.layer import is_text_array as is_text


def from_pandas(x, kind: str, role: str) -> np.ndarray:
    """A DataFrame's values (`to_numpy()`), a Series as one column `(n, 1)`: Keras 3's
    reading. Columns NumPy cannot hold as numbers or text (missing values of a nullable
    dtype, dates, categories) are refused by name."""
    arr = x.to_numpy()
    if kind == "Series":
        arr = arr[:, None]
    if arr.dtype != object or is_text(arr):
        return arr
    columns = [(x.name, x.dtype)] if kind == "Series" else list(x.dtypes.items())
    bad = [
        f"{name!r} (dtype {dtype})"
        for name, dtype in columns
        if not (isinstance(dtype, np.dtype) and dtype.kind in "biuf")
    ]
    raise TypeError(
        f"{role} is a pandas {kind} whose column(s) {', '.join(bad) or '?'} do not convert "
        "to numbers (NumPy reads them as Python objects). Convert them first: fill or drop "
        "missing values and cast (`df.astype('float32')`), turn dates into numbers, or "
        "encode categories (e.g. `df[col].cat.codes`, or a StringLookup layer in the model)."
    )


def is_scipy_sparse(x) -> bool:
    return (type(x).__module__ or "").startswith("scipy.sparse") and hasattr(x, "tocsr")


class SparseRows:
    """A SciPy sparse matrix as data: indexing rows (`rows[idx]`, what the batching
    does) gives them dense; `take_rows(idx)` keeps them sparse (a validation split).
    Floats are float32 and (on JAX) int64 int32, as for NumPy data."""

    def __init__(self, matrix):
        if len(matrix.shape) != 2:
            raise ValueError(
                f"A sparse matrix of shape {matrix.shape} was passed as data; lamina takes "
                "2-D sparse matrices (one row per sample)."
            )
        matrix = matrix.tocsr()
        if matrix.dtype == np.float64:
            matrix = matrix.astype(np.float32)
        elif matrix.dtype == np.int64 and not backend.execution.KEEPS_INT64_DATA:
            matrix = matrix.astype(np.int32)
        self.matrix = matrix
        self.shape = matrix.shape
        self.dtype = matrix.dtype
        self.ndim = 2

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        # The dense size: what a copy of the whole set on the device would take.
        return self.shape[0] * self.shape[1] * self.dtype.itemsize

    def __getitem__(self, rows) -> np.ndarray:
        return self.matrix[rows].toarray()

    def take_rows(self, rows) -> SparseRows:
        return SparseRows(self.matrix[rows])

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        dense = self.matrix.toarray()
        return dense if dtype is None else dense.astype(dtype)

    def non_finite(self):
        """`(count, (row, column), value)` of the non-finite stored values, or None."""
        data = self.matrix.data
        bad = np.flatnonzero(~np.isfinite(data)) if data.dtype.kind in "fc" else ()
        if len(bad) == 0:
            return None
        first = int(bad[0])
        row = int(np.searchsorted(self.matrix.indptr, first, side="right") - 1)
        return len(bad), (row, int(self.matrix.indices[first])), data[first]


def host_value(x, role: str, sparse_rows: bool):
    """`x` as the data adapter keeps it: a NumPy array, or a `SparseRows` for a SciPy
    sparse matrix when `sparse_rows` (else its dense array)."""
    if type(x) is np.ndarray:
        return x
    kind = pandas_kind(x)
    if kind is not None:
        return from_pandas(x, kind, role)
    if is_scipy_sparse(x) or isinstance(x, SparseRows):
        rows = x if isinstance(x, SparseRows) else SparseRows(x)
        return rows if sparse_rows else np.asarray(rows)
    return np.asarray(x)
