"""The classic backend's control flow: `K.switch`, `K.rnn`, `K.map_fn`, `K.foldl`,
`K.foldr`.

Each runs eagerly on arrays and, given a KerasTensor, becomes one graph node (its
Python callables run when the graph runs). Loops are `lamina.ops.scan`, so they compile
as one loop. Public through `lamina.legacy.backend_ops` (and `lamina.backend`).
"""

from __future__ import annotations

import builtins

from lamina import ops, tree
from lamina.legacy._backend_util import _composite, _tensor, int_shape, ndim


# Control flow ---------------------------------------------------------------------------
def _call_if_callable(value):
    return value() if callable(value) else value


@_composite
def switch(condition, then_expression, else_expression):
    """`then_expression` where `condition` holds, else `else_expression`.

    A scalar `condition` picks one branch (callables are called for that branch only,
    as one conditional when compiled). A condition of lower rank than the expressions
    selects along their leading axes: a `(batch,)` condition picks whole samples.

    >>> from lamina import backend as K
    >>> condition = K.constant([True, False])
    >>> K.eval(K.switch(condition, K.constant([1, 2]), K.constant([10, 20]))).tolist()
    [1.0, 20.0]
    """
    condition = ops.cast(condition, "bool")
    cond_ndim = ndim(condition)
    if cond_ndim == 0 and (callable(then_expression) or callable(else_expression)):
        return ops.cond(
            condition,
            lambda: _call_if_callable(then_expression),
            lambda: _call_if_callable(else_expression),
        )
    then_value = ops.convert_to_tensor(_call_if_callable(then_expression))
    else_value = ops.convert_to_tensor(_call_if_callable(else_expression))
    expr_ndim = builtins.max(ndim(then_value), ndim(else_value))
    if cond_ndim > expr_ndim:
        raise ValueError(
            f"K.switch: the condition's rank ({cond_ndim}) must not exceed the rank of the "
            f"expressions ({expr_ndim})."
        )
    if cond_ndim > 0:
        condition = ops.reshape(condition, int_shape(condition) + (1,) * (expr_ndim - cond_ndim))
    return ops.where(condition, then_value, else_value)


def _time_major(x):
    return ops.swapaxes(x, 0, 1)


@_composite
def rnn(
    step_function,
    inputs,
    initial_states,
    go_backwards=False,
    mask=None,
    constants=None,
    unroll=False,
    input_length=None,
    time_major=False,
    zero_output_for_mask=False,
):
    """Iterate `step_function` over the time axis of `inputs` (Keras 2's `K.rnn`).

    Args:
        step_function: `(input_t, states) -> (output_t, new_states)`, where `states` is
            the list of states followed by `constants`.
        inputs: `(batch, time, ...)` (or `(time, batch, ...)` with `time_major=True`);
            a list or tuple of such tensors is iterated together.
        initial_states: list of `(batch, ...)` tensors.
        go_backwards: iterate from the last step to the first (outputs in that order).
        mask: `(batch, time)` booleans; a masked step keeps the states and repeats the
            previous output (zeros with `zero_output_for_mask=True`).
        constants: tensors passed to every step after the states.
        unroll: accepted for compatibility; the loop is compiled as a scan either way.
        input_length: ignored (as in Keras 2 with TensorFlow).

    Returns:
        `(last_output, outputs, new_states)`: `outputs` is `(batch, time, ...)` (time
        first with `time_major=True`).

    >>> import numpy as np
    >>> from lamina import backend as K
    >>> step = lambda x_t, states: (x_t + states[0], [x_t + states[0]])
    >>> last, outputs, states = K.rnn(step, K.constant(np.ones((1, 3, 2))), [K.zeros((1, 2))])
    >>> K.eval(outputs)[0].tolist(), K.eval(last).tolist()
    ([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [[3.0, 3.0]])
    """
    del unroll, input_length
    constants = [_tensor(c) for c in constants or []]
    inputs = tree.map_structure(_tensor, inputs)
    initial_states = [_tensor(s) for s in initial_states]
    mask = _tensor(mask)
    xs = inputs if time_major else tree.map_structure(_time_major, inputs)
    if mask is not None:
        mask = ops.cast(mask, "bool")
        if ndim(mask) == 3:
            mask = ops.squeeze(mask, -1)
        if not time_major:
            mask = ops.swapaxes(mask, 0, 1)
    if go_backwards:
        xs = tree.map_structure(lambda x: ops.flip(x, 0), xs)
        if mask is not None:
            mask = ops.flip(mask, 0)
    states = list(initial_states)

    def step(x_t, states_t):
        output, new_states = step_function(x_t, list(states_t) + constants)
        return output, list(new_states)

    def masked(m_t, new, old):
        m = ops.reshape(m_t, int_shape(m_t) + (1,) * (ndim(new) - 1))
        return ops.where(m, new, old)

    # The first step runs outside the loop, to learn the output's shape.
    first = tree.map_structure(lambda x: x[0], xs)
    output, new_states = step(first, states)
    if mask is not None:
        zero = ops.zeros_like(output)
        output = masked(mask[0], output, zero)
        new_states = [masked(mask[0], n, o) for n, o in zip(new_states, states, strict=True)]
    num_steps = int_shape(tree.flatten(xs)[0])[0]
    if num_steps == 1:
        outputs = ops.expand_dims(output, 0)
        last_states = new_states
    else:
        rest = tree.map_structure(lambda x: x[1:], xs)

        def body(carry, inputs_t):
            prev_output, prev_states = carry
            if mask is None:
                x_t = inputs_t
            else:
                x_t, m_t = inputs_t
            out, states_t = step(x_t, prev_states)
            if mask is not None:
                keep = ops.zeros_like(out) if zero_output_for_mask else prev_output
                out = masked(m_t, out, keep)
                states_t = [masked(m_t, n, o) for n, o in zip(states_t, prev_states, strict=True)]
            return (out, states_t), out

        scan_xs = rest if mask is None else (rest, mask[1:])
        (_, last_states), tail = ops.scan(body, (output, new_states), scan_xs)
        outputs = ops.concatenate([ops.expand_dims(output, 0), tail], axis=0)
    last_output = outputs[-1]
    if not time_major:
        outputs = _time_major(outputs)
    return last_output, outputs, list(last_states)


@_composite
def map_fn(fn, elems, name=None, dtype=None):
    """`fn` applied to each element of `elems` along axis 0, the results stacked.

    >>> from lamina import backend as K
    >>> K.eval(K.map_fn(lambda row: K.sum(row), K.constant([[1, 2], [3, 4]]))).tolist()
    [3.0, 7.0]
    """
    elems = tree.map_structure(_tensor, elems)
    _, ys = ops.scan(lambda carry, x: (carry, fn(x)), 0, elems)
    return ys


def _fold(fn, elems, initializer, reverse):
    elems = tree.map_structure(_tensor, elems)
    initializer = tree.map_structure(_tensor, initializer)
    if initializer is None:
        first = tree.map_structure(lambda x: x[-1] if reverse else x[0], elems)
        elems = tree.map_structure(lambda x: x[:-1] if reverse else x[1:], elems)
        initializer = first
    carry, _ = ops.scan(lambda acc, x: (fn(acc, x), None), initializer, elems, reverse=reverse)
    return carry


@_composite
def foldl(fn, elems, initializer=None, name=None):
    """Reduce `elems` from the first element: `acc = fn(acc, x)`.

    Without `initializer`, the first element starts the accumulator.

    >>> import numpy as np
    >>> float(foldl(lambda acc, x: acc * 10 + x, np.array([1.0, 2.0, 3.0])))
    123.0
    """
    return _fold(fn, elems, initializer, reverse=False)


@_composite
def foldr(fn, elems, initializer=None, name=None):
    """Reduce `elems` from the last element: `acc = fn(acc, x)`.

    >>> import numpy as np
    >>> float(foldr(lambda acc, x: acc * 10 + x, np.array([1.0, 2.0, 3.0])))
    321.0
    """
    return _fold(fn, elems, initializer, reverse=True)


__all__ = [
    name
    for name, value in sorted(globals().items())
    if not name.startswith("_")
    and callable(value)
    and getattr(value, "__module__", None) == __name__
]
