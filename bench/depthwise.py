"""Depthwise convolutions on the CPU: keras-io's ConvMixer trained by whole `fit` calls,
lamina on JAX (depthwise layers as a sum over the kernel's taps) against Keras 3 on JAX
(XLA's grouped convolution), with lamina on torch beside them.

The model is the example's (patch 2, 256 filters, depth 8, 5x5 depthwise kernels, AdamW),
on 384 synthetic 32x32x3 images, batch 128: one `fit(epochs=1)` is 3 steps. Each round
starts a fresh process per side (the order of `SIDES`); each times its first `fit` (compile
included, what a user waits for first) and the best of two later ones.

Usage: python bench/depthwise.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics

from host_memory import run_worker, spread

SCRIPT = r"""
import json, os, sys, time
import numpy as np
frame = sys.argv[1]
if frame == "keras":
    import keras
else:
    import lamina as keras
layers = keras.layers

def activation_block(x):
    return layers.BatchNormalization()(layers.Activation("gelu")(x))

inputs = keras.Input((32, 32, 3))
x = activation_block(layers.Conv2D(256, kernel_size=2, strides=2)(inputs))
for _ in range(8):
    x0 = x
    x = layers.DepthwiseConv2D(kernel_size=5, padding="same")(x)
    x = layers.Add()([activation_block(x), x0])
    x = activation_block(layers.Conv2D(256, kernel_size=1)(x))
x = layers.GlobalAvgPool2D()(x)
model = keras.Model(inputs, layers.Dense(10, activation="softmax")(x))
model.compile(
    optimizer=keras.optimizers.AdamW(1e-3, weight_decay=1e-4),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
rng = np.random.default_rng(0)
x = rng.random((384, 32, 32, 3), dtype=np.float32)
y = rng.integers(0, 10, 384)
times = []
for _ in range(3):
    start = time.perf_counter()
    model.fit(x, y, batch_size=128, epochs=1, verbose=0)
    times.append(time.perf_counter() - start)
print("RESULT " + json.dumps({"first": times[0], "later": min(times[1:])}))
"""

SIDES = (("lamina", "jax"), ("keras", "jax"), ("lamina", "torch"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    times = {side: {"first": [], "later": []} for side in SIDES}
    for r in range(args.rounds):
        for frame, engine in SIDES:
            # No compilation cache: every first fit compiles, as on a first run.
            result = run_worker(SCRIPT, (frame,), engine, {"LAMINA_COMPILATION_CACHE": "0"})
            for key in ("first", "later"):
                times[(frame, engine)][key].append(result[key])
        print(f"  round {r + 1}/{args.rounds} done", flush=True)
    print(f"\nseconds for one fit of 3 steps, median [min, max] over {args.rounds} processes")
    print(f"  {'side':16s} {'first fit':>22s} {'later fit':>22s}")
    for frame, engine in SIDES:
        t = times[(frame, engine)]
        print(f"  {frame + ' / ' + engine:16s} {spread(t['first']):>22s} {spread(t['later']):>22s}")
    lamina, keras = times[("lamina", "jax")], times[("keras", "jax")]
    for key in ("first", "later"):
        ratios = [k / a for a, k in zip(lamina[key], keras[key], strict=True)]
        print(
            f"  Keras 3 / lamina on JAX, {key} fit: {statistics.median(ratios):.2f}x "
            f"[{min(ratios):.2f}, {max(ratios):.2f}] (within each round)"
        )


if __name__ == "__main__":
    main()
