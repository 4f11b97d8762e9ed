"""Data-parallel overhead on JAX: one CPU device against 4 virtual CPU devices.

On a CPU the 4 "devices" share the same cores, so this measures what DataParallel
costs (batch splitting, sharded programs, collectives), not a speed-up; on a machine
with several accelerators the same code splits the work. Each case runs in a fresh
process (JAX fixes its device count at start): `fit` from call to return, the first
call (compiles included) and repeated calls, on the same model, data and batches.

    python bench/distribution.py [--rounds 3] [--samples 8192]

Prints samples/s for each case and the ratio 4-device/1-device measured in the same
run (above 1.0x: DataParallel is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

WORKER = r"""
import json, os, sys, time
devices = int(sys.argv[1]); samples = int(sys.argv[2])
if devices > 1:
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
os.environ["LAMINA_BACKEND"] = "jax"
import numpy as np
import lamina
from lamina import distribution as dist, layers

rng = np.random.default_rng(0)
x = rng.normal(size=(samples, 256)).astype("float32")
y = rng.integers(0, 10, size=(samples,)).astype("int32")

def make():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((256,)), layers.Dense(512, activation="relu"),
                               layers.Dense(512, activation="relu"), layers.Dense(10)])
    model.compile(optimizer="adam", loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model

scope = dist.DataParallel().scope() if devices > 1 else None
if scope is not None:
    scope.__enter__()
model = make()
start = time.perf_counter()
model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False)
first = time.perf_counter() - start
times = []
for _ in range(3):
    start = time.perf_counter()
    model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False)
    times.append(time.perf_counter() - start)
print(json.dumps({"first": first, "repeated": min(times),
                  "loss": float(model.evaluate(x, y, batch_size=128, verbose=0))}))
"""


def run(devices: int, samples: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(devices), str(samples)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=8192)
    args = parser.parse_args()
    ratios: dict = {"first": [], "repeated": []}
    rows = []
    start = time.perf_counter()
    for _ in range(args.rounds):
        one, four = run(1, args.samples), run(4, args.samples)  # alternating processes
        rows.append((one, four))
        for key in ratios:
            ratios[key].append(one[key] / four[key])
    for key, label in (("first", "fit, first call (compiles)"), ("repeated", "fit, repeated")):
        one = statistics.median(r[0][key] for r in rows)
        four = statistics.median(r[1][key] for r in rows)
        print(
            f"{label:30s}  1 device {args.samples / one:9,.0f} samples/s   "
            f"4 devices {args.samples / four:9,.0f} samples/s   4-dev/1-dev "
            f"{statistics.median(ratios[key]):.2f}x [{min(ratios[key]):.2f}, {max(ratios[key]):.2f}]"
        )
    losses = [(r[0]["loss"], r[1]["loss"]) for r in rows]
    print(f"final loss 1 device / 4 devices: {losses[0][0]:.6f} / {losses[0][1]:.6f}")
    print(f"({args.rounds} rounds, {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
