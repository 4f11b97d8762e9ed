"""Run by test_distribution.py: one process of a two-process torch job over gloo, or
(rank "single") the one-process reference on the whole global batches.

Argument: the rank (0, 1 or "single"), the coordinator port and an output folder.

A regression model trains (and resumes) under `DataParallel`; a classifier then trains
with an accuracy metric, validation and tiny gradient buckets (several buckets per step,
reduced while the backward pass runs), and process 0 alone reads each batch's logs (as
a progress bar on process 0 only does): its logs, per batch, per epoch and from
`evaluate`, are written as JSON beside the weights.
"""

import json
import os
import sys

os.environ["LAMINA_BACKEND"] = "torch"

import numpy as np  # noqa: E402

import lamina  # noqa: E402
from lamina import distribution as dist  # noqa: E402

rank, port, out = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 5)).astype("float32")
y = (x @ rng.normal(size=(5, 2))).astype("float32")


def make(seed):
    lamina.utils.set_random_seed(seed)
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


class BatchLogs(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.logs = []

    def on_train_batch_end(self, batch, logs=None):
        self.logs.append({k: float(v) for k, v in logs.items()})


def classifier():
    lamina.utils.set_random_seed(1)
    inputs = lamina.Input((5,))
    hidden = lamina.layers.Dense(16, activation="relu")(inputs)
    model = lamina.Model(inputs, lamina.layers.Dense(3)(hidden))
    model.compile(
        optimizer="adam",
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


labels = (x @ rng.normal(size=(5, 3))).argmax(axis=1).astype("int32")
x_val = rng.normal(size=(16, 5)).astype("float32")
labels_val = (x_val @ rng.normal(size=(5, 3))).argmax(axis=1).astype("int32")


def train_classifier(rows, val_rows, batch_size, reads_batches):
    model = classifier()
    callbacks = [BatchLogs()] if reads_batches else []
    history = model.fit(
        x[rows],
        labels[rows],
        batch_size=batch_size,
        epochs=2,
        verbose=0,
        shuffle=False,
        validation_data=(x_val[val_rows], labels_val[val_rows]),
        callbacks=callbacks,
    )
    evaluated = model.evaluate(
        x_val[val_rows], labels_val[val_rows], batch_size=batch_size // 2, return_dict=True
    )
    logs = {
        "history": history.history,
        "batches": callbacks[0].logs if callbacks else None,
        "evaluate": {k: float(v) for k, v in evaluated.items()},
    }
    return model, logs


if rank == "single":
    model = make(0)
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    clf, logs = train_classifier(np.arange(32), np.arange(16), 16, True)
else:
    r = int(rank)
    dist.initialize(job_addresses=f"127.0.0.1:{port}", num_processes=2, process_id=r)
    # Global batch b is rows [16b, 16b + 16): process r takes its half of each.
    rows = np.concatenate([np.arange(16 * b + 8 * r, 16 * b + 8 * r + 8) for b in range(2)])
    with dist.DataParallel().scope():
        model = make(r)  # a different seed per process: process 0's weights must win
        model.fit(x[rows], y[rows], batch_size=8, epochs=3, verbose=0, shuffle=False)
        resumed = fit_interrupted_then_resumed(
            lambda: make(r), x[rows], y[rows], os.path.join(out, "backup")
        )
        np.savez(
            os.path.join(out, f"{rank}_resumed.npz"),
            *resumed.get_weights(),
            steps_after_resume=resumed.steps_after_resume,
        )
        engine = lamina.backend.distribution
        engine.FIRST_BUCKET_BYTES, engine.BUCKET_BYTES = 64, 256  # 3 buckets a step
        before = engine._REDUCER.launched_in_backward
        clf, logs = train_classifier(
            rows,
            np.concatenate([np.arange(8 * b + 4 * r, 8 * b + 4 * r + 4) for b in range(2)]),
            8,
            reads_batches=r == 0,
        )
        logs["buckets"] = len(engine._REDUCER._plan)
        logs["launched_in_backward"] = engine._REDUCER.launched_in_backward - before
        logs["devices"] = dist.list_devices()
        try:
            with dist.DataParallel(devices=["cpu:0", "cpu:1", "cpu:2"]).scope():
                classifier()
        except ValueError as error:
            logs["three_devices_error"] = str(error)
np.savez(os.path.join(out, f"{rank}_classifier.npz"), *clf.get_weights())
with open(os.path.join(out, f"{rank}_logs.json"), "w") as f:
    json.dump(logs, f)
np.savez(os.path.join(out, f"{rank}.npz"), *model.get_weights())
