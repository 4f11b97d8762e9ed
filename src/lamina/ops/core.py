"""The op wrapper and the core ops: conversion, casting, control flow, slicing.

Every public op is written once: `_op(backend_fn)` gives a function that computes eagerly
on arrays and, when any argument is a KerasTensor, records a graph node whose output spec
comes from the engine's abstract evaluation. Variables are read through `.value`, so the
stateless scope of compiled execution sees them. Ops that only pass through to the
backend are built from the backend contract (`build_ops`, `declared_op`), which gives
them their signature and doc; the ops here that do more are written by hand.
"""

from __future__ import annotations

import functools

import numpy as np

from lamina import backend, tree
from lamina.backend import contract
from lamina.backend.common.dtypes import result_type  # noqa: F401 (public op)
from lamina.backend.common.variables import Variable
from lamina.common.data_utils import pandas_kind
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import FunctionOperation, any_symbolic, symbolic_call

# Argument types that an op passes to the engine as they are: neither symbolic nor a
# Variable to read nor a structure that could hold one. Learnt as ops see them.
_PLAIN_TYPES: set = {int, float, bool, complex, str, type(None)}
_NOT_PLAIN = (KerasTensor, Variable, list, tuple, dict)


# pandas DataFrames and Series: read as NumPy arrays (`np.asarray`), as Keras's
# `convert_to_tensor` reads them; JAX's functions refuse them as they are.
_PANDAS_TYPES: set = set()


def _learn(t, value) -> bool:
    """Whether `value`, of a type not seen before, passes as it is (learnt as plain)."""
    if issubclass(t, _NOT_PLAIN):
        return False
    if pandas_kind(value) is not None:
        _PANDAS_TYPES.add(t)
        return False
    _PLAIN_TYPES.add(t)
    return True


def _all_plain(values) -> bool:
    for v in values:
        t = type(v)
        if t not in _PLAIN_TYPES and not _learn(t, v):
            return False
    return True


_NOT_EAGER = object()


def _eager_args(args):
    """`args` with Variables read, if each is plain or a Variable; else `_NOT_EAGER`."""
    read = None
    for i, a in enumerate(args):
        t = type(a)
        if t in _PLAIN_TYPES:
            continue
        if isinstance(a, Variable):
            value = a.value
        elif t in _PANDAS_TYPES or not _learn(t, a):
            if t not in _PANDAS_TYPES:
                return _NOT_EAGER
            value = np.asarray(a)
        else:
            continue  # a type just learnt as plain
        if read is None:
            read = list(args)
        read[i] = value
    return args if read is None else read


def _read(x):
    t = type(x)
    if t in _PLAIN_TYPES:
        return x
    if isinstance(x, Variable):
        return x.value
    if isinstance(x, (list, tuple)) and any(isinstance(v, Variable) for v in x):
        return type(x)(v.value if isinstance(v, Variable) else v for v in x)
    if t in _PANDAS_TYPES or (not issubclass(t, _NOT_PLAIN) and not _learn(t, x)):
        return np.asarray(x)
    return x


def _op(fn, name: str | None = None, declaration=None, output_spec=None):
    """Make the public op for backend function `fn` (eager or symbolic by argument).

    With a contract `declaration`, the op takes its declared signature and its full
    documentation (written once, in `lamina.backend.declarations`). An
    `output_spec(*args, **kwargs)` gives the output KerasTensors of a symbolic call in
    place of the engine's abstract evaluation (or None to use it for these arguments):
    for an op whose output shape depends on the data, which abstract evaluation cannot
    know.
    """
    op_name = name or fn.__name__

    @functools.wraps(fn)
    def op(*args, **kwargs):
        # The common eager case (tensors, NumPy arrays, Python scalars, Variables as
        # direct arguments) goes straight on, without walking structures.
        if not kwargs or _all_plain(kwargs.values()):
            eager = _eager_args(args)
            if eager is not _NOT_EAGER:
                return fn(*eager, **kwargs)
        if any_symbolic(args, kwargs):
            if output_spec is not None:
                return _SpecifiedOperation(fn, op_name, output_spec).symbolic_call(*args, **kwargs)
            return symbolic_call(fn, op_name, args, kwargs)
        return fn(*[_read(a) for a in args], **{k: _read(v) for k, v in kwargs.items()})

    op.__module__ = "lamina.ops"
    if output_spec is not None:
        # Read when a graph is rebuilt from a config, to give the node the same specs.
        op.output_spec = output_spec
    if declaration is not None:
        op.__signature__ = declaration.signature
        op.__doc__ = declaration.full_doc
    return op


def build_ops(module: str, exclude=()) -> dict:
    """The pass-through ops of backend `module`, one per declared function, by name."""
    return {
        name: declared_op(module, name)
        for name, entry in contract.ENGINE[module].items()
        if entry.kind == "function" and name not in exclude
    }


class _SpecifiedOperation(FunctionOperation):
    """The graph node of an op whose output specs come from its own `output_spec`."""

    def __init__(self, fn, function_name: str, output_spec, name: str | None = None):
        super().__init__(fn, function_name, name=name)
        self._output_spec = output_spec

    def compute_output_spec(self, *args, **kwargs):
        specs = self._output_spec(*args, **kwargs)
        return super().compute_output_spec(*args, **kwargs) if specs is None else specs


def declared_op(module: str, name: str, output_spec=None):
    """The pass-through op of one declared backend function.

    `output_spec`, if given, computes its symbolic outputs (see `_op`).
    """
    op = _op(
        getattr(getattr(backend, module), name),
        declaration=contract.ENGINE[module][name],
        output_spec=output_spec,
    )
    if module == "image":
        op.__module__ = "lamina.ops.image"
    return op


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """Convert an array-like (or Variable) to a tensor of the current engine.

    NumPy arrays, Python scalars and (nested) lists become engine tensors; a Variable
    gives its value. Without `dtype`, Python floats and float64 NumPy arrays become
    `keras.config.floatx()` (usually float32) and Python ints int32, as in Keras.

    Args:
        x: Array-like: a NumPy array, Python scalar or list, engine tensor or Variable.
        dtype: The dtype to cast to (a string such as `"float32"`); None keeps the
            inferred one.
        sparse: Accepted for Keras compatibility: lamina's engines make dense tensors
            only, so `True` raises a `ValueError`.
        ragged: Accepted for Keras compatibility: `True` raises a `ValueError` (no
            ragged tensors).

    Returns:
        An engine tensor (a `jax.Array` or a `torch.Tensor`).

    Raises:
        ValueError: If `sparse` or `ragged` is true.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> x = ops.convert_to_tensor([1, 2, 3])
    >>> ops.is_tensor(x), ops.dtype(x)
    (True, 'int32')
    >>> ops.dtype(ops.convert_to_tensor([1, 2], dtype="float16"))
    'float16'
    """
    for flag, value in (("sparse", sparse), ("ragged", ragged)):
        if value:
            raise ValueError(
                f"convert_to_tensor({flag}=True): lamina's {backend.backend()} backend makes "
                f"dense tensors only; leave {flag} unset."
            )
    if isinstance(x, KerasTensor):
        # Symbolic code converts its inputs as eager code does (Keras 3 takes it too):
        # a symbolic tensor is already a tensor, so only the dtype can change.
        return x if dtype is None else cast(x, dtype)
    return backend.convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x):
    """Copy a tensor to a NumPy array.

    Works on engine tensors, Variables and array-likes (lists, scalars, NumPy arrays);
    a tensor on an accelerator is copied to host memory.

    Args:
        x: Tensor, Variable or array-like holding data (not a symbolic `keras.Input`).

    Returns:
        A `numpy.ndarray` with the values, shape and dtype of `x`.

    Raises:
        TypeError: If `x` is a symbolic tensor, which holds no data.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.convert_to_numpy(ops.ones((2,), dtype="int32"))
    >>> type(y).__name__, y.tolist()
    ('ndarray', [1, 1])
    """
    if isinstance(x, KerasTensor):
        raise TypeError(f"Cannot convert symbolic tensor {x.name!r} to NumPy: it holds no data.")
    return backend.convert_to_numpy(x)


def is_tensor(x) -> bool:
    """Whether `x` is a tensor of the current engine.

    NumPy arrays, Python values, symbolic `keras.Input` tensors and Variables are not
    engine tensors.

    Args:
        x: Any object.

    Returns:
        A Python bool.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.is_tensor(ops.ones((2,))), ops.is_tensor(np.ones((2,)))
    (True, False)
    """
    return backend.is_tensor(x)


def shape(x) -> tuple:
    """The shape of `x` as a tuple.

    Works on engine tensors, NumPy arrays, Variables and symbolic tensors; the unknown
    dimensions of a symbolic tensor (such as its batch size) are `None`.

    Args:
        x: Tensor, array-like, Variable or symbolic tensor.

    Returns:
        A tuple of ints (and `None` for unknown symbolic dimensions).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.shape(np.zeros((2, 3)))
    (2, 3)
    >>> import lamina
    >>> ops.shape(lamina.Input((4,)))
    (None, 4)
    """
    if isinstance(x, (KerasTensor, Variable)):
        return x.shape
    return backend.core.shape(x)


def dtype(x) -> str:
    """The dtype of `x` as a standard string such as `"float32"`.

    As in Keras, anything with a `dtype` (a tensor, a NumPy array or scalar) reports that
    dtype as it is: an int64 NumPy array is `"int64"`, though converting it to a tensor
    gives int32 (as it does in Keras). Python scalars and lists, which have no `dtype`,
    report the dtype `convert_to_tensor` would give them.

    Args:
        x: Tensor, array-like, Variable or symbolic tensor.

    Returns:
        The dtype name, a `str`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.dtype(ops.ones((2,), dtype="bfloat16"))
    'bfloat16'
    >>> ops.dtype(np.arange(3, dtype="int64")), ops.dtype(ops.convert_to_tensor(np.arange(3)))
    ('int64', 'int32')
    >>> ops.dtype([1.5, 2.5])
    'float32'
    """
    if isinstance(x, (KerasTensor, Variable)):
        return x.dtype
    own = getattr(x, "dtype", None)
    if own is not None:
        return backend.standardize_dtype(own)
    return backend.standardize_dtype(backend.convert_to_tensor(x).dtype)


def _tensor_dtype(x) -> str:
    """The dtype of `x` as an engine tensor: what an op written from other ops computes in.

    Unlike `dtype`, a NumPy array reports the dtype it converts to (int64: int32, float64:
    floatx), so that arrays made in that dtype exist on every engine.
    """
    if isinstance(x, (KerasTensor, Variable)):
        return x.dtype
    return backend.standardize_dtype(backend.convert_to_tensor(x).dtype)


cast = declared_op("core", "cast")
stop_gradient = declared_op("core", "stop_gradient")
slice = declared_op("core", "slice")
slice_update = declared_op("core", "slice_update")
unstack = declared_op("core", "unstack")
vectorized_map = declared_op("core", "vectorized_map")


def cond(pred, true_fn, false_fn):
    """Run `true_fn()` if `pred` is true, else `false_fn()`.

    Eagerly it is an `if`; inside a compiled function (or on a symbolic `pred`) it is
    one conditional whose two branches both trace, so both must return the same
    structure of shapes and dtypes.

    Args:
        pred: A boolean scalar (Python bool or scalar tensor).
        true_fn: Callable with no arguments, run when `pred` is true.
        false_fn: Callable with no arguments, run when `pred` is false.

    Returns:
        The result of the branch taken.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> y = ops.cond(np.array(False), lambda: ops.ones((2,)), lambda: ops.zeros((2,)))
    >>> ops.convert_to_numpy(y).tolist()
    [0.0, 0.0]
    """
    if isinstance(pred, KerasTensor):
        return symbolic_call(backend.core.cond, "cond", (pred, true_fn, false_fn), {})
    return backend.core.cond(_read(pred), true_fn, false_fn)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`, collecting the `y`s.

    The functional form of a loop with state: compiled as one loop (unrolled by
    `unroll`), so it traces `f` once. `carry` must keep its structure, shapes and dtypes
    from step to step.

    Args:
        f: Callable `f(carry, x) -> (new_carry, y)`.
        init: The initial carry (a tensor or nested structure of tensors).
        xs: Tensor or nested structure scanned along its leading axis; None to loop
            `length` times with `x = None`.
        length: The number of steps; needed when `xs` is None, otherwise it must match
            the leading axis of `xs`.
        reverse: Whether to scan from the last element to the first (the `ys` still
            come back in the order of `xs`) (default False).
        unroll: How many steps to unroll into each loop iteration (an int), or True to
            unroll fully (default 1).

    Returns:
        A tuple `(final_carry, ys)`, `ys` the stacked `y`s of every step.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> carry, ys = ops.scan(lambda c, x: (c + x, c), 0, np.array([1, 2, 3]))
    >>> int(ops.convert_to_numpy(carry)), ops.convert_to_numpy(ys).tolist()
    (6, [0, 1, 3])
    """
    if any_symbolic((init, xs)):
        return symbolic_call(
            backend.core.scan,
            "scan",
            (f, init, xs),
            dict(length=length, reverse=reverse, unroll=unroll),
        )
    return backend.core.scan(f, tree.map_structure(_read, init), xs, length, reverse, unroll)


def fori_loop(lower, upper, body_fun, init_val):
    """Run `val = body_fun(i, val)` for `i` from `lower` to `upper - 1`.

    The functional form of a `for` loop, compiled as one loop.

    Args:
        lower: The first loop index (an int or int scalar tensor).
        upper: One past the last loop index.
        body_fun: Callable `body_fun(i, val) -> new_val`, keeping the structure, shapes
            and dtypes of `val`.
        init_val: The initial value (a tensor or nested structure of tensors).

    Returns:
        The value after the last step (`init_val` when `upper <= lower`).

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> int(ops.convert_to_numpy(ops.fori_loop(0, 4, lambda i, total: total + i, 10)))
    16
    """
    if any_symbolic((init_val,)):
        return symbolic_call(
            backend.core.fori_loop, "fori_loop", (lower, upper, body_fun, init_val), {}
        )
    return backend.core.fori_loop(lower, upper, body_fun, tree.map_structure(_read, init_val))


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Run `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true.

    The functional form of a `while` loop, compiled as one loop. As in Keras, a tuple or
    list `loop_vars` is unpacked: `cond` and `body` get its items as separate positional
    arguments, `body` returns the new items as a tuple or list (a single value when
    there is one item), and the result is a tuple. Any other `loop_vars` (one tensor, a
    dict or other nested structure) is passed as one argument and returned as it is.
    Python scalars and NumPy arrays among the loop variables become engine tensors.

    Args:
        cond: Callable returning a boolean scalar from the loop variables.
        body: Callable returning the next loop variables, of the same structure, shapes
            and dtypes.
        loop_vars: The initial state: a tensor, a tuple or list of loop variables
            (unpacked into separate arguments), or another nested structure of tensors.
        maximum_iterations: The most times to run `body`; None for no limit. The loop
            stops when `cond` turns false or `body` has run this many times. As in
            Keras, `cond` is called before the count is checked, so a capped loop
            calls it once more than `body`.

    Returns:
        The loop variables when the loop stops: a tuple when `loop_vars` is a tuple or
        list, else the structure of `loop_vars`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> int(ops.convert_to_numpy(ops.while_loop(lambda v: v < 10, lambda v: v * 2, 1)))
    16
    >>> int(ops.convert_to_numpy(ops.while_loop(lambda v: v < 100, lambda v: v + 1, 0, 5)))
    5
    >>> i, total = ops.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    >>> int(ops.convert_to_numpy(i)), int(ops.convert_to_numpy(total))
    (4, 6)
    """
    unpack = isinstance(loop_vars, (tuple, list))
    if unpack:
        # The engines loop over one state value: give them the items as one tuple, and
        # cond/body the items as separate arguments (Keras's calling convention).
        loop_vars = tuple(loop_vars)
        user_cond, user_body = cond, body

        def cond(state):
            return user_cond(*state)

        def body(state):
            outputs = user_body(*state)
            outputs = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
            if len(outputs) != len(state):
                raise ValueError(
                    f"while_loop: `body` must return as many values as `loop_vars` has "
                    f"({len(state)}), as a tuple or list; it returned {len(outputs)}. "
                    f"Return one new value per loop variable."
                )
            return outputs

    if any_symbolic((loop_vars,)):
        return _WhileLoop(backend.core.while_loop, "while_loop").symbolic_call(
            cond, body, loop_vars, maximum_iterations=maximum_iterations
        )
    return backend.core.while_loop(
        cond, body, tree.map_structure(_to_loop_tensor, loop_vars), maximum_iterations
    )


def _to_loop_tensor(value):
    value = _read(value)
    return value if value is None else backend.convert_to_tensor(value)


class _WhileLoop(FunctionOperation):
    """The graph node of a symbolic `while_loop`.

    Its outputs have the specs of the loop variables (a loop keeps their shapes and
    dtypes), as in Keras: the loop is not run to find them, since on abstract values
    (torch's `meta` tensors) its condition never turns false.
    """

    def compute_output_spec(self, cond, body, loop_vars, maximum_iterations=None):
        def spec(value):
            if value is None:
                return None
            return KerasTensor(shape(value), dtype(value))

        return tree.map_structure(spec, loop_vars)


def composite(fn):
    """Make the public op for `fn`, written once from other ops (runs on every engine).

    The op keeps `fn`'s name, signature and doc; with a KerasTensor argument it becomes
    one graph node whose output spec comes from abstract evaluation of `fn`.
    """
    return _op(fn)


associative_scan = declared_op("core", "associative_scan")
jvp = declared_op("core", "jvp")
map = declared_op("core", "map")
scatter = declared_op("core", "scatter")
scatter_update = declared_op("core", "scatter_update")
switch = declared_op("core", "switch")


def custom_gradient(f):
    """Decorator giving a function its own gradient.

    The decorated `f(*args)` returns `(output, grad_fn)`. The new function returns
    `output`; when differentiated, `grad_fn(upstream)` (the gradient flowing back into
    `output`) gives the gradients of the arguments: one tensor for one argument, a
    tuple for several.

    Args:
        f: Function returning `(output, grad_fn)`.

    Returns:
        A function with the signature of `f` returning only `output`, whose gradient
        comes from `grad_fn`.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> @ops.custom_gradient
    ... def clip_gradient(x):
    ...     return x, lambda upstream: ops.clip(upstream, -1.0, 1.0)
    >>> float(ops.convert_to_numpy(clip_gradient(3.0)))
    3.0
    """
    op = _op(backend.core.custom_gradient(f), name=getattr(f, "__name__", "custom_gradient"))
    functools.update_wrapper(op, f)
    op.__module__ = getattr(f, "__module__", "lamina.ops")
    return op


def _dtype_range(dtype: str):
    if dtype == "bool":
        return None
    if dtype == "bfloat16":
        return -3.3895313892515355e38, 3.3895313892515355e38
    info = np.iinfo(dtype) if "int" in dtype else np.finfo(dtype)
    return info.min, info.max


def saturate_cast(x, dtype):
    """Cast `x` to `dtype`, first clipping its values to the range `dtype` can hold.

    A plain `cast` of an out-of-range value wraps around (or is undefined);
    `saturate_cast` gives the nearest value `dtype` holds instead, e.g. for turning
    float images into `uint8`.

    Args:
        x: Tensor or array-like.
        dtype: The target dtype (a string such as `"uint8"`).

    Returns:
        A tensor of `dtype` with the values of `x` clipped to its range.

    Example:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.saturate_cast(np.array([-1.0, 20.5, 300.0]), "uint8")).tolist()
    [0, 20, 255]
    """
    return _saturate_cast_op(x, dtype)


def _bound_in(value, source: str, toward: float):
    """`value` as a number of dtype `source`, moved inside the range if rounding left it."""
    if "float" not in source or source == "bfloat16":
        return value
    held = np.asarray(value, source)
    # Compared as Python numbers, which compare ints and floats exactly.
    if (toward < 0 and held.item() > value) or (toward > 0 and held.item() < value):
        held = np.nextafter(held, np.asarray(toward, source))
    return held.item()


def _saturate_cast(x, dtype):
    dtype = backend.standardize_dtype(dtype)
    x = backend.convert_to_tensor(x)
    bounds, source = _dtype_range(dtype), backend.standardize_dtype(x.dtype)
    source_bounds = _dtype_range(source)
    if bounds is not None and source_bounds is not None:
        # Clip only as far as the target is narrower, with bounds the source holds.
        low = _bound_in(max(bounds[0], source_bounds[0]), source, np.inf)
        high = _bound_in(min(bounds[1], source_bounds[1]), source, -np.inf)
        x = backend.numpy.clip(x, low, high)
    return backend.core.cast(x, dtype)


_saturate_cast_op = _op(_saturate_cast, name="saturate_cast")
