"""`summary(expand_nested=..., layer_range=...)` lists the rows Keras 3 lists, in order."""

import os

import pytest

import lamina

# Keras's import needs a backend it can load (its default, TensorFlow, is not installed).
os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")


def _models(lib):
    """The same nested models, built with lamina or with Keras."""
    layers = lib.layers
    inner_in = lib.Input((4,), name="inner_in")
    hidden = layers.Dense(5, name="d0")(inner_in)
    inner = lib.Model(inner_in, layers.Dense(3, name="d1")(hidden), name="inner")
    stack = lib.Sequential([lib.Input((3,)), layers.Dense(2, name="s1")], name="stack")
    x = lib.Input((4,), name="x")
    chain = lib.Model(x, layers.Dense(1, name="head")(stack(inner(x))), name="chain")
    a, b = lib.Input((4,), name="a"), lib.Input((4,), name="b")
    graph = lib.Model([a, b], layers.Add(name="add")([inner(a), inner(b)]), name="graph")
    seq = lib.Sequential([lib.Input((4,)), inner, layers.Dense(2, name="top")], name="seq")
    return {"chain": chain, "graph": graph, "seq": seq}


def _first_column(model, **kwargs):
    lines = []
    # Wide enough that no name wraps (Keras narrows its table to the terminal).
    model.summary(
        line_length=150,
        print_fn=lambda line, *args, **kw: lines.extend(line.split("\n")),
        **kwargs,
    )
    cells = [line.split("│")[1].rstrip() for line in lines if line.startswith("│")]
    return [cell for cell in cells if cell.strip() != "Layer (type)"]


CASES = [
    ("chain", {"expand_nested": True}),
    ("graph", {"expand_nested": True}),
    ("seq", {"expand_nested": True}),
    ("chain", {"layer_range": ["inner", "st.*"]}),
    ("chain", {"layer_range": ("head", "x")}),  # backwards: Keras reads it forwards
    ("chain", {"layer_range": ["inner", "head"], "expand_nested": True}),
    ("seq", {"layer_range": ["inner", "inner"], "expand_nested": True}),
    ("chain", {}),
]


@pytest.mark.parametrize("name, kwargs", CASES)
def test_rows_match_keras(name, kwargs):
    ours = _first_column(_models(lamina)[name], **kwargs)
    theirs = _first_column(_models(keras)[name], **kwargs)
    assert [c.strip() for c in ours] == [c.strip() for c in theirs]
    # The nested rows are indented as Keras indents them.
    assert [len(c) - len(c.lstrip()) for c in ours] == [len(c) - len(c.lstrip()) for c in theirs]


def test_expand_nested_indents_each_level_under_its_model():
    inner_in = lamina.Input((2,), name="deep_in")
    deep = lamina.Model(inner_in, lamina.layers.Dense(2, name="deep_d")(inner_in), name="deep")
    mid = lamina.Sequential([lamina.Input((2,)), deep], name="mid")
    outer = lamina.Sequential([lamina.Input((2,)), mid], name="outer")
    rows = [row.strip() for row in _first_column(outer, expand_nested=True)]
    assert rows == [
        "mid (Sequential)",
        "└ deep (Functional)",
        "└ deep_in (InputLayer)",
        "└ deep_d (Dense)",
    ]
    indents = [len(r) - len(r.lstrip()) for r in _first_column(outer, expand_nested=True)]
    assert indents[1] < indents[2] == indents[3]


@pytest.mark.parametrize(
    "layer_range, message",
    [
        (["inner"], "two layer names"),
        ("inner", "two layer names"),
        (["inner", 3], "two strings"),
        (["nope", "head"], "no layer name matches 'nope'"),
        (["inner", "nope"], "no layer name matches 'nope'"),
    ],
)
def test_a_bad_layer_range_is_refused(layer_range, message):
    with pytest.raises(ValueError, match=message):
        _models(lamina)["chain"].summary(layer_range=layer_range, print_fn=lambda line: None)


def _unbuilt(lib):
    class Sub(lib.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.dense = lib.layers.Dense(2, name="dense_a")

        def call(self, x):
            return self.dense(x)

    seq = lib.Sequential([lib.layers.Dense(4, name="d1"), lib.layers.Dense(1, name="d2")])
    return {"seq": seq, "sub": Sub(), "empty": lib.Sequential(name="empty")}


@pytest.mark.parametrize("name", ["seq", "sub", "empty"])
def test_an_unbuilt_model_summary_lists_its_layers_unbuilt_as_keras_does(name):
    # Keras 3 prints the table (shape '?', Param # '0 (unbuilt)', totals 0) where
    # lamina raised ValueError.
    def cells(lib):
        lines = []
        _unbuilt(lib)[name].summary(print_fn=lambda text, *a, **k: lines.extend(text.split("\n")))
        rows = [
            [c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")
        ]
        return rows, [line.strip() for line in lines if "params:" in line]

    assert cells(lamina) == cells(keras)
