"""The torch engine's DDP-style gradient reduction (`backend/torch/distribution.py`),
in one process: the collectives are replaced by a stand-in that records the order the
buckets start in and returns what two processes holding the same gradients would get
(their average: the gradient itself). The two-process job over gloo is in
test_distribution.py."""

import numpy as np
import pytest

import lamina
from lamina import backend
from lamina import distribution as dist

pytestmark = pytest.mark.engine("torch")


class _Work:
    def __init__(self, log, tensor):
        self.log, self.tensor = log, tensor

    def wait(self):
        self.log.append(("wait", self.tensor.numel()))


@pytest.fixture
def job(monkeypatch):
    """A job of 2 processes as the engine sees it; `log` records each collective."""
    engine = backend.distribution
    log = []

    def all_reduce(tensor, async_op=False):
        tensor.mul_(2)  # the other process's equal share
        log.append(("async" if async_op else "sync", tensor.numel()))
        return _Work(log, tensor) if async_op else None

    monkeypatch.setattr(engine, "_group_size", lambda: 2)
    monkeypatch.setattr(engine, "_all_reduce", all_reduce)
    monkeypatch.setattr(engine, "FIRST_BUCKET_BYTES", 64)
    monkeypatch.setattr(engine, "BUCKET_BYTES", 256)
    monkeypatch.setattr(engine, "_REDUCER", engine._Reducer())
    distribution = dist.DataParallel(devices=["cpu:0", "cpu:1"])
    monkeypatch.setattr(distribution, "_num_process", 2)
    return engine, log, distribution


def _layers():
    lamina.utils.set_random_seed(0)
    first, unused, last = (lamina.layers.Dense(n) for n in (16, 2, 3))
    first.build((None, 5))
    unused.build((None, 16))  # made between the two, never on the loss's path
    last.build((None, 16))
    return first, unused, last


def test_buckets_start_in_order_during_the_backward_pass_and_give_the_average(job):
    import torch

    engine, log, distribution = job
    first, unused, last = _layers()  # made outside the scope: no broadcast
    x = np.random.default_rng(0).normal(size=(4, 5)).astype("float32")
    # In creation order: 320, 64, 128, 8, 192 and 12 bytes. Buckets from the end: the
    # first up to 64 bytes, the others up to 256.
    variables = [*first.trainable_variables, *unused.trainable_variables]
    variables += last.trainable_variables
    with distribution.scope(), torch.enable_grad():
        loss = backend.numpy.sum(last(backend.nn.relu(first(x))) ** 2)
        grads = backend.execution.gradients(loss, variables)
    plan = engine._REDUCER._plan
    assert plan == [[5], [4, 3], [2, 1], [0]]
    # Buckets 1 and 2 hold the unused layer's tensors, which the backward pass never
    # reaches: it starts bucket 0 only, and bucket 3, full, waits for them; all start,
    # in order, once it has returned.
    assert engine._REDUCER.launched_in_backward == 1
    assert [entry for entry in log if entry[0] == "async"] == [
        ("async", 3),
        ("async", 48 + 2),
        ("async", 32 + 16),
        ("async", 80),
    ]
    expected = [g.clone() for g in grads]
    assert float(expected[2].abs().sum()) == 0.0  # the unused kernel's zero gradient
    # `optimizer.apply`'s reduction waits for the buckets: the average is the
    # gradient itself here; a tensor the backward pass did not return is averaged in
    # one collective of its own.
    extra = grads[0] * 3
    reduced = distribution._reduce_gradients([*grads, extra])
    for ours, theirs in zip(reduced, [*expected, extra], strict=True):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)
    # A column-major kernel's gradient (`Dense` on torch) comes back column-major, as
    # the kernel is stored: the optimizer's update then reads both in one order.
    assert variables[0].value.stride() == (1, 5)
    assert reduced[0].stride() == grads[0].stride() == (1, 5)
    assert log[-1] == ("sync", 80)
    assert sum(1 for entry in log if entry[0] == "wait") == 4


def test_metrics_read_the_jobs_totals_by_aggregation(job):
    engine, log, distribution = job
    mean = lamina.metrics.Mean()
    mean.update_state([1.0, 2.0, 6.0])

    class Kinds(lamina.metrics.Metric):
        def __init__(self):
            super().__init__(name="kinds")
            self.average = self.add_variable((), initializer=4.0, aggregation="mean")
            self.own = self.add_variable((), initializer=5.0, aggregation="none")

        def update_state(self, *args):
            pass

        def result(self):
            return {"average": self.average.value, "own": self.own.value}

    kinds = Kinds()
    with distribution._job_metrics([mean, kinds]):
        # Each process holds the same totals here (the stand-in's other process): sums
        # double, so the mean is unchanged; a "mean" variable is the processes' mean,
        # a "none" variable this process's.
        assert float(mean.result()) == pytest.approx(3.0)
        assert float(mean.total.value) == pytest.approx(18.0)
        assert {k: float(v) for k, v in kinds.result().items()} == {"average": 4.0, "own": 5.0}
    assert float(mean.total.value) == pytest.approx(9.0)  # this process's, untouched
    assert log == [("sync", 4)]  # one collective for every variable


def test_a_gradient_in_another_axis_order_keeps_it_through_its_bucket():
    # A convolution kernel stored as `(out, in, h, w)` in memory (`Variable._store_for`)
    # gets its gradient in that layout; the bucket copies it in memory order and hands
    # it back laid out the same, equal to the gradient divided by the job's size.
    import torch

    engine = backend.distribution
    grad = torch.arange(72.0).reshape(4, 2, 3, 3).permute(2, 3, 1, 0)  # (3, 3, 2, 4)
    assert engine._memory_order(grad) == (3, 2, 0, 1)
    assert engine._memory_order(grad.contiguous()) is None
    assert engine._memory_order(torch.zeros(4, 6)[:, :3]) is None  # a slice: not a permutation
    reducer = engine._Reducer()
    reducer.size = 2
    bucket = engine._Bucket([0], [grad])
    reducer.where = {0: (bucket, 0)}
    reducer._fill(0, grad)
    back = bucket.part(0, tuple(grad.shape))
    assert back.stride() == grad.stride()
    np.testing.assert_array_equal(back.numpy(), grad.numpy() / 2)
