"""The machinery of the differential harness: which layers lamina exports, the Keras 3
reference of a case, the lamina side in each calling mode, and the comparisons.

Keras is only the reference, so it runs on JAX whatever lamina's engine. Its results
for a case (weights, outputs, masks, shapes, one training step) are kept in
`.cache/parity/` keyed by Keras's version and the case's source and inputs, so the torch
pass of `make test` reads what the JAX pass computed (as the suite's compilation cache
is shared); `LAMINA_PARITY_CACHE=0` turns that off.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pathlib
import pickle
import tempfile
from dataclasses import dataclass, field

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
from keras.src import backend as keras_backend  # noqa: E402

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.graph.masks import get_mask  # noqa: E402

# (rtol, atol) by output dtype; a case may state wider ones. A training step compounds
# rounding (a gradient, then an update), so its comparisons take `STEP_FACTOR` times more.
TOLERANCES = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-5, 1e-5),
    "float16": (2e-3, 2e-3),
    "bfloat16": (2e-2, 3e-2),
}
STEP_FACTOR = 10
LEARNING_RATE = 0.1
_HARNESS_VERSION = 2  # bump to drop every cached reference

_CACHE = pathlib.Path(__file__).resolve().parents[2] / ".cache" / "parity"


# -- what lamina exports --------------------------------------------------------------
def exported_layer_classes() -> dict:
    """`{class name: [exported names]}` for every Layer class `lamina.layers` exports
    (aliases such as `AvgPool2D` share their class's entry)."""
    found: dict = {}
    for name in lamina.layers.__all__:
        obj = getattr(lamina.layers, name)
        if inspect.isclass(obj) and issubclass(obj, lamina.layers.Layer):
            found.setdefault(obj, []).append(name)
    return {cls.__name__: sorted(names) for cls, names in found.items()}


# -- the Keras reference ------------------------------------------------------------------
@dataclass
class Reference:
    weights: list
    outputs: list  # flat NumPy outputs of an eager call (training=False)
    masks: list  # the mask each output carries (None where none)
    compute_mask: list | None  # flat `compute_mask(args[0], previous)` where the case asks
    output_shape: object  # `compute_output_shape` on a None batch, where the case asks
    symbolic: list | None  # flat (shape, dtype, has mask) of a call on KerasTensors
    masked: tuple | None  # (outputs, masks) of a call on a Masking layer's output
    step: tuple | None = None  # (loss, weights after one SGD step), where asked
    extra: dict = field(default_factory=dict)


def flat(value) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flat(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in flat(value[key])]
    return [value]


def numpy(value):
    if value is None:
        return None
    return np.asarray(ops.convert_to_numpy(value))


def keras_numpy(value):
    if value is None:
        return None
    if hasattr(value, "value") and hasattr(value, "assign"):  # a Keras Variable
        value = value.value
    return np.asarray(value)


def none_batch_shapes(value):
    """Arrays -> shapes with a None batch, keeping lists and dicts."""
    if isinstance(value, (list, tuple)):
        return [none_batch_shapes(v) for v in value]
    if isinstance(value, dict):
        return {k: none_batch_shapes(v) for k, v in value.items()}
    return (None,) + tuple(value.shape[1:])


def random_weights(layer, rng) -> None:
    """Seeded values for every float weight, scaled so activations stay O(1)."""
    for variable in layer.weights:
        if "float" not in str(variable.dtype):
            continue
        shape = tuple(variable.shape)
        path = variable.path
        if "variance" in path or "gamma" in path or "scale" in path:
            value = rng.uniform(0.5, 1.5, shape)
        elif len(shape) >= 2:  # kernels: fan-in scaled
            value = rng.normal(0.0, 1.0 / np.sqrt(np.prod(shape[:-1])), shape)
        else:
            value = rng.uniform(-0.5, 0.5, shape)
        variable.assign(value.astype(variable.dtype))


def masking_input(case):
    """The case's first input with its last two steps zeroed in the first example, when
    a Masking layer in front of it makes sense (one float sequence, `(batch, steps,
    features)`); else None. A layer that takes no mask is called on it too: it must
    drop the mask where Keras's does."""
    x = case.args[0] if len(case.args) == 1 else None
    if not isinstance(x, np.ndarray) or x.ndim != 3 or x.dtype.kind != "f":
        return None
    if case.kwargs.get("mask") is not None:
        return None
    x = x.copy()
    x[0, -2:] = 0.0
    return x


def symbolic_inputs(make_input, case):
    """`(args, kwargs, inputs)`: the case's arguments with every array made a symbolic
    input (a functional model takes a mask or an initial state as an input too), and
    those inputs in the order of `array_leaves(case)`."""
    made = []

    def to_input(x):
        made.append(make_input(shape=tuple(x.shape[1:]), dtype=str(x.dtype)))
        return made[-1]

    return _map_arrays(to_input, case.args), _map_arrays(to_input, case.kwargs), made


def array_leaves(case) -> list:
    """The case's arrays, in the order `symbolic_inputs` makes their inputs."""
    found = []
    _map_arrays(found.append, (case.args, case.kwargs))
    return found


def specs(outputs) -> list:
    """Flat `(shape, dtype, has mask)` of symbolic outputs."""
    return [
        (tuple(t.shape), str(t.dtype), getattr(t, "_keras_mask", None) is not None)
        for t in flat(outputs)
    ]


def _map_arrays(fn, value):
    if isinstance(value, (list, tuple)):
        return type(value)(_map_arrays(fn, v) for v in value)
    if isinstance(value, dict):
        return {k: _map_arrays(fn, v) for k, v in value.items()}
    return fn(value) if isinstance(value, np.ndarray) else value


def _key(case, with_step: bool) -> str:
    digest = hashlib.sha256()
    digest.update(f"{_HARNESS_VERSION} {keras.__version__} {case.id} {with_step}".encode())
    try:
        digest.update(inspect.getsource(case.make).encode())
    except (OSError, TypeError):
        digest.update(repr(case.make).encode())
    for leaf in flat((case.args, case.kwargs, case.adapt, case.previous_mask)):
        if isinstance(leaf, np.ndarray):
            digest.update(leaf.tobytes())
        digest.update(repr(leaf if not isinstance(leaf, np.ndarray) else leaf.shape).encode())
    return digest.hexdigest()[:24]


def _cache_on() -> bool:
    return os.environ.get("LAMINA_PARITY_CACHE", "1") != "0"


def keras_reference(case, with_step: bool = False) -> Reference:
    """Keras 3's results for `case` (cached, see the module docstring)."""
    path = _CACHE / f"{case.id}-{_key(case, with_step)}.pkl"
    if _cache_on() and path.exists():
        try:
            return pickle.loads(path.read_bytes())
        except Exception:  # a damaged entry: compute it again
            pass
    reference = _compute_reference(case, with_step)
    if _cache_on():
        _CACHE.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=_CACHE, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(reference, f)
        os.replace(tmp, path)
    return reference


def _compute_reference(case, with_step) -> Reference:
    layer = case.make(keras.layers)
    if case.adapt is not None:
        layer.adapt(case.adapt)
    layer(*case.args, **case.kwargs)
    if case.adapt is None:
        # Not after adapt: Keras keeps using the adapted statistics it cached in
        # finalize_state, whatever set_weights gives.
        random_weights(layer, np.random.default_rng(0))
    weights = [keras_numpy(v) for v in layer.weights]
    out = layer(*case.args, training=False, **case.kwargs)
    outputs = [keras_numpy(o) for o in flat(out)]
    masks = [keras_numpy(keras_backend.get_keras_mask(o)) for o in flat(out)]
    computed = None
    if case.mask:
        previous = case.previous_mask if case.previous_mask is not None else case.kwargs.get("mask")
        computed = [keras_numpy(m) for m in flat(layer.compute_mask(case.args[0], previous))]
    shape = layer.compute_output_shape(*none_batch_shapes(case.args)) if case.shape else None
    try:
        args, kwargs, _ = symbolic_inputs(keras.Input, case)
        symbolic = specs(layer(*args, **kwargs))
    except Exception:  # Keras cannot call it symbolically: nothing to compare
        symbolic = None
    masked = None
    x = masking_input(case)
    if x is not None:
        try:
            out = layer(keras.layers.Masking(0.0)(x), training=False, **case.kwargs)
        except Exception:  # Keras cannot take the mask: nothing to compare
            out = None
        if out is not None:
            masked = (
                [keras_numpy(o) for o in flat(out)],
                [keras_numpy(keras_backend.get_keras_mask(o)) for o in flat(out)],
            )
    step, extra = None, {}
    if with_step and all(o.dtype.kind == "f" for o in outputs):
        try:
            step = _keras_step(case, layer)
        except Exception as error:  # Keras cannot train it: no reference for mode (d)
            extra["step_error"] = f"{type(error).__name__}: {error}"[:300]
    return Reference(weights, outputs, masks, computed, shape, symbolic, masked, step, extra)


def step_targets(outputs) -> list:
    rng = np.random.default_rng(5)
    return [rng.normal(size=o.shape).astype(o.dtype) for o in outputs]


def _keras_step(case, layer):
    """Loss and weights after one SGD step of `fit` on a model holding `layer`."""
    args, kwargs, inputs = symbolic_inputs(keras.Input, case)
    model = keras.Model(inputs, layer(*args, **kwargs))
    data = array_leaves(case)
    outputs = flat(model(data))
    model.compile(keras.optimizers.SGD(LEARNING_RATE), loss=["mse"] * len(outputs))
    y = step_targets([keras_numpy(o) for o in outputs])
    history = model.fit(data, y, batch_size=len(y[0]), epochs=1, shuffle=False, verbose=0)
    return history.history["loss"][0], [keras_numpy(v) for v in layer.weights]


# -- comparisons ----------------------------------------------------------------------------
def tolerance(case, dtype, factor: int = 1):
    rtol, atol = TOLERANCES.get(str(dtype), (0.0, 0.0))
    return max(rtol, case.rtol) * factor, max(atol, case.atol) * factor


def compare_outputs(case, mode, got, expected, problems, factor: int = 1) -> None:
    """Append to `problems` how the flat outputs `got` (lamina values) differ from
    `expected` (NumPy arrays from Keras): count, dtype, shape, values, writability."""
    if len(got) != len(expected):
        problems.append(f"{mode}: {len(got)} outputs, Keras gives {len(expected)}")
        return
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        g = ops.convert_to_numpy(g)
        where = f"{mode}: output {i}"
        if not g.flags.writeable:
            problems.append(f"{where}: convert_to_numpy gave a read-only array")
        if g.dtype != e.dtype:
            problems.append(f"{where}: dtype {g.dtype}, Keras gives {e.dtype}")
            continue
        if g.shape != e.shape:
            problems.append(f"{where}: shape {g.shape}, Keras gives {e.shape}")
            continue
        rtol, atol = tolerance(case, e.dtype, factor)
        if e.dtype.kind in "fc":
            close = np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            close = np.array_equal(g, e)
        if not close:
            worst = np.max(np.abs(g.astype("float64") - e.astype("float64")))
            problems.append(f"{where}: values differ (max abs diff {worst:.3g})")


def compare_masks(mode, got, expected, problems) -> None:
    if len(got) != len(expected):
        problems.append(f"{mode}: {len(got)} masks, Keras gives {len(expected)}")
        return
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if (g is None) != (e is None):
            problems.append(
                f"{mode}: output {i} {'carries no mask' if g is None else 'carries a mask'}"
                f", Keras's {'does' if g is None else 'does not'}"
            )
        elif e is not None and not np.array_equal(numpy(g), np.asarray(e)):
            problems.append(f"{mode}: output {i}'s mask differs from Keras's")


def masks_of(outputs) -> list:
    return [get_mask(o) for o in flat(outputs)]
