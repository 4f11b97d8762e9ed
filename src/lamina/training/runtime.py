"""A model's runtime record, and the training state it reads and writes.

Everything the training machinery keeps on a model between calls lives in one object,
`model._runtime` (a `Runtime`): the state a running `fit` holds outside the variables,
the engine's captured train step, what a step's forward pass leaves for its loss and
metrics (output masks, each output's loss), the locks that keep threads apart, and the
caches of lists derived from the model (its variables per part of the state, its
metrics, its layers, the compiled program behind `model(x)`). Each field says who
writes it and who reads it.

All of it is made from the model (programs closing over it, caches of its own objects),
so a copy of the model makes its own: `copy.deepcopy` and pickling give the copy a
fresh record, never the original's, which would run the original's steps or serve its
predictions.

The state a step receives is `(trainable, non_trainable, optimizer, metrics)` values:
the model's variables, those of its optimizers (`model.optimizer` first) and of
`model.metrics`. Programs that run on the live variables (a stateful engine's) read
none of it: the variables are the state.
"""

from __future__ import annotations

import threading

from lamina import backend
from lamina import optimizers as optimizers_module
from lamina.backend.common.variables import structure_version
from lamina.training import concurrency, loop_utils


class Runtime:
    """One model's runtime record (see the module docstring)."""

    __slots__ = (
        # fit -----------------------------------------------------------------------------
        # The training state while `fit` runs (`LiveState`), else None. `fit` sets it;
        # predict and `model(x)` read the weights of its last complete step from it.
        "live",
        # The ident of the thread running `fit` (`concurrency.metrics_in_use`).
        "fit_thread",
        # True while `fit` runs with no callback reading a batch's logs: the default
        # stateful train step then skips computing them (`stateful_steps.train_step`).
        "batch_logs_unread",
        # The same for `evaluate` (and fit's validation) and the default test step.
        "test_logs_unread",
        # `(StateLock, RLock)`: the weights lock and the metrics lock, made on first use
        # (`concurrency`).
        "locks",
        # The steps ----------------------------------------------------------------------
        # The default stateful train step's forward pass and loss as the engine captured
        # it (`backend.execution.captured`), set when the train programs are made; None:
        # run it eagerly.
        "forward_and_loss",
        # The default stateful test step's forward pass, loss and metric updates as the
        # engine captured them, set when the test programs are made; None: eagerly.
        "evaluation",
        # The same step returning no logs, for a pass in which no callback reads them.
        "evaluation_unread",
        # `(y_pred, masks)`: the output masks of the forward pass of the step running
        # now, read by its loss and metrics (`steps.masks_for`).
        "step_output_masks",
        # `(y_pred, [loss per output])` the default `compute_loss` computed, for the
        # step's per-output loss trackers.
        "per_output_losses",
        # `model.losses` while a pure step computes the loss: those of its own forward
        # pass (`steps.loss_and_updates`).
        "losses_override",
        # Caches -------------------------------------------------------------------------
        # `(structure version, (trainable, non_trainable, optimizer, metrics variables))`.
        "state_vars",
        # `(structure version, key, [metrics])`: `model.metrics`.
        "metrics",
        # `(graph function, StepData)` packing predict batches.
        "predict_step_data",
        # `serve(x, batch_size)`: `predict`'s shortest path for one batch shape
        # (`batch_methods.lone`), or None.
        "lone_predict",
        # `(variables, program, assigned variables, layers)`: the compiled program
        # behind `model(x)` (`models.calls.compiled_call`).
        "call_entry",
        # `(structure version, layers)`: `model._flatten_layers()` of a graph model.
        "layers",
        # `(structure version, trainable weights)`, for the regularization losses.
        "trainable",
        # `(structure version, layers)` that have a `stateful` attribute.
        "stateful_holders",
        # `(graph function, value)` of these graph models' caches.
        "layers_by_depth",
        "value_dependent",
        "trains_by_default",
        "host_plan",
        # Variables the graph uses as operands of its ops (`Model._runtime_state`).
        "graph_constants",
        # `(graph function, Function)`: the graph extended with the losses added on its
        # tensors (`models.graph_losses`).
        "graph_loss_function",
        # `(structure version, ids of those losses)` once one of them was found to be
        # computed from a trainable weight (`graph_losses.check_reaches_weights`).
        "graph_losses_reach",
        # The sets of input keys the model said it ignores (`models.calls.select_inputs`).
        "ignored_input_keys",
        # `(graph function, input type, input shape)` of the last input `model(x)`
        # checked (`models.calls.conform_inputs`).
        "conformed",
        # `compile`'s trainable variables (a frozenset of ids; None while unbuilt) and
        # the structure version last compared with them (`structures.warn_if_trainable_changed`).
        "compiled_trainable",
        "trainable_checked",
    )

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, None)
        self.batch_logs_unread = False
        self.test_logs_unread = False

    def __deepcopy__(self, memo):
        return Runtime()  # a copied model makes its own

    def __reduce__(self):
        return (Runtime, ())


class RuntimeSlot:
    """`model._runtime`: the record, made on first access, then read straight from the
    instance (a model made without `__init__`, or a subclass that reads it before
    calling `super().__init__()`, gets one too)."""

    def __get__(self, model, owner=None):
        if model is None:
            return self
        record = Runtime()
        # Written to the instance: later reads find it without this descriptor.
        model.__dict__["_runtime"] = record
        return record


# The training state ----------------------------------------------------------------------
# A live program's step reads no state: the variables are the state.
_NO_STATE = {"train": None, "test": (None, None, None), "predict": (None, None)}

# Writes of the state a predict step leaves (a stateful RNN's) from concurrent calls.
_CARRY_LOCK = threading.Lock()


def optimizers_of(model) -> list:
    """`model.optimizer` first, then other optimizers held as attributes (a GAN's)."""
    out = [model.optimizer] if model.optimizer is not None else []
    for value in vars(model).values():
        if isinstance(value, optimizers_module.Optimizer) and all(value is not o for o in out):
            out.append(value)
    return out


def state_variables(model):
    """The variables behind each part of the state, cached until a variable is created
    or a `trainable` flag changes (or the model is recompiled)."""
    version = structure_version()
    record = model._runtime
    cached = record.state_vars
    if cached is not None and cached[0] == version:
        return cached[1]
    optimizer_vars = [v for o in optimizers_of(model) for v in o.variables]
    result = (
        list(model.trainable_variables),
        list(model.non_trainable_variables),
        optimizer_vars,
        list(model.metrics_variables),
    )
    record.state_vars = (version, result)
    return result


def read_state(model, program, kind="train"):
    """The state `program` (a step of `kind`) receives: values read from the variables,
    or for predict those of `fit`'s last complete step while it runs."""
    if program.live:
        return _NO_STATE[kind]
    trainable, non_trainable, opt_vars, metric_vars = state_variables(model)
    if kind != "predict":
        # Donated buffers must be distinct: two variables holding one array (an EMA
        # started from its weight, a user's shared initial value) get their own copy.
        loop_utils.unshare(
            trainable + non_trainable + (opt_vars if kind == "train" else []) + metric_vars
        )
    if kind == "predict":
        live = model._runtime.live
        if live is not None and live.values is not None:
            # `fit` holds newer weights (maybe in another thread, whose next step
            # waits for this reader): those of its last complete step.
            return (live.values[0], live.values[1])
    tv = [v.value for v in trainable]
    ntv = [v.value for v in non_trainable]
    if kind == "predict":
        return (tv, ntv)
    mv = [v.value for v in metric_vars]
    if kind == "train":
        return (tv, ntv, [v.value for v in opt_vars], mv)
    return (tv, ntv, mv)


def write_state(model, state, kind="train"):
    """Write the values a step returned into the variables (None: nothing to write)."""
    if state is None:
        return
    trainable, non_trainable, opt_vars, metric_vars = state_variables(model)
    if kind == "train":
        groups = zip((trainable, non_trainable, opt_vars, metric_vars), state, strict=True)
    elif kind == "non_trainable":
        groups = [(non_trainable, state)]
    else:
        groups = [(metric_vars, state)]
    for variables, values in groups:
        for v, value in zip(variables, values, strict=True):
            v._value = value


def carry_non_trainable(model, weights, non_trainable):
    """After a predict call: keep what the step left in the non-trainable variables
    (a stateful RNN's states, seed states) for the next call and in the model."""
    if non_trainable is None:
        return weights
    with _CARRY_LOCK:  # concurrent predicts: the state written is one call's
        write_state(model, non_trainable, kind="non_trainable")
    return (weights[0], non_trainable)


class LiveState:
    """The training state during `fit`: the values in the variables, or newer values
    held here between compiled calls."""

    def __init__(self, model):
        self.model = model
        self.values = None
        self.in_step = False  # a step is replacing the state (see `steps_finish_on_ctrl_c`)
        self.interrupted = False

    def get(self, program):
        if self.values is None:
            self.values = read_state(self.model, program)
        return self.values

    def set(self, values) -> None:
        if values is None:  # a live program: the variables are already current
            return
        self.values = values
        # Reading or assigning any variable from outside the step (a callback, a
        # closure over the model) writes the state back first.
        backend.set_pending_sync(self.sync)

    def sync(self) -> None:
        """Write the held values into the variables (the next call reads them again,
        so what a callback assigned is what the next step uses)."""
        if self.values is not None:
            with concurrency.state_lock(self.model).writing():
                if self.values is None:  # another thread wrote them meanwhile
                    return
                values, self.values = self.values, None
                backend.set_pending_sync(None)
                write_state(self.model, values)
