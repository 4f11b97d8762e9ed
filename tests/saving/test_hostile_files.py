"""Hostile `.keras` / `.weights.h5` files: one per attack, built here, each refused.

Every attack is built by the test itself into a `hostile/` folder, loaded, and must be
refused with a ValueError that says why, with nothing written anywhere and no module
imported. Keras had a CVE for several of these (named beside the case).
"""

import functools
import io
import json
import sys
import tempfile
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import Input, Sequential, layers, models
from lamina.saving import keras_file, weights_h5


def _sequential():
    model = Sequential(
        [Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(3, activation="softmax")]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def _parts_of(model):
    """The entries of a valid .keras file of `model`, to tamper with."""
    with tempfile.TemporaryDirectory() as tmp:
        model.save(f"{tmp}/m.keras")
        with zipfile.ZipFile(f"{tmp}/m.keras") as zf:
            return {name: zf.read(name) for name in zf.namelist()}


@functools.lru_cache(maxsize=1)
def _cached_good_parts():
    return tuple(_parts_of(_sequential()).items())


def _good_parts():
    return dict(_cached_good_parts())


def _write_zip(path, parts, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return path


def _hostile_weights(mutate):
    parts = _good_parts()
    buf = io.BytesIO(parts["model.weights.h5"])
    with h5py.File(buf, "a") as f:
        mutate(f)
    parts["model.weights.h5"] = buf.getvalue()
    return parts


def _config(parts):
    return json.loads(parts["config.json"])


def _with_config(parts, config):
    parts = dict(parts)
    parts["config.json"] = json.dumps(config).encode() if not isinstance(config, bytes) else config
    return parts


def _edit_config(edit):
    parts = _good_parts()
    config = _config(parts)
    edit(config)
    return _with_config(parts, config)


def _dense_config(config):
    return config["config"]["layers"][1]["config"]


# Zip structure -------------------------------------------------------------------------
def _extra_entry(name, data=b"x"):
    return lambda: {**_good_parts(), name: data}


def _low_ratio_bytes(n):
    return np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8).tobytes()


# Config nesting -------------------------------------------------------------------------
def _deep_config():
    def edit(config):
        node = _dense_config(config)
        for _ in range(200):
            node["nested"] = {}
            node = node["nested"]

    return _edit_config(edit)


def _json_recursion_bomb():
    # Deeper than Python's recursion limit: json.loads alone would raise RecursionError.
    return _with_config(_good_parts(), b'{"class_name": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")


# Names that reach non-modelling functions ---------------------------------------------
def _function_reference(name, module="keras.utils"):
    def edit(config):
        _dense_config(config)["activation"] = {
            "module": module,
            "class_name": "function",
            "config": name,
            "registered_name": "function",
        }

    return lambda: _edit_config(edit)


def _class_reference(module, class_name, where="layer"):
    reference = {"module": module, "class_name": class_name, "config": {}, "registered_name": None}

    def edit(config):
        if where == "layer":
            config["config"]["layers"][1] = {**reference, "name": "evil"}
        else:  # an object nested in a layer config, e.g. an initializer (CVE-2025-1550)
            _dense_config(config)["kernel_initializer"] = reference

    return lambda: _edit_config(edit)


def _compile_reference(key, value):
    def edit(config):
        config["compile_config"][key] = value

    return lambda: _edit_config(edit)


def _unsafe_switch_then_lambda():
    """CVE-2025-9906 style: a config flips the unsafe switch, then a Lambda follows."""
    parts = _parts_of(Sequential([Input((4,)), layers.Lambda(lambda t: t * 2.0)]))
    config = _config(parts)
    switch = {
        "module": "keras.config",
        "class_name": "enable_unsafe_deserialization",
        "config": {},
        "registered_name": None,
        "name": "switch",
    }
    config["config"]["layers"].insert(0, switch)
    return _with_config(parts, config)


def _lambda_model():
    return _parts_of(Sequential([Input((4,)), layers.Lambda(lambda t: t * 2.0)]))


def _lambda_naming(function):
    def make():
        parts = _parts_of(Sequential([Input((4,)), layers.Lambda(lambda t: t * 2.0)]))
        config = _config(parts)
        config["config"]["layers"][1]["config"]["function"] = function
        return _with_config(parts, config)

    return make


# Weights file ---------------------------------------------------------------------------
def _replace_dataset(group_path, name, **kwargs):
    def mutate(f):
        group = f[group_path]
        del group[name]
        group.create_dataset(name, **kwargs)

    return lambda: _hostile_weights(mutate)


def _nested_groups(f):
    f.create_group("/".join(["g"] * (weights_h5.MAX_H5_DEPTH + 10)))


def _deep_groups(f):
    # Far deeper than Python's recursion limit, created level by level.
    group = f
    for _ in range(1200):
        group = group.create_group("g")


def _virtual_dataset(f):
    layout = h5py.VirtualLayout(shape=(4,), dtype="float32")
    layout[:] = h5py.VirtualSource("/etc/hostname", "data", shape=(4,))
    f.create_virtual_dataset("vds", layout)


HOSTILE = {
    # Zip entries that would escape the extraction folder, and zip bombs.
    "zip_absolute_path": (_extra_entry("/etc/evil"), "not a plain relative name"),
    "zip_parent_traversal": (_extra_entry("../evil.txt"), "not a plain relative name"),
    "zip_nested_traversal": (_extra_entry("assets/../../evil.txt"), "not a plain relative name"),
    "zip_backslash_path": (_extra_entry("..\\evil.txt"), "not a plain relative name"),
    "zip_drive_letter": (_extra_entry("C:/evil.txt"), "not a plain relative name"),
    "zip_unexpected_entry": (_extra_entry("payload.py", b"import os"), "unexpected zip entry"),
    "zip_bomb_ratio": (_extra_entry("assets/bomb", b"\0" * (20 * 1024 * 1024)), "zip bomb"),
    "zip_entry_too_large": (
        _extra_entry("assets/big", _low_ratio_bytes(100_000)),
        "entry 'assets/big' would unpack to 100000 bytes",
    ),
    # Configs nested past any real model, as dicts or as raw JSON.
    "config_too_deep": (_deep_config, "nested deeper than"),
    "config_json_recursion_bomb": (_json_recursion_bomb, "nested too deeply"),
    # Names reaching non-modelling functions: file download (CVE-2024-3660/CVE-2025-1550),
    # plotting (CVE-2025-8747), config switches (CVE-2025-9906).
    "get_file_function": (_function_reference("get_file"), "Unknown function"),
    "get_file_dotted_function": (_function_reference("keras.utils.get_file"), "Unknown function"),
    "get_file_class_as_layer": (
        _class_reference("keras.utils", "get_file"),
        "Unknown layer class 'get_file'",
    ),
    "get_file_class_in_initializer": (
        _class_reference("keras.utils", "get_file", where="initializer"),
        "Unknown initializer class 'get_file'",
    ),
    "get_file_as_keras_op": (
        _class_reference("keras.src.ops.numpy", "get_file"),
        "Unknown Keras op 'get_file'",
    ),
    "builtins_eval_as_keras_op": (
        _class_reference("keras.src.ops.core", "eval"),
        "Unknown Keras op 'eval'",
    ),
    "plot_model_class": (
        _class_reference("keras.utils", "plot_model"),
        "Unknown layer class 'plot_model'",
    ),
    "plot_model_function": (_function_reference("plot_model"), "Unknown function"),
    "unsafe_switch_function": (
        _function_reference("enable_unsafe_deserialization", module="keras.config"),
        "Unknown function",
    ),
    "unsafe_switch_then_lambda": (
        _unsafe_switch_then_lambda,
        "Unknown layer class 'enable_unsafe_deserialization'",
    ),
    "os_system_activation": (_function_reference("system", module="os"), "Unknown function"),
    # compile_config naming functions outside the registry.
    "compile_loss_eval": (
        _compile_reference(
            "loss",
            {"module": "builtins", "class_name": "function", "config": "eval"},
        ),
        "Unknown function 'eval'",
    ),
    "compile_loss_name": (
        _compile_reference("loss", "os.system"),
        "compile_config names loss 'os.system'",
    ),
    "compile_optimizer_get_file": (
        _compile_reference(
            "optimizer",
            {"module": "keras.utils", "class_name": "get_file", "config": {}},
        ),
        "get_file",
    ),
    "compile_metric_plot_model": (
        _compile_reference("metrics", ["accuracy", {"out": "plot_model"}]),
        "compile_config names metrics 'plot_model'",
    ),
    # Lambda layers: bytecode only with safe_mode=False; names never reach a module.
    "lambda_bytecode": (_lambda_model, "safe mode"),
    "lambda_os_system_name": (_lambda_naming("os.system"), "Unknown function"),
    "lambda_os_system_class": (
        _lambda_naming({"module": "os", "class_name": "system", "config": {}}),
        "Unknown function class 'system'",
    ),
    # Layer configs asking for absurd sizes: refused before anything is allocated.
    "config_absurd_units": (
        lambda: _edit_config(lambda c: _dense_config(c).__setitem__("units", 10**12)),
        "Dense 'dense' config sets units=1000000000000",
    ),
    "config_units_over_what_the_weights_hold": (
        # Each dimension is plausible (an Embedding may have 2**24 rows), but a 256 MiB
        # kernel cannot come from a file whose weights take a few KiB.
        lambda: _edit_config(lambda c: _dense_config(c).__setitem__("units", 2**24)),
        r"variable 'kernel' of shape \(4, 16777216\) .* over its limit .* damaged or was altered",
    ),
    "config_absurd_input_shape": (
        lambda: _edit_config(
            lambda c: c["config"]["layers"][0]["config"].__setitem__("batch_shape", [None, 2**40])
        ),
        "sets batch_shape=",
    ),
    "config_absurd_build_shape": (
        lambda: _edit_config(
            lambda c: c["config"]["layers"][1].__setitem__(
                "build_config", {"input_shape": [None, 2**40]}
            )
        ),
        "sets input_shape=",
    ),
    # Weights: shapes, links, data stored outside the file, nesting.
    "weight_shape_mismatch": (
        _replace_dataset("layers/dense/vars", "0", data=np.zeros((400, 8), "float32")),
        r"has shape \(4, 8\), but the file holds shape \(400, 8\)",
    ),
    "weight_shape_absurd": (
        # 2**60 elements declared, none stored: refused from the header, never read.
        _replace_dataset(
            "layers/dense/vars", "0", shape=(2**30, 2**30), dtype="float32", chunks=(1, 1)
        ),
        r"file holds shape \(1073741824, 1073741824\)",
    ),
    "weight_count_mismatch": (
        lambda: _hostile_weights(lambda f: f["layers/dense/vars"].__delitem__("1")),
        "has 2 weight",
    ),
    "h5_external_link": (
        lambda: _hostile_weights(
            lambda f: f.__setitem__("evil", h5py.ExternalLink("/etc/passwd", "/"))
        ),
        "ExternalLink",
    ),
    "h5_soft_link": (
        lambda: _hostile_weights(lambda f: f.__setitem__("evil", h5py.SoftLink("/etc/passwd"))),
        "SoftLink",
    ),
    "h5_external_dataset": (
        lambda: _hostile_weights(
            lambda f: f.create_dataset(
                "ext", shape=(4,), dtype="float32", external=[("/etc/hostname", 0, 16)]
            )
        ),
        "outside the file",
    ),
    "h5_virtual_dataset": (lambda: _hostile_weights(_virtual_dataset), "outside the file"),
    "h5_groups_too_deep": (lambda: _hostile_weights(_nested_groups), "nested more than"),
    "h5_groups_past_recursion_limit": (lambda: _hostile_weights(_deep_groups), "nested more than"),
    "h5_hard_link_cycle": (
        lambda: _hostile_weights(lambda f: f["layers"].__setitem__("loop", f["layers"])),
        "cycle of hard links",
    ),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_files_are_refused(tmp_path, monkeypatch, attack):
    make, message = HOSTILE[attack]
    if attack == "zip_entry_too_large":  # the real bound is 2 GiB; same check, small file
        monkeypatch.setattr(keras_file, "MAX_ENTRY_BYTES", 50_000)
    hostile_dir = tmp_path / "hostile"
    hostile_dir.mkdir()
    path = _write_zip(hostile_dir / f"{attack}.keras", make())
    before = sorted(p.name for p in tmp_path.rglob("*"))
    modules = set(sys.modules)
    unsafe = dict(lamina.layers.core._UNSAFE)
    with pytest.raises(ValueError, match=message):
        models.load_model(path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written anywhere
    assert lamina.layers.core._UNSAFE == unsafe  # no switch flipped
    assert not {m for m in set(sys.modules) - modules if m.split(".")[0] in ("keras", "os")}


def test_hostile_weights_refused_by_load_weights(tmp_path):
    """`load_weights` runs the same checks on a bare `.weights.h5` file."""
    model = _sequential()
    path = tmp_path / "evil.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "a") as f:
        f["evil"] = h5py.ExternalLink("/etc/passwd", "/")
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(ValueError, match="ExternalLink"):
        model.load_weights(path)
    for a, b in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_shape_error_assigns_nothing(tmp_path):
    """All shapes are checked before any weight is assigned: a bad file changes nothing."""
    model = _sequential()
    other = Sequential([Input((4,)), layers.Dense(8), layers.Dense(5)])
    path = tmp_path / "other.weights.h5"
    other.save_weights(path)
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(ValueError, match="has shape"):
        model.load_weights(path)
    for a, b in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_module_named_by_a_file_is_never_imported(tmp_path, monkeypatch):
    """A config's `module` is never imported, even when that module exists on sys.path."""
    marker = tmp_path / "imported.txt"
    (tmp_path / "lamina_evil_module.py").write_text(
        f"open({str(marker)!r}, 'w').write('pwned')\ndef Dense(**kw):\n    return None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def edit(config):
        config["config"]["layers"][1]["module"] = "lamina_evil_module"
        config["config"]["layers"][1]["class_name"] = "Evil"
        config["config"]["layers"][1]["registered_name"] = "Evil"

    path = _write_zip(tmp_path / "evil.keras", _edit_config(edit))
    with pytest.raises(ValueError, match="Unknown layer class 'Evil'"):
        models.load_model(path)
    assert not marker.exists()
    assert "lamina_evil_module" not in sys.modules


def test_lambda_loads_with_safe_mode_off(tmp_path):
    path = _write_zip(tmp_path / "lambda.keras", _lambda_model())
    model = models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(model.predict(np.ones((1, 4), "float32"), verbose=0), [[2.0] * 4])


def test_lambda_naming_a_module_function_is_refused_even_unsafe(tmp_path):
    path = _write_zip(tmp_path / "lambda.keras", _lambda_naming("os.system")())
    with pytest.raises(ValueError, match="Unknown function"):
        models.load_model(path, safe_mode=False)
