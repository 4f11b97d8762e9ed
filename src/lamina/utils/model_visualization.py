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
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess

from lamina import tree

_ARROW_ID = "lamina-arrow"
_FONT = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"
_TITLE_SIZE = 16
_ROW_SIZE = 14
_PAD = 8  # inside a label cell
_CELL_H = {_TITLE_SIZE: 30, _ROW_SIZE: 26}
_NODE_SEP = 24  # between neighbours along a rank
_RANK_SEP = 36  # between ranks, before room for edge channels
_CHANNEL_SEP = 7
_CLUSTER_PAD = 14
_CLUSTER_LABEL = 24
_DUMMY_SIZE = 8
_SPLINES = ("ortho", "line", "polyline", "spline", "curved", "true", "false", "none")

# Helvetica advance widths (per 1000 em) for the printable ASCII characters, regular and
# bold: the font Keras's pictures use. Other characters count as a wide 0.65 em.
_ASCII = "".join(chr(c) for c in range(32, 127))
_REGULAR = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]  # fmt: skip
_BOLD = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
]  # fmt: skip
_WIDTHS = {
    False: dict(zip(_ASCII, _REGULAR, strict=True)),
    True: dict(zip(_ASCII, _BOLD, strict=True)),
}


def _text_width(text: str, size: float, bold: bool = False, margin: float = 1.08) -> float:
    """Estimated rendered width of `text`, with a margin for fonts a little wider."""
    table = _WIDTHS[bold]
    return margin * size * sum(table.get(ch, 650) for ch in text) / 1000


# Labels ------------------------------------------------------------------------------
def _shape_text(struct) -> str:
    if struct is None:
        return "?"
    if isinstance(struct, dict):
        return ", ".join(f"{k}: {v}" for k, v in struct.items())
    return str(struct)


def _node_structs(op):
    """`(inputs, outputs)` of the first call of `op`, as Keras's `layer.input` /
    `layer.output` give them (a model: its own input and output structures)."""
    function = getattr(op, "_function", None)
    if function is not None:
        return function._inputs_struct, function._outputs_struct
    if not getattr(op, "_inbound_nodes", None):
        return None, None
    node = op._inbound_nodes[0]

    def flat(tensors):
        return tensors[0] if len(tensors) == 1 else list(tensors)

    return flat(node.input_tensors), flat(node.output_tensors)


def _class_name(op) -> str:
    function_name = getattr(op, "function_name", None)
    if function_name is not None:  # an op recorded in the graph, such as `add`
        return function_name.title().replace("_", "")
    keras_names = getattr(op, "_keras_serialized_names", None)
    if getattr(op, "_is_graph_network", False) and keras_names is not None:
        return keras_names()[1]
    return type(op).__name__


def _activation_name(activation) -> str:
    if hasattr(activation, "name"):
        return str(activation.name)
    if hasattr(activation, "__name__"):
        return activation.__name__
    return str(activation)


class _Label:
    """The text of one box: a title, an optional activation row, a row of cells."""

    def __init__(self, op, options: dict):
        self.name = op.name
        self.class_name = _class_name(op)
        self.is_op = getattr(op, "function_name", None) is not None
        self.title = (
            [(op.name, True), (f" ({self.class_name})", False)]
            if options["show_layer_names"]
            else [(self.class_name, True)]
        )
        self.activation = None
        if options["show_layer_activations"] and getattr(op, "activation", None) is not None:
            self.activation = _activation_name(op.activation)
        self.cells: list[tuple[str, str, str]] = []  # (caption, value, fill)
        inputs, outputs = _node_structs(op)
        if options["show_shapes"]:
            to_shape = lambda x: getattr(x, "shape", None)  # noqa: E731
            in_shape = tree.map_structure(to_shape, inputs) if inputs is not None else None
            out_shape = tree.map_structure(to_shape, outputs) if outputs is not None else None
            if self.class_name != "InputLayer":
                self.cells.append(("Input shape: ", _shape_text(in_shape), "white"))
            self.cells.append(("Output shape: ", _shape_text(out_shape), "white"))
        if options["show_dtype"]:
            dtype = None
            if outputs is not None:
                dtype = tree.map_structure(lambda x: getattr(x, "dtype", None), outputs)
            self.cells.append(("Output dtype: ", str(dtype or "?"), "white"))
        if options["show_trainable"] and getattr(op, "weights", None):
            if op.trainable:
                self.cells.append(("", "Trainable", "forestgreen"))
            else:
                self.cells.append(("", "Non-trainable", "firebrick"))

    def title_width(self) -> float:
        return sum(_text_width(t, _TITLE_SIZE, b) for t, b in self.title)

    def cell_widths(self) -> list[float]:
        return [
            _text_width(c, _ROW_SIZE) + _text_width(v, _ROW_SIZE, True) + 2 * _PAD
            for c, v, _ in self.cells
        ]

    def size(self) -> tuple[float, float]:
        width = self.title_width() + 2 * _PAD
        height = _CELL_H[_TITLE_SIZE]
        if self.activation is not None:
            row = _text_width("Activation: ", _ROW_SIZE) + _text_width(
                self.activation, _ROW_SIZE, True
            )
            width = max(width, row + 2 * _PAD)
            height += _CELL_H[_ROW_SIZE]
        if self.cells:
            width = max(width, sum(self.cell_widths()))
            height += _CELL_H[_ROW_SIZE]
        return max(width, 60.0), float(height)


# The display graph -----------------------------------------------------------------
def _is_expandable(op) -> bool:
    return getattr(op, "_function", None) is not None and hasattr(op, "layers")


def _shown_operations(model) -> list:
    """The operations drawn for `model`: a Sequential hides its InputLayer, as Keras."""
    operations = list(model._function.operations)
    if getattr(model, "_is_sequential", False):
        operations = [op for op in operations if type(op).__name__ != "InputLayer"]
    return operations


def _resolve_source(op, tensor_index: int, expand: bool):
    """The box an edge leaving `op`'s output `tensor_index` starts from: inside an
    expanded model, the layer that makes that output."""
    while expand and _is_expandable(op):
        history = op._function.outputs[tensor_index]._keras_history
        op, tensor_index = history.operation, history.tensor_index
    return op


def _resolve_destination(op, input_index: int, expand: bool):
    """The box an edge entering `op`'s input `input_index` ends at: inside an expanded
    model, its InputLayer for that input (a Sequential: its first layer)."""
    while expand and _is_expandable(op):
        if getattr(op, "_is_sequential", False):
            op = op.layers[0]
        else:
            op = op._function.inputs[input_index]._keras_history.operation
            input_index = 0
    return op


class _Item:
    """One thing placed in a rank: a box, an expanded model's block, or an edge bend."""

    def __init__(self, key, width: float, height: float, op=None, block=None, label=None):
        self.key, self.op, self.block, self.label = key, op, block, label
        self.width, self.height = width, height
        self.rank = 0
        self.cross = 0.0  # centre along the rank
        self.main = 0.0  # start along the rank axis
        self.x = self.y = 0.0  # top-left corner once placed


class _Scene:
    """Everything drawn, in absolute coordinates."""

    def __init__(self):
        self.boxes: list = []  # (op, label, x, y, w, h)
        self.clusters: list = []  # (model, x, y, w, h)
        self.edges: list = []  # (source op, destination op, points, kind)

    def shift(self, dx: float, dy: float) -> None:
        self.boxes = [(o, lb, x + dx, y + dy, w, h) for o, lb, x, y, w, h in self.boxes]
        self.clusters = [(m, x + dx, y + dy, w, h) for m, x, y, w, h in self.clusters]
        self.edges = [
            (s, d, [(x + dx, y + dy) for x, y in pts], k, [(x + dx, y + dy) for x, y in way])
            for s, d, pts, k, way in self.edges
        ]

    def box_of(self, op):
        for box in self.boxes:
            if box[0] is op:
                return box
        raise KeyError(op.name)


def _layout(model, options: dict) -> tuple[_Scene, float, float]:
    """Lay `model` out; returns the scene (origin at 0, 0) and its width and height."""
    tb = options["rankdir"] == "TB"
    expand = options["expand_nested"]
    operations = _shown_operations(model)
    shown = {id(op) for op in operations}
    items: dict = {}
    for op in operations:
        if expand and _is_expandable(op):
            scene, w, h = _layout(op, options)
            block = (scene, w, h)
            items[id(op)] = _Item(
                id(op), w + 2 * _CLUSTER_PAD, h + 2 * _CLUSTER_PAD + _CLUSTER_LABEL, op, block
            )
        else:
            label = _Label(op, options)
            items[id(op)] = _Item(id(op), *label.size(), op=op, label=label)

    # Edges, as Keras finds them: from each node of this graph to the operations that
    # made its inputs, resolved into expanded models; each drawn once.
    kept = set(model._function.nodes)
    edges: list = []  # (source item, destination item, source box op, destination box op)
    seen = set()
    for op in operations:
        for node in op._inbound_nodes:
            if node not in kept:
                continue
            for input_index, x in enumerate(node.input_tensors):
                history = x._keras_history
                source = history.operation
                if id(source) not in shown:
                    continue
                src_box = _resolve_source(source, history.tensor_index, expand)
                dst_box = _resolve_destination(op, input_index, expand)
                key = (id(src_box), id(dst_box))
                if key not in seen:
                    seen.add(key)
                    edges.append((items[id(source)], items[id(op)], src_box, dst_box))

    # Ranks from the model's depths: inputs first, outputs last, empty depths dropped.
    depth_of = {}
    for depth, ops in model._function.operations_by_depth.items():
        for op in ops:
            depth_of[id(op)] = depth
    top = max(depth_of.values(), default=0)
    for item in items.values():
        is_input = type(item.op).__name__ == "InputLayer"
        item.rank = 0 if is_input else top - depth_of.get(item.key, 0) + 1
    used = sorted({item.rank for item in items.values()})
    compact = {r: i for i, r in enumerate(used)}
    for item in items.values():
        item.rank = compact[item.rank]
    num_ranks = len(used)

    # Long edges bend through one small item per rank crossed.
    ranks: list[list] = [[] for _ in range(num_ranks)]
    for item in items.values():
        ranks[item.rank].append(item)
    chains = []  # (edge, [items from source to destination])
    back_edges = []
    for edge in edges:
        u, v = edge[0], edge[1]
        if v.rank <= u.rank:
            back_edges.append(edge)
            continue
        chain = [u]
        for r in range(u.rank + 1, v.rank):
            bend = _Item(("bend", len(chains), r), _DUMMY_SIZE, _DUMMY_SIZE)
            bend.rank = r
            ranks[r].append(bend)
            chain.append(bend)
        chain.append(v)
        chains.append((edge, chain))
    links = [(a, b) for _, chain in chains for a, b in zip(chain, chain[1:])]  # noqa: RUF007
    _order(ranks, links)

    def cross_size(item):
        return item.width if tb else item.height

    def main_size(item):
        return item.height if tb else item.width

    _place_cross(ranks, links, cross_size)
    _straighten(ranks, [chain[1:-1] for _, chain in chains], cross_size)

    # Channels: each edge that moves sideways between two ranks gets its own lane.
    lanes: list[list] = [[] for _ in range(num_ranks)]
    for _, chain in chains:
        for a, b in zip(chain, chain[1:]):  # noqa: RUF007
            lanes[a.rank].append((a, b))
    main = 0.0
    rank_start = []
    for r in range(num_ranks):
        size = max(main_size(item) for item in ranks[r])
        rank_start.append(main)
        for item in ranks[r]:
            item.main = main + (size - main_size(item)) / 2
        main += size + max(_RANK_SEP, (len(lanes[r]) + 1) * _CHANNEL_SEP)
    rank_end = [rank_start[r] + max(main_size(i) for i in ranks[r]) for r in range(num_ranks)]

    for rank in ranks:
        for item in rank:
            c0 = item.cross - cross_size(item) / 2
            item.x, item.y = (c0, item.main) if tb else (item.main, c0)

    scene = _Scene()
    for item in items.values():
        if item.block is not None:
            inner, _, _ = item.block
            inner.shift(item.x + _CLUSTER_PAD, item.y + _CLUSTER_PAD + _CLUSTER_LABEL)
            scene.clusters.append((item.op, item.x, item.y, item.width, item.height))
            scene.clusters.extend(inner.clusters)
            scene.boxes.extend(inner.boxes)
            scene.edges.extend(inner.edges)
        else:
            scene.boxes.append((item.op, item.label, item.x, item.y, item.width, item.height))

    def to_xy(c, m):
        return (c, m) if tb else (m, c)

    def port_cross(box, end):
        # Spread the edges meeting one side of a box, in the order of their far ends.
        _, _, x, y, w, h = box
        centre = x + w / 2 if tb else y + h / 2
        ends = port_users[(id(box[0]), end)]
        if len(ends) == 1:
            return lambda _edge: centre
        span = min((w if tb else h) * 0.5, 12.0 * (len(ends) - 1))
        order = sorted(ends, key=lambda e: e[1])
        slots = {
            id(e[0]): centre - span / 2 + span * i / (len(ends) - 1) for i, e in enumerate(order)
        }
        return lambda edge: slots[id(edge)]

    def box_main(box, start: bool) -> float:
        _, _, x, y, w, h = box
        return (y if start else y + h) if tb else (x if start else x + w)

    # Work out which edges share each side of each box first, to spread them.
    port_users: dict = {}
    for edge, chain in chains:
        _, _, src_op, dst_op = edge
        port_users.setdefault((id(src_op), "out"), []).append((edge, chain[1].cross))
        port_users.setdefault((id(dst_op), "in"), []).append((edge, chain[-2].cross))
    lane_next = [0] * num_ranks
    for edge, chain in chains:
        u, v, src_op, dst_op = edge
        src_box, dst_box = scene.box_of(src_op), scene.box_of(dst_op)
        c = port_cross(src_box, "out")(edge)
        points = [to_xy(c, box_main(src_box, start=False))]
        if u.block is not None:  # leave the expanded model through its border
            points.append(to_xy(c, u.main + main_size(u)))
        end_c = port_cross(dst_box, "in")(edge)
        way = list(points)  # the same route without lanes: for straight or curved edges
        for a, b in zip(chain, chain[1:]):  # noqa: RUF007
            r = a.rank
            target = end_c if b is v else b.cross
            gap = rank_start[r + 1] - rank_end[r]
            lane = rank_end[r] + gap * (lane_next[r] + 1) / (len(lanes[r]) + 1)
            lane_next[r] += 1
            points.append(to_xy(c, lane))
            points.append(to_xy(target, lane))
            if b is not v:
                points.append(to_xy(target, b.main + main_size(b)))
                way.append(to_xy(target, rank_start[b.rank]))
                way.append(to_xy(target, rank_end[b.rank]))
            c = target
        if v.block is not None:
            points.append(to_xy(c, v.main))
            way.append(to_xy(c, v.main))
        points.append(to_xy(c, box_main(dst_box, start=True)))
        way.append(points[-1])
        scene.edges.append((src_op, dst_op, points, "forward", way))
    for _, _, src_op, dst_op in back_edges:
        route = _back_route(scene, src_op, dst_op, tb)
        scene.edges.append((src_op, dst_op, route, "back", route))

    width = height = 0.0
    for _, _, x, y, w, h in scene.boxes:
        width, height = max(width, x + w), max(height, y + h)
    for _, x, y, w, h in scene.clusters:
        width, height = max(width, x + w), max(height, y + h)
    for _, _, points, _, way in scene.edges:
        for x, y in points + way:
            width, height = max(width, x), max(height, y)
    return scene, width, height


def _back_route(scene, src_op, dst_op, tb: bool) -> list:
    """An edge to a rank above (a shared layer fed by its own later output): out of the
    side of the source, round and into the side of the destination."""
    _, _, sx, sy, sw, sh = scene.box_of(src_op)
    _, _, dx, dy, dw, dh = scene.box_of(dst_op)
    if tb:
        out = max(sx + sw, dx + dw) + 30
        return [
            (sx + sw, sy + sh / 2),
            (out, sy + sh / 2),
            (out, dy + dh / 2),
            (dx + dw, dy + dh / 2),
        ]
    out = max(sy + sh, dy + dh) + 30
    return [(sx + sw / 2, sy + sh), (sx + sw / 2, out), (dx + dw / 2, out), (dx + dw / 2, dy + dh)]


def _crossings(ranks, links) -> int:
    position = {id(item): i for rank in ranks for i, item in enumerate(rank)}
    by_rank: dict = {}
    for a, b in links:
        by_rank.setdefault(a.rank, []).append((position[id(a)], position[id(b)]))
    count = 0
    for pairs in by_rank.values():
        for i, (a1, b1) in enumerate(pairs):
            for a2, b2 in pairs[i + 1 :]:
                count += (a1 - a2) * (b1 - b2) < 0
    return count


def _order(ranks, links) -> None:
    """Order each rank by barycentre sweeps (down, then up), keeping the best order."""
    preds: dict = {}
    succs: dict = {}
    for a, b in links:
        succs.setdefault(id(a), []).append(b)
        preds.setdefault(id(b), []).append(a)

    def sweep(rank_ids, neighbours):
        for r in rank_ids:
            position = {id(item): i for rank in ranks for i, item in enumerate(rank)}
            keyed = []
            for i, item in enumerate(ranks[r]):
                near = neighbours.get(id(item))
                key = sum(position[id(n)] for n in near) / len(near) if near else i
                keyed.append((key, i, item))
            ranks[r][:] = [item for _, _, item in sorted(keyed, key=lambda t: (t[0], t[1]))]

    best = [list(rank) for rank in ranks]
    best_count = _crossings(ranks, links)
    for _ in range(6):
        if best_count == 0:
            break
        sweep(range(1, len(ranks)), preds)
        sweep(range(len(ranks) - 2, -1, -1), succs)
        count = _crossings(ranks, links)
        if count < best_count:
            best, best_count = [list(rank) for rank in ranks], count
    for rank, order in zip(ranks, best, strict=True):
        rank[:] = order


def _isotonic(targets: list) -> list:
    """The nondecreasing sequence nearest to `targets` (pool adjacent violators)."""
    blocks: list = []  # [sum, count]
    for t in targets:
        blocks.append([t, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    out = []
    for s, n in blocks:
        out.extend([s / n] * n)
    return out


def _place_cross(ranks, links, cross_size) -> None:
    """Centres along each rank: pulled towards the neighbours in the ranks next to it,
    never closer than the items' half sizes plus a gap."""
    preds: dict = {}
    succs: dict = {}
    for a, b in links:
        succs.setdefault(id(a), []).append(b)
        preds.setdefault(id(b), []).append(a)

    offsets = []
    for rank in ranks:
        offset, previous, row = 0.0, None, []
        for item in rank:
            if previous is not None:
                offset += (cross_size(previous) + cross_size(item)) / 2 + _NODE_SEP
            row.append(offset)
            previous = item
        offsets.append(row)
    widest = max(row[-1] for row in offsets)
    for rank, row in zip(ranks, offsets, strict=True):
        for item, offset in zip(rank, row, strict=True):
            item.cross = offset + (widest - row[-1]) / 2

    def settle(r, neighbour_sets):
        rank, row = ranks[r], offsets[r]
        targets = []
        for item, offset in zip(rank, row, strict=True):
            near = [n for ns in neighbour_sets for n in ns.get(id(item), [])]
            # Weighted as Gansner et al. do: a long edge's bends pull hardest on each
            # other, so it runs straight instead of zig-zagging.
            weights = [1 + 3 * (item.op is None) + 3 * (n.op is None) for n in near]
            desired = (
                sum(w * n.cross for w, n in zip(weights, near, strict=True)) / sum(weights)
                if near
                else item.cross
            )
            targets.append(desired - offset)
        for item, offset, y in zip(rank, row, _isotonic(targets), strict=True):
            item.cross = y + offset

    for _ in range(4):
        for r in range(1, len(ranks)):
            settle(r, [preds])
        for r in range(len(ranks) - 2, -1, -1):
            settle(r, [succs])
    for r in range(len(ranks)):
        settle(r, [preds, succs])
    low = min(item.cross - cross_size(item) / 2 for rank in ranks for item in rank)
    for rank in ranks:
        for item in rank:
            item.cross -= low


def _straighten(ranks, bend_runs, cross_size) -> None:
    """Line up the bends of each long edge at one position where that fits between
    their neighbours in every rank, so the edge runs straight."""
    position = {id(item): (r, i) for r, rank in enumerate(ranks) for i, item in enumerate(rank)}

    def room(item) -> tuple[float, float]:
        r, i = position[id(item)]
        rank, half = ranks[r], cross_size(item) / 2
        low, high = -float("inf"), float("inf")
        if i > 0:
            low = rank[i - 1].cross + cross_size(rank[i - 1]) / 2 + _NODE_SEP + half
        if i + 1 < len(rank):
            high = rank[i + 1].cross - cross_size(rank[i + 1]) / 2 - _NODE_SEP - half
        return low, high

    for bends in bend_runs:
        if len(bends) < 2:
            continue
        rooms = [room(b) for b in bends]
        low, high = max(r[0] for r in rooms), min(r[1] for r in rooms)
        if low <= high:
            current = sorted(b.cross for b in bends)
            c = min(max(current[len(current) // 2], low), high)
            for b in bends:
                b.cross = c


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
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported (as in Keras 3).")
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
    """
    _check_model(model)
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
