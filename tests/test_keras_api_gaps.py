"""Every public Keras 3 name is at the same path in lamina, and every keyword argument
Keras takes, lamina takes (issue 36).

The audit is `tools/keras_api_gaps.py`'s (which also writes `KERAS_API_GAPS.md`): it walks
the installed Keras's public modules, looks each name up under `lamina`, and compares
the keyword arguments of each class and function. A new Keras release's names and
arguments show up here as a failing, readable list.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras")

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "keras_api_gaps", ROOT / "tools" / "keras_api_gaps.py"
)
keras_api_gaps = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("keras_api_gaps", keras_api_gaps)  # its dataclass looks itself up
_spec.loader.exec_module(keras_api_gaps)


@pytest.fixture(scope="module")
def audit():
    return keras_api_gaps.audit()


def test_every_keras_name_is_at_the_same_path(audit):
    assert len(audit.names) > 1400, "found too few Keras names: is the walk right?"
    missing = list(audit.missing)
    assert not missing, (
        f"{len(missing)} public Keras {audit.keras_version} name(s) have no lamina "
        "counterpart at the same path:\n  " + "\n  ".join(missing)
    )


def test_every_keras_keyword_argument_is_accepted(audit):
    refused = dict(audit.refused)
    assert not refused, (
        "keyword arguments Keras accepts and lamina would refuse with a TypeError "
        "(accept each with Keras's meaning, or accept and document it as ignored "
        "where Keras ignores it):\n  "
        + "\n  ".join(f"{path}: {', '.join(args)}" for path, args in refused.items())
    )


def test_the_report_is_markdown_with_the_numbers(audit):
    text = keras_api_gaps.markdown(audit)
    assert f"of Keras 3's {len(audit.names):,} name slots" in text
    assert f"## Missing names ({len(audit.missing)})" in text


def test_the_audit_sees_arguments_read_from_kwargs():
    # `KerasTensor` reads `ragged_rank` from its **kwargs; `Conv2D` passes `rank` to its
    # base itself, so a caller cannot.
    import keras

    accepted = keras_api_gaps.accepted_keywords
    assert {"ragged_rank", "row_splits_dtype"} <= accepted(keras.KerasTensor, "keras")
    assert "rank" not in accepted(keras.layers.Conv2D, "keras")
    assert "trainable" in accepted(keras.layers.Conv2D, "keras")
