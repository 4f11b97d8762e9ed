"""lamina's persistent compilation cache (`backend/common/compilation_cache.py`).

A second process loads the programs a first one compiled; a changed model compiles its
own; a corrupted entry costs one warning and a compile, never an error or a wrong
result; a folder that cannot be written turns the cache off with one warning. The
process-level checks run on JAX, whose compiled steps are what the cache keeps (torch's
steps compile nothing unless `jit_compile=True`).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import lamina
from lamina import backend
from lamina.backend.common import compilation_cache

SCRIPT = pathlib.Path(__file__).with_name("compilation_cache_script.py")


def _run(folder, *units):
    env = dict(os.environ, LAMINA_COMPILATION_CACHE=str(folder), LAMINA_BACKEND="jax")
    # Every program kept, whatever its compile time (the defaults keep slow ones only).
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, units)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.engine("jax")
def test_a_second_process_loads_the_programs_and_a_changed_model_compiles_its_own(tmp_path):
    first = _run(tmp_path, 4)
    assert first["folder"] == str(tmp_path)
    assert first["models"][0]["misses"] > 0
    kept = {p.name for p in tmp_path.iterdir()}
    assert any(name.startswith("jit__traced") for name in kept), kept  # the train step

    second = _run(tmp_path, 4, 5)
    same, changed = second["models"]
    # The same model: every program loaded, none compiled, the same training.
    assert same["misses"] == 0
    assert same["hits"] == first["models"][0]["misses"] + first["models"][0]["hits"]
    assert same["loss"] == first["models"][0]["loss"]
    # Another width: its train step is a program of its own, compiled and kept.
    assert changed["misses"] > 0
    new = {p.name for p in tmp_path.iterdir()} - kept
    assert any(name.startswith("jit__traced") for name in new), new
    assert second["warnings"] == []


@pytest.mark.engine("jax")
def test_a_corrupted_entry_is_compiled_again_with_one_warning(tmp_path):
    first = _run(tmp_path, 4)
    steps = [p for p in tmp_path.iterdir() if p.name.startswith("jit__traced")]
    steps = [p for p in steps if p.name.endswith("-cache")]
    assert len(steps) == 1, steps
    steps[0].write_bytes(b"not a compiled program")

    again = _run(tmp_path, 4)
    assert again["models"][0]["loss"] == first["models"][0]["loss"]
    cache_warnings = [w for w in again["warnings"] if "cache" in w]
    assert len(cache_warnings) == 1, again["warnings"]


def test_a_folder_that_cannot_be_written_turns_the_cache_off_with_one_warning(tmp_path):
    before = compilation_cache.folder()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    try:
        with pytest.warns(UserWarning, match="compilation cache is off") as seen:
            assert lamina.config.enable_compilation_cache(blocker / "cache") is None
        assert len(seen) == 1
        assert str(blocker / "cache") in str(seen[0].message)
        assert not lamina.config.is_compilation_cache_enabled()
        assert backend.compilation.cache_folder() in (None, os.path.join(str(before), "inductor"))
        # Programs still compile and run.
        model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
        assert model.predict(
            lamina.ops.convert_to_numpy(lamina.ops.ones((1, 2))), verbose=0
        ).shape == (1, 1)
    finally:
        if before is not None:
            lamina.config.enable_compilation_cache(before)


def test_enabling_a_folder_points_the_engine_there_and_disabling_stops_it(tmp_path):
    before = compilation_cache.folder()
    try:
        assert lamina.config.enable_compilation_cache(tmp_path) == str(tmp_path)
        assert lamina.config.compilation_cache_folder() == str(tmp_path)
        expected = str(tmp_path) if backend.backend() == "jax" else str(tmp_path / "inductor")
        assert backend.compilation.cache_folder() == expected
        if backend.backend() == "torch":
            assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == expected
        lamina.config.disable_compilation_cache()
        assert not lamina.config.is_compilation_cache_enabled()
        assert backend.compilation.cache_folder() is None
    finally:
        if before is not None:
            lamina.config.enable_compilation_cache(before)


@pytest.mark.parametrize("value", ["0", "off", "False", "no"])
def test_the_environment_switch_turns_it_off(monkeypatch, value):
    monkeypatch.setenv(compilation_cache.ENV, value)
    assert compilation_cache._requested() is None


def test_the_default_folder_is_under_lamina_home(monkeypatch, tmp_path):
    monkeypatch.delenv(compilation_cache.ENV, raising=False)
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    assert compilation_cache._requested() == str(tmp_path / "compilation_cache")
    monkeypatch.delenv("LAMINA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compilation_cache._requested() == str(
        tmp_path / "home" / ".lamina" / "compilation_cache"
    )
    monkeypatch.setenv(compilation_cache.ENV, str(tmp_path / "mine"))
    assert compilation_cache._requested() == str(tmp_path / "mine")


def test_an_unwritable_home_falls_back_to_a_private_temporary_folder(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(compilation_cache.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder = compilation_cache._usable(str(blocker / "cache"), explicit=False)
    assert folder == str(tmp_path / "tmp" / f"lamina-{os.getuid()}" / "compilation_cache")
    assert os.stat(folder).st_mode & 0o077 == 0  # this user's alone
