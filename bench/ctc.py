"""`K.ctc_batch_cost` forward and backward, per step, on the current engine.

The case of issue 32 (item 13): batch 32, 30 time steps, labels of 16, 28 classes (the
last the blank), softmax outputs as Keras 2's OCR example feeds them. One "step" is the
loss of the batch and its gradient with respect to the logits, as a training step takes
them: on torch `loss.sum().backward()`, on JAX `jax.grad` of the summed loss (compiled).
On torch it also times torch's own kernel (`torch.nn.functional.ctc_loss`) alone, the
floor, and the forward algorithm written from ops (`lamina.ops.ctc._ctc_loss`, what
`K.ctc_batch_cost` ran before it used the kernel). The runs alternate and each row is
the best of `--repeats` rounds, so a shared machine's load affects them alike.

Usage: LAMINA_BACKEND=torch python bench/ctc.py [--steps N] [--repeats N] [--threads N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's)")
    args = parser.parse_args()

    from lamina import backend as K

    batch, steps, labels, classes = 32, 30, 16, 28
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(batch, steps, classes)).astype("float32")
    y_true = rng.integers(0, classes - 1, size=(batch, labels)).astype("int32")
    input_length = np.full((batch, 1), steps, "int32")
    label_length = rng.integers(8, labels + 1, size=(batch, 1)).astype("int32")

    if K.backend() == "torch":
        import torch

        # One thread by default: on a shared machine torch's thread pool otherwise waits
        # on others' work, and the rows measure the load more than the code (each of the
        # forward algorithm's hundreds of small ops pays that wait).
        if args.threads:
            torch.set_num_threads(args.threads)

        def step():
            z = torch.tensor(logits, requires_grad=True)
            loss = K.ctc_batch_cost(y_true, torch.softmax(z, -1), input_length, label_length)
            loss.sum().backward()
            return z.grad

        def kernel():
            z = torch.tensor(logits, requires_grad=True)
            log_probs = torch.log_softmax(z, -1).transpose(0, 1)
            loss = torch.nn.functional.ctc_loss(
                log_probs,
                torch.tensor(y_true),
                torch.tensor(input_length[:, 0]),
                torch.tensor(label_length[:, 0]),
                blank=classes - 1,
                reduction="none",
            )
            loss.sum().backward()
            return z.grad

        from lamina.ops import ctc as ctc_ops

        def forward_algorithm():
            z = torch.tensor(logits, requires_grad=True)
            loss = ctc_ops._ctc_loss(y_true, z, label_length[:, 0], input_length[:, 0], classes - 1)
            loss.sum().backward()
            return z.grad

        runs = {
            "K.ctc_batch_cost": step,
            "torch ctc_loss kernel": kernel,
            "ops forward algorithm": forward_algorithm,
        }
    else:
        import jax

        def total(z):
            return K.sum(
                K.ctc_batch_cost(y_true, jax.nn.softmax(z, -1), input_length, label_length)
            )

        grad = jax.jit(jax.grad(total))

        def step():
            return grad(logits).block_until_ready()

        runs = {"K.ctc_batch_cost": step}

    for fn in runs.values():
        fn()  # warm up (JAX compiles here)
    best = {name: float("inf") for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            steps = args.steps if name != "ops forward algorithm" else max(1, args.steps // 10)
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / steps)
    for name, seconds in best.items():
        print(f"{K.backend():5s} {name:24s} {seconds * 1e3:9.2f} ms/step")


if __name__ == "__main__":
    main()
