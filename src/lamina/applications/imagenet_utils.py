"""What every ImageNet application shares: input checks, pretrained weights, pre/post-processing.

`preprocess_input` and `decode_predictions` follow `keras.applications.imagenet_utils`:
the three preprocessing modes (`"caffe"`, `"tf"`, `"torch"`) and the class-index file
`imagenet_class_index.json`, fetched with `lamina.utils.get_file` into the `models`
cache folder (Keras's own cache, so a file Keras downloaded is reused).

The private helpers below are the building blocks the model functions use: checking
`weights`/`classes`/`input_shape` as Keras does, making the input tensor, the global
pooling of a headless model, and loading weights (Keras's ImageNet file through the
cache, or a local file path).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np

from lamina import activations, backend, layers, ops
from lamina.graph.keras_tensor import is_keras_tensor
from lamina.utils import get_file, get_source_inputs

CLASS_INDEX = None
CLASS_INDEX_PATH = (
    "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
)
CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"

_MEANS = {"caffe": (103.939, 116.779, 123.68), "torch": (0.485, 0.456, 0.406)}
_STDS = {"torch": (0.229, 0.224, 0.225)}


def preprocess_input(x, data_format=None, mode="caffe"):
    """Scale a batch of images (values in [0, 255]) as an ImageNet model expects.

    Args:
        x: A float NumPy array or a tensor, 3D (one image) or 4D (a batch), with 3
            colour channels. A float NumPy array is changed in place, as in Keras;
            pass `np.copy(x)` to keep the original.
        data_format: `"channels_last"` or `"channels_first"`; `None` reads
            `lamina.backend.image_data_format()`.
        mode: `"caffe"` (RGB to BGR, then subtract the ImageNet channel means, no
            scaling), `"tf"` (scale to [-1, 1]) or `"torch"` (scale to [0, 1], then
            normalize each channel by the ImageNet mean and standard deviation).

    Returns:
        The preprocessed array or tensor (float).

    >>> import numpy as np
    >>> preprocess_input(np.full((1, 1, 1, 3), 255.0), mode="tf").ravel().tolist()
    [1.0, 1.0, 1.0]
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(
            f"preprocess_input: `mode` must be 'caffe', 'tf' or 'torch'. Received: mode={mode!r}"
        )
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "preprocess_input: `data_format` must be 'channels_first' or 'channels_last'. "
            f"Received: data_format={data_format!r}"
        )
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _channel_shape(ndim, data_format):
    """The shape a per-channel constant takes to broadcast over an image batch."""
    if data_format == "channels_first":
        return (3,) + (1,) * (ndim - 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    return (1,) * (ndim - 1) + (3,)


def _preprocess_numpy(x, data_format, mode):
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
    else:
        channel_axis = (0 if x.ndim == 3 else 1) if data_format == "channels_first" else -1
        x = np.flip(x, axis=channel_axis)
    shape = _channel_shape(x.ndim, data_format)
    x -= np.asarray(_MEANS[mode], x.dtype).reshape(shape)
    if mode in _STDS:
        x /= np.asarray(_STDS[mode], x.dtype).reshape(shape)
    return x


def _preprocess_tensor(x, data_format, mode):
    x = ops.convert_to_tensor(x) if not is_keras_tensor(x) else x
    if mode == "tf":
        return x / 127.5 - 1.0
    ndim = len(x.shape)
    if mode == "torch":
        x = x / 255.0
    else:
        channel_axis = (0 if ndim == 3 else 1) if data_format == "channels_first" else -1
        x = ops.flip(x, axis=channel_axis)
    shape = _channel_shape(ndim, data_format)
    x = x - ops.reshape(ops.convert_to_tensor(np.asarray(_MEANS[mode]), dtype=x.dtype), shape)
    if mode in _STDS:
        x = x / ops.reshape(ops.convert_to_tensor(np.asarray(_STDS[mode]), dtype=x.dtype), shape)
    return x


def decode_predictions(preds, top=5):
    """Turn a batch of ImageNet class scores into `(class_id, name, score)` lists.

    The class names come from Keras's `imagenet_class_index.json`, read from the
    `models` cache folder (downloaded into it with `lamina.utils.get_file` when
    missing, as Keras does).

    Args:
        preds: Array or tensor of shape `(samples, 1000)`.
        top: How many of the best classes to return per sample.

    Returns:
        A list with one list per sample of `(class_id, class_name, score)` tuples,
        best first.
    """
    global CLASS_INDEX
    shape = tuple(preds.shape)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError(
            "decode_predictions expects a batch of ImageNet predictions, an array of shape "
            f"(samples, 1000). Received an array with shape {shape}."
        )
    if CLASS_INDEX is None:
        path = get_file(
            "imagenet_class_index.json",
            CLASS_INDEX_PATH,
            cache_subdir="models",
            file_hash=CLASS_INDEX_HASH,
        )
        with open(path) as f:
            CLASS_INDEX = json.load(f)
    preds = np.asarray(ops.convert_to_numpy(preds))
    results = []
    for pred in preds:
        best = np.argsort(pred, kind="stable")[-top:][::-1]
        results.append([tuple(CLASS_INDEX[str(i)]) + (pred[i],) for i in best])
    return results


# ----------------------------------------------------------------------------- helpers


def check_weights_and_classes(weights, include_top, classes):
    """Refuse a `weights`/`classes` pair that Keras refuses, with the fix in the message."""
    if not (
        weights in ("imagenet", None) or (isinstance(weights, str) and os.path.exists(weights))
    ):
        raise ValueError(
            "The `weights` argument should be None (random initialization), 'imagenet' "
            "(pre-training on ImageNet) or the path to an existing weights file. "
            f"Received: weights={weights!r}"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            "With weights='imagenet' and include_top=True, `classes` must be 1000 (the "
            f"ImageNet classes). Received: classes={classes}. Pass weights=None to train a "
            "new head, or include_top=False and add your own."
        )


def validate_activation(classifier_activation, weights):
    """Pretrained heads allow only a softmax or no activation, as in Keras."""
    if weights is None:
        return
    fn = activations.get(classifier_activation)
    if fn not in (activations.get("softmax"), activations.get(None)):
        raise ValueError(
            "With pretrained weights and include_top=True, `classifier_activation` must be "
            f"None or 'softmax'. Received: classifier_activation={classifier_activation!r}"
        )


def obtain_input_shape(
    input_shape, default_size, min_size, data_format, require_flatten, weights=None
):
    """The model's input shape from the user's `input_shape`, checked as Keras checks it."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn(
                "This model usually expects 1 or 3 input channels; it was given an "
                f"input_shape with {channels} channels.",
                stacklevel=3,
            )
        default_shape = (
            (channels, default_size, default_size)
            if channels_first
            else (default_size, default_size, channels)
        )
    else:
        default_shape = (
            (3, default_size, default_size) if channels_first else (default_size, default_size, 3)
        )
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError(
                "With include_top=True and weights='imagenet', `input_shape` must be "
                f"{default_shape}. Received: input_shape={input_shape}. Use include_top=False "
                "for other sizes."
            )
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(
                f"`input_shape` must be a tuple of three integers. Received: input_shape={input_shape}"
            )
        channels = input_shape[0] if channels_first else input_shape[-1]
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError(
                f"ImageNet weights need 3 input channels. Received: input_shape={input_shape}"
            )
        if any(s is not None and s < min_size for s in spatial):
            raise ValueError(
                f"Input size must be at least {min_size}x{min_size}. "
                f"Received: input_shape={input_shape}"
            )
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            "With include_top=True the input size must be fixed: give a static "
            f"`input_shape`. Received: input_shape={input_shape}"
        )
    return input_shape


def make_input(input_tensor, input_shape):
    """The image input: a new `Input`, or the caller's `input_tensor`."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if is_keras_tensor(input_tensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def model_inputs(input_tensor, img_input):
    """The model's inputs: the graph's source inputs when the caller gave a tensor."""
    if input_tensor is not None:
        return get_source_inputs(input_tensor)
    return img_input


def channel_axis():
    """The channel axis of a 4D image batch under the current data format."""
    return 1 if backend.image_data_format() == "channels_first" else -1


def spatial_shape(x):
    """The (rows, columns) of a 4D image tensor under the current data format."""
    shape = tuple(x.shape)
    return shape[2:4] if backend.image_data_format() == "channels_first" else shape[1:3]


def correct_pad(inputs, kernel_size):
    """Zero padding that makes a stride-2 "valid" convolution match TF's "same"."""
    size = spatial_shape(inputs)
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def make_divisible(value, divisor=8, min_value=None):
    """Round a channel count to a multiple of `divisor`, never more than 10% below it.

    The rounding of the MobileNet papers' reference code, which every MobileNet's
    filter counts (and so its weight shapes) depend on.
    """
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def square_size(input_shape, input_tensor, sizes, default=224):
    """The input's side when square and in `sizes` (sizes with weight files), else `default`.

    Read from `input_shape`, else from a symbolic `input_tensor`: the default size
    `obtain_input_shape` is given by the families with weights for several sizes.
    """
    if input_shape is not None:
        shape = tuple(input_shape)
    elif input_tensor is not None and is_keras_tensor(input_tensor):
        shape = tuple(input_tensor.shape[1:])
    else:
        return default
    if len(shape) != 3:
        return default
    rows, cols = shape[1:] if backend.image_data_format() == "channels_first" else shape[:2]
    return rows if rows == cols and rows in sizes else default


def pretrained_size(rows, cols, sizes, model_name, default=224):
    """The input size whose ImageNet weights load: `rows`, or `default` with a warning."""
    if rows == cols and rows in sizes:
        return rows
    warnings.warn(
        f"{model_name}: `input_shape` is undefined, not square, or not one of {tuple(sizes)}; "
        f"the ImageNet weights for {default}x{default} inputs are loaded.",
        stacklevel=3,
    )
    return default


def top_or_pooling(x, include_top, pooling, classes, classifier_activation, weights, pool_names):
    """The classifier head, or the optional global pooling of a headless model.

    `pool_names` is `(avg_name, max_name)`; `None` entries leave Keras's automatic
    names, as the families that do not name their pooling layers.
    """
    avg_name, max_name = pool_names
    if include_top:
        x = layers.GlobalAveragePooling2D(name=avg_name)(x)
        validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    if pooling is not None:
        raise ValueError(f"`pooling` must be None, 'avg' or 'max'. Received: pooling={pooling!r}")
    return x


def weights_path(weights, file_name=None, origin=None, file_hash=None, model_name="model"):
    """The weights file to load after building: None, the given path, or Keras's file.

    Called before the model is built, so that a missing ImageNet file fails at once
    rather than after a long build. For `weights="imagenet"` the file `file_name` is
    looked up in the `models` cache folder (Keras's `~/.keras/models`, or
    `$KERAS_HOME/models`, so a file Keras downloaded is used) and fetched from `origin`
    when missing, checked against `file_hash` when one is known.
    """
    if weights != "imagenet":
        return weights
    try:
        return get_file(file_name, origin, cache_subdir="models", file_hash=file_hash)
    except Exception as error:  # the cause (no network, bad hash) stays chained
        raise RuntimeError(
            f"Could not get the ImageNet weights {file_name!r} for {model_name}: the file is "
            "not in the Keras cache (~/.keras/models, or $KERAS_HOME/models) and fetching it "
            f"from {origin} failed ({type(error).__name__}: {error}). Copy the file into "
            "that folder, pass weights=<path to the file>, or weights=None for random "
            "initialization."
        ) from error


def finish(model, path):
    """Load the weights file `path` (from `weights_path`) into `model`, if any."""
    if path is not None:
        model.load_weights(path)
    return model


def add_checks_example(smallest: int, *builders) -> None:
    """Append to each builder's docstring an example of the checks it makes before
    building. The example stops there: building one of these models draws millions of
    initial weights (about a second per 25 million), too slow for an example that runs
    with every test."""
    for fn in builders:
        name = fn.__name__
        fn.__doc__ = (
            fn.__doc__.rstrip()
            + f"""

    `{name}(weights=None, input_shape=({smallest}, {smallest}, 3), classes=10)` builds an
    untrained 10-class model. Its arguments are checked before anything is built or
    downloaded:

    >>> from lamina import applications
    >>> applications.{name}(weights="imagenet", classes=10)
    Traceback (most recent call last):
        ...
    ValueError: With weights='imagenet' and include_top=True, `classes` must be 1000 ...
    >>> applications.{name}(weights=None, input_shape=(16, 16, 3))
    Traceback (most recent call last):
        ...
    ValueError: ...at least {smallest}x{smallest}. Received: input_shape=(16, 16, 3)
    """
        )
