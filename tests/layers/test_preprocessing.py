"""Preprocessing layers for numbers and categories, against NumPy formulas and Keras's
documented examples."""

import numpy as np
import pytest

import lamina
from lamina import Input, Model, backend, layers, ops
from lamina.testing import check_layer
from lamina.utils import PyDataset

RNG = np.random.default_rng(0)
DATA = (RNG.standard_normal((40, 4, 3)) * [1.0, 2.0, 3.0] + [0.0, 5.0, -2.0]).astype("float32")

CONFORMANCE = [
    (layers.Normalization, {}, (2, 3), "float32", 2),
    (layers.Normalization, {"axis": None}, (2, 3), "float32", 2),
    (layers.Normalization, {"axis": (1, 2)}, (2, 4, 3), "float32", 2),
    (
        layers.Normalization,
        {"mean": [1.0, 2.0, 3.0], "variance": [1.0, 4.0, 9.0]},
        (2, 3),
        "float32",
        0,
    ),
    (layers.Normalization, {"mean": 2.0, "variance": 4.0, "invert": True}, (2, 3), "float32", 0),
    (layers.Rescaling, {"scale": 0.5, "offset": 1.0}, (2, 3), "float32", 0),
    (layers.Rescaling, {"scale": [1.0, 2.0, 3.0]}, (2, 4, 3), "float32", 0),
    (layers.Discretization, {"bin_boundaries": [-1.0, 0.0, 1.0]}, (2, 3), "float32", 0),
    (
        layers.Discretization,
        {"bin_boundaries": [0.0], "output_mode": "count"},
        (2, 3),
        "float32",
        0,
    ),
    (layers.CategoryEncoding, {"num_tokens": 5}, (2, 3), "int32", 0),
    (layers.CategoryEncoding, {"num_tokens": 5, "output_mode": "one_hot"}, (2, 3), "int32", 0),
    (layers.IntegerLookup, {"vocabulary": [3, 1, 4]}, (2, 3), "int32", 0),
    (
        layers.IntegerLookup,
        {"vocabulary": [3, 1, 4], "output_mode": "multi_hot"},
        (2, 3),
        "int32",
        0,
    ),
]


@pytest.mark.parametrize(
    "cls, kwargs, shape, dtype, non_trainable",
    CONFORMANCE,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONFORMANCE)],
)
def test_conformance(cls, kwargs, shape, dtype, non_trainable):
    # Normalization's adapted statistics are weights: mean, variance and count.
    check_layer(
        cls,
        kwargs,
        input_shape=shape,
        input_dtype=dtype,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=non_trainable + (1 if non_trainable else 0),
    )


# Normalization -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "axis, reduce", [(-1, (0, 1)), (None, (0, 1, 2)), ((1, 2), (0,)), (1, (0, 2))]
)
def test_normalization_adapt_matches_numpy(axis, reduce):
    layer = layers.Normalization(axis=axis)
    layer.adapt(DATA)
    mean = DATA.astype("float64").mean(axis=reduce, keepdims=True)
    std = DATA.astype("float64").std(axis=reduce, keepdims=True)
    np.testing.assert_allclose(ops.convert_to_numpy(layer(DATA)), (DATA - mean) / std, atol=1e-5)
    assert int(layer.count.numpy()) == np.prod([DATA.shape[a] for a in reduce])


@pytest.mark.parametrize("kwargs", [{}, {"axis": None}, {"mean": 2.0, "variance": 4.0}])
def test_normalization_mean_and_variance_attributes_as_keras_shows_them(kwargs):
    # Keras 3: `layer.mean` / `layer.variance` are None until built, then compute-dtype
    # tensors in the broadcast shape ((1, 3) per feature, (1, 1) for axis=None).
    x = DATA[:, 0, :]
    layer = layers.Normalization(**kwargs)
    assert layer.mean is None and layer.variance is None
    if "mean" in kwargs:
        layer(x)
        want_mean = np.full((1, 3), 2.0)
        want_variance = np.full((1, 3), 4.0)
    else:
        layer.adapt(x)
        axis = None if "axis" in kwargs else 0
        want_mean = np.reshape(x.astype("float64").mean(axis=axis), (1, -1))
        want_variance = np.reshape(x.astype("float64").var(axis=axis), (1, -1))
    assert backend.standardize_dtype(layer.mean.dtype) == "float32"
    np.testing.assert_allclose(ops.convert_to_numpy(layer.mean), want_mean, rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(layer.variance), want_variance, rtol=1e-5)


def test_normalization_adapt_on_batches_equals_whole_array():
    whole = layers.Normalization()
    whole.adapt(DATA)

    class Batches(PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return DATA[i * 15 : (i + 1) * 15], np.zeros(len(DATA[i * 15 : (i + 1) * 15]))

    sources = {
        "list": [DATA[:7], DATA[7:30], DATA[30:]],
        "generator": (DATA[i : i + 9] for i in range(0, 40, 9)),
        "pydataset": Batches(),
    }
    for name, source in sources.items():
        layer = layers.Normalization()
        layer.adapt(source)
        for got, want in zip(layer.get_weights(), whole.get_weights(), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=name)


def test_normalization_fixed_stats_and_invert():
    x = RNG.standard_normal((5, 3)).astype("float32")
    mean, variance = np.array([1.0, -2.0, 0.5]), np.array([4.0, 0.25, 1.0])
    forward = layers.Normalization(mean=mean, variance=variance)
    np.testing.assert_allclose(
        ops.convert_to_numpy(forward(x)), (x - mean) / np.sqrt(variance), atol=1e-6
    )
    inverse = layers.Normalization(mean=mean, variance=variance, invert=True)
    np.testing.assert_allclose(ops.convert_to_numpy(inverse(forward(x))), x, atol=1e-5)
    # A zero variance divides by epsilon, not by zero.
    flat = layers.Normalization(mean=0.0, variance=0.0)
    assert np.all(np.isfinite(ops.convert_to_numpy(flat(x))))


def test_normalization_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance` or neither"):
        layers.Normalization(mean=1.0)
    with pytest.raises(
        ValueError, match=r"`mean` has shape \(2,\) but `variance` has shape \(3,\)"
    ):
        layers.Normalization(mean=[1.0, 2.0], variance=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="adapt would ignore them"):
        layers.Normalization(mean=1.0, variance=1.0).adapt(DATA)
    layer = layers.Normalization()
    layer.adapt(DATA[:, 0, :])
    with pytest.raises(ValueError, match=r"built for inputs of shape \(40, 3\).*\(4, 5\)"):
        layer.adapt(np.ones((4, 5), "float32"))
    with pytest.raises(ValueError, match="need known sizes"):
        layers.Normalization()(Input(batch_shape=(None, None)))
    with pytest.raises(ValueError, match="out of range"):
        layers.Normalization(axis=3)(np.ones((2, 3), "float32"))
    with pytest.raises(TypeError, match="received str"):
        layers.Normalization().adapt("data.csv")


def test_normalization_statistics_survive_fit_and_save(tmp_path):
    norm = layers.Normalization()
    norm.adapt(DATA[:, 0, :])
    inputs = Input((3,))
    model = Model(inputs, layers.Dense(1)(norm(inputs)))
    before = [w.copy() for w in norm.get_weights()]
    model.compile(optimizer="sgd", loss="mse")
    model.fit(DATA[:, 0, :], np.ones((40, 1)), epochs=1, verbose=0)
    for got, want in zip(norm.get_weights(), before, strict=True):
        np.testing.assert_array_equal(got, want)
    model.save(tmp_path / "m.keras")
    restored = lamina.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(
        ops.convert_to_numpy(restored.predict(DATA[:, 0, :], verbose=0)),
        ops.convert_to_numpy(model.predict(DATA[:, 0, :], verbose=0)),
        rtol=1e-6,
    )


# Rescaling ---------------------------------------------------------------------------
def test_rescaling_formula_and_integer_input():
    pixels = np.array([[0, 128, 255]], "uint8")
    out = layers.Rescaling(1 / 127.5, offset=-1.0)(pixels)
    assert backend.standardize_dtype(out.dtype) == "float32"
    np.testing.assert_allclose(ops.convert_to_numpy(out), pixels / 127.5 - 1.0, atol=1e-6)
    images = RNG.uniform(0, 1, (2, 2, 2, 3)).astype("float32")
    scaled = layers.Rescaling([1.0, 10.0, 100.0], offset=[0.0, 1.0, 2.0])(images)
    np.testing.assert_allclose(
        ops.convert_to_numpy(scaled), images * [1.0, 10.0, 100.0] + [0.0, 1.0, 2.0], rtol=1e-6
    )


# Discretization ----------------------------------------------------------------------
def test_discretization_buckets_like_numpy_digitize():
    x = RNG.uniform(-3, 3, (6, 5)).astype("float32")
    x[0, :3] = [-1.0, 0.0, 1.0]  # values on a boundary go to the bucket above
    bounds = [-1.0, 0.0, 1.0]
    out = layers.Discretization(bin_boundaries=bounds)(x)
    assert backend.standardize_dtype(out.dtype) == "int32"
    np.testing.assert_array_equal(ops.convert_to_numpy(out), np.digitize(x, bounds))
    one_hot = layers.Discretization(bin_boundaries=bounds, output_mode="one_hot")(x[:, 0])
    np.testing.assert_array_equal(
        ops.convert_to_numpy(one_hot), np.eye(4)[np.digitize(x[:, 0], bounds)]
    )
    count = layers.Discretization(bin_boundaries=bounds, output_mode="count")(x)
    expected = np.stack([np.bincount(np.digitize(row, bounds), minlength=4) for row in x])
    np.testing.assert_array_equal(ops.convert_to_numpy(count), expected)


def test_discretization_adapt_keras_example_and_quantiles():
    # The example in Keras's documentation of Discretization.adapt.
    data = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]])
    layer = layers.Discretization(num_bins=4, epsilon=0.01)
    layer.adapt(data)
    np.testing.assert_array_equal(ops.convert_to_numpy(layer(data)), [[0, 2, 3, 1], [1, 3, 2, 1]])
    # On large data, each bin holds about a quarter of the values (within epsilon), also
    # when the data arrives in batches and the quantile summary is compressed.
    values = RNG.standard_normal(20_000)
    streamed = layers.Discretization(num_bins=4, epsilon=0.01)
    streamed.adapt([values[i : i + 3000] for i in range(0, 20_000, 3000)])
    shares = np.bincount(np.digitize(values, streamed.bin_boundaries), minlength=4) / values.size
    np.testing.assert_allclose(shares, 0.25, atol=0.01)
    config = streamed.get_config()
    assert config["num_bins"] == 4 and len(config["bin_boundaries"]) == 3
    clone = layers.Discretization.from_config(config)
    np.testing.assert_array_equal(
        ops.convert_to_numpy(clone(values[:50])), ops.convert_to_numpy(streamed(values[:50]))
    )


def test_discretization_errors():
    with pytest.raises(ValueError, match="give `bin_boundaries`, or `num_bins`"):
        layers.Discretization()
    with pytest.raises(ValueError, match="2 bin_boundaries make 3 bins, but num_bins=5"):
        layers.Discretization(bin_boundaries=[0.0, 1.0], num_bins=5)
    with pytest.raises(ValueError, match="sorted in increasing order"):
        layers.Discretization(bin_boundaries=[1.0, 0.0])
    with pytest.raises(ValueError, match="call `adapt\\(data\\)` first"):
        layers.Discretization(num_bins=3)(np.ones((2, 2)))
    with pytest.raises(ValueError, match="adapt needs `num_bins`"):
        layers.Discretization(bin_boundaries=[0.0]).adapt(np.ones(3))
    with pytest.raises(ValueError, match="unknown output_mode 'tf_idf'"):
        layers.Discretization(bin_boundaries=[0.0], output_mode="tf_idf")
    with pytest.raises(ValueError, match="sparse=True is not supported"):
        layers.Discretization(bin_boundaries=[0.0], output_mode="count", sparse=True)


# CategoryEncoding --------------------------------------------------------------------
def test_category_encoding_modes_match_numpy():
    x = np.array([[0, 1, 1], [3, 3, 2], [4, 0, 0]])
    eye = np.eye(5)
    multi = layers.CategoryEncoding(5, output_mode="multi_hot")(x)
    np.testing.assert_array_equal(ops.convert_to_numpy(multi), eye[x].max(axis=1))
    count = layers.CategoryEncoding(5, output_mode="count")(x)
    np.testing.assert_array_equal(ops.convert_to_numpy(count), eye[x].sum(axis=1))
    weights = RNG.uniform(0, 1, x.shape).astype("float32")
    weighted = layers.CategoryEncoding(5, output_mode="count")(x, count_weights=weights)
    np.testing.assert_allclose(
        ops.convert_to_numpy(weighted), (eye[x] * weights[..., None]).sum(axis=1), rtol=1e-6
    )
    one_hot = layers.CategoryEncoding(5, output_mode="one_hot")
    np.testing.assert_array_equal(ops.convert_to_numpy(one_hot(x)), eye[x])
    np.testing.assert_array_equal(ops.convert_to_numpy(one_hot(x[:, :1])), eye[x[:, 0]])
    np.testing.assert_array_equal(ops.convert_to_numpy(one_hot(x[:, 0])), eye[x[:, 0]])
    symbolic = one_hot(Input((1,), dtype="int32"))
    assert symbolic.shape == (None, 5)


def test_category_encoding_errors():
    with pytest.raises(
        ValueError, match=r"encodes values in \[0, 4\); received values from 0 to 7"
    ):
        layers.CategoryEncoding(4)(np.array([[0, 7]]))
    with pytest.raises(ValueError, match="count_weights is only used with output_mode='count'"):
        layers.CategoryEncoding(4)(np.array([[0, 1]]), count_weights=np.ones((1, 2)))
    with pytest.raises(ValueError, match="num_tokens must be an int >= 1"):
        layers.CategoryEncoding()
    with pytest.raises(ValueError, match="unknown output_mode 'int'"):
        layers.CategoryEncoding(3, output_mode="int")


# IntegerLookup -----------------------------------------------------------------------
def test_integer_lookup_keras_documented_examples():
    # The examples of Keras's IntegerLookup documentation.
    vocab = [12, 36, 1138, 42]
    data = np.array([[12, 1138, 42], [42, 1000, 36]])
    lookup = layers.IntegerLookup(vocabulary=vocab)
    np.testing.assert_array_equal(ops.convert_to_numpy(lookup(data)), [[1, 3, 4], [4, 0, 2]])
    assert lookup.get_vocabulary() == [-1, 12, 36, 1138, 42]
    masked = layers.IntegerLookup(vocabulary=vocab, mask_token=0)
    np.testing.assert_array_equal(
        ops.convert_to_numpy(masked(np.array([[12, 1138, 42], [0, 1000, 36]]))),
        [[2, 4, 5], [0, 1, 3]],
    )
    two_oov = layers.IntegerLookup(vocabulary=vocab, num_oov_indices=2)
    np.testing.assert_array_equal(
        ops.convert_to_numpy(two_oov(np.array([[12, 1138, 42], [37, 1000, 36]]))),
        [[2, 4, 5], [1, 0, 3]],
    )
    one_hot = layers.IntegerLookup(vocabulary=vocab, output_mode="one_hot")
    np.testing.assert_array_equal(
        ops.convert_to_numpy(one_hot(np.array([12, 36, 1138, 42, 7]))), np.eye(5)[[1, 2, 3, 4, 0]]
    )
    multi = layers.IntegerLookup(vocabulary=vocab, output_mode="multi_hot")
    np.testing.assert_array_equal(
        ops.convert_to_numpy(multi(np.array([[12, 1138, 12, 1138], [42, 7, 42, 7]]))),
        [[0, 1, 0, 1, 0], [1, 0, 0, 0, 1]],
    )
    count = layers.IntegerLookup(vocabulary=vocab, output_mode="count")
    np.testing.assert_array_equal(
        ops.convert_to_numpy(count(np.array([[12, 1138, 12, 1138], [42, 7, 42, 7]]))),
        [[0, 2, 0, 2, 0], [2, 0, 0, 0, 2]],
    )
    tf_idf = layers.IntegerLookup(
        vocabulary=vocab, output_mode="tf_idf", idf_weights=[0.25, 0.75, 0.6, 0.4]
    )
    np.testing.assert_allclose(
        ops.convert_to_numpy(tf_idf(np.array([[12, 1138, 12, 1138], [42, 7, 42, 7]]))),
        [[0, 0.5, 0, 1.2, 0], [1.0, 0, 0, 0, 0.8]],
        rtol=1e-6,
    )
    inverse = layers.IntegerLookup(vocabulary=vocab, invert=True)
    np.testing.assert_array_equal(
        ops.convert_to_numpy(inverse(np.array([[1, 3, 4], [4, 0, 2]]))),
        [[12, 1138, 42], [42, -1, 36]],
    )


def test_integer_lookup_adapt_orders_by_frequency():
    data = np.array([[12, 1138, 42], [42, 1000, 36], [36, 42, -1], [0, 0, 0]])
    lookup = layers.IntegerLookup(mask_token=0)
    lookup.adapt(data)
    # counts: 42 x3, 0 (mask) x3 dropped, 36 x2, then the singles, larger first; -1 is the
    # OOV token and stays out.
    assert lookup.get_vocabulary(include_special_tokens=False) == [42, 36, 1138, 1000, 12]
    assert lookup.vocabulary_size() == 7
    capped = layers.IntegerLookup(max_tokens=3)  # no mask token: 0 is a token here
    capped.adapt(data.tolist())
    assert capped.get_vocabulary() == [-1, 42, 0]
    tf_idf = layers.IntegerLookup(output_mode="tf_idf")
    tf_idf.adapt(np.array([[1, 1, 2], [1, 3, 3]]))
    # idf = log(1 + documents / (1 + documents containing the token))
    assert tf_idf.get_vocabulary() == [-1, 1, 3, 2]
    out = ops.convert_to_numpy(tf_idf(np.array([[1, 3, 3]])))
    idf = np.log(1 + 2 / (1 + np.array([2, 1, 1])))
    np.testing.assert_allclose(out[0, 1:], [1, 2, 0] * idf, rtol=1e-6)
    np.testing.assert_allclose(out[0, 0], 0.0)
    # As in Keras 3, an adapted vocabulary is not part of the config: it travels as the
    # `vocabulary.txt` asset of a .keras file (tests/saving/test_assets.py).
    config = lookup.get_config()
    assert config["vocabulary"] is None and config["vocabulary_size"] == 7
    clone = layers.IntegerLookup.from_config(config)
    assert clone.get_vocabulary() == [0, -1]


def test_integer_lookup_inside_a_compiled_model():
    lookup = layers.IntegerLookup(vocabulary=list(range(100, 120)))
    inputs = Input((3,), dtype="int32")
    x = layers.Embedding(lookup.vocabulary_size(), 4)(lookup(inputs))
    outputs = layers.Dense(1)(layers.Flatten()(x))
    model = Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    tokens = RNG.integers(95, 125, (32, 3)).astype("int32")
    history = model.fit(tokens, np.ones((32, 1)), epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    expected = np.where((tokens >= 100) & (tokens < 120), tokens - 99, 0)
    np.testing.assert_array_equal(ops.convert_to_numpy(lookup(tokens)), expected)


def test_integer_lookup_errors():
    with pytest.raises(ValueError, match=r"repeated tokens \[3\]"):
        layers.IntegerLookup(vocabulary=[3, 1, 3])
    with pytest.raises(ValueError, match="holds the OOV token -1"):
        layers.IntegerLookup(vocabulary=[3, -1], invert=True)
    with pytest.raises(ValueError, match="exceeds max_tokens=3"):
        layers.IntegerLookup(vocabulary=[1, 2, 3], max_tokens=3)
    strict = layers.IntegerLookup(vocabulary=[1, 2], num_oov_indices=0)
    np.testing.assert_array_equal(ops.convert_to_numpy(strict(np.array([2, 1]))), [1, 0])
    with pytest.raises(ValueError, match=r"received unknown tokens \[5\]"):
        strict(np.array([1, 5]))
    with pytest.raises(ValueError, match="needs `idf_weights`"):
        layers.IntegerLookup(vocabulary=[1, 2], output_mode="tf_idf")
    with pytest.raises(ValueError, match="output_mode must be 'int'"):
        layers.IntegerLookup(vocabulary=[1], invert=True, output_mode="one_hot")
    # As in Keras, an index outside the vocabulary maps back to the OOV token.
    inverse = layers.IntegerLookup(vocabulary=[1, 2], invert=True)
    np.testing.assert_array_equal(ops.convert_to_numpy(inverse(np.array([3, 1]))), [-1, 1])
    with pytest.raises(ValueError, match="oov_method must be 'floormod' or 'farmhash'"):
        layers.IntegerLookup(oov_method="md5")
    with pytest.raises(TypeError, match="expects integer tokens"):
        layers.IntegerLookup().adapt(np.array([0.5, 1.5]))
