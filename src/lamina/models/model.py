"""Model: a layer with training methods, built three ways.

* Functional: `Model(inputs, outputs)` maps the graph between KerasTensors (a `Function`)
  and gets one inbound node of its own, node 0, linking its inputs to its outputs. Calling
  it on new tensors adds node 1, 2, ...; it can be nested in other models and shared.
* Subclassed: `class MyModel(Model)` with layers as attributes and a `call` method.
* `Sequential` (in `sequential.py`): a functional model built from a stack of layers.
"""

from __future__ import annotations

import inspect
import json
import warnings

import numpy as np

from lamina import ops, saving, tree
from lamina.backend import core as backend_core
from lamina.backend import execution as backend_execution
from lamina.backend.common import variables as backend_variables
from lamina.backend.common.global_state import unique_name
from lamina.backend.common.variables import StatelessScope, in_stateless_scope
from lamina.common import serialization
from lamina.common.traceback_utils import filter_traceback, unfiltered_traceback
from lamina.graph.function import Function, _is_input_tensor, clone_graph_nodes
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.node import Node
from lamina.graph.operation import Operation, current_call_context
from lamina.layers.input_layer import Input, InputLayer
from lamina.layers.input_spec import shapes_differ
from lamina.layers.layer import (
    _BASE_GET_CONFIGS,
    _BASE_INITS,
    Layer,
    _hold_losses,
    _shapes_to_specs,
    _tuplify,
)
from lamina.layers.quantization import quantize_model
from lamina.models import functional_config, summary_utils
from lamina.models.host_part import HostPrepared, host_plan
from lamina.ops.core import _SpecifiedOperation
from lamina.training import concurrency, data_adapter
from lamina.training.trainer import Trainer


def _input_standing_for(tensor):
    """A new Input for an intermediate tensor given as a model input (Keras's name)."""
    return Input(batch_shape=tensor.shape, dtype=tensor.dtype, name=f"{tensor.name}CLONE")


_GET_CONFIG_EXAMPLE = """
    class MyModel(lamina.Model):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            ...

        def get_config(self):
            return {**super().get_config(), "units": self.units}
"""


def _require_own_get_config(cls) -> None:
    """Refuse to describe a subclass whose constructor takes arguments it cannot recover.

    The base config holds only `name`, `trainable` and `dtype`; a model built from it
    would miss (or silently default) the subclass's own constructor arguments.
    """
    if cls.get_config is not Model.get_config:
        return
    init = cls.__init__
    if init is Model.__init__:
        return
    params = [
        p.name
        for p in inspect.signature(init).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]
    if params:
        raise NotImplementedError(
            f"Model subclass {cls.__name__} takes constructor arguments {params} but does "
            "not override `get_config()`, so its config (and `to_json`, `save`) cannot "
            "re-create it. Override `get_config` to return them, e.g.:\n" + _GET_CONFIG_EXAMPLE
        )


class Model(Trainer, Layer):
    """A trainable graph of layers: `Model(inputs, outputs)` or a subclass with `call`.

    Args:
        inputs: a KerasTensor from `Input`, or a list or dict of them (functional models).
        outputs: KerasTensor(s) computed from `inputs` (a tensor, list or dict).
        name: the model's name (default `"functional"`, then `"functional_1"`, ...).

    >>> import numpy as np
    >>> from lamina import Input, layers
    >>> x = Input((3,), name="x")
    >>> model = Model(x, layers.Dense(2, name="out")(x))
    >>> [layer.name for layer in model.layers]
    ['x', 'out']
    >>> model(np.ones((4, 3))).shape
    (4, 2)
    >>> len(model._inbound_nodes)
    1
    """

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if args:
            if len(args) > 2:
                raise TypeError(
                    f"Model takes (inputs, outputs) positionally; received {len(args)} arguments."
                )
            inputs = args[0]
            outputs = args[1] if len(args) > 1 else outputs
        self._function = None
        self._is_graph_network = False
        Trainer.__init__(self)
        if inputs is None and outputs is None:
            Layer.__init__(self, **kwargs)
            return
        if inputs is None or outputs is None:
            raise ValueError(
                "A functional Model needs both `inputs` and `outputs`; received "
                f"inputs={inputs!r}, outputs={outputs!r}."
            )
        self._init_graph(inputs, outputs, **kwargs)

    def _init_graph(self, inputs, outputs, name=None, trainable=True, **kwargs):
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if name is None:
            name = unique_name("functional")
        Layer.__init__(self, name=name, trainable=trainable, **kwargs)
        if not all(
            _is_input_tensor(x)
            for x in tree.flatten(inputs)
            if isinstance(x, KerasTensor) and x._keras_history is not None
        ):
            # A model cut from the middle of a graph starts at Inputs of its own.
            inputs, outputs = clone_graph_nodes(inputs, outputs, _input_standing_for)
        function = Function(inputs, outputs, name=name)
        self._function = function
        self._is_graph_network = True
        self._layers = [op for op in function.operations if isinstance(op, Layer)]
        self.built = True
        # Node 0 links this model's inputs to its outputs (classic Keras's Container).
        Node(self, call_args=(inputs,), call_kwargs={}, outputs=outputs, stamp_outputs=False)
        if not trainable:
            self.trainable = False

    # Graph accessors -----------------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The model's layers: graph order for functional models, attribute order else."""
        if self._function is not None:
            return list(self._layers)
        return self._sublayers()

    @layers.setter
    def layers(self, _):
        raise AttributeError("`model.layers` is read-only; use `Sequential.add` or rebuild.")

    @property
    def inputs(self):
        return list(self._function.inputs) if self._function is not None else None

    @property
    def outputs(self):
        return list(self._function.outputs) if self._function is not None else None

    @property
    def output(self):
        """The output tensor(s) of a graph model, in the structure it was built with (a
        tensor, a list, a tuple or a dict), as Keras 3's functional models give it."""
        if self._function is not None:
            return self._function._outputs_struct
        return super().output

    @property
    def input_names(self) -> list[str]:
        return [x._keras_history.operation.name for x in self._function.inputs]

    @property
    def output_names(self) -> list[str]:
        if isinstance(self._function._outputs_struct, dict):
            return sorted(self._function._outputs_struct)
        return [x._keras_history.operation.name for x in self._function.outputs]

    @property
    def _input_layers(self):
        return [x._keras_history.operation for x in self._function.inputs]

    @property
    def _output_layers(self):
        return [x._keras_history.operation for x in self._function.outputs]

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer of the model by `name` or by `index` in `layers`."""
        if (name is None) == (index is None):
            raise ValueError("Pass exactly one of `name` or `index` to get_layer.")
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"get_layer(index={index}) is out of range: model {self.name!r} has "
                    f"{len(layers)} layers."
                )
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No layer named {name!r} in model {self.name!r}. Layer names: "
            f"{[layer.name for layer in layers]}."
        )

    # Keras 2's state API ----------------------------------------------------------------
    def reset_states(self) -> None:
        """Reset the states of every stateful layer inside (stateful RNNs), nested
        models included (Keras 2's `Model.reset_states`)."""
        for layer in self._flatten_layers(include_self=False):
            if isinstance(layer, Model):
                continue  # its layers are in this walk already
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    @property
    def stateful(self) -> bool:
        """True when some layer inside keeps state across batches (a stateful RNN)."""
        override = self.__dict__.get("_stateful_override")
        if override is not None:
            return override
        # `predict` asks on every call: the layers that have a `stateful` attribute are
        # kept per structure version (the uncached walk cost ~0.15 ms per call, and an
        # attribute a layer lacks is slow to miss on a torch module).
        version = backend_variables.structure_version()
        cached = self.__dict__.get("_stateful_holders")
        if cached is None or cached[0] != version:
            holders = [
                layer
                for layer in self._flatten_layers()
                if layer is not self
                and ("stateful" in layer.__dict__ or hasattr(type(layer), "stateful"))
            ]
            cached = self.__dict__["_stateful_holders"] = (version, holders)
        return any(layer.stateful is True for layer in cached[1])

    @stateful.setter
    def stateful(self, value) -> None:
        self.__dict__["_stateful_override"] = bool(value)

    @property
    def uses_learning_phase(self) -> bool:
        """True when some layer behaves differently in training (Dropout,
        BatchNormalization, ...: its `call` takes `training`)."""
        return any(
            getattr(layer, "_call_has_training_arg", False)
            for layer in self._flatten_layers(include_self=False)
        )

    @property
    def state_updates(self) -> list:
        """Keras 2's pending state updates: always empty here, as in Keras 2 on
        TensorFlow 2, because layers assign their states when they run."""
        warnings.warn(
            "`Model.state_updates` is always empty: lamina layers assign their states "
            "(stateful RNNs, moving statistics) as they run, so nothing is pending.",
            UserWarning,
            stacklevel=2,
        )
        return []

    @property
    def nodes_by_depth(self):
        """`{depth: [Node, ...]}` of the graph; depth 0 holds the output nodes."""
        return self._function.nodes_by_depth

    @property
    def layers_by_depth(self):
        """`{depth: [Layer, ...]}` of the graph; depth 0 holds the output layers.

        The same dict on every read, as long as the graph is the same."""
        function = self._function
        cached = self.__dict__.get("_layers_by_depth_cache")
        if cached is None or cached[0] is not function:
            by_depth = {
                d: [op for op in ops if isinstance(op, Layer)]
                for d, ops in function.operations_by_depth.items()
            }
            cached = (function, by_depth)
            self.__dict__["_layers_by_depth_cache"] = cached
        return cached[1]

    # Classic Keras's private names for the two maps: programs written against the
    # classic engine read them. They are the same objects as the public ones.
    @property
    def _nodes_by_depth(self):
        return self.nodes_by_depth

    @property
    def _layers_by_depth(self):
        return self.layers_by_depth

    # Running -------------------------------------------------------------------------
    @filter_traceback
    def __call__(self, *args, **kwargs):
        if (
            backend_execution.STATEFUL
            and len(args) == 1
            and self._function is not None
            and backend_core.is_tensor(args[0])
            and not (kwargs.keys() - {"training"})
            and self._host_plan() is None
        ):
            # An eager engine runs the graph layer by layer on every call: one tensor
            # into a graph model repeats no check it has passed (`Layer._repeat_call`).
            return self._unpack_singleton(self._repeat_call(args[0], dict(kwargs)))
        if self._function is not None and args:
            if self._host_plan() is not None:
                # Host layers (strings, hashing) run in NumPy before the engine part.
                if not any(isinstance(v, KerasTensor) for v in tree.flatten(args[0])):
                    args = (self._prepare_host_inputs(args[0]),) + args[1:]
            elif _holds_text(args[0]):
                data_adapter.refuse_text(args[0], self)  # names the layer it would reach
        # On a stateful engine (torch) the layer-by-layer call is already the lean path,
        # and it records gradients when the caller's autograd mode does.
        if (
            not backend_execution.STATEFUL
            and self._function is not None
            and len(args) == 1
            and not (kwargs.keys() - {"training"})
            and not kwargs.get("training")
            and current_call_context() is None
            and not in_stateless_scope()
        ):
            flat = tree.flatten(args[0])
            if (
                flat
                and all(backend_core.is_concrete(v) for v in flat)
                and not self._value_dependent_ops()
            ):
                return self._unpack_singleton(self._compiled_call(args[0]))
        # A graph with an op whose output shape depends on the values (`ops.unique`) runs
        # here op by op on data, as Keras 3 runs `model(x)` on every engine.
        if backend_execution.STATEFUL or self._function is None:
            return self._unpack_singleton(Layer.__call__(self, *args, **kwargs))
        try:
            outputs = Layer.__call__(self, *args, **kwargs)
        except Exception as error:
            self._explain_value_dependent(error)
            raise
        return self._unpack_singleton(outputs)

    def _value_dependent_ops(self) -> list:
        """The graph's ops (nested models' included) whose output shape depends on the
        values of their inputs, as `(op, model)` pairs: empty for an ordinary graph.

        Such an op declares its own output spec (a length `None` that no stand-in
        evaluation could know) and the engine cannot evaluate it abstractly: neither can
        it trace it into a compiled program. Found once per graph (graphs are fixed).
        """
        function = self._function
        cached = self.__dict__.get("_value_dependent_cache")
        if cached is not None and cached[0] is function:
            return cached[1]
        found = []
        for node in function.nodes if function is not None else ():
            op = node.operation
            if isinstance(op, Model) and op._function is not None:
                found.extend(op._value_dependent_ops())
            elif _declares_own_spec(op) and not _abstractly_evaluable(node):
                found.append((op, self))
        self.__dict__["_value_dependent_cache"] = (function, found)
        return found

    def _explain_value_dependent(self, error) -> None:
        """Raise a clear error if `error` came from an op whose output shape depends on
        the values, run under tracing (a compiled `predict`, `evaluate` or `fit` step);
        return (the caller raises `error` as it is) for any other error."""
        found = self._value_dependent_ops()
        if not found:
            return
        culprits = {id(op): (op, model) for op, model in found}
        entry = unfiltered_traceback(error)
        while entry is not None:
            hit = culprits.get(id(entry.tb_frame.f_locals.get("self")))
            if hit is not None:
                break
            entry = entry.tb_next
        else:
            return
        op, model = hit
        where = (
            f"model {model.name!r}"
            if model is self
            else (f"model {model.name!r} (inside model {self.name!r})")
        )
        raise ValueError(
            _VALUE_DEPENDENT_MESSAGE.format(
                op=f"{getattr(op, 'function_name', type(op).__name__)} {op.name!r}",
                where=where,
                error=f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
            )
        ) from error

    def _unpack_singleton(self, outputs):
        """As Keras 3 does, a model built with its one output in a list (`Model(x, [y])`)
        returns that output bare from calls on data (`model(x)`, `predict`); a symbolic
        call keeps the list, as in Keras."""
        if (
            self._function is not None
            and isinstance(self._function._outputs_struct, (list, tuple))
            and len(self._function._outputs_struct) == 1
            and isinstance(outputs, (list, tuple))
            and len(outputs) == 1
            and not isinstance(outputs[0], KerasTensor)
        ):
            last = self.__dict__.get("_last_output_masks")
            if last is not None and last[0] is outputs:
                self.__dict__["_last_output_masks"] = (outputs[0], last[1])
            return outputs[0]
        if (
            type(outputs) is dict
            and self._function is not None
            and isinstance(self._function._outputs_struct, dict)
            and list(outputs) != list(self._function._outputs_struct)
            and outputs.keys() == self._function._outputs_struct.keys()
        ):
            # JAX's trees (a compiled call, abstract evaluation) rebuild dicts in sorted-key
            # order; the outputs keep the order the model was built with, as in Keras.
            ordered = {key: outputs[key] for key in self._function._outputs_struct}
            last = self.__dict__.get("_last_output_masks")
            if last is not None and last[0] is outputs:
                masks = last[1]
                if type(masks) is dict:
                    masks = {key: masks.get(key) for key in ordered}
                self.__dict__["_last_output_masks"] = (ordered, masks)
            return ordered
        return outputs

    def _compiled_call(self, inputs):
        """Inference on concrete data through one compiled program (`call_function`).

        Same result as running the graph layer by layer, without per-op dispatch: losses
        added during the call are kept in `model.losses`, and variables the layers assign
        (the states of a stateful RNN, seed states) are written back, as for an eager
        call. The program is traced once per input signature, with a bounded cache and a
        `RetraceWarning` when it keeps retracing.
        """
        inputs = self._conform_inputs(inputs)
        entry = self.__dict__.get("_call_entry")
        if entry is None:
            entry = self.__dict__["_call_entry"] = self._compile_call(self.variables)
        variables, program, assigned_vars, all_layers = entry
        # A predict's reader lock: a train step in another thread waits for this call,
        # which reads the weights of one complete step. A call that assigns variables
        # (RNN states, seed states) runs alone, as serial calls would.
        lock = concurrency.state_lock(self)
        if assigned_vars:
            with lock.writing():
                outputs, losses = self._run_call(program, variables, assigned_vars, inputs)
        else:
            reader = lock.acquire_read()
            try:
                outputs, losses = self._run_call(program, variables, assigned_vars, inputs)
            finally:
                lock.release_read(reader)
        self.__dict__.pop("_last_output_masks", None)  # tracing values, not for later
        for layer in all_layers:  # `_clear_losses` without walking the layers again
            if layer._losses:
                layer._losses = []
        self._losses = list(losses)
        if self._losses:
            _hold_losses(self)
        return outputs

    def _run_call(self, program, variables, assigned_vars, inputs):
        """Run the call program (the caller holds the weights lock); write back what it
        assigned. Returns `(outputs, losses)`."""
        live = self.__dict__.get("_live_state")
        live = live.values if live is not None else None
        outputs, losses, assigned = program(self._call_values(variables, live), inputs)
        if live is not None:
            # `fit` donates these buffers at its next step: be done with them first.
            backend_core.block_until_ready((outputs, losses, assigned))
        for variable, value in zip(assigned_vars, assigned, strict=True):
            variable._value = value
        return outputs, losses

    def _call_values(self, variables, live) -> list:
        """The values `model(x)` computes with: outside any stateless scope (checked by
        the caller) each variable's `_value`, except while `fit` holds newer weights
        (`live`: those of its last complete step, perhaps in another thread)."""
        if live is None:
            return [v._value for v in variables]
        trainable, non_trainable = self._state_variables()[:2]
        values = list(live[0]) + list(live[1])
        held = {id(v): x for v, x in zip(trainable + non_trainable, values)}
        return [held.get(id(v), v._value) for v in variables]

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list[Layer]:
        if self._function is None or not (include_self and recursive):
            return Layer._flatten_layers(self, include_self, recursive)
        # A built graph's layers are fixed; eager engines ask for them on every call
        # (losses collected and cleared), so the walk is kept per structure version.
        version = backend_variables.structure_version()
        cached = self.__dict__.get("_layers_cache")
        if cached is None or cached[0] != version:
            cached = (version, Layer._flatten_layers(self, True, True))
            self.__dict__["_layers_cache"] = cached
        return list(cached[1])

    def _regularization_losses(self) -> list:
        if self._function is None:
            return Layer._regularization_losses(self)
        version = backend_variables.structure_version()
        cached = self.__dict__.get("_trainable_cache")
        if cached is None or cached[0] != version:
            cached = (version, list(self.trainable_weights))
            self.__dict__["_trainable_cache"] = cached
        return [v.regularizer(v.value) for v in cached[1] if v.regularizer is not None]

    def _runtime_state(self) -> list:
        """Variables the graph uses as operands of its ops (`total + ops.sum(x)`): not
        weights of any layer, but state every compiled program must be given."""
        if self._function is None:
            return []
        cached = self.__dict__.get("_graph_constants")
        if cached is None:
            found = {}
            for node in self._function.nodes:
                for leaf in tree.flatten((node.call_args, node.call_kwargs)):
                    if isinstance(leaf, backend_variables.Variable):
                        found.setdefault(id(leaf), leaf)
            cached = self.__dict__["_graph_constants"] = list(found.values())
        return list(cached)

    @property
    def call_function(self):
        """The compiled program behind `model(x)` on data (None before the first call);
        its `trace_count` says how often it was traced. It stays None for a graph holding
        an op whose output shape depends on the values (`ops.unique`): such a graph runs
        op by op on data, as Keras 3 runs `model(x)`."""
        entry = self.__dict__.get("_call_entry")
        return entry[1] if entry is not None else None

    def _compile_call(self, variables):
        assigned_vars: list = []  # filled while tracing: what the layers assign
        index = {id(v): i for i, v in enumerate(variables)}

        def pure(values, data):
            with StatelessScope(
                list(zip(variables, values, strict=True)), collect_losses=True
            ) as scope:
                outputs = Layer.__call__(self, data, training=False)
            # Only the model's own variables can be assigned under the strict trace.
            assigned_vars[:] = [variables[index[id(v)]] for v, _ in scope.updates]
            return outputs, list(scope.losses), [value for _, value in scope.updates]

        program = backend_execution.program(pure, f"call of model {self.name!r} on data")
        # The graph's layers are fixed once it is built, so the walk over them is kept.
        return variables, program, assigned_vars, self._flatten_layers()

    def call(self, inputs, training=None, mask=None):
        """Run the functional graph; a subclass overrides it with its own forward pass."""
        if self._function is None:
            raise NotImplementedError(
                f"Model subclass {type(self).__name__} must implement `call(inputs)`, or be "
                "built functionally with Model(inputs, outputs)."
            )
        return self._run_graph(inputs, training, mask)

    def _run_graph(self, inputs, training, mask):
        if isinstance(inputs, HostPrepared):  # the host part already ran
            outputs, masks = self._host_plan().engine.run(inputs.values, training=training)
        else:
            outputs, masks = self._function.run(
                self._conform_inputs(inputs), training=training, mask=mask
            )
        if masks is not None and any(m is not None for m in tree.flatten(masks)):
            # Kept for the graph running this model (see `_output_masks_of`), so that
            # it does not run the model a second time to compute the masks.
            self.__dict__["_last_output_masks"] = (outputs, masks)
        return outputs

    def _output_masks_of(self, outputs):
        """`(True, masks)` if the last call returned `outputs` (else `(False, None)`)."""
        last = self.__dict__.pop("_last_output_masks", None)
        if last is not None and last[0] is outputs:
            return True, last[1]
        return False, None

    def compute_mask(self, inputs, previous_mask=None):
        if self._function is None:
            return None
        if (
            not backend_execution.STATEFUL
            and self._value_dependent_ops()
            and not any(getattr(t, "_keras_mask", None) is not None for t in self.outputs)
            and not any(m is not None for m in tree.flatten(previous_mask))
        ):
            return None  # nothing to mask, and running the graph abstractly cannot work
        if isinstance(inputs, HostPrepared):
            _, masks = self._host_plan().engine.run(inputs.values)
        else:
            _, masks = self._function.run(self._conform_inputs(inputs), mask=previous_mask)
        if all(m is None for m in tree.flatten(masks)):
            return None
        return masks

    def compute_output_spec(self, *args, **kwargs):
        if self._function is not None:
            self._conform_inputs(args[0])  # clear errors before abstract evaluation
            if not backend_execution.STATEFUL and self._value_dependent_ops():
                # Abstract evaluation cannot run such an op; the graph's own output
                # specs hold (their `None` dims are the batch or a data-dependent size).
                return tree.map_structure(
                    lambda t: KerasTensor(t.shape, t.dtype), self._function._outputs_struct
                )
        return super().compute_output_spec(*args, **kwargs)

    def _conform_inputs(self, inputs) -> list:
        """The inputs as a flat list in graph order, each checked against its `Input`.

        As in Keras, a trailing dimension of 1 too many is squeezed and one too few is
        added when the `Input` ends in 1; any other rank or a known dimension that
        differs raises a ValueError naming the model and the input.
        """
        function = self._function
        if isinstance(inputs, HostPrepared):
            return inputs  # the engine part's inputs, made by `_prepare_host_inputs`
        if len(function.inputs) == 1 and not isinstance(inputs, (dict, list, tuple)):
            passed = self.__dict__.get("_conformed")
            if (
                passed is not None
                and passed[0] is function
                and passed[1] is type(inputs)
                and passed[2] == getattr(inputs, "shape", None)
            ):
                return [inputs]  # the shape the last call checked: nothing to change
            flat = [inputs]  # one array for one input: what the general path gives
        else:
            flat = function._flatten_values(self._standardize_inputs(inputs))
        out = []
        for i, (ref, x) in enumerate(zip(self._function.inputs, flat, strict=True)):
            if x is None or not hasattr(x, "shape"):
                out.append(x)
                continue
            expected, shape = tuple(ref.shape), tuple(x.shape)
            if len(shape) == len(expected) + 1 and shape[-1] == 1:
                x = ops.squeeze(x, axis=-1)
            elif len(shape) == len(expected) - 1 and expected and expected[-1] == 1:
                x = ops.expand_dims(x, axis=-1)
            if shapes_differ(x.shape, expected):
                name = ref._keras_history.operation.name
                raise ValueError(
                    f"Model {self.name!r}: input {i} ({name!r}) expected shape {expected}, "
                    f"received shape {shape}. Pass data of that shape (the batch "
                    "dimension, and any dimension shown as None, may vary)."
                )
            out.append(x)
        if len(out) == 1 and out[0] is inputs and backend_core.is_concrete(inputs):
            # Not a traced input (torch.export's fake tensors, of their own type, whose
            # sizes may be symbolic): comparing a later call's shape with it, or its
            # shape with a real one, would specialize the trace (a guard `batch != 3`).
            self.__dict__["_conformed"] = (function, type(inputs), inputs.shape)
        return out

    def _host_plan(self):
        """How the graph splits into a host part (layers such as TextVectorization, run
        in NumPy) and an engine part; None when everything runs on the engine."""
        function = self._function
        cached = self.__dict__.get("_host_plan_cache")
        if cached is None or cached[0] is not function:
            cached = (function, host_plan(function, self.name))
            self.__dict__["_host_plan_cache"] = cached
        return cached[1]

    def _prepare_host_inputs(self, inputs):
        """Run the host part on a batch of data: the engine part's inputs, as a
        `HostPrepared` (inputs already prepared, or a graph without a host part, pass
        through)."""
        plan = self._host_plan()
        if plan is None or isinstance(inputs, HostPrepared):
            return inputs
        function = self._function
        single = len(function.inputs) == 1
        if single and isinstance(inputs, (list, tuple)):
            if not all(hasattr(v, "shape") for v in inputs):
                inputs = np.asarray(inputs)  # one input given as a plain list of strings
        if single and not isinstance(inputs, (dict, list, tuple)):
            flat = [inputs]
        else:
            flat = function._flatten_values(self._standardize_inputs(inputs))
        return plan.prepare(flat)

    def _standardize_inputs(self, inputs):
        self._check_input_structure(inputs)
        if isinstance(inputs, dict) and not isinstance(self._function._inputs_struct, dict):
            names = [x._keras_history.operation.name for x in self._function.inputs]
            return [inputs[n] for n in names]
        return inputs

    def _check_input_structure(self, inputs):
        expected = self._function.inputs
        if not isinstance(inputs, (dict, list, tuple)) and len(expected) == 1:
            return  # one array for one input: the common case, checked in a breath
        struct = self._function._inputs_struct
        names = [x._keras_history.operation.name for x in expected]
        if isinstance(inputs, dict):
            keys = sorted(struct) if isinstance(struct, dict) else names
            unknown = sorted(k for k in inputs if k not in keys)
            missing = sorted(k for k in keys if k not in inputs)
            if unknown or missing:
                raise ValueError(
                    f"Model {self.name!r} expects inputs named {keys}; received dict keys "
                    f"{sorted(inputs)} (unknown: {unknown}, missing: {missing})."
                )
            return
        flat = tree.flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(expected):
            raise ValueError(
                f"Model {self.name!r} expects {len(expected)} input(s) {names}, but it "
                f"received {len(flat)} input(s)."
            )

    # Building ------------------------------------------------------------------------
    def build(self, input_shape):
        if self._function is not None:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Model.build needs an input shape.")
        # A subclassed model builds by running `call` on placeholders of that shape.
        spec = _shapes_to_specs(_tuplify(input_shape), self.compute_dtype)
        self.built = True
        Layer.compute_output_spec(self, spec)

    # Quantization --------------------------------------------------------------------
    def quantize(self, mode=None, config=None, filters=None, **kwargs) -> None:
        """Quantize the model's Dense, EinsumDense and Embedding layers (Keras 3's).

        The model must be built. Each quantizable layer's float kernel becomes int8 plus
        a per-channel scale and its policy `"int8_from_<policy>"` (see
        `lamina.layers.quantization`); other layers stay as they are.

        Args:
            mode: `"int8"` (lamina's only mode); optional with a `config`.
            config: a `lamina.quantizers.Int8QuantizationConfig`.
            filters: quantize only the layers whose name matches this regex (or any of a
                list of them), or for which this callable returns True.
            type_check: (keyword) False also quantizes subclasses of those layers.
        """
        quantize_model(self, mode, config=config, filters=filters, **kwargs)

    def get_quantization_layer_structure(self, mode=None):
        """The block structure GPTQ/AWQ quantization walks (Keras's hook); None: no
        structure, as lamina has only the structure-free int8 mode."""
        return None

    # Description ---------------------------------------------------------------------
    def summary(
        self,
        line_length=None,
        positions=None,
        print_fn=None,
        expand_nested=False,
        show_trainable=False,
        layer_range=None,
    ):
        """Print the layer table and parameter counts, as Keras does.

        Args:
            line_length: total width of the table.
            positions: relative or absolute column edges.
            print_fn: called once with the whole text, as in Keras 3 (default: printed,
                or logged when interactive logging is off).
            expand_nested: also list the layers inside nested models, indented under
                each (`└ name`), as Keras does.
            show_trainable: add a column saying whether each layer is trainable.
            layer_range: `[first, last]` layer names (regular expressions matched at
                the start of a name): show only the rows from the first layer that
                matches `first` to the last that matches `last`, both included.
        """
        summary_utils.print_summary(
            self,
            line_length=line_length,
            positions=positions,
            print_fn=print_fn,
            expand_nested=expand_nested,
            show_trainable=show_trainable,
            layer_range=layer_range,
        )

    def _keras_serialized_names(self):
        # `Sequential` overrides this for itself: a class named so is not enough.
        if self._is_graph_network and type(self) is Model:
            return "keras.src.models.functional", "Functional", "Functional"
        return type(self).__module__, type(self).__name__, None

    def get_config(self) -> dict:
        if self._function is None:
            if self.__dict__.get("_auto_config") is None:
                _require_own_get_config(type(self))
            # A subclass is described by the plain arguments it was constructed with.
            return {**self._recorded_arguments("Model subclass"), **Layer.get_config(self)}
        return functional_config.functional_get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects=None, **kwargs):
        if "layers" in config and "output_layers" in config:
            with serialization.build_budget():
                return functional_config.functional_from_config(
                    cls, config, custom_objects=custom_objects, **kwargs
                )
        return cls(**config)

    def save(self, filepath, overwrite: bool = True, zipped=None, **kwargs) -> None:
        """Save the whole model to a `.keras` file: architecture, weights, compile state
        and optimizer variables (written atomically).

        Args:
            filepath: a path ending in `.keras` (or `.h5` for the legacy format).
            overwrite: replace an existing file (else `FileExistsError`).
            zipped: Keras's choice between a zip archive (the default, and what lamina
                writes) and an unzipped folder, which lamina does not write: only
                `None`/`True` are accepted.
            **kwargs: the legacy `.h5` format's `include_optimizer`.
        """
        if zipped is not None and not zipped:
            raise ValueError(
                f"Model.save received zipped={zipped!r}; lamina writes `.keras` files as zip "
                "archives only (Keras's default). Leave `zipped` unset, and unzip the file "
                "yourself if you need its parts (config.json, model.weights.h5)."
            )
        saving.save_model(self, filepath, overwrite=overwrite, **kwargs)

    # Backups for BackupAndRestore (kept here: callbacks reach saving through the model).
    def _write_backup(self, directory, epoch, step, rng_state) -> bool:
        from lamina.saving import backup

        if not backup.all_finite(self):
            return False
        backup.write_backup(self, directory, {"epoch": epoch, "step": step}, rng_state)
        return True

    def _restore_backup(self, directory) -> None:
        from lamina.saving import backup

        found = backup.read_backup(self, directory)
        if found is not None:
            meta, rng_state = found
            self._resume_point = {
                "epoch": meta["epoch"],
                "step": meta["step"],
                "rng_state": rng_state,
            }

    def _delete_backup(self, directory) -> None:
        from lamina.saving import backup

        backup.delete_backup(directory)

    def export(
        self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs
    ):
        """Write the model's inference as a program people serve (see `lamina.export`).

        Keras's default, a TensorFlow SavedModel, needs TensorFlow and is refused: name
        the format. On jax lamina writes `format="stablehlo"` (a serialized
        `jax.export` program, run with `jax.export.deserialize(data).call(x)`); on torch
        `format="torch"` (a `.pt2` file, run with `torch.export.load(path).module()(x)`);
        on both `format="onnx"` (run with `onnxruntime.InferenceSession(path)`; on jax
        it needs the optional `jax2onnx` converter). The
        program computes `model(inputs, training=False)` with the weights inside; `None`
        sizes in the signature (the batch, by default) stay free. The model is unchanged.

        Args:
            filepath: the file to write.
            format: `"stablehlo"` (jax), `"torch"` (torch) or `"onnx"`.
            verbose: print where the program went and its inputs (default True).
            input_signature: the positional arguments of `model(...)`: a list of
                `lamina.layers.InputSpec(shape=..., dtype=...)` (or KerasTensors, arrays, or
                nested lists/dicts of these); by default the model's own inputs.
            **kwargs: the format's options: `platforms` (stablehlo), the arguments of
                `torch.export.export` (torch), `opset_version` (onnx).
        """
        from lamina.export import export_lib

        export_lib.export_model(
            self,
            filepath,
            format=format,
            verbose=verbose,
            input_signature=input_signature,
            **kwargs,
        )

    def save_weights(self, filepath, overwrite: bool = True, max_shard_size=None) -> None:
        """Save the weights to a `.weights.h5` file (written atomically).

        Args:
            filepath: a path ending in `.weights.h5` (Keras 3's layout); any other name
                (`w.h5`, `x.hdf5`) writes Keras 2's HDF5 weights layout.
            overwrite: replace an existing file (else `FileExistsError`).
            max_shard_size: Keras's size limit for splitting the weights over several
                files; lamina writes one file, so only `None` is accepted.
        """
        import os

        if max_shard_size is not None:
            raise ValueError(
                f"Model.save_weights received max_shard_size={max_shard_size!r}; lamina "
                "writes all the weights to one `.weights.h5` file and does not shard "
                "them. Leave `max_shard_size` unset."
            )
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"{filepath!r} exists and overwrite=False.")
        saving.save_weights(self, filepath)

    def load_weights(
        self, filepath, skip_mismatch: bool = False, by_name: bool = False, **kwargs
    ) -> None:
        """Load weights from a `.weights.h5` file written by `save_weights` (or a
        legacy Keras `.h5` weights file).

        Args:
            filepath: the weights file.
            skip_mismatch: leave a layer's weights as they are when the file's count or
                shapes differ from the layer's (each skipped layer is named in a
                warning), instead of raising.
            by_name: Keras 2's loading by layer name, for files in Keras 2's HDF5
                layout (`save_weights("w.h5")`).
        """
        if kwargs:
            raise TypeError(
                f"Model.load_weights got unexpected keyword argument(s) {sorted(kwargs)}; "
                "it takes `filepath`, `skip_mismatch` and `by_name`."
            )
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, by_name=by_name)

    def to_json(self, **kwargs) -> str:
        """The model's architecture as a JSON string (`models.model_from_json` reads it)."""
        return json.dumps(functional_config.serialize_layer(self), **kwargs)


Model.call._lamina_default = True  # a subclass without `call` (a GAN) trains by its steps
_BASE_GET_CONFIGS.add(Model.get_config)
_BASE_INITS.add(Model.__init__)
serialization.register_builtin("models", Model)
serialization.register_builtin("models", Model, name="Functional")
serialization.register_builtin("layers", Model, name="Functional")
serialization.register_builtin("layers", Model)
__all__ = ["InputLayer", "Model"]


_VALUE_DEPENDENT_MESSAGE = (
    "Op {op} in {where} gives an output whose shape depends on the values of its "
    "input, so it cannot run inside a compiled program (JAX traces `fit`, `evaluate` and "
    "`predict` steps with jax.jit; the trace failed with {error}). Run the steps op by "
    "op: `model.compile(..., run_eagerly=True)` (or `jit_compile=False`); `model(x)` on "
    "data already runs such a graph op by op. Or give the op a fixed output size: "
    "`ops.unique(x, size=N, fill_value=...)`, `ops.bincount(x, minlength=N)`, "
    "`ops.where(condition, x1, x2)` in place of `ops.where(condition)`."
)


def _declares_own_spec(op) -> bool:
    """An op made with its own `output_spec` rule (see `lamina.ops.core._op`): what ops
    whose output length may depend on the data do, as abstract evaluation cannot know it."""
    return isinstance(op, _SpecifiedOperation)


def _abstractly_evaluable(node) -> bool:
    """Whether the engine evaluates the node's op on specs (as a trace would see it)."""
    try:
        Operation.compute_output_spec(node.operation, *node.call_args, **node.call_kwargs)
    except Exception:  # the trace of a compiled program would fail the same way
        return False
    return True


def _holds_text(x) -> bool:
    """Whether `x` (one array or a structure of them) holds a NumPy array of strings."""
    if type(x) is np.ndarray:
        return x.dtype.kind in "USO"
    if backend_core.is_tensor(x):
        return False
    return any(type(v) is np.ndarray and v.dtype.kind in "USO" for v in tree.flatten(x))
