"""NumPy-style ops: elementwise math, products, reductions and shapes.

Built from the backend contract (`lamina.backend.contract.NUMPY`): one op per declared
function, with its declared signature and documentation; eager on arrays, a graph node on
KerasTensors. The long tail written once from those ops lives in one module per family
(`numpy_aliases`, `numpy_creation`, `numpy_elementwise`, `numpy_logic`, `numpy_nan`,
`numpy_products`, `numpy_reductions`, `numpy_shapes`); every name is found here.

>>> import numpy as np
>>> from lamina import ops
>>> ops.convert_to_numpy(ops.mean(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)).tolist()
[2.0, 3.0]
"""

from lamina.backend.common.dtypes import result_type
from lamina.graph.keras_tensor import KerasTensor
from lamina.ops.core import _tensor_dtype as dtype
from lamina.ops.core import build_ops, convert_to_tensor, declared_op

_OPS = build_ops("numpy", exclude=("vectorize",))


# Ops whose output length depends on the data: symbolically that length is unknown
# (None), as in Keras, rather than what abstract evaluation on stand-in values gives.
def _nonzero_spec(x):
    return tuple(KerasTensor((None,), "int32") for _ in x.shape)


def _where_spec(condition, x1=None, x2=None):
    if x1 is None and x2 is None:  # the indices of the true elements, as `nonzero`
        return _nonzero_spec(condition)
    return None  # elementwise: the engine's abstract evaluation


def _unique_spec(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    shape = tuple(x.shape)
    if axis is None:
        values_shape, inverse_shape = (size,), shape
    else:
        axis = axis % len(shape)
        values_shape = shape[:axis] + (size,) + shape[axis + 1 :]
        inverse_shape = (shape[axis],)
    outputs = [KerasTensor(values_shape, x.dtype)]
    if return_index:
        outputs.append(KerasTensor((size,), "int32"))
    if return_inverse:
        outputs.append(KerasTensor(inverse_shape, "int32"))
    if return_counts:
        outputs.append(KerasTensor((size,), "int32"))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _bincount_spec(x, weights=None, minlength=0, sparse=False):
    # Either argument may be the symbolic one; the other is converted as the op would.
    x = x if isinstance(x, KerasTensor) else convert_to_tensor(x)
    out_dtype = "int32"
    if weights is not None:
        weights = weights if isinstance(weights, KerasTensor) else convert_to_tensor(weights)
        out_dtype = result_type(dtype(x), dtype(weights))
    return KerasTensor(tuple(x.shape[:-1]) + (None,), out_dtype)


_OPS.update(
    nonzero=declared_op("numpy", "nonzero", output_spec=_nonzero_spec),
    unique=declared_op("numpy", "unique", output_spec=_unique_spec),
    bincount=declared_op("numpy", "bincount", output_spec=_bincount_spec),
    where=declared_op("numpy", "where", output_spec=_where_spec),
)
globals().update(_OPS)

__all__ = list(_OPS)

slogdet = declared_op("linalg", "slogdet")
__all__.append("slogdet")

# The long tail NumPy and Keras 3 have, written once from the ops above, one module per
# family (after the contract ops: they are built from them).
from lamina.ops.numpy_aliases import *  # noqa: E402, F403
from lamina.ops.numpy_aliases import __all__ as _aliases_all  # noqa: E402
from lamina.ops.numpy_creation import *  # noqa: E402, F403
from lamina.ops.numpy_creation import __all__ as _creation_all  # noqa: E402
from lamina.ops.numpy_elementwise import *  # noqa: E402, F403
from lamina.ops.numpy_elementwise import __all__ as _elementwise_all  # noqa: E402
from lamina.ops.numpy_logic import *  # noqa: E402, F403
from lamina.ops.numpy_logic import __all__ as _logic_all  # noqa: E402
from lamina.ops.numpy_nan import *  # noqa: E402, F403
from lamina.ops.numpy_nan import __all__ as _nan_all  # noqa: E402
from lamina.ops.numpy_products import *  # noqa: E402, F403
from lamina.ops.numpy_products import __all__ as _products_all  # noqa: E402
from lamina.ops.numpy_reductions import *  # noqa: E402, F403
from lamina.ops.numpy_reductions import __all__ as _reductions_all  # noqa: E402
from lamina.ops.numpy_shapes import *  # noqa: E402, F403
from lamina.ops.numpy_shapes import __all__ as _shapes_all  # noqa: E402

__all__ += [
    *_aliases_all,
    *_creation_all,
    *_elementwise_all,
    *_logic_all,
    *_nan_all,
    *_products_all,
    *_reductions_all,
    *_shapes_all,
]
