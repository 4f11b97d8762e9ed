"""`Model.summary` arguments against Keras 3's table: show_trainable, line_length,
positions, print_fn, expand_nested with layer_range, and where the text goes."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

import lamina
from lamina.common import io_utils

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


@pytest.fixture(autouse=True)
def _interactive(monkeypatch):
    # Keras's rich console is as wide as the terminal: wide enough for every table here.
    monkeypatch.setenv("COLUMNS", "200")
    yield
    io_utils.enable_interactive_logging()


def _model(lib):
    layers = lib.layers
    seq = lib.Sequential(
        [lib.Input((8,)), layers.Dense(4, name="d1"), layers.Dense(2, name="d2")], name="seq"
    )
    seq.get_layer("d2").trainable = False
    x = lib.Input((8,), name="x")
    h = layers.Dense(8, name="pre")(x)
    out = layers.Add(name="add")([seq(h), layers.Dense(2, name="side")(h)])
    return lib.Model(x, out, name="outer")


def _capture(model, **kwargs):
    calls = []
    model.summary(print_fn=lambda text, *a, **k: calls.append(text), **kwargs)
    return calls


def _rows(text):
    """The cells of each table row (wrapped continuation lines joined)."""
    rows = []
    for line in text.split("\n"):
        if line.startswith(("│", "┃")):
            cells = [c.strip() for c in line[1:-1].replace("┃", "│").split("│")]
            if cells[0] or not rows:
                rows.append(cells)
            else:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return rows


def test_print_fn_gets_the_whole_text_once_as_in_keras():
    ours, theirs = _capture(_model(lamina)), _capture(_model(keras))
    assert len(ours) == len(theirs) == 1
    assert ours[0].startswith('Model: "outer"\n') and ours[0].endswith("\n")
    tail = [line for line in ours[0].split("\n") if line.startswith(" ")]
    assert tail == [line for line in theirs[0].split("\n") if line.startswith(" ")]


@pytest.mark.parametrize("expand_nested", [False, True])
def test_show_trainable_column_matches_keras(expand_nested):
    kwargs = {"show_trainable": True, "expand_nested": expand_nested, "line_length": 150}
    ours = _rows(_capture(_model(lamina), **kwargs)[0])
    theirs = _rows(_capture(_model(keras), **kwargs)[0])
    # Keras's console is narrower than 150 columns in a test: compare what both show.
    assert [r[0] for r in ours][1:] == [r[0] for r in theirs][1:]
    assert ours[0][-1] == "Trainable"
    assert [r[-1] for r in ours][1:] == [r[-1] for r in theirs][1:]
    marks = dict((r[0].lstrip("└ ").split(" ")[0], r[-1]) for r in ours[1:])
    assert marks["x"] == "-" and marks["pre"] == "Y" and marks["add"] == "-"
    if expand_nested:
        assert marks["d1"] == "Y" and marks["d2"] == "N"


def test_line_length_and_positions():
    text = _capture(_model(lamina), line_length=90)[0]
    table = [line for line in text.split("\n") if line and line[0] in "┏┃┡│├└"]
    assert {len(line) for line in table} == {90}
    # Absolute positions are the right edges of the columns.
    text = _capture(_model(lamina), line_length=90, positions=[30, 50, 60, 90])[0]
    top = text.split("\n")[1]
    assert [i for i, ch in enumerate(top) if ch in "┳┓"] == [29, 49, 59, 89]
    # Relative ones are fractions of line_length, the Trainable column added after, the
    # columns then narrowed to fit their padding and borders as Keras's rich table does.
    kwargs = {"line_length": 100, "positions": [0.5, 0.7, 0.8, 1.0], "show_trainable": True}
    top = _capture(_model(lamina), **kwargs)[0].split("\n")[1]
    assert [i for i, ch in enumerate(top) if ch in "┳┓"] == [45, 63, 72, 89, 99]
    assert top == _capture(_model(keras), **kwargs)[0].split("\n")[1]
    with pytest.raises(ValueError, match="positions must give"):
        _model(lamina).summary(positions=[0.5, 1.0], print_fn=lambda _: None)
    with pytest.raises(ValueError, match="narrower than 4"):
        _model(lamina).summary(line_length=10, print_fn=lambda _: None)


def test_layer_range_with_expand_nested_and_trainable():
    kwargs = {"layer_range": ["seq", "side"], "expand_nested": True, "show_trainable": True}
    ours = _rows(_capture(_model(lamina), line_length=150, **kwargs)[0])
    theirs = _rows(_capture(_model(keras), line_length=150, **kwargs)[0])
    assert [r[0] for r in ours[1:]] == [r[0] for r in theirs[1:]]
    assert [r[-1] for r in ours[1:]] == [r[-1] for r in theirs[1:]]


@pytest.mark.filterwarnings("ignore:`build\\(\\)` was called on layer")
def test_unbuilt_layer_is_marked_as_keras_marks_it():
    def make(lib):
        class Net(lib.Model):
            def __init__(self):
                super().__init__(name="net")
                self.used = lib.layers.Dense(3, name="used")
                self.spare = lib.layers.Dense(3, name="spare")

            def call(self, x):
                return self.used(x)

        net = Net()
        net(np.ones((1, 4), "float32"))
        return net

    ours, theirs = _rows(_capture(make(lamina))[0]), _rows(_capture(make(keras))[0])
    assert [r[2] for r in ours[1:]] == [r[2] for r in theirs[1:]] == ["15", "0 (unbuilt)"]


def test_default_output_goes_to_stdout_or_the_logger(capsys, caplog):
    model = _model(lamina)
    model.summary()
    out = capsys.readouterr().out
    assert out.startswith('Model: "outer"\n') and "Total params" in out and not out.endswith("\n\n")
    model.summary(print_fn=io_utils.print_msg)  # Keras's own printer: no blank line added
    assert capsys.readouterr().out == out
    io_utils.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="lamina"):
        model.summary()
    assert capsys.readouterr().out == ""
    assert len(caplog.records) == 1 and "Total params" in caplog.records[0].getMessage()
