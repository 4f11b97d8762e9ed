"""Where each box of a model picture goes: the layout behind `plot_model`.

`model_visualization` draws; this module decides the geometry it draws, with no
rendering and no dependency:

* `_Label`: the text of one box (Keras's `name (Class)` title, activation row, shape,
  dtype and trainable cells) and its size, from Helvetica's character widths;
* the display graph: which operations are shown, and where an edge into or out of an
  expanded nested model really starts or ends;
* `_layout`: ranks from the model's depths, long edges bent through the ranks they
  cross, barycentre ordering within ranks (`_order`), positions along each rank
  (`_place_cross`, `_straighten`) and a lane per edge between ranks, giving a `_Scene`
  of boxes, clusters and edge routes in absolute coordinates.

>>> _isotonic([1.0, 3.0, 2.0])
[1.0, 2.5, 2.5]
"""

from __future__ import annotations

from lamina import tree

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
