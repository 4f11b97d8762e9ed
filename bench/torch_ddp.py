"""Data parallelism on torch: step time of one process against a job of two (gloo).

    python bench/torch_ddp.py [--rounds 5] [--steps 16] [--batch 64]

An MLP 784-512-512-10 (Adam, sparse cross-entropy from logits, accuracy) trains on the
same global batches of `--batch` rows:

- alone: one process, the whole global batch a step, with 1 and with 2 threads;
- a job of two processes over gloo on 127.0.0.1, half the batch each, 1 thread each
  (the machine's 2 cores), in three ways interleaved round by round in the same
  processes: lamina's DDP-style reduction (buckets all-reduced while the backward pass
  runs), the same gradients all-reduced in one collective after the backward pass, and
  one all-reduce per gradient after it (lamina's reduction before issue 34);
- plain PyTorch in the same job: `nn.Sequential` wrapped in
  `torch.nn.parallel.DistributedDataParallel` with `torch.optim.Adam`, the reference.

Each measurement is a `fit` epoch of `--steps` batches (plain torch: the same loop by
hand); the figure is ms per step, median over rounds, with the spread (min-max). Run on
a quiet machine for ratios worth reading.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, args) -> dict:
    os.environ["LAMINA_BACKEND"] = "torch"
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    import lamina
    from lamina import distribution as dist

    engine = lamina.backend.distribution
    rng = np.random.default_rng(0)
    rows = args.batch * args.steps
    x = rng.normal(size=(rows, 784)).astype("float32")
    y = rng.integers(0, 10, size=rows).astype("int32")
    if world > 1:
        dist.initialize(job_addresses=f"127.0.0.1:{port}", num_processes=world, process_id=rank)
    part = slice(rank, None, world)
    per_process = args.batch // world

    def make():
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential(
            [
                lamina.Input((784,)),
                lamina.layers.Dense(512, activation="relu"),
                lamina.layers.Dense(512, activation="relu"),
                lamina.layers.Dense(10),
            ]
        )
        model.compile(
            optimizer="adam",
            loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        return model

    def per_tensor(values):  # lamina's reduction before issue 34
        out = []
        for value in values:
            total = value.detach().clone()
            torch.distributed.all_reduce(total)
            out.append(total / world)
        return out

    original_reduce, original_all_reduce_mean = engine.reduce_in_backward, engine.all_reduce_mean
    ways = {
        "overlapped buckets": (original_reduce, original_all_reduce_mean),
        "one all-reduce after backward": (
            lambda values: engine._NO_REDUCTION,
            original_all_reduce_mean,
        ),
        "one all-reduce per gradient": (lambda values: engine._NO_REDUCTION, per_tensor),
    }
    if world == 1:
        ways = {"alone": ways["overlapped buckets"]}
    results: dict = {name: [] for name in ways}
    with dist.DataParallel().scope() if world > 1 else _nothing():
        models = {name: make() for name in ways}
        for model in models.values():  # warm up: capture, optimizer slots
            model.fit(
                x[part][: 2 * per_process],
                y[part][: 2 * per_process],
                batch_size=per_process,
                verbose=0,
            )
        plain, optimizer, loss_fn = _plain(torch, world)
        results["plain torch DDP" if world > 1 else "plain torch"] = []
        xt, yt = torch.from_numpy(x[part]), torch.from_numpy(y[part]).long()
        for _ in range(args.rounds):
            for name, (reduce, average) in ways.items():
                engine.reduce_in_backward, engine.all_reduce_mean = reduce, average
                start = time.perf_counter()
                models[name].fit(x[part], y[part], batch_size=per_process, verbose=0, shuffle=False)
                results[name].append((time.perf_counter() - start) / args.steps * 1e3)
            engine.reduce_in_backward, engine.all_reduce_mean = (
                original_reduce,
                original_all_reduce_mean,
            )
            start = time.perf_counter()
            for i in range(args.steps):
                xb, yb = (
                    xt[i * per_process : (i + 1) * per_process],
                    yt[i * per_process : (i + 1) * per_process],
                )
                optimizer.zero_grad()
                loss = loss_fn(plain(xb), yb)
                loss.backward()
                optimizer.step()
            results["plain torch DDP" if world > 1 else "plain torch"].append(
                (time.perf_counter() - start) / args.steps * 1e3
            )
    return results


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _plain(torch, world):
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(784, 512),
        torch.nn.ReLU(),
        torch.nn.Linear(512, 512),
        torch.nn.ReLU(),
        torch.nn.Linear(512, 10),
    )
    if world > 1:
        net = torch.nn.parallel.DistributedDataParallel(net)
    return net, torch.optim.Adam(net.parameters(), lr=1e-3), torch.nn.CrossEntropyLoss()


def _summary(times):
    times = sorted(times)
    return f"{times[len(times) // 2]:.2f} ms ({times[0]:.2f}-{times[-1]:.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--worker", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        rank, world, port = args.worker
        print(json.dumps(_worker(rank, world, port, args)))
        return
    runs = [
        ("alone, 1 thread", 1, 1),
        ("alone, 2 threads", 1, 2),
        ("2 processes, 1 thread each", 2, 1),
    ]
    for label, world, threads in runs:
        port = _free_port()
        command = [
            sys.executable,
            __file__,
            "--rounds",
            str(args.rounds),
            "--steps",
            str(args.steps),
        ]
        command += ["--batch", str(args.batch), "--threads", str(threads)]
        procs = [
            subprocess.Popen(
                [*command, "--worker", str(rank), str(world), str(port)],
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "OMP_NUM_THREADS": str(threads)},
            )
            for rank in range(world)
        ]
        outs = [p.communicate()[0] for p in procs]
        results = json.loads(outs[0].strip().splitlines()[-1])
        print(
            f"{label}: global batch {args.batch}, {args.steps} steps a round, {args.rounds} rounds"
        )
        for name, times in results.items():
            print(f"  {name:32s} {_summary(times)} per step")


if __name__ == "__main__":
    main()
