"""Where tensors live on PyTorch: devices, and the process group of a job.

On this engine a distribution is data-parallel across processes (one device each,
joined by `torch.distributed`); a mesh inside one process, or a layout that splits a
tensor (model parallelism), is JAX-only for now and refused with a message saying so.

Gradients are reduced as `torch.nn.parallel.DistributedDataParallel` reduces them
(`_Reducer`, below): the trained tensors are grouped into buckets in the reverse of
their creation order (the order a backward pass produces their gradients), the first
bucket small (1 MiB) and the others up to 25 MiB, as DDP's defaults are; as the backward
pass fills a bucket, its average over the job starts as an asynchronous all-reduce, so
communication overlaps the rest of the backward pass. Buckets start strictly in order,
so every process issues the same collectives in the same order, whatever order its
hooks fire in. DDP's own wrapper is not used: it needs `loss.backward()` into `.grad`
after a call of the wrapper, while lamina's steps differentiate with
`torch.autograd.grad` (their forward pass often replayed from a captured graph), whose
gradients tensor hooks see just as well.

Metric totals stay per process while a pass runs and are summed over the job when they
are read (`job_totals`), as Keras's TensorFlow engine reads its `SyncOnRead` metric
variables.
"""

from __future__ import annotations

import atexit
import os

import torch

from lamina.backend.common.global_state import current_distribution
from lamina.backend.torch import core

_JAX_ONLY = (
    "On the torch backend, lamina.distribution runs data-parallel across processes "
    "(one device each, joined by torch.distributed); {what} is JAX-only for now. Use "
    "LAMINA_BACKEND=jax for it."
)


# Layouts that split variables (`ModelParallel`) are not implemented on this engine.
MODEL_PARALLEL = False
MODEL_PARALLEL_MESSAGE = _JAX_ONLY.format(what="ModelParallel (variables split over devices)")

# Metric totals are each process's own here; `job_totals` sums them when read.
METRICS_PER_PROCESS = True


def list_devices(device_type=None):
    """The engine's devices as strings such as `"cpu:0"` or `"cuda:1"`; in a job of
    several processes, the job's devices, one per process (device i is process i's)."""
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
    size = _group_size()
    if size > 1:
        return [f"{devices[0].split(':')[0]}:{rank}" for rank in range(size)]
    return devices


def to_mesh(shape, axis_names, devices):
    """A mesh description: one device per process of the job (one in all outside a job)."""
    size = _group_size()
    if len(devices) > 1 and len(devices) != size:
        what = (
            f"a mesh of {len(devices)} devices inside one process"
            if size == 1
            else f"a mesh of {len(devices)} devices in a job of {size} processes (each "
            "process holds one device of the mesh: give DataParallel the job's devices, "
            "distribution.list_devices(), or none)"
        )
        raise ValueError(_JAX_ONLY.format(what=what))
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
    each process took its own part of the global batch). Gradients whose reduction the
    backward pass started (see `_Reducer`) are waited for; any others are averaged
    here, in one collective."""
    size = _group_size()
    if size == 1:
        return list(values)
    out = list(values)
    rest = []
    for i, value in enumerate(out):
        reduced = _REDUCER.take(value)
        if reduced is None:
            rest.append(i)
        else:
            out[i] = reduced
    if rest:
        parts = [out[i] for i in rest]
        flat = _flatten(parts).div_(size)
        _all_reduce(flat)
        for i, part in zip(rest, _unflatten(flat, parts), strict=True):
            out[i] = part
    return out


def job_totals(values):
    """Each tensor of `values` summed over the job's processes, in one collective."""
    values = list(values)
    if _group_size() == 1 or not values:
        return values
    flat = _flatten(values)
    _all_reduce(flat)
    return _unflatten(flat, values)


def _flatten(values):
    # float64 holds every metric total and gradient dtype exactly enough to sum them; on
    # the variables' device, since nccl reduces only CUDA tensors.
    device = core._home_device()
    return torch.cat(
        [torch.as_tensor(v).detach().reshape(-1).to(device, torch.float64) for v in values]
    )


def _unflatten(flat, like):
    out, start = [], 0
    for value in like:
        value = torch.as_tensor(value)
        out.append(flat[start : start + value.numel()].reshape(value.shape).to(value.dtype))
        start += value.numel()
    return out


def _all_reduce(tensor, async_op=False):
    import torch.distributed as dist

    return dist.all_reduce(tensor, op=dist.ReduceOp.SUM, async_op=async_op)


# DistributedDataParallel's bucket sizes (`bucket_cap_mb=25`, a first bucket of 1 MiB
# so that communication starts early in the backward pass).
FIRST_BUCKET_BYTES = 1 << 20
BUCKET_BYTES = 25 << 20


class _Bucket:
    __slots__ = ("indices", "offsets", "flat", "filled", "work", "orders")

    def __init__(self, indices, values):
        self.indices = indices
        self.offsets = [0]
        for i in indices:
            self.offsets.append(self.offsets[-1] + values[i].numel())
        first = values[indices[0]]
        self.flat = torch.empty(self.offsets[-1], dtype=first.dtype, device=first.device)
        self.filled = [False] * len(indices)
        self.work = None
        # Per tensor: the order of its gradient's axes in memory when that is not the
        # row-major order (a kernel stored as torch's modules store theirs, see
        # `Variable._store_for`), kept so in the bucket; None otherwise.
        self.orders: list = [None] * len(indices)

    def part(self, position, shape):
        flat = self.flat[self.offsets[position] : self.offsets[position + 1]]
        order = self.orders[position]
        if order is None or len(shape) != len(order):
            return flat.view(shape)
        stored = flat.view([shape[axis] for axis in order])
        return stored.permute(*(order.index(axis) for axis in range(len(order))))


def _memory_order(tensor):
    """The axes of `tensor` from the outermost in memory, when it is a permutation of a
    contiguous tensor other than the identity; None otherwise."""
    if tensor.ndim < 2 or tensor.is_contiguous():
        return None
    order = tuple(sorted(range(tensor.ndim), key=lambda axis: -tensor.stride(axis)))
    return order if tensor.permute(*order).is_contiguous() else None


class _Reducer:
    """DDP's bucketed gradient all-reduce, overlapped with the backward pass, for the
    trained tensors of one `gradients` call (see the module's docstring).

    `start(values)` lays out the buckets and hooks each tensor; a hook copies its
    gradient, divided by the number of processes, into its bucket, and a full bucket's
    all-reduce starts as soon as every bucket before it has started. `finish(grads)`
    fills in what the backward pass did not reach (the zero gradients of unused
    tensors), starts the remaining buckets and remembers the gradients it returned;
    `take(grad)` waits for the bucket of one of them and returns its average over the
    job (None for any other tensor). `launched_in_backward` counts the buckets started
    while the backward pass ran.
    """

    def __init__(self):
        self.buckets: list = []
        self.where: dict = {}
        self.handles: list = []
        self.found: dict = {}
        self.next = 0
        self.size = 1
        self.launched_in_backward = 0
        self._plan_key = None
        self._plan: list = []

    def _plan_for(self, values) -> list:
        """Bucket index lists, in reverse creation order, split by size, dtype, device."""
        key = tuple((id(v), tuple(v.shape), v.dtype, v.device) for v in values)
        if key != self._plan_key:
            plan, current, kind, used, cap = [], [], None, 0, FIRST_BUCKET_BYTES
            for i in reversed(range(len(values))):
                value = values[i]
                nbytes = value.numel() * value.element_size()
                if current and (used + nbytes > cap or (value.dtype, value.device) != kind):
                    plan.append(current)
                    current, used, cap = [], 0, BUCKET_BYTES
                current.append(i)
                kind, used = (value.dtype, value.device), used + nbytes
            if current:
                plan.append(current)
            self._plan_key, self._plan = key, plan
        return self._plan

    def start(self, values) -> None:
        self.release()
        self.size = _group_size()
        self.buckets = [_Bucket(indices, values) for indices in self._plan_for(values)]
        self.where = {
            i: (bucket, position)
            for bucket in self.buckets
            for position, i in enumerate(bucket.indices)
        }
        self.next = 0
        self.handles = [value.register_hook(self._hook(i)) for i, value in enumerate(values)]

    def _hook(self, i):
        def hook(grad):
            self._fill(i, grad)
            self._launch_ready(in_backward=True)

        return hook

    def _fill(self, i, grad) -> None:
        bucket, position = self.where[i]
        # A gradient laid out in another order of its axes is copied in its memory
        # order, and comes back with the same layout (no transposing copy, and the
        # optimizer's update reads the gradient in the order it reads the variable).
        order = _memory_order(grad)
        bucket.orders[position] = order
        with torch.no_grad():
            flat = (grad if order is None else grad.permute(*order)).reshape(-1)
            torch.div(flat, self.size, out=bucket.part(position, (-1,)))
        bucket.filled[position] = True

    def _launch_ready(self, in_backward=False) -> None:
        while self.next < len(self.buckets) and all(self.buckets[self.next].filled):
            self.buckets[self.next].work = _all_reduce(self.buckets[self.next].flat, True)
            self.launched_in_backward += int(in_backward)
            self.next += 1

    def finish(self, values, grads):
        for handle in self.handles:
            handle.remove()
        self.handles = []
        for i, grad in enumerate(grads):
            bucket, position = self.where[i]
            if not bucket.filled[position]:
                self._fill(i, grad)
        self._launch_ready()
        self.found = {
            id(grad): (grad, *self.where[i], values[i].shape) for i, grad in enumerate(grads)
        }
        return grads

    def take(self, grad):
        entry = self.found.pop(id(grad), None)
        if entry is None or entry[0] is not grad:
            return None
        _, bucket, position, shape = entry
        if bucket.work is not None:
            bucket.work.wait()
            bucket.work = None
        return bucket.part(position, shape)

    def release(self) -> None:
        """Forget the last call's buckets, after their collectives complete."""
        for handle in self.handles:
            handle.remove()
        for bucket in self.buckets:
            if bucket.work is not None:
                bucket.work.wait()
        self.handles, self.buckets, self.where, self.found = [], [], {}, {}


_REDUCER = _Reducer()


class _NoReduction:
    """`reduce_in_backward`'s answer outside a data-parallel job: nothing to do."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def finish(self, values, grads):
        return grads


_NO_REDUCTION = _NoReduction()


class _Reduction:
    def __init__(self, values):
        self.values = values

    def __enter__(self):
        _REDUCER.start(self.values)
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            _REDUCER.release()
        return False

    def finish(self, values, grads):
        return _REDUCER.finish(values, grads)


def reduce_in_backward(values):
    """For `execution.gradients`: a context around its `torch.autograd.grad` call that,
    under a distribution in a job of several processes, starts averaging the gradients
    of `values` over the job as the backward pass computes them; its `finish(values,
    grads)` starts what remains. `all_reduce_mean` (called by `optimizer.apply`) then
    waits for them."""
    if current_distribution() is None or _group_size() == 1:
        return _NO_REDUCTION
    return _Reduction(values)


def distribute_data(x, layout):
    """This process's part of a batch, as it is: each process trains on its own rows."""
    return x


def layout_of(x):
    """No layouts are recorded on torch tensors."""
    return None


_ENV_HELP = (
    "Start every process with torchrun (`torchrun --nproc_per_node=2 train.py` sets "
    "RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT), or call "
    "distribution.initialize(job_addresses='host:port', num_processes=N, process_id=i) "
    "(or set KERAS_DISTRIBUTION_JOB_ADDRESSES, KERAS_DISTRIBUTION_NUM_PROCESSES and "
    "KERAS_DISTRIBUTION_PROCESS_ID)."
)


def _env_int(name):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Environment variable {name}={value!r} is not an integer.") from None


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Join the processes of one job (`torch.distributed.init_process_group`: gloo on
    the CPU, nccl on CUDA), with the coordinator at `job_addresses` (`host:port`), else
    where torchrun's variables say (`MASTER_ADDR`, `MASTER_PORT`, `WORLD_SIZE`, `RANK`).
    On CUDA each process then uses GPU `LOCAL_RANK` (torchrun's), else `process_id`
    modulo the GPUs present."""
    import torch.distributed as dist

    if not dist.is_available():
        raise RuntimeError("This build of torch has no torch.distributed; install one that has.")
    if dist.is_initialized():
        return
    if num_processes is None:
        num_processes = _env_int("WORLD_SIZE")
    if process_id is None:
        process_id = _env_int("RANK")
    coordinator = job_addresses.split(",")[0] if job_addresses else None
    wanted = {
        "the number of processes (WORLD_SIZE)": num_processes,
        "this process's rank (RANK)": process_id,
    }
    if coordinator is None:  # then torch reads the coordinator from the environment
        wanted["the coordinator's address (MASTER_ADDR)"] = os.environ.get("MASTER_ADDR")
        wanted["the coordinator's port (MASTER_PORT)"] = os.environ.get("MASTER_PORT")
    missing = [what for what, value in wanted.items() if value is None]
    if missing:
        raise ValueError(
            f"distribution.initialize() on torch cannot join a job: it was not told "
            f"{', '.join(missing)}. {_ENV_HELP}"
        )
    if not 0 <= process_id < num_processes:
        raise ValueError(
            f"distribution.initialize(): process_id {process_id} is not in [0, "
            f"num_processes={num_processes}). {_ENV_HELP}"
        )
    if coordinator is not None and ":" not in coordinator:
        raise ValueError(
            f"distribution.initialize(): job_addresses {job_addresses!r} needs the "
            "coordinator's port, as 'host:port' (e.g. '10.0.0.1:29500')."
        )
    cuda = torch.cuda.is_available()
    if cuda:
        local = _env_int("LOCAL_RANK")
        index = local if local is not None else process_id % torch.cuda.device_count()
        torch.cuda.set_device(index)
        core._DEFAULT_DEVICE = torch.device("cuda", index)
    dist.init_process_group(
        backend="nccl" if cuda else "gloo",
        init_method=f"tcp://{coordinator}" if coordinator else "env://",
        world_size=num_processes,
        rank=process_id,
    )
    # The group lamina made is taken down before the interpreter exits: left to the C++
    # destructors, gloo's threads could still be running, and a process that exits first
    # ended its peer with `terminate called without an active exception` (1 job in 5).
    atexit.register(_leave_job)


def _leave_job():
    import datetime

    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return
    try:
        # Every process arrives before any tears its connections down (a peer that
        # closes them first aborts the other's gloo threads); a peer that never comes
        # (it failed) is waited for 30 s at most.
        if dist.get_backend() == "gloo":
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
        else:
            dist.barrier()
    except Exception:  # noqa: BLE001 - exiting: a peer gone is not this process's error
        pass
    dist.destroy_process_group()


def process_count():
    """How many processes take part (1 outside a `torch.distributed` job)."""
    return _group_size()


def process_index():
    """This process's rank."""
    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0
