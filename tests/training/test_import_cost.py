"""`import lamina` stays light: heavy optional modules load when first used."""

import subprocess
import sys


def test_import_lamina_leaves_h5py_and_scipy_unloaded():
    code = "import sys, lamina; print(sorted(m for m in ('h5py', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_import_lamina_leaves_the_garbage_collector_as_it_found_it():
    # Collections are held off during the import (they walk the engine's objects for
    # nothing); afterwards the caller's setting holds, whichever it was, and a failed
    # import does not leave them off either.
    code = (
        "import gc, sys\n"
        "before = gc.isenabled()\n"
        "import lamina\n"
        "print(before, gc.isenabled(), lamina._collecting)\n"
    )
    for setup in ("", "import gc; gc.disable(); "):
        out = subprocess.run(
            [sys.executable, "-c", setup + code], capture_output=True, text=True, check=True
        )
        before, after, _ = out.stdout.split()
        assert before == after, (setup, out.stdout)
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
