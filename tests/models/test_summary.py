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


# The table's layout: Keras prints it with rich, lamina by the same rules --------------
def _laid_out_models(lib):
    """Models whose cells need fitting: a two-input graph (the "Connected to" column, a
    large Embedding), long layer names and a seven-digit count, a Sequential convnet."""
    layers = lib.layers
    a, b = lib.Input((None,), name="input_a"), lib.Input((None,), name="input_b")
    ea = layers.Embedding(1000, 64, name="embedding")(a)
    eb = layers.Embedding(2000, 64, name="embedding_with_a_longer_name")(b)
    merged = layers.Concatenate(name="concatenate")([ea, eb])
    pooled = layers.GlobalMaxPooling1D(name="global_max_pooling1d")(merged)
    graph = lib.Model([a, b], pooled, name="two_inputs")
    x = lib.Input((784,), name="digits_with_a_rather_long_input_name")
    h = layers.Dense(1630, name="a_very_long_dense_layer_name_that_wraps")(x)
    h = layers.Dense(64, activation="relu", name="dense_2")(h)
    mlp = lib.Model(x, layers.Dense(10, name="predictions")(h), name="mlp")
    convnet = lib.Sequential(
        [
            lib.Input((28, 28, 1)),
            layers.Conv2D(32, 3, name="conv2d"),
            layers.Flatten(name="flatten"),
            layers.Dense(1000, name="dense"),
        ],
        name="convnet",
    )
    return {"graph": graph, "mlp": mlp, "convnet": convnet}


def _summary_lines(model, **kwargs):
    text = []
    model.summary(print_fn=lambda t, *args, **kw: text.append(t), **kwargs)
    return "".join(text).rstrip("\n").split("\n")


LAYOUTS = [{}, {"line_length": 80}, {"line_length": 61}, {"line_length": 40}]
LAYOUTS += [{"line_length": 70, "show_trainable": True}]


@pytest.fixture(scope="module")
def laid_out_models():
    return {lib: _laid_out_models(lib) for lib in (lamina, keras)}


@pytest.mark.parametrize("name", ["graph", "mlp", "convnet"])
@pytest.mark.parametrize("kwargs", LAYOUTS, ids=str)
def test_the_table_is_laid_out_as_keras_lays_it_out(name, kwargs, laid_out_models, monkeypatch):
    # A wide terminal: Keras's console crops its lines to the terminal's width.
    monkeypatch.setenv("COLUMNS", "200")
    model = laid_out_models[lamina][name]
    ours = _summary_lines(model, **kwargs)
    theirs = _summary_lines(laid_out_models[keras][name], **kwargs)
    header = [line for line in ours if line.startswith("┃")]
    assert header == [line for line in theirs if line.startswith("┃")]
    # No count is split over two lines: one Param # cell a layer (cut with "…" where
    # its column is narrower than it, as Keras cuts it), and whole where it fits.
    counts = [line.split("│")[3].strip() for line in ours if line.startswith("│")]
    counts = [count for count in counts if count]
    assert len(counts) == len(model.layers), ours
    if kwargs.get("line_length", 80) >= 61 and not kwargs.get("show_trainable"):
        assert "Param #" in "".join(header)
        assert counts == [f"{layer.count_params():,}" for layer in model.layers]
    assert ours == theirs


def test_a_cell_breaks_at_spaces_and_cuts_a_long_word_with_an_ellipsis():
    from lamina.models.summary_utils import _wrap

    assert _wrap("embedding_1 (Embedding)", 14) == ["embedding_1   ", "(Embedding)   "]
    assert _wrap("input_layer_1[0][0]", 18) == ["input_layer_1[0][…"]
    assert _wrap("128,000", 9, "right") == ["  128,000"]
    assert _wrap("Param #", 3, "right") == ["Pa…", "  #"]
