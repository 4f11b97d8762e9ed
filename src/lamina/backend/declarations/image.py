"""Image resampling, engine module `image`: resizing, affine warps, interpolation.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    resize(images, size, interpolation='bilinear', antialias=False, crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode='constant', fill_value=0.0, data_format=None)
        `images` resized to `size` (optionally cropped or padded to its aspect ratio first).

        Pixel centres sit at half-integer positions (as in TensorFlow 2 and
        `jax.image.resize`). Integer images are resized as floats and returned as
        floats.

        Args:
            images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
                `data_format="channels_first"`).
            size: The output size `(height, width)`.
            interpolation: `"bilinear"` (default), `"nearest"`, `"bicubic"`,
                `"lanczos3"` or `"lanczos5"`.
            antialias: Whether to widen the filter when downsampling, to avoid
                aliasing.
            crop_to_aspect_ratio: Whether to first take the largest centred crop with
                the aspect ratio of `size` (no distortion, edges lost).
            pad_to_aspect_ratio: Whether to first pad evenly to the aspect ratio of
                `size` (no distortion, nothing lost).
            fill_mode: How `pad_to_aspect_ratio` fills; only `"constant"`.
            fill_value: The value of that padding.
            data_format: `"channels_last"` or `"channels_first"` (default: the
                configured image data format).

        Returns:
            The resized images, with `size` as the spatial axes.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 2, 2, 1)
        >>> y = ops.image.resize(x, (4, 4), interpolation="nearest")
        >>> ops.convert_to_numpy(y)[0, :, :, 0].tolist()
        [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0], [3.0, 3.0, 4.0, 4.0]]

    affine_transform(images, transform, interpolation='bilinear', fill_mode='constant', fill_value=0, data_format=None)
        `images` resampled through projective `transform`s (8 numbers each).

        A transform `[a0, a1, a2, b0, b1, b2, c0, c1]` maps each output pixel `(x, y)`
        (column, row) to the input position
        `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with `k = c0 x + c1 y + 1`;
        the output pixel takes the input's value there. So the transform maps output to
        input: `[1, 0, -1, 0, 1, 0, 0, 0]` shifts the image one pixel to the right.

        Args:
            images: One image `(H, W, C)` or a batch `(N, H, W, C)` (channels first with
                `data_format="channels_first"`).
            transform: One transform `(8,)` for every image, or one per image `(N, 8)`.
            interpolation: `"bilinear"` (default) or `"nearest"`.
            fill_mode: How positions outside the input are filled: `"constant"`
                (default, with `fill_value`), `"nearest"`, `"wrap"`, `"mirror"` or
                `"reflect"`.
            fill_value: The value outside the input with `fill_mode="constant"`.
            data_format: `"channels_last"` or `"channels_first"` (default: the
                configured image data format).

        Returns:
            The transformed images, of the shape and dtype of `images`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.arange(1.0, 5.0).reshape(1, 1, 4, 1)
        >>> y = ops.image.affine_transform(x, np.array([1.0, 0, -1, 0, 1, 0, 0, 0]))
        >>> ops.convert_to_numpy(y)[0, 0, :, 0].tolist()
        [0.0, 1.0, 2.0, 3.0]

    map_coordinates(inputs, coordinates, order, fill_mode='constant', fill_value=0)
        `inputs` interpolated (order 0: nearest, 1: linear) at `coordinates`.

        As `scipy.ndimage.map_coordinates`: output element `j` is `inputs` read at
        position `(coordinates[0][j], coordinates[1][j], ...)`.

        Args:
            inputs: The tensor to sample, of any rank `r`.
            coordinates: Positions, shape `(r, ...)` (or a sequence of `r` arrays of one
                shape): `coordinates[i]` holds the positions along axis `i`.
            order: The interpolation: `0` (nearest element, halves rounded away from
                zero) or `1` (linear).
            fill_mode: How positions outside `inputs` are filled: `"constant"` (default,
                with `fill_value`), `"nearest"`, `"wrap"`, `"mirror"` or `"reflect"`.
            fill_value: The value outside `inputs` with `fill_mode="constant"`.

        Returns:
            The sampled values, of the shape of `coordinates[0]` and the dtype of
            `inputs`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([[0.0, 1.0], [2.0, 3.0]])
        >>> coordinates = np.array([[0.5, 1.0, 3.0], [0.5, 0.0, 0.0]])
        >>> ops.convert_to_numpy(ops.image.map_coordinates(x, coordinates, order=1)).tolist()
        [1.5, 2.0, 0.0]

    scale_and_translate(images, output_shape, scale, translation, spatial_dims, method, antialias=True)
        `images` resampled to `output_shape` through a per-axis scale and translation.

        As `jax.image.scale_and_translate`: along each axis of `spatial_dims`, input
        position `x` (pixel centres at half-integers) lands on output position
        `x * scale + translation`; output samples that fall outside the input are 0.

        Args:
            images: The tensor to resample, of any rank.
            output_shape: The shape of the result, one size per axis of `images`.
            scale: One scale per axis of `spatial_dims`.
            translation: One translation per axis of `spatial_dims`.
            spatial_dims: The axes to resample (the others keep their size).
            method: The interpolation kernel: `"linear"` (also `"bilinear"`,
                `"trilinear"`, `"triangle"`), `"cubic"` (`"bicubic"`, `"tricubic"`),
                `"lanczos3"` or `"lanczos5"`.
            antialias: Whether to widen the kernel when downsampling (`scale < 1`).

        Returns:
            The resampled tensor, of shape `output_shape`.

        Example:

        >>> import numpy as np
        >>> from lamina import ops
        >>> x = np.array([1.0, 3.0])
        >>> scale, translation = np.array([2.0]), np.array([0.0])
        >>> y = ops.image.scale_and_translate(x, (4,), scale, translation, (0,), "linear")
        >>> ops.convert_to_numpy(y).tolist()
        [1.0, 1.5, 2.5, 3.0]
    """
)
