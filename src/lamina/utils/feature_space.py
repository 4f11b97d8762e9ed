"""FeatureSpace: one object that preprocesses a dict of structured-data columns.

As Keras 3's `keras.utils.FeatureSpace`: each named feature gets a preprocessing layer
(normalization, rescaling, discretization, integer or string lookup, hashing), pairs of
features can be crossed by hashing, and the results are one-hot encoded where asked and
concatenated in a fixed order (features sorted by name, then crosses sorted by name).
`adapt` learns what the layers learn from a dict of arrays; calling the space on a dict
of arrays gives the encoded NumPy array (or dict). Keras needs TensorFlow (tf.data) for
all of this; here everything runs in NumPy on the host.

In a model, `get_encoded_features()` is the space applied to `get_inputs()`: one host
step (it runs before the compiled part, like `TextVectorization`), so
`Model(feature_space.get_inputs(), head(feature_space.get_encoded_features()))` takes
raw dicts in `fit` and `predict`, and `Model(encoded_features, ...)` trains on data the
space already encoded.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, layers
from lamina.backend.common.global_state import unique_name
from lamina.common import serialization
from lamina.common.py_dataset import PyDataset
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.lookup import encode_on_host, host_array, register

_OUTPUT_MODES = ("int", "one_hot", "float")


class Cross:
    """A crossing of features, hashed into `crossing_dim` bins (see `FeatureSpace.cross`)."""

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in ("int", "one_hot"):
            raise ValueError(
                f"Cross output_mode must be 'int' or 'one_hot'; received {output_mode!r}."
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = int(crossing_dim)
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {
            "feature_names": list(self.feature_names),
            "crossing_dim": self.crossing_dim,
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """A feature: its input dtype, its preprocessing layer and its output mode (`"int"`,
    `"one_hot"` or `"float"`; see `FeatureSpace.feature`)."""

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in _OUTPUT_MODES:
            raise ValueError(
                f"Feature output_mode must be one of {list(_OUTPUT_MODES)}; received "
                f"{output_mode!r}."
            )
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = serialization.deserialize_keras_object(preprocessor, "layers")
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {
            "dtype": self.dtype,
            "preprocessor": serialization.serialize_keras_object(self.preprocessor, "layers"),
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _cardinality(preprocessor):
    """How many values an integer-valued preprocessor gives (the one-hot width)."""
    if isinstance(preprocessor, (layers.IntegerLookup, layers.StringLookup)):
        # Before a loaded file's vocabulary arrives, the size its config recorded.
        return preprocessor._depth()
    if isinstance(preprocessor, layers.CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, layers.Discretization):
        if preprocessor.bin_boundaries is not None:
            return len(preprocessor.bin_boundaries) + 1
        return preprocessor.num_bins
    if isinstance(preprocessor, (layers.Hashing, layers.HashedCrossing)):
        return preprocessor.num_bins
    return None


@register
class FeatureSpace(layers.Layer):
    """Preprocesses a dict of structured-data features into one array, as Keras 3's
    `keras.utils.FeatureSpace` does (features sorted by name, then crosses).

    Args:
        features: a dict from feature name to a `FeatureSpace.*` feature or one of the
            names `"float"`, `"float_rescaled"`, `"float_normalized"`,
            `"float_discretized"`, `"integer_categorical"`, `"string_categorical"`,
            `"integer_hashed"`, `"string_hashed"`.
        output_mode: `"concat"` (one array) or `"dict"` (one array per feature/cross).
        crosses: `FeatureSpace.cross(...)` objects, or tuples of feature names.
        crossing_dim: bins of crosses given as tuples.
        hashing_dim: bins of features given as `"*_hashed"`.
        num_discretization_bins: bins of features given as `"float_discretized"`.

    >>> import numpy as np
    >>> space = FeatureSpace(
    ...     {"age": FeatureSpace.float_normalized(), "color": "string_categorical"}
    ... )
    >>> space.adapt({"age": np.array([20.0, 40.0]), "color": np.array(["red", "blue"])})
    >>> space({"age": np.array([30.0]), "color": np.array(["red"])}).tolist()
    [[0.0, 0.0, 1.0, 0.0]]
    """

    _runs_on_host = True

    # Feature constructors (Keras's classmethods) -------------------------------------
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        name = name or unique_name("float")
        return Feature("float32", layers.Identity(name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        name = name or unique_name("float_rescaled")
        layer = layers.Rescaling(scale=scale, offset=offset, name=f"{name}_preprocessor")
        return Feature("float32", layer, "float")

    @classmethod
    def float_normalized(cls, name=None):
        name = name or unique_name("float_normalized")
        return Feature(
            "float32", layers.Normalization(axis=-1, name=f"{name}_preprocessor"), "float"
        )

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot", name=None):
        name = name or unique_name("float_discretized")
        if bin_boundaries is not None:
            num_bins = None  # fixed boundaries: nothing to adapt
        layer = layers.Discretization(
            num_bins=num_bins, bin_boundaries=bin_boundaries, name=f"{name}_preprocessor"
        )
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ):
        name = name or unique_name("integer_categorical")
        layer = layers.IntegerLookup(
            name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices
        )
        return Feature("int32", layer, output_mode)

    @classmethod
    def string_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ):
        name = name or unique_name("string_categorical")
        layer = layers.StringLookup(
            name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices
        )
        return Feature("string", layer, output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or unique_name("string_hashed")
        return Feature(
            "string", layers.Hashing(num_bins=num_bins, name=f"{name}_preprocessor"), output_mode
        )

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or unique_name("integer_hashed")
        return Feature(
            "int32", layers.Hashing(num_bins=num_bins, name=f"{name}_preprocessor"), output_mode
        )

    # Construction --------------------------------------------------------------------
    def __init__(
        self,
        features,
        output_mode="concat",
        crosses=None,
        crossing_dim=32,
        hashing_dim=32,
        num_discretization_bins=32,
        name=None,
        **kwargs,
    ):
        super().__init__(name=name, autocast=False, **kwargs)
        if not features:
            raise ValueError("FeatureSpace: `features` cannot be None or empty.")
        if output_mode not in ("concat", "dict"):
            raise ValueError(
                f"FeatureSpace: output_mode must be 'concat' or 'dict'; received {output_mode!r}."
            )
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {name: self._standardize_feature(name, f) for name, f in features.items()}
        self.crosses = []
        for cross in crosses or []:
            if isinstance(cross, dict) and cross.get("class_name") == "Cross":
                cross = Cross.from_config(cross["config"])
            if not isinstance(cross, Cross):
                cross = Cross(cross, crossing_dim=crossing_dim)
            unknown = [n for n in cross.feature_names if n not in self.features]
            if unknown:
                raise ValueError(
                    f"FeatureSpace: the cross {cross.feature_names} names features {unknown} "
                    f"that are not in `features` ({sorted(self.features)})."
                )
            self.crosses.append(cross)
        self.preprocessors = {name: f.preprocessor for name, f in self.features.items()}
        self.crossers = {
            c.name: layers.HashedCrossing(c.crossing_dim, name=c.name) for c in self.crosses
        }
        self.inputs = {
            name: layers.Input(shape=(1,), dtype=f.dtype, name=name)
            for name, f in self.features.items()
        }
        self._is_adapted = False
        self.encoded_features = None
        self.built = True

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict) and feature.get("class_name") == "Feature":
            return Feature.from_config(feature["config"])
        makers = {
            "float": lambda: self.float(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_discretized": lambda: self.float_discretized(
                num_bins=self.num_discretization_bins, name=name
            ),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if feature not in makers:
            raise ValueError(
                f"FeatureSpace: feature {name!r} has the unknown type {feature!r}; expected a "
                f"FeatureSpace.* feature or one of {sorted(makers)}."
            )
        return makers[feature]()

    # adapt ---------------------------------------------------------------------------
    def _adaptable(self) -> list:
        names = []
        for name, layer in self.preprocessors.items():
            if isinstance(layer, layers.Normalization) and layer.input_mean is not None:
                continue
            if isinstance(layer, layers.Discretization) and layer.num_bins is None:
                continue
            if getattr(layer, "_has_input_vocabulary", False):
                continue
            if hasattr(layer, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset) -> None:
        """Learn each adaptable feature's statistics or vocabulary from `dataset`: a
        dict of arrays or lists, or a `PyDataset`/iterable of such dicts (batches; an
        `(x, y)` pair gives its `x`)."""
        if isinstance(dataset, dict):
            columns = {k: _column(v) for k, v in dataset.items()}
        elif isinstance(dataset, PyDataset) or hasattr(dataset, "__iter__"):
            batches = (
                (dataset[i] for i in range(len(dataset)))
                if isinstance(dataset, PyDataset)
                else dataset
            )
            gathered: dict = {}
            for batch in batches:
                batch = batch[0] if isinstance(batch, tuple) else batch
                if not isinstance(batch, dict):
                    raise ValueError(
                        f"FeatureSpace.adapt expects batches that are dicts of features; "
                        f"received {type(batch).__name__}."
                    )
                for k, v in batch.items():
                    gathered.setdefault(k, []).append(_column(v))
            columns = {k: np.concatenate(v) for k, v in gathered.items()}
        else:
            raise ValueError(
                "FeatureSpace.adapt expects a dict of arrays/lists or an iterable of such "
                f"dicts; received {type(dataset).__name__}."
            )
        for name in self._adaptable():
            if name not in columns:
                raise ValueError(
                    f"FeatureSpace.adapt: the data has no feature {name!r} (it has "
                    f"{sorted(columns)})."
                )
            self.preprocessors[name].adapt(columns[name])
        self._is_adapted = True
        self.encoded_features = None

    def _check_adapted(self) -> None:
        if not self._is_adapted:
            if self._adaptable():
                raise ValueError(
                    "You need to call `.adapt(dataset)` on the FeatureSpace before you can "
                    "start using it."
                )
            self._is_adapted = True

    # Encoding ------------------------------------------------------------------------
    def _widths(self) -> dict:
        """The output width of each feature and cross, by name."""
        widths = {}
        for name, feature in self.features.items():
            if feature.output_mode == "one_hot":
                widths[name] = _cardinality(feature.preprocessor)
            else:
                widths[name] = 1
        for cross in self.crosses:
            widths[cross.name] = cross.crossing_dim if cross.output_mode == "one_hot" else 1
        return widths

    def _order(self) -> list:
        return sorted(self.features) + sorted(c.name for c in self.crosses)

    def get_inputs(self) -> dict:
        """The dict of `Input`s (shape `(1,)`) a model built on this space takes."""
        self._check_adapted()
        return self.inputs

    def get_encoded_features(self):
        """The space applied to `get_inputs()`: the symbolic encoded features."""
        self._check_adapted()
        if self.encoded_features is None:
            self.encoded_features = self(self.inputs)
        return self.encoded_features

    def _convert_inputs(self, x):
        return x

    def call(self, data):
        self._check_adapted()
        if not isinstance(data, dict):
            raise ValueError(
                f"A FeatureSpace can only be called with a dict; received {type(data).__name__}."
            )
        missing = sorted(set(self.features) - set(data))
        if missing:
            raise ValueError(f"FeatureSpace: the data has no features {missing}.")
        columns, rebatched = {}, False
        for name in self.features:
            value = host_array(data[name], f"FeatureSpace feature {name!r}")
            if value.ndim == 0:
                value, rebatched = value.reshape(1, 1), True
            elif value.ndim == 1:
                value = value[:, None]
            columns[name] = value
        pre = {}
        for name, layer in self.preprocessors.items():
            out = layer(columns[name])
            pre[name] = out if isinstance(out, np.ndarray) else backend.convert_to_numpy(out)
        crossed = {
            c.name: self.crossers[c.name]([pre[n] for n in c.feature_names]) for c in self.crosses
        }
        specs = {**self.features, **{c.name: c for c in self.crosses}}
        widths = self._widths()
        outputs = {}
        for name in self._order():
            value = pre[name] if name in pre else crossed[name]
            if specs[name].output_mode == "one_hot":
                if value.dtype.kind not in "iu":
                    raise ValueError(
                        f"Feature {name!r} has output_mode='one_hot', so its preprocessor "
                        f"must return integers; it returns {value.dtype}."
                    )
                value = encode_on_host(value, "multi_hot", widths[name], backend.floatx())
            outputs[name] = value
        if self.output_mode == "dict":
            if rebatched:
                outputs = {k: v[0] for k, v in outputs.items()}
            return outputs
        for name, value in outputs.items():
            if value.dtype.kind not in "fc":
                raise ValueError(
                    f"Cannot concatenate features because feature {name!r} has not been "
                    f"encoded (it has dtype {value.dtype}). Consider output_mode='dict'."
                )
        merged = np.concatenate([v.astype(backend.floatx()) for v in outputs.values()], axis=-1)
        return merged[0] if rebatched else merged

    def compute_output_spec(self, data):
        widths = self._widths()
        specs = {**self.features, **{c.name: c for c in self.crosses}}
        batch = next(iter(data.values())).shape[0] if data else None

        def dtype_of(name):
            if specs[name].output_mode in ("one_hot", "float"):
                return backend.floatx()
            return "int64"

        if self.output_mode == "dict":
            return {n: KerasTensor((batch, widths[n]), dtype_of(n)) for n in self._order()}
        if any(widths[n] is None for n in self._order()):
            total = None
        else:
            total = sum(widths[n] for n in self._order())
        return KerasTensor((batch, total), backend.floatx())

    def get_config(self):
        """The features (with their preprocessors' configs) and crosses; what the
        preprocessors learned travels as their weights and assets in a `.keras` file."""

        def wrap(obj):
            return {"class_name": type(obj).__name__, "config": obj.get_config()}

        return {
            **super().get_config(),
            "features": {name: wrap(f) for name, f in self.features.items()},
            "output_mode": self.output_mode,
            "crosses": [wrap(c) for c in self.crosses],
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    def save(self, filepath) -> None:
        """Save the space, with what it learned, to a `.keras` file (load it back with
        `lamina.saving.load_model`)."""
        from lamina.saving import keras_file

        self._check_adapted()
        keras_file.save_model(self, filepath)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config.pop("dtype", None)
        with serialization.custom_object_scope(custom_objects or {}):
            space = cls(**config)
        # A space is saved adapted (or with nothing to adapt): its preprocessors get
        # their state from the file's weights and assets.
        space._is_adapted = True
        for layer in space.preprocessors.values():
            if not layer.built:
                layer.build((None, 1))  # every feature is a column (Normalization's stats)
        return space


def _column(values) -> np.ndarray:
    """One feature's values as a column `(n, 1)`."""
    array = host_array(values, "FeatureSpace.adapt")
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array[:, None]
    return array
