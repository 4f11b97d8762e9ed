"""Structure-aware mutations of model files, for the loading fuzz test.

Each mutator takes the bytes (or text) of one real file and a `random.Random`, and
returns a damaged copy plus a short description of what it did, so a failing case can be
replayed by its seed and read by its description:

- `mutate_json`: values changed, deleted or retyped (strings to ints, lists to dicts,
  huge and negative numbers, NaN), keys removed or added, `class_name` swapped for
  another registered class or an unknown one, `module` changed, subtrees swapped or
  duplicated, a value replaced by a structure nested thousands of levels deep;
- `mutate_h5`: bytes flipped, zeroed or cut (truncation), datasets replaced by ones of
  the wrong dtype or shape, attributes removed or retyped, groups deleted or renamed;
  the JSON attributes of a legacy `.h5` file go through `mutate_json`;
- `mutate_zip`: entries missing, duplicated or renamed, written with another compression
  method, their compressed bytes damaged; the entries' contents go through the mutators
  above.
"""

from __future__ import annotations

import io
import json
import random
import warnings
import zipfile

import h5py
import numpy as np

DEEP = "__fuzz_deep__"
VALUES = [
    0,
    1,
    -1,
    -7,
    2**31,
    -(2**31),
    2**63,
    10**30,
    1e308,
    0.5,
    -0.0,
    float("nan"),
    float("inf"),
    float("-inf"),
    "",
    "x",
    "relu",
    "same",
    "float64",
    "int8",
    "channels_first",
    None,
    True,
    False,
    [],
    {},
    [1],
    [None],
    [-3, 2],
    [0, 0, 0],
    {"a": 1},
    {"class_name": "Dense", "config": {}},
    {"class_name": "__keras_tensor__", "config": {"keras_history": ["nope", 0, 0]}},
]
KEYS = [
    "units",
    "activation",
    "name",
    "dtype",
    "config",
    "class_name",
    "module",
    "registered_name",
    "shape",
    "batch_shape",
    "inbound_nodes",
    "build_config",
    "input_shape",
    "layers",
    "keras_history",
    "args",
    "kwargs",
    "trainable",
    "fuzz",
]
CLASS_NAMES = [
    "Dense",
    "Conv2D",
    "LSTM",
    "GRU",
    "Embedding",
    "BatchNormalization",
    "Flatten",
    "InputLayer",
    "Concatenate",
    "Functional",
    "Sequential",
    "Model",
    "Lambda",
    "TimeDistributed",
    "Bidirectional",
    "MultiHeadAttention",
    "Reshape",
    "StringLookup",
    "Normalization",
    "Layer",
    "Adam",
    "GlorotUniform",
    "function",
    "__keras_tensor__",
    "__tuple__",
    "__slice__",
    "__lambda__",
    "EvilLayer",
    "Custom>Evil",
    "os.system",
    "",
]
MODULES = [
    "keras.layers",
    "keras.src.ops.numpy",
    "keras.ops",
    "keras.src.models.functional",
    "lamina.ops",
    "os",
    "builtins",
    "subprocess",
    "",
    None,
    3,
]


# JSON ----------------------------------------------------------------------------------


def _slots(doc):
    """Every `(container, key)` of the document, found iteratively."""
    out, stack = [], [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                out.append((item, k))
                stack.append(v)
        elif isinstance(item, list):
            for i, v in enumerate(item):
                out.append((item, i))
                stack.append(v)
    return out


def _retype(value, rng):
    if isinstance(value, bool):
        return int(value) if rng.random() < 0.5 else str(value)
    if isinstance(value, str):
        return rng.choice([len(value), -len(value) - 1, [value], {"value": value}, value * 50])
    if isinstance(value, int):
        return rng.choice([str(value), -value - 1, value * 2**40, float(value) + 0.5, [value]])
    if isinstance(value, float):
        return rng.choice([float("nan"), -value, int(value) if value == value else 0, str(value)])
    if isinstance(value, list):
        return rng.choice([{str(i): v for i, v in enumerate(value)}, value[::-1], value * 3, {}])
    if isinstance(value, dict):
        return rng.choice([list(value.values()), list(value), json.dumps(value), None])
    return rng.choice(VALUES)


def _one_json_edit(doc, rng) -> str:
    slots = _slots(doc)
    if not slots:
        return "empty document"
    op = rng.randrange(11)
    container, key = rng.choice(slots)
    value = container[key]
    if op == 0:
        container[key] = rng.choice(VALUES)
        return f"set {key!r} to {container[key]!r}"
    if op == 1:
        del container[key]
        return f"deleted {key!r}"
    if op in (2, 3):
        container[key] = _retype(value, rng)
        return f"retyped {key!r}"
    if op == 4:
        dicts = [c for c, _ in slots if isinstance(c, dict)] or [doc]
        target = rng.choice(dicts)
        if isinstance(target, dict):
            name = rng.choice(KEYS)
            target[name] = rng.choice(VALUES)
            return f"added key {name!r}"
        return "no dict"
    named = [c for c, k in slots if isinstance(c, dict) and k == "class_name"]
    if op == 5 and named:
        target = rng.choice(named)
        target["class_name"] = rng.choice(CLASS_NAMES)
        return f"class_name -> {target['class_name']!r}"
    if op == 6 and named:
        target = rng.choice(named)
        target["module"] = rng.choice(MODULES)
        return f"module -> {target['module']!r}"
    if op == 7:
        container[key] = DEEP
        return f"deep nesting at {key!r}"
    if op == 8:
        other_container, other_key = rng.choice(slots)
        try:
            container[key], other_container[other_key] = other_container[other_key], value
        except (KeyError, IndexError):  # one slot was removed by the swap itself
            return "swap skipped"
        return f"swapped {key!r} and {other_key!r}"
    if op == 9 and isinstance(container, list):
        container.insert(rng.randrange(len(container) + 1), json.loads(json.dumps(value)))
        return f"duplicated item {key!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        container[key] = rng.choice([0, -1, -value, 2**40, 10**300, float("nan")])
        return f"number {key!r} -> {container[key]!r}"
    container[key] = rng.choice(VALUES)
    return f"set {key!r} to {container[key]!r}"


def _dumps(doc, rng) -> str:
    text = json.dumps(doc)
    while f'"{DEEP}"' in text:
        depth = rng.choice([150, 1000, 50_000])
        deep = (
            "[" * depth + "]" * depth
            if rng.random() < 0.5
            else '{"a": ' * depth + "1" + "}" * depth
        )
        text = text.replace(f'"{DEEP}"', deep, 1)
    return text


def mutate_json(text: str, rng: random.Random) -> tuple[str, str]:
    """A damaged copy of JSON `text`, and what was done to it."""
    if rng.random() < 0.04:  # damage the text itself
        cut = rng.randrange(len(text))
        return (
            (text[:cut], f"json cut at {cut}")
            if rng.random() < 0.5
            else (
                text[:cut] + "\udcff" + text[cut + 1 :],
                f"json char {cut} replaced",
            )
        )
    doc = json.loads(text)
    done = [_one_json_edit(doc, rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    return _dumps(doc, rng), "; ".join(done)


# HDF5 ----------------------------------------------------------------------------------


def _bytes_edit(data: bytes, rng) -> tuple[bytes, str]:
    data = bytearray(data)
    op = rng.randrange(4)
    if op == 0:
        count = rng.choice([1, 2, 8, 32])
        # HDF5 metadata (superblock, object headers, B-trees) sits mostly early on.
        span = len(data) if rng.random() < 0.5 else min(len(data), 4096)
        for _ in range(count):
            data[rng.randrange(span)] ^= 1 << rng.randrange(8)
        return bytes(data), f"{count} bit(s) flipped"
    if op == 1:
        cut = rng.randrange(len(data))
        return bytes(data[:cut]), f"truncated to {cut} bytes"
    if op == 2:
        start = rng.randrange(len(data))
        length = rng.choice([4, 16, 256])
        data[start : start + length] = bytes(len(data[start : start + length]))
        return bytes(data), f"{length} bytes zeroed at {start}"
    start = rng.randrange(len(data))
    return bytes(data[:start]) + bytes(data[start + 8 :]), f"8 bytes removed at {start}"


def _wrong_dataset(group, name, old, rng) -> str:
    shape = old.shape
    choice = rng.randrange(9)
    del group[name]
    if choice == 0:
        group.create_dataset(name, data=np.zeros(tuple(d + 1 for d in shape) or (2,), "f4"))
        return "shape grown"
    if choice == 1:
        group.create_dataset(name, data=np.zeros(shape[::-1] + (1,), "f4"))
        return "rank changed"
    if choice == 2:
        group.create_dataset(name, data=np.float32(3.0))
        return "scalar"
    if choice == 3:
        group.create_dataset(name, data=np.full(shape, b"ab", "S2"))
        return "strings"
    if choice == 4:
        group.create_dataset(name, data=np.zeros(shape, "c8"))
        return "complex"
    if choice == 5:
        group.create_dataset(name, data=np.zeros(shape, [("a", "f4"), ("b", "i4")]))
        return "compound"
    if choice == 6:
        group.create_dataset(name, data=np.full(shape, np.nan, "f8"))
        return "NaN float64"
    if choice == 7:
        group.create_dataset(name, data=np.zeros(shape, "i8"))
        return "int64"
    group.create_group(name)
    return "dataset became group"


def _json_attr(value, rng):
    if isinstance(value, bytes):
        value = value.decode("utf8", "replace")
    text, what = mutate_json(str(value), rng)
    return text.encode("utf8", "surrogateescape"), what


def _structure_edit(data: bytes, rng) -> tuple[bytes, str]:
    buf = io.BytesIO(data)
    with h5py.File(buf, "a") as f:
        groups, datasets, attrs = [], [], []

        def visit(name, obj):
            (groups if isinstance(obj, h5py.Group) else datasets).append(name)
            attrs.extend((name, key) for key in obj.attrs)

        f.visititems(visit)
        attrs.extend(("", key) for key in f.attrs)
        op = rng.randrange(8)
        if op in (0, 1) and datasets:
            name = rng.choice(datasets)
            parent, _, leaf = name.rpartition("/")
            what = _wrong_dataset(f[parent] if parent else f, leaf, f[name], rng)
            done = f"dataset {name}: {what}"
        elif op == 2 and (groups or datasets):
            name = rng.choice(groups + datasets)
            del f[name]
            done = f"deleted {name}"
        elif op == 3 and groups:
            name = rng.choice(groups)
            parent = name.rpartition("/")[0]
            new = f"{parent}/{rng.choice(['renamed', 'dense_9', 'vars', '0'])}".lstrip("/")
            if new in f:
                del f[new]
            f.move(name, new)
            done = f"moved {name} to {new}"
        elif op == 4 and groups:
            name = rng.choice(groups)
            f[name].create_dataset(rng.choice(["9", "extra", "vars"]) + "_x", data=np.ones(3))
            if rng.random() < 0.5 and "vars" in f[name]:
                vars_ = f[name]["vars"]
                if isinstance(vars_, h5py.Group):
                    vars_.create_dataset(str(len(vars_)), data=np.ones(2))
            done = f"extra dataset under {name}"
        elif op in (5, 6) and attrs:
            owner, key = rng.choice(attrs)
            obj = f[owner] if owner else f
            value = obj.attrs[key]
            if key in ("model_config", "training_config") and op == 5:
                obj.attrs[key], what = _json_attr(value, rng)
            elif op == 5:
                del obj.attrs[key]
                what = "deleted"
            else:
                choice = rng.randrange(4)
                if choice == 0:
                    obj.attrs[key] = 7
                elif choice == 1:
                    obj.attrs[key] = np.arange(3)
                elif choice == 2:
                    obj.attrs[key] = b"\xff\xfe not utf8"
                elif isinstance(value, np.ndarray) and value.size:
                    items = [v if isinstance(v, bytes) else str(v).encode() for v in value.flat]
                    rng.shuffle(items)
                    obj.attrs[key] = np.array(items[:-1] + [b"missing_layer"], dtype="S")
                else:
                    obj.attrs[key] = b""
                what = "retyped"
            done = f"attribute {owner}@{key}: {what}"
        elif groups:
            name = rng.choice(groups)
            f[name].attrs["fuzz"] = np.arange(4)
            f.create_group(f"fuzz_{rng.randrange(99)}")
            done = f"added group and attribute near {name}"
        else:
            done = "no change"
    return buf.getvalue(), done


def mutate_h5(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A damaged copy of HDF5 file `data`, and what was done to it."""
    if rng.random() < 0.35:
        return _bytes_edit(data, rng)
    return _structure_edit(data, rng)


# Zip -----------------------------------------------------------------------------------


def _write_zip(entries, compression=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": wanted here
        with zipfile.ZipFile(buf, "w", compression=compression) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return buf.getvalue()


def central_offset(data: bytes, name: str) -> int:
    """Where zip `data`'s central directory record of entry `name` starts."""
    start = 0
    while True:
        start = data.index(b"PK\x01\x02", start)
        length = int.from_bytes(data[start + 28 : start + 30], "little")
        if data[start + 46 : start + 46 + length] == name.encode():
            return start
        start += 4


def _damage_member(data: bytes, rng) -> tuple[bytes, str]:
    """Damage the compressed bytes or the headers of one member of zip `data`."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = rng.choice(zf.infolist())
    raw = bytearray(data)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    choice = rng.randrange(3)
    if choice == 0 and info.compress_size:
        for _ in range(rng.choice([1, 4])):
            raw[start + rng.randrange(info.compress_size)] ^= 0xFF
        return bytes(raw), f"compressed bytes of {info.filename} damaged"
    if choice == 1:  # in the central directory, which is what readers go by
        raw[central_offset(data, info.filename) + 10] = rng.choice([1, 9, 97, 99])
        return bytes(raw), f"compression method of {info.filename} changed"
    raw[info.header_offset + 22 : info.header_offset + 26] = rng.randrange(2**32).to_bytes(
        4, "little"
    )
    return bytes(raw), f"size field of {info.filename} changed"


def mutate_zip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A damaged copy of `.keras` zip `data`, and what was done to it."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        entries = [(info.filename, zf.read(info.filename)) for info in zf.infolist()]
    op = rng.randrange(10)
    if op <= 3:  # the config, most of what users' files differ in
        i = next(i for i, (n, _) in enumerate(entries) if n == "config.json")
        text, what = mutate_json(entries[i][1].decode(), rng)
        entries[i] = ("config.json", text.encode("utf8", "surrogateescape"))
        return _write_zip(entries), f"config.json: {what}"
    if op <= 6:
        i = next(i for i, (n, _) in enumerate(entries) if n == "model.weights.h5")
        blob, what = mutate_h5(entries[i][1], rng)
        entries[i] = ("model.weights.h5", blob)
        return _write_zip(entries), f"model.weights.h5: {what}"
    if op == 7:
        i = rng.randrange(len(entries))
        name, blob = entries[i]
        choice = rng.randrange(4)
        if choice == 0:
            del entries[i]
            what = f"entry {name} removed"
        elif choice == 1:
            entries.append((name, blob if rng.random() < 0.5 else b"{}"))
            what = f"entry {name} duplicated"
        elif choice == 2:
            new = rng.choice(["Config.json", "config.json/", "assets/x", "model.weights.h6", "x"])
            entries[i] = (new, blob)
            what = f"entry {name} renamed {new}"
        else:
            entries.append(("metadata.json", b'{"keras_version": 3}'))
            what = "metadata.json retyped"
        return _write_zip(entries), what
    if op == 8:
        method = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
        blob = _write_zip(entries, method)
        if rng.random() < 0.7:
            blob, what = _damage_member(blob, rng)
            return blob, f"method {method}; {what}"
        return blob, f"written with method {method}"
    blob, what = _bytes_edit(data, rng)
    return blob, f"zip file: {what}"


def mutate_legacy_h5(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A damaged copy of a legacy `.h5` model file: its JSON attributes (the model's
    architecture, its compile arguments) or its HDF5 structure and bytes."""
    if rng.random() >= 0.45:
        return mutate_h5(data, rng)
    buf = io.BytesIO(data)
    with h5py.File(buf, "a") as f:
        key = (
            "model_config"
            if rng.random() < 0.8 or "training_config" not in f.attrs
            else "training_config"
        )
        f.attrs[key], what = _json_attr(f.attrs[key], rng)
    return buf.getvalue(), f"{key}: {what}"


# Running one case ----------------------------------------------------------------------

# Words that name a part of a model file; a refusal must use one (besides the file).
PARTS = (
    "config.json",
    "model.weights.h5",
    "metadata.json",
    "model_config",
    "training_config",
    "model_weights",
    "optimizer_weights",
    "zip",
    "hdf5",
    "entry",
    "attribute",
    "layer",
    "weight",
    "config",
    "json",
)


class Hang(BaseException):
    """A case ran past its time bound (raised by a timer signal)."""


def names_part(message: str, filename: str | None) -> bool:
    """Whether a refusal names the file (when there is one) and a part of it."""
    lowered = message.lower()
    if filename is not None and filename not in message:
        return False
    return any(part in lowered for part in PARTS)


FILENAMES = {"keras": "m.keras", "weights": "m.weights.h5", "h5": "m.h5", "json": None}
MUTATORS = {
    "keras": mutate_zip,
    "weights": mutate_h5,
    "h5": mutate_legacy_h5,
    "json": lambda text, rng: mutate_json(text, rng),
}


def _on_alarm(signum, frame):
    raise Hang()


def run_case(engine, mutant, case_dir, weights_model, x, predict=True, bound=20.0):
    """Load one mutant as `engine` and judge the result.

    Returns `(outcome, detail)`: outcome is "loaded", "refused" (ValueError/TypeError
    naming the part), "unnamed" (ValueError/TypeError naming no part), "other" (any
    other exception), "hang" (past `bound` seconds) or "litter" (files left behind).
    """
    import faulthandler
    import os
    import signal
    import tempfile
    import time

    import lamina

    os.makedirs(case_dir)
    private_tmp = os.path.join(case_dir, "tmp")
    os.makedirs(private_tmp)
    filename = FILENAMES[engine]
    if filename is not None:
        path = os.path.join(case_dir, filename)
        with open(path, "wb") as f:
            f.write(mutant)
    old_tempdir, tempfile.tempdir = tempfile.tempdir, private_tmp
    old_handler = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, bound)
    # A loop inside C code (libhdf5) never sees the timer: past three bounds the process
    # prints where it is stuck and exits, rather than hang the test run forever.
    faulthandler.dump_traceback_later(3 * bound, exit=True)
    stage = "load"
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if engine == "json":
                model = lamina.models.model_from_json(mutant)
            elif engine == "weights":
                model = weights_model
                model.load_weights(path)
            else:
                model = lamina.saving.load_model(path)
            if predict:
                stage = "predict"
                try:
                    model.predict(x, verbose=0)
                except ValueError:
                    pass
        outcome, detail = "loaded", ""
    except Hang:
        outcome, detail = "hang", f"{stage} ran past {bound} s"
    except (ValueError, TypeError) as err:
        message = str(err)
        named = stage == "load" and names_part(message, filename)
        outcome = "refused" if named else "unnamed"
        detail = f"{stage}: {type(err).__name__}: {message[:300]}"
    except Exception as err:  # noqa: BLE001 - classifying what escaped is the point
        outcome, detail = "other", f"{stage}: {type(err).__name__}: {str(err)[:300]}"
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        tempfile.tempdir = old_tempdir
    elapsed = time.perf_counter() - start
    if outcome != "hang" and elapsed > bound:
        outcome, detail = "hang", f"took {elapsed:.1f} s"
    left = sorted(set(os.listdir(case_dir)) - {"tmp", filename}) + sorted(os.listdir(private_tmp))
    if left:
        outcome, detail = "litter", f"left behind {left}; {detail}"
    return outcome, detail
