"""Model-side helpers of the scikit-learn wrappers; this module does not import scikit-learn.

The wrappers need four facts about a lamina model that scikit-learn does not know about:
whether it is ready to train (compiled, with a loss and an optimizer), how to make an
untrained copy of it (same architecture and compile settings, new weights), which loss it
was compiled with (that decides how class labels are encoded), and how wide its output is.
"""

from __future__ import annotations

import copy

import numpy as np

from lamina.models import Model, clone_model

SKLEARN_MISSING = (
    "{name} needs scikit-learn, which is not installed. Install it with "
    "`pip install lamina[sklearn]` (or `pip install scikit-learn`)."
)


def check_model(model, owner: str) -> None:
    """Raise unless `model` is a lamina `Model` compiled with a loss and an optimizer."""
    if not isinstance(model, Model):
        raise TypeError(
            f"{owner}: `model` must be a lamina Model or a callable returning one; the "
            f"callable returned {type(model).__name__}."
        )
    compiled = getattr(model, "compiled", False)
    if not compiled or getattr(model, "optimizer", None) is None or compile_loss(model) is None:
        raise RuntimeError(
            f"{owner}: the model must be compiled with a loss and an optimizer before it is "
            "wrapped, e.g. `model.compile(optimizer='adam', loss='categorical_crossentropy')`."
        )


def compile_loss(model):
    """The `loss` the model was compiled with (a name, function or `Loss`), or None."""
    return getattr(model, "_compile_args", {}).get("loss")


def _fresh(spec):
    """A new, untrained copy of a compile argument: optimizers and metrics carry state."""
    if isinstance(spec, (list, tuple)):
        return type(spec)(_fresh(item) for item in spec)
    if isinstance(spec, dict):
        return {key: _fresh(value) for key, value in spec.items()}
    if hasattr(spec, "get_config") and hasattr(type(spec), "from_config"):
        try:
            return type(spec).from_config(spec.get_config())
        except Exception:
            return copy.deepcopy(spec)
    return spec  # a name or a plain function: nothing to copy


class _Rebuild:
    """An object that travels as its class and config (picklable without its state)."""

    def __init__(self, obj):
        self.cls = type(obj)
        self.config = obj.get_config()

    def build(self):
        return self.cls.from_config(self.config)


def portable_compile_args(model) -> dict | None:
    """What `model.compile` was given, in a form pickle can carry; None if not compiled.

    Optimizer, loss and metric objects become `_Rebuild`s; names and functions stay as
    they are (pickle carries a function by reference).
    """
    if not getattr(model, "compiled", False):
        return None

    def portable(spec):
        if isinstance(spec, (list, tuple)):
            return type(spec)(portable(item) for item in spec)
        if isinstance(spec, dict):
            return {key: portable(value) for key, value in spec.items()}
        if hasattr(spec, "get_config") and hasattr(type(spec), "from_config"):
            return _Rebuild(spec)
        return spec

    return portable(dict(model._compile_args))


def restore_compile_args(model, args: dict) -> None:
    """Compile `model` again with `portable_compile_args`'s output, keeping its optimizer.

    The optimizer (and its state) is the one the model was loaded with; losses and
    metrics are the original objects and functions, so unregistered ones work.
    """

    def rebuild(spec):
        if isinstance(spec, (list, tuple)):
            return type(spec)(rebuild(item) for item in spec)
        if isinstance(spec, dict):
            return {key: rebuild(value) for key, value in spec.items()}
        return spec.build() if isinstance(spec, _Rebuild) else spec

    model.compile(optimizer=model.optimizer, **rebuild(args))


def clone_untrained(model: Model, owner: str) -> Model:
    """A copy of `model` with the same architecture and compile settings and new weights.

    The clone gets its own variables, optimizer and metric state, so fitting it never
    touches `model`. It is compiled with what `model.compile` was given, each optimizer,
    loss and metric object rebuilt from its config (a custom loss function is reused as
    it is, so it need not be registered).
    """
    try:
        clone = clone_model(model)
    except Exception as err:
        raise ValueError(
            f"{owner} could not clone the model passed as `model=` ({err}). The wrapper "
            "fits a fresh clone so two fits never share weights; a subclassed model "
            "without `get_config` cannot be cloned. Pass a callable that builds and "
            "compiles the model instead: `model=lambda X, y: build_model()`."
        ) from err
    if getattr(model, "compiled", False):
        settings = {key: _fresh(value) for key, value in model._compile_args.items()}
        clone.compile(optimizer=_fresh(model.optimizer), **settings)
    return clone


def loss_key(model) -> tuple[str, bool]:
    """The compiled loss as `(normalized name, from_logits)`.

    The name is lower case without underscores, so `"sparse_categorical_crossentropy"`,
    `SparseCategoricalCrossentropy()` and the function `sparse_categorical_crossentropy`
    all give `"sparsecategoricalcrossentropy"`.
    """
    loss = compile_loss(model)
    if isinstance(loss, (list, tuple)) and len(loss) == 1:
        loss = loss[0]
    if isinstance(loss, dict) and len(loss) == 1:
        loss = next(iter(loss.values()))
    from_logits = False
    if isinstance(loss, str):
        name = loss
    elif hasattr(loss, "get_config"):
        name = type(loss).__name__
        from_logits = bool(loss.get_config().get("from_logits", False))
    else:
        name = getattr(loss, "__name__", "")
    return name.lower().replace("_", ""), from_logits


def output_width(model) -> int | None:
    """The last dimension of the model's single output, or None when it is not known."""
    try:
        outputs = model.outputs
    except (AttributeError, ValueError):
        return None
    if not outputs or len(outputs) != 1:
        return None
    shape = tuple(outputs[0].shape)
    if len(shape) != 2:
        return None
    return shape[-1]


def as_2d_output(raw, owner: str) -> np.ndarray:
    """The model's `predict` output as a NumPy array of shape `(n_samples, n_outputs)`."""
    if isinstance(raw, (list, tuple)):
        if len(raw) != 1:
            raise ValueError(
                f"{owner} wraps models with one output; the model returned {len(raw)} "
                "outputs. Build a model with a single output tensor."
            )
        raw = raw[0]
    if isinstance(raw, dict):
        raise ValueError(
            f"{owner} wraps models with one output; the model returned a dict with keys "
            f"{sorted(raw)}. Build a model with a single output tensor."
        )
    raw = np.asarray(raw)
    if raw.ndim == 1:
        raw = raw[:, None]
    return raw
