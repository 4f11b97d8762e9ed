"""`get_file`: Keras's cache layout, atomic downloads, hash checks, safe extraction.

Files are served from `file://` URLs or a `http.server` on 127.0.0.1 run in a thread;
nothing touches the network or `~/.keras`.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile

import pytest

from lamina.utils import file_utils, get_file

PAYLOAD = b"lamina get_file payload\n" * 100


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    # Nothing in these tests may fall back to ~/.keras.
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KERAS_HOME", raising=False)


def _source(tmp_path, name="data.bin", payload=PAYLOAD):
    src = tmp_path / "src" / name
    src.parent.mkdir(exist_ok=True)
    src.write_bytes(payload)
    return src


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _leftovers(folder):
    return [n for n in os.listdir(folder) if n.startswith(file_utils.TEMP_PREFIX)]


class _Handler(http.server.BaseHTTPRequestHandler):
    files: dict = {}
    truncate: set = set()

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404, "no such file")
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.path in self.truncate:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Handler.files, _Handler.truncate = {}, set()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


# ------------------------------------------------------------------ cache layout, hashes


def test_file_origin_default_cache_layout(tmp_path, capsys):
    src = _source(tmp_path)
    path = get_file(origin=src.as_uri())
    assert path == str(tmp_path / "home" / "datasets" / "data.bin")
    assert _read(path) == PAYLOAD
    assert "Downloading data from" in capsys.readouterr().out
    # Cached: a second call does not read the origin again.
    src.unlink()
    assert get_file(origin=src.as_uri()) == path
    assert _leftovers(os.path.dirname(path)) == []


def test_cache_root_order(tmp_path, monkeypatch):
    monkeypatch.delenv("LAMINA_HOME")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    assert file_utils.cache_root() == str(tmp_path / "keras_home")
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path / "lamina_home"))
    assert file_utils.cache_root() == str(tmp_path / "lamina_home")
    assert file_utils.cache_root(tmp_path / "explicit") == str(tmp_path / "explicit")
    monkeypatch.delenv("LAMINA_HOME")
    monkeypatch.delenv("KERAS_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert file_utils.cache_root() == str(tmp_path / "user" / ".keras")


def test_fname_cache_subdir_and_cache_dir(tmp_path):
    src = _source(tmp_path)
    path = get_file("renamed.bin", src.as_uri(), cache_subdir="sub", cache_dir=tmp_path / "c")
    assert path == str(tmp_path / "c" / "sub" / "renamed.bin")
    absolute = tmp_path / "abs"
    assert get_file("x.bin", src.as_uri(), cache_subdir=str(absolute)) == str(absolute / "x.bin")
    with pytest.raises(ValueError, match="not a path"):
        get_file("a/b.bin", src.as_uri())
    with pytest.raises(ValueError, match="origin"):
        get_file("a.bin")


@pytest.mark.parametrize("algorithm", ["sha256", "md5"])
def test_hash_ok_and_auto_detection(tmp_path, algorithm):
    src = _source(tmp_path)
    digest = hashlib.new(algorithm, PAYLOAD).hexdigest()
    path = get_file(origin=src.as_uri(), file_hash=digest)
    assert _read(path) == PAYLOAD
    assert file_utils.validate_file(path, digest)
    assert file_utils.hash_file(path, algorithm) == digest
    md5_path = get_file("m.bin", src.as_uri(), md5_hash=hashlib.md5(PAYLOAD).hexdigest())
    assert _read(md5_path) == PAYLOAD


def test_hash_mismatch_refused_and_cache_untouched(tmp_path):
    src = _source(tmp_path)
    wrong = "0" * 64
    target = tmp_path / "home" / "datasets" / "data.bin"
    with pytest.raises(ValueError) as info:
        get_file(origin=src.as_uri(), file_hash=wrong)
    message = str(info.value)
    assert str(target) in message and wrong in message
    assert hashlib.sha256(PAYLOAD).hexdigest() in message
    assert not target.exists() and _leftovers(target.parent) == []
    # A file the user already had stays as it was when the new download mismatches.
    target.write_bytes(b"old")
    with pytest.raises(ValueError, match="hash"):
        get_file(origin=src.as_uri(), file_hash=wrong)
    assert target.read_bytes() == b"old"


def test_cached_file_with_wrong_hash_is_downloaded_again(tmp_path, capsys):
    src = _source(tmp_path)
    target = tmp_path / "home" / "datasets" / "data.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"stale")
    path = get_file(origin=src.as_uri(), file_hash=hashlib.sha256(PAYLOAD).hexdigest())
    assert _read(path) == PAYLOAD
    assert "downloaded again" in capsys.readouterr().out
    # Without a hash the cached file is trusted, as in Keras.
    target.write_bytes(b"stale")
    assert _read(get_file(origin=src.as_uri())) == b"stale"


def test_force_download(tmp_path):
    src = _source(tmp_path)
    path = get_file(origin=src.as_uri())
    src.write_bytes(b"new version")
    assert _read(get_file(origin=src.as_uri())) == PAYLOAD
    assert _read(get_file(origin=src.as_uri(), force_download=True)) == b"new version"
    assert _leftovers(os.path.dirname(path)) == []


def test_bad_hash_algorithm(tmp_path):
    with pytest.raises(ValueError, match="hash_algorithm"):
        get_file(origin=_source(tmp_path).as_uri(), file_hash="ab", hash_algorithm="sha1")


# ------------------------------------------------------------------ http, atomicity


def test_http_download(tmp_path, server):
    httpd, base = server
    _Handler.files["/files/data.bin"] = PAYLOAD
    path = get_file(origin=f"{base}/files/data.bin", file_hash=hashlib.md5(PAYLOAD).hexdigest())
    assert _read(path) == PAYLOAD


def test_http_error_names_url(tmp_path, server):
    _, base = server
    with pytest.raises(OSError, match="URL fetch failure on .*/missing.bin: 404"):
        get_file(origin=f"{base}/missing.bin")
    folder = tmp_path / "home" / "datasets"
    assert os.listdir(folder) == []


def test_dropped_connection_leaves_no_file(tmp_path, server):
    _, base = server
    _Handler.files["/big.bin"] = PAYLOAD * 50
    _Handler.truncate.add("/big.bin")
    folder = tmp_path / "home" / "datasets"
    folder.mkdir(parents=True)
    (folder / "big.bin").write_bytes(b"previous")
    with pytest.raises(OSError, match="URL fetch failure"):
        get_file(origin=f"{base}/big.bin", force_download=True)
    assert sorted(os.listdir(folder)) == ["big.bin"]
    assert (folder / "big.bin").read_bytes() == b"previous"


def test_keyboard_interrupt_leaves_no_file(tmp_path, monkeypatch):
    src = _source(tmp_path)

    class Interrupting(io.BytesIO):
        headers = {"Content-Length": str(len(PAYLOAD))}

        def read(self, n=-1):
            if self.tell() > 0:
                raise KeyboardInterrupt
            return super().read(100)

    monkeypatch.setattr(file_utils.urllib.request, "urlopen", lambda url: Interrupting(PAYLOAD))
    with pytest.raises(KeyboardInterrupt):
        get_file(origin=src.as_uri())
    assert os.listdir(tmp_path / "home" / "datasets") == []


# ------------------------------------------------------------------ extraction


def _zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return path


def _tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _special(name, kind, linkname=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def test_extract_zip_with_extension_fname(tmp_path):
    archive = _zip(tmp_path / "pack.zip", [("top/a.txt", b"A"), ("top/sub/b.txt", b"B")])
    path = get_file("pack.zip", archive.as_uri(), extract=True)
    datasets = tmp_path / "home" / "datasets"
    assert path == str(datasets / "pack_extracted")
    assert (datasets / "pack.zip").is_file()
    assert (datasets / "pack_extracted" / "top" / "sub" / "b.txt").read_bytes() == b"B"
    assert _leftovers(datasets) == []


def test_extract_tar_gz_without_dot_and_without_fname(tmp_path):
    archive = _tar(
        tmp_path / "pack.tar.gz",
        [_file("d/a.txt", b"A"), _special("d/link", tarfile.SYMTYPE, "a.txt")],
    )
    path = get_file("target", archive.as_uri(), extract=True)
    datasets = tmp_path / "home" / "datasets"
    assert path == str(datasets / "target")
    assert (datasets / "target_archive").is_file()
    assert (datasets / "target" / "d" / "link").read_bytes() == b"A"  # an inside link is kept
    path = get_file(origin=archive.as_uri(), extract=True, archive_format="tar")
    assert path == str(datasets / "pack.tar.gz")
    assert (datasets / "pack.tar.gz_archive").is_file()
    assert (datasets / "pack.tar.gz" / "d" / "a.txt").read_bytes() == b"A"


def test_untar_and_not_an_archive(tmp_path):
    archive = _tar(tmp_path / "p.tar", [_file("a.txt", b"A")], mode="w")
    path = get_file("p", archive.as_uri(), untar=True)
    assert _read(os.path.join(path, "a.txt")) == b"A"
    with pytest.warns(UserWarning, match="Could not extract"):
        get_file("plain", _source(tmp_path).as_uri(), extract=True)


def test_extract_agrees_with_keras(tmp_path, monkeypatch):
    """Keras 3 extracts the same archive into the same folder names and files."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    from keras.src.utils import file_utils as keras_file_utils

    archive = _tar(tmp_path / "k.tar.gz", [_file("top/a.txt", b"A"), _file("top/b/c.txt", b"C")])
    for i, fname in enumerate(("k.tar.gz", "k", None)):
        ours_root, keras_root = tmp_path / f"ours{i}", tmp_path / f"keras{i}"
        keras_root.mkdir()  # Keras falls back to /tmp/.keras for a missing cache_dir
        ours = get_file(fname, archive.as_uri(), extract=True, cache_dir=ours_root)
        theirs = keras_file_utils.get_file(
            fname, archive.as_uri(), extract=True, cache_dir=str(keras_root)
        )
        assert os.path.relpath(ours, ours_root) == os.path.relpath(theirs, keras_root)
        listing = sorted(
            os.path.relpath(os.path.join(d, f), theirs) for d, _, fs in os.walk(theirs) for f in fs
        )
        assert listing == sorted(
            os.path.relpath(os.path.join(d, f), ours) for d, _, fs in os.walk(ours) for f in fs
        )


HOSTILE_TARS = {
    "absolute": ([_file("/etc/evil", b"x")], "absolute path"),
    "dotdot": ([_file("ok/../../evil", b"x")], r"'\.\.'"),
    "symlink_out": ([_special("link", tarfile.SYMTYPE, "../../outside")], "outside"),
    "symlink_absolute": ([_special("link", tarfile.SYMTYPE, "/etc/passwd")], "outside"),
    "hardlink_out": ([_special("link", tarfile.LNKTYPE, "../outside")], "outside"),
    "device": ([_special("dev", tarfile.CHRTYPE)], "device file"),
    "fifo": ([_special("pipe", tarfile.FIFOTYPE)], "fifo"),
    # a link to the root, then a member through it: each name alone looks harmless
    "link_chain": (
        [_special("a/b/up", tarfile.SYMTYPE, "../.."), _special("a/b/up/x", tarfile.SYMTYPE, "..")],
        "link",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TARS))
def test_hostile_tar_refused(tmp_path, case):
    members, pattern = HOSTILE_TARS[case]
    archive = _tar(tmp_path / f"{case}.tar.gz", members)
    with pytest.raises(ValueError, match=pattern) as info:
        get_file(f"{case}", archive.as_uri(), extract=True)
    assert "Refusing to extract" in str(info.value) and f"{case}_archive" in str(info.value)
    datasets = tmp_path / "home" / "datasets"
    assert sorted(os.listdir(datasets)) == [f"{case}_archive"]
    assert not (tmp_path / "home" / "evil").exists() and not (tmp_path / "outside").exists()


@pytest.mark.parametrize(
    "name, pattern",
    [("/abs.txt", "absolute path"), ("../up.txt", r"'\.\.'"), ("a\\..\\..\\b", "backslash")],
)
def test_hostile_zip_refused(tmp_path, name, pattern):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo(name), b"x")
    with pytest.raises(ValueError, match=pattern):
        get_file("bad.zip", archive.as_uri(), extract=True)
    assert sorted(os.listdir(tmp_path / "home" / "datasets")) == ["bad.zip"]


def test_zip_symlink_out_refused(tmp_path):
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("link")
        info.external_attr = (0o120777) << 16
        zf.writestr(info, "../../etc/passwd")
    with pytest.raises(ValueError, match="outside the extraction folder"):
        get_file("link.zip", archive.as_uri(), extract=True)


def test_size_and_count_limits(tmp_path, monkeypatch):
    archive = _zip(tmp_path / "many.zip", [(f"f{i}.txt", b"0123456789") for i in range(5)])
    monkeypatch.setattr(file_utils, "MAX_ARCHIVE_MEMBERS", 3)
    with pytest.raises(ValueError, match="limit of 3 members"):
        get_file("many.zip", archive.as_uri(), extract=True)
    monkeypatch.setattr(file_utils, "MAX_ARCHIVE_MEMBERS", 100)
    monkeypatch.setattr(file_utils, "MAX_EXTRACTED_BYTES", 40)
    with pytest.raises(ValueError, match="unpack to 50 bytes"):
        get_file("many.zip", archive.as_uri(), extract=True)
    tar = _tar(tmp_path / "many.tar.gz", [_file(f"f{i}.txt", b"0123456789") for i in range(5)])
    with pytest.raises(ValueError, match="unpack to 50 bytes"):
        get_file("many.tar.gz", tar.as_uri(), extract=True)
    monkeypatch.setattr(file_utils, "MAX_ARCHIVE_MEMBERS", 3)
    with pytest.raises(ValueError, match="limit of 3 members"):
        get_file("many.tar.gz", tar.as_uri(), extract=True)


def test_bomb_ratio_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(file_utils, "RATIO_CHECK_MIN_BYTES", 1000)
    archive = _zip(tmp_path / "bomb.zip", [("zeros", b"\0" * 200_000)])
    with pytest.raises(ValueError, match="zip bomb"):
        get_file("bomb.zip", archive.as_uri(), extract=True)
    tar = _tar(tmp_path / "bomb.tar.gz", [_file("zeros", b"\0" * 200_000)])
    with pytest.raises(ValueError, match="archive bomb"):
        get_file("bomb.tar.gz", tar.as_uri(), extract=True)


def test_reextract_after_new_download_replaces_folder(tmp_path):
    archive = _zip(tmp_path / "v.zip", [("a.txt", b"one")])
    path = get_file("v.zip", archive.as_uri(), extract=True)
    _zip(archive, [("b.txt", b"two")])
    assert get_file("v.zip", archive.as_uri(), extract=True) == path  # cached: kept
    assert os.listdir(path) == ["a.txt"]
    get_file("v.zip", archive.as_uri(), extract=True, force_download=True)
    assert os.listdir(path) == ["b.txt"]
    assert _leftovers(os.path.dirname(path)) == []
