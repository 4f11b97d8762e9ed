"""Large host buffers from the heap (`lamina.backend.common.host_memory`): a transformer's
training and evaluation steps on the CPU, with lamina's malloc settings and without,
against Keras 3 on the same engine.

The model is keras-io's timeseries classification transformer (4 encoder blocks of
`MultiHeadAttention(key_dim=256, num_heads=4, dropout=0.25)`, `LayerNormalization` and
`Conv1D`s, a Dense head), on synthetic series of length 200 (the example's are 500),
batch 64: its attention scores are 40 MB a block, above glibc's 32 MB mapping
threshold. Each round starts a fresh process per side, in this order: lamina as it
runs (settings applied), lamina with `LAMINA_HOST_MALLOC=0` (malloc as glibc leaves
it), Keras 3 (which sets nothing). Each process times 3 `fit` steps and 3 `evaluate`
steps after two warm-up passes.

Usage: python bench/host_memory.py [--rounds N] [--engine jax|torch|both] [--seq N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

SCRIPT = r"""
import json, os, sys, time
import numpy as np
frame, engine, seq = sys.argv[1], sys.argv[2], int(sys.argv[3])
if frame == "keras":
    import keras
else:
    import lamina as keras
if engine == "torch":
    import torch
    torch.set_num_threads(os.cpu_count())
layers = keras.layers

def encoder(inputs):
    x = layers.MultiHeadAttention(key_dim=256, num_heads=4, dropout=0.25)(inputs, inputs)
    x = layers.Dropout(0.25)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    res = x + inputs
    x = layers.Conv1D(filters=4, kernel_size=1, activation="relu")(res)
    x = layers.Dropout(0.25)(x)
    x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    return x + res

inputs = keras.Input((seq, 1))
x = inputs
for _ in range(4):
    x = encoder(x)
x = layers.GlobalAveragePooling1D(data_format="channels_first")(x)
x = layers.Dropout(0.4)(layers.Dense(128, activation="relu")(x))
model = keras.Model(inputs, layers.Dense(2, activation="softmax")(x))
model.compile(
    loss="sparse_categorical_crossentropy",
    optimizer=keras.optimizers.Adam(1e-4),
    metrics=["sparse_categorical_accuracy"],
)
rng = np.random.default_rng(0)
x = rng.standard_normal((192, seq, 1)).astype("float32")
y = rng.integers(0, 2, 192)
for _ in range(2):
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    model.evaluate(x, y, batch_size=64, verbose=0)
start = time.perf_counter()
model.fit(x, y, batch_size=64, epochs=1, verbose=0)
fit = (time.perf_counter() - start) / 3
start = time.perf_counter()
model.evaluate(x, y, batch_size=64, verbose=0)
evaluate = (time.perf_counter() - start) / 3
print("RESULT " + json.dumps({"fit": fit, "evaluate": evaluate}))
"""

SIDES = (
    ("lamina", "lamina", {}),
    ("lamina, LAMINA_HOST_MALLOC=0", "lamina", {"LAMINA_HOST_MALLOC": "0"}),
    ("keras", "keras", {}),
)


def run_worker(script, args, engine, extra=None):
    """Run `script` (a program's text) with `args` in a fresh process on `engine`, with
    `extra` environment variables; returns what it printed after `RESULT ` (JSON)."""
    env = {**os.environ, "LAMINA_BACKEND": engine, "KERAS_BACKEND": engine, **(extra or {})}
    repo_src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [repo_src, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{args} on {engine} failed:\n{done.stderr[-3000:]}")


def spread(values):
    return f"{statistics.median(values):6.2f}  [{min(values):.2f}, {max(values):.2f}]"


def bench(engine, rounds, seq):
    times = {name: {"fit": [], "evaluate": []} for name, _, _ in SIDES}
    for r in range(rounds):
        for name, frame, extra in SIDES:
            result = run_worker(SCRIPT, (frame, engine, seq), engine, extra)
            for phase in ("fit", "evaluate"):
                times[name][phase].append(result[phase])
        print(f"  round {r + 1}/{rounds} done", flush=True)
    print(f"\n{engine}: seconds a step, median [min, max] over {rounds} fresh processes")
    print(f"  {'side':30s} {'fit':>22s} {'evaluate':>22s}")
    for name, _, _ in SIDES:
        print(
            f"  {name:30s} {spread(times[name]['fit']):>22s} {spread(times[name]['evaluate']):>22s}"
        )
    base = times["lamina"]
    for other in ("lamina, LAMINA_HOST_MALLOC=0", "keras"):
        ratios = {
            phase: [b / a for a, b in zip(base[phase], times[other][phase], strict=True)]
            for phase in ("fit", "evaluate")
        }
        print(
            f"  {other} / lamina: fit {statistics.median(ratios['fit']):.2f}x "
            f"[{min(ratios['fit']):.2f}, {max(ratios['fit']):.2f}], evaluate "
            f"{statistics.median(ratios['evaluate']):.2f}x "
            f"[{min(ratios['evaluate']):.2f}, {max(ratios['evaluate']):.2f}] (within each round)"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", choices=("jax", "torch", "both"), default="both")
    parser.add_argument("--seq", type=int, default=200)
    args = parser.parse_args()
    engines = ("jax", "torch") if args.engine == "both" else (args.engine,)
    for engine in engines:
        bench(engine, args.rounds, args.seq)


if __name__ == "__main__":
    main()
