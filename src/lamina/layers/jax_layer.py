"""Layers that wrap JAX models: `JaxLayer` (a plain JAX function) and `FlaxLayer` (a Flax
Linen-style module), as Keras 3 has them.

The wrapped model is pure: it takes its parameters (and state) as arguments. The layer
owns them as lamina Variables, one per array leaf of the parameter tree, and hands their
values to the function at each call, so `fit` differentiates through the function and a
returned new state is assigned like any layer's non-trainable weight. A `rng` argument
draws from the layer's own `SeedGenerator`, whose state compiled training carries along.

Both layers need the JAX engine: the function is JAX code. Flax itself is optional:
`FlaxLayer` only calls the module's `init` and `apply` methods, so lamina never imports it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np

from lamina import backend, ops, tree
from lamina.backend.common.variables import Variable, relaxed
from lamina.common import serialization
from lamina.layers.layer import Layer
from lamina.ops import random as ops_random

_CALL_ARGUMENTS = ("params", "state", "rng", "inputs", "training")
_INIT_ARGUMENTS = ("rng", "inputs", "training")


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _require_jax(cls_name: str) -> None:
    if backend.backend() != "jax":
        raise ValueError(
            f"{cls_name} needs the JAX engine (LAMINA_BACKEND=jax); the current engine is "
            f"{backend.backend()!r}. It runs JAX code, which the {backend.backend()} engine "
            "cannot differentiate or compile. Set LAMINA_BACKEND=jax before importing "
            "lamina, or rewrite the model with lamina layers."
        )


def _argument_names(fn, fn_name: str, allowed, required) -> list[str]:
    """`fn`'s parameter names, in order, checked against the names the layer passes."""
    if not callable(fn):
        raise TypeError(f"`{fn_name}` must be a function; received {type(fn).__name__} {fn!r}.")
    names = list(inspect.signature(fn).parameters)
    for name in required:
        if name not in names:
            raise ValueError(
                f"`{fn_name}` must take an argument named `{name}`; its arguments are "
                f"{names}. The layer passes arguments by these names: {list(allowed)}."
            )
    for name in names:
        if name not in allowed:
            raise ValueError(
                f"Unsupported argument `{name}` in `{fn_name}`: the layer passes only "
                f"arguments named {list(allowed)}. Wrap the function to rename or drop it."
            )
    return names


def _is_array(value) -> bool:
    return backend.is_tensor(value) or isinstance(value, (np.ndarray, np.generic))


def _real_data():
    """The engine's context in which ops compute on real data even inside a trace: the
    one each Variable's initializer runs under (its hook does not use the instance)."""
    return backend.Variable._eager_context(None)


def _value(leaf):
    return leaf.value if isinstance(leaf, Variable) else leaf


@_register
class JaxLayer(Layer):
    """A layer that runs a plain JAX function, its parameters held as lamina weights.

    `call_fn` is called with the arguments it names, passed by position in its own
    order; it must name `inputs`, and may name:

    - `params`: the trainable parameters, a pytree (dicts, lists, tuples) of arrays.
    - `state`: non-trainable state; `call_fn` then returns `(outputs, new_state)` and the
      layer assigns `new_state` (same structure) to its state weights.
    - `rng`: a `jax.random` key (`uint32[2]`) drawn from the layer's seed generator in
      training, `None` in inference.
    - `training`: whether the call is in training mode.

    The parameters and state come either from `params`/`state` or from
    `init_fn(rng, inputs[, training])` at build time, called with ones of the first
    input's shape (an unknown batch size taken as 1); it returns `params`, or
    `(params, state)` when `call_fn` takes a `state`. Each array (or Python number) leaf
    becomes one weight, in JAX's tree order (dicts by sorted key); float leaves take the
    layer's dtype; other leaves are passed on unchanged. Only the JAX engine runs it.

    Saving writes `call_fn` and `init_fn` by their registered names
    (`register_keras_serializable`, or `custom_objects` when loading), never their code;
    a layer made from given `params` without an `init_fn` cannot be rebuilt from its config
    (as in Keras: save its weights instead).

    Args:
        call_fn: the model function (see above).
        init_fn: function creating the parameters (and state) from `rng` and `inputs`
            (and `training`, passed `True`).
        params: the trainable parameters, a pytree of arrays.
        state: the non-trainable state, a pytree of arrays.
        seed: int seed of the layer's seed generator (used when `call_fn` takes `rng`).
        native_serialization_platforms: Keras's jax2tf option for the TensorFlow engine;
            accepted so Keras configs load, and has no effect here.
        **kwargs: base layer arguments (`name`, `dtype`, `trainable`).

    >>> import numpy as np
    >>> from lamina import backend
    >>> def call_fn(params, inputs):
    ...     return inputs @ params["w"] + params["b"]
    >>> params = {"w": np.ones((3, 2), "float32"), "b": np.zeros((2,), "float32")}
    >>> if backend.backend() == "jax":
    ...     layer = JaxLayer(call_fn, params=params)
    ...     print(backend.convert_to_numpy(layer(np.ones((1, 3), "float32"))).tolist())
    ...     print([tuple(w.shape) for w in layer.trainable_weights])
    ... else:
    ...     print([[3.0, 3.0]]); print([(2,), (3, 2)])
    [[3.0, 3.0]]
    [(2,), (3, 2)]
    """

    def __init__(
        self,
        call_fn,
        init_fn=None,
        params=None,
        state=None,
        seed=None,
        native_serialization_platforms=None,
        **kwargs,
    ):
        _require_jax(type(self).__name__)
        super().__init__(**kwargs)
        self.call_fn = call_fn
        self.init_fn = init_fn
        self.seed = seed
        self.native_serialization_platforms = native_serialization_platforms
        self._call_arguments = _argument_names(call_fn, "call_fn", _CALL_ARGUMENTS, ("inputs",))
        self._init_arguments = (
            _argument_names(init_fn, "init_fn", _INIT_ARGUMENTS, ("inputs",))
            if init_fn is not None
            else None
        )
        takes_weights = "params" in self._call_arguments or "state" in self._call_arguments
        if init_fn is None and params is None and state is None and takes_weights:
            raise ValueError(
                f"{type(self).__name__} '{self.name}': `call_fn` takes `params` or `state`, "
                "so pass `init_fn` to create them at build time, or pass `params` (and "
                "`state`) themselves; all three are None."
            )
        self.seed_generator = (
            ops_random.SeedGenerator(seed) if "rng" in self._call_arguments else None
        )
        self.params = self._create_variables(params, trainable=True)
        self.state = self._create_variables(state, trainable=False)
        if params is not None or state is not None:
            self.built = True

    # Weights ---------------------------------------------------------------------------
    def _create_variables(self, values, trainable: bool):
        """`values` with each array or number leaf replaced by a new weight."""

        def create(value):
            if isinstance(value, Mapping) and not isinstance(value, dict):
                raise TypeError(
                    f"{type(self).__name__} '{self.name}': the parameter tree holds a "
                    f"{type(value).__name__}, which lamina does not walk; use plain dicts, "
                    "lists and tuples (for Flax, `flax.core.unfreeze(variables)`)."
                )
            if _is_array(value):
                dtype = backend.standardize_dtype(value.dtype)
                shape = tuple(value.shape)
            elif isinstance(value, (bool, int, float)):
                dtype = backend.standardize_dtype(type(value))
                shape = ()
            else:
                return value  # configuration the model reads, not a weight
            if "float" in dtype:
                dtype = None  # the layer's variable dtype

            def initializer(shape, dtype=None):
                return ops.convert_to_tensor(value, dtype=dtype)

            return self.add_weight(shape, initializer=initializer, dtype=dtype, trainable=trainable)

        if values is None:
            return None
        return tree.map_structure(create, values)

    def _initialize_weights(self, input_shape) -> None:
        def ones(shape):
            return ops.ones([1 if d is None else d for d in shape])

        # The initial values are real data even when the layer is first called while a
        # compiled step is traced (a subclassed model's first `fit`), as every weight's
        # initializer is; the draw from the global seed reaches its real state.
        with relaxed(), _real_data():
            inputs = tree.map_shape_structure(ones, input_shape)
            args = []
            for name in self._init_arguments:
                if name == "rng":
                    args.append(self._get_init_rng())
                elif name == "inputs":
                    args.append(inputs)
                else:
                    args.append(True)
            result = self.init_fn(*args)
        if "state" in self._call_arguments:
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise ValueError(
                    f"{type(self).__name__} '{self.name}': `call_fn` takes a `state`, so "
                    "`init_fn` must return `(params, state)`; it returned "
                    f"{type(result).__name__}."
                )
            params, state = result
        else:
            params, state = result, None
        self.params = self._create_variables(params, trainable=True)
        self.state = self._create_variables(state, trainable=False)

    def build(self, input_shape) -> None:
        takes_weights = "params" in self._call_arguments or "state" in self._call_arguments
        if self.params is None and self.state is None and takes_weights:
            self._initialize_weights(input_shape)
        self.built = True

    # Randomness ------------------------------------------------------------------------
    def _get_init_seed(self):
        """One fresh key (from the global seed generator) for `init_fn`."""
        return ops_random.draw_seed(None)

    def _get_init_rng(self):
        """The `rng` passed to `init_fn`: one key (override for a structure of keys)."""
        return self._get_init_seed()

    def _get_call_seed(self):
        """One fresh key from the layer's seed generator."""
        return self.seed_generator.next()

    def _get_call_rng(self, training):
        """The `rng` passed to `call_fn`: a key in training, `None` in inference."""
        return self._get_call_seed() if training else None

    # Calling ---------------------------------------------------------------------------
    def call(self, inputs, training=False):
        training = bool(training) if training is not None else False
        args = []
        for name in self._call_arguments:
            if name == "params":
                args.append(tree.map_structure(_value, self.params))
            elif name == "state":
                args.append(tree.map_structure(_value, self.state))
            elif name == "rng":
                args.append(self._get_call_rng(training))
            elif name == "inputs":
                args.append(inputs)
            else:
                args.append(training)
        if "state" not in self._call_arguments:
            return self.call_fn(*args)
        result = self.call_fn(*args)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise ValueError(
                f"{type(self).__name__} '{self.name}': `call_fn` takes a `state`, so it must "
                f"return `(outputs, new_state)`; it returned {type(result).__name__}."
            )
        outputs, new_state = result
        self._assign_state(new_state)
        return outputs

    def _assign_state(self, new_state) -> None:
        new_leaves = tree.flatten(new_state)
        old_leaves = tree.flatten(self.state)
        if len(new_leaves) != len(old_leaves):
            raise ValueError(
                f"{type(self).__name__} '{self.name}': the state returned by `call_fn` has "
                f"{len(new_leaves)} leaves, but the state it was created with has "
                f"{len(old_leaves)}; `call_fn` must return the state in the same structure."
            )
        for value, variable in zip(new_leaves, old_leaves):
            if isinstance(variable, Variable):
                variable.assign(value)

    # Config ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            {
                "call_fn": serialization.serialize_keras_object(self.call_fn),
                "init_fn": serialization.serialize_keras_object(self.init_fn),
                "seed": self.seed,
                "native_serialization_platforms": self.native_serialization_platforms,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        for key in ("call_fn", "init_fn"):
            config[key] = serialization.deserialize_keras_object(
                config.get(key),
                custom_objects=custom_objects,
                printable_module_name=f"JaxLayer {key}",
            )
        return super().from_config(config)


@_register
class FlaxLayer(JaxLayer):
    """A layer that runs a Flax Linen module (or any object with Linen's `init`/`apply`).

    The module's variables are split as Flax does: the `"params"` collection is the
    trainable weights, every other collection (`"batch_stats"`, ...) non-trainable state
    that `apply` may update. Calls pass `rngs={"dropout": key}` in training and `{}` in
    inference; `init` gets `{"params": key, "dropout": key}`. If the method takes a
    `training` argument it is passed by keyword. Flax is not a lamina dependency: the
    layer only calls `module.init(rngs, inputs, method=...)` and
    `module.apply(variables, inputs, rngs=..., method=..., mutable=[state collections])`.

    Args:
        module: the Flax module instance.
        method: the method to run (default `__call__`): a method of the module, or a
            function taking the module first (`method(module, inputs[, training])`).
        variables: the module's variables as `module.init` returns them (a dict with a
            `"params"` key and other collections); if None, `module.init` runs at build
            time on ones of the first input's shape.
        **kwargs: base layer arguments (`name`, `dtype`, `trainable`, `seed`).

    Saving writes the module with its own `get_config` (its class registered with
    `register_keras_serializable`) and a bound method by name.

    An NNX module (`flax.nnx.Module`) has no `init`/`apply`: wrap its class as Linen
    with `flax.nnx.bridge.to_linen(ModuleClass, *args)`, as for Keras's `FlaxLayer`.

    >>> import flax.linen as nn
    >>> from lamina import Input, Sequential
    >>> class TwoLayers(nn.Module):
    ...     @nn.compact
    ...     def __call__(self, inputs):
    ...         hidden = nn.relu(nn.Dense(4)(inputs))  # "Dense_0"
    ...         return nn.Dense(2)(hidden)  # "Dense_1"
    >>> layer = FlaxLayer(TwoLayers())
    >>> model = Sequential([Input((3,)), layer])
    >>> [tuple(w.shape) for w in layer.trainable_weights]  # JAX's tree order, as Keras
    [(4,), (3, 4), (2,), (4, 2)]
    >>> model.predict(np.ones((5, 3), "float32"), verbose=0).shape
    (5, 2)
    """

    def __init__(self, module, method=None, variables=None, **kwargs):
        _require_jax(type(self).__name__)
        if not (
            callable(getattr(module, "init", None)) and callable(getattr(module, "apply", None))
        ):
            raise TypeError(
                "FlaxLayer takes a Flax Linen module (an object with `init` and `apply`); "
                f"received a {type(module).__module__}.{type(module).__qualname__}. Wrap "
                "an NNX module's class as Linen with "
                "`flax.nnx.bridge.to_linen(ModuleClass, *args)`; a plain JAX function goes "
                "in `JaxLayer`."
            )
        target = method if method is not None else module.__call__
        takes_training = "training" in inspect.signature(target).parameters

        def flax_call(params, state, rng, inputs, training):
            extra = {"training": training} if takes_training else {}
            outputs, new_state = self.module.apply(
                {**(params or {}), **(state or {})},
                inputs,
                rngs=rng,
                method=self.method,
                mutable=sorted(state or {}),
                **extra,
            )
            return outputs, _plain_dicts(new_state)

        def flax_init(rng, inputs, training):
            extra = {"training": training} if takes_training else {}
            variables = self.module.init(rng, inputs, method=self.method, **extra)
            return _split_variables(variables)

        params, state = _split_variables(variables)
        super().__init__(call_fn=flax_call, init_fn=flax_init, params=params, state=state, **kwargs)
        self.module = module
        self.method = method

    def _get_init_rng(self):
        return {"params": self._get_init_seed(), "dropout": self._get_init_seed()}

    def _get_call_rng(self, training):
        return {"dropout": self._get_call_seed()} if training else {}

    def get_config(self) -> dict:
        config = super().get_config()
        del config["call_fn"], config["init_fn"]
        method = self.method
        if getattr(method, "__self__", None) is self.module:
            method = method.__name__  # a bound method is saved by name
        config["module"] = serialization.serialize_keras_object(self.module)
        config["method"] = serialization.serialize_keras_object(method)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        module = serialization.deserialize_keras_object(
            config["module"], custom_objects=custom_objects, printable_module_name="Flax module"
        )
        method = config.get("method")
        if isinstance(method, str):
            method = getattr(module, method)
        elif method is not None:
            method = serialization.deserialize_keras_object(
                method, custom_objects=custom_objects, printable_module_name="FlaxLayer method"
            )
        config.update(module=module, method=method)
        config.pop("call_fn", None)
        config.pop("init_fn", None)
        return Layer.from_config.__func__(cls, config)


def _split_variables(variables):
    """Flax variables as `(params, state)`: the "params" collection and all the others."""
    if variables is None:
        return None, None
    variables = _plain_dicts(variables)
    if "params" not in variables:
        return {}, dict(variables)
    params = {"params": variables["params"]}
    state = {k: v for k, v in variables.items() if k != "params"}
    return params, state


def _plain_dicts(value):
    """`value` with every mapping (Flax's `FrozenDict` included) made a plain dict."""
    if isinstance(value, Mapping):
        return {k: _plain_dicts(v) for k, v in value.items()}
    return value
