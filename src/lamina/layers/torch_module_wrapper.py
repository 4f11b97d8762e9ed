"""TorchModuleWrapper: a plain `torch.nn.Module` as a lamina layer (torch engine only).

Keras 3's `keras.layers.TorchModuleWrapper`. The module's parameters become the layer's
variables, sharing the module's tensors, so `fit` trains the module itself; its buffers
(BatchNorm statistics) are saved with its `state_dict`. The torch side lives in
`lamina.backend.torch.module_wrapper`; on the torch engine a bare module assigned as an
attribute of any layer or model is wrapped automatically, as Keras does.
"""

from __future__ import annotations

from lamina import backend
from lamina.common import serialization
from lamina.graph.operation import output_spec
from lamina.layers import core
from lamina.layers.layer import Layer, _shapes_to_specs, _tuplify

_UNSAFE_MODULE = (
    "TorchModuleWrapper {name!r}: its config holds a pickled `torch.nn.Module`, and "
    "unpickling it (`torch.load`) can run arbitrary code from the file, so it is refused "
    "in safe mode. If you trust the source, pass `safe_mode=False` to the loading "
    "function (`lamina.saving.load_model(path, safe_mode=False)`) or call "
    "`lamina.config.enable_unsafe_deserialization()`."
)


def _require_torch(who: str) -> None:
    if backend.backend() != "torch":
        raise ValueError(
            f"{who} wraps a `torch.nn.Module`, which needs the torch engine "
            f"(LAMINA_BACKEND=torch); the current engine is {backend.backend()!r}, which "
            "cannot run or differentiate torch code. Set LAMINA_BACKEND=torch before "
            "importing lamina, or rewrite the module with lamina layers."
        )


class TorchModuleWrapper(Layer):
    """Wraps a `torch.nn.Module` as a layer, so it can sit in a lamina model.

    The module's parameters are the layer's weights (the same tensors, not copies):
    `model.trainable_weights` lists them and `fit` updates the module in place. Its
    buffers, such as BatchNorm's running statistics, are updated by the module in train
    mode and saved with its `state_dict`. On the torch engine a bare module assigned as
    an attribute of a layer or model is wrapped automatically, so a subclassed model
    may hold `torch.nn.MaxPool2d()` as it is. Torch engine only.

    A `.keras` file stores the module pickled (as Keras 3 does); loading it runs pickle,
    so `load_model` needs `safe_mode=False`, for files you trust.

    Args:
        module: a `torch.nn.Module`. A lazy module must be initialized first (called
            once).
        name: the layer's name.
        output_shape: the output shape, batch included (`(None, 3)`); by default found
            by running the module on `meta` tensors (shapes, no data).

    Call arguments:
        *args, **kwargs: passed to the module.
        training: False puts the module in eval mode for the call; anything else (None
            included, as in Keras) in train mode.

    >>> from lamina import Input, backend
    >>> if backend.backend() == "torch":
    ...     import torch
    ...     outputs = TorchModuleWrapper(torch.nn.Linear(4, 3))(Input((4,)))
    ...     print(outputs.shape)
    ... else:
    ...     print((None, 3))
    (None, 3)
    """

    _pure_call = False  # the module's forward is the user's Python

    def __init__(self, module, name=None, output_shape=None, **kwargs):
        _require_torch(type(self).__name__)
        super().__init__(name=name, **kwargs)
        who = f"{type(self).__name__} {self.name!r}"
        if isinstance(module, Layer):
            raise TypeError(
                f"{who} received the lamina layer {module.name!r} ({type(module).__name__}), "
                "which is already a layer (and a `torch.nn.Module`): use it directly "
                "instead of wrapping it."
            )
        named = backend.layer.module_variables(module, self.name, who)
        self.module = module
        self._parameter_names = [name for name, _ in named]
        self._own_variables.extend(variable for _, variable in named)
        self._module_output_shape = None if output_shape is None else _tuplify(output_shape)
        self.built = True

    def _named_variables(self):
        return list(zip(self._parameter_names, self._own_variables, strict=True))

    def call(self, *args, training=None, **kwargs):
        return backend.layer.call_module(
            self.module, self._named_variables(), training, args, kwargs
        )

    def compute_output_spec(self, *args, **kwargs):
        if self._module_output_shape is not None:
            return _shapes_to_specs(self._module_output_shape, self.compute_dtype)
        return output_spec(self.call, args, kwargs)

    def compute_output_shape(self, input_shape):
        if self._module_output_shape is not None:
            return self._module_output_shape
        return super().compute_output_shape(input_shape)

    # Saving: the module's whole state_dict, by its own names (Keras's file layout) ------
    def _saved_variables(self) -> list:
        # No numbered entries: `save_own_variables` files every tensor by name.
        return []

    def save_own_variables(self, store) -> None:
        """File the module's `state_dict` (parameters and buffers) under its names."""
        for key, value in backend.layer.module_state(self.module).items():
            store[key] = value

    def load_own_variables(self, store) -> None:
        """Load what `save_own_variables` (or Keras) filed into the module."""
        state = {
            (key.decode() if isinstance(key, bytes) else str(key)): store[key]
            for key in store.keys()
        }
        backend.layer.load_module_state(self.module, state, f"{type(self).__name__} {self.name!r}")

    # Config: the module pickled, base64 text (Keras's format) ---------------------------
    def get_config(self) -> dict:
        config = super().get_config()
        shape = self._module_output_shape
        config["module"] = backend.layer.serialize_module(self.module)
        config["output_shape"] = list(shape) if isinstance(shape, tuple) else shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        config = dict(config)
        _require_torch(cls.__name__)
        if isinstance(config.get("module"), str):
            if safe_mode is None:
                safe_mode = serialization.current_safe_mode()
            if safe_mode is None:
                safe_mode = not core._UNSAFE["enabled"]
            if safe_mode:
                raise ValueError(_UNSAFE_MODULE.format(name=config.get("name")))
            config["module"] = backend.layer.deserialize_module(config["module"])
        return super().from_config(config)


serialization.register_builtin("layers", TorchModuleWrapper)
backend.layer.wrap_modules(TorchModuleWrapper)
