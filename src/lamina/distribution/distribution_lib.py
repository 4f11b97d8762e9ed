"""`lamina.distribution`: Keras 3's API for spreading a model and its data over devices.

A `DeviceMesh` arranges devices in a grid with named axes. A `TensorLayout` says, for
each dimension of a tensor, which mesh axis (if any) splits it. A `Distribution`
decides the layout of every variable (when it is created) and of every batch (when it
enters a compiled step): `DataParallel` replicates the variables and splits batches
over the one mesh axis; `ModelParallel` splits variables as a `LayoutMap` says (regular
expressions matched against variable paths such as `"dense/kernel"`) and batches over
its batch axis. The engine does the rest: on JAX, XLA's SPMD partitioner runs the
compiled steps across the mesh.

>>> from lamina import distribution
>>> mesh = distribution.DeviceMesh((1,), ["batch"], distribution.list_devices()[:1])
>>> distribution.TensorLayout(["batch", None], mesh).axes
('batch', None)
"""

from __future__ import annotations

import collections.abc
import contextlib
import math
import os
import re
import threading
import warnings

import numpy as np

from lamina import backend, tree
from lamina.backend.common.global_state import current_distribution, set_current_distribution
from lamina.backend.common.variables import StatelessScope, relaxed


def list_devices(device_type=None) -> list:
    """The devices the engine sees, as strings such as `"cpu:0"` or `"gpu:1"`.

    Args:
        device_type: `"cpu"`, `"gpu"` or `"tpu"`; default: accelerators when present.

    >>> devices = list_devices()
    >>> len(devices) >= 1, devices[0].split(":")[0] in ("cpu", "gpu", "tpu", "cuda", "mps")
    (True, True)
    """
    return backend.distribution.list_devices(device_type)


def get_device_count(device_type=None) -> int:
    """How many devices of `device_type` (default: the default kind) the engine sees.

    >>> get_device_count() == len(list_devices())
    True
    """
    return len(list_devices(device_type))


def initialize(job_addresses=None, num_processes=None, process_id=None) -> None:
    """Join the processes of a multi-process job (call it first, in every process).

    Arguments left out come from the environment variables Keras reads:
    `KERAS_DISTRIBUTION_JOB_ADDRESSES` (comma-separated `host:port` of the jobs; the
    first is the coordinator), `KERAS_DISTRIBUTION_NUM_PROCESSES` and
    `KERAS_DISTRIBUTION_PROCESS_ID`. On torch, those torchrun sets are read too
    (`MASTER_ADDR`, `MASTER_PORT`, `WORLD_SIZE`, `RANK`, `LOCAL_RANK`), so a program
    started by `torchrun --nproc_per_node=N` needs no arguments; what is missing is
    named in the error.

    A doctest cannot join a job (JAX must not have started when it runs), so the
    example shows what it checks before joining; in a program, each process calls
    `initialize()` first, e.g. with `KERAS_DISTRIBUTION_JOB_ADDRESSES=10.0.0.1:1234,...`,
    `KERAS_DISTRIBUTION_NUM_PROCESSES=2` and its own `KERAS_DISTRIBUTION_PROCESS_ID`
    set, then makes its `DataParallel` or `ModelParallel` (`docs/guides/distribution.md`).

    >>> initialize("10.0.0.1:1234", num_processes=2, process_id=2)
    Traceback (most recent call last):
    ...
    ValueError: process_id must be in [0, num_processes=2); received 2.
    """
    env = os.environ
    if job_addresses is None:
        job_addresses = env.get("KERAS_DISTRIBUTION_JOB_ADDRESSES")
    if num_processes is None and "KERAS_DISTRIBUTION_NUM_PROCESSES" in env:
        num_processes = _env_int("KERAS_DISTRIBUTION_NUM_PROCESSES")
    if process_id is None and "KERAS_DISTRIBUTION_PROCESS_ID" in env:
        process_id = _env_int("KERAS_DISTRIBUTION_PROCESS_ID")
    if num_processes is not None and process_id is not None:
        if not 0 <= process_id < num_processes:
            raise ValueError(
                f"process_id must be in [0, num_processes={num_processes}); received {process_id}."
            )
    backend.distribution.initialize(job_addresses, num_processes, process_id)


def _env_int(name: str) -> int:
    value = os.environ[name]
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Environment variable {name}={value!r} is not an integer.") from None


class DeviceMesh:
    """Devices arranged in a grid whose axes have names.

    Args:
        shape: the grid's shape, e.g. `(2, 4)`.
        axis_names: one name per axis, e.g. `["batch", "model"]`.
        devices: the devices (strings from `list_devices`), as many as the grid holds
            (default: all devices).

    >>> devices = list_devices()
    >>> mesh = DeviceMesh((1, len(devices)), ["batch", "model"], devices)
    >>> mesh.axis_names, mesh.shape == (1, len(devices))
    (('batch', 'model'), True)
    """

    def __init__(self, shape, axis_names, devices=None):
        shape = tuple(int(d) for d in shape)
        axis_names = tuple(axis_names)
        if not shape or len(shape) != len(axis_names):
            raise ValueError(
                f"DeviceMesh: shape {shape} and axis_names {list(axis_names)} must have the "
                "same, non-zero length."
            )
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"DeviceMesh: axis names must be unique; received {axis_names}.")
        devices = list_devices() if devices is None else [str(d) for d in devices]
        if math.prod(shape) != len(devices):
            raise ValueError(
                f"DeviceMesh of shape {shape} needs {math.prod(shape)} devices; received "
                f"{len(devices)} ({devices}). Match the shape to the devices, e.g. "
                f"shape=({len(devices)},)."
            )
        self._shape, self._axis_names, self._devices = shape, axis_names, devices
        self._backend_mesh = None

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def axis_names(self) -> tuple:
        return self._axis_names

    @property
    def devices(self) -> list:
        return list(self._devices)

    @property
    def backend_mesh(self):
        """The engine's mesh (a `jax.sharding.Mesh` on JAX)."""
        if self._backend_mesh is None:
            self._backend_mesh = backend.distribution.to_mesh(
                self._shape, self._axis_names, self._devices
            )
        return self._backend_mesh

    def axis_size(self, name: str) -> int:
        return self._shape[self._axis_names.index(name)]

    def __repr__(self) -> str:
        return f"<DeviceMesh shape={self._shape}, axis_names={list(self._axis_names)}>"


class TensorLayout:
    """How a tensor is split over a mesh: `axes[i]` names the mesh axis that splits
    dimension `i` (`None`: that dimension is whole on each device).

    Args:
        axes: one mesh-axis name or `None` per dimension.
        device_mesh: the mesh (a `LayoutMap` fills it in when left out).

    >>> mesh = DeviceMesh((1, len(list_devices())), ["batch", "model"])
    >>> layout = TensorLayout((None, "model"), mesh)  # columns split over "model"
    >>> layout.axes
    (None, 'model')
    """

    def __init__(self, axes, device_mesh=None):
        self._axes = tuple(axes)
        self._device_mesh = None
        self._backend_layout = None
        if device_mesh is not None:
            self.device_mesh = device_mesh

    @property
    def axes(self) -> tuple:
        return self._axes

    @property
    def device_mesh(self):
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh) -> None:
        if self._device_mesh is not None:
            raise ValueError("This TensorLayout already has a device mesh; make a new layout.")
        for axis in self._axes:
            if axis is not None and axis not in device_mesh.axis_names:
                raise ValueError(
                    f"TensorLayout {self._axes} names the axis {axis!r}, which is not in the "
                    f"device mesh's axes {list(device_mesh.axis_names)}."
                )
        self._device_mesh = device_mesh

    @property
    def backend_layout(self):
        """The engine's layout (a `NamedSharding` on JAX)."""
        if self._device_mesh is None:
            raise ValueError(f"TensorLayout {self._axes} has no device mesh yet.")
        if self._backend_layout is None:
            self._backend_layout = backend.distribution.to_layout(
                self._axes, self._device_mesh.backend_mesh
            )
        return self._backend_layout

    def check_shape(self, shape, what: str) -> None:
        """Refuse a tensor of `shape` this layout cannot split (names both)."""
        if len(self._axes) != len(shape):
            raise ValueError(
                f"{what} has shape {tuple(shape)} ({len(shape)} dimensions), but its layout "
                f"{self._axes} gives {len(self._axes)}. Give one axis (or None) per dimension."
            )
        for dim, (size, axis) in enumerate(zip(shape, self._axes, strict=True)):
            if axis is None or size is None:
                continue
            parts = self._device_mesh.axis_size(axis)
            if size % parts:
                raise ValueError(
                    f"{what} has shape {tuple(shape)}: dimension {dim} (size {size}) cannot be "
                    f"split over mesh axis {axis!r} of {parts} devices (layout {self._axes}). "
                    "Choose a layout whose axis divides that dimension."
                )

    def __repr__(self) -> str:
        return f"<TensorLayout axes={self._axes}, device_mesh={self._device_mesh}>"


class Distribution:
    """The base of `DataParallel` and `ModelParallel`: a mesh, a batch axis, and the
    layouts of variables and data.

    Use a subclass. Within `scope()` (or after `set_distribution`), the variables a
    layer creates are laid out as `get_variable_layout` says, and every batch that
    enters a compiled step as `get_data_layout` says.

    >>> data_parallel = DataParallel()
    >>> isinstance(data_parallel, Distribution), data_parallel.batch_dim_name
    (True, 'batch')
    >>> data_parallel.get_data_layout((32, 16)).axes  # rows split over "batch"
    ('batch', None)
    >>> with data_parallel.scope():
    ...     distribution() is data_parallel
    True
    >>> distribution() is None
    True
    """

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = auto_shard_dataset
        self._num_process = backend.distribution.process_count()
        self._process_id = backend.distribution.process_index()
        launched = os.environ.get("WORLD_SIZE", "1")
        if self._num_process == 1 and launched.isdigit() and int(launched) > 1:
            raise ValueError(
                f"This process was started as one of {launched} (WORLD_SIZE={launched}, "
                "as torchrun sets it) but has not joined their job, so it would train "
                f"alone. Call lamina.distribution.initialize() before making the "
                f"{type(self).__name__}."
            )
        self._layout_source = threading.local()

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh

    @property
    def batch_dim_name(self):
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value) -> None:
        self._auto_shard_dataset = bool(value)

    @property
    def num_processes(self) -> int:
        return self._num_process

    @property
    def num_model_replicas(self) -> int:
        return self._device_mesh.axis_size(self._batch_dim_name)

    @property
    def data_shard_id(self) -> int:
        """Which part of each global batch this process feeds (its rank when every
        process holds a replica, as under torchrun: one device per process)."""
        replicas, processes = self.num_model_replicas, self._num_process
        if replicas >= processes:
            return self._process_id
        return self._process_id // (processes // replicas)

    def get_data_layout(self, data_shape) -> TensorLayout:
        """Batches split along their first dimension over the batch axis."""
        axes = [None] * len(data_shape)
        if axes:
            axes[0] = self._batch_dim_name
        return TensorLayout(axes, self._device_mesh)

    def get_variable_layout(self, variable) -> TensorLayout:
        return TensorLayout([None] * len(variable.shape), self._device_mesh)

    def get_tensor_layout(self, path):
        return None

    def distribute_dataset(self, dataset):
        """Datasets are split batch by batch as they enter a step: returned as is."""
        return dataset

    @contextlib.contextmanager
    def scope(self):
        """Within the block, this distribution is the one in use."""
        previous = current_distribution()
        set_distribution(self)
        try:
            yield self
        finally:
            set_distribution(previous)

    # What the variables and the training loop ask ---------------------------------------
    def _variable_layout(self, variable) -> TensorLayout:
        # A layout given to the variable itself (`Variable(..., layout=)`) comes first.
        layout = getattr(variable, "_explicit_layout", None)
        if layout is None:
            layout = getattr(self._layout_source, "layout", None)
        if layout is None:
            layout = self.get_variable_layout(variable)
            if layout.device_mesh is None:
                layout.device_mesh = self._device_mesh
        layout.check_shape(variable.shape, f"Variable {variable.path!r}")
        variable._layout = layout
        return layout

    @contextlib.contextmanager
    def _layout_like(self, reference):
        """Variables created in the block take `reference`'s layout (an optimizer's slots
        are split as the variable they follow, whatever their own paths)."""
        layout = getattr(reference, "_layout", None)
        saved = getattr(self._layout_source, "layout", None)
        self._layout_source.layout = layout
        try:
            yield
        finally:
            self._layout_source.layout = saved

    def _create_variable(self, variable, make):
        """The initial value of a new `variable` that this distribution splits, made by
        `make()` directly in its layout: each device computes its own part, so the whole
        value never sits on one device (an embedding table larger than one device's
        memory can be created). Returns None for a variable kept whole on every device
        (made, then copied to each), or on an engine that cannot split variables.

        Seed generators that `make` draws from advance as they would have eagerly."""
        layout = self._variable_layout(variable)
        engine = backend.distribution
        if not engine.MODEL_PARALLEL or all(axis is None for axis in layout.axes):
            return None
        drawn: list = []

        def initial_value():
            # Traced once by the engine: seed states read here are constants of the
            # program, and their advanced values come back beside the variable's value.
            with StatelessScope() as scope:
                value = make()
            updates = scope.updates
            drawn[:] = [seed for seed, _ in updates]
            return value, [new for _, new in updates]

        engine_layout = layout.backend_layout
        with relaxed(), variable._eager_context():
            value, advanced = engine.create_distributed(initial_value, engine_layout)
            for seed, new in zip(drawn, advanced):
                seed.assign(new)
        variable._placement = self._placement_for(engine_layout)
        return value

    def _placement_for(self, engine_layout):
        engine = backend.distribution

        def place(value):
            return engine.distribute_tensor(value, engine_layout)

        return place

    def _place_variable(self, variable) -> None:
        """Lay `variable` out as `get_variable_layout` says, now and on every assign."""
        engine_layout = self._variable_layout(variable).backend_layout
        variable._placement = self._placement_for(engine_layout)
        variable._value = backend.distribution.distribute_variable(variable._value, engine_layout)

    def _step_done(self, values) -> None:
        """A step's results, as the loop receives them: the engine waits for them where
        it cannot safely queue another step (XLA's in-process CPU collectives)."""
        backend.distribution.step_done(values, self._device_mesh.backend_mesh)

    def _place_batch(self, data, chunked: bool):
        """A batch (a structure of arrays) split over the batch axis; with `chunked`
        the arrays carry a leading axis of `steps_per_execution` steps first."""
        size = self.num_model_replicas
        processes = self._num_process
        engine = backend.distribution

        def place(x):
            if x is None or not hasattr(x, "shape") or len(x.shape) <= int(chunked):
                return x
            rows = (x.shape[1] if chunked else x.shape[0]) * processes
            if rows % size:
                if processes > 1:
                    raise ValueError(
                        f"A global batch of {rows} samples ({rows // processes} in each of "
                        f"{processes} processes) cannot be split over the {size} devices of "
                        f"mesh axis {self._batch_dim_name!r}. Use batch sizes that divide "
                        "evenly (drop or pad the last partial batch)."
                    )
                # One process: a batch that does not divide (the last, partial one) runs
                # whole on every device, giving the same numbers without the split.
                return x
            axes = [None] * len(x.shape)
            axes[int(chunked)] = self._batch_dim_name
            return engine.distribute_data(x, TensorLayout(axes, self._device_mesh).backend_layout)

        return tree.map_structure(place, data) if data is not None else data

    def _reduce_gradients(self, grads) -> list:
        """Gradients averaged over the processes of a job (each took its own part of
        the global batch); as they are where the engine's step reduces them. On torch
        the averaging of a step's gradients started during its backward pass, bucket by
        bucket, as DistributedDataParallel does; this waits for it."""
        if self._num_process == 1:
            return grads
        return backend.distribution.all_reduce_mean(grads)

    def _metrics_per_process(self) -> bool:
        return self._num_process > 1 and backend.distribution.METRICS_PER_PROCESS

    @contextlib.contextmanager
    def _job_metrics(self, metrics):
        """Within the block, `metrics` read the job's totals: on an engine whose metric
        totals are each process's own (torch), their variables are combined over the
        job as their `aggregation` says (one collective; every process must enter the
        block alike), as a step over the global batch computes them on JAX."""
        variables = []
        if self._metrics_per_process():
            variables = list({id(v): v for m in metrics for v in m.variables}.values())
        if not variables:
            yield
            return
        rank = self._process_id
        parts = []
        for v in variables:
            value = v.value
            if v.aggregation == "mean":
                value = value / self._num_process
            elif v.aggregation == "only_first_replica" and rank != 0:
                value = value * 0
            parts.append(value)
        totals = backend.distribution.job_totals(parts)
        mapping = [
            (v, total if v.aggregation != "none" else v.value)
            for v, total in zip(variables, totals, strict=True)
        ]
        with StatelessScope(mapping):
            yield

    def _all_agree(self, flag: bool) -> bool:
        """Whether `flag` holds in every process of the job (one collective where
        metrics are read per process: a choice that decides which collectives a loop
        makes must be the same everywhere)."""
        if not self._metrics_per_process():
            return flag
        votes = backend.distribution.job_totals([np.asarray(int(bool(flag)), "int32")])
        return int(backend.convert_to_numpy(votes[0])) == self._num_process

    def _check_rules_used(self) -> None:
        """Warn about layout rules no variable matched (overridden by ModelParallel)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} device_mesh={self._device_mesh}>"


class DataParallel(Distribution):
    """Replicate the variables on every device and split each batch among them.

    Args:
        device_mesh: a one-axis mesh (its axis is the batch axis).
        devices: the devices to use, when `device_mesh` is not given (default: all).
        auto_shard_dataset: kept for Keras compatibility (batches are always split).

    Build, compile and `fit` the model inside `scope()`; the global batch size must be
    a multiple of the number of devices (`docs/guides/distribution.md` trains one).

    >>> from lamina import layers
    >>> devices = list_devices()
    >>> data_parallel = DataParallel(devices=devices)
    >>> data_parallel.num_model_replicas == len(devices)
    True
    >>> with data_parallel.scope():
    ...     dense = layers.Dense(2)
    ...     dense.build((None, 3))
    >>> data_parallel.get_variable_layout(dense.kernel).axes  # whole on every device
    (None, None)
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is None:
            devices = list_devices() if devices is None else [str(d) for d in devices]
            device_mesh = DeviceMesh((len(devices),), ["batch"], devices)
        elif len(device_mesh.shape) != 1:
            raise ValueError(
                f"DataParallel takes a one-axis device mesh; received shape "
                f"{device_mesh.shape}. Use ModelParallel for a mesh of several axes."
            )
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)


class ModelParallel(Distribution):
    """Split variables as a `LayoutMap` says, and batches over `batch_dim_name`.

    Args:
        layout_map: a `LayoutMap` (its mesh is this distribution's).
        batch_dim_name: the mesh axis batches are split over (default: the first).
        auto_shard_dataset: kept for Keras compatibility.

    A variable no rule matches is replicated. A rule that matches no variable is
    reported with a warning when a model trains (a typo there would silently leave a
    model whole on every device).

    >>> from lamina import layers
    >>> devices = list_devices()
    >>> mesh = DeviceMesh((1, len(devices)), ["batch", "model"], devices)
    >>> layout_map = LayoutMap(mesh)
    >>> layout_map["wide/kernel"] = (None, "model")  # columns split over "model"
    >>> model_parallel = ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    >>> with model_parallel.scope():
    ...     wide = layers.Dense(8 * len(devices), name="wide")
    ...     wide.build((None, 3))
    >>> model_parallel.get_variable_layout(wide.kernel).axes
    (None, 'model')
    >>> model_parallel.get_variable_layout(wide.bias).axes  # no rule: replicated
    (None,)
    """

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True, **kwargs):
        kwargs.pop("device_mesh", None)
        if not backend.distribution.MODEL_PARALLEL:
            raise ValueError(backend.distribution.MODEL_PARALLEL_MESSAGE)
        if kwargs:
            raise TypeError(f"ModelParallel got unexpected arguments {sorted(kwargs)}.")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(
                f"ModelParallel needs `layout_map=` a LayoutMap; received {layout_map!r}."
            )
        mesh = layout_map.device_mesh
        batch_dim_name = batch_dim_name or mesh.axis_names[0]
        if batch_dim_name not in mesh.axis_names:
            raise ValueError(
                f"batch_dim_name {batch_dim_name!r} is not an axis of the device mesh "
                f"{list(mesh.axis_names)}."
            )
        super().__init__(mesh, batch_dim_name, auto_shard_dataset)
        self._layout_map = layout_map
        self._warned: set = set()

    def get_variable_layout(self, variable) -> TensorLayout:
        layout = self._layout_map._lookup(variable.path)
        if layout is not None:
            return layout
        return TensorLayout([None] * len(variable.shape), self._device_mesh)

    def get_tensor_layout(self, path):
        return self._layout_map._lookup(path)

    def _check_rules_used(self) -> None:
        for key in self._layout_map:
            if key not in self._layout_map._used and key not in self._warned:
                self._warned.add(key)
                warnings.warn(
                    f"LayoutMap rule {key!r} matched no variable, so nothing was laid out "
                    "by it. Variable paths look like 'dense/kernel' (layer name / weight "
                    "name) and a rule must match a whole path (re.fullmatch): e.g. "
                    "'dense.*/kernel'.",
                    UserWarning,
                    stacklevel=3,
                )


class LayoutMap(collections.abc.MutableMapping):
    """Layouts by variable path: keys are regular expressions matched against whole
    paths (`re.fullmatch`; an exact key wins), values `TensorLayout`s or tuples of
    axis names.

    Args:
        device_mesh: the mesh every layout in the map uses.

    A path matched by several keys is an error naming them.

    >>> mesh = DeviceMesh((1, len(list_devices())), ["batch", "model"])
    >>> layout_map = LayoutMap(mesh)
    >>> layout_map["dense.*/kernel"] = (None, "model")
    >>> layout_map["dense_2/kernel"].axes  # a tuple became a TensorLayout on `mesh`
    (None, 'model')
    >>> layout_map["dense_2/bias"] is None  # no rule: the variable stays whole
    True
    >>> layout_map["(dense|dense_2)/kernel"] = ("model", None)
    >>> layout_map["dense_2/kernel"]
    Traceback (most recent call last):
    ...
    ValueError: Path 'dense_2/kernel' matches several LayoutMap keys ['dense.*/kernel', '(dense|dense_2)/kernel']; make each path match at most one key.
    """

    def __init__(self, device_mesh):
        self._device_mesh = device_mesh
        self._layouts: dict = {}
        self._used: set = set()

    def _lookup(self, path):
        if path in self._layouts:
            self._used.add(path)
            return self._layouts[path]
        matches = [key for key in self._layouts if re.fullmatch(key, path)]
        if len(matches) > 1:
            raise ValueError(
                f"Path {path!r} matches several LayoutMap keys {matches}; make each path "
                "match at most one key."
            )
        if matches:
            self._used.add(matches[0])
            return self._layouts[matches[0]]
        return None

    def __getitem__(self, key):
        return self._lookup(key)

    def __setitem__(self, key, layout) -> None:
        if key in self._layouts:
            raise ValueError(
                f"{key!r} is already in the LayoutMap (as {self._layouts[key]}); use each key once."
            )
        try:
            re.compile(key)
        except re.error as error:
            raise ValueError(
                f"LayoutMap key {key!r} is not a valid regular expression: {error}."
            ) from None
        if isinstance(layout, (tuple, list)):
            layout = TensorLayout(layout)
        if not isinstance(layout, TensorLayout):
            raise ValueError(
                f"A LayoutMap value must be a TensorLayout or a tuple of axis names; "
                f"received {layout!r} for {key!r}."
            )
        if layout.device_mesh is None:
            layout.device_mesh = self._device_mesh
        self._layouts[key] = layout

    def __delitem__(self, key) -> None:
        del self._layouts[key]

    def __len__(self) -> int:
        return len(self._layouts)

    def __iter__(self):
        return iter(self._layouts)

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh


def distribute_tensor(tensor, layout):
    """`tensor` placed as `layout` (a `TensorLayout`) says. Graph tensors (from
    `Input`) are returned as they are: they hold no data to place.

    Args:
        tensor: an array or tensor.
        layout: a `TensorLayout` (or the engine's own layout).

    >>> import numpy as np
    >>> mesh = DeviceMesh((len(list_devices()),), ["batch"])
    >>> x = distribute_tensor(np.arange(8.0).reshape(4, 2), TensorLayout(["batch", None], mesh))
    >>> tuple(x.shape), float(x.sum())
    ((4, 2), 28.0)
    >>> distribute_tensor(np.ones(4), TensorLayout(["batch", None], mesh))
    Traceback (most recent call last):
    ...
    ValueError: The tensor has shape (4,) (1 dimensions), but its layout ('batch', None) gives 2. Give one axis (or None) per dimension.
    """
    if hasattr(tensor, "_keras_history"):
        return tensor
    if isinstance(layout, TensorLayout):
        layout.check_shape(tuple(tensor.shape), "The tensor")
        layout = layout.backend_layout
    return backend.distribution.distribute_tensor(tensor, layout)


def distribution():
    """The distribution in use, or `None`.

    >>> distribution() is None  # one device, no distribution
    True
    >>> with DataParallel().scope() as data_parallel:
    ...     distribution() is data_parallel
    True
    """
    return current_distribution()


def set_distribution(value) -> None:
    """Use `value` (a `Distribution`, or `None` for one device) from now on.

    `Distribution.scope()` does the same for a block and restores the previous one.

    >>> set_distribution(DataParallel())
    >>> type(distribution()).__name__
    'DataParallel'
    >>> set_distribution(None)
    >>> distribution() is None
    True
    """
    if value is not None and not isinstance(value, Distribution):
        raise TypeError(
            f"set_distribution takes a DataParallel/ModelParallel (or None); received {value!r}."
        )
    set_current_distribution(value)
