"""Where tensors live on JAX: devices, meshes and shardings (`jax.sharding`).

`lamina.distribution` describes a layout in engine-neutral terms (a mesh of devices with
named axes, and for each tensor the mesh axis, if any, that splits each dimension); this
module turns that into `jax.sharding.Mesh` / `NamedSharding` and places arrays with
`jax.device_put`. XLA's SPMD partitioner then runs the compiled steps across the devices
(collectives included); lamina adds no transport of its own.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

# Variables may be split over devices (`ModelParallel`).
MODEL_PARALLEL = True
MODEL_PARALLEL_MESSAGE = ""


def list_devices(device_type=None):
    """The engine's devices as strings such as `"cpu:0"` (of `device_type` when given;
    otherwise the default kind: accelerators when present)."""
    if device_type is not None:
        device_type = device_type.lower()
        try:
            devices = jax.devices(device_type)
        except RuntimeError as error:
            raise ValueError(
                f"No {device_type!r} devices are available to JAX ({error}); available: "
                f"{[f'{d.platform}:{d.id}' for d in jax.devices()]}."
            ) from None
    else:
        devices = jax.devices()
    return [f"{d.platform}:{d.id}" for d in devices]


def _device(name: str):
    platform, _, index = name.partition(":")
    for device in jax.devices(platform if platform != "gpu" else None):
        if f"{device.platform}:{device.id}" == name or (
            platform == "gpu" and str(device.id) == index
        ):
            return device
    raise ValueError(
        f"Unknown device {name!r}; JAX has {list_devices()}. Name devices as "
        "`lamina.distribution.list_devices()` does."
    )


def to_mesh(shape, axis_names, devices):
    """The `jax.sharding.Mesh` of `shape` over `devices` (strings), axes `axis_names`."""
    grid = np.array([_device(d) for d in devices], dtype=object).reshape(tuple(shape))
    return Mesh(grid, tuple(axis_names))


def to_layout(axes, mesh):
    """The `NamedSharding` that splits dimension i of a tensor over mesh axis `axes[i]`
    (`None`: not split) of `mesh` (from `to_mesh`)."""
    return NamedSharding(mesh, PartitionSpec(*axes))


def distribute_tensor(x, layout):
    """`x` (the whole value, the same in every process) placed on the layout's
    devices, sharded as it says (a copy when needed). A traced value gets a sharding
    constraint (a `LayoutMap` rule for a layer's output, inside a compiled step)."""
    if isinstance(x, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(x, layout)
    if jax.process_count() == 1 or layout.is_fully_addressable:
        return jax.device_put(x, layout)
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        # Already spread over the job (computed from other global arrays).
        if x.sharding == layout:
            return x
        return jax.jit(lambda a: a, out_shardings=layout)(x)
    # A job of several processes: each contributes the parts on its own devices.
    host = np.asarray(x)
    return jax.make_array_from_callback(host.shape, layout, lambda index: host[index])


def distribute_data(x, layout):
    """This process's part of a batch (its own rows) placed as part of the global batch
    that `layout` splits over every process's devices."""
    if jax.process_count() == 1 or layout.is_fully_addressable:
        return jax.device_put(x, layout)
    return jax.make_array_from_process_local_data(layout, np.asarray(x))


def distribute_variable(x, layout):
    """A new variable's value placed as `layout` says (every process computes the same
    initial value from the same seed, and XLA keeps replicas equal from there)."""
    return distribute_tensor(x, layout)


def create_distributed(fn, layout):
    """`fn()`'s `(value, extras)`, `value` made by one program whose output sharding is
    `layout` (XLA computes each device's part there; nothing whole is copied around)."""
    value, extras = jax.jit(fn, out_shardings=(layout, None))()
    # Back on this process's default device, uncommitted, as eager values are.
    extras = [jax.device_put(np.asarray(e.addressable_data(0))) for e in extras]
    return value, extras


def all_reduce_mean(values):
    """As it is: a step over sharded batches already reduces its gradients (XLA)."""
    return list(values)


# A step's metric updates see the global batch: the totals are the job's already.
METRICS_PER_PROCESS = False


def job_totals(values):
    """As they are: the metric totals of a step over sharded batches are the job's."""
    return list(values)


def step_done(values, mesh):
    """Wait for a step's results when `mesh` holds several CPU devices of this process.

    XLA's CPU runtime runs an in-process all-reduce on a worker of its intra-op thread
    pool and blocks that worker until every device arrives; with several steps queued
    (asynchronous dispatch) the pool can fill with waiting workers while one device's
    part never gets a thread: the process aborts after 40 s ("only 3 of 4 arrived"),
    seen with 4 virtual devices on 2 cores. One step in flight at a time avoids it and
    costs ~8% there. Accelerators and one device per process (gloo) are left async.
    """
    devices = mesh.devices.flat
    local = [d for d in devices if d.process_index == jax.process_index()]
    if len(local) > 1 and local[0].platform == "cpu":
        jax.block_until_ready(values)


def layout_of(x):
    """The sharding of an array `x` (None for anything else)."""
    return getattr(x, "sharding", None)


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Join the processes of one job (`jax.distributed.initialize`).

    `job_addresses` is the coordinator's `host:port` (the first of a comma-separated
    list); `num_processes` and `process_id` this job's size and this process's rank.
    """
    coordinator = job_addresses.split(",")[0] if job_addresses else None
    # CPU devices of different processes talk through gloo (the default is none); the
    # setting concerns CPU collectives only, and asking for the platform here would
    # start the XLA backend, which must wait for `jax.distributed.initialize`.
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=coordinator, num_processes=num_processes, process_id=process_id
    )


def process_count():
    """How many processes take part (1 unless `initialize` joined a job)."""
    return jax.process_count()


def process_index():
    """This process's rank among `process_count()`."""
    return jax.process_index()
