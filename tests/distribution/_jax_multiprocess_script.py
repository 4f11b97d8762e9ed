"""Run by test_distribution.py: one process of a two-process JAX job joined by
`jax.distributed` on localhost (one CPU device each), or (rank "single") the
one-process reference on the whole global batches.

Arguments: the rank (0, 1 or "single"), the coordinator port and an output folder.
"""

import json
import os
import sys

os.environ["LAMINA_BACKEND"] = "jax"
os.environ.pop("XLA_FLAGS", None)

import numpy as np  # noqa: E402

import lamina  # noqa: E402
from lamina import distribution as dist  # noqa: E402

rank, port, out = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 5)).astype("float32")
y = (x @ rng.normal(size=(5, 2))).astype("float32")


def make():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential(
        [lamina.Input((5,)), lamina.layers.Dense(8, activation="tanh"), lamina.layers.Dense(2)]
    )
    model.compile(optimizer="adam", loss="mse")
    return model


class Interrupt(Exception):
    pass


class StopAt(lamina.callbacks.Callback):
    """Stops training at epoch 1, batch 1, as a crash would (every process alike)."""

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == (1, 1):
            raise Interrupt


def fit_interrupted_then_resumed(make_model, x_part, y_part, backup_dir):
    """The same fit, stopped mid-epoch and resumed from BackupAndRestore's backup in a
    directory every process shares (as on one host or a shared file system)."""
    backup = lamina.callbacks.BackupAndRestore(backup_dir, save_freq=1)
    try:
        make_model().fit(
            x_part,
            y_part,
            batch_size=8,
            epochs=3,
            verbose=0,
            shuffle=False,
            callbacks=[backup, StopAt()],
        )
    except Interrupt:
        pass
    resumed = make_model()
    steps = Count()
    resumed.fit(
        x_part,
        y_part,
        batch_size=8,
        epochs=3,
        verbose=0,
        shuffle=False,
        callbacks=[backup, steps],
    )
    resumed.steps_after_resume = steps.batches
    return resumed


class Count(lamina.callbacks.Callback):
    batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches += 1


found = {}
if rank == "single":
    model = make()
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    found["loss"] = model.evaluate(x, y, batch_size=16, verbose=0)
    found["predictions"] = model.predict(x, batch_size=16, verbose=0).tolist()
else:
    r = int(rank)
    dist.initialize(job_addresses=f"127.0.0.1:{port}", num_processes=2, process_id=r)
    found["devices"] = dist.list_devices()
    # Global batch b is rows [16b, 16b + 16): process r feeds its half of each.
    rows = np.concatenate([np.arange(16 * b + 8 * r, 16 * b + 8 * r + 8) for b in range(2)])
    with dist.DataParallel().scope():
        model = make()
        model.fit(x[rows], y[rows], batch_size=8, epochs=3, verbose=0, shuffle=False)
        resumed = fit_interrupted_then_resumed(make, x[rows], y[rows], os.path.join(out, "backup"))
        np.savez(
            os.path.join(out, f"{rank}_resumed.npz"),
            *resumed.get_weights(),
            steps_after_resume=resumed.steps_after_resume,
        )
        found["loss"] = model.evaluate(x[rows], y[rows], batch_size=8, verbose=0)
        found["predictions"] = model.predict(x[rows], batch_size=8, verbose=0).tolist()
        found["rows"] = rows.tolist()
np.savez(os.path.join(out, f"{rank}.npz"), *model.get_weights())
with open(os.path.join(out, f"{rank}.json"), "w") as f:
    json.dump(found, f)
