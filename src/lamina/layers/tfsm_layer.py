"""`TFSMLayer`: Keras 3's layer that calls a TensorFlow SavedModel. A SavedModel is a
TensorFlow program (a graph of TensorFlow operations and its variables), run by
TensorFlow's runtime; lamina runs on JAX and PyTorch, so the layer is refused when made,
with what to do instead."""

from __future__ import annotations

from lamina.layers.layer import Layer

_WHY = (
    "TFSMLayer({filepath!r}) cannot be made: it runs a TensorFlow SavedModel, a TensorFlow "
    "program that only TensorFlow's runtime executes, and lamina runs on JAX and PyTorch "
    "without TensorFlow. Load a Keras model file instead (`lamina.saving.load_model("
    "'model.keras')`; save one from Keras with `model.save('model.keras')`), or, for a "
    "model exported to ONNX, `lamina.export.load('model.onnx')`."
)


class TFSMLayer(Layer):
    """Keras 3's layer around a TensorFlow SavedModel; refused in lamina (see the module).

    Takes Keras's arguments, so that code naming them gets the reason rather than a
    TypeError: `filepath`, `call_endpoint`, `call_training_endpoint`, `trainable`,
    `name`, `dtype`.

    >>> try:
    ...     TFSMLayer("exported_model")
    ... except ValueError as error:
    ...     print(str(error).split(":")[0])
    TFSMLayer('exported_model') cannot be made
    """

    def __init__(
        self,
        filepath,
        call_endpoint="serve",
        call_training_endpoint=None,
        trainable=True,
        name=None,
        dtype=None,
    ):
        raise ValueError(_WHY.format(filepath=str(filepath)))

    def call(self, inputs, training=False):  # Keras's signature; never reached
        raise ValueError(_WHY.format(filepath="?"))


__all__ = ["TFSMLayer"]
