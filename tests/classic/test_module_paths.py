"""Classic Keras module paths (issue 32, item 3): each resolves to the same objects as the
modern path, and importing one changes nothing else."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, losses, utils
from lamina.testing import check_layer

# classic module -> names it must hold, each the object at `lamina.layers.<name>`.
LAYER_MODULES = {
    "merge": "Add Subtract Multiply Average Maximum Minimum Concatenate Dot "
    "add subtract multiply average maximum minimum concatenate dot",
    "convolutional": "Conv1D Conv2D Conv3D Conv2DTranspose Conv3DTranspose SeparableConv1D "
    "SeparableConv2D DepthwiseConv2D UpSampling1D UpSampling2D UpSampling3D ZeroPadding1D "
    "ZeroPadding2D ZeroPadding3D Cropping1D Cropping2D Cropping3D Convolution1D Convolution2D "
    "Convolution3D SeparableConvolution1D SeparableConvolution2D Convolution2DTranspose "
    "MaxPooling1D MaxPooling2D MaxPooling3D AveragePooling1D AveragePooling2D AveragePooling3D",
    "convolutional_recurrent": "ConvLSTM2D",
    "embeddings": "Embedding",
    "advanced_activations": "LeakyReLU PReLU ELU ThresholdedReLU Softmax ReLU",
    "noise": "GaussianNoise GaussianDropout AlphaDropout",
    "local": "LocallyConnected1D LocallyConnected2D",
    "recurrent": "RNN SimpleRNN GRU LSTM SimpleRNNCell GRUCell LSTMCell StackedRNNCells",
    "core": "Dense Activation Dropout Flatten Reshape Permute RepeatVector Lambda Masking "
    "ActivityRegularization SpatialDropout1D SpatialDropout2D SpatialDropout3D",
    "pooling": "MaxPooling1D AveragePooling1D MaxPooling2D AveragePooling2D MaxPooling3D "
    "AveragePooling3D GlobalAveragePooling1D GlobalMaxPooling1D GlobalAveragePooling2D "
    "GlobalMaxPooling2D GlobalAveragePooling3D GlobalMaxPooling3D AvgPool2D MaxPool2D "
    "GlobalAvgPool2D GlobalMaxPool2D",
    "normalization": "BatchNormalization",
    "wrappers": "Wrapper TimeDistributed Bidirectional",
}


@pytest.mark.parametrize("module", sorted(LAYER_MODULES))
def test_classic_layer_modules_hold_the_modern_objects(module):
    mod = importlib.import_module(f"lamina.layers.{module}")
    assert getattr(layers, module) is mod  # an attribute of the package too
    for name in LAYER_MODULES[module].split():
        assert getattr(mod, name) is getattr(layers, name), f"layers.{module}.{name}"


def test_keras_2_aliases_of_the_transposed_convolutions():
    from lamina.layers import convolutional

    assert convolutional.Deconvolution2D is convolutional.Deconv2D is layers.Conv2DTranspose
    assert convolutional.Deconvolution3D is convolutional.Deconv3D is layers.Conv3DTranspose


def test_engine_and_topology():
    from lamina.engine import topology
    from lamina.engine.base_layer import Layer as BaseLayer
    from lamina.engine.input_layer import Input as EngineInput
    from lamina.engine.network import Network
    from lamina.engine.sequential import Sequential
    from lamina.engine.training import Model

    assert lamina.engine.topology is topology
    for name in ("Layer", "Input", "InputLayer", "InputSpec"):
        assert getattr(topology, name) is getattr(lamina, name)
        assert getattr(lamina.engine, name) is getattr(lamina, name)
    assert topology.Node is lamina.graph.node.Node
    assert topology.get_source_inputs is utils.get_source_inputs
    assert topology.Network is Network is Model is lamina.Model is lamina.engine.Model
    assert BaseLayer is lamina.Layer and EngineInput is lamina.Input
    assert Sequential is lamina.Sequential
    # A classic Network: inputs, outputs, name; callable on new tensors.
    x = topology.Input((3,))
    net = topology.Network(x, layers.Dense(2)(x), name="net")
    y = net(topology.Input((3,)))
    assert y.shape == (None, 2)
    assert topology.get_source_inputs(y)[0].shape == (None, 3)


def test_objectives_are_the_losses():
    from lamina import objectives

    for name in ("mse", "mae", "mape", "msle", "kld", "binary_crossentropy", "cosine_proximity"):
        assert getattr(objectives, name) is getattr(losses, name)
    assert objectives.categorical_crossentropy is losses.categorical_crossentropy


def test_utils_modules():
    from lamina.utils import conv_utils, data_utils, generic_utils, io_utils, np_utils, vis_utils

    assert np_utils.to_categorical is utils.to_categorical
    assert np_utils.normalize is utils.normalize
    assert generic_utils.Progbar is utils.Progbar
    assert generic_utils.CustomObjectScope is utils.CustomObjectScope
    assert generic_utils.custom_object_scope is utils.custom_object_scope
    assert generic_utils.get_custom_objects is utils.get_custom_objects
    assert generic_utils.serialize_keras_object is utils.serialize_keras_object
    assert data_utils.get_file is utils.get_file
    assert data_utils.Sequence is utils.Sequence is utils.PyDataset
    assert data_utils.OrderedEnqueuer is utils.OrderedEnqueuer
    assert vis_utils.plot_model is utils.plot_model
    assert vis_utils.model_to_dot is utils.model_to_dot
    assert io_utils.HDF5Matrix is utils.HDF5Matrix
    assert conv_utils.normalize_tuple(np.int64(3), 2, "kernel_size") == (3, 3)
    assert conv_utils.conv_output_length(10, 3, "same", 2) == 5
    assert conv_utils.conv_input_length(4, 3, "valid", 2) == 9
    assert conv_utils.deconv_length(4, 2, 3, "same") == 8
    assert conv_utils.normalize_padding("SAME") == "same"
    kernel = np.arange(8.0).reshape(2, 2, 1, 2)
    np.testing.assert_array_equal(conv_utils.convert_kernel(kernel), kernel[::-1, ::-1])


def test_generic_utils_helpers():
    from lamina.utils import generic_utils as g

    f = g.func_load(g.func_dump(lambda x, k=3: x * k))
    assert f(2) == 6
    base = 10
    closure = g.func_load(*g.func_dump(lambda x: x + base))
    assert closure(1) == 11
    assert g.has_arg(lambda a, b=1: 0, "b") and not g.has_arg(lambda a: 0, "b")
    assert g.has_arg(lambda **kw: 0, "z", accept_all=True)
    assert g.to_list((1, 2), allow_tuple=True) == [1, 2] and g.to_list(3) == [3]
    assert g.unpack_singleton([5]) == 5 and g.unpack_singleton([1, 2]) == [1, 2]
    assert g.transpose_shape((16, 8, 8, 3), "channels_first", (1, 2)) == (16, 3, 8, 8)
    arrays = [np.arange(5), np.arange(5) * 2]
    assert [a.tolist() for a in g.slice_arrays(arrays, 1, 3)] == [[1, 2], [2, 4]]
    assert g.slice_arrays(arrays[0], [4, 0]).tolist() == [4, 0]
    # Keras 2's deserialize signature: module_objects searched after custom_objects.
    assert g.deserialize_keras_object("Dense", module_objects=vars(layers)) is layers.Dense


def test_hdf5_matrix_feeds_fit(tmp_path):
    path = str(tmp_path / "data.h5")
    rng = np.random.default_rng(0)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=rng.normal(size=(20, 3)).astype("float32"))
        f.create_dataset("y", data=rng.normal(size=(20, 1)).astype("float32"))
    x_train = utils.HDF5Matrix(path, "x", end=16)
    y_train = utils.HDF5Matrix(path, "y", end=16, normalizer=lambda v: v * 2)
    assert x_train.shape == (16, 3) and len(x_train) == 16 and x_train.ndim == 2
    np.testing.assert_array_equal(x_train[[3, 1]], np.asarray(x_train)[[3, 1]])
    np.testing.assert_array_equal(x_train[-1], np.asarray(x_train)[15])
    with pytest.raises(IndexError):
        x_train[16]
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x_train, y_train, batch_size=4, epochs=1, shuffle=True, verbose=0)
    x_test = utils.HDF5Matrix(path, "x", start=16)
    assert model.predict(x_test, verbose=0).shape == (4, 1)


def test_enqueuers():
    from lamina.utils.data_utils import GeneratorEnqueuer, OrderedEnqueuer, Sequence

    class Batches(Sequence):  # classic style: no super().__init__()
        epochs = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return np.full((2,), i)

        def on_epoch_end(self):
            Batches.epochs += 1

    enqueuer = OrderedEnqueuer(Batches(), use_multiprocessing=False)
    enqueuer.start(workers=3, max_queue_size=2)
    batches = enqueuer.get()
    assert [int(next(batches)[0]) for _ in range(9)] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    enqueuer.stop()
    assert Batches.epochs >= 2 and not enqueuer.is_running()

    def generate():
        yield from range(5)

    enqueuer = GeneratorEnqueuer(generate())
    enqueuer.start()
    assert list(enqueuer.get()) == [0, 1, 2, 3, 4]
    enqueuer.stop()

    def failing():
        yield 1
        raise RuntimeError("broken generator")

    enqueuer = GeneratorEnqueuer(failing())
    enqueuer.start()
    with pytest.raises(RuntimeError, match="broken generator"):
        list(enqueuer.get())


def test_layers_keras_3_dropped():
    check_layer(
        layers.LocallyConnected1D,
        {"filters": 3, "kernel_size": 2, "strides": 2},
        input_shape=(2, 7, 4),
        expected_output_shape=(2, 3, 3),
        expected_num_trainable_weights=2,
    )
    check_layer(
        layers.LocallyConnected2D,
        {"filters": 2, "kernel_size": (2, 3), "activation": "relu"},
        input_shape=(2, 4, 5, 3),
        expected_output_shape=(2, 3, 3, 2),
        expected_num_trainable_weights=2,
    )
    check_layer(
        layers.ThresholdedReLU,
        {"theta": 0.5},
        input_shape=(2, 3),
        expected_output_shape=(2, 3),
        expected_num_trainable_weights=0,
    )
    out = layers.ThresholdedReLU(theta=1.0)(np.array([[-2.0, 1.0, 1.5]], "float32"))
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(out), [[0.0, 0.0, 1.5]])
    # Keras 2's kernel layout: (positions, rows * cols * channels, filters).
    layer = layers.LocallyConnected2D(4, 3)
    layer.build((None, 5, 6, 2))
    assert tuple(layer.kernel.shape) == (3 * 4, 3 * 3 * 2, 4)
    assert tuple(layer.bias.shape) == (3, 4, 4)
    json.dumps(layer.get_config())
    with pytest.raises(ValueError, match="only padding='valid'"):
        layers.LocallyConnected1D(2, 3, padding="same")


def test_locally_connected_matches_a_direct_loop():
    rng = np.random.default_rng(1)
    for data_format in ("channels_last", "channels_first"):
        shape = (2, 3, 6, 5) if data_format == "channels_first" else (2, 6, 5, 3)
        x = rng.normal(size=shape).astype("float32")
        layer = layers.LocallyConnected2D(4, (3, 2), strides=(2, 1), data_format=data_format)
        layer(x)
        kernel = rng.normal(size=tuple(layer.kernel.shape)).astype("float32")
        bias = rng.normal(size=tuple(layer.bias.shape)).astype("float32")
        layer.set_weights([kernel, bias])
        got = lamina.ops.convert_to_numpy(layer(x))
        image = np.moveaxis(x, 1, -1) if data_format == "channels_first" else x
        rows, cols = (6 - 3) // 2 + 1, (5 - 2) // 1 + 1
        want = np.zeros((2, rows, cols, 4), "float32")
        for i in range(rows):
            for j in range(cols):
                patch = image[:, 2 * i : 2 * i + 3, j : j + 2, :]
                if data_format == "channels_first":
                    patch = np.moveaxis(patch, -1, 1)  # Keras 2 flattened (c, rows, cols)
                want[:, i, j] = patch.reshape(2, -1) @ kernel[i * cols + j] + bias[i, j]
        if data_format == "channels_first":
            want = np.moveaxis(want, -1, 1)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_importing_a_classic_path_first_in_a_fresh_process():
    # Each path imports on its own (no dependence on `import lamina` having run first).
    code = (
        "from lamina.layers.merge import concatenate; from lamina.engine.topology import Network;"
        "from lamina.utils.np_utils import to_categorical; from lamina.objectives import mse;"
        "from lamina.utils.io_utils import HDF5Matrix; from lamina.layers.local import "
        "LocallyConnected2D; from lamina.optimizers.adam import Adam; print('ok')"
    )
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")


def test_a_classic_sequence_without_super_init_trains():
    from lamina.utils.data_utils import Sequence

    class Batches(Sequence):
        def __init__(self, x, y, batch_size):  # Keras 2 style: no super().__init__()
            self.x, self.y, self.batch_size = x, y, batch_size

        def __len__(self):
            return int(np.ceil(len(self.x) / self.batch_size))

        def __getitem__(self, i):
            rows = slice(i * self.batch_size, (i + 1) * self.batch_size)
            return self.x[rows], self.y[rows]

    x = np.random.default_rng(0).normal(size=(10, 2)).astype("float32")
    model = lamina.Sequential([layers.Input((2,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(Batches(x, x[:, :1], 4), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert model.predict(Batches(x, x[:, :1], 4), verbose=0).shape == (10, 1)
