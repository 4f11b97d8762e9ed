"""BackupAndRestore: resume an interrupted `fit` exactly where it stopped."""

from __future__ import annotations

import os
import warnings

import numpy as np

from lamina.callbacks.callback import Callback


class BackupAndRestore(Callback):
    """Back up training state so a killed run, started again, resumes where it stopped.

    The backup holds weights, optimizer and metric state, seed-generator state, the epoch
    and the step within it, and the data order; running the same `fit` again after the
    process died continues from the last backup and ends with the same weights as an
    uninterrupted run. Backups of non-finite weights are never written. With a generator
    or `PyDataset` the resumed run skips the batches the interrupted epoch had trained,
    so the data must come in the same order when started again (arrays are redrawn in
    the recorded order). Metrics continue from the backup mid-epoch and start afresh at
    an epoch's start.

    Args:
        backup_dir: directory for the backup file (one per run).
        save_freq: `"epoch"` or an int: back up every that many batches.
        delete_checkpoint: delete the backup when training finishes normally.
    """

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(
                f"save_freq must be 'epoch' or a positive int; received {save_freq!r}."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self._batches = 0
        self._epoch = 0

    def on_train_begin(self, logs=None):
        self._batches = 0
        self.model._restore_backup(self.backup_dir)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches += 1
        if self._batches % self.save_freq == 0:
            self._save(self._epoch, batch + 1, self.model._epoch_rng_state)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0, np.random.get_state())

    def _save(self, epoch, step, rng_state):
        try:
            written = self.model._write_backup(self.backup_dir, epoch, step, rng_state)
        except OSError as error:  # a full disk: the previous backup is still whole
            error.add_note(
                f"BackupAndRestore could not write its backup in {self.backup_dir!r} "
                f"(epoch {epoch}, step {step}); the previous backup there, if any, is "
                "unchanged (backups replace it only once complete), so running fit again "
                "with this callback resumes from it. Free disk space and run fit again."
            )
            raise
        if not written:
            warnings.warn(
                f"BackupAndRestore: the weights are not finite at epoch {epoch}, step {step}; "
                "keeping the previous backup.",
                stacklevel=2,
            )

    def on_train_end(self, logs=None):
        if not self.delete_checkpoint or getattr(self.model, "_failed", False):
            return
        if not all(np.isfinite(w).all() for w in self.model.get_weights()):
            # Training ended on NaN/inf weights (TerminateOnNaN's graceful stop): the
            # backup holds the last finite ones, the only good copy left.
            warnings.warn(
                "BackupAndRestore: training ended with non-finite weights, so the backup "
                f"in {self.backup_dir!r} (the last finite weights) is kept rather than "
                "deleted; fit again with this callback to resume from it.",
                stacklevel=2,
            )
            return
        self.model._delete_backup(self.backup_dir)
