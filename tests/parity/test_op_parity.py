"""The differential harness for ops: every op `lamina.ops` exports (and `ops.image`,
`ops.linalg`, `ops.nn`, `ops.numpy`, `ops.random`, as Keras 3 exports them) called in
lamina and in Keras 3 on the same seeded inputs (`op_cases.py`), compared

(b) eager, on arrays: values (with the tolerances of their dtype,
    `parity_tools.TOLERANCES`, or a case's wider ones), dtypes, shapes, Python results
    (`ops.shape`, `ops.dtype`), and that `convert_to_numpy` hands out writable arrays;
(a) symbolic: the op on `Input`s of the same shapes gives Keras's output specs, and the
    symbolic outputs of every op, gathered in ONE functional model, run on the arrays give
    Keras's eager values;
(c, e) every op called in ONE subclassed model's `call`, run by `predict`, gives them too.

Keras runs on JAX whatever lamina's engine; its results for every case are computed in
one pass and kept in `.cache/parity/` (keyed by Keras's version and the cases' source),
so the torch pass of `make test` reads what the JAX pass computed.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import tempfile

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import op_cases  # noqa: E402
import parity_tools as tools  # noqa: E402
from op_cases import CASES, DOMAIN, NOT_COMPARED, X, Y  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    pytest.mark.filterwarnings("ignore:.*Explicitly requested dtype.*:UserWarning"),
]

SUBMODULES = ("image", "linalg", "nn", "numpy", "random")
_HARNESS_VERSION = 1


# -- what lamina exports ------------------------------------------------------------------
def exported_ops() -> dict:
    """`{qualified name: object}`: `ops.__all__` (modules aside) and each submodule's."""
    found = {n: getattr(ops, n) for n in ops.__all__ if not inspect.ismodule(getattr(ops, n))}
    for module in SUBMODULES:
        namespace = getattr(ops, module)
        for name in namespace.__all__:
            found[f"{module}.{name}"] = getattr(namespace, name)
    return found


def _resolve(namespace, qualified):
    for part in qualified.split("."):
        namespace = getattr(namespace, part)
    return namespace


def _derived(name, op):
    """`(f, inputs, {})` from the signature, or None (see op_cases's docstring)."""
    try:
        parameters = inspect.signature(op).parameters.values()
    except (TypeError, ValueError):
        return None
    required = tuple(
        p.name
        for p in parameters
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
    bare = name.rsplit(".", 1)[-1]
    if required == ("x",):
        inputs = DOMAIN.get(bare, (X,))
    elif required in (("x1", "x2"), ("x", "y")):
        inputs = DOMAIN.get(bare, (X, Y))
    else:
        return None
    return (lambda o, *xs: _resolve(o, name)(*xs)), inputs, {}


# Each derived case runs again on these inputs, for the dtype rules (promotion, the
# result dtypes of int and half-precision inputs); a dtype Keras refuses is skipped.
DTYPE_VARIANTS = {
    # No zero divisor: an integer division by zero gives JAX's value on JAX and raises
    # ZeroDivisionError on torch, in Keras's backends as in lamina's (engine behaviour).
    "int32": ((op_cases.INTS,), (op_cases.INTS, op_cases.SHIFTS + 1)),
    "float16": ((X.astype("float16"),), (X.astype("float16"), Y.astype("float16"))),
    "mixed": (None, (op_cases.INTS, Y)),
}


def all_cases() -> dict:
    """`{qualified name: (f, inputs, options)}` of every export that has or derives one;
    an export identical to another's object (`ops.nn.relu` is `ops.relu`) shares its case."""
    exports = exported_ops()
    cases, seen = {}, {}
    for name, op in sorted(exports.items(), key=lambda item: "." in item[0]):
        if name in NOT_COMPARED:
            continue
        if name in CASES:
            f, inputs, *options = CASES[name]
            cases[name] = (f, inputs, options[0] if options else {})
        elif id(op) in seen:
            continue
        else:
            derived = _derived(name, op)
            if derived is not None:
                cases[name] = derived
                f, inputs, _ = derived
                if [id(v) for v in inputs] in ([id(X)], [id(X), id(Y)]):
                    for dtype, (unary, binary) in DTYPE_VARIANTS.items():
                        variant = unary if len(inputs) == 1 else binary
                        if variant is not None:
                            cases[f"{name}@{dtype}"] = (f, variant, {"variant": True})
        seen.setdefault(id(op), name)
    return cases


CASE_TABLE = all_cases()


def covered() -> tuple[list, list]:
    """`(uncovered, stale)`: exports with no case (nor a case of the same object, nor an
    entry in NOT_COMPARED), and case or NOT_COMPARED names that are no export."""
    exports = exported_ops()
    covered_ids = {id(exports[n]) for n in CASE_TABLE if n in exports}  # variants aside
    uncovered = sorted(
        n for n, op in exports.items() if n not in NOT_COMPARED and id(op) not in covered_ids
    )
    stale = sorted((set(CASES) | set(NOT_COMPARED)) - set(exports))
    return uncovered, stale


# -- the Keras reference ------------------------------------------------------------------
class _KerasOps:
    """`keras.ops` with `random` as `keras.random`, as lamina's `ops.random` stands."""

    def __getattr__(self, name):
        if name == "random":
            return keras.random
        if name == "result_type":  # Keras 3 exports it from keras.backend only
            return keras.backend.result_type
        return getattr(keras.ops, name)


def _leaves(value, to_numpy) -> list:
    """Flat leaves: arrays as NumPy arrays, Python values as they are."""
    out = []
    for leaf in tools.flat(value):
        if isinstance(leaf, (bool, int, float, str, type(None))):
            out.append(leaf)
        else:
            out.append(to_numpy(leaf))
    return out


def _keras_leaf(value):
    return np.asarray(keras.ops.convert_to_numpy(value))


def _keras_specs(case):
    f, inputs, options = case
    if options.get("eager_only") or not any(isinstance(x, np.ndarray) for x in inputs):
        return None
    symbolic = [
        keras.KerasTensor(x.shape, str(x.dtype)) if isinstance(x, np.ndarray) else x for x in inputs
    ]
    try:
        out = f(_KerasOps(), *symbolic)
    except Exception:  # Keras cannot call it symbolically: nothing to compare
        return None
    return [(tuple(t.shape), str(t.dtype)) for t in tools.flat(out)]


def _compute_references() -> dict:
    """`{name: {"value": flat results, "specs": flat (shape, dtype) of a symbolic call or
    None}}`, or `{name: {"error": ...}}` where Keras refuses the call."""
    references = {}
    for name, case in CASE_TABLE.items():
        f, inputs, options = case
        try:
            if "reference" in options:  # a Keras bug: a NumPy reference (see the case)
                value = _leaves(options["reference"](*inputs), np.asarray)
            else:
                value = _leaves(f(_KerasOps(), *inputs), _keras_leaf)
        except Exception as error:
            references[name] = {"error": f"{type(error).__name__}: {error}"[:300]}
            continue
        specs = _keras_specs(case)
        if "reference" in options and not options.get("eager_only"):
            specs = _eager_specs(value)
        references[name] = {"value": value, "specs": specs}
    return references


def _eager_specs(value):
    return [(tuple(v.shape), str(v.dtype)) for v in value if isinstance(v, np.ndarray)]


def keras_spec_bugs() -> dict:
    """`{name: (symbolic specs, eager specs)}` where Keras's own symbolic call disagrees
    with its eager one (lamina follows the eager values)."""
    return {
        name: (r["specs"], _eager_specs(r["value"]))
        for name, r in references().items()
        if r.get("specs") is not None and r["specs"] != _eager_specs(r["value"])
    }


def _key() -> str:
    digest = hashlib.sha256()
    digest.update(f"{_HARNESS_VERSION} {keras.__version__} {sorted(CASE_TABLE)}".encode())
    digest.update(inspect.getsource(op_cases).encode())
    digest.update(inspect.getsource(_compute_references).encode())
    for name, (_, inputs, _) in sorted(CASE_TABLE.items()):
        digest.update(name.encode())
        for x in inputs:
            digest.update(x.tobytes() if isinstance(x, np.ndarray) else repr(x).encode())
    return digest.hexdigest()[:24]


_REFERENCES: dict = {}


def references() -> dict:
    """Keras's results for every case, computed once (cached, see the docstring)."""
    if _REFERENCES:
        return _REFERENCES
    path = tools._CACHE / f"ops-{_key()}.pkl"
    if tools._cache_on() and path.exists():
        try:
            _REFERENCES.update(pickle.loads(path.read_bytes()))
            return _REFERENCES
        except Exception:  # a damaged entry: compute it again
            pass
    _REFERENCES.update(_compute_references())
    if tools._cache_on():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(dict(_REFERENCES), f)
        os.replace(tmp, path)
    return _REFERENCES


# -- comparisons --------------------------------------------------------------------------
def compare(name, mode, got, expected, options, problems) -> None:
    """Append how lamina's flat results `got` differ from Keras's `expected`."""
    if len(got) != len(expected):
        problems.append(f"{name} {mode}: {len(got)} results, Keras gives {len(expected)}")
        return
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        where = f"{name} {mode}: result {i}"
        if not isinstance(e, np.ndarray):
            if isinstance(g, np.ndarray) or g != e:
                problems.append(f"{where}: {g!r}, Keras gives {e!r}")
            continue
        if not isinstance(g, np.ndarray):
            problems.append(f"{where}: {type(g).__name__} {g!r}, Keras gives an array")
            continue
        if not g.flags.writeable:
            problems.append(f"{where}: convert_to_numpy gave a read-only array")
        if g.dtype != e.dtype:
            problems.append(f"{where}: dtype {g.dtype}, Keras gives {e.dtype}")
            continue
        if g.shape != e.shape:
            problems.append(f"{where}: shape {g.shape}, Keras gives {e.shape}")
            continue
        if options.get("spec"):
            continue
        rtol, atol = tools.TOLERANCES.get(str(e.dtype), (0.0, 0.0))
        rtol, atol = max(rtol, options.get("rtol", 0.0)), max(atol, options.get("atol", 0.0))
        if e.dtype.kind in "fc":
            close = np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            close = np.array_equal(g, e)
        if not close:
            worst = np.max(np.abs(g.astype("complex128") - e.astype("complex128")))
            problems.append(f"{where}: values differ (max abs diff {worst:.3g})")


def _lamina_leaf(value):
    return ops.convert_to_numpy(value)


def _symbolic_inputs(name, inputs):
    """The case's arrays as `Input`s of their full shapes (named for the model below)."""
    made = {}
    args = []
    for i, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            key = f"in__{name.replace('.', '_')}_{i}"
            made[key] = lamina.Input(batch_shape=x.shape, dtype=str(x.dtype), name=key)
            args.append(made[key])
        else:
            args.append(x)
    return args, made


def _symbolic(name):
    """`(outputs, inputs)` of the case on `Input`s, or None where it takes no arrays. Where
    Keras cannot make the call symbolically lamina may still: its specs are compared
    with Keras's eager results then, and an error means skip (Keras has none either)."""
    reference = references()[name]
    f, inputs, _ = CASE_TABLE[name]
    if "error" in reference or not any(isinstance(x, np.ndarray) for x in inputs):
        return None
    args, made = _symbolic_inputs(name, inputs)
    if reference["specs"] is None:
        try:
            return f(ops, *args), made
        except Exception:
            return None
    return f(ops, *args), made


# -- the tests ----------------------------------------------------------------------------
def test_every_op_is_covered():
    """An op lamina exports has a case (written or derived from its signature) or an
    entry in NOT_COMPARED with the reason: a new export fails here until it is compared."""
    uncovered, stale = covered()
    assert not uncovered, (
        f"lamina.ops exports {uncovered} with no case: add one to tests/parity/op_cases.py "
        "(compared with Keras 3), or an entry with the reason in NOT_COMPARED."
    )
    assert not stale, f"op_cases names what lamina.ops does not export: {stale}"


def test_every_case_has_a_keras_counterpart():
    missing = [n for n in CASE_TABLE if _resolve_keras(n.split("@")[0]) is None]
    assert not missing, f"Keras 3 has no op named {missing}: list them in NOT_COMPARED"


def _resolve_keras(name):
    try:
        return _resolve(_KerasOps(), name)
    except AttributeError:
        return None


@pytest.mark.parametrize("name", sorted(CASE_TABLE))
def test_op_eager_matches_keras(name):
    reference = references()[name]
    f, inputs, options = CASE_TABLE[name]
    if "error" in reference and options.get("variant"):
        pytest.skip(f"Keras refuses this dtype: {reference['error'][:80]}")
    assert "error" not in reference, (
        f"Keras refuses {name}'s case ({reference['error']}): fix the case in op_cases.py"
    )
    got = _leaves(f(ops, *inputs), _lamina_leaf)
    problems: list = []
    compare(name, "eager", got, reference["value"], options, problems)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "name", sorted(n for n, c in CASE_TABLE.items() if not c[2].get("eager_only"))
)
def test_op_symbolic_specs_match_keras(name):
    made = _symbolic(name)
    if made is None:
        pytest.skip("no symbolic call: it takes no arrays, or neither Keras nor lamina can")
    outputs, _ = made
    # Keras's eager results are the reference: where its own symbolic specs disagree
    # with them (keras_spec_bugs), lamina follows the values it computes.
    got = [(tuple(t.shape), str(t.dtype)) for t in tools.flat(outputs)]
    assert got == _expected_specs(references()[name]), name


def _expected_specs(reference):
    """Keras's eager shapes and dtypes, with None where Keras's symbolic shape has None
    (a size that depends on the values, such as bincount's)."""
    eager, symbolic = _eager_specs(reference["value"]), reference["specs"]
    if symbolic is None or len(symbolic) != len(eager):
        return eager
    out = []
    for (shape, dtype), (keras_shape, _) in zip(eager, symbolic, strict=True):
        if len(keras_shape) == len(shape):
            shape = tuple(None if k is None else d for d, k in zip(shape, keras_shape, strict=True))
        out.append((shape, dtype))
    return out


def _model_cases():
    """`[(name, outputs, made inputs, arrays, options)]`: the cases whose symbolic call
    gives only tensors, for the tests that run every op in one model."""
    found = []
    for name, (_, arrays, options) in sorted(CASE_TABLE.items()):
        # The dtype variants' symbolic specs are compared above; their values would only
        # lengthen the compiled program (on JAX, one XLA compile of all of it).
        if options.get("eager_only") or options.get("variant"):
            continue
        try:
            made = _symbolic(name)
        except Exception:  # its own test reports it
            continue
        if made is None:
            continue
        out, made_inputs = made
        leaves = tools.flat(out)
        if not made_inputs or not all(isinstance(t, lamina.KerasTensor) for t in leaves):
            continue
        found.append((name, leaves, made_inputs, arrays, options))
    return found


def _compare_model_results(owners, results, mode) -> list:
    problems: list = []
    start = 0
    for name, count, options in owners:
        got = results[start : start + count]
        start += count
        compare(name, mode, got, references()[name]["value"], options, problems)
    return problems


def test_ops_in_one_functional_model_match_keras():
    """The symbolic outputs of every op in one functional model, run once on the arrays."""
    inputs, outputs, owners = {}, [], []
    data = {}
    for name, leaves, made_inputs, arrays, options in _model_cases():
        inputs.update(made_inputs)
        for i, x in enumerate(arrays):
            if isinstance(x, np.ndarray):
                data[f"in__{name.replace('.', '_')}_{i}"] = x
        outputs.extend(leaves)
        owners.append((name, len(leaves), options))
    model = lamina.Model(inputs, outputs)
    results = [ops.convert_to_numpy(v) for v in model(data)]
    problems = _compare_model_results(owners, results, "functional")
    assert len(owners) > 150, f"only {len(owners)} ops ran in the functional model"
    assert not problems, "\n".join(problems)


class _OpsModel(lamina.Model):
    """Every case's op called in a subclassed model's `call`, each input given with a
    leading batch axis of 1 (so `predict` can batch them all) that `call` takes off."""

    def __init__(self, cases):
        super().__init__()
        self.cases = cases

    def call(self, data):
        outputs = []
        for name, arrays in self.cases:
            args = [
                data[f"in__{name.replace('.', '_')}_{i}"][0] if isinstance(x, np.ndarray) else x
                for i, x in enumerate(arrays)
            ]
            f = CASE_TABLE[name][0]
            outputs.extend(ops.expand_dims(leaf, 0) for leaf in tools.flat(f(ops, *args)))
        return outputs


def test_ops_in_a_subclassed_models_predict_match_keras():
    """(c) and (e): every op inside a subclassed model's `call`, run by `predict` (its
    compiled step on JAX, the captured one on torch) on the arrays."""
    cases, owners, data = [], [], {}
    for name, leaves, _, arrays, options in _model_cases():
        # `predict` hands float64 data to the model as floatx, as Keras's does: those
        # cases' dtypes are compared eagerly and in the functional model.
        if any(isinstance(x, np.ndarray) and x.dtype == np.float64 for x in arrays):
            continue
        for i, x in enumerate(arrays):
            if isinstance(x, np.ndarray):
                data[f"in__{name.replace('.', '_')}_{i}"] = x[None]
        cases.append((name, arrays))
        owners.append((name, len(leaves), options))
    results = _OpsModel(cases).predict(data, batch_size=1, verbose=0)
    results = [r.reshape(r.shape[1:]) for r in results]  # the batch axis of 1 off
    problems = _compare_model_results(owners, results, "subclassed predict")
    assert len(owners) > 150, f"only {len(owners)} ops ran in the subclassed model"
    assert not problems, "\n".join(problems)


def test_harness_catches_a_difference():
    """The comparison itself: a wrong value, dtype or Python result is reported."""
    problems: list = []
    e = np.array([1.0, 2.0], "float32")
    compare("t", "eager", [e + 1e-3], [e], {}, problems)
    compare("t", "eager", [e.astype("float64")], [e], {}, problems)
    compare("t", "eager", [(3, 4)], [(3, 5)], {}, problems)
    compare("t", "eager", [e + 1.0], [e], {"spec": True}, problems)
    assert len(problems) == 3, problems
