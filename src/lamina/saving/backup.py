"""Training backups for `BackupAndRestore`: one HDF5 file, replaced atomically.

The file holds the model's weights, the optimizer's and the metrics' variables, every
seed generator's state (all through the `.weights.h5` layout), plus where training was:
epoch, step within the epoch, and NumPy's generator state at the start of that epoch
(from which `fit` redraws the same data order).
"""

from __future__ import annotations

import contextlib
import json
import os

import numpy as np

from lamina.saving import weights_h5
from lamina.saving.atomic import atomic_write

BACKUP_FILE = "backup.h5"


def all_finite(model) -> bool:
    return all(np.all(np.isfinite(v.numpy())) for v in model.weights if "float" in v.dtype)


def write_backup(model, directory, meta: dict, rng_state) -> None:
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    os.makedirs(directory, exist_ok=True)
    with atomic_write(os.path.join(directory, BACKUP_FILE)) as tmp:
        with h5py.File(tmp, "w") as f:
            weights_h5.write_model(f, model)
            group = f.create_group("metrics").create_group("vars")
            for i, v in enumerate(v for m in model.metrics for v in m.variables):
                group.create_dataset(str(i), data=v.numpy())
            name, keys, pos, has_gauss, cached = rng_state
            f.create_dataset("rng_keys", data=np.asarray(keys))
            f.attrs["meta"] = json.dumps(
                {**meta, "rng": [name, int(pos), int(has_gauss), float(cached)]}
            )


def read_backup(model, directory):
    """Restore `model` from the backup in `directory`; returns `(meta, rng_state)` or None."""
    import h5py  # imported when used: it costs ~0.1 s at `import lamina`

    path = os.path.join(directory, BACKUP_FILE)
    if not os.path.exists(path):
        return None
    with h5py.File(path, "r") as f:
        weights_h5.read_model(f, model, restore_optimizer=True)
        metric_vars = [v for m in model.metrics for v in m.variables]
        stored = f.get("metrics/vars")
        if stored is not None and len(stored) == len(metric_vars):
            for i, v in enumerate(metric_vars):
                data = stored[str(i)]
                if tuple(data.shape) != tuple(v.shape):
                    raise ValueError(
                        f"Backup {path!r} holds shape {tuple(data.shape)} for metric variable "
                        f"{v.name!r} of shape {tuple(v.shape)}; it is from another model."
                    )
                v.assign(np.asarray(data))
        meta = json.loads(f.attrs["meta"])
        name, pos, has_gauss, cached = meta.pop("rng")
        rng_state = (name, np.asarray(f["rng_keys"], dtype=np.uint32), pos, has_gauss, cached)
    return meta, rng_state


def delete_backup(directory) -> None:
    """Remove the backup, if there: every process of a multi-process job deletes the
    one they share as its `fit` ends, and another may have removed it first."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(directory, BACKUP_FILE))
    try:
        os.rmdir(directory)
    except OSError:
        pass
