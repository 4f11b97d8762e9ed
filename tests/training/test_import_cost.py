"""`import lamina` stays light: heavy optional modules load when first used."""

import json
import subprocess
import sys

import pytest

# What a plain `import lamina` leaves behind, read in one fresh process that both tests
# share (an interpreter start with the engine's import is most of each test's cost).
_PLAIN_IMPORT = (
    "import gc, json, sys\n"
    "before = gc.isenabled()\n"
    "import lamina\n"
    "print(json.dumps({'gc': [before, gc.isenabled(), lamina._collecting],\n"
    "                  'heavy': sorted(m for m in ('h5py', 'scipy') if m in sys.modules)}))\n"
)


@pytest.fixture(scope="module")
def plain_import():
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN_IMPORT], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_lamina_leaves_h5py_and_scipy_unloaded(plain_import):
    assert plain_import["heavy"] == [], plain_import


def test_import_lamina_leaves_the_garbage_collector_as_it_found_it(plain_import):
    # Collections are held off during the import (they walk the engine's objects for
    # nothing); afterwards the caller's setting holds, whichever it was, and a failed
    # import does not leave them off either.
    before, after, _ = plain_import["gc"]
    assert before == after, plain_import
    code = (
        "import gc, sys\n"
        "before = gc.isenabled()\n"
        "import lamina\n"
        "print(before, gc.isenabled(), lamina._collecting)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import gc; gc.disable(); " + code],
        capture_output=True,
        text=True,
        check=True,
    )
    before, after, _ = out.stdout.split()
    assert before == after, out.stdout
    failing = (
        "import gc, sys\n"
        "sys.modules['lamina.wrappers'] = None  # makes `from lamina import wrappers` fail\n"
        "try:\n"
        "    import lamina\n"
        "except ImportError:\n"
        "    print(gc.isenabled())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", failing], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True", out.stdout + out.stderr
