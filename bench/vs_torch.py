"""lamina on torch against a plain PyTorch loop and Keras 3 on torch, timed as a user sees it.

Three workers do the same work (issue 13, performance item):

  * **lamina** (`LAMINA_BACKEND=torch`): `model.fit(x, y, batch_size=..., epochs=...,
    verbose=0)` on NumPy arrays, adam, `SparseCategoricalCrossentropy(from_logits=True)`
    on the logits of a `Dense(10)` (no metrics: the loss tracker only);
  * **torch**: the plain loop below (`nn.Sequential` + `torch.optim.Adam`,
    `nn.CrossEntropyLoss` on the logits, batches of a fresh `torch.randperm` each epoch,
    the last partial batch included, the epoch's mean loss accumulated as a tensor, as
    the loss tracker does);
  * **keras** (Keras 3, `KERAS_BACKEND=torch`): the same calls as lamina.

All three build the same MLPs from the same initial weights (Glorot-uniform from NumPy,
zero biases) and train on the same synthetic data (20,000 samples of 784 features,
10 classes; 4,096 with `--quick`) for a tiny (784-32-32-10, batch 32) and a large
(784-512-512-10, batch 128) MLP. Rows:

  * `fit(epochs=1)` called again and again on the same arrays (median call after a
    first, discarded one) and `fit(epochs=4)` per epoch;
  * `predict` and `model(x)` on one sample (lamina, Keras) against a plain `module(x)`
    under `torch.no_grad()` on a ready tensor (medians of many calls, in blocks of 25
    calls, the two taking turns);
  * `import` in a fresh process: `import lamina` / `import keras` against `import torch`,
    and `import lamina` after `import torch` (lamina's own share).

The plain loop, as timed (a whole `torch_fit(...)` call is one `fit` call):

    def torch_fit(module, optimizer, x, y, batch_size, epochs):
        loss_fn = nn.CrossEntropyLoss()
        x, y = torch.from_numpy(x), torch.from_numpy(y).long()
        n = len(x)
        module.train()
        for _ in range(epochs):
            order = torch.randperm(n)
            total = torch.zeros(())
            for start in range(0, n, batch_size):
                idx = order[start : start + batch_size]
                xb, yb = x[idx], y[idx]
                optimizer.zero_grad(set_to_none=True)
                loss = loss_fn(module(xb), yb)
                loss.backward()
                optimizer.step()
                with torch.no_grad():
                    total += loss * len(idx)
            epoch_loss = float(total) / n

with `module = nn.Sequential(nn.Linear(784, h1), nn.ReLU(), nn.Linear(h1, h2),
nn.ReLU(), nn.Linear(h2, 10))` and `torch.optim.Adam(module.parameters(), lr=1e-3,
eps=1e-7)` (Keras's epsilon).

Every measurement runs in a fresh worker process (`--worker lamina|torch|keras --case
...`); the three alternate, and the order rotates from job to job and round to round,
because this machine's speed drifts by 2x and more over tens of seconds: each ratio is
the median over rounds of the ratio within a round. Every worker calls
`torch.set_num_threads(--threads)` before its framework is imported (default 1: on this
shared 2-core machine two intra-op threads made a plain loop 8x slower while other
processes ran; one thread each is the stable like-for-like comparison), except the
import cases, which time the import alone. Keras runs with its default
`jit_compile="auto"`, which is eager on torch, as lamina's and the plain loop are.
Ratios are other/lamina: above 1.0x, lamina is faster.

Profile the lamina side with e.g.
`LAMINA_BACKEND=torch python -m cProfile -o fit.prof bench/vs_torch.py --worker lamina
--case train --model tiny --samples 4096`.

Where torch sees a GPU, all three compute on it (lamina and Keras pick it by default; the
plain side moves its module and data there) and the one-sample rows are timed until the
device is done; `--cpu` keeps all three on the CPU. The header line names the device.

Usage: python bench/vs_torch.py [--quick] [--rounds N] [--threads N] [--cpu]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time

FEATURES, CLASSES = 784, 10
TRAIN_SAMPLES, QUICK_SAMPLES = 20_000, 4_096
# name: (hidden units, batch size)
MODELS = {"tiny": ((32, 32), 32), "large": ((512, 512), 128)}
FRAMEWORKS = ("lamina", "torch", "keras")
RESULT = "RESULT "  # prefix of the worker's one line of JSON on stdout
BLOCK = 25  # one-sample calls per block of the latency rows


# --- worker side: imports one of lamina, Keras or plain torch ---------------------------


def make_data(n, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype("float32")
    y = rng.integers(0, CLASSES, size=n).astype("int32")
    return x, y


def initial_weights(hidden, seed=0):
    """Glorot-uniform kernels (in, out) and zero biases from NumPy, the same everywhere."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = [FEATURES, *hidden, CLASSES]
    weights = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        limit = np.sqrt(6 / (a + b))
        weights += [rng.uniform(-limit, limit, (a, b)).astype("float32"), np.zeros(b, "float32")]
    return weights


def device():
    """Where every framework computes: the first CUDA device when torch sees one (lamina
    and Keras pick it by default too), else the CPU."""
    import torch

    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


def torch_fit(module, optimizer, x, y, batch_size, epochs):
    """The plain PyTorch loop (the module docstring shows it); returns the last epoch's
    mean loss."""
    import torch
    from torch import nn

    loss_fn = nn.CrossEntropyLoss()
    dev = device()
    x, y = torch.from_numpy(x).to(dev), torch.from_numpy(y).long().to(dev)
    n = len(x)
    module.train()
    epoch_loss = None
    for _ in range(epochs):
        order = torch.randperm(n, device=dev)
        total = torch.zeros((), device=dev)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            xb, yb = x[idx], y[idx]
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(module(xb), yb)
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                total += loss * len(idx)
        epoch_loss = float(total) / n
    return epoch_loss


class Plain:
    """The plain-torch side behind the same calls as a Keras model: `fit`, `predict`
    and `__call__` on one sample."""

    def __init__(self, hidden):
        import torch
        from torch import nn

        torch.manual_seed(0)  # randperm's shuffling
        sizes = [FEATURES, *hidden, CLASSES]
        mods = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            mods += [nn.Linear(a, b), nn.ReLU()]
        self.module = nn.Sequential(*mods[:-1]).to(device())
        weights = initial_weights(hidden)
        linears = [m for m in self.module if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for lin, kernel, bias in zip(linears, weights[::2], weights[1::2]):
                lin.weight.copy_(torch.from_numpy(kernel.T))
                lin.bias.copy_(torch.from_numpy(bias))
        self.optimizer = torch.optim.Adam(self.module.parameters(), lr=1e-3, eps=1e-7)

    def fit(self, x, y, batch_size, epochs, verbose=0):
        return torch_fit(self.module, self.optimizer, x, y, batch_size, epochs)


def build(framework, hidden):
    if framework == "torch":
        return Plain(hidden)
    if framework == "lamina":
        import lamina as fw
    else:
        import keras as fw
    fw.utils.set_random_seed(0)  # fit's shuffling
    model = fw.Sequential(
        [
            fw.Input((FEATURES,)),
            *[fw.layers.Dense(units, activation="relu") for units in hidden],
            fw.layers.Dense(CLASSES),
        ]
    )
    model.set_weights(initial_weights(hidden))
    model.compile(optimizer="adam", loss=fw.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def work_train(framework, model_name, samples, repeats):
    """Seconds: median repeated `fit(epochs=1)` (after a first, discarded call) and
    `fit(epochs=4)` per epoch."""
    hidden, batch = MODELS[model_name]
    model = build(framework, hidden)
    x, y = make_data(samples)

    def fit(epochs):
        return model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0)

    fit(1)  # the first call builds the step (and, on Keras, the optimizer's variables)
    fit1 = statistics.median(timed(lambda: fit(1)) for _ in range(repeats))
    epochs = 4
    return {"fit1": fit1, "fit4": timed(lambda: fit(epochs)) / epochs}


def work_latency(framework, model_name, calls):
    """Median seconds of one-sample `predict` and `model(x)`, in blocks taking turns; the
    plain side's `module(x)` under `no_grad` on a ready tensor stands in for both."""
    import torch

    hidden, _ = MODELS[model_name]
    model = build(framework, hidden)
    one = make_data(1)[0]
    if framework == "torch":
        module, xt = model.module.eval(), torch.from_numpy(one).to(device())

        def plain():
            with torch.no_grad():
                return module(xt)

        fns = {"call1": plain}
    else:
        fns = {
            "predict1": lambda: model.predict(one, verbose=0),
            "call1": lambda: model(one),
        }
    if device().type == "cuda":
        # Timed until the device is done (lamina's and Keras's `predict` hand back NumPy
        # arrays, which waits; a bare `module(x)` or `model(x)` would time the launch).
        fns = {name: (lambda fn=fn: (fn(), torch.cuda.synchronize())) for name, fn in fns.items()}
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    # Blocks of consecutive calls of one function, the functions taking turns (drift
    # hits all alike): a serving loop makes one kind of call, and the plain side's
    # `module(x)` runs alone. Alternating call by call instead made each lamina call
    # follow the other one, whose Python and data left the caches cold (on torch's
    # large MLP: predict 183 us alone, 224 us after each model(x)).
    for _ in range(max(1, calls // BLOCK)):
        for name, fn in fns.items():
            for _ in range(BLOCK):
                times[name].append(timed(fn))
    result = {name: statistics.median(v) for name, v in times.items()}
    result.setdefault("predict1", result["call1"])
    return result


def import_framework(framework):
    if framework == "lamina":
        import lamina  # noqa: F401
    elif framework == "keras":
        import keras  # noqa: F401
    else:
        import torch  # noqa: F401


def worker(args):
    # Imports are timed from here, with only the standard library loaded.
    if args.case == "import":
        t = time.perf_counter()
        import_framework(args.worker)
        return {"import": time.perf_counter() - t}
    if args.case == "import-after-torch":
        import torch  # noqa: F401

        t = time.perf_counter()
        import_framework(args.worker)
        return {"import": time.perf_counter() - t}
    import torch

    torch.set_num_threads(args.threads)
    import_framework(args.worker)
    if args.case == "train":
        return work_train(args.worker, args.model, args.samples, args.repeats)
    if args.case == "latency":
        return work_latency(args.worker, args.model, args.calls)
    raise ValueError(f"unknown --case {args.case!r}")


# --- driver side: spawns workers, never imports a framework -----------------------------

# As installed packages import: with bytecode caches (the dev environment sets
# PYTHONDONTWRITEBYTECODE, which would make lamina, installed editable, recompile every
# module while torch and Keras use their installed caches). Same environment for all.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(KERAS_BACKEND="torch", LAMINA_BACKEND="torch")


def cuda_device_name():
    """The GPU the workers will use, or None (asked of a fresh process: the driver never
    imports torch)."""
    probe = (
        "import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV)
    return done.stdout.strip() or None


def spawn(framework, case, *extra):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", framework, "--case", case]
    cmd += [str(e) for e in extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT)]
    if proc.returncode or not lines:
        sys.exit(
            f"worker failed (exit {proc.returncode}): {' '.join(cmd)}\n"
            f"{proc.stdout[-2000:]}{proc.stderr[-4000:]}"
        )
    return json.loads(lines[-1][len(RESULT) :])


class Row:
    """One line of the table: each framework's figure per round (None where a framework
    has no figure). `targets` maps "torch"/"keras" to the least ratio other/lamina asked
    for; `diff` makes the row about lamina - torch (seconds) with `max_diff` its target."""

    def __init__(self, label, targets=None, frameworks=FRAMEWORKS, max_diff=None):
        self.label, self.targets, self.max_diff = label, targets or {}, max_diff
        self.values = {fw: [] for fw in frameworks}

    def add(self, got, key):
        for fw, values in self.values.items():
            values.append(got[fw][key])

    def median(self, fw):
        return statistics.median(self.values[fw]) if self.values.get(fw) else None

    def ratios(self, other):
        return [o / v for v, o in zip(self.values["lamina"], self.values[other])]

    def diff(self):
        return statistics.median(v - o for v, o in zip(self.values["lamina"], self.values["torch"]))


def fmt_ms(seconds):
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    if ms < 1:
        return f"{ms:.3f}"
    if ms < 100:
        return f"{ms:.2f}"
    return f"{ms:,.0f}"


def fmt_ratio(row, other):
    if not row.values.get(other):
        return "-", "", ""
    ratios = row.ratios(other)
    r = statistics.median(ratios)
    target = row.targets.get(other)
    met = "" if target is None else ("yes" if r >= target else "NO")
    return f"{r:.2f}x", f"[{min(ratios):.2f}, {max(ratios):.2f}]", met


def print_table(rows):
    width = max(len(row.label) for row in rows)
    print(
        f"{'case':{width}s} {'lamina ms':>10s} {'torch ms':>9s} {'keras ms':>9s}  "
        f"{'torch/lamina':>12s} {'[range]':>15s} {'met?':4s}  "
        f"{'keras/lamina':>12s} {'[range]':>15s} {'met?':4s}"
    )
    for row in rows:
        cells = [fmt_ms(row.median(fw)) for fw in FRAMEWORKS]
        line = f"{row.label:{width}s} {cells[0]:>10s} {cells[1]:>9s} {cells[2]:>9s}  "
        for other in ("torch", "keras"):
            if other == "torch" and row.max_diff is not None:
                d = row.diff()
                met = "yes" if d <= row.max_diff else "NO"
                line += f"{'lamina-torch':>12s} {f'{d * 1e3:+.0f} ms':>15s} {met:4s}  "
            else:
                r, spread, met = fmt_ratio(row, other)
                line += f"{r:>12s} {spread:>15s} {met:4s}  "
        print(line.rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"one round, {QUICK_SAMPLES:,} samples, fewer calls: a few minutes",
    )
    parser.add_argument("--rounds", type=int, help="rounds (default 3, 1 with --quick)")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads in every worker"
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="stay on the CPU where torch sees a GPU (the default is then the GPU, for all three)",
    )
    # Worker arguments (the driver passes them).
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--model", choices=sorted(MODELS), help=argparse.SUPPRESS)
    parser.add_argument("--samples", type=int, default=TRAIN_SAMPLES, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=300, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(RESULT + json.dumps(worker(args)), flush=True)
        return

    if args.cpu:
        ENV["CUDA_VISIBLE_DEVICES"] = ""
    gpu = cuda_device_name()
    rounds = args.rounds or (1 if args.quick else 3)
    samples = QUICK_SAMPLES if args.quick else TRAIN_SAMPLES
    repeats = 1 if args.quick else 3  # timed fit(epochs=1) calls per training worker
    calls = 100 if args.quick else 300  # one-sample calls of each kind per latency worker
    import_jobs = 1 if args.quick else 2  # import jobs of each kind per round
    versions = {p: importlib.metadata.version(p) for p in ("lamina", "keras", "torch")}
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(
        ["git", "-C", here, "log", "-1", "--format=%h %cd", "--date=format:%H:%M"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(
        f"lamina {versions['lamina']} (torch engine), keras {versions['keras']} (torch "
        f"backend), torch {versions['torch']}; {f'GPU: {gpu}' if gpu else 'on the CPU'}; "
        f"{os.cpu_count()} CPUs, "
        f"torch.set_num_threads({args.threads}); {rounds} round(s); {samples:,} samples; "
        "every figure from fresh processes, the three alternating",
        flush=True,
    )
    print(f"commit {commit or '(unknown)'}; load average {os.getloadavg()[0]:.1f} at start")

    rows, jobs = [], []  # a job: ({result key: row}, case, arguments, frameworks)
    for m, (hidden, batch) in MODELS.items():
        name = f"{m} {'-'.join(map(str, (FEATURES, *hidden, CLASSES)))} b{batch}"
        keras_target = 2.5 if m == "tiny" else None
        fit_targets = {"torch": 0.77, **({"keras": keras_target} if keras_target else {})}
        fit1 = Row(f"{name}: fit(epochs=1) repeated", fit_targets)
        fit4 = Row(f"{name}: fit(epochs=4) per epoch", fit_targets)
        rows += [fit1, fit4]
        extra = ("--model", m, "--samples", samples, "--repeats", repeats)
        jobs.append(({"fit1": fit1, "fit4": fit4}, "train", extra, FRAMEWORKS))
    for m in MODELS:
        predict1 = Row(f"{m}: predict, 1 sample (torch: module(x))", {"torch": 1 / 1.5})
        call1 = Row(f"{m}: model(x), 1 sample (torch: module(x))")
        rows += [predict1, call1]
        extra = ("--model", m, "--calls", calls)
        jobs.append(({"predict1": predict1, "call1": call1}, "latency", extra, FRAMEWORKS))
    imp = Row("import, fresh process (torch: import torch)", max_diff=0.2)
    after = Row("import after `import torch` (own share)", frameworks=("lamina", "keras"))
    rows += [imp, after]
    for _ in range(import_jobs):
        jobs.append(({"import": imp}, "import", (), FRAMEWORKS))
        jobs.append(({"import": after}, "import-after-torch", (), ("lamina", "keras")))
    threads = ("--threads", args.threads)

    # Warm-up, discarded: the first runs write bytecode caches (lamina is installed
    # editable) and Keras's config file.
    for framework in ("lamina", "keras"):
        spawn(framework, "import")

    started = time.monotonic()
    for r in range(rounds):
        t = time.monotonic()
        for i, (job_rows, case, extra, frameworks) in enumerate(jobs):
            # Who goes first rotates from job to job and, for each job, round to round.
            k = (r + i) % len(frameworks)
            order = frameworks[k:] + frameworks[:k]
            got = {fw: spawn(fw, case, *extra, *threads) for fw in order}
            for key, row in job_rows.items():
                row.add(got, key)
        print(
            f"  round {r + 1}/{rounds}: {time.monotonic() - t:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    print(
        "\nms are medians over rounds; a ratio is the median over rounds of other/lamina "
        "within a round [lowest, highest] (above 1.0x lamina is faster); targets: fit "
        "torch/lamina >= 0.77 (within 1.3x), keras/lamina >= 2.5 on the tiny MLP, "
        "predict torch/lamina >= 0.67 (within 1.5x), import lamina-torch <= +200 ms; "
        f"total {time.monotonic() - started:.0f} s, load average "
        f"{os.getloadavg()[0]:.1f} at the end\n"
    )
    print_table(rows)


if __name__ == "__main__":
    main()
