"""KerasTensor: a symbolic tensor that remembers which call made it."""

from __future__ import annotations

import collections

from lamina.backend.common.global_state import unique_name
from lamina.backend.common.variables import standardize_dtype

KerasHistory = collections.namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])
KerasHistory.__doc__ = """Where a KerasTensor came from: `operation._inbound_nodes[node_index]`
made it, as output number `tensor_index` of that call."""


class KerasTensor:
    """A symbolic tensor: a shape (with `None` for unknown dims), a dtype and a history.

    KerasTensors hold no data. Calling a layer or an op on them records a `Node` and
    returns new KerasTensors whose `_keras_history` points at that node.

    >>> import lamina
    >>> x = lamina.Input(shape=(3,), name="x")
    >>> x.shape, x.dtype
    ((None, 3), 'float32')
    >>> layer, node_index, tensor_index = x._keras_history
    >>> (layer.name, node_index, tensor_index)
    ('x', 0, 0)
    """

    # Keras's flag: a tensor made with `record_history=False` is not wired into graphs
    # (a call on it records no history on its outputs).
    record_history = True

    def __init__(
        self,
        shape,
        dtype="float32",
        name=None,
        sparse=False,
        ragged=False,
        record_history=True,
        **kwargs,
    ):
        # Keras reads these two from its keyword arguments; they describe a ragged tensor.
        ragged_rank = kwargs.pop("ragged_rank", None)
        row_splits_dtype = kwargs.pop("row_splits_dtype", None)
        if kwargs:
            raise TypeError(f"KerasTensor got unexpected keyword argument(s) {sorted(kwargs)}.")
        if ragged:
            raise ValueError(
                "KerasTensor received ragged=True: ragged tensors are TensorFlow's "
                "(`tf.RaggedTensor`), and lamina runs on JAX and PyTorch, which have none. "
                "Pad the sequences to one length (`lamina.utils.pad_sequences`) and pass a "
                "mask, or use `sparse=True`."
            )
        del ragged_rank, row_splits_dtype  # only meaningful with ragged=True
        self.record_history = bool(record_history)
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = standardize_dtype(dtype)
        self.name = name or unique_name("keras_tensor")
        self.sparse = sparse
        self._keras_history: KerasHistory | None = None
        self._keras_mask: KerasTensor | None = None

    @property
    def ragged(self) -> bool:
        """Always False: lamina's engines have no ragged tensors (see `__init__`)."""
        return False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, name={self.name}>"

    def __len__(self):
        raise TypeError(
            "A symbolic tensor has no length; use `tensor.shape[0]` (which may be None)."
        )

    def __bool__(self):
        raise TypeError(
            f"A symbolic tensor ({self.name}) cannot be used as a Python bool; "
            "use `ops.cond` or `ops.where` for data-dependent choices."
        )

    def __iter__(self):
        raise TypeError(f"A symbolic tensor ({self.name}) is not iterable.")

    def __array__(self, *args, **kwargs):
        raise TypeError(
            f"A symbolic tensor ({self.name}) holds no data and cannot become a NumPy "
            "array. Build a Model from it and call the model on arrays instead."
        )

    # Each operator records a graph node, exactly like the matching `lamina.ops` call.
    def _op(self, name, *args):
        from lamina.backend import numpy as bnp
        from lamina.graph.operation import symbolic_call

        return symbolic_call(getattr(bnp, name), name, args, {})

    def __add__(self, o):
        return self._op("add", self, o)

    def __radd__(self, o):
        return self._op("add", o, self)

    def __sub__(self, o):
        return self._op("subtract", self, o)

    def __rsub__(self, o):
        return self._op("subtract", o, self)

    def __mul__(self, o):
        return self._op("multiply", self, o)

    def __rmul__(self, o):
        return self._op("multiply", o, self)

    def __truediv__(self, o):
        return self._op("divide", self, o)

    def __rtruediv__(self, o):
        return self._op("divide", o, self)

    def __floordiv__(self, o):
        return self._op("floor_divide", self, o)

    def __rfloordiv__(self, o):
        return self._op("floor_divide", o, self)

    def __mod__(self, o):
        return self._op("mod", self, o)

    def __rmod__(self, o):
        return self._op("mod", o, self)

    def __pow__(self, o):
        return self._op("power", self, o)

    def __rpow__(self, o):
        return self._op("power", o, self)

    def __matmul__(self, o):
        return self._op("matmul", self, o)

    def __rmatmul__(self, o):
        return self._op("matmul", o, self)

    def __neg__(self):
        return self._op("negative", self)

    def __abs__(self):
        return self._op("abs", self)

    def __lt__(self, o):
        return self._op("less", self, o)

    def __le__(self, o):
        return self._op("less_equal", self, o)

    def __gt__(self, o):
        return self._op("greater", self, o)

    def __ge__(self, o):
        return self._op("greater_equal", self, o)

    def __eq__(self, o):  # noqa: D105 - element-wise, as for arrays
        return self._op("equal", self, o)

    def __ne__(self, o):
        return self._op("not_equal", self, o)

    def __and__(self, o):
        return self._op("logical_and", self, o)

    def __or__(self, o):
        return self._op("logical_or", self, o)

    def __invert__(self):
        return self._op("logical_not", self)

    def __getitem__(self, key):
        return self._op("get_item", self, key)

    __hash__ = object.__hash__


def is_keras_tensor(x) -> bool:
    """Whether `x` is a symbolic tensor (a `KerasTensor` of a functional graph).

    >>> import numpy as np
    >>> from lamina import Input
    >>> from lamina.utils import is_keras_tensor
    >>> is_keras_tensor(Input((3,))), is_keras_tensor(np.ones(3))
    (True, False)
    """
    return isinstance(x, KerasTensor)
