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

from lamina import backend, saving, tree
from lamina.backend import core as backend_core
from lamina.backend import execution as backend_execution
from lamina.backend.common import variables as backend_variables
from lamina.backend.common.global_state import fixed_learning_phase, to_snake_case, unique_name
from lamina.backend.common.variables import in_stateless_scope
from lamina.common import serialization
from lamina.common.traceback_utils import filter_traceback
from lamina.graph.function import Function, _is_input_tensor, clone_graph_nodes
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.masks import get_mask
from lamina.graph.node import Node
from lamina.graph.operation import current_call_context
from lamina.layers.input_layer import Input, InputLayer, feed_inputs
from lamina.layers.layer import (
    _BASE_GET_CONFIGS,
    _BASE_INITS,
    Layer,
    _shapes_to_specs,
    _tuplify,
)
from lamina.layers.quantization import quantize_model
from lamina.models import calls, functional_config, graph_losses, summary_utils
from lamina.models.host_part import HostPrepared
from lamina.training import data_adapter
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

    # `model.stateful = value` sets it; None: ask the layers.
    _stateful_override = None
    # Losses written on the graph's tensors (`add_loss(tensor)`, see `graph_losses`).
    _graph_losses: tuple | list = ()
    add_loss = graph_losses.add_loss
    _check_losses_reach_weights = graph_losses.check_reaches_weights

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
            # As Keras: a user's subclass after its class ("mnist_model"), else "functional".
            cls = type(self)
            own = serialization.is_lamina_code(cls)
            name = unique_name("functional" if own else to_snake_case(cls.__name__))
        Layer.__init__(self, name=name, trainable=trainable, **kwargs)
        # Inputs fed by a tensor (`Input(tensor=t)`) are computed in the graph, not given.
        inputs = feed_inputs(inputs)
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
        """A layer of the model by `name` or by `index` in `layers`.

        >>> import lamina
        >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="hidden")])
        >>> model.get_layer("hidden").units, model.get_layer(index=0).name
        (2, 'hidden')
        """
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
        override = self._stateful_override
        if override is not None:
            return override
        # `predict` asks on every call: the layers that have a `stateful` attribute are
        # kept per structure version (the uncached walk cost ~0.15 ms per call, and an
        # attribute a layer lacks is slow to miss on a torch module).
        version = backend_variables.structure_version()
        record = self._runtime
        cached = record.stateful_holders
        if cached is None or cached[0] != version:
            holders = [
                layer
                for layer in self._flatten_layers()
                if layer is not self
                and ("stateful" in layer.__dict__ or hasattr(type(layer), "stateful"))
            ]
            cached = record.stateful_holders = (version, holders)
        return any(layer.stateful is True for layer in cached[1])

    @stateful.setter
    def stateful(self, value) -> None:
        self._stateful_override = bool(value)

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
        record = self._runtime
        cached = record.layers_by_depth
        if cached is None or cached[0] is not function:
            by_depth = {
                d: [op for op in ops if isinstance(op, Layer)]
                for d, ops in function.operations_by_depth.items()
            }
            cached = record.layers_by_depth = (function, by_depth)
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
            not backend_execution.JIT_BY_DEFAULT
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
            if type(args[0]) is dict:
                args = (self._select_inputs(args[0]),) + args[1:]
            if self._host_plan() is not None:
                # Host layers (strings, hashing) run in NumPy before the engine part.
                if not any(isinstance(v, KerasTensor) for v in tree.flatten(args[0])):
                    args = (self._prepare_host_inputs(args[0]),) + args[1:]
            elif calls.holds_text(args[0]):
                data_adapter.refuse_text(args[0], self)  # names the layer it would reach
        # Where model code runs eagerly by default (torch) the layer-by-layer call is
        # already the lean path, and it records gradients when the caller's autograd mode
        # does; where it is compiled (JAX), `model(x)` is one compiled program.
        if (
            backend_execution.JIT_BY_DEFAULT
            and self._function is not None
            and len(args) == 1
            and not (kwargs.keys() - {"training"})
            and not kwargs.get("training")
            # It runs in the classic fixed phase: an explicit `training=False` goes below.
            and ("training" not in kwargs or fixed_learning_phase() is None)
            and current_call_context() is None
            and not in_stateless_scope()
        ):
            flat = tree.flatten(args[0])
            if (
                flat
                and all(backend_core.is_concrete(v) for v in flat)
                and all(get_mask(v) is None for v in flat)  # a mask in: the graph's path
                and not calls.value_dependent_ops(self)
                and ("training" in kwargs or not calls.trains_by_default(self))
            ):
                return self._unpack_singleton(calls.compiled_call(self, args[0]))
        # A graph with an op whose output shape depends on the values (`ops.unique`) runs
        # here op by op on data, as Keras 3 runs `model(x)` on every engine.
        if not backend_execution.JIT_BY_DEFAULT or self._function is None:
            return self._unpack_singleton(Layer.__call__(self, *args, **kwargs))
        try:
            outputs = Layer.__call__(self, *args, **kwargs)
        except Exception as error:
            calls.explain_value_dependent(self, error)
            raise
        return self._unpack_singleton(outputs)

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
            return {key: outputs[key] for key in self._function._outputs_struct}
        return outputs

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list[Layer]:
        if self._function is None or not (include_self and recursive):
            return Layer._flatten_layers(self, include_self, recursive)
        # A built graph's layers are fixed; eager engines ask for them on every call
        # (losses collected and cleared), so the walk is kept per structure version.
        version = backend_variables.structure_version()
        record = self._runtime
        cached = record.layers
        if cached is None or cached[0] != version:
            cached = record.layers = (version, Layer._flatten_layers(self, True, True))
        return list(cached[1])

    def _regularization_losses(self) -> list:
        if self._function is None:
            return Layer._regularization_losses(self)
        version = backend_variables.structure_version()
        record = self._runtime
        cached = record.trainable
        if cached is None or cached[0] != version:
            cached = record.trainable = (version, list(self.trainable_weights))
        return [v.regularizer(v.value) for v in cached[1] if v.regularizer is not None]

    def _runtime_state(self) -> list:
        """Variables the graph uses as operands of its ops (`total + ops.sum(x)`) or reads
        in ops that are not layers (a classic `K.variable`'s read, as `Input(tensor=...)`
        of one computes): not weights of any layer, but state every compiled program
        must be given."""
        if self._function is None:
            return []
        record = self._runtime
        cached = record.graph_constants
        if cached is None:
            found = {}
            # The losses added on the graph's tensors run with it (a classic KL weight,
            # `K.variable(beta) * kl`, that a callback sets).
            graph = graph_losses.combined(self) if self._graph_losses else self._function
            for op in graph.operations:
                if not isinstance(op, Layer):
                    for variable in getattr(op, "variables", None) or ():
                        found.setdefault(id(variable), variable)
            for node in graph.nodes:
                for leaf in tree.flatten((node.call_args, node.call_kwargs)):
                    if isinstance(leaf, backend_variables.Variable):
                        found.setdefault(id(leaf), leaf)
            cached = record.graph_constants = list(found.values())
        return list(cached)

    @property
    def call_function(self):
        """The compiled program behind `model(x)` on data (None before the first call);
        its `trace_count` says how often it was traced. It stays None for a graph holding
        an op whose output shape depends on the values (`ops.unique`): such a graph runs
        op by op on data, as Keras 3 runs `model(x)`."""
        entry = self._runtime.call_entry
        return entry[1] if entry is not None else None

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
            outputs, _ = self._host_plan().engine.run(inputs.values, training=training)
        elif self._graph_losses:
            outputs, _ = graph_losses.run(self, calls.conform_inputs(self, inputs), training, mask)
        else:
            outputs, _ = self._function.run(
                calls.conform_inputs(self, inputs), training=training, mask=mask
            )
        return outputs

    @property
    def _masks_from_call(self) -> bool:
        # A graph's run leaves on each output the mask its layer gave it (see
        # `lamina.layers.call_masks`); running the graph again for them would be waste.
        return self._function is not None

    def compute_mask(self, inputs, previous_mask=None):
        if self._function is None:
            return None
        if (
            backend_execution.JIT_BY_DEFAULT
            and calls.value_dependent_ops(self)
            and not any(getattr(t, "_keras_mask", None) is not None for t in self.outputs)
            and not any(m is not None for m in tree.flatten(previous_mask))
        ):
            return None  # nothing to mask, and running the graph abstractly cannot work
        if isinstance(inputs, HostPrepared):
            _, masks = self._host_plan().engine.run(inputs.values)
        else:
            _, masks = self._function.run(calls.conform_inputs(self, inputs), mask=previous_mask)
        if all(m is None for m in tree.flatten(masks)):
            return None
        return masks

    def compute_output_spec(self, *args, **kwargs):
        if self._function is not None:
            calls.conform_inputs(self, args[0])  # clear errors before abstract evaluation
            if backend_execution.JIT_BY_DEFAULT and calls.value_dependent_ops(self):
                # Abstract evaluation (a trace) cannot run such an op; the graph's own output
                # specs hold (their `None` dims are the batch or a data-dependent size).
                return tree.map_structure(
                    lambda t: KerasTensor(t.shape, t.dtype), self._function._outputs_struct
                )
        return super().compute_output_spec(*args, **kwargs)

    # Running the graph on data (`calls.py`): the pieces `training` calls by name.
    _host_plan = calls.host_plan_of
    _prepare_host_inputs = calls.prepare_host_inputs
    _standardize_inputs = calls.standardize_inputs
    _select_inputs = calls.select_inputs

    # Building ------------------------------------------------------------------------
    def _build_on_first_call(self, inputs, shapes) -> None:
        if self._function is not None or type(self).build is not Model.build:
            return self.build(shapes)
        # A subclassed model's first call on data builds it by running `call` on the data
        # (its layers build as they meet it), as Keras's does: integer ids stay integers,
        # and ops that placeholders cannot run (CTC and Cholesky on torch's meta tensors)
        # run. On symbolic inputs (or with `weights=` to set), `call` runs first on
        # placeholders of the inputs' shapes and dtypes.
        self.built = True
        symbolic = any(isinstance(x, KerasTensor) for x in tree.flatten(inputs))
        if symbolic or self._initial_weights is not None:
            Layer.compute_output_spec(
                self,
                tree.map_structure(
                    lambda x: (
                        KerasTensor(tuple(x.shape), backend.standardize_dtype(x.dtype))
                        if hasattr(x, "shape") and hasattr(x, "dtype")
                        else x
                    ),
                    inputs,
                ),
            )
        return None

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
        """The block structure GPTQ/AWQ quantization walks (Keras's hook): a dict with
        "pre_block_layers" and "sequential_blocks", or None (a model that has none; then
        the `GPTQConfig`/`AWQConfig` must name it in `quantization_layer_structure`)."""
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

        >>> import lamina
        >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="out")])
        >>> lines = []
        >>> model.summary(print_fn=lines.append)
        >>> any("out (Dense)" in line for line in lines), any("Total params: 8" in line for line in lines)
        (True, True)
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
            zipped: `False` writes Keras 3's unzipped model folder at `filepath` (a
                name not ending in `.keras`); `load_model` reads it.
            **kwargs: the legacy `.h5` format's `include_optimizer`.

        >>> import os, tempfile, numpy as np, lamina
        >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
        >>> model.save(path)
        >>> restored = lamina.models.load_model(path)
        >>> np.allclose(restored.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0))
        True
        """
        saving.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def _saved_config(self) -> dict:
        """The config a `.keras` file stores (`OrbaxCheckpoint` stores it too; callbacks
        reach saving through the model)."""
        return saving.keras_file.model_config(self)

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

        >>> import os, tempfile, numpy as np, lamina
        >>> def build():
        ...     return lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
        >>> model, twin = build(), build()
        >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
        >>> model.save_weights(path)
        >>> twin.load_weights(path)
        >>> all(np.array_equal(a, b) for a, b in zip(model.get_weights(), twin.get_weights()))
        True
        """
        saving.save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

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
            objects_to_skip: (keyword) layers, or the optimizer, whose weights stay as
                they are (Keras 3; `.weights.h5` files only).
        """
        objects_to_skip = kwargs.pop("objects_to_skip", None)
        if kwargs:
            raise TypeError(
                f"Model.load_weights got unexpected keyword argument(s) {sorted(kwargs)}; "
                "it takes `filepath`, `skip_mismatch`, `by_name` and `objects_to_skip`."
            )
        saving.load_weights(
            self,
            filepath,
            skip_mismatch=skip_mismatch,
            by_name=by_name,
            objects_to_skip=objects_to_skip,
        )

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
