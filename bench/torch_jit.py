"""`compile(jit_compile=True)` against the eager default on the torch engine.

Trains and predicts with the two MLPs of `bench/vs_torch.py` (tiny 784-32-32-10, batch
32; large 784-512-512-10, batch 128), adam and `SparseCategoricalCrossentropy(
from_logits=True)`, on synthetic data, once with `jit_compile=True` (the model's call
`torch.compile`d, backend from `LAMINA_TORCH_COMPILE_BACKEND`, default inductor) and once
with `jit_compile="auto"` (eager). Each (model, mode) runs in a fresh worker process,
with torch's on-disk compile caches off, so the first call pays the whole compile.

Rows, per model and mode:
  * `fit first`: the first `fit(epochs=1)` call (compiles with jit_compile=True);
  * `fit again`: the median of the next `fit(epochs=1)` calls (compile excluded);
  * `predict first` / `predict again`: the same for `predict(x, batch_size=...)`.
Each row is the median over `--rounds` rounds (the two modes alternate first and second,
as this machine's speed drifts); ratios are the median of each round's jit/eager: above
1.0x, jit_compile=True is slower.

Usage: python bench/torch_jit.py [--samples N] [--repeats N] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODELS = {"tiny": (32, 32), "large": (512, 128)}  # hidden units, batch size


def worker(model_name: str, mode: str, samples: int, repeats: int) -> dict:
    import numpy as np
    import torch

    torch.set_num_threads(1)  # the like-for-like setting of bench/vs_torch.py
    from lamina import Input, Sequential, layers, losses, optimizers

    hidden, batch = MODELS[model_name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((samples, 784)).astype("float32")
    y = rng.integers(0, 10, samples)
    model = Sequential(
        [
            Input((784,)),
            layers.Dense(hidden, activation="relu"),
            layers.Dense(hidden, activation="relu"),
            layers.Dense(10),
        ]
    )
    model.compile(
        optimizer=optimizers.Adam(1e-3),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=True if mode == "jit" else "auto",
    )

    def timed(fn):
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    def fit():
        model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)

    def predict():
        model.predict(x, batch_size=batch, verbose=0)

    out = {"fit first": timed(fit)}
    out["fit again"] = statistics.median(timed(fit) for _ in range(repeats))
    out["predict first"] = timed(predict)
    out["predict again"] = statistics.median(timed(predict) for _ in range(repeats))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", nargs=2, metavar=("MODEL", "MODE"))
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.samples, args.repeats)))
        return
    env = dict(os.environ, LAMINA_BACKEND="torch", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    backend = env.get("LAMINA_TORCH_COMPILE_BACKEND", "inductor")
    print(
        f"torch.compile backend {backend}; {args.samples} samples; seconds per call "
        f"(medians over {args.rounds} rounds; ratio: median of the rounds' jit/eager)"
    )
    for name in MODELS:
        rounds = []
        for i in range(args.rounds):
            results = {}
            # The order alternates: this machine's speed drifts over tens of seconds.
            for mode in ("eager", "jit") if i % 2 == 0 else ("jit", "eager"):
                command = [sys.executable, __file__, "--worker", name, mode]
                command += ["--samples", str(args.samples), "--repeats", str(args.repeats)]
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
                results[mode] = json.loads(done.stdout.strip().splitlines()[-1])
            rounds.append(results)
        for row in rounds[0]["eager"]:
            eager = statistics.median(r["eager"][row] for r in rounds)
            jit = statistics.median(r["jit"][row] for r in rounds)
            ratio = statistics.median(r["jit"][row] / r["eager"][row] for r in rounds)
            print(
                f"{name:6s} {row:14s} eager {eager:8.3f}  jit {jit:8.3f}  jit/eager {ratio:6.2f}x"
            )


if __name__ == "__main__":
    main()
