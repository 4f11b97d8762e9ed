"""Limits the design holds (issue 31): short class chains, and a training package that
knows no engine.

Behaviour changes by composition, not by deep subclassing (STYLE.md): `Dense`'s chain is
`Dense, Layer, Operation, LayerBase` (plus `torch.nn.Module` on torch, the one accepted
engine-chosen base) and `object`; `Model` and `Sequential` stay under Keras's
`Functional` (10). The step forms live behind the execution seam, so `training/` never
asks which engine runs (the seam's `backend.execution.step_form` chooses).
"""

from __future__ import annotations

import pathlib
import re

import pytest

import lamina
from lamina import backend, layers

TRAINING = pathlib.Path(lamina.__file__).parent / "training"


@pytest.mark.parametrize(
    "cls, bound", [(layers.Dense, 6), (lamina.Model, 10), (lamina.Sequential, 11)]
)
def test_class_chains_stay_short(cls, bound):
    chain = [c.__name__ for c in cls.__mro__]
    assert len(chain) <= bound, f"{cls.__name__}'s chain is {len(chain)} long: {chain}"


def test_dense_is_a_layer_an_operation_and_the_engine_base_only():
    chain = [f"{c.__module__}.{c.__qualname__}" for c in layers.Dense.__mro__]
    engine = (
        ["lamina.backend.torch.layer.LayerBase", "torch.nn.modules.module.Module"]
        if backend.backend() == "torch"
        else ["lamina.backend.jax.layer.LayerBase"]
    )
    assert chain == [
        "lamina.layers.core.Dense",
        "lamina.layers.layer.Layer",
        "lamina.graph.operation.Operation",
        *engine,
        "builtins.object",
    ]


# What an engine branch looks like in source: the seam's step-form flag, or a comparison
# with the engine's name.
_ENGINE_BRANCH = re.compile(r"STATEFUL|backend\(\)\s*==|backend\.backend\(\)")


def test_training_has_no_engine_branch():
    files = sorted(TRAINING.rglob("*.py"))
    assert files, f"no sources found under {TRAINING}"
    found = [
        f"{path.relative_to(TRAINING.parent)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if _ENGINE_BRANCH.search(line)
    ]
    assert not found, "training/ branches on the engine:\n" + "\n".join(found)
