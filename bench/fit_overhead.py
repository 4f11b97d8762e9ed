"""How much does lamina's `fit` cost over a hand-written JAX training loop?

Trains two MLPs on synthetic data and prints steps/s for:
  * lamina `fit` with steps_per_execution 1 and 64;
  * baseline A: a hand-written `jax.jit` + optax step, called once per batch;
  * baseline B ("the limit"): the same training fused into one `lax.scan` per epoch.
Also: `predict` and `model(x)` latency on one sample, and `import lamina` vs `import jax`.
Ratios are against baseline B measured in the same run.

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


def baseline_steps(hidden, x, y, batch, epochs):
    opt = optax.adam(1e-3)
    params = init_params(hidden)
    state = opt.init(params)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(params, state, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    steps = len(x) // batch
    params, state, loss = step(params, state, x[:batch], y[:batch])
    loss.block_until_ready()
    times = []
    for _ in range(epochs):
        t = time.perf_counter()
        for i in range(steps):
            params, state, loss = step(
                params, state, x[i * batch : (i + 1) * batch], y[i * batch : (i + 1) * batch]
            )
        loss.block_until_ready()
        times.append(time.perf_counter() - t)
    return steps / statistics.median(times)


def fused_steps(hidden, x, y, batch, epochs):
    opt = optax.adam(1e-3)
    params = init_params(hidden)
    state = opt.init(params)
    steps = len(x) // batch
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

    params, state, loss = epoch(params, state)
    loss.block_until_ready()
    times = []
    for _ in range(epochs):
        t = time.perf_counter()
        params, state, loss = epoch(params, state)
        loss.block_until_ready()
        times.append(time.perf_counter() - t)
    return steps / statistics.median(times)


class _EpochTimer(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.times = []

    def on_epoch_begin(self, epoch, logs=None):
        self._t = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.times.append(time.perf_counter() - self._t)


def lamina_steps(hidden, x, y, batch, epochs, spe):
    model = lamina_model(hidden)
    model.compile(
        optimizer=lamina.optimizers.Adam(1e-3),
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        steps_per_execution=spe,
    )
    steps = len(x) // batch
    x, y = x[: steps * batch], y[: steps * batch]
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)  # compile
    timer = _EpochTimer()
    model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0, shuffle=False, callbacks=[timer])
    return steps / statistics.median(timer.times)


def latency(fn, repeats=200):
    fn()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


def import_time(module):
    # As an installed package imports: with bytecode caches (a first run writes them), even
    # where the environment sets PYTHONDONTWRITEBYTECODE; jax's caches ship installed.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
    subprocess.check_output([sys.executable, "-c", code], text=True, env=env)
    runs = [
        float(subprocess.check_output([sys.executable, "-c", code], text=True, env=env))
        for _ in range(5)
    ]
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer samples and epochs")
    args = parser.parse_args()
    epochs = 2 if args.quick else 3
    print(
        f"device: {jax.devices()[0].platform}, lamina {lamina.__version__}, jax {jax.__version__}"
    )
    configs = [
        ("784-512-512-10", (512, 512), 128, 4096 if args.quick else 16384),
        ("784-32-32-10", (32, 32), 32, 4096 if args.quick else 16384),
    ]
    for name, hidden, batch, n in configs:
        x, y = make_data(n)
        limit = fused_steps(hidden, x, y, batch, epochs)
        base = baseline_steps(hidden, x, y, batch, epochs)
        spe1 = lamina_steps(hidden, x, y, batch, epochs, 1)
        spe64 = lamina_steps(hidden, x, y, batch, epochs, 64)
        print(
            f"\n{name} MLP, batch {batch}, {n // batch} steps/epoch (steps/s; ratio to fused limit)"
        )
        print(f"  fused lax.scan limit      {limit:9.1f}  1.00x")
        print(f"  jax.jit + optax loop      {base:9.1f}  {base / limit:.2f}x")
        print(f"  lamina fit spe=1          {spe1:9.1f}  {spe1 / limit:.2f}x")
        print(f"  lamina fit spe=64         {spe64:9.1f}  {spe64 / limit:.2f}x")

    model = lamina_model((32, 32))
    one = make_data(1)[0]
    model.predict(one, verbose=0)
    predict_ms = latency(lambda: model.predict(one, verbose=0))
    call_ms = latency(lambda: jax.block_until_ready(model(one)))
    # The floor: a hand-written jitted forward pass on the same sizes, result to NumPy.
    params = init_params((32, 32))
    raw = jax.jit(forward)
    raw_ms = latency(lambda: np.asarray(raw(params, one)))
    print(f"\nraw jax.jit forward + to NumPy (floor): {raw_ms:.3f} ms")
    print(f"predict on one sample:  {predict_ms:.3f} ms (target <= 0.15 ms)")
    print(f"model(x) on one sample: {call_ms:.3f} ms (target <= 0.2 ms)")
    t_jax, t_lamina = import_time("jax"), import_time("lamina")
    print(
        f"import lamina: {t_lamina:.3f} s; import jax: {t_jax:.3f} s; difference {t_lamina - t_jax:+.3f} s (target <= 0.15 s)"
    )


if __name__ == "__main__":
    main()
