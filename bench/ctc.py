"""`K.ctc_batch_cost` forward and backward, per step, on the current engine.

The case of issue 32 (item 13): batch 32, 30 time steps, labels of 16, 28 classes (the
last the blank), softmax outputs as Keras 2's OCR example feeds them. One "step" is the
loss of the batch and its gradient with respect to the logits, as a training step takes
them: on torch `loss.sum().backward()`, on JAX `jax.grad` of the summed loss (compiled).
Also times torch's own kernel (`torch.nn.functional.ctc_loss`) alone, the floor.

Usage: LAMINA_BACKEND=torch python bench/ctc.py [--steps N] [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
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

        runs = {"K.ctc_batch_cost": step, "torch ctc_loss kernel": kernel}
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

    for name, fn in runs.items():
        fn()  # warm up (JAX compiles here)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            for _ in range(args.steps):
                fn()
            times.append((time.perf_counter() - start) / args.steps)
        print(f"{K.backend():5s} {name:24s} {statistics.median(times) * 1e3:9.2f} ms/step")


if __name__ == "__main__":
    main()
