"""Connectionist temporal classification: the CTC loss and CTC decoding.

Written once from other ops, so they run on every engine. The loss is the forward
algorithm in log space: a scan over time of the log-probabilities `alpha[s]` of having
emitted the first `s` symbols of the label with blanks between (`2 * label_length + 1`
states), differentiable through the engine's autodiff. Greedy decoding is ops too;
beam search runs on the host (NumPy) on concrete values.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from lamina import backend
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.graph.operation import FunctionOperation, any_symbolic, symbolic_call
from lamina.ops import core
from lamina.ops.math import logsumexp
from lamina.ops.nn import log_softmax, one_hot
from lamina.ops.numpy import (
    arange,
    argmax,
    argsort,
    concatenate,
    einsum,
    equal,
    expand_dims,
    full,
    greater,
    less,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    max,
    not_equal,
    pad,
    reshape,
    stack,
    sum,
    take_along_axis,
    where,
)

# A log-probability that stands for "impossible" yet keeps every sum and gradient finite.
_LOG_ZERO = -1e5


def _float_dtype(x) -> str:
    return backend.result_type(core._tensor_dtype(x), "float32")


def _ctc_loss(target, output, target_length, output_length, mask_index=0):
    target = core.cast(target, "int32")
    output = core.convert_to_tensor(output)
    output = core.cast(output, _float_dtype(output))
    target_length = core.cast(target_length, "int32")
    output_length = core.cast(output_length, "int32")
    batch, num_steps, num_classes = core.shape(output)
    max_label = core.shape(target)[1]
    num_states = 2 * max_label + 1
    log_probs = log_softmax(output, axis=-1)

    # The extended label: blank, l1, blank, l2, ..., blank. Padding past a label's length
    # only feeds states beyond its end, which never flow back.
    blanks = full((batch, max_label), mask_index, dtype="int32")
    extended = reshape(stack([blanks, target], axis=-1), (batch, 2 * max_label))
    extended = concatenate([extended, full((batch, 1), mask_index, dtype="int32")], axis=1)
    emit = einsum("btc,bsc->tbs", log_probs, one_hot(extended, num_classes, dtype="float32"))
    # A state may also be entered from two back when it is a label distinct from the
    # label two back (never a blank, never a repeat).
    two_back = pad(extended[:, :-2], [(0, 0), (2, 0)], constant_values=-1)
    can_skip = logical_and(not_equal(extended, mask_index), not_equal(extended, two_back))
    skip_penalty = where(can_skip, 0.0, _LOG_ZERO)
    steps_valid = less(expand_dims(arange(num_steps), 1), expand_dims(output_length, 0))

    start = full((batch, num_states), _LOG_ZERO, dtype=core._tensor_dtype(log_probs))
    start = where(less(arange(num_states), 2), 0.0, start)
    first = start + emit[0]

    def step(alpha, inputs):
        emit_t, valid_t = inputs
        one_back = pad(alpha[:, :-1], [(0, 0), (1, 0)], constant_values=_LOG_ZERO)
        two = pad(alpha[:, :-2], [(0, 0), (2, 0)], constant_values=_LOG_ZERO) + skip_penalty
        new = logsumexp(stack([alpha, one_back, two], axis=0), axis=0) + emit_t
        return where(expand_dims(valid_t, 1), new, alpha), None

    final, _ = core.scan(step, first, (emit[1:], steps_valid[1:]))
    last = one_hot(2 * target_length, num_states, dtype=core._tensor_dtype(final))
    before_last = one_hot(2 * target_length - 1, num_states, dtype=core._tensor_dtype(final))
    end_blank = sum(final * last, axis=1)
    end_label = where(greater(target_length, 0), sum(final * before_last, axis=1), _LOG_ZERO)
    return -logaddexp(end_blank, end_label)


def _greedy(inputs, sequence_lengths, merge_repeated, mask_index):
    inputs = core.convert_to_tensor(inputs)
    inputs = core.cast(inputs, _float_dtype(inputs))
    lengths = core.cast(sequence_lengths, "int32")
    batch, num_steps, _ = core.shape(inputs)
    steps = expand_dims(arange(num_steps), 0)
    beyond = logical_not(less(steps, expand_dims(lengths, 1)))
    best = where(beyond, mask_index, core.cast(argmax(inputs, axis=-1), "int32"))
    scores = where(beyond, 0.0, max(inputs, axis=-1))
    dropped = equal(best, mask_index)
    if merge_repeated:
        repeat = pad(equal(best[:, 1:], best[:, :-1]), [(0, 0), (1, 0)], constant_values=False)
        dropped = logical_or(dropped, repeat)
    labels = where(dropped, -1, best)
    # Kept labels move to the front in time order: sort by a key unique to each step.
    order = argsort(where(dropped, steps + num_steps, steps), axis=-1)
    labels = take_along_axis(labels, order, axis=-1)
    return expand_dims(labels, 0), expand_dims(-sum(scores, axis=1), 1)


def _log_softmax_np(x):
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def _add_scores(beams: dict, prefix: tuple, blank_score, label_score) -> None:
    blank, label = beams.get(prefix, (-np.inf, -np.inf))
    beams[prefix] = (np.logaddexp(blank, blank_score), np.logaddexp(label, label_score))


def _beam_search_one(log_probs, length, beam_width, top_paths, blank):
    """Prefix beam search of one sample: the best `top_paths` label paths and scores."""
    num_classes = log_probs.shape[-1]
    lae = np.logaddexp
    first = log_probs[0]
    beams = {}
    for c in np.argsort(first, kind="stable")[::-1][: builtins.min(num_classes, beam_width)]:
        c = int(c)
        beams[() if c == blank else (c,)] = (
            (first[c], -np.inf) if c == blank else (-np.inf, first[c])
        )
    for t in range(1, length):
        x = log_probs[t]
        grown: dict = {}
        add = functools.partial(_add_scores, grown)

        for prefix, (b, nb) in beams.items():
            total = lae(b, nb)
            add(prefix, total + x[blank], -np.inf)
            last = prefix[-1] if prefix else None
            for c in range(num_classes):
                if c == blank:
                    continue
                if c == last:
                    add(prefix, -np.inf, nb + x[c])
                    add(prefix + (c,), -np.inf, b + x[c])
                else:
                    add(prefix + (c,), -np.inf, total + x[c])
        ranked = sorted(grown.items(), key=lambda kv: -lae(*kv[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: -lae(*kv[1]))[:top_paths]
    return [(prefix, lae(*scores)) for prefix, scores in ranked]


def _beam_search(inputs, sequence_lengths, beam_width, top_paths, mask_index):
    try:
        values = core.convert_to_numpy(inputs)
        lengths = core.convert_to_numpy(sequence_lengths)
    except Exception as error:  # a tracer in compiled code has no values
        raise ValueError(
            "ctc_decode(strategy='beam_search') runs on the host and needs concrete values; "
            "it cannot run inside compiled code. Decode the predictions eagerly (e.g. the "
            "output of model.predict), or use strategy='greedy' inside the model."
        ) from error
    dtype = backend.result_type(str(values.dtype), "float32")
    log_probs = _log_softmax_np(values.astype("float64"))
    batch, num_steps, _ = values.shape
    paths = np.full((top_paths, batch, num_steps), -1, dtype="int32")
    scores = np.full((batch, top_paths), -np.inf)
    for b in range(batch):
        found = _beam_search_one(log_probs[b], int(lengths[b]), beam_width, top_paths, mask_index)
        for k, (prefix, score) in enumerate(found):
            paths[k, b, : len(prefix)] = prefix
            scores[b, k] = score
    return (
        core.convert_to_tensor(paths),
        core.convert_to_tensor(scores.astype(dtype)),
    )


# Compiled as one program where the engine compiles (JAX): eager calls then cost one
# compilation per shape instead of one per inner op.
_ctc_loss_program = backend.jit(_ctc_loss, static_argnums=(4,))
_greedy_program = backend.jit(_greedy, static_argnums=(2, 3))


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss of each sample: `-log p(target | output)` over all alignments.

    Args:
        target: `(batch, max_label_length)` integer labels (entries past a sample's
            length are ignored).
        output: `(batch, max_length, num_classes)` logits (log-softmax is applied).
        target_length: `(batch,)` label lengths.
        output_length: `(batch,)` valid time steps of each sample.
        mask_index: the blank class.

    Returns:
        `(batch,)` losses. An impossible alignment (a label too long for its output)
        gives a large finite loss (about 1e5) rather than infinity.

    >>> import numpy as np
    >>> logits = np.zeros((1, 2, 2), "float32")  # two equally likely classes
    >>> from lamina import ops
    >>> loss = ops.ctc_loss(np.array([[1]]), logits, np.array([1]), np.array([2]))
    >>> round(float(loss[0]), 4)  # paths 1-1, 1-blank, blank-1 of 4: -log(3/4)
    0.2877
    """
    args = (target, output, target_length, output_length)
    if any_symbolic(args):
        return symbolic_call(_kernel_or_own, "ctc_loss", args, {"mask_index": mask_index})
    args = [core.convert_to_tensor(core._read(a)) for a in args]
    loss = backend.nn.ctc_loss(*args, mask_index)
    return _ctc_loss_program(*args, mask_index) if loss is None else loss


def _kernel_or_own(target, output, target_length, output_length, mask_index=0):
    """The engine's CTC kernel where it has one (torch's), else the forward algorithm."""
    loss = backend.nn.ctc_loss(target, output, target_length, output_length, mask_index)
    if loss is None:
        return _ctc_loss(target, output, target_length, output_length, mask_index)
    return loss


def _ctc_decode(
    inputs, sequence_lengths, strategy, beam_width, top_paths, merge_repeated, mask_index
):
    if strategy == "greedy":
        return _greedy_program(inputs, sequence_lengths, merge_repeated, mask_index)
    return _beam_search(inputs, sequence_lengths, beam_width, top_paths, mask_index)


def ctc_decode(
    inputs,
    sequence_lengths,
    strategy="greedy",
    beam_width=100,
    top_paths=1,
    merge_repeated=True,
    mask_index=0,
):
    """Decode CTC outputs into label sequences.

    Args:
        inputs: `(batch, max_length, num_classes)` logits or log-probabilities.
        sequence_lengths: `(batch,)` valid time steps of each sample.
        strategy: `"greedy"` (the best class of each step; repeats merged when
            `merge_repeated`, blanks dropped; runs anywhere, compiled code included) or
            `"beam_search"` (prefix beam search over `beam_width` prefixes; runs on the
            host on concrete values).
        beam_width: prefixes kept per step in beam search.
        top_paths: how many of the best paths beam search returns.
        merge_repeated: greedy only: merge repeated classes not separated by a blank.
        mask_index: the blank class.

    Returns:
        `(decoded, scores)`: `decoded` is `(top_paths, batch, max_length)` int32 labels
        padded with -1 (greedy: `top_paths` is 1); `scores` is `(batch, top_paths)`:
        for greedy the negative sum of each step's best input value, for beam search
        the log-probability of each path.

    >>> import numpy as np
    >>> from lamina import ops
    >>> logits = np.log(np.array([[[0.1, 0.9], [0.1, 0.9], [0.9, 0.1]]], "float32"))
    >>> decoded, _ = ops.ctc_decode(logits, np.array([3]))
    >>> ops.convert_to_numpy(decoded).tolist()
    [[[1, -1, -1]]]
    """
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(
            f"ctc_decode: unknown strategy {strategy!r}; expected 'greedy' or 'beam_search'."
        )
    args = (inputs, sequence_lengths)
    options = (strategy, beam_width, top_paths, merge_repeated, mask_index)
    if not any_symbolic(args):
        return _ctc_decode(*[core.convert_to_tensor(core._read(a)) for a in args], *options)
    if strategy == "greedy":
        return symbolic_call(_ctc_decode, "ctc_decode", args + options, {})
    # Beam search cannot be evaluated abstractly (it needs values): its spec is known.
    batch, max_length, _ = inputs.shape
    outputs = (
        KerasTensor((top_paths, batch, max_length), "int32"),
        KerasTensor((batch, top_paths), _float_dtype(inputs)),
    )
    operation = FunctionOperation(_ctc_decode, "ctc_decode")
    Node(operation, call_args=args + options, call_kwargs={}, outputs=outputs)
    return outputs


__all__ = ["ctc_decode", "ctc_loss"]
