"""Preprocessing layers for numbers and categories: Normalization, Rescaling,
Discretization, CategoryEncoding and IntegerLookup.

They run inside the model, so a saved model carries its preprocessing. The ones that
learn from data (`Normalization`, `Discretization`, `IntegerLookup`) do it in `adapt`,
before training, on NumPy arrays, engine arrays, a `PyDataset` or any iterable of
batches; `fit` never changes what they learned.
"""

from __future__ import annotations

import numpy as np

from lamina import backend, ops
from lamina.backend import core as backend_core
from lamina.common import serialization
from lamina.graph.keras_tensor import KerasTensor
from lamina.layers.layer import Layer
from lamina.layers.lookup import ENCODINGS as _ENCODINGS
from lamina.layers.lookup import IndexLookup, adapt_batches, host_array, refuse_unknown_concrete
from lamina.layers.lookup import batches as _batches
from lamina.layers.lookup import check_mode as _check_mode
from lamina.layers.lookup import encode as _encode
from lamina.layers.lookup import encoded_shape as _encoded_shape
from lamina.layers.lookup import refuse_sparse as _refuse_sparse


def _register(cls):
    serialization.register_builtin("layers", cls)
    return cls


def _check_range(layer, indices, depth):
    """Refuse, on concrete data, integer inputs outside `[0, depth)`: one-hot encoding
    them would silently give rows of zeros."""
    if not backend_core.is_concrete(indices):
        return
    values = backend.convert_to_numpy(indices)
    if values.size and (values.min() < 0 or values.max() >= depth):
        raise ValueError(
            f"{type(layer).__name__} {layer.name!r} encodes values in [0, {depth}); received "
            f"values from {values.min()} to {values.max()}. Raise `num_tokens` or map the "
            "values into range first (e.g. with IntegerLookup)."
        )


@_register
class Normalization(Layer):
    """Shifts and scales inputs to zero mean and unit variance: `(x - mean) / sqrt(var)`.

    Give `mean` and `variance`, or call `adapt(data)` before training to compute them
    per position along `axis` (the feature axis by default).

    Args:
        axis: the axis or axes that keep separate statistics (`-1`: one mean per
            feature); `None` for a single scalar mean and variance.
        mean, variance: fixed statistics (both or neither), broadcast over `axis`.
        invert: apply the inverse transform, `x * sqrt(var) + mean`.

    >>> import numpy as np
    >>> layer = Normalization()
    >>> layer.adapt(np.array([[0.0, 10.0], [2.0, 30.0]]))
    >>> np.asarray(layer(np.array([[1.0, 20.0]]))).tolist()
    [[0.0, 0.0]]
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert: bool = False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        self.axis = tuple(int(a) for a in axis)
        if (mean is None) != (variance is None):
            raise ValueError(
                f"Normalization {self.name!r}: give both `mean` and `variance` or neither; "
                f"received mean={mean!r} and variance={variance!r}."
            )
        if mean is not None and np.shape(mean) != np.shape(variance):
            raise ValueError(
                f"Normalization {self.name!r}: `mean` has shape {np.shape(mean)} but "
                f"`variance` has shape {np.shape(variance)}; they must match."
            )
        if mean is not None and np.ndim(mean) > len(self.axis):
            raise ValueError(
                f"Normalization {self.name!r}: `mean` of rank {np.ndim(mean)} cannot be "
                f"spread over the {len(self.axis)} axes {self.axis}."
            )
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.supports_masking = True

    def build(self, input_shape):
        ndim = len(input_shape)
        bad = [a for a in self.axis if not -ndim <= a < ndim]
        if bad:
            raise ValueError(
                f"Normalization {self.name!r}: axis {self.axis} is out of range for inputs "
                f"of shape {tuple(input_shape)}."
            )
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        unknown = [a for a in self._keep_axis if input_shape[a] is None]
        if unknown:
            raise ValueError(
                f"Normalization {self.name!r}: the axes that keep statistics ({self.axis}) "
                f"need known sizes; inputs of shape {tuple(input_shape)} have None there."
            )
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = tuple(
            input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)
        )
        self._stats_shape = tuple(input_shape[d] for d in self._keep_axis)
        self._build_input_shape = tuple(input_shape)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                shape=self._stats_shape, initializer="zeros", trainable=False, name="mean"
            )
            self.adapt_variance = self.add_weight(
                shape=self._stats_shape, initializer="ones", trainable=False, name="variance"
            )
            self.count = self.add_weight(
                shape=(), dtype="int32", initializer="zeros", trainable=False, name="count"
            )
        self.built = True

    @property
    def mean(self):
        """The mean in use, in the broadcast shape (`(1, features)`) as Keras shows it;
        None before the layer is built."""
        return self._stats_tensors()[0]

    @property
    def variance(self):
        """The variance in use, shaped as `mean`; None before the layer is built."""
        return self._stats_tensors()[1]

    def _stats_tensors(self):
        if not self.built:
            return None, None
        if self.input_mean is None:
            stats = (
                ops.reshape(self.adapt_mean, self._broadcast_shape),
                ops.reshape(self.adapt_variance, self._broadcast_shape),
            )
        else:
            stats = self._fixed_stats()
        return tuple(ops.cast(s, self.compute_dtype) for s in stats)

    def _fixed_stats(self):
        """`mean` and `variance` given to the constructor, laid along the kept axes."""
        shape = [1] * len(self._broadcast_shape)
        mean = np.asarray(self.input_mean, dtype="float32")
        kept = self._keep_axis[len(self._keep_axis) - mean.ndim :]
        for axis, size in zip(kept, mean.shape, strict=True):
            shape[axis] = size
        variance = np.asarray(self.input_variance, dtype="float32")
        return (
            np.broadcast_to(mean.reshape(shape), self._broadcast_shape),
            np.broadcast_to(variance.reshape(shape), self._broadcast_shape),
        )

    def adapt(self, data) -> None:
        """Compute the mean and variance of `data` (an array or an iterable of batches)."""
        if self.input_mean is not None:
            raise ValueError(
                f"Normalization {self.name!r} was given a fixed `mean` and `variance`; "
                "adapt would ignore them. Create the layer without them to adapt it."
            )
        total_mean = total_var = None
        total = 0
        for batch in _batches(data, "Normalization"):
            batch = batch.astype("float64")
            if not self.built:
                self._maybe_build(batch)
            for d in self._keep_axis:
                if batch.ndim != len(self._build_input_shape) or (
                    batch.shape[d] != self._build_input_shape[d]
                ):
                    raise ValueError(
                        f"Normalization {self.name!r} was built for inputs of shape "
                        f"{self._build_input_shape}; adapt received a batch of shape "
                        f"{batch.shape}."
                    )
            n = int(np.prod([batch.shape[d] for d in self._reduce_axis]))
            mean = batch.mean(axis=self._reduce_axis)
            var = batch.var(axis=self._reduce_axis)
            if total_mean is None:
                total_mean, total_var, total = mean, var, n
                continue
            # Chan et al.'s pairwise update: exact for any batch sizes.
            delta = mean - total_mean
            combined = total + n
            total_mean = total_mean + delta * n / combined
            total_var = (total_var * total + var * n + delta**2 * total * n / combined) / combined
            total = combined
        self.adapt_mean.assign(total_mean.reshape(self._stats_shape))
        self.adapt_variance.assign(total_var.reshape(self._stats_shape))
        self.count.assign(total)

    def call(self, inputs):
        inputs = ops.cast(inputs, self.compute_dtype)
        if self.input_mean is None:
            mean = ops.reshape(self.adapt_mean, self._broadcast_shape)
            variance = ops.reshape(self.adapt_variance, self._broadcast_shape)
        else:
            mean, variance = self._fixed_stats()
        mean = ops.cast(mean, self.compute_dtype)
        scale = ops.maximum(ops.sqrt(ops.cast(variance, self.compute_dtype)), backend.epsilon())
        if self.invert:
            return mean + inputs * scale
        return (inputs - mean) / scale

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "axis": list(self.axis),
            "invert": self.invert,
            "mean": None if self.input_mean is None else np.asarray(self.input_mean).tolist(),
            "variance": (
                None if self.input_variance is None else np.asarray(self.input_variance).tolist()
            ),
        }


@_register
class Rescaling(Layer):
    """Multiplies inputs by `scale` and adds `offset`, e.g. `Rescaling(1 / 255)` for pixels.

    Args:
        scale: a float, or one per channel.
        offset: a float, or one per channel.

    >>> import numpy as np
    >>> np.asarray(Rescaling(1 / 127.5, offset=-1)(np.array([[0, 255]], "uint8"))).tolist()
    [[-1.0, 1.0]]
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True

    def call(self, inputs):
        dtype = self.compute_dtype
        scale = ops.convert_to_tensor(np.asarray(self.scale), dtype=dtype)
        offset = ops.convert_to_tensor(np.asarray(self.offset), dtype=dtype)
        if len(scale.shape) and backend.image_data_format() == "channels_first":
            scale = ops.reshape(scale, tuple(scale.shape) + (1,) * (3 - len(scale.shape)))
        if len(offset.shape) and backend.image_data_format() == "channels_first":
            offset = ops.reshape(offset, tuple(offset.shape) + (1,) * (3 - len(offset.shape)))
        return ops.cast(inputs, dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        def plain(value):
            return np.asarray(value).tolist() if np.ndim(value) else float(value)

        return {**super().get_config(), "scale": plain(self.scale), "offset": plain(self.offset)}


@_register
class Discretization(Layer):
    """Buckets numbers by boundaries: `bin_boundaries=[0., 1.]` maps `x < 0` to 0,
    `0 <= x < 1` to 1 and `x >= 1` to 2.

    Give `bin_boundaries`, or `num_bins` and call `adapt(data)` to place the boundaries
    at the data's quantiles (so each bin holds about the same number of values).

    Args:
        bin_boundaries: sorted boundaries.
        num_bins: number of bins for `adapt`.
        epsilon: error tolerance of the quantiles `adapt` computes (its summary keeps
            about `1 / epsilon` points).
        output_mode: `"int"` (bin indices), `"one_hot"`, `"multi_hot"` or `"count"`.

    >>> import numpy as np
    >>> layer = Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    >>> np.asarray(layer(np.array([[-1.5, 1.0, 3.4, 0.5]]))).tolist()
    [[0, 2, 3, 1]]
    """

    def __init__(
        self,
        bin_boundaries=None,
        num_bins=None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        dtype=None,
        name=None,
        **kwargs,
    ):
        output_mode = _check_mode("Discretization", output_mode, ("int",) + _ENCODINGS)
        super().__init__(dtype=dtype, name=name, autocast=False, **kwargs)
        _refuse_sparse("Discretization", sparse)
        if bin_boundaries is None and num_bins is None:
            raise ValueError(
                f"Discretization {self.name!r}: give `bin_boundaries`, or `num_bins` and then "
                "call `adapt(data)`."
            )
        if (
            bin_boundaries is not None
            and num_bins is not None
            and len(bin_boundaries) != int(num_bins) - 1
        ):
            raise ValueError(
                f"Discretization {self.name!r}: {len(bin_boundaries)} bin_boundaries make "
                f"{len(bin_boundaries) + 1} bins, but num_bins={num_bins!r}; give one of them."
            )
        if num_bins is not None and (isinstance(num_bins, bool) or int(num_bins) < 1):
            raise ValueError(
                f"Discretization {self.name!r}: num_bins must be a positive int; received "
                f"{num_bins!r}."
            )
        if not 0 < epsilon < 1:
            raise ValueError(
                f"Discretization {self.name!r}: epsilon must be in (0, 1); received {epsilon!r}."
            )
        if bin_boundaries is not None:
            bin_boundaries = [float(b) for b in bin_boundaries]
            if any(b > a for b, a in zip(bin_boundaries, bin_boundaries[1:])):
                raise ValueError(
                    f"Discretization {self.name!r}: bin_boundaries must be sorted in "
                    f"increasing order; received {bin_boundaries}."
                )
        self.bin_boundaries = bin_boundaries
        self.num_bins = None if num_bins is None else int(num_bins)
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = False

    def adapt(self, data) -> None:
        """Set `bin_boundaries` to the `num_bins`-quantiles of `data`."""
        if self.num_bins is None:
            raise ValueError(
                f"Discretization {self.name!r}: adapt needs `num_bins`; this layer was "
                "created with fixed `bin_boundaries`."
            )
        size = max(int(np.ceil(1.0 / self.epsilon)), self.num_bins)
        values = np.zeros((0,))
        weights = np.zeros((0,))
        for batch in _batches(data, "Discretization"):
            batch = np.sort(batch.astype("float64").ravel())
            values = np.concatenate([values, batch])
            weights = np.concatenate([weights, np.ones_like(batch)])
            order = np.argsort(values, kind="stable")
            values, weights = _compress(values[order], weights[order], size)
        if not values.size:
            raise ValueError(f"Discretization {self.name!r}: adapt received no values.")
        cumulative = np.cumsum(weights)
        centers = (cumulative - weights / 2) / cumulative[-1]
        quantiles = np.arange(1, self.num_bins) / self.num_bins
        self.bin_boundaries = np.interp(quantiles, centers, values).tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(
                f"Discretization {self.name!r} has no bin boundaries yet: call "
                "`adapt(data)` first, or create it with `bin_boundaries=`."
            )
        indices = ops.digitize(inputs, np.asarray(self.bin_boundaries, dtype="float32"))
        if self.output_mode == "int":
            return indices
        depth = len(self.bin_boundaries) + 1
        return _encode(indices, self.output_mode, depth, self.compute_dtype)

    def compute_output_spec(self, inputs):
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        shape = _encoded_shape(inputs.shape, self.output_mode, depth)
        return KerasTensor(shape, "int32" if self.output_mode == "int" else self.compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "bin_boundaries": self.bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }


def _compress(values, weights, size):
    """Summarize sorted weighted values by `size` points of equal weight (the quantile
    summary `Discretization.adapt` keeps so that streaming data needs bounded memory)."""
    if values.size <= 16 * size:
        return values, weights
    cumulative = np.cumsum(weights)
    total = cumulative[-1]
    targets = (np.arange(size) + 0.5) * total / size
    points = np.interp(targets, cumulative - weights / 2, values)
    return points, np.full(size, total / size)


@_register
class CategoryEncoding(Layer):
    """Encodes integer categories as one-hot, multi-hot or count vectors.

    Args:
        num_tokens: the number of categories; inputs must lie in `[0, num_tokens)`.
        output_mode: `"multi_hot"` (default; which categories occur in each sample),
            `"one_hot"` (one vector per value) or `"count"` (how often each occurs).

    Call arguments:
        inputs: integer categories, `(batch,)` or `(batch, values)`.
        count_weights: with `"count"`, a weight per input value to sum instead of 1.

    >>> import numpy as np
    >>> layer = CategoryEncoding(num_tokens=4, output_mode="multi_hot")
    >>> np.asarray(layer(np.array([[0, 1], [0, 0], [1, 2], [3, 1]]))).tolist()
    [[1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        self.output_mode = _check_mode("CategoryEncoding", output_mode, _ENCODINGS)
        _refuse_sparse("CategoryEncoding", sparse)
        if num_tokens is None or isinstance(num_tokens, bool) or int(num_tokens) < 1:
            raise ValueError(
                f"CategoryEncoding {self.name!r}: num_tokens must be an int >= 1; received "
                f"{num_tokens!r}. If the number of categories is not known, use IntegerLookup."
            )
        self.num_tokens = int(num_tokens)
        self.sparse = False

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(
                f"CategoryEncoding {self.name!r}: count_weights is only used with "
                f"output_mode='count'; this layer's output_mode is {self.output_mode!r}."
            )
        _check_range(self, inputs, self.num_tokens)
        return _encode(inputs, self.output_mode, self.num_tokens, self.dtype, count_weights)

    def compute_output_shape(self, input_shape):
        if len(input_shape) == 0:
            return (self.num_tokens,)
        return _encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self):
        return {
            **super().get_config(),
            "num_tokens": self.num_tokens,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }


@_register
class IntegerLookup(IndexLookup):
    """Maps integer tokens (ids, codes, years, ...) to contiguous indices, or back.

    The vocabulary comes from `vocabulary=` (a list, an array or a file with one token
    per line) or from `adapt(data)` (tokens by decreasing frequency, ties broken by the
    larger token, capped by `max_tokens`). Indices start with the mask token (index 0,
    only when `mask_token` is set and `output_mode="int"`), then `num_oov_indices`
    out-of-vocabulary indices, then the vocabulary. An unknown token `t` goes to OOV
    index `t mod num_oov_indices`, or with `oov_method="farmhash"` to the FarmHash
    (SipHash with a `salt`) bin of its decimal text, as in Keras 3. In the encoded
    output modes a mask token counts for nothing.

    It runs inside compiled programs (engine ops), except with `oov_method="farmhash"`
    and several OOV indices, where it hashes on the host like `StringLookup`.

    Args:
        max_tokens: the most indices, special ones included (`None`: no cap).
        num_oov_indices: indices for unknown tokens; 0 makes unknown tokens an error.
        mask_token: a token that maps to index 0 (e.g. padding), or `None`.
        oov_token: the token an OOV index maps back to with `invert=True`.
        vocabulary: tokens in index order, or the path of a text file of them.
        vocabulary_dtype: `"int64"` (Keras's only choice; `"int32"` is accepted).
        idf_weights: with `output_mode="tf_idf"`, one weight per vocabulary token.
        invert: map indices back to tokens.
        output_mode: `"int"`, `"one_hot"`, `"multi_hot"`, `"count"` or `"tf_idf"`.
        sparse: only `False` (no sparse tensors on this backend).
        pad_to_max_tokens: encode to `max_tokens` columns even if the vocabulary is smaller.
        oov_method: `"floormod"` or `"farmhash"`: how unknown tokens pick an OOV index.
        salt: with `"farmhash"`, an int or two ints keying SipHash instead.

    >>> import numpy as np
    >>> layer = IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> np.asarray(layer(np.array([[12, 1138, 42], [42, 1000, 36]]))).tolist()
    [[1, 3, 4], [4, 0, 2]]
    """

    def __init__(
        self,
        max_tokens=None,
        num_oov_indices: int = 1,
        mask_token=None,
        oov_token: int = -1,
        vocabulary=None,
        vocabulary_dtype: str = "int64",
        idf_weights=None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        oov_method: str = "floormod",
        salt=None,
        name=None,
        **kwargs,
    ):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError(
                f"IntegerLookup: vocabulary_dtype must be 'int64' (or 'int32'); received "
                f"{vocabulary_dtype!r}."
            )
        self.vocabulary_dtype = "int64"
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=mask_token,
            oov_token=oov_token,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            sparse=sparse,
            pad_to_max_tokens=pad_to_max_tokens,
            oov_method=oov_method,
            salt=salt,
            name=name,
            **kwargs,
        )

    @property
    def _runs_on_host(self) -> bool:
        return self.oov_method == "farmhash" and self.num_oov_indices > 1 and not self.invert

    def _token(self, value):
        if isinstance(value, (str, bytes)):
            value = value.strip()
        try:
            token = int(value)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"{self._who()} takes integer tokens; received {value!r}. Use StringLookup "
                "for strings."
            ) from err
        if isinstance(value, (float, np.floating)) and token != value:
            raise TypeError(f"{self._who()} takes integer tokens; received {value!r}.")
        return token

    def _token_dtype(self) -> str:
        return "int32"

    def _index_dtype(self) -> str:
        return "int64" if self._runs_on_host else "int32"

    def _vocabulary_changed(self) -> None:
        vocab = np.asarray(self._tokens, "int64")
        self._order = np.argsort(vocab, kind="stable").astype("int32")
        self._sorted = vocab[self._order]

    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary from `data` (integers: an array, a list, a `PyDataset` or
        an iterable of batches, of which `steps` are read): tokens by decreasing count,
        ties broken by the larger token; with `"tf_idf"` each row is a document."""
        self._check_adaptable()

        def documents():
            for batch in adapt_batches(data, steps, "IntegerLookup"):
                if batch.dtype.kind not in "iub":
                    raise TypeError(
                        f"{self._who()}: adapt expects integer tokens; received dtype "
                        f"{batch.dtype}."
                    )
                yield from batch.reshape(batch.shape[0], -1).tolist()

        self._learn(documents())

    # Calling -------------------------------------------------------------------------
    def call(self, inputs):
        if self._runs_on_host:
            values = host_array(inputs, self._who())
            indices, valid = self._host_indices(values.astype("int64"))
            return self._encode_host(indices, valid)
        if self.invert:
            return self._engine_tokens(inputs)
        indices, valid = self._engine_indices(inputs)
        if self.output_mode == "int":
            return indices
        self._check_ready()
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = _encode(indices, mode, self._depth(), self.compute_dtype, valid=valid)
        if self.output_mode == "tf_idf":
            out = out * ops.convert_to_tensor(self._idf_row(), dtype=self.compute_dtype)
        return out

    def _engine_indices(self, inputs):
        tokens = ops.cast(inputs, "int32")
        size = len(self._tokens)
        start = self._token_start()
        if size:
            sorted_vocab = self._sorted.astype("int32")
            slot = ops.minimum(ops.searchsorted(sorted_vocab, tokens), size - 1)
            found = ops.equal(ops.take(sorted_vocab, slot), tokens)
            known = ops.take(self._order, slot) + start
        else:
            found = ops.zeros(tokens.shape, dtype="bool")
            known = ops.zeros(tokens.shape, dtype="int32")
        if self.num_oov_indices > 1:
            unknown = self._oov_start() + ops.mod(tokens, self.num_oov_indices)
        elif self.num_oov_indices == 1:
            unknown = ops.full(tokens.shape, self._oov_start(), dtype="int32")
        else:
            refuse_unknown_concrete(self, inputs, ops.logical_or(found, self._is_mask(tokens)))
            unknown = ops.full(tokens.shape, -1, dtype="int32")
        indices = ops.where(found, known, unknown)
        valid = None
        if self.mask_token is not None:
            is_mask = self._is_mask(tokens)
            if self.output_mode == "int":
                indices = ops.where(is_mask, 0, indices)
            else:
                valid = ops.logical_not(is_mask)
        return indices, valid

    def _is_mask(self, tokens):
        if self.mask_token is None:
            return ops.zeros(tokens.shape, dtype="bool")
        return ops.equal(tokens, self.mask_token)

    def _engine_tokens(self, inputs):
        vocab = self.get_vocabulary()
        table = np.asarray(vocab + [self.oov_token], dtype="int32")
        indices = ops.cast(inputs, "int32")
        inside = ops.logical_and(ops.greater_equal(indices, 0), ops.less(indices, len(vocab)))
        return ops.take(table, ops.where(inside, indices, len(vocab)))

    def compute_output_spec(self, inputs):
        if self.invert:
            return KerasTensor(inputs.shape, "int32")
        return super().compute_output_spec(inputs)

    def get_config(self):
        config = super().get_config()
        config["vocabulary_dtype"] = self.vocabulary_dtype
        return config
