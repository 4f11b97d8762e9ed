"""Atomic file writes: write beside the target, flush to disk, rename into place.

Every file lamina saves (`.keras`, `.weights.h5`, training backups) goes through
`atomic_write`: the data is written to a hidden temporary file in the target's
directory, fsync'd, given the permissions a plain `open(path, "w")` would give (mode
0o666 less the umask, not `mkstemp`'s 0o600), and renamed over the target with
`os.replace`. A crash or an exception at any point leaves the previous file
byte-identical and removes the temporary file.
"""

from __future__ import annotations

import contextlib
import os
import secrets

TEMP_PREFIX = ".tmp-lamina-"


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; not possible on every platform (e.g. Windows).
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(filepath):
    """Yield a temporary path beside `filepath`; on success it replaces `filepath`.

    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "demo.txt"
    >>> with atomic_write(target) as tmp:
    ...     _ = pathlib.Path(tmp).write_text("hello")
    >>> target.read_text()
    'hello'
    """
    filepath = os.fspath(filepath)
    directory = os.path.dirname(os.path.abspath(filepath))
    name = f"{TEMP_PREFIX}{secrets.token_hex(8)}-{os.path.basename(filepath)}"
    tmp = os.path.join(directory, name)
    # O_EXCL: never reuse or follow an existing path; mode 0o666 lets the umask decide.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, filepath)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(error, OSError) and os.path.exists(filepath):
            error.add_note(
                f"Writing {filepath!r} did not finish; the file there from before is "
                "unchanged (it is replaced only by a complete file)."
            )
        elif isinstance(error, OSError):
            error.add_note(f"Writing {filepath!r} did not finish; no file was left there.")
        raise
    _fsync_directory(directory)
