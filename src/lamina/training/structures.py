"""The structures `compile` leaves to the first batch: the model's output structure and
names, and from them the compiled loss, the compiled metrics and the per-output loss
trackers; and `model.metrics`, the list of metrics those make (Keras 3's order).

They are built once, from the first batch `fit`, `evaluate` or a step called by hand
sees (`_build_structures`), because a subclassed model's outputs are known only then.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, tree
from lamina import metrics as metrics_module
from lamina.backend.common.variables import structure_version
from lamina.training.compile_utils import CompileMetrics, flatten_outputs


class OutputStructures:
    """The output-structure and metrics-list part of `Model` (a mixin of the trainer)."""

    def _output_names_for(self, y_pred) -> list[str]:
        flat = flatten_outputs(y_pred)
        if getattr(self, "_function", None) is not None:
            names = self.output_names
            if len(names) == len(flat):
                return names
        if isinstance(y_pred, dict):
            return sorted(y_pred)
        if len(flat) == 1:
            return ["output"]
        return [f"output_{i + 1}" for i in range(len(flat))]

    def _has_call(self) -> bool:
        """False for a model whose steps do everything (a GAN without `call`)."""
        return getattr(self, "_function", None) is not None or not getattr(
            type(self).call, "_lamina_default", False
        )

    def _build_structures(self, x, outputs=None):
        """Build the output structure, compiled loss and metrics from a batch `x` (or,
        when a step already ran the model, from its `outputs`)."""
        if self._structures_built:
            return
        if not self._has_call():
            self._output_names_cache = []
            self._structures_built = True
            return
        functional = getattr(self, "_function", None) is not None
        if outputs is None and (not self.built or not functional):
            self(x)  # builds subclassed / deferred models on a real batch
        if outputs is None or functional:
            spec = self._output_spec_for(x)
        else:
            spec = self._output_spec_for(outputs, outputs=True)
        self._output_struct = spec
        names = self._output_names_for(spec)
        shapes = [tuple(s.shape) for s in flatten_outputs(spec)]
        self._output_names_cache = names
        if self._compile_loss is not None:
            self._compile_loss.build(names, shapes)
        self._compile_metrics.build(names, shapes, self._compile_loss)
        # Per-output losses are logged when more than one output has a loss (as in Keras).
        multi = (
            self._compile_loss is not None
            and sum(loss is not None for loss in self._compile_loss.losses) > 1
        )
        self._output_loss_trackers = (
            [
                metrics_module.Mean(name=f"{name}_loss")
                if self._compile_loss.losses[i] is not None
                else None
                for i, name in enumerate(names)
            ]
            if multi
            else []
        )
        self._output_loss_order = self._loss_tracker_order(spec, names)
        self._structures_built = True

    def _loss_tracker_order(self, spec, names) -> list[int]:
        """The order of the per-output loss trackers in `model.metrics` (so in
        `metrics_names` and `evaluate`'s list), as Keras 3 builds them: a `loss` dict
        for a model with dict outputs is walked in the dict's own order; otherwise the
        outputs' order."""
        order = list(range(len(self._output_loss_trackers)))
        loss = getattr(self, "_compile_args", {}).get("loss")
        if isinstance(loss, dict) and isinstance(spec, dict) and order:
            position = {name: i for i, name in enumerate(names)}
            first = [position[key] for key in loss if key in position]
            order = first + [i for i in order if i not in first]
        return order

    def _output_spec_for(self, x, outputs=False):
        from lamina.graph.keras_tensor import KerasTensor

        if getattr(self, "_function", None) is not None:
            return self._function._outputs_struct
        sample = tree.map_structure(
            lambda a: KerasTensor(
                (None,) + tuple(np.shape(a)[1:]), backend.standardize_dtype(a.dtype)
            ),
            x,
        )
        if outputs:  # `x` is what the model returned: its spec is the outputs' spec
            return sample
        from lamina.graph.operation import output_spec

        return output_spec(lambda v: self.call(v), (sample,), {})

    @property
    def metrics(self) -> list:
        """The metrics tracked during training, as in Keras 3: the loss, each output's
        loss (several outputs), `compile_metrics` (holding the compiled metrics), then
        metrics held as attributes of the model (a GAN's loss trackers)."""
        # Kept per structure version (a new metric makes variables): eager engines ask
        # for the list in every step.
        version = structure_version()
        cached = self.__dict__.setdefault("_metrics_cache", None)
        if cached is not None and cached[0] == version and cached[1] == self._metrics_key():
            return list(cached[2])
        out = self._collect_metrics()
        self.__dict__["_metrics_cache"] = (version, self._metrics_key(), out)
        return list(out)

    def _metrics_key(self):
        compiled = self._compile_metrics
        return (
            id(self._loss_tracker),
            id(compiled),
            compiled is not None and compiled.built,
            len(self.__dict__),
        )

    def _collect_metrics(self) -> list:
        # Keras 3's order. `compile_metrics` is listed from `compile` on whenever
        # `metrics` or `weighted_metrics` was given (even empty, or not yet built), as
        # in Keras; the per-output loss trackers appear once the outputs are known.
        out = []
        if self._loss_tracker is not None:
            out.append(self._loss_tracker)
        compiled = self._compile_metrics
        if compiled is not None and (
            compiled._metrics_spec is not None or compiled._weighted_spec is not None
        ):
            out.append(compiled)
        trackers = self._output_loss_trackers
        order = self.__dict__.get("_output_loss_order")
        if order is None or len(order) != len(trackers):  # recompiled, not yet built
            order = range(len(trackers))
        out.extend(trackers[i] for i in order if trackers[i] is not None)
        seen = {id(m) for m in out}
        for value in self.__dict__.values():
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, metrics_module.Metric) and id(item) not in seen:
                    if isinstance(item, CompileMetrics):
                        continue
                    seen.add(id(item))
                    out.append(item)
        return out

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    def _flat_metric_names(self) -> list[str]:
        """The order of `evaluate`'s (and `*_on_batch`'s) list of results, which is
        Keras's: the loss, each output's loss, the compiled metrics, then the rest."""
        names, compiled = [], []
        for m in self.metrics:
            if isinstance(m, CompileMetrics):
                compiled.extend(sub.name for sub in m.metrics)
            else:
                names.append(m.name)
        losses = (self._loss_tracker is not None) + sum(
            t is not None for t in self._output_loss_trackers
        )
        return names[:losses] + compiled + names[losses:]
