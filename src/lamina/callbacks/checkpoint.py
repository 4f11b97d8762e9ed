"""ModelCheckpoint: save the model or its weights during training."""

from __future__ import annotations

import os
import warnings

from lamina import backend
from lamina.callbacks.monitors import MonitorCallback


def _format_logs(logs) -> dict:
    # Scalars become floats so `{val_loss:.2f}` formats; anything else passes as is.
    out = {}
    for key, value in (logs or {}).items():
        if key == "outputs":
            continue
        array = backend.convert_to_numpy(value) if not isinstance(value, str) else None
        out[key] = float(array) if array is not None and array.ndim == 0 else value
    return out


def _failed_write_note(who: str, path: str, epoch: int) -> str:
    kept = (
        "the file there from before is unchanged" if os.path.exists(path) else "no file was written"
    )
    return (
        f"{who} could not write {path!r} at epoch {epoch + 1} ({kept}: saves replace "
        "files only once complete). Training stopped here; free disk space (or fix the "
        "path) and run fit again."
    )


class ModelCheckpoint(MonitorCallback):
    """Save the model (`.keras`) or its weights (`.weights.h5`) every epoch or N batches.

    `filepath` may hold `str.format` fields: `{epoch}` (1-based), `{batch}` (1-based,
    with an int `save_freq`) and any log name, e.g.
    `"ckpt/{epoch:02d}-{val_loss:.2f}.weights.h5"`. Missing directories are created.

    Args:
        filepath: where to save. With `save_weights_only=True`, a weights file as
            `model.save_weights` writes it: `.weights.h5` in Keras 3's layout, any other
            name but `.keras` (Keras 2's `weights.{epoch:02d}.hdf5`) in Keras 2's HDF5
            weights layout. Otherwise a whole model: `.keras`, or `.h5`/`.hdf5` for the
            legacy HDF5 format, as `model.save` writes it.
        monitor: the quantity compared with `save_best_only`.
        verbose: 1 prints a message at each save.
        save_best_only: save only when `monitor` improves on the best so far (with a
            fixed `filepath` the file always holds the best model).
        save_weights_only: save only the weights (`model.save_weights`), not the
            whole model (`model.save`).
        mode: `"min"`, `"max"` or `"auto"` (max for accuracy-like names).
        save_freq: `"epoch"`, or an int: save after every that many batches (counted
            across epochs).
        initial_value_threshold: with `save_best_only`, the value the first saved
            model must beat.

    >>> ModelCheckpoint("best.keras", monitor="val_accuracy", save_best_only=True).mode
    'max'
    """

    def __init__(
        self,
        filepath,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq="epoch",
        initial_value_threshold: float | None = None,
    ):
        super().__init__(monitor, mode)
        self.filepath = os.fspath(filepath)
        # Weights go wherever `save_weights` puts them: `.weights.h5` in Keras 3's layout,
        # any other name (Keras 2's `weights.{epoch:02d}.hdf5`) in Keras 2's HDF5 layout.
        if save_weights_only and self.filepath.endswith(".keras"):
            raise ValueError(
                "With save_weights_only=True, ModelCheckpoint writes a weights file; "
                f"received filepath={self.filepath!r}, the name of a whole-model `.keras` "
                "file. Use a `.weights.h5` path (Keras 3's layout) or, say, `.h5` (Keras "
                "2's), or save the whole model with save_weights_only=False."
            )
        # `x.weights.h5` without save_weights_only is refused (Keras would write a whole
        # legacy model under a weights-file name, which `load_weights` then misreads).
        if not save_weights_only and (
            not self.filepath.endswith((".keras", ".h5", ".hdf5"))
            or self.filepath.endswith(".weights.h5")
        ):
            raise ValueError(
                "ModelCheckpoint saves whole models to `.keras` files (or `.h5`/`.hdf5`, "
                "the legacy HDF5 format, as `model.save` does); received "
                f"filepath={self.filepath!r}. Use a `.keras` path, or save_weights_only=True "
                "to save the weights alone."
            )
        if save_freq != "epoch" and not (
            isinstance(save_freq, int) and not isinstance(save_freq, bool) and save_freq > 0
        ):
            raise ValueError(
                f"ModelCheckpoint save_freq must be 'epoch' or a positive int (a number of "
                f"batches); received save_freq={save_freq!r}."
            )
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.best = initial_value_threshold
        self._current_epoch = 0
        self._batches_since_save = 0
        self._last_batch_seen = None

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        # With steps_per_execution the hook runs once per chunk, its index the chunk's
        # last batch: count the batches it covers. A smaller index means a new epoch.
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            covered = batch + 1
        else:
            covered = batch - self._last_batch_seen
        self._last_batch_seen = batch
        self._batches_since_save += covered
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            return True
        return False

    def _file_path(self, epoch: int, batch, logs: dict) -> str:
        fields = dict(logs)
        fields["epoch"] = epoch + 1
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as err:
            raise KeyError(
                f"ModelCheckpoint could not format filepath {self.filepath!r}: it refers to "
                f"{err}, which is not in the logs (available: {sorted(fields)})."
            ) from err

    def _should_save(self, epoch: int, logs: dict, path: str) -> bool:
        # Messages start with a newline, as Keras's do: the progress bar's line is
        # still open when epoch-end callbacks run (they come before the bar).
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {path}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"ModelCheckpoint can save the best model only with {self.monitor!r} in the "
                f"logs (available: {sorted(logs)}); saving this one unconditionally.",
                stacklevel=3,
            )
            return True
        if not isinstance(current, float):
            warnings.warn(
                f"ModelCheckpoint can compare only a scalar {self.monitor!r}; saving "
                "unconditionally.",
                stacklevel=3,
            )
            return True
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                best = "None" if self.best is None else f"{self.best:.5f}"
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                    f"{current:.5f}, saving model to {path}"
                )
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
        return False

    def _save(self, epoch: int, batch, logs) -> None:
        logs = _format_logs(logs)
        path = self._file_path(epoch, batch, logs)
        if not self._should_save(epoch, logs, path):
            return
        if os.path.isdir(path):
            raise IsADirectoryError(
                f"ModelCheckpoint filepath {path!r} is an existing directory; give a file path."
            )
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        try:
            if self.save_weights_only:
                self.model.save_weights(path, overwrite=True)
            else:
                self.model.save(path, overwrite=True)
        except OSError as error:  # a full disk, a lost mount: say what it means here
            error.add_note(_failed_write_note("ModelCheckpoint", path, epoch))
            raise
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {path}")
