"""lamina.applications against Keras 3: same layer names, Keras-saved weights load, same predictions.

Each architecture is built in Keras 3 (JAX backend, weights=None), every variable is
given a seeded random value (batch-norm statistics and biases included, so that each
one matters), the weights are saved with
`save_weights("x.weights.h5")`, and lamina's architecture loads that file and must give
Keras's predictions on a random batch (Keras's run compiled, as one JAX program). The
models are big for CI, so the inputs are the smallest each allows (32x32, 71x71 for
Xception, 75x75 for InceptionV3; small `alpha` for the MobileNets), and only a seeded
sample of the architectures runs by default (one per run, chosen by the day of the year
so that CI covers the cheaper ones in turn; choose another with
`LAMINA_APPLICATIONS_SEED=<int>`, an index modulo their number).
`LAMINA_SLOW_TESTS=1` runs them all.

No test touches the network: `weights="imagenet"` is checked with a file placed in a
temporary Keras cache (`KERAS_HOME`) and with a missing file whose origin is an absent
`file://` URL; the ImageNet class index is a tiny fake JSON in the same cache.
"""

import datetime
import hashlib
import json
import os
import re
import warnings

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")
from keras.src.backend.common import global_state  # noqa: E402
from keras.src.utils import naming  # noqa: E402

import lamina  # noqa: E402
from lamina import applications  # noqa: E402
from lamina.applications import imagenet_utils  # noqa: E402

# name -> (lamina module, constructor kwargs shared by Keras and lamina)
ARCHITECTURES = {
    "ResNet50": ("resnet50", dict(include_top=False, input_shape=(32, 32, 3))),
    "ResNet50V2": (
        "resnet_v2",
        dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None),
    ),
    "MobileNetV2": (
        "mobilenet_v2",
        dict(input_shape=(32, 32, 3), alpha=0.35, classes=3, classifier_activation=None),
    ),
    "EfficientNetB0": (
        "efficientnet",
        dict(include_top=False, pooling="avg", input_shape=(32, 32, 3)),
    ),
    "VGG16": ("vgg16", dict(include_top=False, pooling="max", input_shape=(32, 32, 3))),
    "DenseNet121": ("densenet", dict(include_top=False, pooling="avg", input_shape=(32, 32, 3))),
    "Xception": ("xception", dict(include_top=False, input_shape=(71, 71, 3))),
    "VGG19": ("vgg19", dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None)),
    "MobileNet": (
        "mobilenet",
        dict(input_shape=(32, 32, 3), alpha=0.25, classes=3, classifier_activation=None),
    ),
    "MobileNetV3Small": (
        "mobilenet_v3",
        dict(input_shape=(32, 32, 3), alpha=0.25, classes=3, classifier_activation=None),
    ),
    "MobileNetV3Large": (
        "mobilenet_v3",
        dict(include_top=False, pooling="avg", input_shape=(32, 32, 3), alpha=0.25),
    ),
    "InceptionV3": ("inception_v3", dict(include_top=False, input_shape=(75, 75, 3))),
    "InceptionResNetV2": (
        "inception_resnet_v2",
        dict(input_shape=(75, 75, 3), classes=3, classifier_activation=None),
    ),
    "ConvNeXtTiny": (
        "convnext",
        dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None),
    ),
    "ConvNeXtSmall": ("convnext", dict(include_top=False, input_shape=(32, 32, 3))),
    "ConvNeXtBase": (
        "convnext",
        dict(include_top=False, pooling="avg", input_shape=(32, 32, 3)),
    ),
    "ConvNeXtLarge": (
        "convnext",
        dict(include_top=False, pooling="max", input_shape=(32, 32, 3)),
    ),
    "ConvNeXtXLarge": ("convnext", dict(include_top=False, input_shape=(32, 32, 3))),
    "EfficientNetV2B0": (
        "efficientnet_v2",
        dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None),
    ),
    "EfficientNetV2B1": (
        "efficientnet_v2",
        dict(include_top=False, pooling="avg", input_shape=(32, 32, 3)),
    ),
    "EfficientNetV2B2": ("efficientnet_v2", dict(include_top=False, input_shape=(32, 32, 3))),
    "EfficientNetV2B3": (
        "efficientnet_v2",
        dict(include_top=False, pooling="max", input_shape=(32, 32, 3)),
    ),
    "EfficientNetV2S": (
        "efficientnet_v2",
        dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None),
    ),
    "EfficientNetV2M": ("efficientnet_v2", dict(include_top=False, input_shape=(32, 32, 3))),
    "EfficientNetV2L": (
        "efficientnet_v2",
        dict(include_top=False, pooling="avg", input_shape=(32, 32, 3)),
    ),
    "NASNetMobile": (
        "nasnet",
        dict(input_shape=(32, 32, 3), classes=3, classifier_activation=None),
    ),
    "NASNetLarge": ("nasnet", dict(include_top=False, pooling="avg", input_shape=(32, 32, 3))),
}


# Over ~5 s each (one compiled Keras call, the build, the load and lamina's call): they
# run with LAMINA_SLOW_TESTS=1 or a seed. ConvNeXtTiny and EfficientNetV2B0 (4-5 s)
# stand in for their larger sizes, which are the same code at other widths and depths.
_EXPENSIVE = (
    "DenseNet121",
    "EfficientNetB0",
    "InceptionV3",
    "InceptionResNetV2",
    "ConvNeXtSmall",
    "ConvNeXtBase",
    "ConvNeXtLarge",
    "ConvNeXtXLarge",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2S",
    "EfficientNetV2M",
    "EfficientNetV2L",
    "NASNetMobile",  # 30 s
    "NASNetLarge",  # 60 s
)


def _sample():
    names = list(ARCHITECTURES)
    if os.environ.get("LAMINA_SLOW_TESTS") == "1":
        return names
    seed = os.environ.get("LAMINA_APPLICATIONS_SEED")
    if seed is not None:
        return [names[int(seed) % len(names)]]
    # One of the cheaper ones a day: the expensive ones are over the suite's budget.
    cheap = [n for n in names if n not in _EXPENSIVE]
    return [cheap[datetime.date.today().timetuple().tm_yday % len(cheap)]]


def _keras_reference(name, kwargs, path):
    """Build `name` in Keras with random NumPy weights, save them; return (model, x, y).

    The model is built in a `StatelessScope` that leaves its variables uninitialized,
    so Keras's random initializers (one JAX compilation per variable shape, seconds per
    model) never run; every variable then gets a value from a seeded NumPy generator,
    batch-norm scales and variances around 1, so that every variable matters.
    """
    with keras.StatelessScope(initialize_variables=False):
        model = getattr(keras.applications, name)(weights=None, **kwargs)
    rng = np.random.default_rng(0)
    for variable in model.weights:
        shape = tuple(variable.shape)
        if len(shape) >= 2:  # kernels: fan-in scaled, so activations stay O(1)
            value = rng.normal(0.0, 1.0 / np.sqrt(np.prod(shape[:-1])), shape)
        elif "gamma" in variable.path or "variance" in variable.path:
            value = rng.uniform(0.5, 1.5, shape)
        else:
            value = rng.uniform(-0.2, 0.2, shape)
        variable.assign(value.astype(variable.dtype))
    # Nothing is left for Keras to initialize later in this process.
    global_state.set_global_attribute("uninitialized_variables", [])
    with warnings.catch_warnings():
        # Keras's own h5 writer trips NumPy 2's `copy=` deprecation on JAX arrays.
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        model.save_weights(path)
    # These rescale [0, 255] images inside.
    scale = 255.0 if name.startswith(("EfficientNet", "ConvNeXt")) else 1.0
    x = (rng.uniform(0, 1, (2,) + tuple(model.input.shape[1:])) * scale).astype("float32")
    return model, x, keras.ops.convert_to_numpy(_predict(model, x))


def _predict(model, x):
    """Keras's inference output, compiled as one program on JAX.

    Keras's eager call compiles each op for its shapes one by one: 10 s of CPU and more
    for the deep models, where one compiled program takes 2-3 s.
    """
    if keras.backend.backend() != "jax":
        return model(x, training=False)
    import jax

    def forward(trainable, non_trainable, x):
        return model.stateless_call(trainable, non_trainable, x, training=False)[0]

    return jax.jit(forward)(
        [v.value for v in model.trainable_variables],
        [v.value for v in model.non_trainable_variables],
        x,
    )


def _layer_names(model):
    """Class and name of each layer, in order; automatic names (`conv2d_3`) count by class only.

    Automatic names carry a process-wide counter, so they differ with what was built
    before; the names the architecture sets (`conv1_conv`, ...) must be Keras's.
    """
    names = []
    for layer in model.layers:
        kind = type(layer).__name__
        automatic = re.fullmatch(rf"{naming.to_snake_case(kind)}(_\d+)?", layer.name)
        names.append((kind, None if automatic else layer.name))
    return names


@pytest.fixture
def placeholder_initial_values(monkeypatch):
    """Lamina's random initial values, which the loaded file overwrites, become zeros.

    On JAX each variable shape costs one compilation of the random generator (about
    0.6 s of CPU each, tens per model); the architecture and the loading are what this
    test checks, and a variable the file missed would still show as a mismatch.
    """

    def zeros(shape, low_or_mean=None, high_or_stddev=None, dtype=None, seed=None):
        return lamina.ops.convert_to_tensor(np.zeros(tuple(shape), dtype or "float32"))

    for name in ("uniform", "normal", "truncated_normal"):
        monkeypatch.setattr(lamina.ops.random, name, zeros)


@pytest.mark.parametrize("name", _sample())
def test_keras_weights_load_and_predict_the_same(name, tmp_path, placeholder_initial_values):
    module, kwargs = ARCHITECTURES[name]
    path = str(tmp_path / "x.weights.h5")
    keras_model, x, expected = _keras_reference(name, kwargs, path)
    model = getattr(getattr(applications, module), name)(weights=path, **kwargs)
    assert _layer_names(model) == _layer_names(keras_model)
    assert model.name == keras_model.name
    got = lamina.ops.convert_to_numpy(model(x))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize(
    "module, mode",
    [
        ("resnet50", "caffe"),
        ("resnet_v2", "tf"),
        ("densenet", "torch"),
        ("vgg16", "caffe"),
        ("vgg19", "caffe"),
        ("mobilenet", "tf"),
        ("inception_v3", "tf"),
        ("inception_resnet_v2", "tf"),
    ],
)
def test_preprocess_input_matches_keras(module, mode, data_format):
    rng = np.random.default_rng(1)
    shape = (2, 4, 5, 3) if data_format == "channels_last" else (2, 3, 4, 5)
    images = rng.uniform(0, 255, shape).astype("float32")
    expected = getattr(keras.applications, module).preprocess_input(
        images.copy(), data_format=data_format
    )
    ours = getattr(applications, module)
    np.testing.assert_allclose(
        ours.preprocess_input(images.copy(), data_format=data_format),
        expected,
        rtol=1e-6,
        atol=1e-6,
    )
    tensor = ours.preprocess_input(lamina.ops.convert_to_tensor(images), data_format=data_format)
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(tensor), expected, rtol=1e-5, atol=1e-5)
    # One image (3D) too.
    single = ours.preprocess_input(images[0].copy(), data_format=data_format)
    np.testing.assert_allclose(single, expected[0], rtol=1e-6, atol=1e-6)
    # Integer arrays are converted to floats, not wrapped around.
    as_int = ours.preprocess_input(images.astype("uint8"), data_format=data_format)
    assert as_int.dtype == np.float32


def test_preprocess_input_refuses_unknown_mode_and_format():
    images = np.zeros((1, 2, 2, 3), "float32")
    with pytest.raises(ValueError, match="mode='bgr'"):
        imagenet_utils.preprocess_input(images, mode="bgr")
    with pytest.raises(ValueError, match="data_format='nhwc'"):
        imagenet_utils.preprocess_input(images, data_format="nhwc")
    assert applications.efficientnet.preprocess_input(images) is images
    assert applications.mobilenet_v3.preprocess_input(images) is images
    assert applications.convnext.preprocess_input(images) is images
    assert applications.efficientnet_v2.preprocess_input(images) is images


@pytest.fixture
def keras_cache(tmp_path, monkeypatch):
    """An empty Keras cache; every origin points at an absent `file://` URL."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.delenv("LAMINA_HOME", raising=False)
    models = tmp_path / "keras_home" / "models"
    models.mkdir(parents=True)
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", None)
    monkeypatch.setattr(
        imagenet_utils, "CLASS_INDEX_PATH", (tmp_path / "absent" / "index.json").as_uri()
    )
    return models


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_decode_predictions_reads_the_class_index_from_the_cache(keras_cache, monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    target = keras_cache / "imagenet_class_index.json"
    target.write_text(json.dumps(index))
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX_HASH", _md5(target))
    preds = np.random.default_rng(2).uniform(size=(2, 1000)).astype("float32")
    decoded = applications.resnet50.decode_predictions(preds, top=3)
    for row, scores in zip(decoded, preds):
        best = np.argsort(-scores)[:3]
        assert [entry[:2] for entry in row] == [tuple(index[str(i)]) for i in best]
        np.testing.assert_allclose([entry[2] for entry in row], scores[best])
    tensor = lamina.ops.convert_to_tensor(preds)
    assert applications.vgg16.decode_predictions(tensor, top=1)[0][0][0] == decoded[0][0][0]
    with pytest.raises(ValueError, match=r"\(samples, 1000\).*\(2, 10\)"):
        imagenet_utils.decode_predictions(preds[:, :10])


def test_decode_predictions_without_the_file_or_network_fails_clearly(keras_cache):
    with pytest.raises(Exception, match="imagenet_class_index|index.json"):
        imagenet_utils.decode_predictions(np.zeros((1, 1000), "float32"))


def test_imagenet_weights_missing_offline_fail_before_building(keras_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(
        applications.resnet, "BASE_WEIGHTS_PATH", (tmp_path / "absent").as_uri() + "/"
    )
    with pytest.raises(
        RuntimeError, match=r"resnet50_weights_tf_dim_ordering_tf_kernels_notop\.h5"
    ):
        applications.ResNet50(include_top=False, input_shape=(32, 32, 3))


def test_imagenet_weights_found_in_the_keras_cache_are_used(keras_cache, tmp_path):
    # A file Keras downloaded (here: a stand-in with its hash) is used without fetching;
    # the origin is absent, so any download attempt would fail.
    cached = keras_cache / applications.vgg16.FILE_NAMES[1]
    cached.write_bytes(b"stand-in for Keras's file")
    origin = (tmp_path / "absent.h5").as_uri()
    found = imagenet_utils.weights_path("imagenet", cached.name, origin, _md5(cached), "vgg16")
    assert os.path.samefile(found, cached)
    assert imagenet_utils.weights_path(None) is None
    assert imagenet_utils.weights_path(str(cached)) == str(cached)


def test_arguments_keras_refuses_are_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="classes=10"):
        applications.ResNet50(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="weights='nope'"):
        applications.VGG16(weights="nope")
    with pytest.raises(ValueError, match="at least 71x71"):
        applications.Xception(weights=None, include_top=False, input_shape=(32, 32, 3))
    with pytest.raises(ValueError, match="static `input_shape`|fixed"):
        applications.VGG16(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="alpha=0.2"):
        applications.MobileNetV2(weights="imagenet", alpha=0.2, include_top=False)
    with pytest.raises(ValueError, match="alpha=0.35"):
        applications.MobileNet(weights="imagenet", alpha=0.35, include_top=False)
    with pytest.raises(ValueError, match="depth_multiplier=2"):
        applications.MobileNet(weights="imagenet", depth_multiplier=2, include_top=False)
    with pytest.raises(ValueError, match="alpha=0.75, minimalistic=True"):
        applications.MobileNetV3Small(alpha=0.75, minimalistic=True)
    with pytest.raises(ValueError, match="at least 32x32.*16, 16, 3"):
        applications.MobileNetV3Large(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="does not match.*input_tensor"):
        applications.MobileNetV3Small(
            weights=None, input_shape=(64, 64, 3), input_tensor=lamina.Input((32, 32, 3))
        )
    with pytest.raises(ValueError, match="at least 75x75"):
        applications.InceptionV3(weights=None, include_top=False, input_shape=(71, 71, 3))


def test_convnext_and_efficientnet_v2_arguments_are_checked(monkeypatch):
    with pytest.raises(ValueError, match="classes=10"):
        applications.ConvNeXtTiny(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="classes=10"):
        applications.EfficientNetV2B0(weights="imagenet", classes=10)
    # Keras's file is named after the model, so another name has no weights.
    with pytest.raises(ValueError, match="'convnext_small'.*name='features'"):
        applications.ConvNeXtSmall(weights="imagenet", include_top=False, name="features")
    with pytest.raises(ValueError, match="pooling='mean'"):
        applications.ConvNeXtTiny(weights=None, include_top=False, pooling="mean")
    with pytest.raises(ValueError, match="pooling='mean'"):
        applications.EfficientNetV2B0(weights=None, include_top=False, pooling="mean")
    with pytest.raises(ValueError, match="at least 32x32"):
        applications.EfficientNetV2S(weights=None, include_top=False, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="four entries"):
        applications.convnext.ConvNeXt([3, 3, 9], [96, 192, 384])
    monkeypatch.setattr(lamina.backend, "image_data_format", lambda: "channels_first")
    with pytest.raises(ValueError, match="channels_last"):
        applications.ConvNeXtTiny(weights=None)


def test_stochastic_depth_drops_whole_samples_in_training():
    layer = applications.convnext.StochasticDepth(0.5, seed=3)
    x = np.ones((64, 2, 3), "float32")
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(layer(x)), x)
    out = lamina.ops.convert_to_numpy(layer(x, training=True))
    kept = out.reshape(64, -1)
    # Each sample is dropped (0) or kept and scaled by 1 / (1 - rate), as a whole.
    assert set(np.unique(kept)) == {0.0, 2.0}
    assert (kept.min(axis=1) == kept.max(axis=1)).all()
    with pytest.raises(ValueError, match="drop_path_rate=1.5"):
        applications.convnext.StochasticDepth(1.5)


@pytest.mark.engine("jax")  # serialization, whatever the engine
def test_convnext_layers_load_from_keras_files_without_custom_objects(tmp_path):
    # Keras's ConvNeXt holds its own `LayerScale` and `StochasticDepth`: a `.keras` file
    # of it, Keras's or lamina's, must load without `custom_objects`.
    from keras.src.applications.convnext import LayerScale, StochasticDepth

    global_state.set_global_attribute("uninitialized_variables", [])
    inputs = keras.Input((4,))
    x = LayerScale(0.5, 4)(keras.layers.Dense(4)(inputs))
    model = keras.Model(inputs, StochasticDepth(0.25)(x))
    model.layers[2].gamma.assign(np.array([0.5, -1.0, 2.0, 3.0], "float32"))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    expected = keras.ops.convert_to_numpy(model(x))
    with warnings.catch_warnings():
        # Keras's own h5 writer trips NumPy 2's `copy=` deprecation on JAX arrays.
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        model.save(tmp_path / "keras.keras")
    loaded = lamina.models.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(loaded(x)), expected, rtol=1e-6)
    loaded.save(tmp_path / "lamina.keras")
    again = lamina.models.load_model(tmp_path / "lamina.keras")
    assert [type(layer).__name__ for layer in again.layers[2:]] == [
        "LayerScale",
        "StochasticDepth",
    ]
    assert again.layers[3].drop_path_rate == 0.25
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(again(x)), expected, rtol=1e-6)


class _Fetched(Exception):
    """Raised by a stand-in `get_file` once it has recorded what was asked for."""


# (name, constructor kwargs with weights="imagenet", whether both warn of the size)
IMAGENET_FILES = [
    ("VGG19", dict(), False),
    ("VGG19", dict(include_top=False), False),
    ("MobileNet", dict(alpha=0.5, include_top=False, input_shape=(160, 160, 3)), False),
    ("MobileNet", dict(alpha=0.25, include_top=False, input_shape=(100, 100, 3)), True),
    ("MobileNet", dict(), False),
    ("MobileNetV3Small", dict(minimalistic=True, input_shape=(224, 224, 3)), False),
    ("MobileNetV3Large", dict(alpha=0.75, include_top=False, input_shape=(224, 224, 3)), False),
    ("MobileNetV3Large", dict(include_top=False), True),
    ("InceptionV3", dict(), False),
    ("InceptionResNetV2", dict(include_top=False), False),
    # Keras builds these before it asks (about 1 s each); ours fail before building,
    # whatever the engine.
    pytest.param("ConvNeXtTiny", dict(include_top=False), False, marks=pytest.mark.engine("jax")),
    pytest.param("EfficientNetV2B0", dict(), False, marks=pytest.mark.engine("jax")),
    pytest.param("NASNetMobile", dict(include_top=False), False, marks=pytest.mark.engine("jax")),
]


@pytest.mark.parametrize("name, kwargs, warns", IMAGENET_FILES)
def test_imagenet_weights_are_the_files_keras_reads(name, kwargs, warns, monkeypatch):
    # The same cache file name, origin and hash as Keras's, so a file Keras downloaded
    # is found (and checked) in the cache. Keras builds the model before it asks.
    from keras.src.utils import file_utils

    def recorder(calls):
        def get_file(fname, origin, cache_subdir="datasets", file_hash=None, **kwargs):
            calls.append((fname, origin, cache_subdir, file_hash))
            raise _Fetched

        return get_file

    keras_calls, ours = [], []
    monkeypatch.setattr(file_utils, "get_file", recorder(keras_calls))
    monkeypatch.setattr(imagenet_utils, "get_file", recorder(ours))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with keras.StatelessScope(initialize_variables=False), pytest.raises(_Fetched):
            getattr(keras.applications, name)(**kwargs)
        keras_warned = bool(caught)
        with pytest.raises(RuntimeError, match="Could not get the ImageNet weights"):
            getattr(applications, name)(**kwargs)
    assert ours == keras_calls
    assert keras_warned == warns
    assert (len(caught) > int(keras_warned)) == warns  # ours warned too


# Variants the load-and-predict test does not build: (name, kwargs for both).
VARIANTS = [
    ("MobileNet", dict(include_top=False, alpha=0.5, depth_multiplier=2, pooling="max")),
    ("MobileNetV3Small", dict(minimalistic=True, include_preprocessing=False)),
    ("MobileNetV3Large", dict(minimalistic=True, alpha=1.25, dropout_rate=0.0, classes=5)),
    pytest.param(
        "EfficientNetV2B0",
        dict(include_preprocessing=False, include_top=False, pooling="max"),
        marks=pytest.mark.engine("jax"),
    ),
    ("NASNetMobile", dict(include_top=False, pooling="max")),
]


@pytest.mark.parametrize("name, kwargs", VARIANTS)
def test_variants_have_keras_layers_and_parameter_counts(name, kwargs, placeholder_initial_values):
    kwargs = dict(kwargs, input_shape=(75, 75, 3))
    with keras.StatelessScope(initialize_variables=False):
        keras_model = getattr(keras.applications, name)(weights=None, **kwargs)
    model = getattr(applications, name)(weights=None, **kwargs)
    assert _layer_names(model) == _layer_names(keras_model)
    assert [tuple(w.shape) for w in model.weights] == [tuple(w.shape) for w in keras_model.weights]
    assert model.count_params() == sum(int(np.prod(w.shape)) for w in keras_model.weights)
    assert tuple(model.output.shape) == tuple(keras_model.output.shape)


def test_mobilenet_v3_uses_the_given_input_tensor(placeholder_initial_values):
    kwargs = dict(weights=None, include_top=False, alpha=0.25, pooling="avg")
    with keras.StatelessScope(initialize_variables=False):
        expected = keras.applications.MobileNetV3Small(
            input_tensor=keras.Input((48, 40, 3)), **kwargs
        ).output.shape
    images = lamina.Input((48, 40, 3))
    model = applications.MobileNetV3Small(input_tensor=images, **kwargs)
    assert model.inputs[0] is images
    assert tuple(model.output.shape) == tuple(expected)


def test_inception_resnet_scale_layer_loads_without_custom_objects(tmp_path):
    # Keras's InceptionResNetV2 holds its own `CustomScaleLayer`: a `.keras` file of it,
    # Keras's or lamina's, must load without `custom_objects`.
    from keras.src.applications.inception_resnet_v2 import CustomScaleLayer

    # Keras would first initialize the variables that other tests' models left
    # uninitialized (their StatelessScope), tens of millions of values.
    global_state.set_global_attribute("uninitialized_variables", [])
    inputs = keras.Input((4,))
    model = keras.Model(inputs, CustomScaleLayer(0.5)([inputs, keras.layers.Dense(4)(inputs)]))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    with warnings.catch_warnings():
        # Keras's own h5 writer trips NumPy 2's `copy=` deprecation on JAX arrays.
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        model.save(tmp_path / "keras.keras")
    loaded = lamina.models.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    loaded.save(tmp_path / "lamina.keras")
    again = lamina.models.load_model(tmp_path / "lamina.keras")
    assert type(again.layers[-1]).__name__ == "CustomScaleLayer"
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_nasnet_refuses_what_keras_refuses(monkeypatch):
    with pytest.raises(ValueError, match="must be static"):
        applications.NASNetMobile(input_shape=(None, None, 3), include_top=False)
    with pytest.raises(ValueError, match="classes"):
        applications.NASNetLarge(classes=10)
    monkeypatch.setattr(lamina.backend, "image_data_format", lambda: "channels_first")
    with pytest.raises(ValueError, match="channels_first"):
        applications.NASNetMobile(weights=None)
    images = np.full((1, 2, 2, 3), 255.0)
    np.testing.assert_allclose(  # (both scale a float array in place, as Keras does)
        applications.nasnet.preprocess_input(images.copy()),
        keras.applications.nasnet.preprocess_input(images.copy()),
    )
