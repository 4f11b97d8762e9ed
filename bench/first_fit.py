"""Time to first result in a fresh process: lamina with its persistent compilation cache
cold and warm, against Keras 3 (which keeps no such cache), on the same script.

The script builds a small convnet (28x28x1 inputs, two Conv-Pool blocks, a Dense head),
trains it for one epoch on 2,048 synthetic samples (batch 64), then evaluates and
predicts. Each round starts a fresh process per side, in this order: lamina with an
empty cache folder (cold), lamina again on that folder (warm, the second run of the same
script), Keras 3 on JAX. Each process reports its own first `fit` time; the whole script
is timed from outside (interpreter start to exit, imports included), as a user waits.

Usage: python bench/first_fit.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SCRIPT = r"""
import json, sys, time
import numpy as np
frame = sys.argv[1]
if frame == "keras":
    import keras
else:
    import lamina as keras
layers = keras.layers
rng = np.random.default_rng(0)
x = rng.random((2048, 28, 28, 1), dtype=np.float32)
y = rng.integers(0, 10, 2048).astype("int32")
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    layers.Conv2D(16, 3, activation="relu"),
    layers.MaxPooling2D(),
    layers.Conv2D(32, 3, activation="relu"),
    layers.MaxPooling2D(),
    layers.Flatten(),
    layers.Dense(10, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
start = time.perf_counter()
model.fit(x, y, batch_size=64, epochs=1, verbose=0)
fit_s = time.perf_counter() - start
model.evaluate(x[:256], y[:256], verbose=0)
model.predict(x[:256], verbose=0)
print(json.dumps({"fit": fit_s}))
"""


def run(frame: str, cache: str | None) -> dict:
    env = dict(os.environ)
    env.pop("LAMINA_BACKEND", None)
    env["KERAS_BACKEND"] = "jax"
    if cache is not None:
        env["LAMINA_COMPILATION_CACHE"] = cache
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, frame], env=env, capture_output=True, text=True
    )
    whole = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{frame} failed:\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["script"] = whole
    return report


def summary(values: list) -> str:
    return f"{statistics.median(values):6.2f} s [{min(values):.2f}, {max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    rows: dict = {"lamina cold": [], "lamina warm": [], "keras 3": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as folder:
            rows["lamina cold"].append(run("lamina", folder))
            rows["lamina warm"].append(run("lamina", folder))
        rows["keras 3"].append(run("keras", None))
    print(
        f"{'side':<12} {'first fit':>24} {'whole script':>24}   ({rounds} rounds: median [min, max])"
    )
    for side, reports in rows.items():
        fit = [r["fit"] for r in reports]
        script = [r["script"] for r in reports]
        print(f"{side:<12} {summary(fit):>24} {summary(script):>24}")
    print("\nkeras/lamina per round (first fit, whole script):")
    for side in ("lamina cold", "lamina warm"):
        fits = [k["fit"] / m["fit"] for k, m in zip(rows["keras 3"], rows[side], strict=True)]
        scripts = [
            k["script"] / m["script"] for k, m in zip(rows["keras 3"], rows[side], strict=True)
        ]
        print(
            f"{side:<12} first fit {min(fits):.2f}x-{max(fits):.2f}x "
            f"(median {statistics.median(fits):.2f}x), whole script {min(scripts):.2f}x-"
            f"{max(scripts):.2f}x (median {statistics.median(scripts):.2f}x)"
        )


if __name__ == "__main__":
    main()
