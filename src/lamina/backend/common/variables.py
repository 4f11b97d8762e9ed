"""Variables and the stateless scope.

Layer code is written in stateful style (`self.kernel`, `self.moving_mean.assign(...)`).
Compiled training needs pure functions, so the trainer opens a `StatelessScope` that maps
each variable to a value: reads come from the map and `assign` records a new value in the
scope instead of touching the variable. Outside any scope a variable is ordinary state.

Scopes nest (an optimizer's scope inside a train step's): a read finds the innermost
scope that maps the variable, and an assignment is recorded there.

While a compiled program is being traced the scopes are **strict** (`strict_trace`):
every variable the step reads or assigns must be part of the state the program was
given. A variable outside it would otherwise be baked into the program as a constant
(an unseeded random op giving the same noise on every call) or receive a tracer (a
leak), so touching one raises an error that names it and says how to fix it.

Each engine subclasses `Variable` to say how a value becomes an engine array; everything
else (names, trainability, the scope protocol, arithmetic) lives here once.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from lamina.backend.common.allocation_budget import AllocationBudget as AllocationBudget
from lamina.backend.common.allocation_budget import current_budget
from lamina.backend.common.global_state import current_distribution
from lamina.backend.common.initializer_lookup import resolve_initializer
from lamina.backend.common.name_scope import current_path
from lamina.backend.common.variable_layout import place_by_layout

_state = threading.local()


def _scope_stack() -> list:
    stack = getattr(_state, "stateless_scopes", None)
    if stack is None:
        stack = _state.stateless_scopes = []
    return stack


_HOST_DATA = (np.ndarray, np.generic, int, float, list, tuple)


class StatelessScope:
    """Maps variables to values so layer code can run as a pure function.

    Args:
        state_mapping: iterable of `(variable, value)` pairs giving the values to read.
            A value may be a Variable itself (`metric.stateless_update_state(
            metric.variables, ...)`, as Keras takes it), whose value now is read, or
            NumPy data, converted to the variable's dtype.
        collect_losses: gather the losses layers add inside the scope in `losses`.
        initialize_variables: Keras's switch for initializing variables made inside at
            the exit; lamina's have their values when made, so it is only recorded.

    >>> import numpy as np
    >>> from lamina import backend, layers
    >>> layer = layers.Dense(1, kernel_initializer="ones")
    >>> layer.build((None, 2))
    >>> with backend.StatelessScope([(layer.kernel, [[2.0], [3.0]])]):
    ...     y = layer(np.ones((1, 2)))
    >>> y.tolist(), backend.convert_to_numpy(layer.kernel).ravel().tolist()
    ([[5.0]], [1.0, 1.0])
    """

    def __init__(self, state_mapping=(), collect_losses=False, initialize_variables=True):
        self.collect_losses = collect_losses
        self.initialize_variables = bool(initialize_variables)
        self.losses: list = []
        self._values: dict[int, object] = {}
        self._variables: dict[int, Variable] = {}
        self._updates: dict[int, object] = {}
        for variable, value in state_mapping:
            # Every stateless API (`stateless_call`, `stateless_apply`,
            # `stateless_update_state`, ...) maps its state here, so this serves them
            # all, as Keras's scope does: a Variable given as a value is read now, and
            # host data (NumPy, Python numbers) becomes an engine array of the
            # variable's dtype. Engine arrays (the compiled steps' own) pass untouched.
            if isinstance(value, Variable):
                value = value.value
            elif isinstance(value, _HOST_DATA):
                value = variable._convert(value, variable.dtype)
            self._values[id(variable)] = value
            self._variables[id(variable)] = variable

    def get_current_value(self, variable):
        key = id(variable)
        if key in self._updates:
            return self._updates[key]
        return self._values.get(key)

    def maps(self, variable) -> bool:
        """True when the scope holds a value (given or assigned) for `variable`."""
        key = id(variable)
        return key in self._values or key in self._updates

    def add_update(self, variable, value) -> None:
        self._variables[id(variable)] = variable
        self._updates[id(variable)] = value

    def get_update(self, variable):
        return self._updates.get(id(variable))

    @property
    def updates(self) -> list:
        """`(variable, new_value)` pairs assigned inside the scope, in assignment order."""
        return [(self._variables[k], v) for k, v in self._updates.items()]

    def __enter__(self):
        _scope_stack().append(self)
        return self

    def __exit__(self, *exc):
        _scope_stack().pop()
        return False


def current_stateless_scope() -> StatelessScope | None:
    """The innermost `StatelessScope` entered, or None outside every one.

    >>> with StatelessScope() as scope:
    ...     current_stateless_scope() is scope
    True
    """
    stack = _scope_stack()
    return stack[-1] if stack else None


def in_stateless_scope() -> bool:
    """Whether a `StatelessScope` is open (variables read their values from it).

    >>> from lamina import backend
    >>> with backend.StatelessScope():
    ...     inside = backend.in_stateless_scope()
    >>> inside, backend.in_stateless_scope()
    (True, False)
    """
    return bool(_scope_stack())


# While `fit` holds the training state outside the variables (between compiled calls),
# this is its write-back: any variable read or assignment outside a stateless scope runs
# it first, so user code (a callback, a closure over the model) never sees a stale or a
# donated value, and the state is written back only when someone looks.
_pending_sync = None


def set_pending_sync(fn) -> None:
    """Register (or clear, with None) the write-back of state held outside variables.

    >>> from lamina import backend
    >>> v = backend.Variable(1.0)
    >>> backend.set_pending_sync(lambda: print("write-back"))
    >>> float(v.value)  # the first read runs the write-back (once)
    write-back
    1.0
    """
    global _pending_sync
    _pending_sync = fn


def reads_are_plain() -> bool:
    """Whether reading a variable now returns its stored value as it is (see
    `Variable.value`): no stateless scope open, no strict trace, no write-back pending,
    no initial value put off. A caller reading many variables per call may then take the
    stored values itself."""
    return (
        _pending_sync is None
        and not _deferred
        and getattr(_state, "strict", None) is None
        and not getattr(_state, "stateless_scopes", None)
    )


def _sync_pending() -> None:
    fn = _pending_sync
    if fn is not None:
        set_pending_sync(None)
        fn()


# Bumped whenever a variable is created or a layer's `trainable` flag changes: models
# cache their lists of state variables (walking the layers costs ~0.4 ms) per version.
_structure_version = [0]


def structure_version() -> int:
    """A number that changes whenever the set of variables (or their trainability) may."""
    return _structure_version[0]


def bump_structure_version() -> None:
    _structure_version[0] += 1


def _scope_for(variable):
    """The innermost scope holding a value for `variable`, or None."""
    for scope in reversed(_scope_stack()):
        if scope.maps(variable):
            return scope
    return None


class _StrictTrace:
    """While a compiled program is traced: the program's name and the variables created
    during the trace (their initial values are real data, so reading them is fine)."""

    def __init__(self, program: str):
        self.program = program
        self.created: set[int] = set()


def _strict() -> _StrictTrace | None:
    return getattr(_state, "strict", None)


class strict_trace:
    """Make the stateless scopes strict while tracing `program` (see the module doc)."""

    def __init__(self, program: str):
        self._trace = _StrictTrace(program)

    def __enter__(self):
        self._saved = _strict()
        _state.strict = self._trace
        return self

    def __exit__(self, *exc):
        _state.strict = self._saved
        return False


class relaxed:
    """Suspend the strict check and the scopes (initial values, abstract evaluation)."""

    def __init__(self, keep_scopes: bool = False):
        self.keep_scopes = keep_scopes

    def __enter__(self):
        self._strict = _strict()
        _state.strict = None
        if not self.keep_scopes:
            stack = _scope_stack()
            self._stack = list(stack)
            stack[:] = []
        return self

    def __exit__(self, *exc):
        _state.strict = self._strict
        if not self.keep_scopes:
            _scope_stack()[:] = self._stack
        return False


_GLOBAL_SEED_HINT = (
    "It is the state of lamina's global seed generator: a random op called without a "
    "seed (`seed=None`) inside a compiled step would give the same numbers on every call. "
    "Create a `lamina.random.SeedGenerator(seed)` in the layer's `__init__` and pass "
    "`seed=self.seed_generator` to the random op, as Keras requires under JAX."
)


def _outside_state_error(variable, action: str, program: str) -> ValueError:
    if getattr(variable, "_is_global_seed", False):
        hint = _GLOBAL_SEED_HINT
    else:
        hint = (
            "Only the variables in the step's state (the model's trainable and "
            "non-trainable variables, its optimizers' variables and `metrics_variables`) "
            "can be used inside a compiled step. Track the variable on a layer (assign it "
            "as an attribute, or create it with `add_weight`), list a metric in the "
            "model's `metrics`, hold an optimizer as an attribute of the model and build "
            "it before `fit`, or pass the value in explicitly; `run_eagerly=True` runs the "
            "step uncompiled."
        )
    return ValueError(
        f"{program} tried to {action} variable {variable.path!r} "
        f"(shape {variable.shape}, dtype {variable.dtype}), which is not part of the "
        f"state the compiled step was given. {hint}"
    )


# Variables whose initial value is put off (see `deferred_initialization`), by id:
# `(variable, draw)`. Holding the variable keeps its id from being reused.
_deferred: dict[int, tuple] = {}


class deferred_initialization:
    """While open, a variable made from a built-in initializer gets its value only when
    something reads it, or when the block ends; one assigned before is never drawn.

    Loading a model opens one: the file sets almost every variable, and drawing values
    to overwrite them is most of a load's time (on JAX, a program per new shape). The
    initializer takes its seed when the variable is made, as the call would
    (`Initializer._deferred`), so a value drawn later is the one it would have had and
    the seed generators (the global one included) move on as they would: nothing but
    the time shows. Zeros stand in meanwhile, read by nobody: `Variable.value` draws
    first, and `reads_are_plain()` is False so fast paths read through it. Not used
    under a distribution (which creates variables sharded) nor while `fit`'s state is
    held outside the variables. Nested blocks join the outermost.
    """

    def __enter__(self):
        self._outermost = getattr(_state, "deferral", None) is None and _pending_sync is None
        if self._outermost:
            _state.deferral = self
            self.variables: list = []
        return self

    def __exit__(self, exc_type, *exc):
        if self._outermost:
            _state.deferral = None
            error = None
            for variable in self.variables:
                if id(variable) in _deferred:
                    try:  # each is taken off the list first, so none is left behind
                        variable._draw_initial_value()
                    except Exception as err:  # raised below, once every one is drawn
                        error = error or err
            if error is not None and exc_type is None:
                raise error
        return False


def _deferral():
    """The open `deferred_initialization` block this variable may join, or None."""
    deferral = getattr(_state, "deferral", None)
    if deferral is None or _pending_sync is not None or _strict() is not None:
        return None
    if _scope_stack() or current_distribution() is not None:
        return None
    return deferral


_AGGREGATIONS = ("none", "mean", "sum", "only_first_replica")
_SYNCHRONIZATIONS = ("none", "on_read", "on_write", "auto")
_CREATION_ORDER = itertools.count()  # a layer lists its own weights in it, as Keras does


def _choice(argument, value, allowed, none_means, name):
    if value is None:
        return none_means
    if value not in allowed:
        raise ValueError(
            f"Variable {name!r}: `{argument}` must be one of {list(allowed)} or None; "
            f"received {argument}={value!r}."
        )
    return value


class Variable:
    """A named, mutable tensor: a layer weight, an optimizer slot or a metric total.

    The arguments come in Keras's order and under its names.

    Args:
        initializer: an array-like initial value; or an initializer, by name
            (`"uniform"`, `"glorot_uniform"`, as `add_weight` takes it), config dict,
            class or object, or any callable `(shape, dtype) -> array`, used with
            `shape`.
        shape: the shape, required when `initializer` is not a value.
        dtype: the dtype; defaults to the initial value's float dtype or `floatx()`.
        trainable: whether the optimizer updates it.
        autocast: whether a layer under a mixed dtype policy reads it in the compute
            dtype (float variables only).
        aggregation: how a distributed copy is reduced (`"none"`, `"mean"`, `"sum"`,
            `"only_first_replica"`; Keras's names). lamina's distribution keeps one
            logical value per variable, so this is recorded, as Keras's JAX engine does.
        synchronization: `"auto"`, `"none"`, `"on_read"` or `"on_write"`; recorded, as
            `aggregation`.
        name: a short name such as `"kernel"`.
        layout: a `lamina.distribution.TensorLayout` to split the variable by, instead
            of the current distribution's choice (or, with none, on the layout's mesh).
        path: (keyword) the full name, such as `"dense/kernel"` (default: `name` inside
            the current name scopes).

    >>> import lamina
    >>> v = lamina.Variable([1.0, 2.0], name="v")
    >>> v.assign_add([1.0, 1.0]).numpy().tolist()
    [2.0, 3.0]
    >>> lamina.Variable(shape=(2, 3), initializer="ones").numpy().sum()
    np.float32(6.0)
    """

    def __init__(
        self,
        initializer,
        shape=None,
        dtype=None,
        trainable=True,
        autocast=True,
        aggregation="none",
        synchronization="auto",
        name=None,
        layout=None,
        *,
        path=None,
    ):
        from lamina.backend import config

        self.name = name or "variable"
        self._created = next(_CREATION_ORDER)
        self._explicit_layout = layout
        if isinstance(initializer, (str, dict, type)):
            initializer = resolve_initializer(initializer, self.name)
        self._aggregation = _choice("aggregation", aggregation, _AGGREGATIONS, "none", self.name)
        self._synchronization = _choice(
            "synchronization", synchronization, _SYNCHRONIZATIONS, "none", self.name
        )
        self._autocast = bool(autocast)
        # Known at creation, so a distribution can lay the variable out as it is made;
        # inside `lamina.name_scope`s the scopes' path comes first, as in Keras.
        if path is None:
            parent = current_path()
            path = f"{parent}/{self.name}" if parent else self.name
        self.path = path
        self._placement = None
        self.trainable = bool(trainable)
        deferral = draw = None
        if callable(initializer):
            if shape is None:
                raise ValueError(
                    f"Variable {self.name!r}: a callable initializer needs `shape`; "
                    "pass shape=(...) or give an array as the initial value."
                )
            dtype = standardize_dtype(dtype or config.floatx())
            budget = current_budget()
            if budget is not None:
                budget.charge(self.name, shape, dtype)
            distribution = current_distribution()
            value = None
            if distribution is not None:
                # A variable the distribution splits is made split (never whole first).
                self._shape, self._dtype = tuple(int(d) for d in shape), dtype
                value = distribution._create_variable(
                    self, lambda: initializer(tuple(shape), dtype=dtype)
                )
            else:
                deferral = _deferral()
                if deferral is not None:
                    draw, value = self._put_off(initializer, tuple(shape), dtype)
            if value is None:
                # Initial values are real data even when a layer is built while a
                # function is being traced; seed updates made here must reach the real
                # seed state.
                with relaxed(), self._eager_context():
                    value = initializer(tuple(shape), dtype=dtype)
        else:
            value = initializer
            if dtype is None:
                dtype = _inferred_dtype(_host_value(value), config.floatx())
            dtype = standardize_dtype(dtype)
        self._value = self._convert(value, dtype)
        self._dtype = standardize_dtype(self._value.dtype)
        self._shape = tuple(int(d) for d in self._value.shape)
        if shape is not None and tuple(shape) != self._shape:
            raise ValueError(
                f"Variable {self.name!r}: initial value has shape {self._shape}, "
                f"expected shape {tuple(shape)}."
            )
        self.regularizer = None
        self.constraint = None
        distribution = current_distribution()
        if distribution is not None and self._placement is None:
            # Sets `_placement` and places the value (sharded, or replicated on the mesh).
            distribution._place_variable(self)
        elif layout is not None and getattr(layout, "device_mesh", None) is not None:
            place_by_layout(self, layout)
        _structure_version[0] += 1
        trace = _strict()
        if trace is not None:
            trace.created.add(id(self))
        if draw is not None:
            _deferred[id(self)] = (self, draw)
            deferral.variables.append(self)

    def _put_off(self, initializer, shape: tuple, dtype: str):
        """`(draw, stand-in)` for an initial value put off, or `(None, None)` when
        `initializer` cannot put it off (see `deferred_initialization`)."""
        defer = getattr(initializer, "_deferred", None)
        if defer is None:
            return None, None
        with relaxed(), self._eager_context():
            draw = defer(shape, dtype)  # takes the seed now, as the call would
            if draw is None:
                return None, None
            try:
                return draw, np.zeros(shape, dtype)
            except TypeError:  # a dtype NumPy lacks: draw now
                return None, draw()

    def _draw_initial_value(self) -> None:
        """Give a variable whose initial value was put off that value."""
        _, draw = _deferred.pop(id(self))
        with relaxed(), self._eager_context():
            value = self._convert(draw(), self._dtype)
        if tuple(value.shape) != self._shape:
            raise ValueError(
                f"Variable {self.name!r}: initial value has shape {tuple(value.shape)}, "
                f"expected shape {self._shape}."
            )
        self._value = value

    # Engine hooks ------------------------------------------------------------------
    def _convert(self, value, dtype):  # pragma: no cover - overridden per engine
        raise NotImplementedError

    def _eager_context(self):  # pragma: no cover - overridden per engine
        raise NotImplementedError

    # Reading -----------------------------------------------------------------------
    @property
    def value(self):
        stack = _scope_stack()
        if stack:
            for scope in reversed(stack):
                value = scope.get_current_value(self)
                if value is not None:
                    return value
        trace = getattr(_state, "strict", None)
        if trace is not None and id(self) not in trace.created:
            raise _outside_state_error(self, "read", trace.program)
        if _pending_sync is not None:
            _sync_pending()
        if _deferred and id(self) in _deferred:
            self._draw_initial_value()
        return self._value

    @property
    def aggregation(self) -> str:
        """How a distributed copy is reduced (Keras's name; see the class docstring)."""
        return self._aggregation

    @property
    def synchronization(self) -> str:
        """When distributed copies are synchronized (Keras's name)."""
        return self._synchronization

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numpy(self) -> np.ndarray:
        return np.array(self.value)

    def __array__(self, dtype=None, copy=None):
        # A copy (writable), never a view of the engine's buffer: assigning the variable
        # must not change an array already handed out.
        arr = np.array(self.value)
        return arr.astype(dtype, copy=False) if dtype is not None else arr

    # Writing -----------------------------------------------------------------------
    def assign(self, value):
        value = self._convert(_unwrap(value), self._dtype)
        if tuple(value.shape) != self._shape:
            raise ValueError(
                f"Variable {self.path!r} has shape {self._shape}; cannot assign a value of "
                f"shape {tuple(value.shape)}."
            )
        scope = _scope_for(self)
        trace = _strict()
        if scope is None and trace is not None:
            if id(self) not in trace.created or not _scope_stack():
                raise _outside_state_error(self, "assign", trace.program)
        if scope is None:
            scope = current_stateless_scope()
        if scope is not None:
            scope.add_update(self, value)
        else:
            if _pending_sync is not None:
                _sync_pending()
            if _deferred:
                _deferred.pop(id(self), None)  # the value assigned replaces the initial one
            self._value = value if self._placement is None else self._placement(value)
        return self

    def assign_add(self, value):
        return self._assign_delta(value, 1)

    def assign_sub(self, value):
        return self._assign_delta(value, -1)

    def _assign_delta(self, value, sign: int):
        value = _unwrap(value)
        if (
            type(value) in (int, float)
            and self._plain_write(())
            and self._add_in_place(value, sign)
        ):
            return self  # a Python number (a counter's 1, a batch size) needs no tensor
        delta = self._convert(value, self._dtype)
        if self._plain_write(tuple(delta.shape)) and self._add_in_place(delta, sign):
            return self
        return self.assign(self.value + delta if sign > 0 else self.value - delta)

    def _add_scaled(self, value, scale: float):
        """`assign_add(value * scale)` for a float variable, with one in-place kernel where
        the engine has one (a loss tracker's total, weighted by the batch size)."""
        delta = self._convert(_unwrap(value), self._dtype)
        if (
            "float" in self._dtype
            and self._plain_write(tuple(delta.shape))
            and self._add_in_place(delta, float(scale))
        ):
            return self
        return self.assign_add(delta * scale)

    def _plain_write(self, shape: tuple) -> bool:
        """Whether a write would go straight to the storage: no scope, trace, pending
        write-back or placement to go through, and a delta of the variable's exact shape
        (or a number, `()`, which any shape takes)."""
        return (
            not _scope_stack()
            and getattr(_state, "strict", None) is None
            and _pending_sync is None
            and not _deferred
            and self._placement is None
            and (shape == () or shape == self._shape)
        )

    def _add_in_place(self, delta, sign) -> bool:
        """Engine hook: add `sign * delta` (a tensor of the variable's dtype, or a Python
        number; `sign` is 1, -1, or a float scale for a float variable) to the storage in
        place and return True, or return False (the default) to write a new value
        through `assign`."""
        return False

    def _store_for(self, use: str) -> None:
        """Engine hook: this variable is a kernel read by one kind of operation, `use`
        (`"matmul"`: the right-hand side of matrix products, a `Dense` kernel; `"conv"`:
        a convolution's `(*spatial, in, out)` kernel); an engine whose kernels run
        faster on another memory layout stores it so. The values, shape and dtype do not
        change. Default: nothing."""

    def _store_like(self, reference) -> None:
        """Engine hook: lay this variable's storage out as `reference`'s (an optimizer's
        slot follows its variable, so that the update's elementwise kernels read both
        in the same order). Default: nothing."""

    def __repr__(self) -> str:
        return f"<Variable path={self.path}, shape={self._shape}, dtype={self._dtype}>"

    # Arithmetic reads the current value, so `variable * 2` works like an array.
    def _binary(self, other, fn, reverse=False):
        from lamina.backend import numpy as engine_numpy  # the engine chosen at import

        if hasattr(other, "_keras_history"):
            # A symbolic tensor: let it build the graph node (`total + ops.sum(x)`).
            return NotImplemented
        other = _unwrap(other)
        a, b = (other, self.value) if reverse else (self.value, other)
        return getattr(engine_numpy, fn)(a, b)

    def __add__(self, o):
        return self._binary(o, "add")

    def __radd__(self, o):
        return self._binary(o, "add", True)

    def __sub__(self, o):
        return self._binary(o, "subtract")

    def __rsub__(self, o):
        return self._binary(o, "subtract", True)

    def __mul__(self, o):
        return self._binary(o, "multiply")

    def __rmul__(self, o):
        return self._binary(o, "multiply", True)

    def __truediv__(self, o):
        return self._binary(o, "divide")

    def __rtruediv__(self, o):
        return self._binary(o, "divide", True)

    def __pow__(self, o):
        return self._binary(o, "power")

    def __matmul__(self, o):
        return self._binary(o, "matmul")

    def __rmatmul__(self, o):
        return self._binary(o, "matmul", True)

    def __neg__(self):
        return -self.value

    def __getitem__(self, idx):
        return self.value[idx]

    def __len__(self):
        return self._shape[0]

    def __float__(self):
        return float(np.asarray(self.value))

    def __int__(self):
        return int(np.asarray(self.value))

    def __bool__(self):
        return bool(np.asarray(self.value))


def _unwrap(value):
    return value.value if isinstance(value, Variable) else value


def _inferred_dtype(value, floatx: str) -> str:
    """The dtype of a Variable made from `value` with no dtype given: `floatx()` for
    floats; other dtypes as they are, but 64-bit ints narrowed to int32, as
    `convert_to_tensor` narrows them (the same on every engine)."""
    dtype = getattr(value, "dtype", None) if hasattr(value, "shape") else None
    if dtype is None:  # Python numbers and nested lists
        dtype = np.asarray(value).dtype
    name = standardize_dtype(dtype)
    if "float" in name:
        return floatx
    return "int32" if name == "int64" else name


def _host_value(value):
    return value.value if isinstance(value, Variable) else value


_DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "int": "int32",
    "bool_": "bool",
}


# Names already worked out, by (type, dtype), for strings, NumPy dtypes, scalar types
# and engine dtype objects (immutable values). The exact type is part of the key
# because NumPy dtypes compare equal to other spellings (`np.dtype("int64") == "int"`)
# that normalise differently.
_STANDARD_NAMES: dict = {}


def standardize_dtype(dtype) -> str:
    """Normalise a dtype (string, NumPy dtype, engine dtype) to its NumPy-style name.

    >>> import numpy as np
    >>> from lamina import backend
    >>> [backend.standardize_dtype(d) for d in (np.float32, "float", None)]
    ['float32', 'float32', 'float32']
    """
    if dtype is None:
        from lamina.backend import config

        return config.floatx()
    key = (type(dtype), dtype)
    try:
        name = _STANDARD_NAMES.get(key)
    except TypeError:  # an unhashable dtype-like
        return _standardize_dtype(dtype)
    if name is None:
        name = _standardize_dtype(dtype)
        if (isinstance(dtype, (str, type, np.dtype)) or type(dtype).__name__ == "dtype") and len(
            _STANDARD_NAMES
        ) < 1024:
            _STANDARD_NAMES[key] = name
    return name


def _standardize_dtype(dtype) -> str:
    if (isinstance(dtype, np.dtype) and dtype.kind in "US") or (
        isinstance(dtype, str) and dtype in ("string", "str")
    ):
        return "string"  # text, for the layers that preprocess it on the host
    if hasattr(dtype, "name") and not isinstance(dtype, str):
        name = dtype.name
    elif isinstance(dtype, type):
        name = np.dtype(dtype).name
    else:
        name = str(dtype)
    name = _DTYPE_ALIASES.get(name, name)
    if name.startswith("torch."):
        name = name[len("torch.") :]
    try:
        if name != "bfloat16":
            name = np.dtype(name).name
    except TypeError as err:
        raise ValueError(f"Unknown dtype {dtype!r}.") from err
    return name
