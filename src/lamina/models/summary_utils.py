"""`Model.summary()`: the table of layers, output shapes and parameter counts."""

from __future__ import annotations

import math
import re
import shutil

import numpy as np

from lamina.common import io_utils
from lamina.graph.operation import FunctionOperation
from lamina.layers.input_layer import InputLayer


def _format_shape(shapes):
    if isinstance(shapes, list):
        if len(shapes) == 1:
            return _format_shape(shapes[0])
        return "[" + ", ".join(_format_shape(s) for s in shapes) + "]"
    return (
        "("
        + ", ".join("None" if d is None else str(d) for d in shapes)
        + (",)" if len(shapes) == 1 else ")")
    )


def _weight_count(weights) -> int:
    return int(sum(math.prod(w.shape) for w in weights))


def _weight_bytes(weights) -> int:
    return int(
        sum(
            math.prod(w.shape) * np.dtype(w.dtype if w.dtype != "bfloat16" else "float16").itemsize
            for w in weights
        )
    )


def _readable_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} GB"


def _is_sequential(model) -> bool:
    return getattr(model, "_is_sequential", False)


def _type_name(op) -> str:
    # A model is shown under its Keras class name (a functional `Model` is Keras's
    # `Functional`), which it knows itself.
    keras_names = getattr(op, "_keras_serialized_names", None)
    if getattr(op, "_is_graph_network", False) and keras_names is not None:
        return keras_names()[1]
    return type(op).__name__


def _is_sequential_like(model) -> bool:
    if _is_sequential(model):
        return True
    if model._function is None:
        return True
    for node in model._function.nodes:
        if len(node.input_tensors) > 1:
            return False
    layers_seen = {}
    for node in model._function.nodes:
        op = node.operation
        layers_seen[id(op)] = layers_seen.get(id(op), 0) + 1
        if layers_seen[id(op)] > 1:
            return False
    return len(model._function.inputs) == 1 and len(model._function.outputs) == 1


def _entries(model):
    """The table's top-level rows, as `(layer or op, row)` pairs, in Keras's order."""
    entries = []
    function = model._function
    if function is None:
        for layer in model.layers:
            row = (
                f"{layer.name} ({type(layer).__name__})",
                _layer_shape(layer),
                _params(layer),
                "",
            )
            entries.append((layer, row))
        return entries
    kept = set(function.nodes)
    is_sequential = _is_sequential(model)
    for op in function.operations:
        if is_sequential and isinstance(op, InputLayer):
            continue
        nodes = [n for n in op._inbound_nodes if n in kept]
        shapes = [n.output_shapes for n in nodes]
        if shapes and all(sh == shapes[0] for sh in shapes):
            shape = _format_shape(shapes[0])
        else:
            shape = "multiple" if shapes else "?"
        if isinstance(op, FunctionOperation):
            type_name = op.function_name.title().replace("_", "")
            params = "0"
        else:
            type_name = _type_name(op)
            params = _params(op)
        connections = []
        for node in nodes:
            for layer, node_index, tensor_index in zip(
                node.inbound_layers, node.node_indices, node.tensor_indices, strict=True
            ):
                connections.append(f"{layer.name}[{node_index}][{tensor_index}]")
        row = (
            f"{op.name} ({type_name})",
            shape,
            params,
            ", ".join(connections) if connections else "-",
        )
        entries.append((op, row))
    return entries


def _params(layer) -> str:
    """The Param # cell: Keras marks a layer not built yet `0 (unbuilt)`."""
    if not getattr(layer, "built", True):
        return "0 (unbuilt)"
    count = layer.count_params() if hasattr(layer, "count_params") else 0
    return f"{count:,}"


def _trainable_mark(layer) -> str:
    """The Trainable cell: Y or N for a layer with weights, `-` for one without."""
    if not getattr(layer, "weights", None):
        return "-"
    return "Y" if layer.trainable else "N"


def _layer_shape(layer) -> str:
    """The output shape of a layer's latest call, as Keras shows a nested layer's."""
    if layer._inbound_nodes:
        return _format_shape(layer._inbound_nodes[-1].output_shapes)
    try:
        return _format_shape(list(layer.output_shape))
    except (AttributeError, ValueError):
        return "?"


def _nested_rows(layer, level: int = 1) -> list:
    """Rows of the layers inside `layer`, indented under it as Keras prints them."""
    rows = []
    for inner in getattr(layer, "layers", None) or []:
        name = f"{'   ' * level}└ {inner.name} ({_type_name(inner)})"
        # Connections are those of the outer graph, which the inner layers are not in.
        rows.append((name, _layer_shape(inner), _params(inner), "-", _trainable_mark(inner)))
        rows.extend(_nested_rows(inner, level + 1))
    return rows


def _layer_range_bounds(entries, layer_range) -> tuple[int, int]:
    """Keras's rule: from the first row whose name matches `layer_range[0]` (a regular
    expression matched at the start of the name) to the last that matches
    `layer_range[1]`, both included; a range given backwards is read forwards."""
    if layer_range is None:
        return 0, len(entries)
    if isinstance(layer_range, str) or len(layer_range) != 2:
        raise ValueError(
            "layer_range must be a list or tuple of two layer names (or patterns), the "
            f"first and last layer to show; received {layer_range!r}."
        )
    if not all(isinstance(name, str) for name in layer_range):
        raise ValueError(
            f"layer_range must hold two strings (layer names or patterns); received "
            f"{layer_range!r}."
        )
    names = [op.name for op, _ in entries]
    first = [i for i, name in enumerate(names) if re.match(layer_range[0], name)]
    last = [i for i, name in enumerate(names) if re.match(layer_range[1], name)]
    for pattern, found in zip(layer_range, (first, last), strict=True):
        if not found:
            raise ValueError(
                f"layer_range {list(layer_range)!r}: no layer name matches {pattern!r}; "
                f"the layers are {names}."
            )
    if first[0] > last[-1]:
        return last[0], first[-1] + 1
    return first[0], last[-1] + 1


# Table layout --------------------------------------------------------------------------
# Keras prints the table with `rich`; lamina lays it out by the same rules, so that a
# summary reads as Keras's line for line. Each column gets `int(position * line_length)`
# characters less the previous position's; a column's cell has one space of padding on
# either side and the line has a border between and around the columns, so what those
# take is then taken from the columns evenly. A cell breaks into lines at spaces only
# (a number or a name never splits), and a word longer than its column is cut with "…".
_WORD = re.compile(r"\s*\S+\s*")


def _fit_widths(widths: list[int], room: int) -> list[int]:
    """The columns' widths (padding included) fitted to `room` characters: an excess is
    taken from every column evenly, left to right; a shortfall is given to the columns
    in proportion to their widths (as rich fits a table of fixed-width columns)."""
    total = sum(widths)
    fitted = []
    if total > room:
        excess, count = total - room, len(widths)
        for width in widths:
            cut = min(width, round(excess / count))
            fitted.append(width - cut)
            excess, count = excess - cut, count - 1
    else:
        extra, weight = room - total, total
        for width in widths:
            added = math.ceil(width * extra / weight) if weight > 0 else extra
            fitted.append(width + added)
            extra, weight = extra - added, weight - width
    return fitted


def _wrap(text: str, width: int, align: str = "left") -> list[str]:
    """The lines of a cell `width` characters wide, padded to it: `text` broken at
    spaces, a word longer than the width cut with "…"."""
    lines = []
    for paragraph in text.split("\n"):
        breaks, used = [], 0
        for word in _WORD.finditer(paragraph):
            length = len(word.group().rstrip())
            if width - used >= length:
                used += len(word.group())
                continue
            if (length > width or used) and word.start():
                breaks.append(word.start())
            used = len(word.group())
        bounds = [0, *breaks, len(paragraph)]
        for begin, end in zip(bounds[:-1], bounds[1:], strict=True):
            line = paragraph[begin:end]
            if len(line) > width:  # trailing spaces past the edge go first
                line = line[:width] + line[width:].rstrip()
            if align != "left":
                line = line.rstrip()
            if len(line) > width:
                line = line[: max(width - 1, 0)] + "…"
            if align == "right":
                line = line.rjust(width)
            elif align == "center":
                line = " " * ((width - len(line)) // 2) + line
            lines.append(line.ljust(width))
    return lines


def print_summary(
    model,
    line_length=None,
    positions=None,
    print_fn=None,
    expand_nested=False,
    show_trainable=False,
    layer_range=None,
):
    """Write the summary table of `model`, as Keras 3 lays it out.

    `print_fn` (when given) is called once with the whole text, as in Keras 3; without
    it the text goes to stdout, or to the `"lamina"` logger when interactive logging is
    off (`lamina.utils.disable_interactive_logging()`).
    """
    # An unbuilt model is listed as Keras 3 lists it: its layers, shape '?', Param #
    # '0 (unbuilt)'.
    graph_mode = model._function is not None and not _is_sequential_like(model)
    headers = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if graph_mode else [])
    # Keras's defaults, narrowed to the terminal (a log gets the 80 columns of no terminal).
    default_length = 108 if graph_mode else 88
    if positions is None:
        positions = [0.3, 0.56, 0.74, 1.0] if graph_mode else [0.45, 0.80, 1.0]
    positions = list(positions)
    if len(positions) != len(headers):
        raise ValueError(
            f"positions must give the right edge of each of the {len(headers)} columns "
            f"{headers}; received {len(positions)} value(s): {positions!r}."
        )
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        headers.append("Trainable")
    fractions = positions[-1] <= 1  # of the line (Keras 3); else offsets (Keras 2)
    if fractions:
        line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
        positions = [int(line_length * p) for p in positions]
    widths = [positions[0]] + [b - a for a, b in zip(positions[:-1], positions[1:], strict=True)]
    if any(w < 4 for w in widths):
        raise ValueError(
            f"Column widths {widths} from line_length={line_length} and positions "
            f"{positions} leave a column narrower than 4 characters: give a larger "
            "line_length or wider positions."
        )
    entries = _entries(model)
    start, stop = _layer_range_bounds(entries, layer_range)
    rows = []
    for op, row in entries[start:stop]:
        rows.append((*row, _trainable_mark(op)))
        if expand_nested:
            rows.extend(_nested_rows(op))

    def select(row):
        cells = list(row[: 4 if graph_mode else 3])
        return cells + [row[4]] if show_trainable else cells

    aligns = ["left", "left", "right"] + ["left"] * graph_mode + ["center"] * show_trainable
    # The cells' widths inside their padding. Keras's: the columns and their padding
    # fitted to the line between its borders. Offsets: each column's right border at its
    # offset.
    if fractions:
        room = line_length - len(widths) - 1
        inner = [max(w - 2, 1) for w in _fit_widths([w + 2 for w in widths], room)]
    else:
        inner = [max(w - 3 - (i == 0), 1) for i, w in enumerate(widths)]
    lines: list[str] = []

    def emit(cells, header=False):
        wrapped = [
            _wrap(str(c), w, align) for c, w, align in zip(cells, inner, aligns, strict=True)
        ]
        height = max(len(w) for w in wrapped)
        # A cell is written from the top of its row, a header from the bottom (as rich).
        for texts, w in zip(wrapped, inner, strict=True):
            blank = [" " * w] * (height - len(texts))
            texts[:] = blank + texts if header else texts + blank
        bar = "┃" if header else "│"
        for parts in zip(*wrapped, strict=True):
            lines.append(bar + bar.join(f" {part} " for part in parts) + bar)

    def rule(left, mid, right, fill):
        lines.append(left + mid.join(fill * (w + 2) for w in inner) + right)

    lines.append(f'Model: "{model.name}"')
    rule("┏", "┳", "┓", "━")
    emit(headers, header=True)
    rule("┡", "╇", "┩", "━")
    for i, row in enumerate(rows):
        emit(select(row))
        if i < len(rows) - 1:
            rule("├", "┼", "┤", "─")
    rule("└", "┴", "┘", "─")
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    opt_vars = []
    if optimizer is not None and getattr(optimizer, "built", False):
        opt_vars = list(optimizer.variables)
    total = trainable + non_trainable + opt_vars
    lines.append(
        f" Total params: {_weight_count(total):,} ({_readable_bytes(_weight_bytes(total))})"
    )
    lines.append(
        f" Trainable params: {_weight_count(trainable):,} "
        f"({_readable_bytes(_weight_bytes(trainable))})"
    )
    lines.append(
        f" Non-trainable params: {_weight_count(non_trainable):,} "
        f"({_readable_bytes(_weight_bytes(non_trainable))})"
    )
    if opt_vars:
        lines.append(
            f" Optimizer params: {_weight_count(opt_vars):,} "
            f"({_readable_bytes(_weight_bytes(opt_vars))})"
        )
    text = "\n".join(lines) + "\n"
    if print_fn is None or print_fn is io_utils.print_msg:
        io_utils.print_msg(text, line_break=False)
    else:
        print_fn(text)
