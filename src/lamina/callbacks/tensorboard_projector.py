"""What `TensorBoard(embeddings_freq=N)` writes for TensorBoard's embedding projector.

Two meanings, one per Keras generation, told apart by `embeddings_data`:

* Without it (Keras 3): the weights of the `Embedding` layers (those named in
  `embeddings_layer_names`, else all), one row per token.
* With it (Keras 2): the *outputs* of the layers named in `embeddings_layer_names` (all
  `Embedding` layers when `None`) on `embeddings_data`, computed with `predict` in
  batches of `batch_size`, one row per sample, each output flattened.

Either way each projected tensor is a TSV file, `log_dir/train/<layer>.embeddings.tsv`,
rewritten every `embeddings_freq` epochs, and `log_dir/projector_config.pbtxt` points at
it (TensorBoard's projector reads checkpoints only with TensorFlow installed; it reads
TSV files without). `embeddings_metadata` (one file for every projected layer, or a
dict from layer names to files, relative to `log_dir` as in Keras) becomes each entry's
`metadata_path`. The model's weights are also saved each time as
`train/keras_embedding.ckpt-<epoch>.weights.h5`, as Keras 3 saves them.
"""

from __future__ import annotations

import json
import os

import numpy as np

from lamina import ops
from lamina.graph.function import Function
from lamina.layers import Embedding


def _described(layers) -> list:
    return [layer.name for layer in layers]


def projected_layers(callback, model) -> list:
    """The layers whose tensors the projector shows, after checking the names given."""
    names = callback.embeddings_layer_names
    layers = getattr(model, "layers", None) or []
    if names is None:
        return [layer for layer in layers if isinstance(layer, Embedding)]
    by_name = {layer.name: layer for layer in layers}
    missing = [name for name in names if name not in by_name]
    if missing:
        raise ValueError(
            f"TensorBoard embeddings_layer_names names {missing}, which are not layers of "
            f"model {model.name!r}; its layers are {_described(layers)}."
        )
    chosen = [by_name[name] for name in names]
    if callback.embeddings_data is None:
        others = [layer.name for layer in chosen if not isinstance(layer, Embedding)]
        if others:
            raise ValueError(
                f"TensorBoard embeddings_layer_names names {others}, which are not "
                "Embedding layers: without `embeddings_data` the projector shows Embedding "
                "layers' weights. Pass `embeddings_data=` (inputs of the model) to show "
                "those layers' outputs on it, as Keras 2 did."
            )
    return chosen


def _tensor_file(layer) -> str:
    return f"train/{layer.name}.embeddings.tsv"  # relative to projector_config.pbtxt


def write_config(callback, model) -> None:
    """`log_dir/projector_config.pbtxt`: one entry per projected layer."""
    metadata = callback.embeddings_metadata
    remaining = dict(metadata) if isinstance(metadata, dict) else None
    layers = projected_layers(callback, model)
    outputs = callback.embeddings_data is not None
    lines = []
    for layer in layers:
        # Keras 2 named an output's projection `<layer>_embedding`.
        tensor_name = f"{layer.name}_embedding" if outputs else f"{layer.name}/embeddings"
        lines += [
            "embeddings {",
            f"  tensor_name: {json.dumps(tensor_name)}",
            f"  tensor_path: {json.dumps(_tensor_file(layer))}",
        ]
        path = metadata if isinstance(metadata, (str, os.PathLike)) else None
        if remaining is not None and layer.name in remaining:
            path = remaining.pop(layer.name)
        if path is not None:
            lines.append(f"  metadata_path: {json.dumps(os.fspath(path))}")
        lines.append("}")
    if remaining:
        kind = "projected" if outputs else "Embedding"
        raise ValueError(
            f"TensorBoard embeddings_metadata names layers {sorted(remaining)} that are "
            f"not {kind} layers of the model; its {kind} layers are {_described(layers)}."
        )
    os.makedirs(callback.log_dir, exist_ok=True)
    with open(os.path.join(callback.log_dir, "projector_config.pbtxt"), "w") as f:
        f.write("\n".join(lines) + ("\n" if lines else ""))


def _layer_outputs(callback, model, layers) -> list:
    """Each layer's output on `embeddings_data`, one row per sample, in batches of
    `batch_size` (inference mode)."""
    if getattr(model, "_function", None) is None or not model.inputs:
        raise ValueError(
            f"TensorBoard embeddings_data needs a model built from inputs (functional or "
            f"Sequential with its input shape) to compute layer outputs; model "
            f"{model.name!r} has no graph."
        )
    graph = Function(model.inputs, [layer.output for layer in layers])
    data = callback.embeddings_data
    flat = list(data) if isinstance(data, (list, tuple)) else [data]
    flat = [np.asarray(x) for x in flat]
    count, size = len(flat[0]), callback.batch_size or 32
    parts: list = [[] for _ in layers]
    for start in range(0, count, size):
        batch = [x[start : start + size] for x in flat]
        values = graph(batch if len(batch) > 1 else batch[0], training=False)
        for part, value in zip(parts, values, strict=True):
            value = np.asarray(ops.convert_to_numpy(value), np.float64)
            part.append(value.reshape(len(value), -1))
    return [np.concatenate(part) for part in parts]


def write_embeddings(callback, model, epoch: int) -> None:
    """The projected tensors of this epoch, where projector_config.pbtxt points."""
    model.save_weights(
        os.path.join(callback.log_dir, "train", f"keras_embedding.ckpt-{epoch}.weights.h5")
    )
    layers = projected_layers(callback, model)
    if not layers:
        return
    if callback.embeddings_data is not None:
        tables = _layer_outputs(callback, model, layers)
    else:
        tables = [
            np.asarray(ops.convert_to_numpy(layer.embeddings.value), np.float64) for layer in layers
        ]
    for layer, table in zip(layers, tables, strict=True):
        path = os.path.join(callback.log_dir, *_tensor_file(layer).split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.savetxt(path, table.reshape(len(table), -1), delimiter="\t", fmt="%.9g")
