"""Core PyTorch backend functions: dtypes, devices, variables, conversion, slicing.

Conversion follows the JAX engine's rules so that one test suite passes on both: Python
floats and float64 NumPy data become `floatx()`, Python ints and int64 NumPy data become
int32 (the JAX engine runs without 64-bit types), torch tensors pass through unchanged.
The batches a step receives are the exception: `convert_data` keeps int64 data, as Keras
3 on torch does.

Control flow (`scan`, `fori_loop`, `while_loop`, `cond`, `vectorized_map`, in
`core_control_flow.py`) runs as eager Python loops with `jax.lax` semantics;
differentiation is in `core_gradients.py`; both are re-exported here, the engine's `core`
contract module. `jit` returns its function unchanged. Abstract
evaluation (`compute_output_spec`) runs on the `meta` device, where tensors have shapes
and dtypes but no data: while it runs, `convert_to_tensor` moves real tensors (variable
values, constants) to `meta` so that they mix with the symbolic inputs.
"""

from __future__ import annotations

import builtins

import numpy as np
import torch
from torch._subclasses.fake_tensor import is_fake

from lamina import tree as nest
from lamina.backend.common import devices as _devices
from lamina.backend.common.variables import StatelessScope, relaxed, standardize_dtype
from lamina.backend.common.variables import (
    Variable as _BaseVariable,
)

SUPPORTS_SPARSE_TENSORS = False

# Dtypes -------------------------------------------------------------------------------
TORCH_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "uint16": torch.uint16,
    "uint32": torch.uint32,
    "uint64": torch.uint64,
    "bool": torch.bool,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}
# Storage-only dtypes torch casts to and from (float8 quantization rounds through them),
# outside the table the engine's type promotion reads.
_CAST_ONLY_DTYPES = {
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
}
_NAMES = {v: k for k, v in {**TORCH_DTYPES, **_CAST_ONLY_DTYPES}.items()}


def to_torch_dtype(dtype) -> torch.dtype:
    """The `torch.dtype` for a dtype name, NumPy dtype or torch dtype."""
    if isinstance(dtype, torch.dtype):
        return dtype
    found = (
        TORCH_DTYPES.get(dtype) or _CAST_ONLY_DTYPES.get(dtype) if isinstance(dtype, str) else None
    )
    if found is not None:  # the common case, a canonical name: no normalising
        return found
    name = standardize_dtype(dtype)
    try:
        return TORCH_DTYPES.get(name) or _CAST_ONLY_DTYPES[name]
    except KeyError:
        raise ValueError(
            f"dtype {dtype!r} has no PyTorch equivalent; expected one of {sorted(TORCH_DTYPES)}."
        ) from None


def dtype_name(dtype: torch.dtype) -> str:
    """The NumPy-style name (`"float32"`) of a torch dtype."""
    return _NAMES[dtype]


# Devices ------------------------------------------------------------------------------
# With an index, so that it compares equal to the device of the tensors made on it.
_DEFAULT_DEVICE = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")

# True while `compute_output_spec` evaluates on the meta device (see the module doc).
_meta = [False]


# The device `device_scope` chose, while one is open (None: `_DEFAULT_DEVICE`).
_placed: list = [None]


def _home_device() -> torch.device:
    """Where real tensors and variables are made: the open `device_scope`'s device, or
    the default one."""
    return _placed[0] or _DEFAULT_DEVICE


def get_device() -> torch.device:
    """The device new tensors are created on (`meta` during abstract evaluation)."""
    return _META_DEVICE if _meta[0] else (_placed[0] or _DEFAULT_DEVICE)


_META_DEVICE = torch.device("meta")


def device_scope(device_name):
    """A context placing the tensors made inside it on `device_name` (`"cpu"`, `"gpu:0"`,
    `"cuda:0"`, or a `torch.device`): conversions, creation ops and new variables."""
    if isinstance(device_name, torch.device):
        return _DeviceScope(device_name)
    kind, index = _devices.parse_device_name(device_name)
    count = {"cpu": 1, "gpu": torch.cuda.device_count()}.get(kind, 0)
    if index >= count:
        available = ["cpu:0"] + [f"gpu:{i}" for i in range(torch.cuda.device_count())]
        raise _devices.unavailable(device_name, available)
    return _DeviceScope(torch.device("cuda", index) if kind == "gpu" else torch.device("cpu"))


class _DeviceScope:
    def __init__(self, device: torch.device):
        self.device = device

    def __enter__(self) -> torch.device:
        self._outer = _placed[0]
        _placed[0] = self.device
        self._context = torch.device(self.device)
        self._context.__enter__()
        return self.device

    def __exit__(self, *exc) -> bool:
        self._context.__exit__(*exc)
        _placed[0] = self._outer
        return False


class _RealDevice:
    """Leave abstract evaluation for a block that must compute real data (initial values)."""

    def __enter__(self):
        self._saved = _meta[0]
        _meta[0] = False
        self._device = torch.device(_home_device())
        self._device.__enter__()
        return self

    def __exit__(self, *exc):
        self._device.__exit__(*exc)
        _meta[0] = self._saved
        return False


# Variables ----------------------------------------------------------------------------
def _variable_values(args):
    if isinstance(args, Variable):
        return args.value
    if type(args) in (list, tuple):
        return type(args)(_variable_values(a) for a in args)
    if type(args) is dict:
        return {k: _variable_values(v) for k, v in args.items()}
    return args


def _match_grad_strides(param) -> None:
    # Autograd keeps the gradient a backward pass computed when its strides agree with
    # the parameter's along every axis longer than 1: its layout contract skips size-1
    # axes. A convolution on channels-last images returns its kernel's gradient in
    # `channels_last` strides, which for a kernel with one input channel or a 1x1 window
    # agree with the kernel's layout (`_store_for`) along all but those axes; but
    # DistributedDataParallel compares every stride with its bucket view's (the
    # parameter's) and warns. Along a size-1 axis a stride addresses nothing: restride
    # the gradient, a view.
    grad = param.grad
    if grad is None or grad.layout != torch.strided or grad.stride() == param.stride():
        return
    sizes, strides = param.shape, param.stride()
    if all(a == b for n, a, b in zip(sizes, grad.stride(), strides, strict=True) if n != 1):
        param.grad = grad.as_strided(sizes, strides, grad.storage_offset())


def _new_param(value: torch.Tensor, requires_grad: bool) -> torch.nn.Parameter:
    """A parameter holding `value`; one with a size-1 axis restrides its `.grad` after
    each backward pass (`_match_grad_strides`). The hook is registered once, here: it
    stays through `requires_grad` changes (freezing, `trainable`)."""
    if not (value.dtype.is_floating_point or value.dtype.is_complex) or 1 not in value.shape:
        return torch.nn.Parameter(value, requires_grad=requires_grad)
    param = torch.nn.Parameter(value, requires_grad=True)
    param.register_post_accumulate_grad_hook(_match_grad_strides)
    return param.requires_grad_(requires_grad)


class Variable(_BaseVariable):
    __doc__ = _BaseVariable.__doc__

    def _convert(self, value, dtype):
        if isinstance(value, torch.Tensor):
            if value.dtype is not TORCH_DTYPES[dtype]:
                value = value.to(TORCH_DTYPES[dtype])
            home = _home_device()
            if value.device != home and not value.is_meta:
                value = value.to(home)
            return value
        with _RealDevice():
            return convert_to_tensor(value, dtype)

    def _eager_context(self):
        return _RealDevice()

    # Storage: one `torch.nn.Parameter` for the variable's life, so that a layer's
    # `parameters()`, a torch optimizer holding them and `.to(device)` stay valid.
    # Trainable float variables require grad (a stateful train step differentiates
    # the loss with respect to them); every write copies into the parameter in place.
    @property
    def _value(self):
        return self.__dict__["_param"]

    @_value.setter
    def _value(self, value):
        param = self.__dict__.get("_param")
        if param is None or value.shape != param.shape or value.is_meta or param.is_meta:
            # A copy: the variable must not share storage with the caller's tensor.
            self.__dict__["_param"] = _new_param(
                value.detach().clone(), self._wants_grad(value.dtype)
            )
        elif value is not param:
            with torch.no_grad():
                param.copy_(value)

    def _add_in_place(self, delta, sign) -> bool:
        # Counters and metric totals: one in-place kernel instead of an add and a copy.
        param = self.__dict__.get("_param")
        if param is None or param.is_meta:
            return False
        if not isinstance(delta, torch.Tensor):
            if param.dtype == torch.bool or (
                isinstance(delta, float) and not (param.is_floating_point() or param.is_complex())
            ):
                return False  # the general path converts the number to the dtype first
            delta, sign = delta * sign, 1
        elif delta.is_meta or delta.device != param.device:
            return False
        if torch.is_grad_enabled():  # (a train step updates its trackers with it off)
            with torch.no_grad():
                param.add_(delta, alpha=sign)
        else:
            param.add_(delta, alpha=sign)
        return True

    def _store_for(self, use: str) -> None:
        # The layout torch's own modules hold: `nn.Linear`'s weight is `(out, in)`
        # row-major, which is a `(in, out)` kernel column-major, so that `x @ kernel` and
        # its gradients run the GEMM forms `linear` runs (on CPU 10% faster for a
        # 512x512 kernel, 60% for a 512x10 one, than on a row-major kernel); `nn.Conv2d`'s
        # is `(out, in, *spatial)`, so that the convolution reads the kernel's permuted
        # view without copying it.
        param = self.__dict__.get("_param")
        if param is None or param.is_meta or not param.is_contiguous() or param.ndim < 2:
            return
        n = param.ndim
        if use == "matmul" and n == 2 and min(param.shape) > 1:
            order = (1, 0)
        elif use == "conv" and n >= 3:
            order = (n - 1, n - 2, *range(n - 2))
        else:
            return
        with torch.no_grad():
            laid_out = param.detach().permute(*order).contiguous()
            laid_out = laid_out.permute(*(order.index(axis) for axis in range(n)))
        self.__dict__["_param"] = _new_param(laid_out, param.requires_grad)

    def _store_like(self, reference) -> None:
        param = self.__dict__.get("_param")
        other = getattr(reference, "__dict__", {}).get("_param")
        if (
            param is None
            or other is None
            or param.is_meta
            or param.shape != other.shape
            or param.stride() == other.stride()
            or other.is_contiguous()
        ):
            return
        with torch.no_grad():
            laid_out = torch.empty_strided(
                param.shape, other.stride(), dtype=param.dtype, device=param.device
            ).copy_(param)
        self.__dict__["_param"] = _new_param(laid_out, param.requires_grad)

    def _wants_grad(self, dtype) -> bool:
        return (
            bool(self.__dict__.get("_trainable", True))
            and not self.__dict__.get("_layer_frozen", False)
            and (dtype.is_floating_point or dtype.is_complex)
        )

    def _set_layer_frozen(self, frozen: bool) -> None:
        """A layer holding this variable was frozen (`layer.trainable = False`) or thawed:
        its tensor stops (or again starts) requiring grad, as on Keras's torch engine,
        where freezing a layer makes its variables non-trainable."""
        self.__dict__["_layer_frozen"] = frozen
        param = self.__dict__.get("_param")
        if param is not None:
            param.requires_grad_(self._wants_grad(param.dtype))

    @property
    def trainable(self) -> bool:
        return self.__dict__.get("_trainable", True)

    @trainable.setter
    def trainable(self, value) -> None:
        self.__dict__["_trainable"] = bool(value)
        param = self.__dict__.get("_param")
        if param is not None:
            param.requires_grad_(self._wants_grad(param.dtype))

    @property
    def value(self):
        value = _BaseVariable.value.fget(self)
        if _meta[0] and isinstance(value, torch.Tensor) and not value.is_meta:
            # Abstract evaluation: the value joins the meta tensors it meets (torch
            # refuses `meta + cpu`), whatever code reads it.
            return value.to(_META_DEVICE)
        return value

    # A torch function given a variable computes with its value, nested lists of
    # arguments included: `torch.matmul(x, self.kernel)` and `torch.cat([self.a, self.b])`
    # in a layer's call work as on Keras's torch engine. `value` honours stateless
    # scopes, autocast and abstract (meta) evaluation, so this is the same read.
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*_variable_values(args), **_variable_values(kwargs or {}))

    def numpy(self) -> np.ndarray:
        return convert_to_numpy(self.value)

    def __array__(self, dtype=None, copy=None):
        arr = convert_to_numpy(self.value)
        return arr.astype(dtype) if dtype is not None else arr

    # Through torch, not NumPy: works for values on any device or requiring grad.
    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)


def _unwrap(x):
    return x.value if isinstance(x, _BaseVariable) else x


# Conversion ---------------------------------------------------------------------------
# NumPy dtypes that convert to the torch dtype of the same name (not float64 or int64,
# which become floatx and int32).
_SAME_DTYPES = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.bool_)
)


def convert_to_tensor(x, dtype=None):
    """Convert an array-like or Variable to a torch tensor (optionally cast to `dtype`)."""
    if isinstance(x, _BaseVariable):
        x = x.value
    if isinstance(x, torch.Tensor):
        if dtype is not None:
            target = to_torch_dtype(dtype)
            if x.dtype != target:
                x = x.to(target)
        if _meta[0] and not x.is_meta:
            x = x.to(_META_DEVICE)
        return x
    if type(x) is np.ndarray and dtype is None and x.dtype in _SAME_DTYPES:
        # The common batch: a dtype torch keeps as it is (a copy, never an alias).
        out = torch.from_numpy(np.array(x, order="C"))
        device = get_device()
        return out if out.device == device else out.to(device)
    if isinstance(x, (list, tuple)) and _holds_tensors(x):
        # As `jnp.asarray([a, b])`: the elements stacked, each converted by these rules.
        return convert_to_tensor(torch.stack([convert_to_tensor(e) for e in x]), dtype)
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    elif isinstance(x, (bool, np.bool_)):
        dtype = "bool"
    elif isinstance(x, (int, np.integer)) and not isinstance(x, np.ndarray):
        dtype = "int32" if isinstance(x, int) else str(x.dtype)
        if dtype == "int64":
            dtype = "int32"
    elif isinstance(x, (float, np.floating)) and not isinstance(x, np.ndarray):
        from lamina.backend import config

        dtype = config.floatx()
    arr = np.asarray(x)
    if dtype is None:
        if arr.dtype == np.float64:
            from lamina.backend import config

            dtype = config.floatx()
        elif arr.dtype == np.int64:
            dtype = "int32"
        else:
            dtype = standardize_dtype(arr.dtype)
    target = to_torch_dtype(dtype)
    if dtype == "bfloat16":
        # NumPy has no bfloat16 of its own: go through float32.
        host = np.array(arr, dtype=np.float32, order="C")
    else:
        # A fresh, writable, C-ordered copy: the tensor never aliases the caller's data.
        host = np.array(arr, dtype=dtype, order="C")
    out = torch.from_numpy(host)
    if out.dtype != target:
        out = out.to(target)
    device = get_device()
    if out.device != device:
        out = out.to(device)
    return out


def _holds_tensors(x) -> bool:
    return any(
        isinstance(e, (torch.Tensor, _BaseVariable))
        or (isinstance(e, (list, tuple)) and _holds_tensors(e))
        for e in x
    )


def convert_to_numpy(x) -> np.ndarray:
    """Copy a tensor, Variable or array-like to a NumPy array on the host."""
    x = _unwrap(x)
    if isinstance(x, torch.Tensor):
        if x.is_meta:
            raise ValueError(
                f"convert_to_numpy received a tensor of shape {tuple(x.shape)} on the "
                "'meta' device (symbolic, no data): it can only be converted after the "
                "computation runs on real inputs."
            )
        x = x.detach()
        if x.dtype == torch.bfloat16:
            return _bfloat16_to_numpy(x)
        if x.device.type == "cpu":
            # A copy, so later in-place updates (optimizer steps) never reach it.
            return x.numpy().copy()
        return np.ascontiguousarray(x.cpu().numpy())
    return np.asarray(x)


def _bfloat16_to_numpy(x):
    host = x.float().cpu().numpy()
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes comes with jax
        return host
    return host.astype(ml_dtypes.bfloat16)


def is_tensor(x) -> bool:
    """Whether `x` is a tensor of the engine (a `torch.Tensor`); NumPy arrays are not."""
    return isinstance(x, torch.Tensor)


def is_concrete(x) -> bool:
    """True for data that exists now (NumPy, or a torch tensor that is not on `meta` nor
    the fake tensor of a trace, as `torch.export` and `torch.compile` run code on)."""
    return isinstance(x, np.ndarray) or (
        isinstance(x, torch.Tensor) and not x.is_meta and not is_fake(x)
    )


def shape(x) -> tuple:
    return tuple(_unwrap(x).shape)


def cast(x, dtype):
    return convert_to_tensor(x, dtype=dtype)


def stop_gradient(variable):
    return convert_to_tensor(variable).detach()


# Slicing ------------------------------------------------------------------------------
def _clamped_starts(start_indices, full, sizes):
    # As lax.dynamic_slice: a negative start counts from the end, then the start is
    # clamped so that the block fits inside the array.
    starts = []
    for start, dim, size in zip(start_indices, full, sizes, strict=True):
        start = int(_unwrap(start))
        start = start + dim if start < 0 else start
        starts.append(builtins.min(builtins.max(start, 0), dim - size))
    return starts


def slice(inputs, start_indices, shape):
    x = convert_to_tensor(inputs)
    shape = [int(d) for d in shape]
    start_indices = _unwrap(start_indices)
    if isinstance(start_indices, torch.Tensor) or any(
        isinstance(_unwrap(s), torch.Tensor) for s in start_indices
    ):
        # Start indices computed as tensors (a random crop's offsets) stay tensors:
        # reading them in Python would break a captured graph (`jit_compile=True`).
        return _tensor_slice(x, start_indices, shape)
    starts = _clamped_starts(_index_list(start_indices), x.shape, shape)
    index = tuple(builtins.slice(s, s + n) for s, n in zip(starts, shape, strict=True))
    return x[index]


def _tensor_slice(x, start_indices, shape):
    """`slice` in tensor operations alone (clamped as `lax.dynamic_slice` clamps): each
    axis whose start is a tensor is gathered at `start + arange(size)`."""
    if isinstance(start_indices, torch.Tensor):
        start_indices = list(start_indices.unbind(0))
    for axis, (start, dim, size) in enumerate(zip(start_indices, x.shape, shape, strict=True)):
        start = _unwrap(start)
        if not isinstance(start, torch.Tensor):
            start = int(start)
            start = builtins.min(builtins.max(start + dim if start < 0 else start, 0), dim - size)
            x = x.narrow(axis, start, size)
            continue
        start = start.to(torch.int64)
        start = torch.where(start < 0, start + dim, start).clamp(0, dim - size)
        x = x.index_select(axis, start + torch.arange(size, device=x.device))
    return x


def slice_update(inputs, start_indices, updates):
    x = convert_to_tensor(inputs)
    updates = convert_to_tensor(updates, dtype=x.dtype)
    starts = _clamped_starts(_index_list(start_indices), x.shape, updates.shape)
    index = tuple(builtins.slice(s, s + n) for s, n in zip(starts, updates.shape, strict=True))
    out = x.clone()
    out[index] = updates
    return out


def _index_list(start_indices):
    start_indices = _unwrap(start_indices)
    if isinstance(start_indices, torch.Tensor):
        return start_indices.tolist()
    return list(start_indices)


def unstack(x, num=None, axis=0):
    return list(torch.unbind(convert_to_tensor(x), dim=axis))


# Abstract evaluation ------------------------------------------------------------------
def compute_output_spec(fn, args, kwargs, is_spec, make_spec):
    """Shapes and dtypes of `fn(*args, **kwargs)` without computing on data.

    Symbolic inputs (recognised by `is_spec`) stand in as tensors on the `meta` device,
    which have a shape and a dtype but no data; real tensors met on the way (variable
    values, constants) are moved to `meta` too. Unknown dimensions (`None`) are filled
    with two different sizes; output dimensions that change between the two evaluations
    are reported as `None`. Variables are read through a stateless scope so that any
    `assign` inside `fn` is discarded. Some torch ops have no `meta` kernel, and some
    code needs values (`.item()`): if the `meta` evaluation fails, `fn` is evaluated
    again on real tensors of zeros, and only a failure there is reported.
    """
    leaves = nest.flatten((args, kwargs))
    has_unknown = any(is_spec(x) and any(d is None for d in x.shape) for x in leaves)
    fills = (83, 89) if has_unknown else (83,)
    try:
        results = [_evaluate(fn, leaves, args, kwargs, is_spec, fill, True) for fill in fills]
    except Exception:
        results = [_evaluate(fn, leaves, args, kwargs, is_spec, fill, False) for fill in fills]
    if len(results) == 1:
        return nest.map_structure(
            lambda s: None if s is None else make_spec(s.shape, s.dtype), results[0]
        )

    def merge(a, b):
        if a is None:
            return None
        shape = tuple(d1 if d1 == d2 else None for d1, d2 in zip(a.shape, b.shape, strict=True))
        return make_spec(shape, a.dtype)

    return nest.map_structure(merge, *results)


def _evaluate(fn, leaves, args, kwargs, is_spec, fill, meta):
    """`fn` on stand-ins for the specs: `(shape, dtype)` for each output leaf."""
    device = _META_DEVICE if meta else _DEFAULT_DEVICE
    filled = [
        torch.zeros(
            tuple(fill if d is None else int(d) for d in leaf.shape),
            dtype=to_torch_dtype(leaf.dtype),
            device=device,
        )
        if is_spec(leaf)
        else leaf
        for leaf in leaves
    ]
    a, k = nest.pack_sequence_as((args, kwargs), filled)
    saved = _meta[0]
    _meta[0] = meta
    try:
        # Nothing is computed on data, so a variable outside a compiled step's state
        # may be read here (a layer built while a step runs).
        with torch.device(device), torch.no_grad():
            with relaxed(keep_scopes=True), StatelessScope():
                out = fn(*a, **k)
            return nest.map_structure(_describe, out)
    finally:
        _meta[0] = saved


class _Spec:
    """One output's shape and dtype (a leaf for `lamina.tree`, unlike a tuple)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, x):
        if not isinstance(x, torch.Tensor):
            x = convert_to_tensor(x)
        self.shape = tuple(int(d) for d in x.shape)
        self.dtype = _NAMES[x.dtype]


def _describe(x):
    return None if x is None else _Spec(x)


# Compilation and differentiation -----------------------------------------------------
def jit(fn, donate_argnums=(), static_argnums=()):
    """`fn` unchanged: the torch engine runs eagerly (no compilation yet)."""
    return fn


def tree_map(fn, *trees):
    """`fn` on the leaves of `trees`; `None` stays `None` (an empty subtree, as in JAX)."""
    return nest.map_structure(lambda *xs: None if xs[0] is None else fn(*xs), *trees)


def tree_flatten(tree):
    """The leaves of a nested structure, in order (`None` is empty, as in JAX)."""
    return [leaf for leaf in nest.flatten(tree) if leaf is not None]


def device_put(x):
    return tree_map(lambda v: convert_data(v).to(_DEFAULT_DEVICE), x)


def convert_data(x):
    """A batch's array as the steps receive it: `convert_to_tensor`'s rules, except that
    int64 NumPy data stays int64, as Keras 3 on torch gives it to a `train_step`
    (`execution.KEEPS_INT64_DATA`)."""
    if type(x) is np.ndarray and x.dtype == np.int64:
        out = torch.from_numpy(np.array(x, order="C"))  # a copy, never the caller's memory
        device = get_device()
        return out if out.device == device else out.to(device)
    return convert_to_tensor(x)


def block_until_ready(x):
    """Wait until the computation of `x` is done (CUDA runs asynchronously); returns `x`."""
    if _DEFAULT_DEVICE.type == "cuda":
        torch.cuda.synchronize()
    return x


def to_float(x):
    """`x` as a float tensor: integer and bool tensors become float32 (as in JAX)."""
    if x.is_floating_point() or x.is_complex():
        return x
    return x.to(torch.float32)


_SCATTER_REDUCTIONS = {"add": "sum", "max": "amax", "min": "amin", "mul": "prod"}


def _scatter_index(indices, shape):
    indices = convert_to_tensor(indices).to(torch.int64)
    if indices.ndim != 2:
        raise ValueError(
            f"scatter: `indices` must have shape (num_updates, k), received shape "
            f"{tuple(indices.shape)}."
        )
    k = int(indices.shape[1])
    # Row-major flat offsets into the first k axes; the rest travel as whole blocks.
    strides = torch.tensor(
        [int(np.prod(shape[i + 1 : k])) for i in range(k)], device=indices.device
    )
    return (indices % torch.tensor(shape[:k], device=indices.device) * strides).sum(1), k


def scatter_update(inputs, indices, updates, reduction=None):
    inputs = convert_to_tensor(inputs)
    shape = tuple(inputs.shape)
    flat_index, k = _scatter_index(indices, shape)
    rows = inputs.reshape((-1,) + shape[k:])
    updates = convert_to_tensor(updates).to(inputs.dtype).reshape((-1,) + shape[k:])
    index = flat_index.reshape((-1,) + (1,) * (len(shape) - k)).expand(updates.shape)
    if reduction is None:
        out = rows.scatter(0, index, updates)
    elif reduction in _SCATTER_REDUCTIONS:
        out = rows.scatter_reduce(0, index, updates, _SCATTER_REDUCTIONS[reduction])
    else:
        raise ValueError(
            f"scatter_update: unknown reduction {reduction!r}; expected None or one of "
            f"{list(_SCATTER_REDUCTIONS)}."
        )
    return out.reshape(shape)


def scatter(indices, values, shape):
    values = convert_to_tensor(values)
    zeros = torch.zeros(tuple(shape), dtype=values.dtype, device=values.device)
    return scatter_update(zeros, indices, values, reduction="add")


# Control flow and differentiation live in their own modules; they are part of this
# module's contract.
from lamina.backend.torch.core_control_flow import (  # noqa: E402, F401
    associative_scan,
    cond,
    fori_loop,
    map,
    scan,
    switch,
    vectorized_map,
    while_loop,
)
from lamina.backend.torch.core_gradients import (  # noqa: E402, F401
    custom_gradient,
    jvp,
    remat,
    value_and_grad,
)
