"""Data and model parallelism with `lamina.distribution`, runnable on a laptop.

On a machine without several accelerators, JAX can pretend: the flag below splits the CPU
into 4 devices (they share the same cores, so this shows the mechanics, not a speed-up).
On a machine with 4 GPUs, drop the flag; the rest is the same program.

    python examples/distributed.py

Several processes (one per host, or per GPU) run the same program after
`lamina.distribution.initialize()`, which reads the coordinator address, the process
count and this process's id from its arguments or from the environment variables Keras
reads (`KERAS_DISTRIBUTION_JOB_ADDRESSES`, `KERAS_DISTRIBUTION_NUM_PROCESSES`,
`KERAS_DISTRIBUTION_PROCESS_ID`). Each process then feeds its own rows of every global
batch. On PyTorch (`LAMINA_BACKEND=torch`), `DataParallel` runs across processes started
by `torchrun` (gloo on CPU, nccl on GPU); `ModelParallel` is JAX-only for now.
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("LAMINA_BACKEND", "jax")

import numpy as np  # noqa: E402

import lamina  # noqa: E402
from lamina import distribution, layers  # noqa: E402


def make_model():
    lamina.utils.set_random_seed(0)
    inputs = lamina.Input((32,), name="features")
    hidden = layers.Dense(64, activation="relu", name="hidden")(inputs)
    outputs = layers.Dense(10, name="logits")(hidden)
    model = lamina.Model(inputs, outputs)
    model.compile(
        optimizer="adam",
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def main():
    devices = distribution.list_devices()
    print(f"devices: {devices}")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1024, 32)).astype("float32")
    y = (x[:, :10].argmax(axis=1)).astype("int32")

    # Data parallelism: every device holds all the weights and takes a slice of each batch.
    with distribution.DataParallel(devices=devices).scope():
        model = make_model()
        model.fit(x, y, batch_size=64, epochs=3, verbose=2)

    # Model parallelism: a 2 x 2 mesh; batches split over "batch", the kernels' columns
    # (or rows) over "model". Rules are regular expressions matched against whole
    # variable paths ("layer name/weight name"); a rule that matches nothing warns.
    mesh = distribution.DeviceMesh((2, 2), ["batch", "model"], devices)
    layout_map = distribution.LayoutMap(mesh)
    layout_map["hidden/kernel"] = (None, "model")
    layout_map["logits/kernel"] = ("model", None)
    with distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch").scope():
        model = make_model()
        kernel = model.get_layer("hidden").kernel
        print(f"hidden/kernel {kernel.shape} is laid out as {kernel.value.sharding.spec}")
        model.fit(x, y, batch_size=64, epochs=3, verbose=2)
        loss, accuracy = model.evaluate(x, y, batch_size=64, verbose=0)
        print(f"loss {loss:.4f}, accuracy {accuracy:.3f}")
        # Saving gathers the parts into an ordinary .keras file, which loads anywhere.
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed.keras")
        model.save(path)
    plain = lamina.saving.load_model(path)
    gap = np.abs(plain.predict(x[:8], verbose=0) - model.predict(x[:8], verbose=0)).max()
    print(f"reloaded on one device: predictions differ by at most {gap:.1e}")
    os.remove(path)


if __name__ == "__main__":
    main()
