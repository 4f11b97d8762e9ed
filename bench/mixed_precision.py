"""What does mixed precision buy (or cost) in `fit`? float32 against mixed_bfloat16.

Trains the same MLP (784-1024-1024-10, softmax in float32) on synthetic data under each
policy, alternating the two in one process for `--rounds` rounds, from the same initial
weights. Prints samples/s of the first `fit` (it compiles) and of a repeated one, the
ratio mixed/float32 within each round (median and range; above 1.0x mixed precision is
faster), and the final losses. On CPUs without native bfloat16 arithmetic expect mixed
precision to be slower; on GPUs and TPUs it is where it pays.

Usage: [LAMINA_BACKEND=torch] python bench/mixed_precision.py [--rounds 3] [--samples 8192]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import lamina
from lamina import layers


def make_model(policy, hidden, seed=0):
    lamina.utils.set_random_seed(seed)
    lamina.config.set_dtype_policy(policy)
    try:
        model = lamina.Sequential(
            [lamina.Input((784,))]
            + [layers.Dense(units, activation="relu") for units in hidden]
            + [layers.Dense(10), layers.Activation("softmax", dtype="float32")]
        )
    finally:
        lamina.config.set_dtype_policy("float32")
    model.compile(optimizer=lamina.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
    return model


def timed_fit(model, x, y, batch_size):
    start = time.perf_counter()
    history = model.fit(x, y, epochs=1, batch_size=batch_size, verbose=0)
    return time.perf_counter() - start, history.history["loss"][-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--hidden", type=int, nargs="+", default=[1024, 1024])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.samples, 784)).astype("float32")
    y = rng.integers(0, 10, size=args.samples).astype("int32")
    policies = ("float32", "mixed_bfloat16")
    first = {p: [] for p in policies}
    repeated = {p: [] for p in policies}
    losses = {}
    for _ in range(args.rounds):
        for policy in policies:
            model = make_model(policy, args.hidden)
            seconds, _ = timed_fit(model, x, y, args.batch_size)
            first[policy].append(seconds)
            seconds, losses[policy] = timed_fit(model, x, y, args.batch_size)
            repeated[policy].append(seconds)
    print(
        f"engine {lamina.backend.backend()}, {args.samples} samples, MLP 784-"
        f"{'-'.join(map(str, args.hidden))}-10, batch {args.batch_size}, {args.rounds} rounds"
    )
    for label, times in (("fit, first call (compiles)", first), ("fit, repeated", repeated)):
        ratios = [f / m for f, m in zip(times["float32"], times["mixed_bfloat16"], strict=True)]
        rates = {p: args.samples / statistics.median(times[p]) for p in policies}
        print(
            f"{label:28s} float32 {rates['float32']:>9,.0f} samples/s   mixed_bfloat16 "
            f"{rates['mixed_bfloat16']:>9,.0f} samples/s   mixed/float32 "
            f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}, {max(ratios):.2f}]"
        )
    print(
        f"final loss float32 / mixed_bfloat16: {losses['float32']:.4f} / "
        f"{losses['mixed_bfloat16']:.4f}"
    )


if __name__ == "__main__":
    main()
