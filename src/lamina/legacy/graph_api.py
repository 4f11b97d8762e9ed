"""The classic backend's computational-graph vocabulary: variables, placeholders,
symbolic gradients and updates (the learning phase is in `lamina.legacy.learning_phase`).

Classic Keras (1.x/2.x on TensorFlow 1 or Theano) built a training loop as a graph:
placeholders for the data, variables for the weights, a loss, `K.gradients(loss, params)`
and a list of updates, run by `K.function(inputs, outputs, updates)` once per iteration.
Here that graph is lamina's own graph of KerasTensors:

- `placeholder` is an `Input` (a KerasTensor with the batch axis in its shape);
- a variable used in an expression is read when the function runs, not when the
  expression is written. Arithmetic on a variable made by `K.variable` (or `K.zeros`,
  `K.ones`, ...) is therefore symbolic, as in the classic engine: `0.9 * m - lr * g`
  is a graph expression, and `K.eval` computes it now;
- `gradients(loss, variables)` is a graph node whose value, when the function runs, is
  the engine's autodiff of the loss with respect to the variables' current values;
- `update(x, new_x)` (and `update_add`, `update_sub`, `moving_average_update`) is a
  `(variable, new_value)` pair that `K.function` assigns on every call;
- `learning_phase()` is a symbolic flag fed like an input (`K.function([x,
  K.learning_phase()], ...)` then `f([data, 1])`), or the value the current call runs
  with (`training` inside `fit`, 0 otherwise).
"""

from __future__ import annotations

import math

import numpy as np

from lamina import backend as _backend
from lamina import ops
from lamina.backend.common.global_state import unique_name
from lamina.backend.common.symbolic_scope import in_symbolic_scope
from lamina.backend.common.variables import StatelessScope
from lamina.backend.common.variables import Variable as _BaseVariable
from lamina.graph.function import Function, map_graph, reduced_tensor, running_tensor
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.graph.operation import Operation, current_call_context


def _describe(x) -> str:
    return f"{type(x).__name__} {x!r}"[:160]


# Variables ---------------------------------------------------------------------------
class _SourceOperation(Operation):
    """A graph node with no tensor inputs that still computes something when the graph
    runs (a variable's current value, the learning phase), unlike an `Input`."""

    _graph_source = True

    def _emit(self, shape, dtype, args=()):
        tensor = KerasTensor(shape, dtype, name=self.name)
        Node(self, call_args=tuple(args), outputs=tensor)
        return tensor


class _VariableRead(_SourceOperation):
    """Reads a variable's value when the graph runs (from the compiled call's state)."""

    def __init__(self, variable):
        super().__init__(name=unique_name(f"read_{variable.name.replace('/', '_')}"))
        self.variable = variable

    @property
    def variables(self) -> list:
        return [self.variable]

    def call(self):
        return self.variable.value


def read(variable) -> KerasTensor:
    """The symbolic value of `variable`: a graph tensor that reads it when the graph runs.

    Expressions built on it (`read(v) * 0.9`) see the variable's value at each call of a
    `K.function`, not the value it had when the expression was written.

    >>> from lamina import backend as K
    >>> v = K.variable(2.0)
    >>> f = K.function([], [K.read(v) * 10])
    >>> K.set_value(v, 3.0)
    >>> f([])[0].tolist()
    30.0
    """
    if not isinstance(variable, _BaseVariable):
        raise TypeError(f"read() takes a Variable; received {_describe(variable)}.")
    tensor = variable.__dict__.get("_lamina_read_tensor")
    if tensor is None:
        tensor = _VariableRead(variable)._emit(variable.shape, variable.dtype)
        variable.__dict__["_lamina_read_tensor"] = tensor
    return tensor


class _Constant(_SourceOperation):
    """Gives a fixed tensor when the graph runs (`Input(tensor=<array>)`)."""

    def __init__(self, value):
        super().__init__(name=unique_name("constant"))
        self.value = value

    def call(self):
        return self.value


def input_source(value):
    """The graph tensor that `Input(tensor=value)` is fed by, for a value that is not a
    graph tensor: a variable's read, or a constant for a concrete tensor or array;
    `None` for anything else (the caller says what it takes)."""
    if isinstance(value, _BaseVariable):
        return read(value)
    if _backend.is_tensor(value) or isinstance(value, (np.ndarray, np.generic)):
        value = _backend.convert_to_tensor(value)
        return _Constant(value)._emit(tuple(value.shape), _backend.standardize_dtype(value.dtype))
    return None


def _is_engine_tensor(x) -> bool:
    return _backend.is_tensor(x) and not isinstance(x, _BaseVariable)


class ClassicVariable(_backend.Variable):
    """A variable made by `K.variable` (or `K.zeros`, `K.ones`, ...).

    It is an ordinary lamina `Variable` (usable as a layer weight, assignable, savable);
    only its arithmetic differs: `v * 0.9`, `v - g` and `-v` build graph expressions
    that read `v` when they run, as the classic engine's variables did. Mixed with an
    array of data it computes at once. Read its value with `K.get_value(v)` and an
    expression's with `K.eval(expr)`.

    >>> from lamina import backend as K
    >>> v = K.variable([1.0, 2.0])
    >>> expr = v * 2  # a graph expression: it reads v when evaluated
    >>> K.set_value(v, [5.0, 6.0])
    >>> type(v).__name__, K.eval(expr).tolist()
    ('ClassicVariable', [10.0, 12.0])
    """

    # NumPy scalars defer to our reflected operators instead of reading the value.
    __array_ufunc__ = None
    _classic_graph = True

    def _binary(self, other, fn, reverse=False):
        if _is_engine_tensor(other) or isinstance(other, np.ndarray) and other.ndim:
            return super()._binary(other, fn, reverse)
        if isinstance(other, ClassicVariable):
            other = read(other)
        a, b = (other, read(self)) if reverse else (read(self), other)
        return getattr(ops, fn)(a, b)

    def __neg__(self):
        return ops.negative(read(self))

    def __getitem__(self, idx):
        return read(self)[idx]


def variable(value, dtype=None, name=None, constraint=None):
    """A variable holding `value` (classic `K.variable`).

    Args:
        value: an array-like initial value (NumPy array, list, number, tensor).
        dtype: the dtype; default `floatx()` (classic Keras cast every variable to it).
        name: a short name.
        constraint: an optional projection applied after optimizer updates.

    Returns:
        A `ClassicVariable` (a lamina `Variable`).

    >>> from lamina import backend as K
    >>> v = K.variable([[1, 2], [3, 4]], name="v")
    >>> K.get_value(v).tolist(), v.dtype
    ([[1.0, 2.0], [3.0, 4.0]], 'float32')
    """
    if isinstance(value, KerasTensor):
        raise TypeError(
            f"K.variable needs a concrete initial value; received the symbolic tensor "
            f"{value.name!r}. Evaluate it first with K.eval, or use it directly in the graph."
        )
    if isinstance(value, _BaseVariable):
        value = value.value
    dtype = _backend.standardize_dtype(dtype or _backend.floatx())
    v = ClassicVariable(_backend.convert_to_tensor(value, dtype=dtype), name=name or "variable")
    v.constraint = constraint
    return v


def _filled(shape, dtype, fill, name):
    dtype = _backend.standardize_dtype(dtype or _backend.floatx())
    return variable(np.full(tuple(shape), fill, dtype=dtype), dtype=dtype, name=name)


def zeros(shape, dtype=None, name=None):
    """An all-zeros variable of `shape` (classic Keras returned a variable here).

    >>> from lamina import backend as K
    >>> K.eval(K.zeros((2, 3))).shape
    (2, 3)
    """
    return _filled(shape, dtype, 0, name)


def ones(shape, dtype=None, name=None):
    """An all-ones variable of `shape`.

    >>> from lamina import backend as K
    >>> K.get_value(K.ones((2, 2), dtype="int32")).tolist()
    [[1, 1], [1, 1]]
    """
    return _filled(shape, dtype, 1, name)


def eye(size, dtype=None, name=None):
    """An identity-matrix variable; `size` is an int or a `(rows, columns)` pair.

    >>> from lamina import backend as K
    >>> K.get_value(K.eye((2, 3))).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    rows, cols = (size, size) if isinstance(size, int) else tuple(size)
    dtype = _backend.standardize_dtype(dtype or _backend.floatx())
    return variable(np.eye(rows, cols, dtype=dtype), dtype=dtype, name=name)


def zeros_like(x, dtype=None, name=None):
    """A tensor of zeros shaped like `x`, as classic Keras gave (`tf.zeros_like`): for a
    concrete tensor, array or variable a concrete tensor, not a variable, so arithmetic
    on it computes at once and nothing symbolic reaches `fit`; for a graph tensor, whose
    batch size is unknown, a graph tensor.

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> z = K.zeros_like(np.ones((2, 3)))
    >>> K.is_tensor(z), isinstance(z, K.Variable), (z + 1).shape
    (True, False, (2, 3))
    """
    if isinstance(x, _BaseVariable):
        x = x.value
    return ops.zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None, name=None):
    """A tensor of ones shaped like `x` (see `zeros_like`: a tensor, not a variable).

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> K.eval(K.ones_like(np.zeros((1, 3)))).tolist()
    [[1.0, 1.0, 1.0]]
    """
    if isinstance(x, _BaseVariable):
        x = x.value
    return ops.ones_like(x, dtype=dtype)


def int_shape_of(x) -> tuple:
    shape = tuple(x.shape)
    if any(d is None for d in shape):
        raise ValueError(
            f"A variable needs a fully known shape; {_describe(x)} has shape {shape}. "
            "Give the shape explicitly."
        )
    return shape


def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor of `value` (broadcast to `shape` when given).

    >>> from lamina import backend as K
    >>> K.eval(K.constant(7, shape=(2, 2))).tolist()
    [[7.0, 7.0], [7.0, 7.0]]
    """
    dtype = _backend.standardize_dtype(dtype or _backend.floatx())
    array = np.asarray(value, dtype=dtype)
    if shape is not None:
        if array.size == 1:
            array = np.full(tuple(shape), array.reshape(()), dtype=dtype)
        elif array.size == math.prod(shape):
            array = array.reshape(tuple(shape))
        else:
            raise ValueError(
                f"K.constant: a value of {array.size} elements cannot fill shape "
                f"{tuple(shape)}; give a scalar or exactly {math.prod(shape)} elements."
            )
    return _backend.convert_to_tensor(array, dtype=dtype)


def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None, ragged=False):
    """A placeholder: a symbolic input fed by `K.function` (classic `K.placeholder`).

    Args:
        shape: the full shape, batch axis included (`None` for unknown sizes).
        ndim: the rank, when `shape` is not given (every size unknown).
        dtype: default `floatx()`.
        sparse, ragged: not supported (lamina tensors are dense).
        name: the placeholder's name.

    >>> from lamina import backend as K
    >>> x = K.placeholder(shape=(None, 3))
    >>> x.shape, K.is_placeholder(x)
    ((None, 3), True)
    """
    if sparse or ragged:
        raise ValueError(
            "K.placeholder: sparse and ragged placeholders are not supported (lamina "
            "tensors are dense). Feed a dense array instead."
        )
    if shape is None:
        if ndim is None:
            raise ValueError(
                "K.placeholder needs a rank: pass `shape=(None, ...)` (batch axis included) "
                "or `ndim=`. lamina's graph tensors have a known rank."
            )
        shape = (None,) * int(ndim)
    from lamina.layers.input_layer import Input

    return Input(batch_shape=tuple(shape), dtype=dtype or _backend.floatx(), name=name)


def is_placeholder(x) -> bool:
    """True when `x` is a placeholder (a symbolic input made by `placeholder` or `Input`).

    >>> from lamina import backend as K
    >>> K.is_placeholder(K.placeholder(shape=(None, 2))), K.is_placeholder(K.variable([1.0]))
    (True, False)
    """
    if not isinstance(x, KerasTensor) or x._keras_history is None:
        return False
    operation, node_index, _ = x._keras_history
    return operation._inbound_nodes[node_index].is_input


# Values ------------------------------------------------------------------------------
def _upstream_placeholders(tensors) -> list:
    nodes = map_graph([], list(tensors))[0]
    return [t for node in nodes if node.is_input for t in node.output_tensors]


def _evaluate(tensor):
    needed = _upstream_placeholders([tensor])
    if needed:
        raise ValueError(
            f"Tensor {tensor.name!r} depends on the placeholder(s) "
            f"{[t.name for t in needed]}, which have no value outside a function. Feed "
            f"them: `f = K.function([...placeholders], [tensor]); f([...values])`."
        )
    return Function([], [tensor])([])[0]


def eval(x):  # noqa: A001 - the classic name
    """The value of `x` as a NumPy array: a variable, a tensor, or a graph expression
    that needs no placeholder (`K.eval(v * 2)`).

    >>> from lamina import backend as K
    >>> v = K.variable([1.0, 2.0])
    >>> K.eval(v * 2 + 1).tolist()
    [3.0, 5.0]
    """
    if isinstance(x, KerasTensor):
        return _backend.convert_to_numpy(_evaluate(x))
    if isinstance(x, _BaseVariable):
        return _backend.convert_to_numpy(x.value)
    return _backend.convert_to_numpy(x)


def get_value(x):
    """The value of the variable (or tensor) `x` as a NumPy array.

    >>> from lamina import backend as K
    >>> K.get_value(K.variable([[1, 2]])).tolist()
    [[1.0, 2.0]]
    """
    return eval(x)


def batch_get_value(tensors) -> list:
    """`get_value` of each of `tensors`.

    >>> from lamina import backend as K
    >>> [x.tolist() for x in K.batch_get_value([K.variable([1.0]), K.variable([2.0, 3.0])])]
    [[1.0], [2.0, 3.0]]
    """
    return [get_value(x) for x in tensors]


def set_value(x, value) -> None:
    """Assign the NumPy `value` to the variable `x` (its shape must match).

    >>> from lamina import backend as K
    >>> v = K.variable([0.0, 0.0])
    >>> K.set_value(v, [1.5, 2.5])
    >>> K.get_value(v).tolist()
    [1.5, 2.5]
    """
    if not isinstance(x, _BaseVariable):
        raise TypeError(
            f"K.set_value assigns to a variable; received {_describe(x)}. Make one with "
            "K.variable(value)."
        )
    value = np.asarray(value)
    if tuple(value.shape) != tuple(x.shape):
        raise ValueError(
            f"K.set_value: variable {x.path!r} has shape {tuple(x.shape)}; received a value "
            f"of shape {tuple(value.shape)}."
        )
    x.assign(value.astype(x.dtype))


def batch_set_value(tuples) -> None:
    """`set_value` for each `(variable, value)` pair.

    >>> from lamina import backend as K
    >>> a, b = K.variable(0.0), K.variable([0.0, 0.0])
    >>> K.batch_set_value([(a, 1.0), (b, [2.0, 3.0])])
    >>> float(K.get_value(a)), K.get_value(b).tolist()
    (1.0, [2.0, 3.0])
    """
    for x, value in tuples:
        set_value(x, value)


def count_params(x) -> int:
    """The number of scalars in the variable or tensor `x`.

    >>> from lamina import backend as K
    >>> K.count_params(K.zeros((3, 4)))
    12
    """
    return int(math.prod(int_shape_of(x)))


# Gradients ---------------------------------------------------------------------------
def _variables_read(function) -> list:
    """The variables the ops of `function` read (their weights, variables read in the
    graph, variables passed to ops as operands)."""
    found: dict = {}
    for op in function.operations:
        for v in getattr(op, "variables", None) or []:
            found.setdefault(id(v), v)
    for node in function.nodes:
        for leaf in node.call_args:
            if isinstance(leaf, _BaseVariable):
                found.setdefault(id(leaf), leaf)
    return list(found.values())


def _is_input(t) -> bool:
    operation, node_index, _ = t._keras_history
    return operation._inbound_nodes[node_index].is_input


class _GradientPlan:
    """How to differentiate `loss` with respect to graph tensors and variables, as
    TensorFlow's `tf.gradients` did under Keras 2: each target's gradient is the total
    derivative of the (summed) loss with respect to it, along every path, whatever the
    other targets are.

    Each tensor target `t` takes part as `t + delta_t`, and the gradient with respect to
    `t` is the one with respect to `delta_t` at zero; the variables take part through
    their values. A target's value is the one the running graph computed, unless another
    target lies upstream of it: then it is computed again from that target (perturbed),
    so that the other target's gradient flows through it. `sources` are the tensors whose
    values are given (the placeholders, or the inputs of the graph running now).
    """

    def __init__(self, loss, tensors, variables, sources):
        self.variables = list(variables)
        histories = {id(t): {id(n) for n in map_graph([], [t])[0]} for t in tensors}

        def node_of(t):
            operation, node_index, _ = t._keras_history
            return id(operation._inbound_nodes[node_index])

        # Upstream targets first (an ancestor's history is inside its descendant's).
        self.tensors = sorted(tensors, key=lambda t: len(histories[id(t)]))
        own = {id(t) for t in self.tensors}
        self.sources = [x for x in sources if id(x) not in own]
        self.loss_graph = Function(self.tensors + self.sources, loss)
        wanted = {id(v) for v in self.variables}
        given = {id(x) for x in sources}
        self.producers = []
        for i, t in enumerate(self.tensors):
            upstream = [j for j, u in enumerate(self.tensors[:i]) if node_of(u) in histories[id(t)]]
            producer = None
            if id(t) not in given and not _is_input(t):
                inputs = [self.tensors[j] for j in upstream] + self.sources
                graph = Function(inputs, t)
                if upstream or any(id(v) in wanted for v in _variables_read(graph)):
                    producer = (graph, upstream)
            self.producers.append(producer)

    def gradients(self, tensor_values, source_values, training) -> list:
        """The gradients for the tensors' and sources' values of one run, in the order
        `self.tensors + self.variables`; differentiable in turn
        (`backend.execution.grad`): inside a step that differentiates a loss built on
        them, they are part of it."""
        tensor_values, source_values = list(tensor_values), list(source_values)

        def total(primals):
            deltas, values = primals
            with StatelessScope(list(zip(self.variables, values, strict=True))):
                computed = []
                for given, delta, producer in zip(
                    tensor_values, deltas, self.producers, strict=True
                ):
                    if producer is not None:
                        graph, upstream = producer
                        feeds = [computed[j] for j in upstream] + source_values
                        given = graph(feeds, training=training)
                    computed.append(ops.add(given, delta))
                loss = self.loss_graph(computed + source_values, training=training)
            return ops.sum(loss)

        deltas = [ops.zeros_like(v) for v in tensor_values]
        tensor_grads, variable_grads = _backend.execution.grad(total)(
            (deltas, [v.value for v in self.variables])
        )
        return list(tensor_grads) + list(variable_grads)

    def in_order_of(self, targets, grads) -> list:
        by_target = {id(t): g for t, g in zip(self.tensors + self.variables, grads, strict=True)}
        return [by_target[id(t)] for t in targets]


def _targets_by_kind(targets) -> tuple:
    """The distinct graph tensors and the distinct variables among `targets`."""
    tensors = {id(t): t for t in targets if isinstance(t, KerasTensor)}
    variables = {id(t): t for t in targets if isinstance(t, _BaseVariable)}
    return list(tensors.values()), list(variables.values())


def _training_now():
    context = current_call_context()
    return context.training if context is not None else None


class _Gradients(_SourceOperation):
    """The gradients of a loss with respect to graph tensors and variables, as a node.

    Its inputs are the tensors differentiated against, then the placeholders the loss
    and they depend on; running it runs the loss's subgraph inside the engine's autodiff
    (see `_GradientPlan`), with the variables' current values (from the compiled call's
    state).
    """

    _differentiates = True

    def __init__(self, loss, targets):
        super().__init__(name=unique_name("gradients"))
        self._targets = list(targets)
        tensors, variables = _targets_by_kind(targets)
        placeholders = _upstream_placeholders([loss, *tensors])
        self._plan = _GradientPlan(loss, tensors, variables, placeholders)
        self._inputs = self._plan.tensors + self._plan.sources
        found = {id(v): v for v in variables}
        for v in _variables_read(self._plan.loss_graph):
            found.setdefault(id(v), v)
        for producer in self._plan.producers:
            for v in _variables_read(producer[0]) if producer is not None else ():
                found.setdefault(id(v), v)
        self._reads = list(found.values())

    @property
    def variables(self) -> list:
        return self._reads

    def call(self, *feeds):
        count = len(self._plan.tensors)
        grads = self._plan.gradients(feeds[:count], feeds[count:], _training_now())
        return self._plan.in_order_of(self._targets, grads)

    def symbolic(self):
        outputs = [
            KerasTensor(t.shape, t.dtype, name=f"gradient_{t.name.replace('/', '_')}")
            for t in self._targets
        ]
        Node(self, call_args=tuple(self._inputs), outputs=outputs)
        return outputs


def _check_float(x, what) -> None:
    if not _backend.standardize_dtype(x.dtype).startswith(("float", "bfloat")):
        raise ValueError(
            f"K.gradients: {what} has dtype {x.dtype}; only floating-point tensors and "
            "variables have gradients."
        )


def _describe_target(t) -> str:
    if isinstance(t, _BaseVariable):
        return f"variable {t.path!r}"
    if isinstance(t, KerasTensor):
        return f"tensor {t.name!r}"
    return "a tensor"


def gradients(loss, variables):
    """Symbolic gradients of `loss` with respect to `variables` (classic `K.gradients`).

    `loss` is a graph tensor (built from placeholders, variables and layers); a
    non-scalar loss is summed first, as the classic engine did. `variables` is one
    target or a list of them, each a variable or any tensor of the graph: a placeholder
    or `Input` (gradient ascent on an input image), or an intermediate tensor. The
    result is one graph tensor per target, computed by the engine's autodiff each time a
    `K.function` (or a model) that uses it runs, at the values of that moment; a model
    trained with `fit` differentiates through it.

    Inside a layer's call on data (a `Lambda` of a model), `loss` and the targets may
    also be values the running graph computed (the layer's inputs), and the loss a
    `K.sum` or `K.mean` of one taken in the call: the gradient is then computed at once,
    from the part of the graph between them.

    >>> import numpy as np
    >>> from lamina import backend as K, ops
    >>> w = K.variable([3.0])
    >>> x = K.placeholder(shape=(None, 1))
    >>> g_w, g_x = K.gradients(ops.sum(ops.square(x * w)), [w, x])
    >>> data = np.array([[1.0], [2.0]], "float32")
    >>> [a.tolist() for a in K.function([x], [g_w, g_x])([data])]
    [[30.0], [[18.0], [36.0]]]
    """
    single = not isinstance(variables, (list, tuple))
    targets = [variables] if single else list(variables)
    if not isinstance(loss, KerasTensor):
        return _gradients_of_values(loss, targets)
    for t in targets:
        if not isinstance(t, (_BaseVariable, KerasTensor)):
            raise TypeError(
                "K.gradients: each target must be a Variable or a tensor of the graph "
                f"(a placeholder, an Input, a layer's output); received {_describe(t)}."
            )
        if isinstance(t, KerasTensor) and t._keras_history is None:
            raise ValueError(
                f"K.gradients: tensor {t.name!r} was not made by a placeholder, an Input or "
                "a layer call, so it has no place in the graph of the loss."
            )
        _check_float(t, _describe_target(t))
    if not loss.dtype.startswith(("float", "bfloat")):
        raise ValueError(
            f"K.gradients: the loss {loss.name!r} has dtype {loss.dtype}; it must be floating-point."
        )
    return _Gradients(loss, targets).symbolic()


_NOT_IN_GRAPH = (
    "K.gradients received {what}, which is already computed and is not a tensor of a "
    "graph running now. Differentiate graph tensors: build the loss from K.placeholder, "
    "K.variable and layers (`K.gradients(loss, [x])`), or, inside a Lambda layer, pass "
    "the layer's inputs themselves, or a K.sum or K.mean of one "
    "(`K.gradients(K.sum(inputs[0]), inputs[1])`). For eager code use "
    "lamina.backend.value_and_grad."
)


def _gradients_of_values(loss, targets) -> list:
    """`K.gradients` called on values inside a layer's call (see `gradients`)."""
    if in_symbolic_scope():
        # Abstract evaluation of the layer (its output shapes): gradients have the
        # shapes and dtypes of their targets.
        return [ops.zeros_like(t.value if isinstance(t, _BaseVariable) else t) for t in targets]
    found, scale = running_tensor(loss), 1.0
    if found is None:
        # A sum or mean of a graph tensor taken inside the layer (mnist_swwae's
        # `K.gradients(K.sum(y_postpool), y_prepool)`): summed again, as a loss is, it is
        # `scale` times the sum of that tensor.
        reduced = reduced_tensor(loss)
        if reduced is None:
            raise TypeError(_NOT_IN_GRAPH.format(what=f"the loss {_describe(loss)}"))
        *found, scale = reduced
    loss_tensor, function, values = found
    resolved = []
    for t in targets:
        if isinstance(t, _BaseVariable):
            resolved.append(t)
            continue
        tensor = function.tensor_with_value(t, values)
        if tensor is None:
            raise TypeError(_NOT_IN_GRAPH.format(what=f"the target {_describe(t)}"))
        resolved.append(tensor)
    for t in resolved:
        _check_float(t, _describe_target(t))
    _check_float(loss_tensor, f"the loss {loss_tensor.name!r}")
    plan = _value_plan(function, loss_tensor, resolved)
    grads = plan.gradients(
        [values[id(t)] for t in plan.tensors],
        [values[id(x)] for x in plan.sources],
        _training_now(),
    )
    grads = plan.in_order_of(resolved, grads)
    if scale != 1.0:
        grads = [ops.multiply(g, scale) for g in grads]
    return grads


def _value_plan(function, loss_tensor, targets) -> _GradientPlan:
    """The plan differentiating `loss_tensor` with respect to `targets` inside runs of
    `function` (the graph running now), kept on the function for its next runs."""
    key = (id(loss_tensor), *(id(t) for t in targets))
    cache = function.__dict__.setdefault("_lamina_gradient_plans", {})
    entry = cache.get(key)
    if (
        entry is None
        or entry[0] is not loss_tensor
        or any(a is not b for a, b in zip(entry[1], targets))
    ):
        tensors, variables = _targets_by_kind(targets)
        plan = _GradientPlan(loss_tensor, tensors, variables, function.inputs)
        entry = cache[key] = (loss_tensor, list(targets), plan)
    return entry[2]


# The updates (`update`, `update_add`, ...) and `name_scope` live beside this module.
from lamina.legacy.graph_updates import (  # noqa: E402 (they read variables through `read`)
    moving_average_update,
    name_scope,
    update,
    update_add,
    update_sub,
)

__all__ = [
    "ClassicVariable",
    "batch_get_value",
    "batch_set_value",
    "constant",
    "count_params",
    "eval",
    "eye",
    "get_value",
    "gradients",
    "is_placeholder",
    "moving_average_update",
    "name_scope",
    "ones",
    "ones_like",
    "placeholder",
    "read",
    "set_value",
    "update",
    "update_add",
    "update_sub",
    "variable",
    "zeros",
    "zeros_like",
]
