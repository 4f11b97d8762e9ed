"""Run by test_distribution.py in a fresh process with 4 virtual CPU devices (JAX).

Prints one JSON object of findings; the test asserts on it.
"""

import json
import os
import sys
import tempfile
import warnings

# Four devices; and, as the suite's conftest sets for its own process, no costly LLVM passes.
os.environ["XLA_FLAGS"] = (
    "--xla_force_host_platform_device_count=4 --xla_backend_optimization_level=0 "
    "--xla_llvm_disable_expensive_passes=true"
)
os.environ["LAMINA_BACKEND"] = "jax"

import numpy as np  # noqa: E402

import lamina  # noqa: E402
from lamina import distribution as dist  # noqa: E402
from lamina import layers  # noqa: E402

found = {"devices": dist.list_devices()}
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 8)).astype("float32")
ids = rng.integers(0, 12, size=(64, 1)).astype("int32")
y = rng.normal(size=(64, 4)).astype("float32")


def make():
    lamina.utils.set_random_seed(1)
    dense_in = lamina.Input((8,), name="features")
    id_in = lamina.Input((1,), dtype="int32", name="ids")
    emb = layers.Flatten()(layers.Embedding(12, 4, name="embedding")(id_in))
    h = layers.Dense(16, activation="relu", name="dense")(layers.Concatenate()([dense_in, emb]))
    out = layers.Dense(4, name="out")(h)
    model = lamina.Model([dense_in, id_in], out)
    model.compile(optimizer="adam", loss="mse", steps_per_execution=2)
    return model


def max_diff(a, b):
    return max(float(np.abs(p - q).max()) for p, q in zip(a.get_weights(), b.get_weights()))


reference = make()
reference.fit([x, ids], y, batch_size=16, epochs=2, verbose=0, shuffle=False)
ref_pred = reference.predict([x, ids], batch_size=16, verbose=0)

with dist.DataParallel().scope():
    model = make()
    found["dp_kernel_spec"] = str(model.get_layer("dense").kernel.value.sharding.spec)
    model.fit([x, ids], y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    found["dp_max_diff"] = max_diff(model, reference)
    found["dp_predict_diff"] = float(
        np.abs(model.predict([x, ids], batch_size=16, verbose=0) - ref_pred).max()
    )
    found["dp_eval"] = [
        model.evaluate([x, ids], y, batch_size=16, verbose=0),
        reference.evaluate([x, ids], y, batch_size=16, verbose=0),
    ]

# The *_on_batch methods split their batch too, and give the one-device numbers.
single = make()
single_logs = [single.train_on_batch([x[:16], ids[:16]], y[:16]) for _ in range(2)]
single_logs.append(single.test_on_batch([x[:16], ids[:16]], y[:16]))
single_out = single.predict_on_batch([x[:16], ids[:16]])
split_batches = []
real_distribute_data = lamina.backend.distribution.distribute_data


def counting(value, layout):
    split_batches.append(tuple(value.shape))
    return real_distribute_data(value, layout)


lamina.backend.distribution.distribute_data = counting
with dist.DataParallel().scope():
    on_batch = make()
    logs = [on_batch.train_on_batch([x[:16], ids[:16]], y[:16]) for _ in range(2)]
    logs.append(on_batch.test_on_batch([x[:16], ids[:16]], y[:16]))
    out = on_batch.predict_on_batch([x[:16], ids[:16]])
lamina.backend.distribution.distribute_data = real_distribute_data
found["on_batch_log_diff"] = float(np.abs(np.array(logs) - np.array(single_logs)).max())
found["on_batch_weight_diff"] = max_diff(on_batch, single)
found["on_batch_predict_diff"] = float(np.abs(out - single_out).max())
found["on_batch_split"] = len(split_batches)

mesh = dist.DeviceMesh((2, 2), ["batch", "model"])
layout_map = dist.LayoutMap(mesh)
layout_map["dense/kernel"] = (None, "model")
layout_map["embedding/embeddings"] = (None, "model")
layout_map["out/kernel"] = ("model", None)
layout_map["no_such_layer/.*"] = (None, "model")
# Split variables are made split: no whole value is handed over to be placed.
engine = lamina.backend.distribution
whole_values_placed = []


def spying(real):
    def spy(x, layout):
        if any(axis is not None for axis in layout.spec):
            whole_values_placed.append(tuple(x.shape))
        return real(x, layout)

    return spy


for name in ("distribute_variable", "distribute_tensor"):
    setattr(engine, name, spying(getattr(engine, name)))
fresh = make()
with dist.ModelParallel(layout_map=layout_map).scope():
    model = make()
    found["mp_whole_values_placed"] = list(whole_values_placed)
    found["mp_initial_diff"] = max_diff(model, fresh)
    found["mp_specs"] = {
        "dense": str(model.get_layer("dense").kernel.value.sharding.spec),
        "embedding": str(model.get_layer("embedding").embeddings.value.sharding.spec),
        "out": str(model.get_layer("out").kernel.value.sharding.spec),
        "bias": str(model.get_layer("dense").bias.value.sharding.spec),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit([x, ids], y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    found["mp_warnings"] = [str(w.message) for w in caught]
    found["mp_max_diff"] = max_diff(model, reference)
    found["mp_after_fit_spec"] = str(model.get_layer("dense").kernel.value.sharding.spec)
    found["mp_slot_spec"] = str(
        [v for v in model.optimizer.variables if v.shape == model.get_layer("dense").kernel.shape][
            0
        ].value.sharding.spec
    )
    path = os.path.join(tempfile.mkdtemp(), "mp.keras")
    model.save(path)

# An ordinary file: it loads on one device, and under a distribution it is resharded.
plain = lamina.saving.load_model(path)
found["plain_load_diff"] = max_diff(plain, model)
with dist.ModelParallel(layout_map=layout_map).scope():
    again = lamina.saving.load_model(path)
    found["reload_spec"] = str(again.get_layer("dense").kernel.value.sharding.spec)
    found["reload_diff"] = max_diff(again, model)

three = dist.LayoutMap(dist.DeviceMesh((3,), ["model"], dist.list_devices()[:3]))
three["dense/kernel"] = (None, "model")  # 16 columns cannot split over 3 devices
try:
    with dist.ModelParallel(layout_map=three).scope():
        make()
    found["indivisible_error"] = None
except ValueError as error:
    found["indivisible_error"] = str(error)
try:
    dist.TensorLayout(("batch", "nope"), mesh)
    found["unknown_axis_error"] = None
except ValueError as error:
    found["unknown_axis_error"] = str(error)


# Exact resume under DataParallel: interrupted mid-epoch, resumed from the backup.
class Interrupt(Exception):
    pass


class StopAt(lamina.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == (1, 1):
            raise Interrupt


backup_dir = os.path.join(tempfile.mkdtemp(), "backup")
with dist.DataParallel().scope():
    whole = make()
    whole.fit([x, ids], y, batch_size=16, epochs=3, verbose=0, shuffle=True)
    backup = lamina.callbacks.BackupAndRestore(backup_dir, save_freq=1)
    try:
        make().fit(
            [x, ids],
            y,
            batch_size=16,
            epochs=3,
            verbose=0,
            shuffle=True,
            callbacks=[backup, StopAt()],
        )
    except Interrupt:
        pass
    resumed = make()
    history = resumed.fit(
        [x, ids], y, batch_size=16, epochs=3, verbose=0, shuffle=True, callbacks=[backup]
    )
    found["resume_epochs_run"] = history.epoch
    found["resume_diff"] = max_diff(resumed, whole)
    found["resume_spec"] = str(resumed.get_layer("dense").kernel.value.sharding.spec)

# A LayoutMap rule for a layer's output ("<path>/output", Keras's form): a sharding
# constraint on that output inside the compiled step, the same numbers, no warning.
import jax  # noqa: E402

out_map = dist.LayoutMap(mesh)
out_map["d2/output"] = ("batch", None)
with dist.ModelParallel(layout_map=out_map, batch_dim_name="batch").scope():
    inputs = lamina.Input((8,))
    hidden = layers.Dense(6, name="d1")(inputs)
    constrained = lamina.Model(inputs, layers.Dense(4, name="d2")(hidden))
    values = [v.value for v in constrained.trainable_variables]
    step = jax.jit(lambda tv, data: constrained.stateless_call(tv, [], data)[0])
    lowered = step.lower(values, x[:8]).as_text()
    found["output_constraints"] = lowered.count("sharding_constraint") + lowered.count("@Sharding")
    constrained.compile(optimizer="sgd", loss="mse")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        constrained.fit(x, y, batch_size=16, epochs=1, verbose=0)
    found["output_rule_warnings"] = [
        str(w.message) for w in caught if "LayoutMap" in str(w.message)
    ]
    found["output_predict_diff"] = float(
        np.abs(constrained.predict(x, verbose=0) - constrained(x).__array__()).max()
    )

json.dump(found, sys.stdout)
