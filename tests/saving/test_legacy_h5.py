"""Legacy HDF5 model files (`model.save("m.h5")`): Keras 3's legacy writer, hand-made
Keras 2 layouts, lamina's own writer read back by Keras 3, and damaged files."""

import base64
import json
import marshal
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")
h5py = pytest.importorskip("h5py")

import lamina  # noqa: E402
from lamina import ops  # noqa: E402

# Keras's own Variable.__array__ trips NumPy 2's copy-keyword deprecation; not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(0)
X6 = RNG.random((5, 6)).astype("float32")
XA = RNG.random((5, 3)).astype("float32")
XB = RNG.random((5, 2)).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# Files written by Keras 3's legacy writer ----------------------------------------------
@pytest.fixture(scope="module")
def keras_sequential_h5(tmp_path_factory):
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(4, activation="relu"),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(2),
        ]
    )
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    model.fit(X6, RNG.random((5, 2)), epochs=2, batch_size=5, verbose=0)
    path = str(tmp_path_factory.mktemp("k") / "seq.h5")
    model.save(path)
    return path, model


@pytest.fixture(scope="module")
def keras_functional_h5(tmp_path_factory):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, keras.layers.Dense(3, activation="tanh")(inner_in), name="inner")
    h = keras.layers.Concatenate()([keras.layers.Dense(4)(a), keras.layers.Dense(4)(b)])
    mid = inner(keras.layers.Dense(4)(h))
    out1 = keras.layers.Dense(2, name="out1")(mid)
    out2 = keras.layers.Dense(1, name="out2")(h)
    model = keras.Model([a, b], [out1, out2])
    path = str(tmp_path_factory.mktemp("k") / "fun.h5")
    keras.saving.save_model(model, path)
    return path, model


def test_keras_sequential_with_optimizer_state(keras_sequential_h5):
    path, reference = keras_sequential_h5
    model = lamina.saving.load_model(path)
    assert isinstance(model, lamina.Sequential)
    _close(_np(model(X6)), np.asarray(reference(X6)))
    assert model.compiled and type(model.optimizer).__name__ == "Adam"
    assert int(_np(model.optimizer.iterations)) == int(reference.optimizer.iterations.numpy())
    for mine, theirs in zip(model.optimizer.variables, reference.optimizer.variables):
        _close(_np(mine), np.asarray(theirs))
    # The moving statistics (non-trainable, after the trainable weights) came back too.
    bn = model.layers[1]
    _close(_np(bn.moving_mean), np.asarray(reference.layers[1].moving_mean))


def test_keras_functional_multi_io_nested(keras_functional_h5):
    path, reference = keras_functional_h5
    model = lamina.models.load_model(path)
    expected = [np.asarray(e) for e in reference([XA, XB])]
    got = model([XA, XB])
    assert len(got) == 2
    for g, e in zip(got, expected):
        _close(_np(g), e)
    assert not getattr(model, "compiled", False)


# lamina writes, Keras 3 reads ----------------------------------------------------------
def _lamina_functional():
    L = lamina.layers
    a, b = lamina.Input((3,), name="a"), lamina.Input((2,), name="b")
    inner_in = lamina.Input((4,))
    inner = lamina.Model(inner_in, L.Dense(3, activation="tanh")(inner_in), name="inner")
    h = L.Concatenate()([L.Dense(4)(a), L.Dense(4)(b)])
    return lamina.Model([a, b], [L.Dense(2, name="out1")(inner(L.Dense(4)(h))), L.Dense(1)(h)])


def test_lamina_h5_loads_in_keras_and_lamina(tmp_path):
    L = lamina.layers
    model = lamina.Sequential(
        [lamina.Input((6,)), L.Dense(4, activation="relu"), L.BatchNormalization(), L.Dense(2)]
    )
    # A loss object: Keras 3 cannot compile its own h5 files from the string "mse".
    model.compile(optimizer="adam", loss=lamina.losses.MeanSquaredError())
    model.fit(X6, RNG.random((5, 2)), epochs=2, batch_size=5, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    with h5py.File(path) as f:
        assert {"model_config", "training_config", "keras_version", "backend"} <= set(f.attrs)
        assert "optimizer_weights" in f
    theirs = keras.saving.load_model(path)
    _close(np.asarray(theirs(X6)), _np(model(X6)))
    assert int(theirs.optimizer.iterations.numpy()) == 2
    for mine, k in zip(model.optimizer.variables, theirs.optimizer.variables):
        _close(np.asarray(k), _np(mine))
    again = lamina.saving.load_model(path)
    _close(_np(again(X6)), _np(model(X6)))
    for mine, back in zip(model.optimizer.variables, again.optimizer.variables):
        _close(_np(back), _np(mine))

    functional = _lamina_functional()
    path = str(tmp_path / "f.hdf5")
    lamina.saving.save_model(functional, path, save_format="h5")
    theirs = keras.saving.load_model(path)
    for k, mine in zip(theirs([XA, XB]), functional([XA, XB])):
        _close(np.asarray(k), _np(mine))


def test_save_arguments(tmp_path):
    model = _lamina_functional()
    model.compile(optimizer="sgd", loss="mse")
    path = str(tmp_path / "m.h5")
    lamina.saving.save_model(model, path, include_optimizer=False)
    with h5py.File(path) as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    with pytest.raises(ValueError, match="save_format"):
        lamina.saving.save_model(model, str(tmp_path / "m.bin"), save_format="h5")
    with pytest.raises(ValueError, match="unsupported argument"):
        lamina.saving.save_model(model, path, bogus=1)
    with pytest.raises(FileExistsError):
        lamina.saving.save_model(model, path, overwrite=False)


# A hand-made Keras 2 (tf.keras 2.4) file -----------------------------------------------
def _dense(name, units, activation="linear", **extra):
    return {
        "class_name": "Dense",
        "config": {
            "name": name,
            "trainable": True,
            "dtype": "float32",
            "units": units,
            "activation": activation,
            "use_bias": True,
            "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
            "bias_initializer": {"class_name": "Zeros", "config": {}},
            "kernel_regularizer": {"class_name": "L1L2", "config": {"l1": 0.0, "l2": 0.01}},
            "bias_regularizer": None,
            "activity_regularizer": None,
            "kernel_constraint": None,
            "bias_constraint": None,
            **extra,
        },
    }


def _node(entry, *sources):
    entry = dict(entry)
    entry["name"] = entry["config"]["name"]
    entry["inbound_nodes"] = [[[s[0], s[1], 0, {}] for s in sources]] if sources else []
    return entry


def _keras2_input(name, width):
    return {
        "class_name": "InputLayer",
        "config": {
            "batch_input_shape": [None, width],
            "dtype": "float32",
            "sparse": False,
            "ragged": False,
            "name": name,
        },
    }


def _write_weights(group, layers):
    """`layers`: [(group name, [(weight name, array), ...])] in the model's order."""
    group.attrs["layer_names"] = np.asarray([n.encode() for n, _ in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = b"2.4.0"
    for name, weights in layers:
        g = group.create_group(name)
        g.attrs["weight_names"] = np.asarray([w.encode() for w, _ in weights] or [], dtype="S")
        for w, value in weights:
            g.create_dataset(w, data=value)


def _keras2_file(path, with_lambda=False):
    """A Keras 2.4-layout functional model: two inputs, a nested model in the middle
    (called on node 1 in old-style lists), a Policy dtype, compiled with Adam state."""
    rng = np.random.default_rng(1)
    w = {
        "d1": (rng.normal(size=(3, 4)), rng.normal(size=4)),
        "d2": (rng.normal(size=(2, 4)), rng.normal(size=4)),
        "in": (rng.normal(size=(8, 5)), rng.normal(size=5)),
        "out": (rng.normal(size=(5, 2)), rng.normal(size=2)),
    }
    w = {k: tuple(a.astype("float32") for a in v) for k, v in w.items()}
    inner = {
        "class_name": "Functional",
        "config": {
            "name": "inner",
            "layers": [
                _node(_keras2_input("inner_in", 8)),
                _node(_dense("dense_2", 5, "tanh"), ("inner_in", 0)),
            ],
            "input_layers": [["inner_in", 0, 0]],
            "output_layers": [["dense_2", 0, 0]],
        },
    }
    policy_dense = _dense("dense", 4, "relu")
    policy_dense["config"]["dtype"] = {"class_name": "Policy", "config": {"name": "float32"}}
    layers = [
        _node(_keras2_input("input_1", 3)),
        _node(_keras2_input("input_2", 2)),
        _node(policy_dense, ("input_1", 0)),
        _node(_dense("dense_1", 4, "relu"), ("input_2", 0)),
        _node(
            {
                "class_name": "Concatenate",
                "config": {
                    "name": "concatenate",
                    "trainable": True,
                    "dtype": "float32",
                    "axis": -1,
                },
            },  # noqa: E501
            ("dense", 0),
            ("dense_1", 0),
        ),
        _node(inner, ("concatenate", 0)),
        _node(_dense("dense_3", 2), ("inner", 1)),
    ]
    output = "dense_3"
    if with_lambda:
        code = base64.b64encode(marshal.dumps((lambda x: x * 2.0).__code__)).decode()
        layers.append(
            _node(
                {
                    "class_name": "Lambda",
                    "config": {
                        "name": "lambda",
                        "trainable": True,
                        "dtype": "float32",
                        "function": [code, None, None],
                        "function_type": "lambda",
                        "module": "__main__",
                        "output_shape": None,
                        "output_shape_type": "raw",
                        "output_shape_module": None,
                        "arguments": {},
                    },
                },
                ("dense_3", 0),
            )
        )
        output = "lambda"
    config = {
        "class_name": "Functional",
        "config": {
            "name": "model",
            "layers": layers,
            "input_layers": [["input_1", 0, 0], ["input_2", 0, 0]],
            "output_layers": [[output, 0, 0]],
        },
    }
    training = {
        "loss": "mse",
        "metrics": [
            [
                {
                    "class_name": "MeanMetricWrapper",
                    "config": {"name": "mae", "dtype": "float32", "fn": "mean_absolute_error"},
                }
            ]
        ],
        "weighted_metrics": None,
        "loss_weights": None,
        "optimizer_config": {
            "class_name": "Adam",
            "config": {
                "name": "Adam",
                "learning_rate": 0.001,
                "decay": 0.0,
                "beta_1": 0.9,
                "beta_2": 0.999,
                "epsilon": 1e-07,
                "amsgrad": False,
            },
        },
    }
    order = [("dense", "d1"), ("dense_1", "d2"), ("dense_2", "in"), ("dense_3", "out")]
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = "2.4.0"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode()
        f.attrs["training_config"] = json.dumps(training).encode()
        named = [(f"{n}/kernel:0", w[k][0]) for n, k in order[2:3]]
        _write_weights(
            f.create_group("model_weights"),
            [
                ("input_1", []),
                ("input_2", []),
                ("dense", [("dense/kernel:0", w["d1"][0]), ("dense/bias:0", w["d1"][1])]),
                ("dense_1", [("dense_1/kernel:0", w["d2"][0]), ("dense_1/bias:0", w["d2"][1])]),
                ("concatenate", []),
                ("inner", [*named, ("dense_2/bias:0", w["in"][1])]),
                ("dense_3", [("dense_3/kernel:0", w["out"][0]), ("dense_3/bias:0", w["out"][1])]),
            ]
            + ([("lambda", [])] if with_lambda else []),
        )
        opt = f.create_group("optimizer_weights")
        names = [("Adam/iter:0", np.int64(7))]
        for slot, scale in (("m", 0.1), ("v", 0.01)):
            for n, k in order:
                names.append((f"Adam/{n}/kernel/{slot}:0", np.full_like(w[k][0], scale)))
                names.append((f"Adam/{n}/bias/{slot}:0", np.full_like(w[k][1], scale)))
        opt.attrs["weight_names"] = np.asarray([n.encode() for n, _ in names])
        for n, value in names:
            opt.create_dataset(n, data=value)
    return w


def _keras2_expected(w, xa, xb):
    relu = lambda z: np.maximum(z, 0)  # noqa: E731
    h = np.concatenate([relu(xa @ w["d1"][0] + w["d1"][1]), relu(xb @ w["d2"][0] + w["d2"][1])], 1)
    h = np.tanh(h @ w["in"][0] + w["in"][1])
    return h @ w["out"][0] + w["out"][1]


def test_hand_made_keras2_file(tmp_path):
    path = str(tmp_path / "keras2.h5")
    w = _keras2_file(path)
    model = lamina.saving.load_model(path)
    _close(_np(model([XA, XB])), _keras2_expected(w, XA, XB))
    assert model.compiled and type(model.optimizer).__name__ == "Adam"
    assert int(_np(model.optimizer.iterations)) == 7
    optimizer = model.optimizer
    assert all(np.allclose(_np(m), 0.1) for m in optimizer._slots["momentum"])
    assert all(np.allclose(_np(v), 0.01) for v in optimizer._slots["velocity"])
    # It trains from there, with the file's metric.
    logs = model.fit([XA, XB], np.zeros((5, 2)), epochs=1, verbose=0).history
    assert "mae" in logs or "loss" in logs


def test_hand_made_keras2_sequential_without_optimizer_state(tmp_path):
    config = {
        "class_name": "Sequential",
        "config": {
            "name": "sequential",
            "layers": [_dense("dense", 3, "relu", batch_input_shape=[None, 6])],
        },
    }
    kernel = RNG.normal(size=(6, 3)).astype("float32")
    path = str(tmp_path / "seq.h5")
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = "2.2.4"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode()
        _write_weights(
            f.create_group("model_weights"),
            [("dense", [("dense/kernel:0", kernel), ("dense/bias:0", np.ones(3, "float32"))])],
        )
    model = lamina.saving.load_model(path)
    _close(_np(model(X6)), np.maximum(X6 @ kernel + 1, 0))


def test_lambda_bytecode_only_outside_safe_mode(tmp_path):
    path = str(tmp_path / "lambda.h5")
    w = _keras2_file(path, with_lambda=True)
    with pytest.raises(ValueError, match=r"'lambda' \(Lambda\).*bytecode.*safe_mode=False"):
        lamina.saving.load_model(path)
    model = lamina.saving.load_model(path, safe_mode=False, compile=False)
    _close(_np(model([XA, XB])), 2 * _keras2_expected(w, XA, XB))


# Damaged files: one ValueError naming the part -----------------------------------------
def _damage(path, how):
    with h5py.File(path, "r+") as f:
        if how == "no model_config":
            del f.attrs["model_config"]
        elif how == "truncated json":
            f.attrs["model_config"] = f.attrs["model_config"][:200]
        elif how == "wrong shape":
            del f["model_weights/dense_1/dense_1/kernel:0"]
            f["model_weights/dense_1"].create_dataset("dense_1/kernel:0", data=np.zeros((3, 4)))
        elif how == "missing layer group":
            del f["model_weights/dense_3"]
        elif how == "unknown class":
            config = f.attrs["model_config"]
            config = config.decode() if isinstance(config, bytes) else config
            f.attrs["model_config"] = config.replace('"Concatenate"', '"Evil"').encode()
        elif how == "tf op":
            config = f.attrs["model_config"]
            config = config.decode() if isinstance(config, bytes) else config
            f.attrs["model_config"] = config.replace('"Concatenate"', '"TFOpLambda"').encode()
        elif how == "weights count":
            g = f["model_weights/dense"]
            g.attrs["weight_names"] = g.attrs["weight_names"][:1]


@pytest.mark.parametrize(
    "how, match",
    [
        ("no model_config", "attribute 'model_config': it is missing"),
        ("truncated json", "attribute 'model_config': it is not valid JSON"),
        ("wrong shape", r"weight layer group model_weights/dense_1/dense_1/kernel:0.*\(3, 4\)"),
        ("missing layer group", "layer group model_weights/dense_3: it is listed"),
        ("unknown class", "model_config.*Evil"),
        ("weights count", "model_weights/dense: it holds 1 weight"),
        ("tf op", r"'concatenate' \(TFOpLambda\).*TensorFlow.*load_weights"),
    ],
)
def test_damaged_files(tmp_path, how, match):
    path = str(tmp_path / "bad.h5")
    _keras2_file(path)
    _damage(path, how)
    with pytest.raises(ValueError, match=match) as info:
        lamina.saving.load_model(path)
    assert "bad.h5" in str(info.value)


def test_not_hdf5_and_truncated(tmp_path):
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"not an hdf5 file at all")
    with pytest.raises(ValueError, match="not a readable HDF5 file"):
        lamina.saving.load_model(junk)
    path = tmp_path / "cut.h5"
    _keras2_file(str(path))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.h5"):
        lamina.saving.load_model(path)
    weights_only = tmp_path / "w.h5"
    with h5py.File(weights_only, "w") as f:
        f.create_group("model_weights")
    with pytest.raises(ValueError, match="model_config.*load_weights"):
        lamina.saving.load_model(weights_only)


def test_external_link_refused(tmp_path):
    path = str(tmp_path / "link.h5")
    _keras2_file(path)
    with h5py.File(path, "r+") as f:
        f["model_weights/evil"] = h5py.ExternalLink("/etc/passwd", "/")
    with pytest.raises(ValueError, match="ExternalLink"):
        lamina.saving.load_model(path)


# load_weights from legacy files ---------------------------------------------------------
def test_load_weights_from_keras2_weights_file_and_whole_model_file(tmp_path, keras_sequential_h5):
    kernel = RNG.normal(size=(6, 3)).astype("float32")
    path = str(tmp_path / "w.h5")
    with h5py.File(path, "w") as f:  # Keras 2 `model.save_weights("w.h5")`: at the root
        _write_weights(
            f, [("dense", [("dense/kernel:0", kernel), ("dense/bias:0", np.ones(3, "float32"))])]
        )
    model = lamina.Sequential([lamina.Input((6,)), lamina.layers.Dense(3)])
    model.load_weights(path)
    _close(_np(model(X6)), X6 @ kernel + 1)
    with pytest.raises(ValueError, match=r"w.h5.*model_weights|w.h5.*holds weights for 1"):
        lamina.Sequential(
            [lamina.Input((6,)), lamina.layers.Dense(3), lamina.layers.Dense(1)]
        ).load_weights(path)

    whole, reference = keras_sequential_h5
    L = lamina.layers
    model = lamina.Sequential(
        [lamina.Input((6,)), L.Dense(4, activation="relu"), L.BatchNormalization(), L.Dense(2)]
    )
    model.load_weights(whole)
    _close(_np(model(X6)), np.asarray(reference(X6)))


# More Keras 2 layer configs, checked against Keras 3's own legacy loader ---------------
def _k2(class_name, name, **config):
    return {
        "class_name": class_name,
        "config": {"name": name, "trainable": True, "dtype": "float32", **config},
    }  # noqa: E501


def _init(class_name, **config):
    return {"class_name": class_name, "config": config}


def _keras2_variety_file(path):
    no_reg = {"kernel_regularizer": None, "bias_regularizer": None, "activity_regularizer": None}
    conv = [
        _node(
            _keras2_input("image", 0)
            | {
                "config": {
                    "batch_input_shape": [None, 6, 6, 2],
                    "dtype": "float32",
                    "sparse": False,
                    "ragged": False,
                    "name": "image",
                }
            }
        ),  # noqa: E501
        _node(
            _k2(
                "Conv2D",
                "conv2d",
                filters=3,
                kernel_size=[3, 3],
                strides=[1, 1],
                padding="valid",
                data_format="channels_last",
                dilation_rate=[1, 1],
                groups=1,
                activation="relu",
                use_bias=True,
                kernel_initializer=_init("GlorotUniform", seed=None),
                bias_initializer=_init("Zeros"),
                kernel_constraint=None,
                bias_constraint=None,
                **no_reg,
            ),
            ("image", 0),
        ),  # noqa: E501
        _node(
            _k2(
                "BatchNormalization",
                "bn",
                axis=[3],
                momentum=0.99,
                epsilon=0.001,
                center=True,
                scale=True,
                beta_initializer=_init("Zeros"),
                gamma_initializer=_init("Ones"),
                moving_mean_initializer=_init("Zeros"),
                moving_variance_initializer=_init("Ones"),
                beta_regularizer=None,
                gamma_regularizer=None,
                beta_constraint=None,
                gamma_constraint=None,
            ),
            ("conv2d", 0),
        ),  # noqa: E501
        _node(_k2("Flatten", "flatten", data_format="channels_last"), ("bn", 0)),
    ]
    seq = [
        _node(
            {
                "class_name": "InputLayer",
                "config": {
                    "batch_input_shape": [None, 4],
                    "dtype": "int32",
                    "sparse": False,
                    "ragged": False,
                    "name": "tokens",
                },
            }
        ),  # noqa: E501
        _node(
            _k2(
                "Embedding",
                "embedding",
                input_dim=9,
                output_dim=3,
                embeddings_initializer=_init("RandomUniform", minval=-0.05, maxval=0.05, seed=None),
                embeddings_regularizer=None,
                activity_regularizer=None,
                embeddings_constraint=None,
                mask_zero=False,
                input_length=4,
            ),
            ("tokens", 0),
        ),  # noqa: E501
        _node(
            _k2(
                "LSTM",
                "lstm",
                return_sequences=False,
                return_state=False,
                go_backwards=False,
                stateful=False,
                unroll=False,
                time_major=False,
                units=2,
                activation="tanh",
                recurrent_activation="sigmoid",
                use_bias=True,
                kernel_initializer=_init("GlorotUniform", seed=None),
                recurrent_initializer=_init("Zeros"),
                bias_initializer=_init("Zeros"),
                unit_forget_bias=True,
                recurrent_regularizer=None,
                kernel_constraint=None,
                recurrent_constraint=None,
                bias_constraint=None,
                dropout=0.0,
                recurrent_dropout=0.0,
                implementation=2,
                **no_reg,
            ),
            ("embedding", 0),
        ),  # noqa: E501
        _node(_k2("Concatenate", "concatenate", axis=-1), ("flatten", 0), ("lstm", 0)),
        _node(
            _k2(
                "Dense",
                "dense",
                units=2,
                activation="softmax",
                use_bias=True,
                kernel_initializer=_init(
                    "VarianceScaling", scale=1.0, mode="fan_avg", distribution="uniform", seed=None
                ),
                bias_initializer=_init("Zeros"),
                kernel_constraint=None,
                bias_constraint=None,
                **no_reg,
            ),
            ("concatenate", 0),
        ),  # noqa: E501
    ]
    config = {
        "class_name": "Model",  # what Keras 2.2 wrote for functional models
        "config": {
            "name": "model_1",
            "layers": conv + seq,
            "input_layers": [["image", 0, 0], ["tokens", 0, 0]],
            "output_layers": [["dense", 0, 0]],
        },
    }
    rng = np.random.default_rng(2)
    shapes = {
        "conv2d": [(3, 3, 2, 3), (3,)],
        "bn": [(3,), (3,), (3,), (3,)],
        "embedding": [(9, 3)],
        "lstm": [(3, 8), (2, 8), (8,)],
        "dense": [(50, 2), (2,)],
    }
    suffix = {
        "conv2d": ["kernel", "bias"],
        "bn": ["gamma", "beta", "moving_mean", "moving_variance"],
        "embedding": ["embeddings"],
        "lstm": ["lstm_cell/kernel", "lstm_cell/recurrent_kernel", "lstm_cell/bias"],
        "dense": ["kernel", "bias"],
    }
    groups = []
    for entry in config["config"]["layers"]:
        name = entry["name"]
        weights = [
            (f"{name}/{s}:0", (rng.random(shape) + 0.5).astype("float32"))
            for s, shape in zip(suffix.get(name, []), shapes.get(name, []))
        ]
        groups.append((name, weights))
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = "2.2.4"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode()
        _write_weights(f.create_group("model_weights"), groups)


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _variety_expected(path, image, tokens):
    """The model of `_keras2_variety_file` in NumPy, from the file's own weights."""
    with h5py.File(path) as f:
        g = f["model_weights"]
        w = {n: [np.asarray(g[n][k]) for k in g[n].attrs["weight_names"]] for n in g}
    kernel, bias = w["conv2d"]
    patches = np.stack(
        [image[:, i : i + 4, j : j + 4, :] for i in range(3) for j in range(3)], axis=3
    )  # (batch, 4, 4, 9, channels): the 3x3 windows of a valid convolution
    h = np.maximum(np.einsum("bxykc,kcf->bxyf", patches, kernel.reshape(9, 2, 3)) + bias, 0)
    gamma, beta, mean, var = w["bn"]
    h = (gamma * (h - mean) / np.sqrt(var + 0.001) + beta).reshape(len(image), -1)
    seq = w["embedding"][0][tokens]
    k, r, b = w["lstm"]
    state, cell = np.zeros((len(tokens), 2)), np.zeros((len(tokens), 2))
    for t in range(tokens.shape[1]):
        z = seq[:, t] @ k + state @ r + b
        i_, f_, c_, o_ = np.split(z, 4, axis=-1)
        cell = _sigmoid(f_) * cell + _sigmoid(i_) * np.tanh(c_)
        state = _sigmoid(o_) * np.tanh(cell)
    logits = np.concatenate([h, state], axis=-1) @ w["dense"][0] + w["dense"][1]
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_keras2_layer_variety(tmp_path):
    path = str(tmp_path / "variety.h5")
    _keras2_variety_file(path)
    image = RNG.random((3, 6, 6, 2)).astype("float32")
    tokens = np.array([[1, 2, 3, 0], [4, 5, 6, 7], [8, 0, 1, 1]], dtype="int32")
    model = lamina.saving.load_model(path)
    _close(_np(model([image, tokens])), _variety_expected(path, image, tokens))


def test_keras3_h5_with_op_nodes(tmp_path):
    # Keras 3's legacy writer drops the module of op nodes (`NotEqual` under a masking
    # Embedding, `Add`/`Softmax` from `x + 1.0`, `ops.softmax`), so Keras 3 cannot read
    # this file back; lamina can, and runs it as Keras did.
    from keras import ops as K

    x = keras.Input((3,), dtype="int32")
    h = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(8, 4, mask_zero=True)(x))
    model = keras.Model(x, K.softmax((h + 1.0) * h, axis=-1))
    path = str(tmp_path / "ops.h5")
    model.save(path)
    tokens = np.array([[1, 2, 0], [3, 4, 5]], dtype="int32")
    _close(_np(lamina.saving.load_model(path)(tokens)), np.asarray(model(tokens)))


def test_optimizer_state_that_does_not_fit_warns_and_compiles(tmp_path):
    path = str(tmp_path / "opt.h5")
    _keras2_file(path)
    with h5py.File(path, "r+") as f:
        group = f["optimizer_weights"]
        group.attrs["weight_names"] = group.attrs["weight_names"][:5]  # cut short
    with pytest.warns(UserWarning, match="optimizer state could not be restored"):
        model = lamina.saving.load_model(path)
    assert model.compiled and int(_np(model.optimizer.iterations)) == 0
