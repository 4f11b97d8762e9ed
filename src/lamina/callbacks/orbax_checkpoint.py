"""`OrbaxCheckpoint`: save the model's state with Orbax, JAX's checkpoint library, as
Keras 3's callback does, in the layout Keras 3 reads back (`keras.saving.load_model` or
`load_weights` on the folder) and lamina reads too (`lamina.saving.load_model`).

Each save is one numbered step in `directory` (the epoch, or with an integer
`save_freq` the count of batches seen) holding the model's state tree
(`model.get_state_tree()`) and, unless `save_weights_only`, its config. Orbax is an
optional extra: `pip install orbax-checkpoint` (or `pip install "lamina[orbax]"`); it
writes JAX arrays, so on the torch engine the state goes through NumPy.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from lamina import backend
from lamina.callbacks.monitors import MonitorCallback
from lamina.common.orbax_module import orbax_v1


def _host_tree(tree):
    """The state tree as NumPy arrays and Python scalars (what Orbax takes from any
    engine; on JAX the engine's arrays go as they are)."""
    if isinstance(tree, dict):
        return {key: _host_tree(value) for key, value in tree.items()}
    value = np.asarray(tree)
    return value.item() if value.ndim == 0 else value


class OrbaxCheckpoint(MonitorCallback):
    """Save the model's state with Orbax at the end of every epoch, or every
    `save_freq` batches.

    Args:
        directory: the folder of checkpoints (one numbered step folder per save).
        monitor: the logged quantity `save_best_only` compares, `"val_loss"` by default.
        verbose: 1 prints a line per save.
        save_best_only: save only when `monitor` improves on the best value so far.
        mode: `"min"`, `"max"` or `"auto"` (from the name of `monitor`).
        save_freq: `"epoch"`, or a number of batches between saves.
        initial_value_threshold: with `save_best_only`, the value to beat first.
        max_to_keep: how many of the latest checkpoints to keep (None: all).
        save_on_background: save asynchronously while training goes on; training
            waits for the saves at its end (`wait_until_finished` waits earlier).
        save_weights_only: store the state tree only, not the model's config (load
            it with `load_weights` into a model built the same way).

    >>> import os, tempfile
    >>> import numpy as np
    >>> import lamina
    >>> tmp = tempfile.TemporaryDirectory()
    >>> model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> checkpoint = lamina.callbacks.OrbaxCheckpoint(os.path.join(tmp.name, "ckpt"))
    >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[checkpoint])
    >>> sorted(os.listdir(os.path.join(tmp.name, "ckpt")))  # max_to_keep=1: the last epoch's step
    ['1']
    >>> restored = lamina.saving.load_model(os.path.join(tmp.name, "ckpt"))
    >>> all(np.allclose(a, b) for a, b in zip(restored.get_weights(), model.get_weights()))
    True
    >>> tmp.cleanup()
    """

    def __init__(
        self,
        directory,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
        max_to_keep=1,
        save_on_background=True,
        save_weights_only=False,
    ):
        ocp = orbax_v1(
            "OrbaxCheckpoint", "`ModelCheckpoint` saves `.keras` / `.weights.h5` files without it."
        )
        super().__init__(monitor, mode)
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(
                f"Unrecognized save_freq: {save_freq!r}. Expected save_freq are 'epoch' or "
                "integer values"
            )
        self.directory = str(directory)
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_freq = save_freq
        self.max_to_keep = max_to_keep
        self.save_on_background = save_on_background
        self.save_weights_only = save_weights_only
        self.best = initial_value_threshold
        self._batches_since_save = 0
        self._last_batch = None
        self._total_batches = 0
        self._futures: list = []
        self._ocp = ocp
        policies = ocp.training.preservation_policies
        self.checkpointer = ocp.training.Checkpointer(
            directory=self.directory,
            preservation_policy=None if max_to_keep is None else policies.LatestN(max_to_keep),
            # Every save asked for is taken (Orbax's default policy skips some).
            save_decision_policy=ocp.training.save_decision_policies.FixedIntervalPolicy(1),
        )

    def set_model(self, model):
        super().set_model(model)
        optimizer = getattr(model, "optimizer", None)
        if optimizer is not None:
            # A model loaded from a checkpoint continues its count of batches.
            self._total_batches = int(np.asarray(optimizer.iterations.numpy()))

    # Keras's multi-host queries: lamina saves from one process.
    def is_multihost_enabled(self):
        """Whether checkpoints are written from several hosts (never, here)."""
        return False

    def is_primary_host(self):
        """Whether this process writes the checkpoints (always, here)."""
        return True

    def _improved(self, logs, when: str) -> bool:
        if not self.save_best_only:
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"Can save best model only with {self.monitor} available, skipping save at {when}.",
                stacklevel=3,
            )
            return False
        current = float(np.asarray(current))
        if not self._is_improvement(current, self.best):
            return False
        self.best = current
        return True

    def _save(self, step: int) -> None:
        model = self.model
        if backend.backend() == "jax":
            state = model.get_state_tree()
        else:
            state = _host_tree(model.get_state_tree(value_format="numpy_array"))
        if self.save_weights_only:
            state = {key: state[key] for key in ("trainable_variables", "non_trainable_variables")}
        payload = {"pytree": state}
        if not self.save_weights_only:
            payload["model_config"] = {"config": json.dumps(model._saved_config())}
        with self._ocp.Context():
            if self.save_on_background:
                self._futures.append(self.checkpointer.save_checkpointables_async(step, payload))
            else:
                self.checkpointer.save_checkpointables(step, payload)
        if self.verbose:
            print(f"OrbaxCheckpoint: saved step {step} to {self.directory}")

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        added = (
            batch + 1
            if self._last_batch is None or batch <= self._last_batch
            else (batch - self._last_batch)
        )
        self._last_batch = batch
        self._batches_since_save += added
        self._total_batches += added
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            if self._improved(logs, f"batch {batch}"):
                self._save(self._total_batches)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch" and self._improved(logs, f"epoch {epoch}"):
            self._save(epoch)

    def on_train_end(self, logs=None):
        # Closing waits for the saves still running.
        try:
            self.checkpointer.close()
        except Exception:  # noqa: BLE001 - Keras ignores errors while closing too
            pass

    def wait_until_finished(self):
        """Block until every checkpoint being written in the background is written."""
        for future in self._futures:
            future.result()
        self._futures.clear()
        self.checkpointer.wait()


__all__ = ["OrbaxCheckpoint"]
