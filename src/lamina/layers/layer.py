"""Layer: state (weights) plus a computation (`call`), usable eagerly or in a graph.

A layer builds its weights from the shape of its first input, then computes. Called on
KerasTensors it records a `Node` (see `lamina.graph`); called on arrays it computes.
Sublayers, variables and seed generators assigned as attributes (also inside lists,
tuples and dicts) are tracked by reading the attributes, so `weights` always reflects
what the layer holds now.
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from lamina import backend, constraints, initializers, regularizers, tree
from lamina.backend.common.name_scope import current_path, name_scope
from lamina.backend.common.variables import (
    Variable,
    bump_structure_version,
    current_stateless_scope,
)
from lamina.common import serialization
from lamina.common.traceback_utils import filter_traceback
from lamina.dtype_policies import autocast as _autocast
from lamina.dtype_policies.dtype_policy import config_value as _policy_config
from lamina.dtype_policies.dtype_policy import is_mixed as _is_mixed
from lamina.graph.keras_tensor import KerasTensor
from lamina.graph.operation import (
    CallContext,
    Operation,
    any_symbolic,
    current_call_context,
    output_spec,
)
from lamina.layers import call_masks, eager_calls, keras_methods, layer_arguments, quantization
from lamina.layers.build_scope import build_on_first_call, scoped_build
from lamina.layers.eager_calls import (
    _SCALAR_KWARG_TYPES,
    _is_float,
    apply_activity_regularizer,
    call_on_tensor,
    call_signature_flags,
)
from lamina.layers.input_spec import check_input_compatibility
from lamina.layers.remat import current_remat_mode, rematerialized_call
from lamina.layers.symbolic_calls import flat_shaped, symbolic_call
from lamina.ops import random as ops_random

# Imported from here by other modules.
_BASE_GET_CONFIGS = layer_arguments.BASE_GET_CONFIGS
_BASE_INITS = layer_arguments.BASE_INITS
_shapes_to_specs = layer_arguments.shapes_to_specs
_tuplify = layer_arguments.tuplify
is_text_array = layer_arguments.is_text_array

# Attributes that hold bookkeeping, not children to track.
_UNTRACKED = frozenset(
    {
        "_inbound_nodes",
        "_outbound_nodes",
        "_losses",
        "_function",
        "input_spec",
        "_build_shapes",
        "_runtime",  # a model's runtime record (`lamina.training.runtime`)
        "_own_node",
        "_remat_mode",
        "_remat_output_sizes",
    }
)
_BASE_INIT_KWARGS = frozenset(
    {"input_shape", "batch_input_shape", "batch_size", "input_dim", "weights", "input_length"}
)


# Layers whose `_losses` may be non-empty: a top-level call clears its layers' losses,
# and when no layer may hold any it skips walking them. `add_loss` registers a layer; so
# does `Layer.__new__` until `__init__` runs, because a copied or unpickled layer gets
# its `_losses` without `__init__`. A layer that cannot be hashed (its class defines
# `__eq__` only) cannot be registered, and then every top-level call walks.
_LOSS_HOLDERS: weakref.WeakSet = weakref.WeakSet()
_UNREGISTERED = [False]


def _hold_losses(layer) -> None:
    try:
        _LOSS_HOLDERS.add(layer)
    except TypeError:
        _UNREGISTERED[0] = True


def _release_losses(layer) -> None:
    try:
        _LOSS_HOLDERS.discard(layer)
    except TypeError:
        pass


class Layer(Operation, backend.layer.LayerBase):
    """The base class of every layer.

    Subclass it and implement `call`; create weights in `build(input_shape)` with
    `add_weight`. `__call__` builds the layer on first use, checks `input_spec`, routes
    `training` and `mask`, and records graph nodes for symbolic inputs.

    Args:
        trainable: whether the layer's weights are updated by training.
        dtype: a dtype policy or its name: a dtype (`"float32"`) for weights and
            computations, or `"mixed_float16"` / `"mixed_bfloat16"` for float32 weights
            read in the 16-bit type inside `call` (default: the global policy,
            `lamina.config.dtype_policy()`).
        autocast: whether float inputs (and, under a mixed policy, float weights) are
            cast to the compute dtype.
        name: a unique name; by default the snake-cased class name (`dense`, `dense_1`).
        activity_regularizer: a regularizer applied to the outputs, added to `losses`.
        input_shape: on the first layer of a `Sequential`, the input shape (no batch).

    >>> import numpy as np
    >>> class Scale(Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
    ...     def call(self, x):
    ...         return x * self.w
    >>> layer = Scale()
    >>> np.asarray(layer(np.array([[1.0, 2.0]]))).tolist(), len(layer.weights)
    ([[1.0, 2.0]], 1)
    """

    supports_masking = False
    _masks_from_call = False  # True where `call` attaches its outputs' masks itself
    _keeps_integer_dtype = False  # True where an integer input gives an output of its dtype
    # Set per instance by `__init__`; an instance made without it takes the general path.
    _short_call = False
    _remat_mode = None  # set by `__init__` inside a `RematScope`
    _own_build_step = True
    _mixed_precision = False
    # Image preprocessing layers take Keras's `bounding_box_format` (None only).
    _takes_bounding_box_format = False
    # Image preprocessing layers that take the `factor` of Keras's image base class
    # without naming it: "store" (Keras sets `self.factor`, unused) or "refuse" (Keras
    # refuses any value but None); see `layer_arguments.take_base_factor`.
    _keras_base_factor = None
    # Whether `call` only computes tensors from its inputs and variables, so that an
    # eager engine may capture it once per input signature and replay the captured
    # operations (torch's predict; see `_call_is_pure`). False on layers that run a
    # user's function (`Lambda`).
    _pure_call = True
    # Whether an eager engine may capture this layer's call into a replayed graph (torch:
    # `fit`'s forward pass, `evaluate`, `predict`). A user's layer is captured when its
    # call is observed pure (nothing read in Python, no attribute or global changed
    # while it ran); set False, on the class or an instance, for a call whose Python
    # must run on every step (it reads a value that changes between steps, say).
    capturable = True
    # The last input signature that went through the whole `__call__`
    # (`eager_calls.repeat_call` takes the short path for it).
    _passed_call = None

    # Keras's smaller public methods (`keras_methods.py`), its quantization methods
    # (`quantization.py`: the base versions refuse) and the eager call's short paths
    # (`eager_calls.py`) are written as functions of the layer, bound here.
    save_own_variables = keras_methods.save_own_variables
    load_own_variables = keras_methods.load_own_variables
    add_variable = keras_methods.add_variable
    path = property(keras_methods.path)
    metrics = property(keras_methods.metrics)
    metrics_variables = property(keras_methods.metrics_variables)
    call_signature_parameters = property(keras_methods.call_signature_parameters)
    supports_jit = property(keras_methods.supports_jit, keras_methods.set_supports_jit)
    rematerialized_call = keras_methods.rematerialized_call
    quantization_mode = property(quantization.quantization_mode)
    quantize = quantization.quantize
    quantized_build = quantization.quantized_build
    quantized_call = quantization.quantized_call
    _int8_call = quantization.int8_call
    _graph_call = eager_calls.graph_call
    _repeat_call = eager_calls.repeat_call
    _build_step_settled = eager_calls.build_step_settled

    @classmethod
    def _call_is_pure(cls) -> bool:
        """Whether the class's `call` and `__call__` are lamina's own, with no Python
        effect (a counter, a print, a value read from elsewhere) that a replay of the
        captured operations would skip: lamina's layers, and subclasses of them that
        keep their `call`. A `call` written elsewhere is not assumed to be pure."""
        return cls._pure_call and all(
            serialization.is_lamina_code(getattr(cls, name)) for name in ("call", "__call__")
        )

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if inspect.isfunction(build) and not getattr(build, "_opens_name_scope", False):
            cls.build = scoped_build(build)

    def _open_name_scope(self) -> name_scope:
        """The layer's own name scope (see `lamina.name_scope`), as Keras opens it around
        build and call: the scope's path is fixed where the layer is first built or called,
        so its weights' paths do not depend on where it is used later."""
        if self.__dict__.get("_parent_path") is None:
            self._parent_path = current_path()
            layer_arguments.resolve_mapped_policy(self)
        return name_scope(self.name, caller=self)

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        # As Keras does: a subclass without its own `get_config` is described by the
        # arguments it was constructed with, when they are plain values.
        instance.__dict__["_auto_config"] = layer_arguments.record_arguments(cls, args, kwargs)
        _hold_losses(instance)
        return instance

    def __init__(
        self,
        *,
        activity_regularizer=None,
        trainable: bool = True,
        dtype=None,
        autocast: bool = True,
        name: str | None = None,
        **kwargs,
    ):
        if "bounding_box_format" in kwargs and self._takes_bounding_box_format:
            layer_arguments.refuse_bounding_boxes(
                type(self).__name__, kwargs.pop("bounding_box_format")
            )
        base_factor = None
        if "factor" in kwargs and self._keras_base_factor is not None:
            base_factor = layer_arguments.base_factor(self, kwargs.pop("factor"))
        unknown = set(kwargs) - _BASE_INIT_KWARGS
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword argument(s) {sorted(unknown)}."
            )
        super().__init__(name=name)
        self.dtype_policy = dtype
        self._trainable = bool(trainable)
        self.autocast = autocast
        if base_factor is not None:
            self.factor = base_factor
        self.built = False
        self.input_spec = None
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._own_variables: list[Variable] = []
        self._losses: list = []
        _release_losses(self)
        self._build_shapes = None
        self._call_has_training_arg, self._call_has_mask_arg = call_signature_flags(type(self))
        # `__call__`'s short path does what the base `_convert_inputs` does, and runs
        # `_maybe_build` only for a subclass with its own.
        self._short_call = type(self)._convert_inputs is Layer._convert_inputs
        self._own_build_step = type(self)._maybe_build is not Layer._maybe_build
        # Made inside a `RematScope`: the calls take the general path, which rematerializes.
        self._remat_mode = current_remat_mode()
        if self._remat_mode is not None:
            self._short_call = False
        self._input_shape_arg = None
        if "batch_input_shape" in kwargs and kwargs["batch_input_shape"] is not None:
            self._input_shape_arg = tuple(kwargs["batch_input_shape"])
        elif "input_shape" in kwargs and kwargs["input_shape"] is not None:
            shape = tuple(kwargs["input_shape"])
            self._input_shape_arg = (kwargs.get("batch_size"),) + shape
        elif "input_dim" in kwargs and kwargs["input_dim"] is not None:
            self._input_shape_arg = (kwargs.get("batch_size"), int(kwargs["input_dim"]))
        self._initial_weights = kwargs.get("weights")

    # dtype ---------------------------------------------------------------------------
    @property
    def dtype_policy(self):
        """The layer's `DTypePolicy` (settable with a policy or its name), or the
        `DTypePolicyMap` it was given (it computes with the map's entry for its path)."""
        policy_map = self.__dict__.get("_policy_map")
        return self._dtype_policy if policy_map is None else policy_map

    @dtype_policy.setter
    def dtype_policy(self, value) -> None:
        policy = layer_arguments.resolve_policy(self, value)
        mode, state = policy.quantization_mode, self.__dict__
        busy = state.get("_quantizing") or state.get("_is_quantized")  # (a user's quantize)
        if mode is not None and state.get("built") and self.quantization_mode is None and not busy:
            # As in Keras: a quantized policy on a built float layer quantizes it (once: a
            # user's `quantize` marks `_is_quantized` and may set the policy itself).
            self.quantize(mode)
            if self.quantization_mode is not None:
                return
        self._dtype_policy = policy
        self._dtype = policy.variable_dtype
        self._mixed_precision = _is_mixed(policy)
        if self._mixed_precision:
            # Weights made before the policy turned mixed read in the compute dtype too.
            for v in self.__dict__.get("_own_variables", ()):
                if (
                    type(v) is backend.Variable
                    and v.__dict__.get("_autocast")
                    and _is_float(v.dtype)
                ):
                    v.__class__ = _autocast.AutocastVariable

    @property
    def dtype(self) -> str:
        """The variable dtype (as in Keras 3)."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self) -> str:
        """The dtype float inputs are cast to (the compute dtype)."""
        return self._dtype_policy.compute_dtype

    # Tracking ------------------------------------------------------------------------
    def _tracked(self):
        """Children held in attributes, in attribute order: layers, variables, seeds."""
        seen = set()
        out = []

        def visit(value):
            if isinstance(value, (Layer, Variable, ops_random.SeedGenerator)):
                if id(value) not in seen and value is not self:
                    seen.add(id(value))
                    out.append(value)
            elif isinstance(value, dict):
                for v in value.values():
                    visit(v)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    visit(v)

        for v in self._own_variables:
            visit(v)
        for key, value in self.__dict__.items():
            if key not in _UNTRACKED:
                visit(value)
        return out

    def _sublayers(self) -> list[Layer]:
        return [x for x in self._tracked() if isinstance(x, Layer)]

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list[Layer]:
        out, seen = [], set()

        def visit(layer, is_root):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            if include_self or not is_root:
                out.append(layer)
            if recursive or is_root:
                for child in layer._sublayers():
                    visit(child, False)

        visit(self, True)
        return out

    def _own_weights(self) -> list[Variable]:
        own = [x for x in self._tracked() if isinstance(x, Variable)]
        own.sort(key=lambda v: v.__dict__.get("_created", -1))  # made first, first (Keras)
        return [v for v in own if v.trainable] + [v for v in own if not v.trainable]

    def _seed_generators(self) -> list:
        return [x for x in self._tracked() if isinstance(x, ops_random.SeedGenerator)]

    @staticmethod
    def _dedupe(variables) -> list:
        seen, out = set(), []
        for v in variables:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    @property
    def weights(self) -> list[Variable]:
        """All weights: this layer's own (trainable first), then each sublayer's."""
        out = list(self._own_weights())
        for layer in self._sublayers():
            out.extend(layer.weights)
        return self._dedupe(out)

    @property
    def trainable_weights(self) -> list[Variable]:
        if not self.trainable:
            return []
        out = [v for v in self._own_weights() if v.trainable]
        for layer in self._sublayers():
            out.extend(layer.trainable_weights)
        return self._dedupe(out)

    @property
    def non_trainable_weights(self) -> list[Variable]:
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in trainable]

    @property
    def variables(self) -> list[Variable]:
        """Weights plus other state (seed generators), for compiled execution."""
        return self._dedupe(self.weights + self._seed_states())

    def _seed_states(self) -> list[Variable]:
        """State that is not a weight but changes as the layers run: seed generators'
        states and `_runtime_state()` (a stateful RNN's states). Compiled steps carry it
        in `non_trainable_variables`."""
        return [
            v
            for layer in self._flatten_layers()
            for v in [g.state for g in layer._seed_generators()] + layer._runtime_state()
        ]

    def _runtime_state(self) -> list[Variable]:
        """Variables this layer updates as it runs that are not weights (not saved)."""
        return []

    @property
    def trainable_variables(self) -> list[Variable]:
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Variable]:
        return self._dedupe(self.non_trainable_weights + self._seed_states())

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        bump_structure_version()
        self._trainable = bool(value)
        for layer in self._sublayers():
            layer.trainable = value

    def count_params(self) -> int:
        """The number of scalars in this layer's weights."""
        if not self.built:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} is not built yet, so its weights do "
                "not exist. Call it on data or call `build(input_shape)` first."
            )
        total = 0
        for v in self.weights:
            n = 1
            for d in v.shape:
                n *= d
            total += n
        return total

    # Weights -------------------------------------------------------------------------
    def add_weight(
        self,
        shape=None,
        initializer=None,
        dtype=None,
        trainable: bool = True,
        regularizer=None,
        constraint=None,
        name: str | None = None,
        autocast: bool = True,
        aggregation: str | None = "none",
        overwrite_with_gradient: bool = False,
    ) -> Variable:
        """Create a weight of this layer, tracked in `weights`.

        Args:
            shape: the weight's shape (default scalar).
            initializer: initializer object or name; default `"glorot_uniform"` for
                floats, `"zeros"` otherwise.
            trainable: whether training updates it.
            regularizer: adds `regularizer(weight)` to `losses`.
            constraint: applied to the weight after each optimizer update.
            name: the weight's name (its path is `"<layer name>/<name>"`).
            autocast: whether it reads in the compute dtype under a mixed policy.
            aggregation: Keras's distributed reduction name, recorded on the variable
                (see `lamina.Variable`).
            overwrite_with_gradient: when True, the optimizer sets the weight to its
                gradient instead of applying its rule (Keras's float8 scaling factors
                are kept this way); weight decay, clipping and loss scaling skip it.
        """
        shape = tuple(int(d) for d in (shape or ()))
        dtype = backend.standardize_dtype(dtype or self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        # Under a mixed policy, float weights read in the compute dtype inside calls.
        mixed = autocast and self._mixed_precision and "float" in dtype
        with name_scope(self.name, caller=self):
            variable = (_autocast.AutocastVariable if mixed else backend.Variable)(
                initializers.get(initializer),
                shape=shape,
                dtype=dtype,
                trainable=trainable,
                name=name or "variable",
                path=f"{current_path()}/{name or 'variable'}",
                autocast=autocast,
                aggregation=aggregation,
            )
        variable.overwrite_with_gradient = bool(overwrite_with_gradient)
        variable.regularizer = regularizers.get(regularizer)
        variable.constraint = constraints.get(constraint)
        self._own_variables.append(variable)
        return variable

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays, in `weights` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights) -> None:
        """Set the weights from NumPy arrays, in `weights` order (shapes are checked)."""
        params = self.weights
        weights = list(weights)
        if len(params) != len(weights):
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has {len(params)} weight(s), but "
                f"set_weights received a list of {len(weights)} array(s). Pass exactly the "
                f"arrays returned by get_weights() (shapes {[v.shape for v in params]})."
            )
        for variable, value in zip(params, weights, strict=True):
            shape = tuple(getattr(value, "shape", ()))
            if shape != variable.shape:
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: weight {variable.path!r} has shape "
                    f"{variable.shape}, but the array given for it has shape {shape}."
                )
        for variable, value in zip(params, weights, strict=True):
            variable.assign(value)

    # Losses --------------------------------------------------------------------------
    def add_loss(self, loss) -> None:
        """Add a scalar loss (e.g. from `call`) to the model's total loss."""
        scope = current_stateless_scope()
        if scope is not None and scope.collect_losses:
            scope.losses.append(loss)
        elif scope is None:
            self._losses.append(loss)
            _hold_losses(self)

    def _regularization_losses(self) -> list:
        out = []
        for v in self.trainable_weights:
            if getattr(v, "regularizer", None) is not None:
                out.append(v.regularizer(v.value))
        return out

    @property
    def losses(self) -> list:
        """Losses added during the last call (`add_loss`, activity regularizers) and the
        weight regularization losses of the current weights."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._losses)
        return out + self._regularization_losses()

    def _clear_losses(self) -> None:
        if not _LOSS_HOLDERS and not _UNREGISTERED[0]:
            return  # no layer holds losses: nothing to walk
        for layer in self._flatten_layers():
            if layer._losses:
                layer._losses = []
            _release_losses(layer)

    # Stateless calls -----------------------------------------------------------------
    def stateless_call(
        self,
        trainable_variables,
        non_trainable_variables,
        *args,
        return_losses: bool = False,
        **kwargs,
    ):
        """Call the layer as a pure function of the given variable values (Keras 3's API).

        Args:
            trainable_variables: values for `self.trainable_variables`, in order.
            non_trainable_variables: values for `self.non_trainable_variables`, in order.
            *args, **kwargs: the call's arguments (`training=True`, ...).
            return_losses: also return the losses added during the call
                (activity regularizers, `add_loss`).

        Returns:
            `(outputs, non_trainable_variables)` with the values the call left in the
            non-trainable variables (moving statistics, seed states); with
            `return_losses`, `(outputs, non_trainable_variables, losses)`. The layer's
            own variables are not changed.

        >>> import numpy as np
        >>> from lamina import layers
        >>> dense = layers.Dense(1, kernel_initializer="ones")
        >>> dense.build((None, 2))
        >>> out, _ = dense.stateless_call([np.full((2, 1), 2.0), np.zeros(1)], [], np.ones((1, 2)))
        >>> out.tolist()
        [[4.0]]
        """
        trainable = self.trainable_variables
        non_trainable = self.non_trainable_variables
        for given, own, what in (
            (trainable_variables, trainable, "trainable_variables"),
            (non_trainable_variables, non_trainable, "non_trainable_variables"),
        ):
            if len(given) != len(own):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}.stateless_call received "
                    f"{len(given)} values for {what}; the layer has {len(own)} "
                    f"({[v.path for v in own]}). Pass one value per variable, in the order "
                    f"of `layer.{what}`" + ("" if self.built else " (build the layer first)") + "."
                )
        mapping = list(zip(trainable, trainable_variables)) + list(
            zip(non_trainable, non_trainable_variables)
        )
        with backend.StatelessScope(mapping, collect_losses=return_losses) as scope:
            outputs = self(*args, **kwargs)
            new_non_trainable = [scope.get_current_value(v) for v in non_trainable]
            if return_losses:
                # As `layer.losses` would report them: the call's, then the weight
                # regularization of the given values.
                losses = list(scope.losses) + self._regularization_losses()
        if return_losses:
            return outputs, new_non_trainable, losses
        return outputs, new_non_trainable

    # Building ------------------------------------------------------------------------
    def build(self, input_shape) -> None:
        """Create the weights given the input shape; the base version creates none."""
        self.built = True

    def _maybe_build(self, inputs) -> None:
        if self.built:
            return
        shapes = tree.map_structure(
            lambda x: tuple(x.shape) if hasattr(x, "shape") else None, inputs
        )
        self._build_shapes = shapes
        self._build_on_first_call(inputs, shapes)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    _build_on_first_call = build_on_first_call
    get_build_config = layer_arguments.get_build_config
    build_from_config = layer_arguments.build_from_config

    # Shapes and masks ----------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape`; by default found by abstract evaluation."""
        spec = tree.map_shape_structure(
            lambda s: KerasTensor(s, self.compute_dtype), _tuplify(input_shape)
        )
        out = self.compute_output_spec(spec)
        return tree.map_structure(lambda t: t.shape, out)

    def compute_output_spec(self, *args, **kwargs):
        if type(self).compute_output_shape is not Layer.compute_output_shape:
            shapes = tree.map_structure(lambda x: x.shape, args[0])
            dtype = layer_arguments.spec_dtype(self, args[0])
            return _shapes_to_specs(self.compute_output_shape(shapes), dtype)
        return output_spec(quantization.call_method(self), args, kwargs)

    def compute_mask(self, inputs, previous_mask=None):
        """The output mask: by default the input mask if `supports_masking`, else None."""
        if not self.supports_masking:
            return None
        return previous_mask

    # Calling -------------------------------------------------------------------------
    def _inputs_dtype(self) -> str:
        """The dtype float inputs are cast to (where `_casts_inputs`): the compute dtype."""
        return self._dtype_policy.compute_dtype

    @property
    def _casts_inputs(self) -> bool:
        """Whether float inputs are cast to `_inputs_dtype()`: `autocast`, except in a
        graph model, which converts each input to its own `Input`'s dtype instead
        (`lamina.models.calls.conform_inputs`), as Keras's Functional does: a float16
        `Input` computes in float16, and under a mixed policy each layer of the graph
        casts its own inputs, so a float32 layer in it gets the data unrounded."""
        return self.autocast and self.__dict__.get("_function") is None

    def _convert_inputs(self, x):
        layer_arguments.refuse_number_lists(self, x)
        dtype = self._inputs_dtype()
        casts = self._casts_inputs

        def convert(v):
            if isinstance(v, Variable):
                v = v.value
            if backend.is_tensor(v):
                if casts and _is_float(v.dtype) and str(v.dtype) != dtype:
                    return backend.core.cast(v, dtype)
                return v
            if v is None or isinstance(v, (str, bool)):
                return v
            if isinstance(v, np.ndarray) and v.dtype.kind in "USO":
                layer_arguments.refuse_text(self, v)
            t = backend.convert_to_tensor(v)
            if casts and _is_float(t.dtype) and backend.standardize_dtype(t.dtype) != dtype:
                t = backend.core.cast(t, dtype)
            return t

        return tree.map_structure(convert, x)

    @filter_traceback
    def __call__(self, *args, **kwargs):
        if self._mixed_precision or _autocast.current_scope() is not None:
            scope = _autocast.scope_for(self)
            if scope is not None:
                with scope:
                    return self.__call__(*args, **kwargs)
        if len(args) == 1 and self.built and self._short_call:
            x = args[0]
            if backend.is_tensor(x) or (type(x) is np.ndarray and x.dtype.kind not in "USO"):
                for value in kwargs.values():
                    if type(value) not in _SCALAR_KWARG_TYPES:
                        break
                else:
                    if type(x) is np.ndarray:
                        x = backend.convert_to_tensor(x)
                    return call_on_tensor(self, x, kwargs)
        if not args:
            args = (layer_arguments.first_input(self, kwargs),)
        user_kwargs = dict(kwargs)
        if any_symbolic(args, kwargs):
            return self._symbolic_layer_call(args, user_kwargs)

        mask = call_masks.incoming(self, args, kwargs)
        inputs = self._convert_inputs(args[0])
        call_masks.carry_over(args[0], inputs)
        args = (inputs,) + layer_arguments.convert_arrays(self, args[1:])
        kwargs = layer_arguments.convert_arrays(self, kwargs)
        check_input_compatibility(self.input_spec, flat_shaped(inputs), self)
        # Sublayers built in `build` or on their first call inside `call` get this
        # layer's path in front of theirs, as in Keras.
        with self._open_name_scope():
            if not self.built and layer_arguments.build_shape_names(type(self)):
                layer_arguments.build_from_call(self, args, kwargs)
            self._maybe_build(inputs)
            check_input_compatibility(self.input_spec, flat_shaped(inputs), self)

            context = current_call_context()
            training = eager_calls.resolve_training(self, kwargs, context)
            call = quantization.call_method(self)
            if self._remat_mode is not None:
                call = rematerialized_call(self, call, args, kwargs)

            if context is None:
                self._clear_losses()
                with CallContext(training=training):
                    outputs = call(*args, **kwargs)
                    apply_activity_regularizer(self, outputs)
            else:
                if training is not None and context.training is None:
                    context.training = training
                outputs = call(*args, **kwargs)
                apply_activity_regularizer(self, outputs)
        outputs = eager_calls.output_layout(self, outputs)
        call_masks.outgoing(self, inputs, mask, outputs)
        return outputs

    def _symbolic_layer_call(self, args, user_kwargs):
        with self._open_name_scope():
            return symbolic_call(self, args, user_kwargs)

    # Config --------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The arguments that recreate this layer (without weights)."""
        config = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": _policy_config(self.dtype_policy),
        }
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return {**self._recorded_arguments("Layer"), **config}

    _recorded_arguments = layer_arguments.recorded_arguments

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """Create a layer from `get_config()` output."""
        config = serialization.drop_keras_only_arguments(config, cls.__name__)
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = layer_arguments.dtype_name(config["dtype"])
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_BASE_GET_CONFIGS.add(Layer.get_config)
Layer._base_call = Layer.__call__  # what `eager_calls.repeat_call` falls back to
_BASE_INITS.add(Layer.__init__)


serialization.register_builtin("layers", Layer)
