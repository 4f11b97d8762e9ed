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
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import any_symbolic, symbolic_call
from lamina.ops import docs as op_docs

# Argument types that an op passes to the engine as they are: neither symbolic nor a
# Variable to read nor a structure that could hold one. Learnt as ops see them.
_PLAIN_TYPES: set = {int, float, bool, complex, str, type(None)}
_NOT_PLAIN = (KerasTensor, Variable, list, tuple, dict)


def _all_plain(values) -> bool:
    for v in values:
        t = type(v)
        if t not in _PLAIN_TYPES:
            if issubclass(t, _NOT_PLAIN):
                return False
            _PLAIN_TYPES.add(t)
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
            if read is None:
                read = list(args)
            read[i] = a.value
        elif issubclass(t, _NOT_PLAIN):
            return _NOT_EAGER
        else:
            _PLAIN_TYPES.add(t)
    return args if read is None else read


def _read(x):
    if isinstance(x, Variable):
        return x.value
    if isinstance(x, (list, tuple)) and any(isinstance(v, Variable) for v in x):
        return type(x)(v.value if isinstance(v, Variable) else v for v in x)
    return x


def _op(fn, name: str | None = None, declaration=None):
    """Make the public op for backend function `fn` (eager or symbolic by argument).

    With a contract `declaration`, the op takes its declared signature and doc.
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
            return symbolic_call(fn, op_name, args, kwargs)
        return fn(*[_read(a) for a in args], **{k: _read(v) for k, v in kwargs.items()})

    op.__module__ = "lamina.ops"
    if declaration is not None:
        op.__signature__ = declaration.signature
        op.__doc__ = declaration.doc
    return op


def build_ops(module: str, exclude=()) -> dict:
    """The pass-through ops of backend `module`, one per declared function, by name."""
    return {
        name: declared_op(module, name)
        for name, entry in contract.ENGINE[module].items()
        if entry.kind == "function" and name not in exclude
    }


def declared_op(module: str, name: str):
    """The pass-through op of one declared backend function."""
    op = _op(getattr(getattr(backend, module), name), declaration=contract.ENGINE[module][name])
    op.__doc__ = op_docs.lookup(module, name) or op.__doc__
    if module == "image":
        op.__module__ = "lamina.ops.image"
    return op


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """Convert an array-like (or Variable) to an engine tensor, optionally cast to `dtype`.

    `sparse` and `ragged` are Keras's; lamina's engines make dense tensors only, so
    `True` is refused.
    """
    for flag, value in (("sparse", sparse), ("ragged", ragged)):
        if value:
            raise ValueError(
                f"convert_to_tensor({flag}=True): lamina's {backend.backend()} backend makes "
                f"dense tensors only; leave {flag} unset."
            )
    return backend.convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x):
    """Copy a tensor to a NumPy array."""
    if isinstance(x, KerasTensor):
        raise TypeError(f"Cannot convert symbolic tensor {x.name!r} to NumPy: it holds no data.")
    return backend.convert_to_numpy(x)


def is_tensor(x) -> bool:
    """Whether `x` is an engine tensor (KerasTensors and Variables are not)."""
    return backend.is_tensor(x)


def shape(x) -> tuple:
    """The shape of `x` as a tuple (unknown symbolic dims are `None`)."""
    if isinstance(x, (KerasTensor, Variable)):
        return x.shape
    return backend.core.shape(x)


def dtype(x) -> str:
    """The dtype of `x` as a string such as `"float32"`."""
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
    """`true_fn()` if `pred` else `false_fn()`, traced as one conditional when compiled."""
    if isinstance(pred, KerasTensor):
        return symbolic_call(backend.core.cond, "cond", (pred, true_fn, false_fn), {})
    return backend.core.cond(_read(pred), true_fn, false_fn)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, ys)`."""
    if any_symbolic((init, xs)):
        return symbolic_call(
            backend.core.scan,
            "scan",
            (f, init, xs),
            dict(length=length, reverse=reverse, unroll=unroll),
        )
    return backend.core.scan(f, tree.map_structure(_read, init), xs, length, reverse, unroll)


def fori_loop(lower, upper, body_fun, init_val):
    """`for i in range(lower, upper): val = body_fun(i, val)` as one compiled loop."""
    if any_symbolic((init_val,)):
        return symbolic_call(
            backend.core.fori_loop, "fori_loop", (lower, upper, body_fun, init_val), {}
        )
    return backend.core.fori_loop(lower, upper, body_fun, tree.map_structure(_read, init_val))


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """`while cond(vars): vars = body(vars)` as one compiled loop."""
    if any_symbolic((loop_vars,)):
        return symbolic_call(
            backend.core.while_loop,
            "while_loop",
            (cond, body, loop_vars),
            dict(maximum_iterations=maximum_iterations),
        )
    return backend.core.while_loop(
        cond, body, tree.map_structure(_read, loop_vars), maximum_iterations
    )


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
    """Decorator: a function with the value of `f(*args)[0]` and the gradient `f` gives.

    `f(*args)` returns `(output, grad_fn)`; `grad_fn(upstream)` (the gradient flowing
    back into `output`) returns the gradients of `args`, one per argument (a tuple when
    there are several).

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
    """`x` cast to `dtype` with values first clipped to the range `dtype` can hold.

    A plain `cast` of out-of-range values wraps around or is undefined; this one does not:

    >>> import numpy as np
    >>> from lamina import ops
    >>> ops.convert_to_numpy(ops.saturate_cast(np.array([-1.0, 300.0]), "uint8")).tolist()
    [0, 255]
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
