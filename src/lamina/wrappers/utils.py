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


def _compile_config(model) -> dict:
    get = getattr(model, "get_compile_config", None) or model._compile_config
    return get()


def _compile_from_config(model, config: dict) -> None:
    apply = getattr(model, "compile_from_config", None) or model._compile_from_config
    apply(config)


def clone_untrained(model: Model, owner: str) -> Model:
    """A copy of `model` with the same architecture and compile settings and new weights.

    The clone gets its own variables, optimizer and metric state, so fitting it never
    touches `model`. Compile settings go through the compile config (as Keras's
    `clone_model` does); a loss or metric that cannot be serialized (a plain function not
    registered with `saving.register_keras_serializable`) is deep-copied instead.
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
    if getattr(model, "compiled", False) and not getattr(clone, "compiled", False):
        try:
            _compile_from_config(clone, _compile_config(model))
        except Exception:
            optimizer = model.optimizer
            settings = copy.deepcopy(model._compile_args)
            clone.compile(optimizer=type(optimizer).from_config(optimizer.get_config()), **settings)
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
