"""Image ops added to match Keras 3, each against Keras 3 on JAX (and NumPy where cheap)."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from gaps_harness import case, check, groups, rand

from lamina import ops

IMG = rand(2, 6, 6, 3, low=0.0, high=1.0)
IMG_FIRST = np.transpose(IMG, (0, 3, 1, 2)).copy()
OTHER = np.clip(IMG + rand(2, 6, 6, 3, low=-0.1, high=0.1), 0, 1)
VOLUME = rand(1, 4, 4, 4, 2)
START = np.array([[[0, 0], [5, 0], [5, 5], [0, 5]]] * 2, "float32")
END = np.array([[[1, 0], [5, 1], [4, 5], [0, 4]], [[0, 1], [4, 0], [5, 4], [1, 5]]], "float32")

IMAGE = {
    "extract_patches": (lambda o, x: o.image.extract_patches(x, 3), (IMG,), True),
    "extract_patches_strided": (
        lambda o, x: o.image.extract_patches(x, (2, 3), strides=(1, 2), padding="same"),
        (IMG,),
        False,
    ),
    "extract_patches_dilated": (
        lambda o, x: o.image.extract_patches(x, 2, strides=1, dilation_rate=2),
        (IMG,),
        False,
    ),
    "extract_patches_first": (
        lambda o, x: o.image.extract_patches(x, 2, data_format="channels_first"),
        (IMG_FIRST,),
        False,
    ),
    "extract_patches_3d": (lambda o, x: o.image.extract_patches_3d(x, 2), (VOLUME,), True),
    "rgb_to_grayscale": (lambda o, x: o.image.rgb_to_grayscale(x), (IMG,), True),
    "rgb_to_grayscale_first": (
        lambda o, x: o.image.rgb_to_grayscale(x, data_format="channels_first"),
        (IMG_FIRST,),
        False,
    ),
    "rgb_to_hsv": (lambda o, x: o.image.rgb_to_hsv(x), (IMG,), False),
    "hsv_to_rgb": (lambda o, x: o.image.hsv_to_rgb(x), (IMG,), True),
    "crop_images": (
        lambda o, x: o.image.crop_images(
            x, top_cropping=1, left_cropping=2, target_height=3, target_width=3
        ),
        (IMG,),
        True,
    ),
    "crop_images_bottom_right": (
        lambda o, x: o.image.crop_images(
            x, bottom_cropping=1, right_cropping=2, target_height=4, target_width=3
        ),
        (IMG,),
        False,
    ),
    "pad_images": (
        lambda o, x: o.image.pad_images(
            x, top_padding=1, left_padding=2, target_height=9, target_width=8
        ),
        (IMG,),
        True,
    ),
    "pad_images_first": (
        lambda o, x: o.image.pad_images(x, 1, 0, 2, 3, data_format="channels_first"),
        (IMG_FIRST,),
        False,
    ),
    # Keras 3.15 on JAX reads data_format=None as channels_first here: pass it.
    "sobel_edges": (lambda o, x: o.image.sobel_edges(x, "channels_last"), (IMG,), True),
    "gaussian_blur": (
        lambda o, x: o.image.gaussian_blur(x, (3, 5), (1.0, 2.0), "channels_last"),
        (IMG,),
        True,
    ),
    "ssim": (lambda o, x: o.image.ssim(x, OTHER, filter_size=3), (IMG,), True),
    "perspective_transform": (
        lambda o, x: o.image.perspective_transform(x, START, END),
        (IMG,),
        False,
    ),
}


# Gradients are checked for the engine primitives and the compositions whose gradient
# needs care (masked, normalized, stable forms); the rest differentiate through these.
GRADIENT_CASES = {
    "extract_patches",
    "gaussian_blur",
    "hsv_to_rgb",
    "ssim",
}


@pytest.mark.parametrize("names", groups(IMAGE))
def test_image_matches_keras(names):
    for name in names:
        with case(name):
            f, inputs, grad = IMAGE[name]
            check(
                f,
                *inputs,
                grad=grad and name in GRADIENT_CASES,
                rtol=1e-4,
                atol=1e-5,
                batch=name not in ("ssim", "perspective_transform"),
            )


def test_extract_patches_layout_against_numpy():
    got = ops.convert_to_numpy(ops.image.extract_patches(IMG, 3))
    np.testing.assert_array_equal(got[1, 1, 0], IMG[1, 3:6, 0:3, :].reshape(-1))


def test_hsv_against_colorsys_and_round_trip():
    pixels = IMG.reshape(-1, 3)
    want = np.array([colorsys.rgb_to_hsv(*p) for p in pixels], "float32")
    got = ops.convert_to_numpy(ops.image.rgb_to_hsv(IMG)).reshape(-1, 3)
    np.testing.assert_allclose(got, want, atol=1e-5)
    back = ops.convert_to_numpy(ops.image.hsv_to_rgb(ops.image.rgb_to_hsv(IMG)))
    np.testing.assert_allclose(back, IMG, atol=1e-5)


def test_clear_errors():
    with pytest.raises(ValueError, match="give exactly two of"):
        ops.image.crop_images(IMG, top_cropping=1)
    with pytest.raises(TypeError, match="expected float images"):
        ops.image.rgb_to_hsv(np.zeros((2, 2, 3), "uint8"))
    with pytest.raises(ValueError, match=r"must be 4 \(x, y\) points"):
        ops.image.perspective_transform(IMG, START[:, :3], END[:, :3])
