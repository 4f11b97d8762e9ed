"""Keras 3's unzipped model folder (`save_model(..., zipped=False)`): the parts of a
`.keras` archive (`config.json`, `metadata.json`, `model.weights.h5`, `assets/`) as
files in a folder. Written by unpacking the archive lamina builds, and read by packing
the folder's files back into an archive in memory, so both go through the same code
and checks as `.keras` files."""

from __future__ import annotations

import io
import os
import shutil
import zipfile

CONFIG = "config.json"


def is_model_folder(path) -> bool:
    """Whether `path` is a folder holding a model's `config.json` (Keras's test)."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, CONFIG))


def write(archive: bytes, dirpath: str, overwrite: bool) -> None:
    """Unpack the `.keras` archive `archive` into the folder `dirpath`, replacing it
    only once the new folder is complete."""
    if os.path.exists(dirpath):
        if not overwrite:
            raise FileExistsError(f"{dirpath!r} exists and overwrite=False.")
        if not is_model_folder(dirpath):
            raise ValueError(
                f"Cannot save the model folder to {dirpath!r}: it exists and is not a model "
                "folder (no config.json). Choose another path or remove it."
            )
    parent = os.path.dirname(os.path.abspath(dirpath)) or "."
    staging = os.path.join(parent, f".lamina-tmp-{os.getpid()}-{os.path.basename(dirpath)}")
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        zf.extractall(staging)  # lamina's own archive: names checked when it was made
    if os.path.exists(dirpath):
        shutil.rmtree(dirpath)
    os.replace(staging, dirpath)


def as_archive(dirpath: str, limit: int) -> zipfile.ZipFile:
    """The model folder's files packed into an in-memory `.keras` archive (files larger
    than `limit` bytes, and links, are refused)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for root, folders, files in os.walk(dirpath, followlinks=False):
            folders.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                inner = os.path.relpath(path, dirpath).replace(os.sep, "/")
                if os.path.islink(path):
                    raise ValueError(f"Cannot load {dirpath!r}: {inner!r} is a link.")
                if os.path.getsize(path) > limit:
                    raise ValueError(
                        f"Cannot load {dirpath!r}: {inner!r} is larger than {limit} bytes."
                    )
                zf.write(path, inner)
    buffer.seek(0)
    return zipfile.ZipFile(buffer)
