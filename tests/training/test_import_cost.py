"""`import lamina` stays light: heavy optional modules load when first used."""

import subprocess
import sys


def test_import_lamina_leaves_h5py_and_scipy_unloaded():
    code = "import sys, lamina; print(sorted(m for m in ('h5py', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
