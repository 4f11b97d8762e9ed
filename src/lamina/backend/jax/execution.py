"""How a step runs on JAX: `Program`, one compiled program per pure step.

Everything that executes compiled model code goes through here: the train, test and
predict steps of `fit`/`evaluate`/`predict` (`step_programs`: one step or
`steps_per_execution` steps per call, as one `lax.scan`), the `model(x)` fast path and
`backend.function`. So there is one cache policy (at most `max_signatures` compiled
signatures per program; the cache is emptied past that), one trace count per program
(`trace_count`, a warning on retrace storms), one profiling hook (`backend.profile()`
collects each program's calls, compiles and time) and one place where shardings will
go. While a program is traced its stateless scopes are strict: a variable outside the
state it was given is an error, not a silent constant.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

import jax
import numpy as np

from lamina import tree
from lamina.backend.common import execution as _common
from lamina.backend.common import seed_state
from lamina.backend.common.execution import TraceLog
from lamina.backend.common.global_state import fixed_learning_phase
from lamina.backend.common.variables import strict_trace
from lamina.backend.jax import core as jax_core
from lamina.backend.jax import numpy as jax_numpy
from lamina.backend.jax.compilation import step_compiler_options

# Steps are pure functions of the state: `train_step(self, state, data)`.
STATEFUL = False

# `jit_compile="auto"` compiles: every step is traced and compiled whole.
JIT_BY_DEFAULT = True

# int64 data becomes int32 on the host (JAX runs without 64-bit types).
KEEPS_INT64_DATA = False


class Program:
    """A pure function `fn(*args)` compiled with XLA, traced once per input signature.

    Args:
        fn: a pure function of arrays (nested lists/tuples/dicts of them).
        name: what the program is, for messages (`"train step of 'mlp'"`).
        donate_argnums: positional arguments whose buffers the outputs may reuse (the
            state a step replaces); the caller must not read them after the call.
        static_argnums: positional arguments that are Python values, part of the
            signature (a slice size).
        compiled: False runs `fn` as it is, for debugging (`run_eagerly=True`).
        max_signatures: how many compiled signatures are kept before the cache is
            emptied (a long tail of shapes must not hold memory forever).
        gradients: whether the step differentiates (JAX differentiates by
            transformation, so this changes nothing here).
        live: the step works on the live variables (a stateful engine's step); JAX
            steps are pure, so it must be False here.
        jit: the layer whose `call` an eager engine compiles inside the step; ignored
            here, where the whole step is compiled with XLA.
        replay: for an eager engine's read-only step, which variables it reads when
            it may be captured and replayed; ignored here, where every step is traced
            once per signature and compiled.

    >>> import numpy as np
    >>> from lamina import backend
    >>> double = backend.Program(lambda x: x * 2, name="double")
    >>> backend.convert_to_numpy(double(np.ones(3))).tolist(), double.trace_count
    ([2.0, 2.0, 2.0], 1)
    >>> _ = double(np.zeros(3)); double.trace_count  # same signature: no new trace
    1
    """

    # Steps are pure: the state they read is passed in (`live` programs are torch's).
    live = False

    def __init__(
        self,
        fn,
        name: str,
        donate_argnums=(),
        static_argnums=(),
        compiled: bool = True,
        max_signatures: int = 32,
        gradients: bool = False,
        live: bool = False,
        jit=None,
        replay=None,
        compiler_options=None,
    ):
        del jit, replay  # the whole step is compiled already
        if live:
            raise ValueError(
                f"Program {name!r}: `live=True` (a step on the live variables) needs a "
                "stateful engine; JAX steps are pure functions of their state."
            )
        self.fn = fn
        self.name = name
        self.compiled = bool(compiled)
        self.max_signatures = int(max_signatures)
        # XLA options this program is compiled with (`compilation.step_compiler_options`).
        self.compiler_options = dict(compiler_options) if compiler_options else None
        self._log = TraceLog(name)
        self._static = tuple(static_argnums)
        # Traces from several threads at once: the count and signatures stay whole.
        self._lock = threading.Lock()
        if self.compiled:
            # The classic fixed learning phase, read by the steps while they are traced,
            # is part of the signature (`learning_phase`, given only when it is fixed).
            self._jitted = jax.jit(
                self._traced,
                donate_argnums=donate_argnums,
                static_argnums=static_argnums,
                static_argnames=("learning_phase",),
                compiler_options=self.compiler_options,
            )

    @property
    def trace_count(self) -> int:
        """How many times the program was traced (compiled for a new signature)."""
        return self._log.count

    def _traced(self, *args, learning_phase=None):
        *args, seed = args
        with self._lock:
            self._log.record([a for i, a in enumerate(args) if i not in self._static])
        with strict_trace(self.name):
            return self._seeded(args, seed)

    def _seeded(self, args, seed):
        """`(fn(*args), the global seed state's new value or None)`, `fn` run with the
        global seed state at `seed` (see `backend.common.seed_state`)."""
        with seed_state.carried(seed_state.variable(), seed) as carried:
            out = self.fn(*args)
        return out, carried.drawn()

    def __call__(self, *args):
        if _common._ACTIVE:
            return self._profiled(args)
        state = seed_state.variable()
        seed = seed_state.read(state)
        if not self.compiled:
            out, drawn = self._seeded(args, seed)
        else:
            before = self._log.count
            phase = fixed_learning_phase()
            if phase is None:
                out, drawn = self._jitted(*args, seed)
            else:
                out, drawn = self._jitted(*args, seed, learning_phase=phase)
            if self._log.count != before and self._jitted._cache_size() > self.max_signatures:
                self._jitted.clear_cache()
        if drawn is not None:
            seed_state.write(state, drawn)
        return out

    def lone_runner(self, x):
        """`run(state, x)`, the same as `self(state, x)` for `x` a NumPy array of this
        `x`'s shape and dtype, with less looked up on each call (one-sample serving): the
        compiled function called directly. `run` returns None for another signature or
        while a profile collects (the caller then makes the ordinary call, which counts
        and bounds traces). None when the program is not compiled."""
        if not self.compiled or type(x) is not np.ndarray or self._static:
            return None
        shape, dtype, jitted, active = x.shape, x.dtype, self._jitted, _common._ACTIVE
        seed_variable, read_seed, write_seed = (
            seed_state.variable,
            seed_state.read,
            seed_state.write,
        )

        def run(state, x):
            if active or type(x) is not np.ndarray or x.shape != shape or x.dtype != dtype:
                return None
            if fixed_learning_phase() is not None:
                return None
            seed = seed_variable()
            out, drawn = jitted(state, x, read_seed(seed))
            if drawn is not None:
                write_seed(seed, drawn)
            return out

        return run

    def _profiled(self, args):
        # Named in a jax.profiler trace; waits for the results so the time is real.
        before = self._log.count
        start = time.perf_counter()
        state = seed_state.variable()
        seed = seed_state.read(state)
        phase = fixed_learning_phase()
        kwargs = {} if phase is None else {"learning_phase": phase}
        with jax.profiler.TraceAnnotation(self.name):
            if self.compiled:
                out, drawn = self._jitted(*args, seed, **kwargs)
            else:
                out, drawn = self._seeded(args, seed)
            out = jax.block_until_ready(out)
        if drawn is not None:
            seed_state.write(state, drawn)
        if self.compiled and self._jitted._cache_size() > self.max_signatures:
            self._jitted.clear_cache()
        _common.record_call(self.name, time.perf_counter() - start, self._log.count != before)
        return out

    def __repr__(self) -> str:
        return f"<Program {self.name}: traced {self.trace_count} time(s)>"


def gradients(loss, variables):
    raise ValueError(
        "backend.execution.gradients(loss, variables) needs a stateful engine (torch), "
        "where a loss remembers how it was computed. On JAX a loss is a plain value: "
        "differentiate a function of the variables' values with "
        "backend.value_and_grad(fn) (see Model.train_step)."
    )


def no_grad():
    return contextlib.nullcontext()


def grad(fn):
    """The gradient of the scalar `fn(primals)` with respect to `primals`; a JAX
    gradient is itself differentiable, inside a traced step or not."""
    return jax.grad(fn)


def step_form(pure, live):
    """Of the two ways a model's steps are written, the one this engine runs: `pure`.

    Steps here are pure functions of the state, traced and compiled whole.
    """
    return pure


def program(fn, name: str, **kwargs) -> Program:
    """Compile the pure step `fn` into a `Program` (see its arguments)."""
    return Program(fn, name, **kwargs)


# The steps of fit / evaluate / predict --------------------------------------------------
def _last(logs):
    return tree.map_structure(lambda v: v[-1], logs)


def _changed(new, old):
    """`new` unless the step passed every value through untouched (known while
    tracing): then None, and nothing needs writing back after the call."""
    new = list(new)
    if len(new) == len(old) and all(a is b for a, b in zip(new, old)):
        return None
    return new


def _scan(body, carry, xs):
    """`lax.scan(body, carry, xs)` with the global seed state carried from step to step
    beside `carry`, so a step drawing from it draws fresh numbers (see
    `backend.common.seed_state`)."""
    state = seed_state.variable()

    def step(both, x):
        carry, seed = both
        with seed_state.carried(state, seed) as carried:
            carry, y = body(carry, x)
        return (carry, carried.current()), y

    (carry, seed), ys = jax_core.scan(step, (carry, state.value), xs)
    state.assign(seed)
    return carry, ys


def _take_rows(data, rows, n=None):
    """The batch structure `data` with each leaf's rows `rows` gathered (inside a step);
    with `n`, the rows are split into `n` equal batches on a new axis 0."""

    def take(a):
        taken = jax_numpy.take(a, rows, axis=0)
        return taken if n is None else jax_numpy.reshape(taken, (n, -1) + tuple(a.shape[1:]))

    return tree.pack_sequence_as(data, [None if a is None else take(a) for a in tree.flatten(data)])


def _slice_rows(data, start, size: int):
    """The batch structure `data` with each leaf's `size` rows from `start` (traced)."""

    def rows(a):
        return jax_core.slice(a, [start] + [0] * (len(a.shape) - 1), (size,) + tuple(a.shape[1:]))

    return tree.pack_sequence_as(data, [None if a is None else rows(a) for a in tree.flatten(data)])


def step_programs(model, kind: str, replay=None) -> dict:
    """The programs `fit` (`kind="train"`), `evaluate` (`"test"`) or `predict`
    (`"predict"`) run, by form, each a pure function of the state compiled with XLA.

    The model's step is looked up when a program is traced, so a subclass's override is
    what runs: `model.train_step(state, data) -> (logs, state)`, `model.test_step(state,
    data)`, `model.predict_step(state, data) -> (outputs, non_trainable)`.

    - `"train"`: `(state, data) -> (state, logs)` with the state donated, in the forms
      `"one"` (a batch), `"many"` (`steps_per_execution` batches stacked on a new axis 0,
      one `lax.scan`), and for a training set resident on the device `"one_from"` /
      `"many_from"` (`(state, data, start(s), size)`: contiguous batches sliced in the
      program) and `"one_at"` / `"many_at"` (`(state, data, rows)`: one gather per call).
    - `"test"`: `"one"` / `"many"`, `(weights, metrics_values, data) -> (metrics_values,
      logs)`; only the metric state is donated, the weights stay in the variables.
    - `"predict"`: `"one"` / `"many"`, `(weights, data) -> (outputs, non_trainable)`,
      the outputs of a chunk stacked on axis 0; `non_trainable` is None when the step
      left those values (an RNN's states, seed states) as it found them.

    `model.run_eagerly` runs the steps uncompiled. `replay` is an eager engine's (see
    `Program`) and ignored here.
    """
    del replay
    options = step_compiler_options(model._flatten_layers()) if not model.run_eagerly else None

    def program(fn, form, **kwargs):
        return Program(
            fn,
            f"{kind} step ({form}) of model {model.name!r}",
            compiled=not model.run_eagerly,
            compiler_options=options,
            **kwargs,
        )

    if kind == "train":
        return {
            form: program(
                fn,
                form,
                donate_argnums=(0,),
                static_argnums=(3,) if form.endswith("_from") else (),
                gradients=True,
            )
            for form, fn in _train_forms(model).items()
        }
    if kind == "test":
        return {form: program(fn, form, donate_argnums=(1,)) for form, fn in _test_forms(model)}
    if kind == "predict":
        return {form: program(fn, form) for form, fn in _predict_forms(model)}
    raise ValueError(
        f"step_programs: kind must be 'train', 'test' or 'predict'; received {kind!r}."
    )


def _train_forms(model) -> dict:
    def one(state, data):
        logs, state = model.train_step(state, data)
        return state, logs

    def many(state, chunk):
        state, logs = _scan(one, state, chunk)
        return state, _last(logs)

    def one_from(state, data, start, size):
        return one(state, _slice_rows(data, start, size))

    def many_from(state, data, starts, size):
        def body(carry, start):
            return one(carry, _slice_rows(data, start, size))

        state, logs = _scan(body, state, starts)
        return state, _last(logs)

    def one_at(state, data, rows):
        return one(state, _take_rows(data, rows))

    def many_at(state, data, rows):
        n = rows.shape[0]
        return many(state, _take_rows(data, jax_numpy.reshape(rows, (-1,)), n))

    return {
        "one": one,
        "many": many,
        "one_from": one_from,
        "many_from": many_from,
        "one_at": one_at,
        "many_at": many_at,
    }


def _test_forms(model):
    def one(weights, metrics_values, data):
        trainable, non_trainable = weights
        logs, state = model.test_step((trainable, non_trainable, metrics_values), data)
        return state[2], logs

    def many(weights, metrics_values, chunk):
        metrics_values, logs = _scan(lambda mv, d: one(weights, mv, d), metrics_values, chunk)
        return metrics_values, _last(logs)

    return (("one", one), ("many", many))


def _predict_forms(model):
    def one(weights, data):
        outputs, non_trainable = model.predict_step(weights, data)
        return outputs, _changed(non_trainable, weights[1])

    def many(weights, chunk):
        changed = []

        def body(non_trainable, data):
            outputs, new = model.predict_step((weights[0], non_trainable), data)
            changed.append(_changed(new, non_trainable) is not None)
            return list(new), outputs

        non_trainable, outputs = _scan(body, list(weights[1]), chunk)
        return outputs, non_trainable if any(changed) else None

    return (("one", one), ("many", many))


def captured(fn, name: str, variables_for):
    """`fn` itself: a JAX step is traced and compiled whole, so nothing inside it is
    captured on its own (torch captures a stateful step's forward pass)."""
    return fn


@contextlib.contextmanager
def profile_trace(log_dir):
    """Run `jax.profiler` over the block; its trace lands in `log_dir/plugins/profile/<run>/`.

    That folder (an `.xplane.pb` per host) is what TensorBoard's profile plugin reads.
    """
    jax.profiler.start_trace(os.fspath(log_dir))
    try:
        yield
    finally:
        jax.profiler.stop_trace()
