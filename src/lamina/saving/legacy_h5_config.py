"""Keras 2 configs in the form lamina's (Keras 3's) deserialization reads.

A companion of `legacy_h5` (which reads and writes the files): `upgrade_config` turns a
Keras 2 / tf.keras model config into the Keras 3 form (`batch_input_shape`,
`input_dtype`, `Policy` dtypes, list-form inbound nodes of nested models, Lambda
bytecode, op nodes without a module, TensorFlow-op layers refused), and the
`_upgrade_*` helpers do the same for the `training_config` a compiled model was saved
with (Keras 2 optimizer, loss and metric spellings). Each function takes the file's
reader, so every refusal names the part of the file and why.
"""

from __future__ import annotations

import logging

from lamina.common import serialization
from lamina.saving.keras_ops import KERAS_OPS

logger = logging.getLogger("lamina")

RECURRENT_CLASSES = frozenset(
    {"LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell", "ConvLSTM2D"}
)
# tf.keras 2 layers that wrap a TensorFlow function (`x * 2` in a functional model).
TF_OP_LAYERS = frozenset({"TFOpLambda", "SlicingOpLambda", "TensorFlowOpLayer"})
# Where Keras 3 keeps the op classes that are not in `keras.src.ops.numpy`.
KERAS_OP_MODULES = {
    "Cast": "keras.src.ops.core",
    "Relu": "keras.src.ops.nn",
    "Sigmoid": "keras.src.ops.nn",
    "Softmax": "keras.src.ops.nn",
}
# Keras 2 Lambda config keys Keras 3 no longer has.
LAMBDA_LEGACY_KEYS = ("module", "function_type", "output_shape_type", "output_shape_module")


def _lambda(config: dict, who: str, reader, safe_mode):
    for key in LAMBDA_LEGACY_KEYS:
        config.pop(key, None)
    function = config.get("function")
    if isinstance(function, list):  # Keras 2: [base64 bytecode, defaults, closure]
        if safe_mode:
            reader.fail(
                f"its model_config, {who}",
                "this Lambda layer stores its function as Python bytecode, and loading it "
                "would run code from the file, so it is refused in safe mode. If you trust "
                "the file, load it with `safe_mode=False`.",
            )
        if len(function) != 3 or not isinstance(function[0], str):
            reader.fail(
                f"its model_config, {who}", "its 'function' is not [code, defaults, closure]."
            )
        config["function"] = {
            "class_name": "__lambda__",
            "config": {"code": function[0], "defaults": function[1], "closure": function[2]},
        }


def upgrade_config(config, reader, safe_mode=True):
    """A Keras 2 model config in the Keras 3 form lamina's deserialization reads."""
    if not isinstance(config.get("class_name"), str) or "config" not in config:
        reader.fail(
            "its model_config",
            "expected a JSON object with 'class_name' and 'config' keys; found keys "
            f"{sorted(config)[:10]}.",
        )
    # Iterative walk over every `{"class_name", "config"}` dict (layers, nested models,
    # wrapped layers and cells, initializers): depth is already bounded.
    stack = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        stack.extend(item.values())
        class_name, inner = item.get("class_name"), item.get("config")
        if not isinstance(class_name, str):
            continue
        if (
            class_name.startswith("Custom>")
            and serialization.get_registered_object(class_name) is None
        ):
            item["class_name"] = class_name = class_name[len("Custom>") :]
        if class_name == "Sequential" and isinstance(inner, list):  # Keras <= 2.2
            item["config"] = inner = {"layers": inner}
            stack.append(inner)
        if not isinstance(inner, dict):
            continue
        who = f"layer {inner.get('name')!r} ({class_name})"
        if "batch_input_shape" in inner and class_name == "InputLayer":
            inner.setdefault("batch_shape", inner.pop("batch_input_shape"))
        if class_name == "InputLayer" and "input_dtype" in inner:
            inner.setdefault("dtype", inner.pop("input_dtype"))
        dtype = inner.get("dtype")
        if isinstance(dtype, dict) and dtype.get("class_name") == "Policy":
            name = (dtype.get("config") or {}).get("name")
            inner["dtype"] = name if isinstance(name, str) else None
        axis = inner.get("axis")
        if isinstance(axis, list) and len(axis) == 1 and isinstance(axis[0], int):
            inner["axis"] = axis[0]
        if class_name in TF_OP_LAYERS:
            reader.fail(
                f"its model_config, {who}",
                "this layer is a TensorFlow function that tf.keras 2 recorded in the graph "
                f"({inner.get('function')!r}); neither lamina nor Keras 3 can run TensorFlow "
                "ops from a file. Rebuild the model in code (with `lamina.ops` for that step) "
                "and load this file's weights into it with `model.load_weights(path)`.",
            )
        if class_name == "Lambda":
            _lambda(inner, who, reader, safe_mode)
        if class_name in RECURRENT_CLASSES:
            # Keras 2's choice of kernel (1: many small products, 2: fused); the same
            # mathematics either way, and not an argument lamina's layers take.
            inner.pop("implementation", None)
        if isinstance(inner.get("layers"), list):
            _shift_nested_nodes(inner["layers"])
            for entry in inner["layers"]:
                _mark_keras_op(entry)
    return config


def _mark_keras_op(entry) -> None:
    """Keras 3's legacy writer drops the `module` of op nodes (`x != 0` under an
    `Embedding(mask_zero=True)` is `{"class_name": "NotEqual", "config": {"name": ...}}`),
    so Keras 3 itself cannot read such files back. An entry named like a Keras op whose
    config has neither `trainable` nor `dtype` (which every layer writes) is such a node:
    it is given back its module, so it resolves in lamina's Keras-op registry."""
    if not isinstance(entry, dict) or "module" in entry or "inbound_nodes" not in entry:
        return
    inner = entry.get("config")
    class_name = entry.get("class_name")
    if (
        isinstance(class_name, str)
        and class_name in KERAS_OPS
        and isinstance(inner, dict)
        and "trainable" not in inner
        and "dtype" not in inner
    ):
        entry["module"] = KERAS_OP_MODULES.get(class_name, "keras.src.ops.numpy")


def _owns_first_node(entry) -> bool:
    """Whether Keras 2 gave this nested model a node of its own before its calls: a
    functional model always, a Sequential one when it starts with an InputLayer."""
    if not isinstance(entry, dict) or not isinstance(entry.get("config"), (dict, list)):
        return False
    inner = entry["config"]
    layers = inner.get("layers") if isinstance(inner, dict) else inner
    if not isinstance(layers, list):
        return False
    if entry.get("class_name") in ("Functional", "Model"):
        return True
    first = layers[0] if layers else None
    return (
        entry.get("class_name") == "Sequential"
        and isinstance(first, dict)
        and first.get("class_name") == "InputLayer"
    )


def _shift_nested_nodes(layers: list) -> None:
    """Keras 2's list-form inbound nodes count a nested model's own node: its first call
    is node 1. lamina counts only calls, so those references move down by one."""
    names = [
        entry.get("name") or entry["config"].get("name")
        for entry in layers
        if _owns_first_node(entry) and isinstance(entry["config"], dict)
    ]
    nested = {name for name in names if isinstance(name, str)}
    if not nested:
        return
    for entry in layers:
        nodes = entry.get("inbound_nodes") if isinstance(entry, dict) else None
        for node in nodes if isinstance(nodes, list) else []:
            for source in node if isinstance(node, list) else []:
                if (
                    isinstance(source, list)
                    and len(source) >= 3
                    and isinstance(source[0], str)
                    and source[0] in nested
                    and isinstance(source[1], int)
                    and source[1] >= 1
                ):
                    source[1] -= 1


# training_config -----------------------------------------------------------------------


def _upgrade_optimizer(config: dict) -> dict:
    config = dict(config)
    inner = dict(config.get("config") or {})
    if isinstance(config.get("class_name"), str) and config["class_name"].startswith("Custom>"):
        config["class_name"] = config["class_name"][len("Custom>") :]
    if "lr" in inner:
        inner.setdefault("learning_rate", inner.pop("lr"))
        inner.pop("lr", None)
    decay = inner.pop("decay", None)
    if decay:
        logger.warning(
            "The file's optimizer sets decay=%r, a Keras 2 argument Keras 3 dropped; it is "
            "ignored (use a learning-rate schedule instead).",
            decay,
        )
    for key in ("is_legacy_optimizer", "jit_compile"):
        inner.pop(key, None)
    config["config"] = inner
    return config


def _upgrade_metric(spec):
    """Keras 2 wrote compiled metrics as `MeanMetricWrapper` configs naming their function."""
    if isinstance(spec, list):
        return [_upgrade_metric(s) for s in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _upgrade_metric(v) for k, v in spec.items()}
    if isinstance(spec, dict) and spec.get("class_name") == "MeanMetricWrapper":
        # Its name ("mae", "accuracy") is what `compile` was given; `compile` resolves
        # it through the registry like any metric name.
        inner = spec.get("config") or {}
        for candidate in (inner.get("name"), inner.get("fn")):
            if isinstance(candidate, str):
                return candidate
    return spec


def _single(spec):
    # Keras 2 wrote one list of metrics per output: `[["mae"]]` for a one-output model.
    if isinstance(spec, list) and len(spec) == 1 and isinstance(spec[0], list):
        return spec[0]
    return spec


def _upgrade_loss(spec):
    if isinstance(spec, list):
        return [_upgrade_loss(s) for s in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _upgrade_loss(v) for k, v in spec.items()}
    if isinstance(spec, dict) and isinstance(spec.get("config"), dict):
        inner = dict(spec["config"])
        if inner.get("reduction") == "auto":  # Keras 2's default
            inner["reduction"] = "sum_over_batch_size"
        return {**spec, "config": inner}
    return spec


def _check_loss_names(compile_config, custom_objects) -> None:
    """Every loss *name* must resolve through the registry now, at load. (Metric names
    resolve through the same registry when the model first runs its metrics.)"""
    from lamina import losses

    with serialization.custom_object_scope(custom_objects or {}):
        stack = [compile_config.get("loss")]
        while stack:
            spec = stack.pop()
            if isinstance(spec, list):
                stack.extend(spec)
            elif isinstance(spec, dict) and "class_name" not in spec:
                stack.extend(spec.values())  # per-output dict
            elif isinstance(spec, str):
                try:
                    losses.get(spec)
                except (ValueError, TypeError) as err:
                    raise ValueError(
                        f"its loss {spec!r} is not a lamina loss nor a registered custom "
                        f"object ({err}). Pass it in `custom_objects`."
                    ) from err
