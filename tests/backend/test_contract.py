"""The backend contract: every engine provides every declared name and signature.

The declaration lives in `lamina.backend.contract`; this file iterates over it for every
engine package found under `backend/` (a torch backend is checked as soon as it exists),
and scans lamina's source outside `backend/` for backend names that are not declared.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import lamina
from lamina.backend import contract

SRC = pathlib.Path(lamina.__file__).parent
BACKEND_DIR = SRC / "backend"
# An engine package is a folder of backend/ with an __init__.py, other than common/;
# one whose engine library is not installed (torch is an optional extra) is left out.
ENGINES = sorted(
    p.name
    for p in BACKEND_DIR.iterdir()
    if (p / "__init__.py").exists()
    and p.name != "common"
    and importlib.util.find_spec(p.name) is not None
)
DECLARED = [
    (module, name) for module, entries in contract.ENGINE.items() for name in sorted(entries)
]


def _comparable(signature: inspect.Signature):
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def test_engines_are_found():
    assert "jax" in ENGINES


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("module, name", DECLARED)
def test_engine_provides_declared_name(engine, module, name):
    mod = importlib.import_module(f"lamina.backend.{engine}.{module}")
    declared = contract.ENGINE[module][name]
    assert hasattr(mod, name), f"backend {engine}.{module} lacks {name!r}"
    obj = getattr(mod, name)
    if declared.kind == "constant":
        assert not callable(obj), f"{engine}.{module}.{name} should be a constant"
        return
    if declared.kind == "class":
        assert inspect.isclass(obj), f"{engine}.{module}.{name} should be a class"
    else:
        assert callable(obj) and not inspect.isclass(obj)
    if declared.signature is None:
        return
    assert _comparable(inspect.signature(obj)) == _comparable(declared.signature), (
        f"{engine}.{module}.{name}{inspect.signature(obj)} does not match the declared "
        f"{name}{declared.signature}"
    )


@pytest.mark.parametrize(
    "module, name",
    [(m, n) for m, entries in contract.COMMON.items() for n in sorted(entries)],
)
def test_common_names_are_provided(module, name):
    mod = importlib.import_module("lamina.backend" + (f".{module}" if module else ""))
    declared = contract.COMMON[module][name]
    obj = getattr(mod, name)
    if declared.kind == "class":
        assert inspect.isclass(obj), f"lamina.backend.{module}.{name} should be a class"
    if declared.signature is None:
        return
    assert _comparable(inspect.signature(obj)) == _comparable(declared.signature)


def test_backend_namespace_provides_declared_names():
    from lamina import backend

    missing = sorted(name for name in contract.NAMESPACE if not hasattr(backend, name))
    assert not missing, f"lamina.backend lacks {missing}"


@pytest.mark.parametrize("engine", ENGINES)
def test_convert_to_numpy_takes_tensors_and_array_likes(engine):
    # Engine-neutral code converts with it whatever it holds (never np.asarray).
    core = importlib.import_module(f"lamina.backend.{engine}.core")
    for value in ([1, 2], np.ones(2), 3.0, core.convert_to_tensor([1.0])):
        assert isinstance(core.convert_to_numpy(value), np.ndarray)


def test_seed_state_has_the_backend_seed_dtype():
    from lamina import backend
    from lamina.ops.random import SeedGenerator

    assert SeedGenerator(1).state.dtype == backend.random.SEED_DTYPE
    assert backend.standardize_dtype(backend.random.make_seed(1).dtype) == (
        backend.random.SEED_DTYPE
    )


def test_declaration_parses_every_parameter_kind():
    (entry,) = contract.declare(
        """
        f(a, /, b=1, *args, c, d='x', **kw)
            Doc line one.
            line two.
        """
    ).values()
    assert str(entry.signature) == "(a, /, b=1, *args, c, d='x', **kw)"
    assert entry.kind == "function" and entry.doc == "Doc line one. line two."
    assert contract.declare("K\n").popitem()[1].kind == "constant"
    (error,) = contract.declare("E(...)\n").values()
    assert error.kind == "class" and error.signature is None
    with pytest.raises(ValueError, match="declares 'f' twice"):
        contract.declare("f(x)\nf(y)\n")


# Family modules --------------------------------------------------------------------------
def _family_modules(engine: str) -> dict[str, list[str]]:
    """The engine's family modules, those named `<contract module>_<family>`
    (`numpy_reductions`, `core_gradients`), each with the public functions it defines."""
    found = {}
    for path in sorted((BACKEND_DIR / engine).glob("*_*.py")):
        if path.stem.split("_", 1)[0] not in contract.ENGINE:
            continue
        module = importlib.import_module(f"lamina.backend.{engine}.{path.stem}")
        found[path.stem] = sorted(
            name
            for name, obj in vars(module).items()
            if not name.startswith("_")
            and inspect.isfunction(obj)
            and obj.__module__ == module.__name__
        )
    return found


def test_engines_split_their_contract_modules_alike():
    # A contract module too big for one file (`numpy`, `core`) is split the same way on
    # every engine: the same family modules, each defining the same functions.
    families = {engine: _family_modules(engine) for engine in ENGINES}
    assert families["jax"], "backend/jax/ has no family modules (numpy_*.py, core_*.py)"
    for engine, found in families.items():
        assert found == families["jax"], (
            f"backend/{engine}/ splits its contract modules unlike backend/jax/: "
            f"{sorted(set(found.items()) ^ set(families['jax'].items()), key=str)}"
        )


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_families_define_what_their_declarations_declare(engine):
    # `backend/<engine>/numpy_reductions.py` holds what `declarations/numpy_reductions.py`
    # declares, so a function is found by its family.
    for name, functions in _family_modules(engine).items():
        if importlib.util.find_spec(f"lamina.backend.declarations.{name}") is None:
            continue
        declared = importlib.import_module(f"lamina.backend.declarations.{name}").DECLARATIONS
        missing = sorted({n for n, e in declared.items() if e.kind == "function"} - set(functions))
        assert not missing, f"backend/{engine}/{name}.py lacks {missing}, declared in its family"


# Uses of backend names outside backend/ ------------------------------------------------
_MODULE_PATHS = {"", "common", "config", "contract", *contract.ENGINE, *contract.COMMON}


def _declared(path: str) -> frozenset | dict:
    if path == "":
        return contract.NAMESPACE
    if path == "contract":
        return {name for name in vars(contract) if not name.startswith("_")}
    if path in contract.ENGINE:
        return contract.ENGINE[path]
    return contract.COMMON.get(path, {})


def _check_chain(path: str, attrs: list[str]) -> str | None:
    """Walk `lamina.backend.<path>` then `attrs`; the first undeclared name, if any."""
    for attr in attrs:
        if path.split(".")[0] in ENGINES:
            break
        sub = f"{path}.{attr}" if path else attr
        if sub in _MODULE_PATHS or sub in ENGINES:
            path = sub
            continue
        if attr not in _declared(path):
            return f"lamina.backend{'.' + path if path else ''}.{attr}"
        return None
    if path.split(".")[0] in ENGINES:
        engine = path.split(".")[0]
        return f"lamina.backend.{engine} (an engine package; use lamina.backend instead)"
    return None


def _uses(tree: ast.AST):
    """Yield `(lineno, problem)` for each undeclared backend name used in `tree`."""
    aliases: dict[str, str] = {}  # local name -> dotted module under lamina.backend
    roots: set[str] = set()  # local names bound to the `lamina` package itself
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "lamina" or alias.name.startswith("lamina."):
                    if alias.asname is None:
                        roots.add("lamina")
                    elif alias.name.startswith("lamina.backend"):
                        aliases[alias.asname] = alias.name.removeprefix("lamina.backend")[1:]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "lamina":
                for alias in node.names:
                    if alias.name == "backend":
                        aliases[alias.asname or "backend"] = ""
            elif node.module == "lamina.backend" or node.module.startswith("lamina.backend."):
                path = node.module.removeprefix("lamina.backend").lstrip(".")
                for alias in node.names:
                    sub = f"{path}.{alias.name}" if path else alias.name
                    if sub in _MODULE_PATHS:
                        aliases[alias.asname or alias.name] = sub
                        continue
                    problem = _check_chain(path, [alias.name])
                    if problem:
                        yield node.lineno, problem
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or isinstance(
            getattr(node, "_parent", None), ast.Attribute
        ):
            continue
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name):
            continue
        chain.reverse()
        if base.id in aliases:
            path, attrs = aliases[base.id], chain
        elif base.id in roots and chain[:1] == ["backend"]:
            path, attrs = "", chain[1:]
        else:
            continue
        problem = _check_chain(path, attrs)
        if problem:
            yield node.lineno, problem


def _scan(source: str) -> list[str]:
    tree = ast.parse(source)
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            child._parent = parent  # so only outermost attribute chains are walked
    return sorted({f"{line}: {problem}" for line, problem in _uses(tree)})


def test_scanner_finds_undeclared_names():
    source = (
        "from lamina import backend\n"
        "from lamina.backend import core as bc, no_such_top\n"
        "from lamina.backend.common.variables import Variable, nope\n"
        "import lamina.backend.jax.core\n"
        "import lamina\n"
        "backend.floatx(); backend.numpy.mean(1); backend.numpy.frobnicate(1)\n"
        "bc.cast(1, 'int32'); bc.unknown_thing\n"
        "lamina.backend.nn.relu; lamina.backend.nn.reluu\n"
        "lamina.backend.jax.core.cast\n"
    )
    assert _scan(source) == [
        "2: lamina.backend.no_such_top",
        "3: lamina.backend.common.variables.nope",
        "6: lamina.backend.numpy.frobnicate",
        "7: lamina.backend.core.unknown_thing",
        "8: lamina.backend.nn.reluu",
        "9: lamina.backend.jax (an engine package; use lamina.backend instead)",
    ]


def test_code_outside_backend_uses_only_declared_backend_names():
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if BACKEND_DIR in path.parents:
            continue
        for problem in _scan(path.read_text()):
            line, what = problem.split(": ", 1)
            problems.append(f"{path.relative_to(SRC.parent)}:{line}: {what}")
    assert not problems, "undeclared backend names (declare them in backend/contract.py):\n" + (
        "\n".join(problems)
    )


# Public ops -----------------------------------------------------------------------------
def test_public_ops_cover_backend_functions():
    from lamina import ops

    # Engine kernels a layer calls, None where the engine has none: not ops of their own.
    kernels = {"fused_batch_norm", "fused_conv"}
    for module in ("numpy", "nn", "math"):
        for name in contract.ENGINE[module]:
            if name in kernels:
                assert not hasattr(ops, name), f"{name} is a kernel, not an op"
                continue
            assert hasattr(ops, name), f"lamina.ops lacks {name}"
    for name in contract.IMAGE:
        assert hasattr(ops.image, name), f"lamina.ops.image lacks {name}"
    for name, entry in contract.RANDOM.items():
        if entry.kind == "function" and name != "make_seed":
            assert hasattr(ops.random, name), f"lamina.ops.random lacks {name}"


def _public_ops():
    from lamina import ops

    for name in ops.__all__:
        obj = getattr(ops, name)
        if callable(obj) and not inspect.ismodule(obj):
            yield f"ops.{name}", obj
    for sub in ("image", "random"):
        mod = getattr(ops, sub)
        for name in mod.__all__:
            yield f"ops.{sub}.{name}", getattr(mod, name)


def test_every_public_op_has_a_docstring():
    missing = [name for name, fn in _public_ops() if not (fn.__doc__ or "").strip()]
    assert not missing, f"ops without a docstring: {missing}"


def test_built_ops_carry_the_declared_signature_and_doc():
    from lamina import ops

    assert inspect.signature(ops.mean) == contract.NUMPY["mean"].signature
    assert ops.mean.__doc__.startswith(contract.NUMPY["mean"].doc)
    assert ops.mean.__name__ == "mean" and ops.mean.__module__ == "lamina.ops"


def test_backend_selection_and_config():
    from lamina import backend
    from lamina.backend import config

    assert backend.backend() == config._choose_backend() in ("jax", "torch")
    assert backend.floatx() == "float32" and backend.epsilon() == 1e-7
    assert backend.image_data_format() == "channels_last"
    backend.set_epsilon(1e-5)
    backend.set_image_data_format("channels_first")
    try:
        assert backend.epsilon() == 1e-5 and backend.image_data_format() == "channels_first"
        with pytest.raises(ValueError, match="Unknown data_format 'nhwc'"):
            backend.set_image_data_format("nhwc")
        with pytest.raises(ValueError, match="Unknown floatx 'int8'"):
            backend.set_floatx("int8")
    finally:
        backend.set_epsilon(1e-7)
        backend.set_image_data_format("channels_last")


@pytest.mark.parametrize(
    "lamina_backend, keras_backend, chosen",
    [
        (None, None, "jax"),
        ("torch", None, "torch"),
        (" Torch ", "jax", "torch"),
        (None, "torch", "torch"),
        (None, "tensorflow", "jax"),  # Keras's other engines are not ours: the default
        ("jax", "torch", "jax"),
    ],
)
def test_engine_choice_from_the_environment(monkeypatch, lamina_backend, keras_backend, chosen):
    from lamina.backend import config

    for name, value in (("LAMINA_BACKEND", lamina_backend), ("KERAS_BACKEND", keras_backend)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert config._choose_backend() == chosen


def test_unknown_backend_is_refused():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import lamina"],
        env={"LAMINA_BACKEND": "tensorflow", "PATH": ""},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "Unknown LAMINA_BACKEND 'tensorflow'" in result.stderr
    assert "Available backends: ['jax', 'torch']" in result.stderr
