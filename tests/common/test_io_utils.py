"""Interactive logging switches, and a progress bar that stays clean off a terminal."""

from __future__ import annotations

import inspect
import io
import logging
import os
import re
import sys
import types

import numpy as np
import pytest

import lamina
from lamina import callbacks
from lamina.common import io_utils

NAMES = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
]


@pytest.fixture(autouse=True)
def _interactive():
    yield
    io_utils.enable_interactive_logging()


def test_names_and_signatures_match_keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    for name in NAMES:
        ours, theirs = getattr(lamina.utils, name), getattr(keras.utils, name)
        assert (
            inspect.signature(ours).parameters.keys() == inspect.signature(theirs).parameters.keys()
        )
        assert getattr(lamina.utils, name) is getattr(io_utils, name)


def test_switches_and_print_msg(capsys, caplog):
    assert lamina.utils.is_interactive_logging_enabled()
    io_utils.print_msg("to stdout")
    io_utils.print_msg("no newline", line_break=False)
    assert capsys.readouterr().out == "to stdout\nno newline"
    lamina.utils.disable_interactive_logging()
    assert not lamina.utils.is_interactive_logging_enabled()
    with caplog.at_level(logging.INFO, logger="lamina"):
        io_utils.print_msg("to the log")
    assert capsys.readouterr().out == ""
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("lamina", logging.INFO, "to the log")
    ]
    lamina.utils.enable_interactive_logging()
    assert lamina.utils.is_interactive_logging_enabled()


def test_clear_session_turns_interactive_logging_back_on():
    lamina.utils.disable_interactive_logging()
    lamina.backend.clear_session()
    assert lamina.utils.is_interactive_logging_enabled()


def _tiny_model():
    x = lamina.Input((3,))
    model = lamina.Model(x, lamina.layers.Dense(1)(x))
    model.compile(optimizer="sgd", loss="mse")
    return model


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((8, 3)).astype("float32"), rng.standard_normal((8, 1)).astype(
        "float32"
    )


def test_fit_off_a_terminal_writes_one_line_per_epoch(capsys):
    # pytest's captured stdout is not a terminal, as in a CI log.
    x, y = _data()
    _tiny_model().fit(x, y, batch_size=2, epochs=2, verbose=1)
    out = capsys.readouterr().out
    assert "\r" not in out and "\x1b[" not in out
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("Epoch")] == ["Epoch 1/2", "Epoch 2/2"]
    bars = [line for line in lines if not line.startswith("Epoch")]
    assert len(bars) == 2 and all(re.match(r"4/4 ━{20} \d+s", b) for b in bars), bars


def test_fit_with_interactive_logging_off_logs_each_line(capsys, caplog):
    x, y = _data()
    lamina.utils.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="lamina"):
        _tiny_model().fit(x, y, batch_size=2, epochs=2, verbose=1)
    assert capsys.readouterr().out == ""
    messages = [r.getMessage() for r in caplog.records if r.name == "lamina"]
    assert [m for m in messages if m.startswith("Epoch")] == ["Epoch 1/2", "Epoch 2/2"]
    bars = [m for m in messages if not m.startswith("Epoch")]
    assert len(bars) == 2 and all(m.startswith("4/4 ") and "loss: " in m for m in bars)
    assert not any("\r" in m or "\x1b[" in m or m.endswith("\n") for m in messages)


def test_progbar_is_dynamic_only_where_redrawing_works(monkeypatch):
    assert not callbacks.Progbar(3)._dynamic  # pytest's stdout: not a terminal
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert callbacks.Progbar(3)._dynamic  # a notebook handles carriage returns
    assert not callbacks.Progbar(3, stream=io.StringIO())._dynamic  # an explicit file
    lamina.utils.disable_interactive_logging()
    assert not callbacks.Progbar(3)._dynamic  # messages go to a logger


def test_progbar_with_its_own_stream_ignores_the_switch(caplog):
    lamina.utils.disable_interactive_logging()
    out = io.StringIO()
    with caplog.at_level(logging.INFO, logger="lamina"):
        bar = callbacks.Progbar(2, verbose=2, stream=out)
        bar.update(1, [("loss", 1.0)])
        bar.update(2, [("loss", 0.5)])
    assert out.getvalue().startswith("2/2 - ") and not caplog.records
