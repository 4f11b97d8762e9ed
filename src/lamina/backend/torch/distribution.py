"""Where tensors live on PyTorch: devices, and the process group of a job.

On this engine a distribution is data-parallel across processes (one device each,
joined by `torch.distributed`); a mesh inside one process, or a layout that splits a
tensor (model parallelism), is JAX-only for now and refused with a message saying so.
"""

from __future__ import annotations

import torch

_JAX_ONLY = (
    "On the torch backend, lamina.distribution runs data-parallel across processes "
    "(one device each, joined by torch.distributed); {what} is JAX-only for now. Use "
    "LAMINA_BACKEND=jax for it."
)


# Layouts that split variables (`ModelParallel`) are not implemented on this engine.
MODEL_PARALLEL = False
MODEL_PARALLEL_MESSAGE = _JAX_ONLY.format(what="ModelParallel (variables split over devices)")


def list_devices(device_type=None):
    """The engine's devices as strings such as `"cpu:0"` or `"cuda:1"`."""
    kinds = [device_type.lower()] if device_type else None
    if kinds is None:
        kinds = ["cuda"] if torch.cuda.is_available() else ["cpu"]
    devices = []
    for kind in kinds:
        if kind in ("gpu", "cuda"):
            if not torch.cuda.is_available():
                raise ValueError(f"No {device_type!r} devices are available to torch.")
            devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
        elif kind == "cpu":
            devices.append("cpu:0")
        else:
            raise ValueError(f"Unknown device type {device_type!r}; expected 'cpu' or 'gpu'.")
    return devices


def to_mesh(shape, axis_names, devices):
    """A mesh description; only a one-device mesh per process exists on torch."""
    if len(devices) > 1:
        raise ValueError(
            _JAX_ONLY.format(what=f"a mesh of {len(devices)} devices inside one process")
        )
    return {"shape": tuple(shape), "axis_names": tuple(axis_names), "devices": list(devices)}


def to_layout(axes, mesh):
    """A layout over this process's one device: every tensor is whole there."""
    return {"axes": tuple(axes), "mesh": mesh}


def distribute_tensor(x, layout):
    """`x` as it is: a replicated layout keeps each process's tensor whole."""
    return x


def _group_size() -> int:
    import torch.distributed as dist

    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def distribute_variable(x, layout):
    """A new variable's value; in a job of several processes, process 0's value (a
    broadcast), so every replica starts from the same weights as DDP does."""
    if _group_size() > 1:
        import torch.distributed as dist

        x = x.detach().clone()
        dist.broadcast(x, src=0)
    return x


def create_distributed(fn, layout):
    """`fn()` as it is: on torch a layout never splits a tensor (`MODEL_PARALLEL` is False)."""
    value, extras = fn()
    return distribute_variable(value, layout), list(extras)


def step_done(values, mesh):
    """Nothing to wait for: torch runs each step's collectives as it goes."""
    del values, mesh


def all_reduce_mean(values):
    """The tensors averaged over the job's processes (gradients of data parallelism:
    each process took its own part of the global batch)."""
    size = _group_size()
    if size == 1:
        return list(values)
    import torch.distributed as dist

    out = []
    for value in values:
        total = value.detach().clone()
        dist.all_reduce(total, op=dist.ReduceOp.SUM)
        out.append(total / size)
    return out


def distribute_data(x, layout):
    """This process's part of a batch, as it is: each process trains on its own rows."""
    return x


def layout_of(x):
    """No layouts are recorded on torch tensors."""
    return None


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Join the processes of one job (`torch.distributed.init_process_group`: gloo on
    the CPU, nccl on CUDA), with the coordinator at `job_addresses` (`host:port`)."""
    import torch.distributed as dist

    if dist.is_initialized():
        return
    coordinator = job_addresses.split(",")[0] if job_addresses else None
    dist.init_process_group(
        backend="nccl" if torch.cuda.is_available() else "gloo",
        init_method=f"tcp://{coordinator}" if coordinator else "env://",
        world_size=num_processes if num_processes is not None else -1,
        rank=process_id if process_id is not None else -1,
    )


def process_count():
    """How many processes take part (1 outside a `torch.distributed` job)."""
    import torch.distributed as dist

    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def process_index():
    """This process's rank."""
    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0
