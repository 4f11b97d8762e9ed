"""plot_model / model_to_dot / model_to_svg: lamina's own picture of a model.

The SVG is parsed with `xml.etree` and checked against the model's graph, read
independently here from the nodes: every layer has one box, every connection one edge,
no two boxes overlap, nested models are clusters holding their layers' boxes.
"""

from __future__ import annotations

import inspect
import itertools
import os
import shutil
import sys
import types
import xml.etree.ElementTree as ET

import pytest

import lamina
from lamina import layers
from lamina.utils import model_to_dot, model_to_svg, plot_model

SVG = "{http://www.w3.org/2000/svg}"


def _multi_io_model():
    inner_in = lamina.Input((16,), name="inner_in")
    h = layers.Dense(8, activation="relu", name="inner_dense")(inner_in)
    h = layers.Dropout(0.1, name="inner_drop")(h)
    encoder = lamina.Model(inner_in, h, name="encoder")
    a = lamina.Input((32,), name="image_features")
    b = lamina.Input((16,), name="text_features")
    shared = layers.Dense(16, name="shared_proj")
    x = shared(layers.Dense(16, activation="relu", name="image_proj")(a))
    y = shared(b)
    z = encoder(x) + encoder(y)  # an op node (`add`) in the graph
    out1 = layers.Dense(10, activation="softmax", name="class_out")(z)
    out2 = layers.Dense(1, name="score_out")(layers.Concatenate(name="concat")([z, y]))
    return lamina.Model([a, b], [out1, out2], name="multi_io")


@pytest.fixture(scope="module")
def model():
    return _multi_io_model()


def _parse(svg: str):
    root = ET.fromstring(svg.split("?>", 1)[1])
    boxes, clusters, edges = {}, {}, []
    for g in root.iter(f"{SVG}g"):
        cls = g.get("class", "").split()
        if "node" in cls:
            rect = next(r for r in g.iter(f"{SVG}rect") if r.get("class") == "box")
            text = " ".join("".join(t.itertext()) for t in g.iter(f"{SVG}text"))
            assert g.get("data-name") not in boxes, f"{g.get('data-name')} drawn twice"
            boxes[g.get("data-name")] = {"rect": _rect(rect), "text": text, "class": cls}
        elif "cluster" in cls:
            clusters[g.get("data-name")] = _rect(g.find(f"{SVG}rect"))
        elif "edge" in cls:
            path = g.find(f"{SVG}path").get("d")
            edges.append((g.get("data-source"), g.get("data-target"), path))
    return root, boxes, clusters, edges


def _rect(el):
    return tuple(float(el.get(k)) for k in ("x", "y", "width", "height"))


def _overlap(r1, r2) -> bool:
    x1, y1, w1, h1 = r1
    x2, y2, w2, h2 = r2
    return x1 < x2 + w2 and x2 < x1 + w1 and y1 < y2 + h2 and y2 < y1 + h1


def _inside(inner, outer) -> bool:
    x1, y1, w1, h1 = inner
    x2, y2, w2, h2 = outer
    return x2 <= x1 and y2 <= y1 and x1 + w1 <= x2 + w2 and y1 + h1 <= y2 + h2


def _connections(model, expand: bool) -> set:
    """(source name, destination name) for every input of every node in the graph,
    read from the nodes' histories; with `expand`, an edge touching a nested model goes
    to the layer inside it that makes the output / takes the input."""
    found = set()
    nodes = model._function.nodes
    for node in nodes:
        op = node.operation
        for i, x in enumerate(node.input_tensors):
            src, _, t = x._keras_history
            dst = op
            if expand:
                while getattr(src, "_function", None) is not None:
                    src, _, t = src._function.outputs[t]._keras_history
                while getattr(dst, "_function", None) is not None:
                    dst = dst._function.inputs[i]._keras_history.operation
            found.add((src.name, dst.name))
        if expand and getattr(op, "_function", None) is not None:
            found |= _connections(op, expand)
    return found


def test_every_layer_edge_and_shape_is_drawn(model):
    _, boxes, clusters, edges = _parse(model_to_svg(model, show_shapes=True))
    names = {op.name for op in model._function.operations}
    assert set(boxes) == names
    add = next(op.name for op in model._function.operations if op.name.startswith("add"))
    assert "op" in boxes[add]["class"] and "(Add)" in boxes[add]["text"]
    assert clusters == {}
    drawn = [(s, d) for s, d, _ in edges]
    assert len(drawn) == len(set(drawn))
    assert set(drawn) == _connections(model, expand=False)
    for op in model._function.operations:
        text = boxes[op.name]["text"]
        assert op.name in text  # model_to_svg titles boxes `name (Class)`
        assert f"Output shape: {op._inbound_nodes[0].output_shapes[0]}" in text
    assert "Input shape: (None, 32)" in boxes["image_proj"]["text"]
    assert "Output shape: (None, 10)" in boxes["class_out"]["text"]
    assert "Input shape" not in boxes["image_features"]["text"]  # as Keras: no input row


def test_boxes_never_overlap_and_hold_their_text(model):
    from PIL import ImageFont

    font = ImageFont.load_default(size=16)
    for rankdir, expand in itertools.product(("TB", "LR"), (False, True)):
        _, boxes, clusters, _ = _parse(
            model_to_svg(
                model,
                show_shapes=True,
                show_dtype=True,
                show_layer_activations=True,
                show_trainable=True,
                rankdir=rankdir,
                expand_nested=expand,
            )
        )
        for (n1, b1), (n2, b2) in itertools.combinations(boxes.items(), 2):
            assert not _overlap(b1["rect"], b2["rect"]), (rankdir, n1, n2)
        for name, box in boxes.items():
            # Pillow's own font metrics for the title, an independent width estimate.
            title = f"{name} ({box['text'].split('(', 1)[1].split(')')[0]})"
            assert font.getlength(title) + 8 <= box["rect"][2], (name, box["rect"])


def test_nested_model_is_a_cluster_holding_its_layers(model):
    svg = model_to_svg(model, show_shapes=True, expand_nested=True)
    _, boxes, clusters, edges = _parse(svg)
    inner = {"inner_in", "inner_dense", "inner_drop"}
    assert set(clusters) == {"encoder"}
    assert "encoder" not in boxes and inner <= set(boxes)
    for name in inner:
        assert _inside(boxes[name]["rect"], clusters["encoder"])
    for name in set(boxes) - inner:
        assert not _overlap(boxes[name]["rect"], clusters["encoder"]), name
    assert {(s, d) for s, d, _ in edges} == _connections(model, expand=True)
    assert ("shared_proj", "inner_in") in {(s, d) for s, d, _ in edges}
    assert 'font-weight="bold" fill="#333">encoder</text>' in svg


def _centre(rect):
    x, y, w, h = rect
    return x + w / 2, y + h / 2


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_orientation(model, rankdir):
    _, boxes, _, edges = _parse(model_to_svg(model, rankdir=rankdir))
    axis = 1 if rankdir == "TB" else 0
    for src, dst, _ in edges:
        assert _centre(boxes[src]["rect"])[axis] < _centre(boxes[dst]["rect"])[axis], (src, dst)


def test_lr_is_tb_turned(model):
    def aspect(rankdir):
        root = ET.fromstring(model_to_svg(model, rankdir=rankdir).split("?>", 1)[1])
        return float(root.get("height")) / float(root.get("width"))

    assert aspect("TB") > 2 * aspect("LR")


def test_shared_layer_is_drawn_once_with_all_its_edges(model):
    svg = model_to_svg(model)
    _, boxes, _, edges = _parse(svg)
    assert svg.count('data-name="shared_proj"') == 1
    assert {s for s, d, _ in edges if d == "shared_proj"} == {"image_proj", "text_features"}
    assert {d for s, d, _ in edges if s == "shared_proj"} == {"encoder", "concat"}


def test_layer_reused_downstream_of_itself_still_draws():
    # x -> shared -> mid -> shared: the layer-level graph has a cycle.
    x = lamina.Input((4,), name="x")
    shared = layers.Dense(4, name="shared")
    y = shared(layers.Dense(4, name="mid")(shared(x)))
    model = lamina.Model(x, y)
    _, boxes, _, edges = _parse(model_to_svg(model, splines="spline"))
    assert set(boxes) == {"x", "shared", "mid"}
    assert {(s, d) for s, d, _ in edges} == {("x", "shared"), ("shared", "mid"), ("mid", "shared")}


def test_labels_follow_the_options(model):
    _, boxes, _, _ = _parse(model_to_svg(model, show_layer_names=False))
    assert boxes["class_out"]["text"].strip() == "Dense"
    _, boxes, _, _ = _parse(
        model_to_svg(model, show_dtype=True, show_layer_activations=True, show_trainable=True)
    )
    assert "Activation: softmax" in boxes["class_out"]["text"]
    assert "Output dtype: float32" in boxes["class_out"]["text"]
    assert "Trainable" in boxes["class_out"]["text"]
    assert "Trainable" not in boxes["concat"]["text"]  # no weights, no mark (as Keras)
    model.get_layer("score_out").trainable = False
    try:
        _, boxes, _, _ = _parse(model_to_svg(model, show_trainable=True))
        assert "Non-trainable" in boxes["score_out"]["text"]
    finally:
        model.get_layer("score_out").trainable = True


def test_sequential_and_subclassed():
    seq = lamina.Sequential(
        [lamina.Input((5,)), layers.Dense(4, name="s1"), layers.Dense(3, name="s2")], name="seq"
    )
    _, boxes, _, edges = _parse(model_to_svg(seq))
    assert set(boxes) == {"s1", "s2"}  # no InputLayer box, as Keras
    assert [(s, d) for s, d, _ in edges] == [("s1", "s2")]

    # A Sequential nested and expanded: the edge enters its first layer.
    x = lamina.Input((5,), name="x")
    outer = lamina.Model(x, layers.Dense(2, name="head")(seq(x)))
    _, boxes, clusters, edges = _parse(model_to_svg(outer, expand_nested=True))
    assert set(clusters) == {"seq"}
    assert {(s, d) for s, d, _ in edges} == {("x", "s1"), ("s1", "s2"), ("s2", "head")}

    class Sub(lamina.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    sub = Sub()
    with pytest.raises(ValueError, match="not been built"):
        model_to_svg(sub)
    sub.build((None, 3))
    _, boxes, _, edges = _parse(model_to_svg(sub))
    assert list(boxes) == ["sub"] and edges == []


def test_signatures_match_keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    for ours, theirs in (
        (plot_model, keras.utils.plot_model),
        (model_to_dot, keras.utils.model_to_dot),
    ):
        a, b = inspect.signature(ours).parameters, inspect.signature(theirs).parameters
        assert list(a) == list(b)
        assert [p.default for p in a.values()] == [p.default for p in b.values()]


def test_bad_arguments(model):
    with pytest.raises(ValueError, match="rankdir"):
        model_to_svg(model, rankdir="BT")
    with pytest.raises(ValueError, match="layer_range"):
        model_to_svg(model, layer_range=["a", "b"])
    with pytest.raises(ValueError, match="Unrecognized"):
        model_to_svg(model, colour="red")


def test_plot_model_files(model, tmp_path, monkeypatch):
    svg_path = tmp_path / "m.svg"
    assert plot_model(model, to_file=svg_path, expand_nested=True) is None  # no IPython
    _, boxes, _, _ = _parse(svg_path.read_text())
    assert "inner_dense" in boxes

    dot_path = tmp_path / "m.dot"
    plot_model(model, to_file=str(dot_path), rankdir="LR")
    text = dot_path.read_text()
    assert text.startswith("digraph") and "rankdir=LR" in text
    assert text.count("->") == len(_connections(model, expand=False))

    # PNG without any rasteriser: a clear error that says what to do.
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(ImportError, match=r"cairosvg.*graphviz.*\.svg"):
        plot_model(model, to_file=tmp_path / "m.png")
    with pytest.raises(ImportError, match="rasteriser"):
        plot_model(model, to_file=tmp_path / "m")  # no extension: PNG, as Keras

    # With cairosvg importable, it rasterises lamina's SVG at the asked dpi.
    calls = []
    fake = types.ModuleType("cairosvg")
    fake.svg2png = lambda **kw: calls.append(kw)
    fake.svg2pdf = fake.svg2ps = fake.svg2png
    monkeypatch.setitem(sys.modules, "cairosvg", fake)
    plot_model(model, to_file=tmp_path / "m.png", dpi=96)
    assert calls[0]["write_to"].endswith("m.png") and calls[0]["scale"] == 1.0
    assert calls[0]["bytestring"].startswith(b"<?xml")


def test_model_to_dot_needs_pydot(model, monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(ImportError, match="pip install pydot"):
        model_to_dot(model)
    seen = []
    fake = types.ModuleType("pydot")
    fake.graph_from_dot_data = lambda text: seen.append(text) or ["graph"]
    monkeypatch.setitem(sys.modules, "pydot", fake)
    assert model_to_dot(model, show_shapes=True) == "graph"
    assert seen[0].startswith("digraph") and "Output shape: " in seen[0]


@pytest.mark.skipif(
    shutil.which("dot") is None, reason="the graphviz `dot` binary is not installed"
)
def test_png_falls_back_to_graphviz(model, tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.setitem(sys.modules, "cairosvg", None)
    plot_model(model, to_file=tmp_path / "m.png", show_shapes=True, expand_nested=True, dpi=30)
    with Image.open(tmp_path / "m.png") as image:
        assert image.format == "PNG" and min(image.size) > 50
