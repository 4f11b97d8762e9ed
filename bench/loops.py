"""Convolutions inside loops on JAX's CPU: lamina against Keras 3 (JAX backend).

XLA's CPU runs a convolution's gradients 20-45x slower in the body of a while loop than
outside one (`lamina.backend.jax.conv_in_loops`). Two places put them there:

  * `spe`: `steps_per_execution > 1`, whose steps lamina runs in one `lax.scan`. A
    small convnet (Conv 3x3 x32 - pool - Conv 3x3 x64 - pool - Dense, 28x28x1, batch
    64, 2,048 samples): whole `fit(epochs=1)`, `evaluate` and `predict` calls, median
    of 3 after a warm-up call, at `steps_per_execution` 1 and 8.
  * `convlstm`: a `ConvLSTM2D` layer (40 filters 3x3, 15 frames of 40x40x1, batch 10,
    then a Conv3D), whose steps run in a `lax.scan`: seconds a `train_on_batch`,
    median of 3 after a warm-up call; lamina on torch beside it as a baseline.

Each side runs in a fresh worker process (`--worker lamina|keras|lamina-torch`), the
sides alternating and which goes first swapping from round to round. Ratios are Keras
time / lamina time (above 1.0x lamina is faster), the median over rounds of the ratio
within each round.

Usage: python bench/loops.py [--rounds N] [--case spe|convlstm|both]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

RESULT = "RESULT "
SPES = (1, 8)


def _framework(worker):
    if worker == "keras":
        import keras as fw
    else:
        import lamina as fw
    return fw


def _median_call(fn, repeats=3):
    fn()  # the first call compiles
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def work_spe(fw):
    import numpy as np

    layers = fw.layers
    rng = np.random.default_rng(0)
    x = rng.random((2048, 28, 28, 1)).astype("float32")
    y = rng.integers(0, 10, 2048)
    result = {}
    for spe in SPES:
        fw.utils.set_random_seed(0)
        model = fw.Sequential(
            [
                fw.Input((28, 28, 1)),
                layers.Conv2D(32, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Conv2D(64, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Flatten(),
                layers.Dense(10, activation="softmax"),
            ]
        )
        model.compile("adam", "sparse_categorical_crossentropy", steps_per_execution=spe)
        result[f"fit spe={spe}"] = _median_call(
            lambda m=model: m.fit(x, y, batch_size=64, epochs=1, verbose=0)
        )
        result[f"evaluate spe={spe}"] = _median_call(
            lambda m=model: m.evaluate(x, y, batch_size=64, verbose=0)
        )
        result[f"predict spe={spe}"] = _median_call(
            lambda m=model: m.predict(x, batch_size=64, verbose=0)
        )
    return result


def work_convlstm(fw):
    import numpy as np

    layers = fw.layers
    fw.utils.set_random_seed(0)
    model = fw.Sequential(
        [
            fw.Input((None, 40, 40, 1)),
            layers.ConvLSTM2D(40, (3, 3), padding="same", return_sequences=True),
            layers.Conv3D(1, (3, 3, 3), activation="sigmoid", padding="same"),
        ]
    )
    model.compile(loss="binary_crossentropy", optimizer="adadelta")
    rng = np.random.default_rng(0)
    x = rng.random((10, 15, 40, 40, 1)).astype("float32")
    y = (rng.random((10, 15, 40, 40, 1)) > 0.5).astype("float32")
    return {"ConvLSTM2D train step": _median_call(lambda: model.train_on_batch(x, y))}


def worker(args):
    fw = _framework(args.worker)
    return work_spe(fw) if args.case == "spe" else work_convlstm(fw)


def spawn(worker_name, case):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    engine = "torch" if worker_name == "lamina-torch" else "jax"
    env.update(KERAS_BACKEND=engine, LAMINA_BACKEND=engine)
    repo_src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [repo_src, env.get("PYTHONPATH")]))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", worker_name, "--case", case]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode or not lines:
        raise RuntimeError(f"{worker_name} {case} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len(RESULT) :])


def run_case(case, rounds):
    sides = ["lamina", "keras"] + (["lamina-torch"] if case == "convlstm" else [])
    per_round = []
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        got = {side: spawn(side, case) for side in order}
        per_round.append(got)
        print(f"  {case} round {r + 1}/{rounds} done", flush=True)
    rows = per_round[0]["lamina"].keys()
    print(f"\n{case}: seconds, median [min, max] over {rounds} round(s)")
    header = "".join(f"{side:>22s}" for side in sides)
    print(f"  {'call':26s}{header}   keras/lamina")
    for row in rows:
        cells = ""
        for side in sides:
            values = [got[side][row] for got in per_round]
            cells += f"{statistics.median(values):9.3f} [{min(values):.3f},{max(values):.3f}]"
        ratios = [got["keras"][row] / got["lamina"][row] for got in per_round]
        print(
            f"  {row:26s}{cells}   {statistics.median(ratios):.2f}x "
            f"[{min(ratios):.2f}, {max(ratios):.2f}]",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", choices=("spe", "convlstm", "both"), default="both")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(RESULT + json.dumps(worker(args)), flush=True)
        return
    import importlib.metadata as md

    print(
        f"lamina {md.version('lamina')}, keras {md.version('keras')}, jax {md.version('jax')},"
        f" torch {md.version('torch')}; {os.cpu_count()} CPUs; {args.rounds} round(s)"
    )
    for case in ("spe", "convlstm") if args.case == "both" else (args.case,):
        run_case(case, args.rounds)


if __name__ == "__main__":
    main()
