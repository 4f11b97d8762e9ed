"""`get_file`: download a file once into a local cache, check its hash, unpack archives.

The cache is laid out as Keras 3 lays it out, so a cache that Keras filled is reused:
`<cache root>/<cache_subdir>/<fname>`, where the cache root is the `cache_dir`
argument, else `$LAMINA_HOME`, else `$KERAS_HOME`, else `~/.keras` (Keras's own
default), and `/tmp/.keras` when that folder cannot be written (as Keras does).

Downloads are atomic: bytes go to a hidden temporary file in the target's folder and
are renamed over the target (`os.replace`) only once complete and, when a hash was
given, verified. An error or Ctrl-C mid-download removes the temporary file and leaves
any file already in the cache untouched.

Archives (zip, tar, tar.gz/.bz2/.xz) are checked before anything is written: every
member must be a plain relative name (no absolute path, no `..`), links must point
inside the extraction folder, device files and fifos are refused, and the member
count and total unpacked size are bounded (`MAX_ARCHIVE_MEMBERS`,
`MAX_EXTRACTED_BYTES`, `MAX_COMPRESSION_RATIO`). Unpacking goes to a temporary folder
that is renamed into place when complete. A refused archive raises a `ValueError`
naming the archive and the member.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import posixpath
import re
import secrets
import shutil
import stat
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile

from lamina.common import io_utils

# Limits on what an archive may unpack to; raise them (module attributes) for a bigger
# trusted archive. The ratio bound (the `.keras` loader uses the same 200:1) applies
# only past RATIO_CHECK_MIN_BYTES, so small, very compressible archives pass.
MAX_ARCHIVE_MEMBERS = 1_000_000
MAX_EXTRACTED_BYTES = 64 * 1024**3
MAX_COMPRESSION_RATIO = 200
RATIO_CHECK_MIN_BYTES = 256 * 1024**2

TEMP_PREFIX = ".tmp-lamina-"
CHUNK_BYTES = 1 << 16
_DRIVE = re.compile(r"^[A-Za-z]:")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def path_to_string(path):
    """Return `os.fspath(path)` for path-like objects, anything else unchanged."""
    if isinstance(path, os.PathLike):
        return os.fspath(path)
    return path


def cache_root(cache_dir=None) -> str:
    """The folder `get_file` caches under: `cache_dir`, else `$LAMINA_HOME`, else
    `$KERAS_HOME`, else `~/.keras`; `/tmp/.keras` when that cannot be written.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> cache_root(folder) == folder
    True
    """
    if cache_dir is None:
        cache_dir = (
            os.environ.get("LAMINA_HOME")
            or os.environ.get("KERAS_HOME")
            or os.path.join(os.path.expanduser("~"), ".keras")
        )
    root = os.path.expanduser(path_to_string(cache_dir))
    with contextlib.suppress(OSError):
        os.makedirs(root, exist_ok=True)
    if not os.access(root, os.W_OK):
        root = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    return root


def _resolve_algorithm(algorithm, file_hash=None) -> str:
    if algorithm in ("sha256", "md5"):
        return algorithm
    if algorithm == "auto":
        return "sha256" if file_hash is not None and len(str(file_hash)) == 64 else "md5"
    raise ValueError(f"hash_algorithm must be 'auto', 'sha256' or 'md5'; received {algorithm!r}.")


def hash_file(fpath, algorithm: str = "sha256", chunk_size: int = 65535) -> str:
    """The hex digest of a file's bytes, by `"sha256"` (default) or `"md5"`.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "empty")
    >>> open(path, "wb").close()
    >>> hash_file(path)
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    hasher = hashlib.new(_resolve_algorithm(algorithm))
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm: str = "auto", chunk_size: int = 65535) -> bool:
    """Whether the file's sha256/md5 digest equals `file_hash` (`"auto"`: sha256 for a
    64-character hash, md5 otherwise)."""
    algorithm = _resolve_algorithm(algorithm, file_hash)
    return hash_file(fpath, algorithm, chunk_size) == str(file_hash).lower()


def get_file(
    fname=None,
    origin=None,
    untar=False,
    md5_hash=None,
    file_hash=None,
    cache_subdir="datasets",
    hash_algorithm="auto",
    extract=False,
    archive_format="auto",
    cache_dir=None,
    force_download=False,
):
    """Download a file from a URL unless it is already in the cache; return its path.

    The file at `origin` lands in `<cache root>/<cache_subdir>/<fname>`. The cache root
    is `cache_dir`, else `$LAMINA_HOME`, else `$KERAS_HOME`, else `~/.keras` — Keras's
    own location, so files Keras downloaded are found and reused — or `/tmp/.keras`
    when that folder cannot be written. `http(s)://` and `file://` origins are read
    with `urllib`. The download is atomic: nothing appears at the target until every
    byte arrived (and matched `file_hash`); an error or Ctrl-C leaves no partial file.

    With `extract=True` the archive is unpacked and the extraction folder is returned,
    named as Keras 3 names it: for `fname="data.tar.gz"` the archive is kept as
    `data.tar.gz` and unpacked into `data_extracted/`; for `fname="data"` (no dot)
    the archive is `data_archive` and the folder `data/`; with no `fname` the URL's
    file name is used as the folder name and the archive gets `_archive` appended.
    Unpacking is safe (see the module docstring): an archive whose members would land
    outside the folder, links out, device files or fifos, or too much data is refused.
    A folder already unpacked is reused unless the archive was downloaded again.

    Args:
        fname: local file name; `None` takes it from `origin`. Not a path: use
            `cache_dir`/`cache_subdir` to choose the folder.
        origin: URL of the file (`https://...`, `http://...`, `file://...`).
        untar: deprecated form of `extract=True` for tar archives.
        md5_hash: deprecated form of `file_hash` with `hash_algorithm="md5"`.
        file_hash: expected sha256 or md5 hex digest. A cached file that does not
            match is downloaded again; a download that does not match is refused
            (`ValueError`) and the cache is left as it was.
        cache_subdir: folder under the cache root (an absolute path is used as is).
        hash_algorithm: `"auto"` (sha256 for a 64-character hash, else md5),
            `"sha256"` or `"md5"`.
        extract: whether to unpack the downloaded archive.
        archive_format: `"auto"` (`["tar", "zip"]`), `"tar"`, `"zip"`, a list of
            those, or `None`.
        cache_dir: cache root; see above. A folder that does not exist yet is created
            (Keras would instead fall back to `/tmp/.keras`).
        force_download: download even when the file is cached.

    Returns:
        The path of the file, or of the extraction folder when `extract` is true.

    >>> import os, pathlib, tempfile
    >>> src = pathlib.Path(tempfile.mkdtemp()) / "hello.txt"
    >>> _ = src.write_text("hi")
    >>> path = get_file(origin=src.as_uri(), cache_dir=tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Downloading data from file://...
    >>> pathlib.Path(path).read_text(), os.path.basename(path)
    ('hi', 'hello.txt')
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (the URL of the file to download).')
    origin = path_to_string(origin)
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    if file_hash is not None:
        _resolve_algorithm(hash_algorithm, file_hash)  # refuse an unknown name early

    datadir = os.path.join(cache_root(cache_dir), path_to_string(cache_subdir))
    os.makedirs(datadir, exist_ok=True)

    provided_fname = fname
    fname = path_to_string(fname)
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Cannot take a file name from origin {origin!r}; pass `fname=`.")
    elif os.sep in fname or "/" in fname or fname in (".", ".."):
        raise ValueError(
            "`fname` is a file name, not a path: choose the folder with `cache_dir` "
            f"(and `cache_subdir`). Received: fname={fname!r}"
        )

    if extract or untar:
        if provided_fname and "." in fname:
            download_target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, f"{fname[: fname.find('.')]}_extracted")
        else:
            extraction_dir = os.path.join(datadir, fname)
            download_target = os.path.join(datadir, f"{fname}_archive")
    else:
        download_target = os.path.join(datadir, fname)

    if force_download or not os.path.exists(download_target):
        download = True
    else:
        download = False
        if file_hash is not None and not validate_file(download_target, file_hash, hash_algorithm):
            algorithm = _resolve_algorithm(hash_algorithm, file_hash)
            io_utils.print_msg(
                f"A local file was found at {download_target}, but its {algorithm} hash "
                f"does not match the expected {file_hash}, so it will be downloaded again."
            )
            download = True

    if download:
        io_utils.print_msg(f"Downloading data from {origin}")
        tmp = _download(origin, download_target)
        try:
            if file_hash is not None:
                algorithm = _resolve_algorithm(hash_algorithm, file_hash)
                actual = hash_file(tmp, algorithm)
                if actual != str(file_hash).lower():
                    raise ValueError(
                        f"The file downloaded from {origin} for {download_target} is "
                        f"incomplete or corrupted: its {algorithm} hash is {actual}, expected "
                        f"{file_hash}. The cache was left as it was; check the URL and "
                        "the expected hash."
                    )
            os.replace(tmp, download_target)
        finally:
            with contextlib.suppress(OSError):
                os.remove(tmp)

    if extract or untar:
        if untar:
            archive_format = "tar"
        if download or not os.path.isdir(extraction_dir):
            if not extract_archive(download_target, extraction_dir, archive_format):
                warnings.warn(
                    f"Could not extract {download_target}: it is not a {archive_format!r} archive.",
                    stacklevel=2,
                )
        return extraction_dir
    return download_target


def _download(origin: str, target: str) -> str:
    """Fetch `origin` into a new hidden file beside `target`; return its path. On any
    error (or KeyboardInterrupt) the partial file is removed and the error re-raised."""
    directory, base = os.path.split(target)
    tmp = os.path.join(directory, f"{TEMP_PREFIX}{secrets.token_hex(8)}-{base}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                response = urllib.request.urlopen(origin)  # noqa: S310 (file:// is intended)
            except urllib.error.HTTPError as e:
                raise OSError(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from e
            except urllib.error.URLError as e:
                raise OSError(f"URL fetch failure on {origin}: {e.errno} -- {e.reason}") from e
            except ValueError as e:
                raise ValueError(
                    f"Cannot download {origin!r}: {e}. Pass a URL such as 'https://...' or "
                    "'file:///absolute/path'."
                ) from e
            with response:
                length = response.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                progbar = _progbar(total)
                received = 0
                try:
                    while chunk := response.read(CHUNK_BYTES):
                        out.write(chunk)
                        received += len(chunk)
                        if progbar is not None:
                            progbar.update(received)
                except (http.client.HTTPException, OSError) as e:
                    raise OSError(
                        f"URL fetch failure on {origin}: the connection broke after "
                        f"{received} bytes ({type(e).__name__}: {e})."
                    ) from e
                if total is not None and received < total:
                    raise OSError(
                        f"URL fetch failure on {origin}: received {received} of {total} bytes."
                    )
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    return tmp


def _progbar(total):
    if not io_utils.is_interactive_logging_enabled():
        return None
    from lamina.callbacks.progbar import Progbar  # callbacks sit above utils

    return Progbar(total)


# ----------------------------------------------------------------------------- archives


def _refuse(archive, member, why):
    raise ValueError(
        f"Refusing to extract {archive!r}: member {member!r} {why}. The archive may be "
        "malicious or corrupted; nothing was extracted."
    )


def _member_parts(archive, name: str) -> list[str]:
    """The path components of a member name, refusing anything but a plain relative
    path (no absolute path, drive letter, backslash, NUL or `..`)."""
    if not name or "\x00" in name:
        _refuse(archive, name, "has an empty or NUL-containing name")
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        _refuse(archive, name, "has an absolute path")
    if "\\" in name:
        _refuse(archive, name, "has a backslash in its name (a Windows path separator)")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        _refuse(archive, name, "contains '..' (it would land outside the extraction folder)")
    return parts


def _link_parts(archive, name, parts, linkname, relative_to_member: bool) -> list[str]:
    """Components of a link target, relative to the extraction root; refuse a target
    outside it. Symlinks resolve from the member's folder, hard links from the root."""
    if not linkname or linkname.startswith(("/", "\\")) or _DRIVE.match(linkname):
        _refuse(archive, name, f"is a link to {linkname!r}, outside the extraction folder")
    base = "/".join(parts[:-1]) if relative_to_member else ""
    joined = posixpath.normpath(posixpath.join(base, linkname))
    if joined == ".." or joined.startswith("../") or "\\" in linkname:
        _refuse(archive, name, f"is a link to {linkname!r}, outside the extraction folder")
    return [p for p in joined.split("/") if p not in ("", ".")]


def _plan_tar(tf: tarfile.TarFile, archive: str) -> list:
    plan, total, count = [], 0, 0
    for member in tf:
        count += 1
        if count > MAX_ARCHIVE_MEMBERS:
            _refuse(archive, member.name, f"is past the limit of {MAX_ARCHIVE_MEMBERS} members")
        parts = _member_parts(archive, member.name)
        if member.isdir():
            plan.append(("dir", parts, member, None))
        elif member.isreg():
            total += member.size
            plan.append(("file", parts, member, None))
        elif member.issym():
            _link_parts(archive, member.name, parts, member.linkname, True)
            plan.append(("symlink", parts, member, member.linkname))
        elif member.islnk():
            link = _link_parts(archive, member.name, parts, member.linkname, False)
            plan.append(("hardlink", parts, member, link))
        else:
            _refuse(archive, member.name, "is a device file, fifo or other special file")
        if not parts and not member.isdir():
            _refuse(archive, member.name, "has no file name")
    _check_size(archive, total)
    return plan


def _plan_zip(zf: zipfile.ZipFile, archive: str) -> list:
    infos = zf.infolist()
    if len(infos) > MAX_ARCHIVE_MEMBERS:
        _refuse(
            archive,
            infos[MAX_ARCHIVE_MEMBERS].filename,
            f"is past the limit of {MAX_ARCHIVE_MEMBERS} members",
        )
    plan, total = [], 0
    for info in infos:
        parts = _member_parts(archive, info.filename)
        mode = info.external_attr >> 16
        if info.is_dir():
            plan.append(("dir", parts, info, None))
            continue
        if not parts:
            _refuse(archive, info.filename, "has no file name")
        if mode and stat.S_ISLNK(mode):
            if info.file_size > 4096:
                _refuse(archive, info.filename, "is a link with an oversized target")
            target = zf.read(info).decode("utf-8", "replace")
            _link_parts(archive, info.filename, parts, target, True)
            plan.append(("symlink", parts, info, target))
            continue
        if mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
            _refuse(archive, info.filename, "is a device file, fifo or other special file")
        if info.file_size > RATIO_CHECK_MIN_BYTES and info.file_size > MAX_COMPRESSION_RATIO * max(
            info.compress_size, 1
        ):
            _refuse(
                archive,
                info.filename,
                f"has compression ratio {info.file_size / max(info.compress_size, 1):.0f}:1 "
                f"(limit {MAX_COMPRESSION_RATIO}:1); it looks like a zip bomb",
            )
        total += info.file_size
        plan.append(("file", parts, info, None))
    _check_size(archive, total)
    return plan


def _check_size(archive, total):
    if total > MAX_EXTRACTED_BYTES:
        raise ValueError(
            f"Refusing to extract {archive!r}: it would unpack to {total} bytes (limit "
            f"{MAX_EXTRACTED_BYTES}; raise lamina.utils.file_utils.MAX_EXTRACTED_BYTES for a "
            "larger trusted archive)."
        )
    size = os.path.getsize(archive)
    if total > RATIO_CHECK_MIN_BYTES and total > MAX_COMPRESSION_RATIO * max(size, 1):
        raise ValueError(
            f"Refusing to extract {archive!r}: {size} bytes would unpack to {total} bytes "
            f"(ratio over {MAX_COMPRESSION_RATIO}:1); it looks like an archive bomb."
        )


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def _write_plan(archive, plan, root, open_member):
    """Create the planned members under `root` (a fresh, real folder). Every write goes
    to a path whose folders are real folders inside `root` (never through a link), and
    every link is checked against the files as they are on disk at that moment."""
    for kind, parts, member, link in plan:
        name = getattr(member, "name", None) or member.filename
        target = os.path.join(root, *parts)
        parent = os.path.dirname(target) if parts else root
        os.makedirs(parent, exist_ok=True)
        if os.path.realpath(parent) != os.path.normpath(parent):
            _refuse(archive, name, "would be written through a link")
        if kind == "dir":
            if os.path.lexists(target) and not os.path.isdir(target):
                os.unlink(target)
            os.makedirs(target, exist_ok=True)
            continue
        if os.path.lexists(target):
            if os.path.isdir(target) and not os.path.islink(target):
                _refuse(archive, name, "replaces a folder of the same name")
            os.unlink(target)
        if kind == "file":
            is_tar = isinstance(member, tarfile.TarInfo)
            limit = member.size if is_tar else member.file_size
            bits = member.mode if is_tar else member.external_attr >> 16
            mode = 0o777 if bits & 0o111 else 0o666  # the umask decides the rest
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
            with os.fdopen(fd, "wb") as out, open_member(member) as src:
                written = 0
                while chunk := src.read(CHUNK_BYTES):
                    written += len(chunk)
                    if written > limit:
                        _refuse(
                            archive, name, f"holds more data than the {limit} bytes it declares"
                        )
                    out.write(chunk)
        elif kind == "symlink":
            linkname = link
            resolved = os.path.realpath(os.path.join(parent, linkname))
            if not _inside(root, resolved):
                _refuse(archive, name, f"is a link to {linkname!r}, outside the extraction folder")
            os.symlink(linkname, target)
        else:  # hard link: a copy of a file already extracted inside the folder
            source = os.path.realpath(os.path.join(root, *link))
            if not _inside(root, source) or not os.path.isfile(source):
                _refuse(archive, name, "is a hard link to a file that is not inside the archive")
            shutil.copyfile(source, target)


def _archive_kinds(archive_format):
    if archive_format is None:
        return []
    if archive_format == "auto":
        return ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    kinds = list(archive_format)
    for kind in kinds:
        if kind not in ("tar", "zip"):
            raise ValueError(
                f"archive_format must be 'auto', 'tar', 'zip', a list of those, or None; "
                f"received {archive_format!r}."
            )
    return kinds


def extract_archive(file_path, path=".", archive_format="auto") -> bool:
    """Safely unpack a tar (plain, gz, bz2, xz) or zip archive into the folder `path`.

    Every member is checked before anything is written (see the module docstring); a
    refused archive raises `ValueError` and leaves `path` as it was. The members are
    unpacked into a temporary folder beside `path`, which then replaces `path`.

    Returns:
        `True` if the file was one of the `archive_format` kinds and was unpacked,
        `False` if it was none of them.
    """
    file_path = os.fspath(path_to_string(file_path))
    path = os.path.abspath(os.fspath(path_to_string(path)))
    for kind in _archive_kinds(archive_format):
        if kind == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as tf:
                plan = _plan_tar(tf, file_path)
                _unpack(file_path, plan, path, tf.extractfile)
            return True
        if kind == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as zf:
                plan = _plan_zip(zf, file_path)
                _unpack(file_path, plan, path, zf.open)
            return True
    return False


def _unpack(archive, plan, path, open_member):
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=parent)
    try:
        _write_plan(archive, plan, os.path.realpath(staging), open_member)
        if os.path.lexists(path):
            old = os.path.join(parent, f"{TEMP_PREFIX}{secrets.token_hex(8)}-old")
            os.replace(path, old)
            os.replace(staging, path)
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.remove(old)
        else:
            os.replace(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
