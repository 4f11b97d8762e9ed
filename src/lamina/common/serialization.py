"""Turning objects into configs and back, through a registry only.

Deserialization resolves a `class_name` only through lamina's registry: the built-ins
each package registers, what users register with `register_keras_serializable`, and the
`custom_objects` passed in. It never imports a module or looks a name up elsewhere, so a
config (or a file) cannot make lamina run arbitrary code.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

# category -> {name: object}; categories are "layers", "activations", "initializers", ...
_BUILTINS: dict[str, dict[str, object]] = {}
# built-in object -> the first category it was registered in (which Keras module it is in)
_BUILTIN_CATEGORIES: dict[object, str] = {}
_CUSTOM_OBJECTS: dict[str, object] = {}
_CUSTOM_NAMES: dict[object, str] = {}
_scope = threading.local()
# Keras op nodes of functional configs (`NotEqual`, `Add`, ...): a factory plus the
# class names it builds, filled in by `lamina.saving.keras_ops`.
_KERAS_OPS: dict[str, object] = {}
KERAS_OPS_MODULES = ("keras.src.ops.", "keras.ops")

# Keras writes these module names; we write the same so files move both ways.
MODULE_NAMES = {
    "layers": "keras.layers",
    "activations": "keras.activations",
    "initializers": "keras.initializers",
    "regularizers": "keras.regularizers",
    "constraints": "keras.constraints",
    "optimizers": "keras.optimizers",
    "schedules": "keras.optimizers.schedules",
    "losses": "keras.losses",
    "metrics": "keras.metrics",
    "models": "keras.models",
}


class UnknownObjectError(TypeError, ValueError):
    """A config names a class or function that is neither built in nor registered.

    A `TypeError`, as Keras 3 raises for a class it cannot locate, and a `ValueError`,
    as lamina raised before, so `except` clauses written for either keep working.
    """


def _unknown_advice(class_name: str, registered: str | None) -> str:
    package = registered.split(">")[0] if registered and ">" in registered else None
    register = (
        f"`@register_keras_serializable(package={package!r})`"
        if package
        else "`@register_keras_serializable()`"
    )
    saved_as = f" (saved as {registered!r})" if registered and registered != class_name else ""
    return (
        f"{saved_as}. Pass it in `custom_objects`, e.g. "
        f"`load_model(path, custom_objects={{{class_name!r}: {class_name}}})`, or decorate it "
        f"with {register} and import it before loading"
    )


def register_builtin(category: str, obj, name: str | None = None):
    """Register a built-in class or function under `name` (default: its `__name__`)."""
    _BUILTINS.setdefault(category, {})[name or obj.__name__] = obj
    _BUILTIN_CATEGORIES.setdefault(obj, category)
    return obj


def register_keras_op_factory(factory, class_names) -> None:
    """Let `factory(class_name, module, config)` build the Keras op nodes `class_names`."""
    for class_name in class_names:
        _KERAS_OPS[class_name] = factory


def _is_keras_op_module(module) -> bool:
    return isinstance(module, str) and (
        module.startswith(KERAS_OPS_MODULES[0]) or module == KERAS_OPS_MODULES[1]
    )


def builtins(category: str) -> dict:
    return dict(_BUILTINS.get(category, {}))


def register_keras_serializable(package: str = "Custom", name: str | None = None):
    """Decorator registering a user class or function as `"package>name"`.

    Registered objects serialize under that name and deserialize from it without
    `custom_objects`. As in Keras, registering a name again replaces the earlier object
    (so re-running a notebook cell works), and a class needs a `get_config()` method.
    `register_serializable` is the same decorator.

    Args:
        package: the first part of the registered name (default `"Custom"`).
        name: the second part (default: the object's `__name__`).

    >>> @register_keras_serializable(package="demo")
    ... def double(x):
    ...     return x * 2
    >>> get_registered_name(double)
    'demo>double'
    """
    if not isinstance(package, str) or (name is not None and not isinstance(name, str)):
        raise TypeError(
            "register_keras_serializable(package=..., name=...) takes strings; received "
            f"package={package!r}, name={name!r}. Use it as `@register_keras_serializable()` "
            "(with parentheses)."
        )

    def decorator(obj):
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError(
                f"Cannot register class {obj.__name__!r}: it has no get_config() method, so "
                "it could not be saved. Define get_config() (and from_config if needed)."
            )
        registered = f"{package}>{name or obj.__name__}"
        _CUSTOM_OBJECTS[registered] = obj
        _CUSTOM_NAMES[obj] = registered
        return obj

    return decorator


register_serializable = register_keras_serializable


def get_registered_name(obj) -> str:
    """The name `obj` is saved under: its registered name, else its `__name__`.

    >>> from lamina.saving import get_registered_name, register_keras_serializable
    >>> @register_keras_serializable(package="my_package")
    ... def scaled(x):
    ...     return 2 * x
    >>> get_registered_name(scaled)
    'my_package>scaled'
    """
    return _CUSTOM_NAMES.get(obj, getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(
    name: str,
    custom_objects: dict | None = None,
    module_objects: dict | None = None,
    *,
    category: str | None = None,
):
    """Look `name` up in: scoped custom objects, `custom_objects`, registered,
    `module_objects` (Keras's dict of a module's names, for code that resolves names
    from a module of its own), then lamina's built-ins (of `category`, or all).

    >>> from lamina import layers
    >>> get_registered_object("Dense") is layers.Dense
    True
    >>> get_registered_object("Mine", custom_objects={"Mine": dict})
    <class 'dict'>
    """
    found = _custom_object(name, custom_objects, module_objects)
    if found is not None:
        return found
    categories = [category] if category else list(_BUILTINS)
    for cat in categories:
        if name in _BUILTINS.get(cat, {}):
            return _BUILTINS[cat][name]
    return None


def _custom_object(name: str, custom_objects: dict | None, module_objects: dict | None):
    """`name` among the scoped, passed and registered custom objects and `module_objects`
    (not the built-ins), or None."""
    for scope in reversed(getattr(_scope, "stack", [])):
        if name in scope:
            return scope[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _CUSTOM_OBJECTS:
        return _CUSTOM_OBJECTS[name]
    short = name.split(">")[-1]
    for key, obj in _CUSTOM_OBJECTS.items():
        if key.split(">")[-1] == short:
            return obj
    if module_objects is not None and not isinstance(module_objects, dict):
        raise TypeError(
            "get_registered_object's `module_objects` must be a dict of names to objects "
            f"(as in Keras); received {type(module_objects).__name__} {module_objects!r:.80}. "
            "Pass a category by keyword: `category=...`."
        )
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict):
    """Within the block, `custom_objects` resolve in every deserialization.

    >>> from lamina import layers
    >>> class Scaled(layers.Dense):
    ...     pass
    >>> config = {"class_name": "Scaled", "config": {"units": 2}}
    >>> with custom_object_scope({"Scaled": Scaled}):
    ...     layer = deserialize_keras_object(config, "layers")
    >>> type(layer).__name__, layer.units
    ('Scaled', 2)
    """
    stack = getattr(_scope, "stack", None)
    if stack is None:
        stack = _scope.stack = []
    stack.append(dict(custom_objects or {}))
    try:
        yield
    finally:
        stack.pop()


CustomObjectScope = custom_object_scope


def serialize_keras_object(obj, category: str | None = None):
    """A JSON-able config: `{"module", "class_name", "config", "registered_name"}`, and
    `build_config` for a built layer.

    As in Keras, what `get_config()` returns is serialized too: a layer, initializer,
    regularizer (any object with a `get_config`) in it becomes its own config dict, which
    a class's `from_config` deserializes. Functions registered as built-ins serialize to
    their name (as Keras does for activations); `None`, numbers and strings pass through.

    >>> from lamina import layers, regularizers
    >>> config = serialize_keras_object(layers.Dense(3, name="d"))
    >>> config["class_name"], config["config"]["units"], config["config"]["name"]
    ('Dense', 3, 'd')
    >>> serialize_keras_object(regularizers.L1(0.5))["module"]
    'keras.regularizers'
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(o, category) for o in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v, category) for k, v in obj.items()}
    if callable(obj) and not hasattr(obj, "get_config"):
        name = getattr(obj, "__name__", None)
        if obj in _CUSTOM_NAMES:
            return {
                "module": None,
                "class_name": "function",
                "config": _CUSTOM_NAMES[obj],
                "registered_name": "function",
            }
        if name is not None:
            return name
    if not hasattr(obj, "get_config"):
        raise TypeError(f"Cannot serialize {type(obj).__name__} {obj!r}: it has no `get_config()`.")
    cls = type(obj)
    module, class_name, registered = _serialized_names(obj, category)
    inner = obj.get_config()
    config = {
        "module": None if module == "__main__" else module,  # Keras writes no `__main__`
        "class_name": class_name,
        "config": _serialize_config(inner) if isinstance(inner, dict) else inner,
        "registered_name": registered,
    }
    if (
        getattr(obj, "built", False)
        and hasattr(cls, "get_build_config")
        and (_own_build_from_config(obj))
    ):
        # Only for a class that builds from it itself (see `_from_config`): lamina's
        # layers are built by the model or wrapper rebuilt around them.
        build = obj.get_build_config()
        if build is not None:
            config["build_config"] = _serialize_config(build)
    return config


def _serialized_names(obj, category):
    """`(module, class_name, registered_name)` of a config, as Keras writes them."""
    cls = type(obj)
    registered = _CUSTOM_NAMES.get(cls)
    if registered is not None:
        return cls.__module__, cls.__name__, registered
    keras_names = getattr(obj, "_keras_serialized_names", None)
    if keras_names is not None:
        # Models are written under the names Keras uses, so Keras can read the file.
        return keras_names()
    builtin_category = _BUILTIN_CATEGORIES.get(cls, category)
    if builtin_category is None:
        # An unregistered class met inside a config: named as Keras names it, so a
        # `custom_objects` entry of its class name finds it on either side.
        return cls.__module__, cls.__name__, cls.__name__
    return MODULE_NAMES.get(builtin_category), cls.__name__, None


def _serialize_config(value):
    """`value` (what a `get_config()` or `get_build_config()` returned) with the objects in
    it serialized: anything with a `get_config`, registered and built-in functions, NumPy
    scalars. Other values stay as they are."""
    if isinstance(value, dict):
        return {k: _serialize_config(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_serialize_config(v) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, type):
        return value
    if hasattr(value, "get_config") or (callable(value) and hasattr(value, "__name__")):
        return serialize_keras_object(value)
    return value


@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool | None):
    """Within the block, deserialization refuses (True) or allows (False) Python bytecode."""
    stack = getattr(_scope, "safe_mode", None)
    if stack is None:
        stack = _scope.safe_mode = []
    stack.append(safe_mode)
    try:
        yield
    finally:
        stack.pop()


def current_safe_mode() -> bool | None:
    """The innermost `safe_mode_scope` value, or None when none is active."""
    stack = getattr(_scope, "safe_mode", None)
    return stack[-1] if stack else None


# Arguments newer Keras versions write that lamina does not implement. A config may
# carry them at these default values (they are dropped); any other value is refused.
KERAS_ONLY_DEFAULTS = {
    "ragged": False,
    "quantization_config": None,
    "lora_rank": None,
    "lora_alpha": None,
    "input_axes": None,
    "output_axes": None,
}


def drop_keras_only_arguments(config: dict, who: str) -> dict:
    """Remove Keras-only arguments that are at their defaults; refuse other values."""
    config = dict(config)
    for key, default in KERAS_ONLY_DEFAULTS.items():
        if key in config:
            value = config.pop(key)
            if value != default:
                raise ValueError(
                    f"{who} config sets {key}={value!r}, which lamina does not support "
                    f"(only {default!r})."
                )
    return config


MAX_CONFIG_DEPTH = 100


def config_depth(config, limit: int = MAX_CONFIG_DEPTH) -> int:
    """Nesting depth of a config, stopping (and raising) past `limit`."""
    stack = [(config, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            raise ValueError(
                f"Config nested deeper than {limit} levels; refusing to deserialize it."
            )
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1) for v in item)
    return deepest


# Layer config keys that size weights or tensors. A config (e.g. from a hostile file)
# asking for more than MAX_DIMENSION along one of them is refused at once, with the key
# named; what the whole model allocates is bounded separately while it is built (see
# `build_budget`), so honest large sizes (an Embedding with 50M rows) load.
SIZE_KEYS = frozenset(
    {
        "units", "filters", "input_dim", "output_dim", "num_heads", "key_dim", "value_dim",
        "kernel_size", "pool_size", "strides", "dilation_rate", "size", "depth_multiplier",
        "target_shape", "batch_shape", "input_shape", "shape", "dims", "max_tokens",
        "num_tokens", "num_bins", "intermediate_dim", "output_sequence_length", "cropping",
        "padding", "groups", "num_classes", "n",
    }
)  # fmt: skip
MAX_DIMENSION = 2**31 - 1
# Keys where -1 is meaningful ("infer this size": Reshape's target_shape) or harmless
# (the shape keys).
NEGATIVE_ONE_KEYS = frozenset({"target_shape", "shape", "batch_shape", "input_shape", "groups"})

# The most bytes of variables that building a model from a config (model_from_json,
# model_from_config, Model.from_config, layers.deserialize) may allocate. Loading a
# `.keras` file allows what its weights could hold instead. Raise it for larger models.
MAX_CONFIG_BUILD_BYTES = 8 * 2**30


def build_budget(max_bytes=None, what="Building a model from a config", advice=None):
    """A context that caps the bytes of variables created inside it (by default at
    `MAX_CONFIG_BUILD_BYTES`); inside another load it leaves that load's cap in place."""
    from lamina.backend.common.variables import AllocationBudget

    if max_bytes is None:
        max_bytes = MAX_CONFIG_BUILD_BYTES
        advice = (
            "If the model really is this large, raise "
            "`lamina.common.serialization.MAX_CONFIG_BUILD_BYTES`, or build it in code and "
            "load its weights with `load_weights`."
        )
    return AllocationBudget(max_bytes, what, advice or "")


def check_sizes(config, who: str) -> None:
    """Refuse integer sizes above `MAX_DIMENSION` under `SIZE_KEYS` in a layer config."""
    if not isinstance(config, dict):
        return
    for key in SIZE_KEYS.intersection(config):
        stack = [config[key]]
        while stack:
            value = stack.pop()
            if isinstance(value, (list, tuple)):
                stack.extend(value)
            elif isinstance(value, int) and not isinstance(value, bool):
                if value < -1 or (value == -1 and key not in NEGATIVE_ONE_KEYS):
                    raise ValueError(
                        f"{who} config sets {key}={config[key]!r:.100}; sizes cannot be negative."
                    )
                if abs(value) > MAX_DIMENSION:
                    raise ValueError(
                        f"{who} config sets {key}={config[key]!r}; lamina refuses sizes above "
                        f"{MAX_DIMENSION} in a config (building it would allocate absurd "
                        "amounts of memory). Build such a layer in code if you really mean it."
                    )


def deserialize_keras_object(
    config,
    category: str | None = None,
    custom_objects: dict | None = None,
    printable_module_name: str = "object",
    **kwargs,
):
    """Rebuild an object from `serialize_keras_object` output (or a bare name string).

    A config with a `build_config` builds the new object from it (through its own
    `build_from_config`), as Keras does. A name resolves among the built-ins of
    `category`; without a category it resolves, as in Keras 3, only to a custom object
    (registered, scoped or in `custom_objects`) and otherwise comes back as the string,
    and a list gives the list of its items deserialized.

    Keyword arguments, as Keras's: `safe_mode` (refuse Python bytecode), and
    `module_objects`, a dict of names to classes and functions consulted after the
    custom and registered objects (Keras 2 era code passes a module's `globals()`).

    >>> from lamina import layers
    >>> config = serialize_keras_object(layers.Dense(3, activation="relu"))
    >>> layer = deserialize_keras_object(config)
    >>> type(layer).__name__, layer.units, layer.activation.__name__
    ('Dense', 3, 'relu')
    >>> deserialize_keras_object(["sgd", "relu"]), deserialize_keras_object("relu", "activations").__name__
    (['sgd', 'relu'], 'relu')
    """
    module_objects = kwargs.pop("module_objects", None)
    if "safe_mode" in kwargs:
        with safe_mode_scope(kwargs.pop("safe_mode")):
            return deserialize_keras_object(
                config,
                category,
                custom_objects,
                printable_module_name,
                module_objects=module_objects,
                **kwargs,
            )
    if config is None:
        return None
    if category is None and isinstance(config, list):
        # As Keras: a list of configs (`metrics=[...]` in a compile config) gives a list.
        return [
            deserialize_keras_object(
                item, None, custom_objects, printable_module_name, module_objects=module_objects
            )
            for item in config
        ]
    if isinstance(config, str) and category is None:
        # As Keras 3: a name given without a category is a custom object's (registered,
        # in scope or in `custom_objects`), or else stays the string it is (the compile
        # config of a model's own `get_compile_config` keeps `"sgd"` as a name).
        found = _custom_object(config, custom_objects, module_objects)
        return config if found is None else found
    if isinstance(config, str):
        obj = get_registered_object(config, custom_objects, module_objects, category=category)
        if obj is None:
            valid = sorted(_BUILTINS.get(category or "", {}))
            raise ValueError(
                f"Unknown {printable_module_name}: {config!r}. Valid names are {valid}; "
                "register custom objects with `register_keras_serializable` or pass "
                "them in `custom_objects`."
            )
        return obj
    if not isinstance(config, dict) or "class_name" not in config:
        raise TypeError(
            f"Cannot deserialize {printable_module_name} from {config!r}: expected a name "
            "or a dict with 'class_name' and 'config'."
        )
    config_depth(config)
    class_name = config["class_name"]
    if not isinstance(class_name, str):
        raise TypeError(
            f"Cannot deserialize the {printable_module_name} config: its 'class_name' must be a "
            f"string; received {type(class_name).__name__} {class_name!r:.100}."
        )
    inner = config.get("config", {})
    module = config.get("module")
    for key in ("module", "registered_name"):
        if config.get(key) is not None and not isinstance(config[key], str):
            raise TypeError(
                f"Cannot deserialize the {printable_module_name} config of {class_name!r}: its "
                f"{key!r} must be a string or null; received {type(config[key]).__name__} "
                f"{config[key]!r:.100}."
            )
    if _is_keras_op_module(module):
        # An op node of a Keras functional graph: resolved only in the Keras-op registry.
        factory = _KERAS_OPS.get(class_name)
        if factory is None:
            raise ValueError(
                f"Unknown Keras op {class_name!r} (module {module!r}) in the "
                f"{printable_module_name} config. lamina runs these Keras op nodes: "
                f"{sorted(_KERAS_OPS)}; it never imports a module named by a file."
            )
        return factory(class_name, module, inner)
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(
                f"Cannot deserialize the {printable_module_name} config of a function: its "
                f"'config' must be the function's registered name; received "
                f"{type(inner).__name__} {inner!r:.100}."
            )
        obj = get_registered_object(inner, custom_objects, module_objects, category=category)
        registered = config.get("registered_name")
        if obj is None:
            raise UnknownObjectError(
                f"Unknown function {inner!r} for {printable_module_name}"
                f"{_unknown_advice(inner, registered if registered != 'function' else None)}."
            )
        return obj
    if category == "layers" and not isinstance(inner, (dict, list)):
        raise TypeError(
            f"Cannot deserialize the {printable_module_name} config of {class_name!r}: its "
            f"'config' must be an object; received {type(inner).__name__} {inner!r:.100}."
        )
    if category == "layers":
        who = f"{class_name} {inner.get('name')!r}" if isinstance(inner, dict) else class_name
        check_sizes(inner, who)
        check_sizes(config.get("build_config"), who)
    registered = config.get("registered_name") or class_name
    cls = get_registered_object(registered, custom_objects, module_objects, category=category)
    if cls is None and registered != class_name:
        cls = get_registered_object(class_name, custom_objects, module_objects, category=category)
    if cls is None:
        valid = sorted(_BUILTINS.get(category or "", {}))
        raise UnknownObjectError(
            f"Unknown {printable_module_name} class {class_name!r}"
            f"{_unknown_advice(class_name, config.get('registered_name'))}. "
            f"Known built-ins: {valid}."
        )
    if not isinstance(cls, type):
        return cls
    if category == "layers":
        name = inner.get("name") if isinstance(inner, dict) else None
        where = (
            f"{printable_module_name} {name!r} ({class_name})"
            if name
            else (f"{printable_module_name} {class_name}")
        )
        try:
            with build_budget():
                return _from_config(cls, inner, custom_objects, kwargs, config.get("build_config"))
        except CONFIG_ERRORS as err:
            raise config_error(err, where) from err
    return _from_config(cls, inner, custom_objects, kwargs, config.get("build_config"))


# What building an object from a damaged config may raise, besides ValueError and
# TypeError: a missing key, a value of the wrong type reaching an attribute or an index,
# an absurd number reaching arithmetic. Each is turned into one ValueError naming the
# layer (see `config_error`); MemoryError and KeyboardInterrupt pass through.
CONFIG_ERRORS = (
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    IndexError,
    OverflowError,
    ZeroDivisionError,
    RecursionError,
    RuntimeError,
    ArithmeticError,
    AssertionError,
)


def config_error(err: BaseException, where: str) -> Exception:
    """`err` as an exception whose message starts with `where` (the part being read).

    A TypeError stays a TypeError and an `UnknownObjectError` stays one; everything
    else becomes a ValueError, its original type named in the message (`KeyError:
    'units'`). Nested layers prefix their own names, so the message reads like a path:
    `model 'm' (Functional): layer 'dense' (Dense): ...`.

    >>> str(config_error(KeyError("units"), "layer 'dense' (Dense)"))
    "layer 'dense' (Dense): missing key 'units' (KeyError)"
    """
    if isinstance(err, RecursionError):
        detail = "the config is nested or linked too deeply to build (RecursionError)"
    elif isinstance(err, KeyError):
        detail = f"missing key {err} (KeyError)"
    elif type(err) in (ValueError, TypeError, UnknownObjectError):
        detail = str(err)
    else:
        detail = f"{err} ({type(err).__name__})"
    if type(err) is UnknownObjectError:
        cls = UnknownObjectError
    else:
        cls = TypeError if type(err) is TypeError else ValueError
    return cls(f"{where}: {detail}")


def _from_config(cls, inner, custom_objects, kwargs, build_config=None):
    """`cls.from_config(inner)`, then, as Keras does, `build_from_config(build_config)` on
    an instance that is not built yet: a layer nested in a model or in another layer's
    config gets its state (its variables) before the model around it is rebuilt, through
    its own `build_from_config` where it defines one."""
    instance = _instantiate(cls, inner, custom_objects, kwargs)
    if (
        build_config
        and hasattr(instance, "build_from_config")
        and not getattr(instance, "built", True)
        and _own_build_from_config(instance)
    ):
        with custom_object_scope(custom_objects or {}):
            instance.build_from_config(build_config)
        instance.built = True
    return instance


def is_lamina_code(obj) -> bool:
    """Whether `obj` (a class, function or method) is lamina's own, not a user's: how
    lamina tells its own methods from a subclass's overrides.

    >>> from lamina import layers
    >>> is_lamina_code(layers.Dense.call), is_lamina_code(dict.get)
    (True, False)
    """
    return (getattr(obj, "__module__", None) or "").startswith("lamina.")


def _own_build_from_config(instance) -> bool:
    """Whether `instance`'s class overrides lamina's `build_from_config` (a layer whose
    `build` takes more than the input shape). lamina's own is left to the model being
    rebuilt, which builds its layers inside its name scope: their variables keep the
    paths they were saved under (an Orbax checkpoint's state tree is keyed by them)."""
    return not is_lamina_code(getattr(type(instance), "build_from_config", None))


def _instantiate(cls, inner, custom_objects, kwargs):
    if hasattr(cls, "from_config"):
        try:
            return cls.from_config(inner, custom_objects=custom_objects, **kwargs)
        except TypeError as err:
            if "custom_objects" not in str(err):
                raise
            with custom_object_scope(custom_objects or {}):
                return cls.from_config(inner)
    return cls(**inner)


def object_accessors(category: str, what: str, base_class=None):
    """`(serialize, deserialize, get)` for one category of built-ins (initializers,
    regularizers, constraints): names, config dicts, classes, instances and callables."""

    def serialize(obj):
        if obj is None:
            return None
        return serialize_keras_object(obj, category)

    def deserialize(config, custom_objects=None):
        obj = deserialize_keras_object(
            config, category, custom_objects=custom_objects, printable_module_name=what
        )
        return obj() if isinstance(obj, type) else obj

    def get(identifier):
        if identifier is None:
            return None
        if isinstance(identifier, (str, dict)):
            return deserialize(identifier)
        if (
            isinstance(identifier, type)
            and base_class is not None
            and issubclass(identifier, base_class)
        ):
            return identifier()
        if callable(identifier):
            return identifier
        raise ValueError(
            f"Could not interpret {what} {identifier!r}: expected a name, a config dict or a "
            f"callable. Valid names: {sorted(builtins(category))}."
        )

    serialize.__doc__ = f"The Keras 3 config dict of a {what} (None stays None)."
    deserialize.__doc__ = f"A {what} from its name or config dict."
    get.__doc__ = f"Resolve None, a name, a config dict, a class or a callable to a {what}."
    return serialize, deserialize, get
