"""lamina against Keras 3 (JAX backend) on the same work, timed as a user sees it.

Both frameworks build the same MLPs from the same initial weights, train them with adam,
sparse categorical cross-entropy and an accuracy metric on the same synthetic data
(20,000 samples of 784 features, 10 classes), and are timed by whole calls:

  * `fit(epochs=1)` called again and again on the same arrays (median call after the
    first), `fit(epochs=4)` per epoch, `evaluate` and `predict` on the full array, for a
    tiny (784-32-32-10, batch 32) and a large (784-512-512-10, batch 128) MLP at
    `steps_per_execution` 1 and 64;
  * `predict` and `model(x)` on one sample (median of many calls, in blocks of 25 taking turns);
  * a first `fit` in a fresh process: interpreter start + import + build + compile + one
    epoch of 2,048 samples (tiny MLP, batch 32), timed from just before the process is
    spawned to the end of `fit`;
  * `import` in a fresh process, alone and after `import jax` (the framework's own share).

Every measurement runs in a fresh worker process (`--worker lamina|keras --case ...`),
lamina's and Keras's alternating, and which goes first swaps from round to round: this
machine's speed drifts by 2x and more over tens of seconds, so each ratio is the median
over rounds of the ratio within a round (the two runs of a round are seconds apart).
Both workers get the same environment (`KERAS_BACKEND=jax`, the inherited XLA flags,
bytecode caches on). Ratios are Keras time / lamina time: above 1.0x, lamina is faster.

Usage: python bench/vs_keras.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import statistics
import subprocess
import sys
import time

FEATURES, CLASSES = 784, 10
TRAIN_SAMPLES = 20_000
FIRST_FIT_SAMPLES = 2_048
# name: (hidden units, batch size)
MODELS = {"tiny": ((32, 32), 32), "large": ((512, 512), 128)}
RESULT = "RESULT "  # prefix of the worker's one line of JSON on stdout
BLOCK = 25  # one-sample calls per block of the latency rows


# --- worker side: imports lamina or Keras, never both ------------------------------------


def make_data(n, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype("float32")
    y = rng.integers(0, CLASSES, size=n).astype("int32")
    return x, y


def initial_weights(hidden, seed=0):
    """Glorot-uniform kernels and zero biases from NumPy, so that both frameworks start
    from the same weights (their own initializers draw from different generators)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = [FEATURES, *hidden, CLASSES]
    weights = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        limit = np.sqrt(6 / (a + b))
        weights += [rng.uniform(-limit, limit, (a, b)).astype("float32"), np.zeros(b, "float32")]
    return weights


def import_framework(framework):
    if framework == "lamina":
        import lamina as fw
    else:
        import keras as fw
    return fw


def build(fw, hidden, steps_per_execution=1):
    fw.utils.set_random_seed(0)  # fit's shuffling
    model = fw.Sequential(
        [
            fw.Input((FEATURES,)),
            *[fw.layers.Dense(units, activation="relu") for units in hidden],
            fw.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.set_weights(initial_weights(hidden))
    model.compile(
        optimizer="adam",
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        steps_per_execution=steps_per_execution,
    )
    return model


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def work_train(fw, model_name, spe, repeats):
    """Seconds (medians) of the whole-call rows, each call warmed up first."""
    hidden, batch = MODELS[model_name]
    model = build(fw, hidden, spe)
    x, y = make_data(TRAIN_SAMPLES)
    calls = {
        "fit1": lambda: model.fit(x, y, batch_size=batch, epochs=1, verbose=0),
        "evaluate": lambda: model.evaluate(x, y, batch_size=batch, verbose=0),
        "predict": lambda: model.predict(x, batch_size=batch, verbose=0),
    }
    for call in calls.values():  # the first call of each compiles
        call()
    times = {name: [] for name in calls}
    for _ in range(repeats):  # interleaved, so drift within the worker hits all alike
        for name, call in calls.items():
            times[name].append(timed(call))
    epochs = 4
    fit4 = timed(lambda: model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0))
    result = {name: statistics.median(v) for name, v in times.items()}
    result["fit4"] = fit4 / epochs
    return result


def work_latency(fw, model_name, calls):
    """Median seconds of `predict` and `model(x)` on one sample, in blocks taking turns."""
    import jax

    hidden, _ = MODELS[model_name]
    model = build(fw, hidden)
    one = make_data(1)[0]
    fns = {
        "predict1": lambda: model.predict(one, verbose=0),
        # The result is a JAX array computed asynchronously; wait for it, as using it would.
        "call1": lambda: jax.block_until_ready(model(one)),
    }
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    # Blocks of consecutive calls of one function, the functions taking turns (drift
    # hits all alike): a serving loop makes one kind of call. Alternating call by call
    # made each call follow the other kind, whose Python and data left the caches cold
    # (as bench/vs_torch.py found; the same method in both benches).
    for _ in range(max(1, calls // BLOCK)):
        for name, fn in fns.items():
            for _ in range(BLOCK):
                times[name].append(timed(fn))
    return {name: statistics.median(v) for name, v in times.items()}


def worker(args):
    # Imports are timed from here, with only the standard library loaded.
    if args.case == "import":
        t = time.perf_counter()
        import_framework(args.worker)
        return {"import": time.perf_counter() - t}
    if args.case == "import-after-jax":
        import jax  # noqa: F401

        t = time.perf_counter()
        import_framework(args.worker)
        return {"import": time.perf_counter() - t}
    if args.case == "first-fit":
        fw = import_framework(args.worker)
        imported = time.monotonic()
        hidden, batch = MODELS["tiny"]
        model = build(fw, hidden)
        x, y = make_data(FIRST_FIT_SAMPLES)
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        # CLOCK_MONOTONIC is system-wide: the driver subtracts its own reading at spawn.
        return {"imported": imported, "end": time.monotonic()}
    fw = import_framework(args.worker)
    if args.case == "train":
        return work_train(fw, args.model, args.spe, args.repeats)
    if args.case == "latency":
        return work_latency(fw, args.model, args.calls)
    raise ValueError(f"unknown --case {args.case!r}")


# --- driver side: spawns workers, never imports a framework ------------------------------

# As installed packages import: with bytecode caches (the dev environment sets
# PYTHONDONTWRITEBYTECODE, which would make lamina, installed editable, recompile every
# module while Keras and jax use their installed caches). Same environment for both.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(KERAS_BACKEND="jax", LAMINA_BACKEND="jax")


def spawn(framework, case, *extra):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", framework, "--case", case]
    cmd += [str(e) for e in extra]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT)]
    if proc.returncode or not lines:
        sys.exit(
            f"worker failed (exit {proc.returncode}): {' '.join(cmd)}\n"
            f"{proc.stdout[-2000:]}{proc.stderr[-4000:]}"
        )
    result = json.loads(lines[-1][len(RESULT) :])
    if case == "first-fit":
        return {"first_fit": result["end"] - start, "first_fit_import": result["imported"] - start}
    return result


class Row:
    """One line of the table: a figure of lamina's and of Keras's per round; `target` is
    the least ratio (keras/lamina) asked for, `throughput` marks the fit/evaluate/predict
    rows the geometric mean is over."""

    def __init__(self, label, target=None, throughput=False):
        self.label, self.target, self.throughput = label, target, throughput
        self.lamina, self.keras = [], []

    def add(self, lamina, keras):
        self.lamina.append(lamina)
        self.keras.append(keras)

    def ratios(self):
        return [k / v for v, k in zip(self.lamina, self.keras)]

    def ratio(self):
        return statistics.median(self.ratios())


def pair(rows, order, case, *extra):
    """One lamina and one Keras worker, in `order`; `rows` maps a worker's result names to
    the rows their figures go to."""
    got = {framework: spawn(framework, case, *extra) for framework in order}
    for key, row in rows.items():
        row.add(got["lamina"][key], got["keras"][key])


def fmt_ms(seconds):
    ms = seconds * 1e3
    if ms < 1:
        return f"{ms:.3f}"
    if ms < 100:
        return f"{ms:.2f}"
    return f"{ms:,.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one round, fewer calls: about 2 minutes on an idle machine instead of 10",
    )
    parser.add_argument("--rounds", type=int, help="rounds (default 4, 1 with --quick)")
    # Worker arguments (the driver passes them).
    parser.add_argument("--worker", choices=["lamina", "keras"], help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--model", choices=sorted(MODELS), help=argparse.SUPPRESS)
    parser.add_argument("--spe", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=200, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(RESULT + json.dumps(worker(args)), flush=True)
        return

    rounds = args.rounds or (1 if args.quick else 4)
    repeats = 1 if args.quick else 3  # timed calls of each kind per training worker
    calls = 100 if args.quick else 300  # one-sample calls of each kind per latency worker
    process_pairs = 1 if args.quick else 2  # first-fit and import pairs per round
    versions = {p: importlib.metadata.version(p) for p in ("lamina", "keras", "jax")}
    print(
        f"lamina {versions['lamina']}, keras {versions['keras']}, jax {versions['jax']}; "
        f"{os.cpu_count()} CPUs; {rounds} round(s); every figure from fresh processes, "
        "lamina and Keras alternating",
        flush=True,
    )

    rows = {}
    train_cases = [(m, spe) for m in MODELS for spe in (1, 64)]
    for m, spe in train_cases:
        hidden, batch = MODELS[m]
        name = f"{m} {'-'.join(map(str, (FEATURES, *hidden, CLASSES)))} b{batch} spe={spe}"
        for key, what in (
            ("fit1", "fit(epochs=1) repeated"),
            ("fit4", "fit(epochs=4) per epoch"),
            ("evaluate", "evaluate"),
            ("predict", "predict, full array"),
        ):
            rows[(m, spe, key)] = Row(f"{name}: {what}", 1.0, throughput=True)
    for m in MODELS:
        rows[(m, "predict1")] = Row(f"{m}: predict, 1 sample", 5.0)
        rows[(m, "call1")] = Row(f"{m}: model(x), 1 sample", 10.0)
    rows["first_fit"] = Row(
        f"first fit, fresh process (import+build+compile+fit {FIRST_FIT_SAMPLES:,})",
        1.2,
    )
    rows["first_fit_import"] = Row("  of which: interpreter start + import")
    rows["import"] = Row("import, fresh process")
    rows["import_after_jax"] = Row("import after `import jax` (own share)")

    # Warm-up, discarded: the first runs write bytecode caches (lamina is installed
    # editable) and Keras's config file.
    for framework in ("lamina", "keras"):
        spawn(framework, "import")

    # Each job is one pair of workers per round: (rows by result name, case, arguments).
    jobs = []
    for m, spe in train_cases:
        keys = ("fit1", "fit4", "evaluate", "predict")
        extra = ("--model", m, "--spe", spe, "--repeats", repeats)
        jobs.append(({k: rows[(m, spe, k)] for k in keys}, "train", extra))
    for m in MODELS:
        keys = ("predict1", "call1")
        extra = ("--model", m, "--calls", calls)
        jobs.append(({k: rows[(m, k)] for k in keys}, "latency", extra))
    for _ in range(process_pairs):
        keys = ("first_fit", "first_fit_import")
        jobs.append(({k: rows[k] for k in keys}, "first-fit", ()))
        jobs.append(({"import": rows["import"]}, "import", ()))
        jobs.append(({"import": rows["import_after_jax"]}, "import-after-jax", ()))

    started = time.monotonic()
    for r in range(rounds):
        t = time.monotonic()
        for i, (job_rows, case, extra) in enumerate(jobs):
            # Who goes first alternates from pair to pair and, for each job, round to round.
            order = ("lamina", "keras") if (r + i) % 2 == 0 else ("keras", "lamina")
            pair(job_rows, order, case, *extra)
        print(
            f"  round {r + 1}/{rounds}: {time.monotonic() - t:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    print(
        f"\n{TRAIN_SAMPLES:,} samples unless said; ms are medians over rounds, the ratio is the "
        "median over rounds of keras/lamina within a round [lowest, highest]; "
        f"total {time.monotonic() - started:.0f} s\n"
    )
    width = max(len(row.label) for row in rows.values())
    print(
        f"{'case':{width}s} {'lamina ms':>10s} {'keras ms':>10s} {'ratio':>7s} "
        f"{'[range]':>15s}  target    met?"
    )
    for row in rows.values():
        ratios = row.ratios()
        spread = f"[{min(ratios):.2f}, {max(ratios):.2f}]"
        target, met = "", ""
        if row.target:
            target = f">= {row.target:.1f}x"
            met = "yes" if row.ratio() >= row.target else "NO"
        print(
            f"{row.label:{width}s} {fmt_ms(statistics.median(row.lamina)):>10s} "
            f"{fmt_ms(statistics.median(row.keras)):>10s} {row.ratio():6.2f}x "
            f"{spread:>15s}  {target:8s}  {met}"
        )
    throughput = [row.ratio() for row in rows.values() if row.throughput]
    geomean = math.exp(sum(map(math.log, throughput)) / len(throughput))
    slower = sum(r < 1.0 for r in throughput)
    # Issue 35 asks every row ahead of Keras in every round, not only its median.
    slower_once = sum(
        any(k < lam for lam, k in zip(row.lamina, row.keras, strict=True))
        for row in rows.values()
        if row.throughput
    )
    print(
        f"\ngeometric mean of the {len(throughput)} fit/evaluate/predict (full array) ratios: "
        f"{geomean:.2f}x (target >= 1.5x: {'met' if geomean >= 1.5 else 'NOT met'}); "
        f"rows where lamina is slower: {slower} by the median, {slower_once} in some round"
    )


if __name__ == "__main__":
    main()
