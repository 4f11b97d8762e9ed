"""How much does lamina's `fit` cost over a hand-written JAX training loop?

Trains two MLPs on synthetic data and prints steps/s for:
  * lamina `fit` with steps_per_execution 1 and 64;
  * baseline A: a hand-written `jax.jit` + optax step, called once per batch;
  * baseline B ("the limit"): the same training fused into one `lax.scan` per epoch.
Also: `predict` and `model(x)` latency on one sample, and `import lamina` vs `import jax`.
Ratios are against baseline B measured in the same run, epoch by epoch: each lamina
epoch is followed at once by one epoch of each baseline.

Usage: python bench/fit_overhead.py [--quick]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

import lamina
from lamina import Input, Model, layers


def make_data(n, dim=784, classes=10, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim)).astype("float32")
    y = rng.integers(0, classes, size=n).astype("int32")
    return x, y


def lamina_model(hidden):
    x = Input((784,))
    h = x
    for units in hidden:
        h = layers.Dense(units, activation="relu")(h)
    return Model(x, layers.Dense(10)(h))


def init_params(hidden, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [784, *hidden, 10]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        limit = np.sqrt(6 / (a + b))
        params.append(
            (jnp.asarray(rng.uniform(-limit, limit, (a, b)).astype("float32")), jnp.zeros(b))
        )
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    logits = forward(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


class JitLoop:
    """Baseline A: a hand-written `jax.jit` + optax step, called once per batch."""

    def __init__(self, hidden, x, y, batch):
        self.opt = optax.adam(1e-3)
        self.params = init_params(hidden)
        self.state = self.opt.init(self.params)
        self.x, self.y, self.batch = x, y, batch
        self.steps = len(x) // batch
        opt = self.opt

        @functools.partial(jax.jit, donate_argnums=(0, 1))
        def step(params, state, xb, yb):
            loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
            updates, state = opt.update(grads, state, params)
            return optax.apply_updates(params, updates), state, loss

        self.step = step
        self.params, self.state, loss = step(self.params, self.state, x[:batch], y[:batch])
        loss.block_until_ready()

    def epoch(self) -> float:
        """Seconds for one epoch."""
        x, y, b = self.x, self.y, self.batch
        t = time.perf_counter()
        for i in range(self.steps):
            self.params, self.state, loss = self.step(
                self.params, self.state, x[i * b : (i + 1) * b], y[i * b : (i + 1) * b]
            )
        loss.block_until_ready()
        return time.perf_counter() - t


class FusedScan:
    """Baseline B, the limit: the same training fused into one `lax.scan` per epoch, the
    data already on the device."""

    def __init__(self, hidden, x, y, batch):
        opt = optax.adam(1e-3)
        self.params = init_params(hidden)
        self.state = opt.init(self.params)
        self.steps = steps = len(x) // batch
        xs = jnp.asarray(x[: steps * batch].reshape(steps, batch, -1))
        ys = jnp.asarray(y[: steps * batch].reshape(steps, batch))

        # Donated like lamina's step, so both update the state in place.
        @functools.partial(jax.jit, donate_argnums=(0, 1))
        def epoch(params, state):
            def body(carry, data):
                params, state = carry
                loss, grads = jax.value_and_grad(loss_fn)(params, *data)
                updates, state = opt.update(grads, state, params)
                return (optax.apply_updates(params, updates), state), loss

            (params, state), losses = jax.lax.scan(body, (params, state), (xs, ys))
            return params, state, losses[-1]

        self.fn = epoch
        self.epoch()  # compile

    def epoch(self) -> float:
        t = time.perf_counter()
        self.params, self.state, loss = self.fn(self.params, self.state)
        loss.block_until_ready()
        return time.perf_counter() - t


class _Paired(lamina.callbacks.Callback):
    """Times each lamina epoch, then runs one epoch of each baseline right after it, so
    every ratio compares runs seconds apart (this machine's speed drifts by 2x and more
    over tens of seconds)."""

    def __init__(self, baselines):
        super().__init__()
        self.baselines = baselines
        self.times = {"lamina": [], **{name: [] for name in baselines}}

    def on_epoch_begin(self, epoch, logs=None):
        self._t = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.times["lamina"].append(time.perf_counter() - self._t)
        for name, baseline in self.baselines.items():
            self.times[name].append(baseline.epoch())


def lamina_paired(hidden, x, y, batch, epochs, spe, baselines):
    """Per-epoch seconds of lamina `fit` and of each baseline, interleaved."""
    model = lamina_model(hidden)
    model.compile(
        optimizer=lamina.optimizers.Adam(1e-3),
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        steps_per_execution=spe,
    )
    steps = len(x) // batch
    x, y = x[: steps * batch], y[: steps * batch]
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)  # compile
    paired = _Paired(baselines)
    model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0, shuffle=False, callbacks=[paired])
    return paired.times


def latency(fn, repeats=200):
    fn()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


def import_times(rounds=7):
    """Median seconds of `import jax` and `import lamina`, each in a fresh process, the two
    alternating (which goes first swaps each round); and the median time `import lamina`
    takes in a process that has already imported jax (lamina's own share, free of the
    process-to-process noise, which is +-0.1 s here)."""
    # As an installed package imports: with bytecode caches (a first run writes them), even
    # where the environment sets PYTHONDONTWRITEBYTECODE; jax's caches ship installed.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once(module, before=""):
        code = (
            f"{before}import time; t=time.perf_counter(); import {module}; "
            "print(time.perf_counter()-t)"
        )
        return float(subprocess.check_output([sys.executable, "-c", code], text=True, env=env))

    once("lamina")
    pairs = []
    for i in range(rounds):
        if i % 2:
            t_lamina = once("lamina")
            pairs.append((once("jax"), t_lamina))
        else:
            pairs.append((once("jax"), once("lamina")))
    after_jax = statistics.median(once("lamina", "import jax; ") for _ in range(rounds))
    jax_t = statistics.median(p[0] for p in pairs)
    lamina_t = statistics.median(p[1] for p in pairs)
    return jax_t, lamina_t, after_jax


def latencies(fns, blocks=20, per_block=100):
    """One-call latencies in ms, the functions called in turn, in blocks: for each
    function the median over all calls, and its median in the quietest block (the block
    where the first function, the floor, was fastest)."""
    for fn in fns.values():
        fn()
    samples = {name: [] for name in fns}
    for _ in range(blocks * per_block):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - t) * 1e3)
    block_medians = {
        name: [statistics.median(v[i : i + per_block]) for i in range(0, len(v), per_block)]
        for name, v in samples.items()
    }
    floor = next(iter(fns))
    quiet = min(range(blocks), key=lambda i: block_medians[floor][i])
    return {name: (statistics.median(v), block_medians[name][quiet]) for name, v in samples.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer samples and epochs")
    args = parser.parse_args()
    epochs = 3 if args.quick else 11
    print(
        f"device: {jax.devices()[0].platform}, lamina {lamina.__version__}, jax {jax.__version__}"
    )
    configs = [
        ("784-512-512-10", (512, 512), 128, 4096 if args.quick else 16384),
        ("784-32-32-10", (32, 32), 32, 4096 if args.quick else 16384),
    ]
    for name, hidden, batch, n in configs:
        x, y = make_data(n)
        baselines = {
            "fused": FusedScan(hidden, x, y, batch),
            "loop": JitLoop(hidden, x, y, batch),
        }
        steps = n // batch
        print(
            f"\n{name} MLP, batch {batch}, {steps} steps/epoch, {epochs} epochs; steps/s "
            "(median epoch) and the median over epochs of the ratio to the fused epoch run "
            "right after it [ratio of total times, which counts fit's one-off copy of the "
            "data to the device]"
        )
        for spe in (1, 64):
            times = lamina_paired(hidden, x, y, batch, epochs, spe, baselines)
            fused = times["fused"]
            for label, key in (
                ("fused lax.scan limit", "fused"),
                ("jax.jit + optax loop", "loop"),
                (f"lamina fit spe={spe}", "lamina"),
            ):
                if key != "lamina" and spe != 1:
                    continue  # the baselines are printed once, from the spe=1 pairing
                t = times[key]
                ratio = statistics.median(f / v for f, v in zip(fused, t, strict=True))
                total = sum(fused) / sum(t)
                print(
                    f"  {label:24s} {steps / statistics.median(t):9.1f}  {ratio:.2f}x [{total:.2f}x]"
                )

    model = lamina_model((32, 32))
    one = make_data(1)[0]
    model.predict(one, verbose=0)
    # The floor: a hand-written jitted forward pass on the same sizes, result to NumPy.
    params = init_params((32, 32))
    raw = jax.jit(forward)
    lat = latencies(
        {
            "floor": lambda: np.asarray(raw(params, one)),
            "predict": lambda: model.predict(one, verbose=0),
            "model(x)": lambda: jax.block_until_ready(model(one)),
        },
        blocks=10 if args.quick else 20,
    )
    print("\none-sample latency, ms: median of all calls [median in the quietest block]")
    targets = {
        "floor": "raw jax.jit forward + np.asarray",
        "predict": "target <= 0.15 ms",
        "model(x)": "target <= 0.2 ms",
    }
    for name, (median, quiet) in lat.items():
        print(f"  {name:10s} {median:.3f} [{quiet:.3f}]  ({targets[name]})")
    t_jax, t_lamina, after_jax = import_times(5 if args.quick else 15)
    print(
        f"\nimport lamina: {t_lamina:.3f} s; import jax: {t_jax:.3f} s; difference "
        f"{t_lamina - t_jax:+.3f} s; import lamina after import jax: {after_jax:.3f} s "
        "(target: within 0.15 s of import jax)"
    )


if __name__ == "__main__":
    main()
