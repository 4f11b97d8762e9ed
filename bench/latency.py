"""Repeated calls on one model, lamina against Keras 3 (JAX backend): no pauses, and
`steps_per_execution > 1` no slower than 1.

The model is bench/vs_keras.py's tiny MLP (784-32-32-10, softmax) on 20,000 synthetic
samples, batch 32, from the same initial weights on both sides. Two cases, each run in a
fresh worker process per framework (`--worker lamina|keras`), the two alternating and
which goes first swapping from round to round:

  * `latency`: 200 consecutive calls each of `predict` (the full array), `evaluate` (the
    full array) and `model(x)` (one batch, waited for), after a warm-up, and the same
    three calls written in plain JAX (a third worker, `jax`: the machine's own spread,
    the baseline for the frameworks' tails). Prints the p50,
    p99 and max of each and how many garbage collections of each generation ran during
    the calls: a full (generation 2) collection walks every object alive, the engine's
    included, and shows as a pause several calls long (issue 35's spikes);
  * `spe`: median of whole `predict` and `evaluate` calls with `steps_per_execution`
    1, 16 and 64 (the models side by side in one process, calls interleaved).

The machine's load changes what every figure means: compare sides within a round.

Usage: python bench/latency.py [--rounds N] [--calls N] [--case latency|spe|both]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

FEATURES, HIDDEN, CLASSES = 784, (32, 32), 10
SAMPLES, BATCH = 20_000, 32
SPES = (1, 16, 64)
RESULT = "RESULT "


# --- worker side: imports lamina or Keras, never both ------------------------------------


def build(fw, steps_per_execution=1):
    import numpy as np

    fw.utils.set_random_seed(0)
    model = fw.Sequential(
        [
            fw.Input((FEATURES,)),
            *[fw.layers.Dense(units, activation="relu") for units in HIDDEN],
            fw.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    rng = np.random.default_rng(0)
    sizes = [FEATURES, *HIDDEN, CLASSES]
    weights = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        limit = np.sqrt(6 / (a + b))
        weights += [rng.uniform(-limit, limit, (a, b)).astype("float32"), np.zeros(b, "float32")]
    model.set_weights(weights)
    model.compile(
        optimizer="adam",
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        steps_per_execution=steps_per_execution,
    )
    return model


def data():
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((SAMPLES, FEATURES)).astype("float32")
    y = rng.integers(0, CLASSES, size=SAMPLES).astype("int32")
    return x, y


def work_latency(fw, calls):
    import jax

    model = build(fw)
    x, y = data()
    fns = {
        "predict": lambda: model.predict(x, batch_size=BATCH, verbose=0),
        "evaluate": lambda: model.evaluate(x, y, batch_size=BATCH, verbose=0),
        "model(x)": lambda: jax.block_until_ready(model(x[:BATCH])),
    }
    return time_calls(fns, calls)


def work_latency_plain(calls):
    """The same three calls written in plain JAX, as a JAX user loops over batches: one
    jitted function per batch, the outputs gathered on the host at the end. Its spread
    is this machine's own, the baseline for the frameworks' p99 / p50."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    sizes = [FEATURES, *HIDDEN, CLASSES]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        limit = np.sqrt(6 / (a + b))
        params += [jnp.asarray(rng.uniform(-limit, limit, (a, b)).astype("float32"))]
        params += [jnp.zeros(b, "float32")]

    def forward(params, xb):
        h = xb
        for i in range(0, len(params) - 2, 2):
            h = jax.nn.relu(h @ params[i] + params[i + 1])
        return jax.nn.softmax(h @ params[-2] + params[-1])

    forward_jit = jax.jit(forward)

    @jax.jit
    def test_batch(params, totals, xb, yb):
        probs = forward(params, xb)
        picked = jnp.take_along_axis(probs, yb[:, None], axis=1)[:, 0]
        loss = -jnp.log(jnp.clip(picked, 1e-7, 1.0)).sum()
        right = (jnp.argmax(probs, axis=1) == yb).sum()
        return totals[0] + loss, totals[1] + right

    x, y = data()
    starts = range(0, SAMPLES, BATCH)

    def predict():
        outs = [forward_jit(params, x[i : i + BATCH]) for i in starts]
        return np.concatenate(jax.device_get(outs))

    def evaluate():
        totals = (jnp.float32(0), jnp.int32(0))
        for i in starts:
            totals = test_batch(params, totals, x[i : i + BATCH], y[i : i + BATCH])
        return float(totals[0]) / SAMPLES, int(totals[1]) / SAMPLES

    fns = {
        "predict": predict,
        "evaluate": evaluate,
        "model(x)": lambda: jax.block_until_ready(forward_jit(params, x[:BATCH])),
    }
    return time_calls(fns, calls)


def time_calls(fns, calls):
    """Each call's p50, p99, max over `calls` calls after a warm-up, and the garbage
    collections of each generation that started during them."""
    import gc

    import numpy as np

    started = {}

    def count(phase, info):
        if phase == "start":
            started[info["generation"]] = started.get(info["generation"], 0) + 1

    result = {}
    for name, fn in fns.items():
        for _ in range(5):
            fn()
        started.clear()
        gc.callbacks.append(count)
        times = []
        try:
            for _ in range(calls):
                t = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t)
        finally:
            gc.callbacks.remove(count)
        result[name] = {
            "p50": float(np.percentile(times, 50)),
            "p99": float(np.percentile(times, 99)),
            "max": max(times),
            "gc": [started.get(g, 0) for g in range(3)],
        }
    return result


def work_spe(fw, rounds):
    x, y = data()
    models = {spe: build(fw, spe) for spe in SPES}
    calls = {}
    for spe, model in models.items():
        calls[f"predict spe={spe}"] = lambda m=model: m.predict(x, batch_size=BATCH, verbose=0)
        calls[f"evaluate spe={spe}"] = lambda m=model: m.evaluate(x, y, batch_size=BATCH, verbose=0)
    for fn in calls.values():
        fn()
    times = {name: [] for name in calls}
    for _ in range(rounds):  # interleaved: drift hits every form alike
        for name, fn in calls.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(v) for name, v in times.items()}


def worker(args):
    if args.worker == "jax":
        return work_latency_plain(args.calls)
    if args.worker == "lamina":
        import lamina as fw
    else:
        import keras as fw
    if args.case == "latency":
        return work_latency(fw, args.calls)
    return work_spe(fw, args.repeats)


# --- driver side: spawns workers, never imports a framework ------------------------------

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(KERAS_BACKEND="jax", LAMINA_BACKEND="jax")


def spawn(framework, case, *extra):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", framework, "--case", case]
    cmd += [str(e) for e in extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT)]
    if proc.returncode or not lines:
        sys.exit(f"worker failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-4000:]}")
    return json.loads(lines[-1][len(RESULT) :])


def ms(seconds):
    return f"{seconds * 1e3:8.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=15, help="spe case: calls of each kind")
    parser.add_argument("--case", choices=["latency", "spe", "both"], default="both")
    parser.add_argument("--worker", choices=["lamina", "keras", "jax"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(RESULT + json.dumps(worker(args)), flush=True)
        return
    cases = ["latency", "spe"] if args.case == "both" else [args.case]
    print(
        f"{SAMPLES:,} samples of {FEATURES} features, batch {BATCH}, MLP "
        f"{'-'.join(map(str, (FEATURES, *HIDDEN, CLASSES)))}; load average "
        f"{os.getloadavg()[0]:.2f} at the start; {os.cpu_count()} CPUs"
    )
    for r in range(args.rounds):
        order = ("lamina", "keras") if r % 2 == 0 else ("keras", "lamina")
        for case in cases:
            extra = ("--calls", args.calls) if case == "latency" else ("--repeats", args.repeats)
            if case == "latency":  # the three sides take turns at going first
                three = ("lamina", "keras", "jax")
                sides = three[r % 3 :] + three[: r % 3]
            else:
                sides = order
            got = {fw: spawn(fw, case, *extra) for fw in sides}
            print(f"\nround {r + 1}, {case} (load average {os.getloadavg()[0]:.2f}):")
            if case == "latency":
                print(
                    f"{'call':10s} {'side':7s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s} "
                    f"{'p99/p50':>8s} {'max/p50':>8s}  gc collections (gen 0, 1, 2)"
                )
                for name in got["lamina"]:
                    for fw in ("lamina", "keras", "jax"):
                        s = got[fw][name]
                        print(
                            f"{name:10s} {fw:7s} {ms(s['p50'])} {ms(s['p99'])} {ms(s['max'])} "
                            f"{s['p99'] / s['p50']:8.2f} {s['max'] / s['p50']:8.2f}  {s['gc']}"
                        )
            else:
                print(f"{'call':20s} {'lamina ms':>10s} {'keras ms':>10s} {'keras/lamina':>13s}")
                for name in got["lamina"]:
                    a, b = got["lamina"][name], got["keras"][name]
                    print(f"{name:20s} {ms(a):>10s} {ms(b):>10s} {b / a:12.2f}x")


if __name__ == "__main__":
    main()
