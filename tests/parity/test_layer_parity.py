"""The differential harness for layers: every layer class lamina exports, built in lamina
and in Keras 3 with the same config and the same weights (lamina's set from Keras's),
compared in each calling mode on seeded inputs:

(a) symbolic, inside a functional model, then run on data (`model(x)`);
(b) eager, on arrays;
(c) inside a subclassed model's `call`;
(d) inside `fit`'s compiled step: one SGD step, its loss and the updated weights;
(e) `predict`;
(f) the first input given by keyword, named as `call` names it (`layer(inputs=x)`),
    eager and in a functional model;
(g) for the classes that run (d): `fit` on a subclassed model holding the layer, whose
    `call` must only ever see the data's batch size (the model is built from the first
    real batch, never from stand-in shapes).

Compared: the outputs (with the tolerances of their dtype, `parity_tools.TOLERANCES`),
their dtypes and shapes, the masks they carry (and `compute_mask` where a case asks),
`compute_output_shape`, the symbolic output specs, and that the NumPy arrays handed out
are writable. A layer that takes or passes masks is also called on the output of a
`Masking` layer (eager, in a functional model, in a subclassed model's call), and its
output and output mask are compared with Keras's.

The classes come from `lamina.layers`'s exports, not a list: a class with no case in
`layer_cases.py` runs on a case derived from its constructor's defaults, and
`test_every_exported_layer_is_covered` fails for a class that has neither a case nor a
working derived case nor an entry in `EXCLUDED` (with the reason).

By default each class runs ONE case (a seeded pick among its cases, by the day of the
year or `LAMINA_PARITY_SEED`), mode (d) runs for the classes in `STEP_CLASSES` (one per
family), and of the `EXPENSIVE` classes a seeded sample of `EXPENSIVE_SAMPLE` runs;
`--parity-all` (or `LAMINA_SLOW_TESTS=1`) runs every case of every class, each with mode (d) where the case allows
it (not a random layer: the engines' random streams differ).
"""

from __future__ import annotations

import datetime
import inspect
import os
import random

import numpy as np
import pytest

# Before Keras is imported: run alone, this file would otherwise get Keras's default
# (TensorFlow) backend, and the import would skip every case.
os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import parity_tools as tools  # noqa: E402
from layer_cases import CASES, Case  # noqa: E402
from parity_tools import flat, masks_of  # noqa: E402

import lamina  # noqa: E402
from lamina.layers import layer_arguments  # noqa: E402

pytestmark = [
    # Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    # The deprecation of LayerNormalization(rms_scaling=True), Keras's and lamina's.
    pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`:UserWarning"),
    # Keras's MixUp asks JAX for an int64 arange, which JAX truncates with a warning.
    pytest.mark.filterwarnings("ignore:.*Explicitly requested dtype int64:UserWarning"),
    # Keras warns when a masked input reaches a layer that drops masks; so may lamina.
    pytest.mark.filterwarnings("ignore:.*does not support masking:UserWarning"),
]

# Exported classes the harness does not build, each with the reason and where the class
# is compared instead.
EXCLUDED = {
    "Layer": "the base class: it computes nothing of its own (every case subclasses it)",
    "Wrapper": "an abstract base (Bidirectional, TimeDistributed cover its subclasses)",
    "InputLayer": "made by `Input`, never called on data; every mode (a) model holds one",
    "JaxLayer": "wraps a JAX function: no Keras twin to build from a config "
    "(tests/layers/test_jax_layer.py)",
    "FlaxLayer": "wraps a Flax module: no Keras twin to build from a config "
    "(tests/layers/test_jax_layer.py)",
    "TFSMLayer": "runs a TensorFlow SavedModel: refused when made, with the reason "
    "(tests/layers/test_tfsm_layer.py)",
    "TorchModuleWrapper": "wraps a torch module: no Keras twin to build from a config "
    "(tests/layers/test_torch_module_wrapper.py)",
    "StringLookup": "Keras 3's needs TensorFlow (tf.lookup); compared with a stated "
    "vocabulary reference in tests/layers/test_string_lookup.py",
    "IntegerLookup": "Keras 3's needs TensorFlow (tf.lookup); compared with a stated "
    "vocabulary reference in tests/layers/test_string_lookup.py",
    "TextVectorization": "Keras 3's needs TensorFlow (tf.strings); compared with a stated "
    "reference in tests/layers/test_text_vectorization.py",
    "Hashing": "Keras 3's needs TensorFlow (tf.strings.to_hash_bucket); compared with "
    "FarmHash values in tests/layers/test_hashing.py",
    "HashedCrossing": "Keras 3's needs TensorFlow (tf.sparse.cross_hashed); compared with "
    "FarmHash values in tests/layers/test_hashing.py",
    "LocallyConnected1D": "a Keras 2 layer Keras 3 dropped: no twin to build; compared with "
    "a direct NumPy loop in tests/classic/test_module_paths.py",
    "LocallyConnected2D": "a Keras 2 layer Keras 3 dropped: no twin to build; compared with "
    "a direct NumPy loop in tests/classic/test_module_paths.py",
    "ThresholdedReLU": "a Keras 2 layer Keras 3 dropped: no twin to build; compared with "
    "stated values in tests/classic/test_module_paths.py",
}

# Mode (d) by default: one class per family (the others run it under --parity-all).
STEP_CLASSES = frozenset(
    {
        "Dense",
        "EinsumDense",
        "Embedding",
        "Conv2D",
        "Conv1DTranspose",
        "SeparableConv1D",
        "BatchNormalization",
        "LayerNormalization",
        "PReLU",
        "LSTM",
        "MultiHeadAttention",
        "Attention",
        "TimeDistributed",
        "Concatenate",
        "GlobalAveragePooling1D",
        "MaxPooling2D",
        "Flatten",
        "UpSampling2D",
    }
)

# Classes whose case costs 1.5-7 s of CPU on JAX (scans over time, many-op image and
# audio transforms; measured with an empty compilation cache): by default a seeded
# sample of them runs, and `--parity-all` runs them all. A class in STEP_CLASSES
# always runs.
EXPENSIVE = frozenset(
    {
        "AugMix",
        "Bidirectional",
        "ContrastLimitedAdaptiveHistogramEqualization",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "CutMix",
        "Equalization",
        "GRU",
        "GRUCell",
        "GroupedQueryAttention",
        "MelSpectrogram",
        "MixUp",
        "RNN",
        "RandAugment",
        "RandomElasticTransform",
        "RandomErasing",
        "RandomHue",
        "RandomPerspective",
        "RandomRotation",
        "STFTSpectrogram",
        "SimpleRNN",
        "StackedRNNCells",
    }
)
EXPENSIVE_SAMPLE = 3


def _all_cases(config) -> bool:
    """`--parity-all`, or the suite's `LAMINA_SLOW_TESTS=1`."""
    return config.getoption("--parity-all") or os.environ.get("LAMINA_SLOW_TESTS") == "1"


def _seed() -> int:
    seed = os.environ.get("LAMINA_PARITY_SEED")
    return int(seed) if seed is not None else datetime.date.today().timetuple().tm_yday


def _cases_by_class() -> dict:
    """`{class name: [cases]}`; a case may name its class by any exported alias."""
    classes = {
        alias: name for name, aliases in tools.exported_layer_classes().items() for alias in aliases
    }
    by_class: dict = {}
    for case in CASES:
        for covered in (case.layer_name,) + tuple(case.covers):
            by_class.setdefault(classes.get(covered, covered), []).append(case)
    return by_class


_DERIVED_ARGUMENTS = {
    "units": 3,
    "filters": 2,
    "kernel_size": 2,
    "pool_size": 2,
    "rate": 0.5,
    "num_heads": 2,
    "key_dim": 2,
    "height": 4,
    "width": 4,
    "factor": 0.2,
    "axis": -1,
}
_DERIVED_INPUTS = [
    np.random.default_rng(3).normal(size=shape).astype("float32")
    for shape in [(2, 5), (2, 4, 3), (2, 6, 5, 3), (2, 4, 4, 3, 2)]
]


def derived_case(name):
    """A case for a class without one: its required constructor arguments filled from
    `_DERIVED_ARGUMENTS`, called on the first of `_DERIVED_INPUTS` both Keras's layer
    and lamina's accept. None if there is none."""
    ours, theirs = getattr(lamina.layers, name, None), getattr(keras.layers, name, None)
    if ours is None or theirs is None:
        return None
    kwargs = {}
    for param in inspect.signature(ours.__init__).parameters.values():
        if param.default is inspect.Parameter.empty and param.kind in (
            param.POSITIONAL_OR_KEYWORD,
            param.KEYWORD_ONLY,
        ):
            if param.name == "self":
                continue
            if param.name not in _DERIVED_ARGUMENTS:
                return None
            kwargs[param.name] = _DERIVED_ARGUMENTS[param.name]
    for x in _DERIVED_INPUTS:
        case = Case(f"{name}-derived", lambda L, k=kwargs: getattr(L, name)(**k), (x,))
        try:
            case.make(keras.layers)(x)
            case.make(lamina.layers)(x)
        except Exception:
            continue
        return case
    return None


def _selected(all_cases: bool) -> list:
    """`(class name, case)` pairs to run."""
    by_class = _cases_by_class()
    rng = random.Random(_seed())
    chosen = []
    for name in sorted(tools.exported_layer_classes()):
        if name in EXCLUDED:
            continue
        cases = by_class.get(name)
        if not cases:
            chosen.append((name, None))  # derived when it runs
        elif all_cases:
            chosen.extend((name, case) for case in cases)
        else:
            chosen.append((name, cases[rng.randrange(len(cases))]))
    if not all_cases:
        costly = [p for p in chosen if p[0] in EXPENSIVE and p[0] not in STEP_CLASSES]
        kept = {p[0] for p in rng.sample(costly, k=min(EXPENSIVE_SAMPLE, len(costly)))}
        chosen = [p for p in chosen if p[0] not in EXPENSIVE or p[0] in kept | STEP_CLASSES]
    return chosen


def pytest_generate_tests(metafunc):
    if "layer_case" not in metafunc.fixturenames:
        return
    all_cases = _all_cases(metafunc.config)
    params = []
    for name, case in _selected(all_cases):
        marks = []
        if case is not None and case.xfail:
            marks.append(pytest.mark.xfail(reason=case.xfail, strict=True))
        ident = case.id if (all_cases and case is not None) else name
        params.append(pytest.param((name, case), id=ident, marks=marks))
    metafunc.parametrize("layer_case", params)


# -- the lamina side ---------------------------------------------------------------------------
def _is_random(layer) -> bool:
    return any(sub._seed_generators() for sub in layer._flatten_layers())


class _Holder(lamina.Model):
    """A subclassed model whose `call` runs the layer (after a Masking layer, for the
    masked variant)."""

    def __init__(self, inner, kwargs, spread, masking=False):
        super().__init__()
        self.inner = inner
        self.call_kwargs = kwargs
        self.spread = spread
        self.masking = lamina.layers.Masking(0.0) if masking else None

    def call(self, inputs):
        if self.masking is not None:
            inputs = self.masking(inputs)
        if self.spread:
            return self.inner(*inputs, training=False, **self.call_kwargs)
        return self.inner(inputs, training=False, **self.call_kwargs)


class _BatchWatcher(_Holder):
    """A `_Holder` that records the batch size of every call of its `call`: a model
    `fit` builds must see only the batch sizes of the data, never stand-ins (issue 38)."""

    def __init__(self, inner, kwargs, spread):
        super().__init__(inner, kwargs, spread)
        self.seen = []

    def call(self, inputs):
        self.seen.append(flat(inputs)[0].shape[0])
        return super().call(inputs)


def _check_keyword_input(case, layer, reference, problems) -> None:
    """(f) The first input given by keyword, named as `call` names it, eager and in a
    functional model, as Keras binds it."""
    if len(case.args) != 1:
        return
    first = layer_arguments.first_call_argument(type(layer))
    if first is None or first in case.kwargs:
        return
    out = layer(training=False, **{first: case.args[0]}, **case.kwargs)
    tools.compare_outputs(
        case, f"eager, {first}= by keyword", flat(out), reference.outputs, problems
    )
    tools.compare_masks(f"eager, {first}= by keyword", masks_of(out), reference.masks, problems)
    args, kwargs, inputs = tools.symbolic_inputs(lamina.Input, case)
    model = lamina.Model(inputs, layer(**{first: args[0]}, **kwargs))
    out = model(tools.array_leaves(case), training=False)
    tools.compare_outputs(
        case, f"functional, {first}= by keyword", flat(out), reference.outputs, problems
    )


def _check_real_batch_build(case, layer, reference, problems) -> None:
    """(g) `fit` builds a subclassed model from the first real batch: its `call` sees
    the data's batch size only, and the step gives Keras's loss."""
    spread = len(case.args) > 1
    data = list(case.args) if spread else case.args[0]
    watcher = _BatchWatcher(layer, case.kwargs, spread)
    y = tools.step_targets(reference.outputs)
    watcher.compile(lamina.optimizers.SGD(0.0), loss=["mse"] * len(y))
    batch = len(y[0])
    watcher.fit(data, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    if not watcher.seen:
        problems.append("fit of a subclassed model never ran its call on a batch")
    stand_ins = sorted({size for size in watcher.seen if size not in (batch, None)}, key=str)
    if stand_ins:
        problems.append(f"fit of a subclassed model called it with batch sizes {stand_ins}")


def _check_case(case, reference, with_step) -> list:
    problems: list = []
    layer = case.make(lamina.layers)
    if case.adapt is not None:
        layer.adapt(case.adapt)
    layer(*case.args, **case.kwargs)
    ours = [tuple(v.shape) for v in layer.weights]
    theirs = [tuple(np.shape(w)) for w in reference.weights]
    if ours != theirs:
        return [
            f"weights {[v.path for v in layer.weights]} have shapes {ours}; Keras's, in "
            f"Keras's order, {theirs}"
        ]
    layer.set_weights(reference.weights)

    # (b) eager, on arrays
    out = layer(*case.args, training=False, **case.kwargs)
    tools.compare_outputs(case, "eager", flat(out), reference.outputs, problems)
    tools.compare_masks("eager", masks_of(out), reference.masks, problems)
    if reference.compute_mask is not None:
        previous = case.previous_mask if case.previous_mask is not None else case.kwargs.get("mask")
        computed = flat(layer.compute_mask(case.args[0], previous))
        tools.compare_masks("compute_mask", computed, reference.compute_mask, problems)
    if reference.output_shape is not None:
        shape = layer.compute_output_shape(*tools.none_batch_shapes(case.args))
        if not _shapes_match(shape, reference.output_shape):
            problems.append(f"compute_output_shape {shape}, Keras gives {reference.output_shape}")
    x_masked = tools.masking_input(case) if reference.masked is not None else None
    if x_masked is not None:
        hidden = lamina.layers.Masking(0.0)(x_masked)
        out = layer(hidden, training=False, **case.kwargs)
        tools.compare_outputs(case, "eager, masked input", flat(out), reference.masked[0], problems)
        tools.compare_masks("eager, masked input", masks_of(out), reference.masked[1], problems)

    # (a) symbolic, in a functional model
    args, kwargs, inputs = tools.symbolic_inputs(lamina.Input, case)
    try:
        symbolic = layer(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - reported as a difference
        problems.append(f"symbolic call failed: {type(error).__name__}: {error}"[:300])
        return problems
    _compare_specs(tools.specs(symbolic), reference, problems)
    model = lamina.Model(inputs, symbolic)
    data = tools.array_leaves(case)
    if _is_random(layer):
        # A bare call trains a random layer (its `call` defaults to training=True, as
        # in Keras): values from the engine's random stream, so shapes and dtypes only.
        bare = [tools.numpy(o) for o in flat(model(data))]
        _compare_structure(bare, reference.outputs, problems)
        out = model(data, training=False)
    else:
        out = model(data)
    tools.compare_outputs(case, "functional model(x)", flat(out), reference.outputs, problems)
    tools.compare_masks("functional model(x)", masks_of(out), reference.masks, problems)
    if x_masked is not None:
        entry = lamina.Input(tuple(x_masked.shape[1:]))
        masked_model = lamina.Model(entry, layer(lamina.layers.Masking(0.0)(entry), **case.kwargs))
        out = masked_model(x_masked)
        tools.compare_outputs(
            case, "functional, masked input", flat(out), reference.masked[0], problems
        )
        tools.compare_masks(
            "functional, masked input", masks_of(out), reference.masked[1], problems
        )

    # (c) inside a subclassed model's call
    spread = len(case.args) > 1
    holder = _Holder(layer, case.kwargs, spread)
    out = holder(list(case.args) if spread else case.args[0])
    tools.compare_outputs(case, "subclassed call", flat(out), reference.outputs, problems)
    tools.compare_masks("subclassed call", masks_of(out), reference.masks, problems)
    if x_masked is not None:
        out = _Holder(layer, case.kwargs, False, masking=True)(x_masked)
        tools.compare_outputs(case, "subclassed, masked", flat(out), reference.masked[0], problems)
        tools.compare_masks("subclassed, masked", masks_of(out), reference.masked[1], problems)

    # (f) the first input by keyword
    _check_keyword_input(case, layer, reference, problems)

    # (e) predict
    predicted = model.predict(data, verbose=0)
    tools.compare_outputs(case, "predict", flat(predicted), reference.outputs, problems)

    # (d) one step of fit
    if with_step and reference.step is not None:
        model.compile(lamina.optimizers.SGD(tools.LEARNING_RATE), loss=["mse"] * len(flat(out)))
        y = tools.step_targets(reference.outputs)
        history = model.fit(data, y, batch_size=len(y[0]), epochs=1, shuffle=False, verbose=0)
        loss, weights = reference.step
        tools.compare_outputs(
            case,
            "fit step loss",
            [np.float32(history.history["loss"][0])],
            [np.float32(loss)],
            problems,
            factor=tools.STEP_FACTOR,
        )
        tools.compare_outputs(
            case,
            "fit step weights",
            layer.get_weights(),
            weights,
            problems,
            factor=tools.STEP_FACTOR,
        )
        # (g) the real-batch build of a subclassed model in fit
        _check_real_batch_build(case, layer, reference, problems)
    return problems


def _compare_structure(got, expected, problems) -> None:
    """Output count, shapes and dtypes only (values drawn at random)."""
    shapes = [(o.shape, o.dtype) for o in got]
    wanted = [(e.shape, e.dtype) for e in expected]
    if shapes != wanted:
        problems.append(f"model(x) in training: (shape, dtype) {shapes}, Keras gives {wanted}")


def _compare_specs(got, reference, problems) -> None:
    """The symbolic outputs' specs: shapes and dtypes must be those of the call on data
    (Keras's eager outputs), and shapes must also know the dims Keras's symbolic call
    knows where that call agrees with Keras's own eager one (where it does not, a Keras
    bug, the data are the reference); masks as Keras's symbolic call has them."""
    if reference.symbolic is None:
        return
    if len(got) != len(reference.symbolic):
        problems.append(
            f"symbolic call: {len(got)} outputs, Keras's gives {len(reference.symbolic)}"
        )
        return
    for i, (spec, expected) in enumerate(zip(got, reference.symbolic, strict=True)):
        shape, dtype, has_mask = spec
        real = (None,) + tuple(reference.outputs[i].shape[1:])
        if not _shapes_match(real, shape) or (
            _shapes_match(real, expected[0]) and not _shapes_match(shape, expected[0])
        ):
            problems.append(
                f"symbolic output {i}: shape {shape}; the call on data gives {real}, "
                f"Keras's symbolic call {expected[0]}"
            )
        if dtype != str(reference.outputs[i].dtype):
            problems.append(
                f"symbolic output {i}: dtype {dtype}, the call on data gives "
                f"{reference.outputs[i].dtype} (Keras's symbolic call: {expected[1]})"
            )
        if has_mask != expected[2]:
            problems.append(
                f"symbolic output {i}: {'a' if has_mask else 'no'} mask, Keras's has "
                f"{'one' if expected[2] else 'none'}"
            )


def _shapes_match(got, expected) -> bool:
    """Equal, where Keras may leave unknown a dim that lamina infers."""
    if isinstance(expected, dict):
        expected = [expected[k] for k in sorted(expected)]
        got = [got[k] for k in sorted(got)] if isinstance(got, dict) else got
    if (
        isinstance(expected, (list, tuple))
        and expected
        and isinstance(expected[0], (list, tuple, dict))
    ):
        return len(got) == len(expected) and all(map(_shapes_match, got, expected))
    return len(got) == len(expected) and all(
        e is None or g == e for g, e in zip(got, expected, strict=True)
    )


# -- the tests ---------------------------------------------------------------------------------
# Differences from Keras 3 left on purpose: `(case id prefix, words of the problem,
# engine or None for both)` -> the reason. A matching problem is not a failure.
ALLOWED_DIFFERENCES = {
    (
        "LSTM-initial_state",
        "masked",
        None,
    ): "Keras 3 fills `mask` from the input's mask only when the call has one tensor "
    "argument (Layer.__call__, step 6), so an LSTM given an initial_state ignores the "
    "Masking layer in front of it and runs over the padding; Keras 2 applied it, and "
    "so does lamina (an explicit `mask=` gives both the same numbers)",
    (
        "RMSNormalization",
        "masked",
        None,
    ): "Keras 3.15's RMSNormalization drops the input's mask (it never sets "
    "supports_masking), unlike its LayerNormalization(rms_scaling=True), which computes "
    "the same thing and passes the mask on; lamina passes it, as LayerNormalization does",
    (
        "SpectralNormalization",
        "fit step weights",
        "torch",
    ): "Keras 3's own engines disagree (the reference is Keras on JAX): a trainable "
    "variable assigned in the forward pass (the normalized kernel) keeps the assignment "
    "under a stateful step (Keras's torch backend, lamina's torch) and loses it under "
    "JAX's stateless one; lamina gives Keras's kernel on each engine (checked with "
    "KERAS_BACKEND=torch)",
}


def _unexpected(case, problems) -> list:
    engine = lamina.backend.backend()
    return [
        p
        for p in problems
        if not any(
            case.id.startswith(prefix) and words in p and where in (None, engine)
            for prefix, words, where in ALLOWED_DIFFERENCES
        )
    ]


def test_layer_in_every_mode(layer_case, request):
    name, case = layer_case
    if case is None:
        case = derived_case(name)
        assert case is not None, f"{name}: no case (see test_every_exported_layer_is_covered)"
    all_cases = _all_cases(request.config)
    # Not for a random layer in training mode: the engines' random streams differ.
    with_step = (all_cases or name in STEP_CLASSES) and not _is_random(case.make(lamina.layers))
    reference = tools.keras_reference(case, with_step=with_step)
    problems = _unexpected(case, _check_case(case, reference, with_step))
    assert not problems, f"{case.id}: " + "\n".join(problems)


def test_every_exported_layer_is_covered():
    by_class = _cases_by_class()
    uncovered = [
        name
        for name in tools.exported_layer_classes()
        if name not in EXCLUDED and name not in by_class and derived_case(name) is None
    ]
    assert not uncovered, (
        f"Exported layers with no parity case: {uncovered}. Add a case to "
        "tests/parity/layer_cases.py, or an entry with the reason to EXCLUDED."
    )
    stale = sorted(set(EXCLUDED) - set(tools.exported_layer_classes()))
    assert not stale, f"EXCLUDED names classes lamina no longer exports: {stale}"
