"""Hashing and HashedCrossing against the bins Keras 3 gives (its TensorFlow string ops).

Keras needs TensorFlow for these layers, so the references are Keras's own documented
examples and the expected values of its test suite (keras/src/layers/preprocessing/
hashing_test.py, hashed_crossing_test.py), plus published FarmHash Fingerprint64 test
vectors for every length class of the hash (0-16, 17-32, 33-64 and over 64 bytes).
"""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers.hashing import fingerprint64, siphash64

WIRE = [["omar"], ["stringer"], ["marlo"], ["wire"], ["skywalker"]]
LETTERS = [["A"], ["B"], ["C"], ["D"], ["E"]]
LONG_TEXT = (
    "Go is a tool for managing Go source code.Usage:\tgo command [arguments]The commands "
    "are:    build       compile packages and dependencies    clean       remove object "
    "files    env         print Go environment information    fix         run go tool fix "
    "on packages    fmt         run gofmt on package sources    generate    generate Go "
    "files by processing source    get         download and install packages and "
    "dependencies    install     compile and install packages and dependencies    list    "
    "    list packages    run         compile and run Go program    test        test "
    "packages    tool        run specified go tool    version     print Go version    vet "
    "        run go tool vet on packagesUse go help [command] for more information about a "
    "command.Additional help topics:    c           calling between Go and C    filetype  "
    "  file types    gopath      GOPATH environment variable    importpath  import path "
    "syntax    packages    description of package lists    testflag    description of "
    "testing flags    testfunc    description of testing functionsUse go help [topic] for "
    "more information about that topic."
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", 0x9AE16A3B2F90404F),
        ("a", 0xB3454265B6DF75E3),
        ("hello world", 0x588FB7478BD6B01B),
        ("lee@lmmrtech.com", 0x61BEC68DB00FA2FF),
        ("docklandsman@gmail.com", 0xB678CF3842309F40),
        ("dXB@tDQ-v5<H]rq2Pcc*s>nC-[Mdy", 8365906589669344754),
        ("2/?98ns)xbzEVL^:wCS$7l3@_g!zP^<D.-bd6", 9728733090894310797),
        ("F7479877-4690-4A44-AFC9-8FE987EA512F:some_other_id", 6862335115798125349),
        (LONG_TEXT, 0xAFE256550E4567C9),
    ],
)
def test_fingerprint64_matches_published_vectors(text, expected):
    assert len(LONG_TEXT) > 64
    assert fingerprint64(text.encode()) == expected


def test_siphash_matches_the_reference_vector():
    # SipHash-2-4 paper, appendix A: key 00..0f, message 00..0e.
    key = bytes(range(16))
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:], "little")
    assert siphash64(bytes(range(15)), k0, k1) == 0xA129CA6149BE45E5


@pytest.mark.parametrize(
    "kwargs, data, expected",
    [
        ({"num_bins": 3}, LETTERS, [1, 0, 1, 1, 2]),
        ({"num_bins": 3, "mask_value": ""}, [["A"], ["B"], [""], ["C"], ["D"]], [1, 1, 0, 2, 2]),
        ({"num_bins": 3, "salt": [133, 137]}, LETTERS, [1, 2, 1, 0, 2]),
        ({"num_bins": 3, "salt": 133}, LETTERS, [0, 0, 2, 1, 0]),
        ({"num_bins": 1}, LETTERS, [0, 0, 0, 0, 0]),
        ({"num_bins": 2}, WIRE, [0, 0, 1, 0, 0]),
        ({"num_bins": 3, "mask_value": ""}, WIRE, [1, 1, 2, 1, 1]),
        ({"num_bins": 3, "mask_value": "omar"}, WIRE, [0, 1, 2, 1, 1]),
        ({"num_bins": 3}, [[0], [1], [2], [3], [4]], [1, 0, 1, 0, 2]),
        ({"num_bins": 2, "salt": [133, 137]}, WIRE, [0, 1, 0, 1, 0]),
        ({"num_bins": 2, "salt": [211, 137]}, WIRE, [1, 0, 1, 0, 1]),
        ({"num_bins": 3, "salt": [133, 137]}, [[0], [1], [2], [3], [4]], [1, 1, 2, 0, 1]),
    ],
)
def test_hashing_gives_keras_bins(kwargs, data, expected):
    out = layers.Hashing(**kwargs)(data)
    assert isinstance(out, np.ndarray) and out.dtype == np.int64
    assert out.shape == (5, 1)
    np.testing.assert_array_equal(out.ravel(), expected)
    # NumPy string, bytes and object arrays give the same bins as lists.
    if isinstance(data[0][0], str):
        for array in (np.array(data), np.array(data, dtype="S"), np.array(data, dtype=object)):
            np.testing.assert_array_equal(layers.Hashing(**kwargs)(array).ravel(), expected)


def test_hashing_inputs_of_any_shape_and_kind():
    layer = layers.Hashing(num_bins=2)
    np.testing.assert_array_equal(
        layer(["omar", "stringer", "marlo", "wire", "skywalker"]), [0, 0, 1, 0, 0]
    )
    np.testing.assert_array_equal(layer([[1, 2], [2, 3], [3, 4]]), [[1, 1], [1, 1], [1, 1]])
    np.testing.assert_array_equal(layer(ops.convert_to_tensor(np.array([1, 2, 3]))), [1, 1, 1])
    # Floats are truncated to integers first, as Keras casts them to int64.
    np.testing.assert_array_equal(
        layers.Hashing(3)(np.array([0.7, 1.2, 4.9])), layers.Hashing(3)([0, 1, 4])
    )


def test_hashing_encoded_outputs():
    np.testing.assert_array_equal(
        layers.Hashing(3, output_mode="one_hot")(np.array([0, 1, 2, 3, 4])),
        np.eye(3)[[1, 0, 1, 0, 2]],
    )
    np.testing.assert_array_equal(
        layers.Hashing(3, output_mode="multi_hot")(np.array([[0, 1, 2, 3, 4]])), [[1, 1, 1]]
    )
    count = layers.Hashing(3, output_mode="count")
    np.testing.assert_array_equal(count(np.array([0, 1, 2, 3, 4])), [2, 2, 1])
    np.testing.assert_array_equal(count(np.array([[0, 1, 2, 3, 4]])), [[2, 2, 1]])
    for mode, shape, expected in [
        ("int", (4,), (None, 4)),
        ("one_hot", (4,), (None, 4, 5)),
        ("one_hot", (4, 1), (None, 4, 5)),
        ("multi_hot", (3, 4), (None, 3, 5)),
        ("count", (4,), (None, 5)),
    ]:
        layer = layers.Hashing(num_bins=5, output_mode=mode)
        symbolic = layer(lamina.Input(shape=shape, dtype="int32"))
        assert symbolic.shape == expected == layer.compute_output_shape((None,) + shape)
        assert layer(np.zeros((2,) + shape, "int32")).shape == (2,) + expected[1:]


def test_hashed_crossing_gives_keras_bins():
    feat1 = np.array(["A", "B", "A", "B", "A"])
    feat2 = np.array([101, 101, 101, 102, 102])
    np.testing.assert_array_equal(
        layers.HashedCrossing(num_bins=5)((feat1, feat2)), [1, 4, 1, 1, 3]
    )
    np.testing.assert_array_equal(
        layers.HashedCrossing(num_bins=5)([feat1[:, None], feat2[:, None]]).ravel(), [1, 4, 1, 1, 3]
    )
    one_hot = layers.HashedCrossing(num_bins=5, output_mode="one_hot")((feat1, feat2))
    np.testing.assert_array_equal(one_hot, np.eye(5)[[1, 4, 1, 1, 3]])
    assert one_hot.dtype == np.float32
    assert layers.HashedCrossing(num_bins=10)((np.array("A"), np.array(101))) == 1


def test_hashing_as_the_first_layer_of_a_model():
    # Hashing runs on the host, before the compiled part, for fit and predict alike.
    inputs = lamina.Input(shape=(1,), dtype="string")
    hashed = layers.Hashing(num_bins=8)(inputs)
    outputs = layers.Dense(1)(layers.Flatten()(layers.Embedding(8, 2)(hashed)))
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    words = np.array([["omar"], ["stringer"], ["marlo"], ["wire"]])
    model.fit(words, np.ones((4, 1)), epochs=1, batch_size=2, verbose=0)
    bins = layers.Hashing(num_bins=8)(words)
    embedding = ops.convert_to_numpy(model.layers[2].embeddings)
    kernel = ops.convert_to_numpy(model.layers[4].kernel)
    bias = ops.convert_to_numpy(model.layers[4].bias)
    expected = embedding[bins[:, 0]] @ kernel + bias
    np.testing.assert_allclose(model.predict(words, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_hashing_config_round_trip_and_errors():
    layer = layers.Hashing(num_bins=3, salt=133, mask_value="", output_mode="count")
    config = layer.get_config()
    assert config["salt"] == [133, 133]
    clone = layers.Hashing.from_config(config)
    np.testing.assert_array_equal(clone([["a", "b", ""]]), layer([["a", "b", ""]]))
    cross = layers.HashedCrossing.from_config(layers.HashedCrossing(7).get_config())
    assert cross.num_bins == 7
    with pytest.raises(ValueError, match="num_bins must be a positive int"):
        layers.Hashing(num_bins=0)
    with pytest.raises(ValueError, match="salt must be an int or a pair"):
        layers.Hashing(num_bins=2, salt=[1, 2, 3])
    with pytest.raises(ValueError, match="sparse=True"):
        layers.Hashing(num_bins=2, output_mode="multi_hot", sparse=True)
    with pytest.raises(ValueError, match="at least two inputs"):
        layers.HashedCrossing(num_bins=3)([np.array([1])])
    with pytest.raises(ValueError, match="list or tuple"):
        layers.HashedCrossing(num_bins=3)(np.array([1]))
    with pytest.raises(ValueError, match="equal shape"):
        layers.HashedCrossing(num_bins=3)((np.array([1, 2]), np.array([1])))
    with pytest.raises(ValueError, match="ragged"):
        layers.Hashing(num_bins=2)([["a", "b"], ["c"]])
