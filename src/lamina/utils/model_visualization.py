"""A picture of a model: `plot_model`, `model_to_dot` and `model_to_svg`.

Keras draws models through pydot and the graphviz binary, a frequent installation
failure. lamina lays the picture out itself and writes SVG with no dependency:

* one box per operation (a layer, or an op such as `x + y` recorded in the graph), so a
  shared layer is drawn once with every edge it has;
* ranks from the model's own depths (`operations_by_depth`: inputs at the top, outputs
  at the bottom), long edges routed through the ranks they cross, the order within a
  rank chosen by barycentre sweeps that reduce crossings, then positions along each
  rank pulled towards the neighbours without overlapping;
* a nested model expanded (`expand_nested=True`) is laid out the same way, recursively,
  inside a dashed rounded rectangle labelled with its name, and an edge into or out of
  it goes to the inner layer Keras connects it to;
* text widths come from Helvetica's character widths, so a box always holds its label.

The labels say what Keras's say (`name (Class)`, `Activation: relu`,
`Input shape: (None, 32)`, `Output shape: (None, 10)`, `Output dtype: float32`,
`Trainable`). PNG and PDF need a rasteriser: `cairosvg` when it is installed, else the
graphviz `dot` binary (which lays out the DOT text with its own layout).

The geometry (labels, ranks, ordering, positions, edge routes) is computed in
`lamina.utils.model_layout`; this module turns it into SVG, DOT text and files.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess

from lamina.utils.model_layout import (
    _CELL_H,
    _CLUSTER_PAD,
    _ROW_SIZE,
    _TITLE_SIZE,
    _is_expandable,
    _Label,
    _layout,
    _Scene,
    _shown_operations,
    _text_width,
)

_ARROW_ID = "lamina-arrow"
_FONT = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"
_SPLINES = ("ortho", "line", "polyline", "spline", "curved", "true", "false", "none")


# SVG -------------------------------------------------------------------------------
def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _dedupe(points) -> list:
    out = [points[0]]
    for p in points[1:]:
        if abs(p[0] - out[-1][0]) > 1e-6 or abs(p[1] - out[-1][1]) > 1e-6:
            out.append(p)
    return out


def _path(points, way, kind: str, splines: str, tb: bool) -> str:
    """SVG path data: right angles through the lanes (`ortho`), or straight or curved
    lines through the ranks the edge crosses."""
    if kind == "forward" and splines in ("spline", "curved", "true"):
        pts = _dedupe(way)
        d = f"M{_num(pts[0][0])},{_num(pts[0][1])}"
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):  # noqa: RUF007
            if tb:
                m = (y0 + y1) / 2
                d += f" C{_num(x0)},{_num(m)} {_num(x1)},{_num(m)} {_num(x1)},{_num(y1)}"
            else:
                m = (x0 + x1) / 2
                d += f" C{_num(m)},{_num(y0)} {_num(m)},{_num(y1)} {_num(x1)},{_num(y1)}"
        return d
    if kind == "forward" and splines in ("line", "polyline", "false", "none"):
        points = way
    pts = _dedupe(points)
    return f"M{_num(pts[0][0])},{_num(pts[0][1])}" + "".join(
        f" L{_num(x)},{_num(y)}" for x, y in pts[1:]
    )


def _svg_box(index: int, op, label: _Label, x, y, w, h) -> list[str]:
    kind = "op" if label.is_op else "layer"
    header = "#4a4a4a" if label.is_op else "black"
    out = [
        f'<g class="node {kind}" id="node{index}" data-name="{_esc(op.name)}" '
        f'data-class="{_esc(label.class_name)}">',
        f"<title>{_esc(op.name)} ({_esc(label.class_name)})</title>",
        f'<rect class="box" x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
        f'fill="white" stroke="black" stroke-width="1.5"/>',
    ]
    th = _CELL_H[_TITLE_SIZE]
    out.append(
        f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{th}" fill="{header}"/>'
    )
    out.append(_text("title", x + w / 2, y + th / 2 + 5.5, _TITLE_SIZE, label.title, "white"))
    top = y + th
    rh = _CELL_H[_ROW_SIZE]
    if label.activation is not None:
        parts = [("Activation: ", False), (label.activation, True)]
        out.append(_text("activation", x + w / 2, top + rh / 2 + 5, _ROW_SIZE, parts, "black"))
        top += rh
        out.append(_hline(x, x + w, top) if label.cells else "")
    if label.cells:
        widths = label.cell_widths()
        scale = w / sum(widths)
        cx = x
        for i, ((caption, value, fill), cw) in enumerate(zip(label.cells, widths, strict=True)):
            cw *= scale
            if fill != "white":
                out.append(
                    f'<rect x="{_num(cx)}" y="{_num(top)}" width="{_num(cw)}" height="{rh}" '
                    f'fill="{fill}" stroke="black" stroke-width="1"/>'
                )
            if i:
                out.append(
                    f'<line x1="{_num(cx)}" y1="{_num(top)}" x2="{_num(cx)}" '
                    f'y2="{_num(top + rh)}" stroke="black" stroke-width="1"/>'
                )
            color = "black" if fill == "white" else "white"
            parts = [(caption, False), (value, True)]
            out.append(_text("cell", cx + cw / 2, top + rh / 2 + 5, _ROW_SIZE, parts, color))
            cx += cw
    out.append("</g>")
    return [line for line in out if line]


def _text(cls: str, centre: float, y: float, size: int, parts, fill: str) -> str:
    """One line of regular and bold runs, centred on `centre`. It starts at the
    estimated left end rather than using `text-anchor="middle"`, which some renderers
    (cairosvg) apply to each run separately."""
    width = sum(_text_width(t, size, b, margin=1.0) for t, b in parts)
    spans = "".join(
        f'<tspan font-weight="{"bold" if bold else "normal"}">{_esc(text)}</tspan>'
        for text, bold in parts
        if text
    )
    return (
        f'<text class="{cls}" x="{_num(centre - width / 2)}" y="{_num(y)}" '
        f'font-size="{size}" fill="{fill}">{spans}</text>'
    )


def _hline(x0, x1, y) -> str:
    return (
        f'<line x1="{_num(x0)}" y1="{_num(y)}" x2="{_num(x1)}" y2="{_num(y)}" '
        'stroke="black" stroke-width="1"/>'
    )


def _check_model(model) -> None:
    if not getattr(model, "built", False):
        raise ValueError(
            f"Model {getattr(model, 'name', model)!r} has not been built yet, so its layers "
            "and shapes are unknown. Build it first: call `build(input_shape)`, call it on "
            "a batch of data, or start it with an `Input`."
        )


def _refuse_layer_range(layer_range) -> None:
    # Keras 3 takes `layer_range` (Keras 2's way to draw part of a model) and refuses
    # any value but None.
    if layer_range is not None:
        raise ValueError(
            f"Argument `layer_range` is no longer supported (as in Keras 3); received "
            f"layer_range={layer_range!r}. Draw a sub-model instead."
        )


def _options(
    show_shapes,
    show_dtype,
    show_layer_names,
    rankdir,
    expand_nested,
    show_layer_activations,
    show_trainable,
    splines,
    kwargs,
) -> dict:
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {sorted(kwargs)}.")
    if rankdir not in ("TB", "LR"):
        raise ValueError(
            f'rankdir must be "TB" (top to bottom) or "LR" (left to right); received {rankdir!r}.'
        )
    if str(splines).lower() not in _SPLINES:
        raise ValueError(f"splines must be one of {list(_SPLINES)}; received {splines!r}.")
    return {
        "show_shapes": bool(show_shapes),
        "show_dtype": bool(show_dtype),
        "show_layer_names": bool(show_layer_names),
        "rankdir": rankdir,
        "expand_nested": bool(expand_nested),
        "show_layer_activations": bool(show_layer_activations),
        "show_trainable": bool(show_trainable),
        "splines": str(splines).lower(),
    }


def _scene(model, options: dict):
    if getattr(model, "_function", None) is None:
        # A subclassed model (or a bare layer) is a single box, as in Keras.
        label = _Label(model, options)
        scene = _Scene()
        w, h = label.size()
        scene.boxes.append((model, label, 0.0, 0.0, w, h))
        return scene, w, h
    return _layout(model, options)


def _render_svg(model, options: dict, dpi) -> str:
    scene, width, height = _scene(model, options)
    margin = 10.0
    scene.shift(margin, margin)
    width, height = width + 2 * margin, height + 2 * margin
    tb = options["rankdir"] == "TB"
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" '
        f'height="{_num(height)}" viewBox="0 0 {_num(width)} {_num(height)}" '
        f'font-family="{_FONT}" data-rankdir="{options["rankdir"]}" data-dpi="{_esc(dpi)}">',
        f"<title>{_esc(model.name)}</title>",
        f'<defs><marker id="{_ARROW_ID}" viewBox="0 0 10 10" refX="9" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="black"/></marker></defs>',
        f'<rect class="background" width="{_num(width)}" height="{_num(height)}" fill="white"/>',
    ]
    for model_, x, y, w, h in scene.clusters:
        out.append(
            f'<g class="cluster" data-name="{_esc(model_.name)}">'
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" rx="10" '
            'fill="#f7f7fb" stroke="#555" stroke-width="1.2" stroke-dasharray="6,4"/>'
            f'<text x="{_num(x + _CLUSTER_PAD)}" y="{_num(y + 18)}" font-size="{_ROW_SIZE}" '
            f'font-weight="bold" fill="#333">{_esc(model_.name)}</text></g>'
        )
    for src, dst, points, kind, way in scene.edges:
        d = _path(points, way, kind, options["splines"], tb)
        out.append(
            f'<g class="edge" data-source="{_esc(src.name)}" data-target="{_esc(dst.name)}">'
            f'<path d="{d}" fill="none" stroke="black" stroke-width="1.5" '
            f'marker-end="url(#{_ARROW_ID})"/></g>'
        )
    for index, (op, label, x, y, w, h) in enumerate(scene.boxes):
        out.extend(_svg_box(index, op, label, x, y, w, h))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# DOT -------------------------------------------------------------------------------
def _dot_label(label: _Label) -> str:
    cells = label.cells
    colspan = max(1, len(cells))
    title = "".join(f"<b>{_esc(t)}</b>" if b else _esc(t) for t, b in label.title)
    rows = (
        f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" color="white">'
        f"{title}</font></td></tr>"
    )
    if label.activation is not None:
        rows += (
            f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
            f"Activation: <b>{_esc(label.activation)}</b></font></td></tr>"
        )
    if cells:
        tds = "".join(
            f'<td bgcolor="{fill}"><font point-size="14"'
            f"{'' if fill == 'white' else ' color=' + chr(34) + 'white' + chr(34)}>"
            f"{_esc(c)}<b>{_esc(v)}</b></font></td>"
            for c, v, fill in cells
        )
        rows += f"<tr>{tds}</tr>"
    return f'<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">{rows}</table>>'


def _dot_text(model, options: dict, dpi, subgraph: bool = False) -> str:
    ids: dict = {}

    def node_id(op):
        return ids.setdefault(id(op), f"n{len(ids)}")

    lines: list[str] = []

    def emit_model(m, indent):
        pad = "  " * indent
        if getattr(m, "_function", None) is None:
            lines.append(f"{pad}{node_id(m)} [label={_dot_label(_Label(m, options))}];")
            return
        for op in _shown_operations(m):
            if options["expand_nested"] and _is_expandable(op):
                lines.append(f'{pad}subgraph "cluster_{_esc(op.name)}" {{')
                lines.append(f'{pad}  graph [style=dashed, label="{_esc(op.name)}", labeljust=l];')
                emit_model(op, indent + 1)
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{node_id(op)} [label={_dot_label(_Label(op, options))}];")

    head = [
        "digraph G {",
        f"  graph [rankdir={options['rankdir']}, concentrate=true, dpi={dpi}, "
        f"splines={options['splines']}];",
        '  node [shape=record, fontname="Helvetica", margin=0];',
    ]
    if subgraph:
        head += [
            f'  subgraph "cluster_{_esc(model.name)}" {{',
            f'    graph [style=dashed, label="{_esc(model.name)}", labeljust=l];',
        ]
    emit_model(model, 2 if subgraph else 1)
    if getattr(model, "_function", None) is not None:
        scene, _, _ = _layout(model, options)
        pad = "    " if subgraph else "  "
        for src, dst, *_ in scene.edges:
            lines.append(f"{pad}{node_id(src)} -> {node_id(dst)} [penwidth=2];")
    tail = (["  }"] if subgraph else []) + ["}"]
    return "\n".join(head + lines + tail) + "\n"


# Public API --------------------------------------------------------------------------
def model_to_svg(
    model,
    show_shapes=False,
    show_dtype=False,
    show_layer_names=True,
    rankdir="TB",
    expand_nested=False,
    dpi=200,
    show_layer_activations=False,
    show_trainable=False,
    splines="ortho",
    **kwargs,
) -> str:
    """Draw a model as SVG text, with no graphviz and no pydot.

    Args:
        model: a built model (functional, Sequential; a subclassed model is one box).
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's output dtype.
        show_layer_names: title each box `name (Class)` rather than `Class`.
        rankdir: `"TB"` (inputs at the top) or `"LR"` (inputs on the left).
        expand_nested: draw nested models as labelled clusters of their layers.
        dpi: recorded on the drawing; used when it is rasterised.
        show_layer_activations: show the activation of layers that have one.
        show_trainable: mark layers with weights as trainable or not.
        splines: edge style: `"ortho"` (right angles, the default), `"line"` /
            `"polyline"` (straight), `"spline"` / `"curved"` (smooth).

    Returns:
        The SVG document as a string.

    >>> import lamina
    >>> x = lamina.Input((3,), name="x")
    >>> model = lamina.Model(x, lamina.layers.Dense(2, name="d")(x))
    >>> svg = model_to_svg(model, show_shapes=True)
    >>> svg.count('class="edge"'), "Output shape: " in svg
    (1, True)
    """
    _check_model(model)
    _refuse_layer_range(kwargs.pop("layer_range", None))
    options = _options(
        show_shapes,
        show_dtype,
        show_layer_names,
        rankdir,
        expand_nested,
        show_layer_activations,
        show_trainable,
        splines,
        dict(kwargs),
    )
    return _render_svg(model, options, dpi)


def model_to_dot(
    model,
    show_shapes=False,
    show_dtype=False,
    show_layer_names=True,
    rankdir="TB",
    expand_nested=False,
    dpi=200,
    subgraph=False,
    show_layer_activations=False,
    show_trainable=False,
    splines="ortho",
    **kwargs,
):
    """Convert a model to a `pydot.Dot` graph, as Keras does (needs `pydot`).

    The graph has Keras's nodes and labels (HTML-like tables) and the same edges as
    lamina's own picture. Without pydot, use `model_to_svg` or `plot_model(model,
    to_file="model.svg")`, which need nothing, or `to_file="model.dot"` for DOT text.

    Args:
        model: a built model.
        show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi,
            show_layer_activations, show_trainable, splines: as for `plot_model`.
        subgraph: return the model as a cluster subgraph (to nest in another graph).

    Returns:
        A `pydot.Dot` (a `pydot` subgraph named `cluster_<model name>` when
        `subgraph=True`).

    Raises:
        ImportError: when pydot is not installed.

    >>> import pathlib, tempfile
    >>> import lamina
    >>> model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="dense")])
    >>> try:
    ...     dot = lamina.utils.model_to_dot(model, show_shapes=True).to_string()
    ... except ImportError:  # no pydot here: plot_model writes the same DOT text without it
    ...     path = pathlib.Path(tempfile.mkdtemp()) / "model.dot"
    ...     _ = lamina.utils.plot_model(model, to_file=str(path), show_shapes=True)
    ...     dot = path.read_text()
    >>> dot.startswith("digraph"), "(None, 2)" in dot  # a Dense node with its shapes
    (True, True)
    """
    _check_model(model)
    _refuse_layer_range(kwargs.pop("layer_range", None))
    options = _options(
        show_shapes,
        show_dtype,
        show_layer_names,
        rankdir,
        expand_nested,
        show_layer_activations,
        show_trainable,
        splines,
        dict(kwargs),
    )
    try:
        import pydot
    except ImportError:
        raise ImportError(
            "model_to_dot returns a pydot graph, and pydot is not installed: install it "
            "(`pip install pydot`), or draw without it: `lamina.utils.model_to_svg(model)` "
            'or `plot_model(model, to_file="model.svg")` (or "model.dot" for DOT text).'
        ) from None
    graph = pydot.graph_from_dot_data(_dot_text(model, options, dpi, subgraph=subgraph))[0]
    if subgraph:
        return graph.get_subgraphs()[0]
    return graph


def _rasterise(svg: str, dot: str, path: str, extension: str, dpi) -> None:
    try:
        import cairosvg
    except ImportError:
        cairosvg = None
    if cairosvg is not None and extension in ("png", "pdf", "ps"):
        convert = {"png": cairosvg.svg2png, "pdf": cairosvg.svg2pdf, "ps": cairosvg.svg2ps}
        # The drawing is in CSS pixels (96 to the inch): scale it to the asked resolution.
        scale = float(dpi) / 96 if dpi else 1.0
        convert[extension](bytestring=svg.encode("utf-8"), write_to=path, dpi=dpi, scale=scale)
        return
    dot_binary = shutil.which("dot")
    if dot_binary is not None:
        result = subprocess.run(
            [dot_binary, f"-T{extension}", "-o", path],
            input=dot.encode("utf-8"),
            capture_output=True,
            check=False,
        )
        if result.returncode == 0:
            return
        raise OSError(
            f"graphviz `dot -T{extension}` failed writing {path!r}: "
            f"{result.stderr.decode('utf-8', 'replace').strip()}"
        )
    raise ImportError(
        f"plot_model cannot write a .{extension} file here: that needs a rasteriser, and "
        "neither cairosvg (`pip install cairosvg`) nor the graphviz `dot` binary is "
        'installed. Write SVG instead (to_file="model.svg"), which needs nothing, or '
        "install one of them."
    )


def _display(path: str, extension: str):
    """What Keras returns in a notebook: the picture as an IPython object, when IPython
    is importable; else None."""
    if extension in ("pdf", "ps", "dot", "gv"):
        return None
    try:
        from IPython import display
    except ImportError:
        return None
    if extension == "svg":
        return display.SVG(filename=path)
    return display.Image(filename=path)


def plot_model(
    model,
    to_file="model.png",
    show_shapes=False,
    show_dtype=False,
    show_layer_names=False,
    rankdir="TB",
    expand_nested=False,
    dpi=200,
    show_layer_activations=False,
    show_trainable=False,
    splines="ortho",
    **kwargs,
):
    """Draw a model and write the picture to a file, as Keras's `plot_model`.

    The file type follows the extension of `to_file`:

    * `.svg`: lamina's own drawing; needs nothing installed.
    * `.dot` / `.gv`: the graph as DOT text (graphviz's language).
    * `.png`, `.pdf`, `.ps`: the SVG rasterised by `cairosvg` when it is importable;
      else, when the graphviz `dot` binary is installed, graphviz renders the DOT text
      (with its own layout); else an ImportError says to write `.svg` or install one.
      Other extensions (`.jpg`, …) go to graphviz. No extension means PNG, as in Keras.

    Args:
        model: a built model (functional or Sequential; a subclassed model is drawn as
            a single box).
        to_file: where to write the picture.
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's output dtype.
        show_layer_names: title each box `name (Class)` rather than `Class`.
        rankdir: `"TB"` for a vertical picture, `"LR"` for a horizontal one.
        expand_nested: draw nested models as labelled clusters of their layers (else
            each is one box).
        dpi: resolution of a rasterised picture.
        show_layer_activations: show the activation of layers that have one.
        show_trainable: mark layers with weights as trainable or not.
        splines: edge style: `"ortho"` (right angles), `"line"`, `"polyline"`,
            `"spline"` or `"curved"`.

    Returns:
        When IPython is importable, the picture as an `IPython.display` object (`SVG`
        for `.svg`, `Image` otherwise; None for PDF and DOT), to show in a notebook;
        else None.

    >>> import pathlib, tempfile, lamina
    >>> x = lamina.Input((3,))
    >>> model = lamina.Model(x, lamina.layers.Dense(2)(x))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.svg"
    >>> _ = plot_model(model, to_file=path, show_shapes=True)
    >>> path.read_text().startswith("<?xml")
    True
    """
    _check_model(model)
    _refuse_layer_range(kwargs.pop("layer_range", None))
    options = _options(
        show_shapes,
        show_dtype,
        show_layer_names,
        rankdir,
        expand_nested,
        show_layer_activations,
        show_trainable,
        splines,
        dict(kwargs),
    )
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:].lower() or "png"
    if extension == "svg":
        with open(to_file, "w", encoding="utf-8") as f:
            f.write(_render_svg(model, options, dpi))
    elif extension in ("dot", "gv"):
        with open(to_file, "w", encoding="utf-8") as f:
            f.write(_dot_text(model, options, dpi))
    else:
        _rasterise(
            _render_svg(model, options, dpi),
            _dot_text(model, options, dpi),
            to_file,
            extension,
            dpi,
        )
    return _display(to_file, extension)


__all__ = ["model_to_dot", "model_to_svg", "plot_model"]
