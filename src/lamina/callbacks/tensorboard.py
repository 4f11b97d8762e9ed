"""TensorBoard: training curves, weight histograms, the model graph and profiles, no TensorFlow.

The callback writes the event files TensorBoard reads, laid out as Keras 3 lays them out:
`log_dir/train/` and `log_dir/validation/`, one `events.out.tfevents.*` file per writer.
Each file is a sequence of TFRecord-framed `Event` protocol buffers; tensorboardX (the
optional extra `lamina[tensorboard]`) provides the protos and the framing, so nothing
here needs TensorFlow. What goes in them follows Keras 3:

* per epoch, `epoch_<name>` scalars of the training logs (plus `epoch_learning_rate`,
  and `epoch_steps_per_second` when asked) in `train/`, and of the `val_` logs (prefix
  dropped) in `validation/`; after each evaluation, `evaluation_<name>_vs_iterations`
  in `validation/` at the optimizer's step count;
* with `update_freq=N` (or `"batch"`, N = 1), `batch_<name>` scalars every N training
  batches, numbered by the batches seen since `fit` began (from 1);
* every `histogram_freq` epochs, a histogram of every weight (`<path>/histogram`) and,
  with `write_images`, the weight drawn as a greyscale image (`<path>/image`);
* with `write_graph`, at the start of `fit`, the model's JSON config (the `graph_keras_model` summary that
  TensorBoard's graph plugin draws as the "conceptual graph") and a `GraphDef` with one
  node per layer or op and an edge per connection, with its output shapes;
* every `embeddings_freq` epochs, the tensors of TensorBoard's projector: `Embedding`
  weights, or (Keras 2's `embeddings_data`) layer outputs on given data
  (`callbacks/tensorboard_projector.py`);
* `profile_batch`: the engine's own profiler (`jax.profiler`, `torch.profiler`) over a
  range of training batches, written under `log_dir/train/plugins/profile/<run>/`.

Importing lamina does not import tensorboardX; constructing the callback does.
"""

from __future__ import annotations

import itertools
import os
import struct
import time
import warnings
import zlib

import numpy as np

from lamina import backend, ops
from lamina.callbacks import tensorboard_projector
from lamina.callbacks.callback import Callback

_INSTALL_HINT = (
    "callbacks.TensorBoard writes its event files with tensorboardX, which is not "
    "installed. Install it with `pip install lamina[tensorboard]` (or "
    "`pip install tensorboardX`); TensorFlow is not needed."
)

# Keras's bound: tf.summary.image writes at most 3 images per call by default.
_MAX_IMAGES = 3
# tf.summary.histogram's default bucket count.
_HISTOGRAM_BUCKETS = 30
_file_numbers = itertools.count()


def _tensorboardx():
    try:
        from tensorboardX import event_file_writer
        from tensorboardX.proto import (
            attr_value_pb2,
            event_pb2,
            graph_pb2,
            node_def_pb2,
            summary_pb2,
            tensor_pb2,
            tensor_shape_pb2,
            types_pb2,
            versions_pb2,
        )
    except ImportError as error:
        raise ImportError(_INSTALL_HINT) from error
    return {
        "EventsWriter": event_file_writer.EventsWriter,
        "AttrValue": attr_value_pb2.AttrValue,
        "Event": event_pb2.Event,
        "GraphDef": graph_pb2.GraphDef,
        "NodeDef": node_def_pb2.NodeDef,
        "Summary": summary_pb2.Summary,
        "HistogramProto": summary_pb2.HistogramProto,
        "SummaryMetadata": summary_pb2.SummaryMetadata,
        "TensorProto": tensor_pb2.TensorProto,
        "TensorShapeProto": tensor_shape_pb2.TensorShapeProto,
        "DT_STRING": types_pb2.DT_STRING,
        "VersionDef": versions_pb2.VersionDef,
    }


class _EventFile:
    """One event file, written synchronously (no queue or thread to wait for)."""

    def __init__(self, directory: str, protos: dict):
        self.directory = directory
        self._protos = protos
        os.makedirs(directory, exist_ok=True)
        # TensorFlow's naming: the pid and a counter keep two writers opened in the
        # same second from truncating each other's file.
        suffix = f".{os.getpid()}.{next(_file_numbers)}.v2"
        self._writer = protos["EventsWriter"](os.path.join(directory, "events"), suffix)

    def add(self, step: int, **fields) -> None:
        event = self._protos["Event"](wall_time=time.time(), step=int(step), **fields)
        self._writer.write_event(event)

    def add_values(self, step: int, values: list) -> None:
        if values:
            self.add(step, summary=self._protos["Summary"](value=values))

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def _scalar_or_none(value):
    """A loggable value as a Python float; `None` for strings and multi-element arrays."""
    if isinstance(value, (bool, int, float, np.number)):
        return float(value)
    if isinstance(value, str):
        return None
    array = np.asarray(ops.convert_to_numpy(value))
    if array.size != 1 or not np.issubdtype(array.dtype, np.number):
        return None
    return float(array.reshape(()))


def _png(image: np.ndarray) -> bytes:
    """An 8-bit PNG of `image` (height, width, channels), channels 1, 3 or 4."""
    height, width, channels = image.shape
    color_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = np.concatenate(
        [np.zeros((height, 1), np.uint8), image.reshape(height, width * channels)], axis=1
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes()))
        + chunk(b"IEND", b"")
    )


def _warn_keras2_arguments(callback) -> None:
    """One warning for Keras 2's arguments that lamina accepts but cannot honour."""
    ignored = []
    if callback.write_grads:
        ignored.append(
            "write_grads=True (Keras 2's histograms of the loss's gradients, computed on "
            "validation data: lamina writes histograms of the weights only)"
        )
    if callback.batch_size is not None and callback.embeddings_data is None:
        ignored.append(
            "batch_size (Keras 2 fed validation data in batches of it for histograms of "
            "layer outputs; lamina's histograms are of the weights, computed without data, "
            "and batch_size only sets the batch of an `embeddings_data` pass)"
        )
    if ignored:
        warnings.warn(
            "TensorBoard ignores " + "; and ".join(ignored) + ". Leave them out to "
            "silence this warning.",
            stacklevel=3,
        )


def _parse_profile_batch(profile_batch) -> tuple[int, int]:
    message = (
        "TensorBoard profile_batch must be a non-negative integer (one batch; 0 turns "
        "profiling off) or a pair (start, stop) of positive integers with start <= stop "
        f"(the batches to profile, counted from 1); received profile_batch={profile_batch!r}."
    )
    value = profile_batch
    if isinstance(value, str):  # Keras's legacy "start,stop" form
        try:
            value = [int(part) for part in value.split(",")]
        except ValueError:
            raise ValueError(message) from None
        value = value[0] if len(value) == 1 else value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        start = stop = int(value)
    elif (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    ):
        start, stop = (int(v) for v in value)
    else:
        raise ValueError(message)
    if start < 0 or stop < start or (start == 0 and stop > 0):
        raise ValueError(message)
    return start, stop


class TensorBoard(Callback):
    """Write logs for TensorBoard: metrics, learning rate, weights, the graph, profiles.

    Run `tensorboard --logdir <log_dir>` to look at them. Event files go to
    `log_dir/train/` and `log_dir/validation/`, as Keras 3 writes them; see the module
    docstring for every summary and its name. Needs tensorboardX
    (`pip install lamina[tensorboard]`), not TensorFlow.

    Args:
        log_dir: the folder of the log files. Do not share it with other callbacks.
        histogram_freq: every how many epochs (from epoch 0) to write a histogram of
            every weight; 0 writes none.
        write_graph: write the model's graph (its JSON config, and a `GraphDef` with a
            node per layer written after the first training batch).
        write_images: with `histogram_freq`, also write each kernel as an image.
        write_steps_per_second: also log the training steps per second, per epoch
            (`epoch_steps_per_second`) and, with `update_freq`, per batch.
        update_freq: `"epoch"` writes the logs once per epoch; an integer N (or
            `"batch"`, meaning 1) also writes the running training logs every N batches
            as `batch_<name>`.
        profile_batch: the training batches to profile with the engine's profiler: an
            integer (one batch), a pair `(start, stop)` (inclusive, counted from 1
            across epochs), or 0 for none.
        embeddings_freq: every how many epochs to save the `Embedding` layers' values for
            TensorBoard's projector (`projector_config.pbtxt` points at a
            `train/<layer>.embeddings.tsv` per layer, rewritten each time; the weights
            are also saved as `train/keras_embedding.ckpt-<epoch>.weights.h5`, as
            Keras does); 0 saves none.
        embeddings_metadata: a metadata file for every projected layer, or a dict
            from layer names to files (paths relative to `log_dir`).
        embeddings_layer_names: Keras 2's argument: the layers to project (default:
            every `Embedding` layer).
        embeddings_data: Keras 2's argument: inputs of the model; when given, the
            projector shows the *outputs* of the named layers on them (one row per
            sample), as Keras 2 did, instead of `Embedding` weights.
        batch_size: Keras 2's argument: the batch size of the `embeddings_data` pass
            (default 32). Keras 2 also used it for histograms of layer outputs on
            validation data, which lamina does not write; given without
            `embeddings_data` it is ignored, with a warning.
        write_grads: Keras 2's histograms of gradients; accepted and ignored, with a
            warning (the histograms are of the weights).

    >>> import tempfile, numpy as np, lamina
    >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> log_dir = tempfile.mkdtemp()
    >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0,
    ...               callbacks=[TensorBoard(log_dir)])
    >>> sorted(os.listdir(log_dir))
    ['train']
    """

    def __init__(
        self,
        log_dir="logs",
        histogram_freq=0,
        write_graph=True,
        write_images=False,
        write_steps_per_second=False,
        update_freq="epoch",
        profile_batch=0,
        embeddings_freq=0,
        embeddings_metadata=None,
        embeddings_layer_names=None,
        embeddings_data=None,
        batch_size=None,
        write_grads=False,
    ):
        super().__init__()
        self._protos = _tensorboardx()
        self.log_dir = os.fspath(log_dir)
        for name, value in (
            ("histogram_freq", histogram_freq),
            ("embeddings_freq", embeddings_freq),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(
                    f"TensorBoard {name} must be a non-negative integer (a number of "
                    f"epochs; 0 turns it off); received {name}={value!r}."
                )
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (
            isinstance(update_freq, bool)
            or not isinstance(update_freq, (int, np.integer))
            or update_freq < 1
        ):
            raise ValueError(
                "TensorBoard update_freq must be 'epoch', 'batch' or a positive integer "
                f"(write every N batches); received update_freq={update_freq!r}."
            )
        self.update_freq = update_freq if update_freq == "epoch" else int(update_freq)
        self._start_batch, self._stop_batch = _parse_profile_batch(profile_batch)
        self._should_trace = self._stop_batch > 0
        self.embeddings_freq = int(embeddings_freq)
        self.embeddings_metadata = embeddings_metadata
        if isinstance(embeddings_layer_names, str):
            embeddings_layer_names = [embeddings_layer_names]
        self.embeddings_layer_names = (
            None if embeddings_layer_names is None else list(embeddings_layer_names)
        )
        self.embeddings_data = embeddings_data
        if batch_size is not None and (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, np.integer))
            or batch_size < 1
        ):
            raise ValueError(
                "TensorBoard batch_size must be a positive integer (the batch of the "
                f"embeddings_data pass); received batch_size={batch_size!r}."
            )
        self.batch_size = None if batch_size is None else int(batch_size)
        self.write_grads = bool(write_grads)
        _warn_keras2_arguments(self)
        self._writers: dict[str, _EventFile] = {}
        self._trace = None
        self._in_fit = False
        self._should_write_graph_def = False
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._epoch_start_time = 0.0
        self._epoch_start_iterations = 0
        self._batch_start_time = 0.0
        self._skipped: set[str] = set()

    # Writers ---------------------------------------------------------------------------
    def _writer(self, which: str) -> _EventFile:
        # Created on first use, so a run without validation has no `validation/`.
        if which not in self._writers:
            folder = self._train_dir if which == "train" else self._val_dir
            self._writers[which] = _EventFile(folder, self._protos)
        return self._writers[which]

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    def _scalars(self, which: str, step: int, logs: dict, prefix: str, suffix: str = ""):
        values = []
        for name, value in logs.items():
            number = _scalar_or_none(value)
            if number is None:
                if name not in self._skipped:
                    self._skipped.add(name)
                    warnings.warn(
                        f"TensorBoard writes scalars only; the log {name!r} is not a "
                        f"single number ({type(value).__name__}), so it is not written.",
                        UserWarning,
                        stacklevel=3,
                    )
                continue
            tag = f"{prefix}{name}{suffix}"
            values.append(self._protos["Summary"].Value(tag=tag, simple_value=number))
        self._writer(which).add_values(step, values)

    # Model ------------------------------------------------------------------------------
    def set_model(self, model) -> None:
        super().set_model(model)
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._close_writers()
        if self.embeddings_freq:
            tensorboard_projector.write_config(self, model)

    def _write_model_config(self, model) -> None:
        # Keras writes the config only for graph models (Functional, Sequential).
        if getattr(model, "_function", None) is None and type(model).__name__ != "Sequential":
            return
        try:
            config = model.to_json()
        except Exception as error:  # a model that cannot be described still trains
            warnings.warn(
                f"TensorBoard could not write the model's config: to_json() failed with "
                f"{type(error).__name__}: {error}",
                UserWarning,
                stacklevel=3,
            )
            return
        p = self._protos
        metadata = p["SummaryMetadata"](
            plugin_data=p["SummaryMetadata"].PluginData(
                plugin_name="graph_keras_model", content=b"1"
            )
        )
        tensor = p["TensorProto"](
            dtype=p["DT_STRING"],
            tensor_shape=p["TensorShapeProto"](),
            string_val=[config.encode("utf-8")],
        )
        value = p["Summary"].Value(tag="keras", metadata=metadata, tensor=tensor)
        self._writer("train").add_values(0, [value])

    def _graph_def(self, model):
        p = self._protos
        attr = p["AttrValue"]

        def shapes_attr(tensors):
            dims = p["TensorShapeProto"].Dim
            shapes = [
                p["TensorShapeProto"](dim=[dims(size=-1 if d is None else int(d)) for d in t.shape])
                for t in tensors
                if getattr(t, "shape", None) is not None
            ]
            return attr(list=attr.ListValue(shape=shapes))

        nodes: dict[str, dict] = {}
        try:
            by_depth = model.nodes_by_depth
        except (AttributeError, TypeError):
            by_depth = None
        if by_depth:
            for depth in sorted(by_depth, reverse=True):
                for node in by_depth[depth]:
                    op = node.outbound_layer
                    # A layer by its class (`Dense`), an op by its function (`add`).
                    kind = getattr(op, "function_name", None) or type(op).__name__
                    entry = nodes.setdefault(
                        op.name, {"op": kind, "inputs": [], "outputs": node.output_tensors}
                    )
                    for inbound in node.inbound_layers:
                        if inbound.name not in entry["inputs"]:
                            entry["inputs"].append(inbound.name)
        else:  # a subclassed model: its layers, with no recorded connections
            for layer in model.layers:
                nodes.setdefault(layer.name, {"op": type(layer).__name__, "inputs": []})
        graph = p["GraphDef"](versions=p["VersionDef"](producer=22))
        for name, entry in nodes.items():
            node_def = graph.node.add(name=name, op=entry["op"], input=entry["inputs"])
            if entry.get("outputs"):
                node_def.attr["_output_shapes"].CopyFrom(shapes_attr(entry["outputs"]))
        return graph

    # Training --------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._in_fit = True
        self._global_train_batch = 0
        self._should_write_graph_def = self.write_graph
        if self.write_graph:
            self._write_model_config(self._model)

    def on_train_end(self, logs=None):
        self._in_fit = False
        self._stop_trace()
        self._close_writers()

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._epoch_start_iterations = self._iterations(self.model)
            self._epoch_start_time = time.time()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()
        if self._should_trace and self._global_train_batch == self._start_batch:
            self._start_trace()

    def on_train_batch_end(self, batch, logs=None):
        step = self._global_train_batch
        if self._should_write_graph_def:
            self._should_write_graph_def = False
            self._writer("train").add(0, graph_def=self._graph_def(self._model).SerializeToString())
        if self.update_freq != "epoch" and step % self.update_freq == 0:
            logs = dict(logs) if isinstance(logs, dict) else {}
            if self.write_steps_per_second:
                seconds = time.time() - self._batch_start_time
                logs["steps_per_second"] = 1.0 / seconds if seconds > 0 else float("inf")
            self._scalars("train", step, logs, "batch_")
        if self._trace is not None and step >= self._stop_batch:
            self._stop_trace()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        model = self.model
        train_logs.update(self._learning_rates(model))
        if self.write_steps_per_second:
            seconds = time.time() - self._epoch_start_time
            steps = self._iterations(model) - self._epoch_start_iterations
            train_logs["steps_per_second"] = steps / seconds if seconds > 0 else float("inf")
        if train_logs:
            self._scalars("train", epoch, train_logs, "epoch_")
        if val_logs:
            self._scalars("validation", epoch, val_logs, "epoch_")
            self._writer("validation").flush()
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._write_weights(model, epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            tensorboard_projector.write_embeddings(self, model, epoch)
        if "train" in self._writers:
            self._writers["train"].flush()

    # Evaluation (also the validation inside fit) ----------------------------------------
    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1

    def on_test_end(self, logs=None):
        model = self.model
        if getattr(model, "optimizer", None) is None or not logs:
            return
        if not hasattr(model.optimizer, "iterations"):
            return
        step = self._iterations(model)
        self._scalars("validation", step, logs, "evaluation_", "_vs_iterations")
        if self._in_fit:
            self._writer("validation").flush()
        else:  # a lone evaluate(): nothing else will close the file
            self._close_writers()

    # Helpers ---------------------------------------------------------------------------
    @staticmethod
    def _iterations(model) -> int:
        optimizer = getattr(model, "optimizer", None)
        if optimizer is None:
            return 0
        return int(ops.convert_to_numpy(optimizer.iterations))

    @staticmethod
    def _learning_rates(model) -> dict:
        optimizer = getattr(model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # LossScaleOptimizer
        if optimizer is None:
            return {}
        if hasattr(optimizer, "optimizers"):
            return {
                f"learning_rate_{inner.name}": float(ops.convert_to_numpy(inner.learning_rate))
                for inner in optimizer.optimizers
            }
        if hasattr(optimizer, "learning_rate"):
            return {"learning_rate": float(ops.convert_to_numpy(optimizer.learning_rate))}
        return {}

    def _write_weights(self, model, epoch: int) -> None:
        p = self._protos
        values = []
        for layer in model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")
                array = np.asarray(ops.convert_to_numpy(weight.value), dtype=np.float64)
                if array.size:
                    values.append(
                        p["Summary"].Value(tag=f"{name}/histogram", histo=self._histogram(array))
                    )
                if self.write_images:
                    values += self._images(array, f"{name}/image")
        self._writer("train").add_values(epoch, values)

    def _histogram(self, values: np.ndarray):
        flat = values.ravel()
        low, high = float(flat.min()), float(flat.max())
        if low == high:
            limits, counts = [high], [float(flat.size)]
        else:
            counts, edges = np.histogram(flat, bins=_HISTOGRAM_BUCKETS, range=(low, high))
            limits, counts = edges[1:].tolist(), counts.astype(float).tolist()
        return self._protos["HistogramProto"](
            min=low,
            max=high,
            num=float(flat.size),
            sum=float(flat.sum()),
            sum_squares=float(flat @ flat),
            bucket_limit=limits,
            bucket=counts,
        )

    def _images(self, weight: np.ndarray, tag: str) -> list:
        # Keras's layout: a bias is a column, a dense kernel lies wide, a 1-D conv kernel
        # gives one image per output channel; other shapes are not drawn.
        image = np.squeeze(weight)
        if image.ndim == 1:
            image = image.reshape(1, image.shape[0], 1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:
            if backend.image_data_format() == "channels_last":
                image = np.transpose(image, (2, 0, 1))
            image = image.reshape(*image.shape, 1)
        else:
            return []
        # As tf.summary.image converts floats: [0, 1] to [0, 255], clipped.
        pixels = np.clip(image * 255.5, 0, 255).astype(np.uint8)
        count = min(len(pixels), _MAX_IMAGES)
        p = self._protos
        values = []
        for i in range(count):
            height, width, channels = pixels[i].shape
            encoded = p["Summary"].Image(
                height=height,
                width=width,
                colorspace=channels,
                encoded_image_string=_png(pixels[i]),
            )
            values.append(
                p["Summary"].Value(tag=tag if count == 1 else f"{tag}/{i}", image=encoded)
            )
        return values

    # Profiling --------------------------------------------------------------------------
    def _start_trace(self) -> None:
        if self._trace is not None:
            return
        contexts = [backend.execution.profile_trace(self._train_dir), backend.profile()]
        entered = []
        try:
            for context in contexts:
                context.__enter__()
                entered.append(context)
        except Exception as error:  # as in Keras, a profiler failure does not stop training
            for context in reversed(entered):
                context.__exit__(None, None, None)
            warnings.warn(
                f"TensorBoard could not start the {backend.backend()} profiler "
                f"({type(error).__name__}: {error}); training goes on without a profile.",
                RuntimeWarning,
                stacklevel=3,
            )
            self._should_trace = False
            return
        self._trace = entered

    def _stop_trace(self) -> None:
        if self._trace is None:
            return
        entered, self._trace = self._trace, None
        for context in reversed(entered):
            try:
                context.__exit__(None, None, None)
            except Exception as error:
                warnings.warn(
                    f"TensorBoard could not write the {backend.backend()} profile "
                    f"({type(error).__name__}: {error}).",
                    RuntimeWarning,
                    stacklevel=3,
                )
