"""Convolution and pooling, engine module `nn`: `conv` and its variants, pools, `unfold`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    conv(inputs, kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        N-D convolution (1-D, 2-D or 3-D), as in Keras's `Conv` layers.

        Cross-correlation as deep-learning libraries compute it (the kernel is not
        flipped). Grouped convolution follows from the kernel: with `in_channels / groups`
        input channels per kernel, the input's channels are split into `groups` groups.

        Args:
            inputs: Tensor of rank N + 2: `(batch, *spatial, channels)` for
                `"channels_last"`, `(batch, channels, *spatial)` for `"channels_first"`.
            kernel: Tensor of shape `(*kernel_spatial, in_channels / groups,
                out_channels)`.
            strides: Int or tuple of N ints, the step of the window (default 1).
            padding: `"valid"` (no padding) or `"same"` (zero padding so the output
                has `ceil(size / stride)` positions); case-insensitive.
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.
            dilation_rate: Int or tuple of N ints, the spacing of kernel taps
                (default 1).

        Returns:
            A tensor of rank N + 2 with `out_channels` channels, in the layout of
            `data_format`.

        Example:

        >>> x = np.ones((1, 5, 1), "float32")
        >>> kernel = np.ones((3, 1, 2), "float32")
        >>> ops.convert_to_numpy(ops.conv(x, kernel))[0].tolist()
        [[3.0, 3.0], [3.0, 3.0], [3.0, 3.0]]
        >>> ops.convert_to_numpy(ops.conv(x, kernel, padding="same")).shape
        (1, 5, 2)

    depthwise_conv(inputs, kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        N-D depthwise convolution: each input channel convolved on its own.

        Every input channel gets `multiplier` filters of its own, with no mixing
        between channels (as in Keras's `DepthwiseConv` layers).

        Args:
            inputs: Tensor of rank N + 2, `(batch, *spatial, channels)` for
                `"channels_last"` or `(batch, channels, *spatial)`.
            kernel: Tensor of shape `(*kernel_spatial, in_channels, multiplier)`.
            strides: Int or tuple of N ints, the step of the window (default 1).
            padding: `"valid"` or `"same"`, case-insensitive.
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.
            dilation_rate: Int or tuple of N ints, the spacing of kernel taps
                (default 1).

        Returns:
            A tensor of rank N + 2 with `in_channels * multiplier` channels (channel
            `c * multiplier + m` is input channel `c` through filter `m`).

        Example:

        >>> x = np.stack([np.ones((4,)), 2 * np.ones((4,))], axis=-1)[None]  # (1, 4, 2)
        >>> kernel = np.ones((2, 2, 1), "float32")
        >>> ops.convert_to_numpy(ops.depthwise_conv(x, kernel))[0].tolist()
        [[2.0, 4.0], [2.0, 4.0], [2.0, 4.0]]

    separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding='valid', data_format=None, dilation_rate=1)
        Depthwise convolution followed by a pointwise (1x1) convolution.

        The depthwise step filters each channel on its own; the pointwise step mixes
        the channels (as in Keras's `SeparableConv` layers).

        Args:
            inputs: Tensor of rank N + 2, `(batch, *spatial, channels)` for
                `"channels_last"` or `(batch, channels, *spatial)`.
            depthwise_kernel: Tensor of shape `(*kernel_spatial, in_channels,
                multiplier)`.
            pointwise_kernel: Tensor of shape `(1, ..., 1, in_channels * multiplier,
                out_channels)`, with N ones.
            strides: Int or tuple of N ints, the step of the depthwise window
                (default 1).
            padding: `"valid"` or `"same"`, case-insensitive.
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.
            dilation_rate: Int or tuple of N ints, the spacing of depthwise kernel taps
                (default 1).

        Returns:
            A tensor of rank N + 2 with `out_channels` channels.

        Example:

        >>> x = np.ones((1, 4, 2), "float32")
        >>> depthwise = np.ones((2, 2, 1), "float32")
        >>> pointwise = np.ones((1, 2, 3), "float32")
        >>> ops.convert_to_numpy(ops.separable_conv(x, depthwise, pointwise))[0].tolist()
        [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]

    conv_transpose(inputs, kernel, strides=1, padding='valid', output_padding=None, data_format=None, dilation_rate=1)
        N-D transposed convolution, the gradient of `conv` for its input.

        Often called deconvolution: it maps each input position to a window of the
        output, so strides upsample. Without `output_padding`, the output size per
        spatial axis is `size * stride + max(kernel - stride, 0)` for `"valid"` and
        `size * stride` for `"same"` (with dilation the kernel counts as
        `(kernel - 1) * dilation + 1`). With it, the size is
        `(size - 1) * stride + kernel + output_padding`, less the padding for `"same"`.

        Args:
            inputs: Tensor of rank N + 2, `(batch, *spatial, channels)` for
                `"channels_last"` or `(batch, channels, *spatial)`.
            kernel: Tensor of shape `(*kernel_spatial, out_channels, in_channels)`
                (Keras's `ConvTranspose` layout).
            strides: Int or tuple of N ints, the upsampling step (default 1).
            padding: `"valid"` or `"same"`, case-insensitive.
            output_padding: Int or tuple of N ints, extra positions on the far side of
                each output spatial axis (each below its stride); None (the default)
                for the sizes above.
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.
            dilation_rate: Int or tuple of N ints, the spacing of kernel taps
                (default 1).

        Returns:
            A tensor of rank N + 2 with `out_channels` channels.

        Example:

        >>> x = np.ones((1, 3, 1), "float32")
        >>> kernel = np.ones((2, 1, 1), "float32")
        >>> ops.convert_to_numpy(ops.conv_transpose(x, kernel, strides=2))[0, :, 0].tolist()
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
        >>> ops.convert_to_numpy(ops.conv_transpose(x, kernel))[0, :, 0].tolist()
        [1.0, 2.0, 2.0, 1.0]

    max_pool(inputs, pool_size, strides=None, padding='valid', data_format=None)
        N-D max pooling: the largest value of each window.

        Args:
            inputs: Tensor of rank N + 2, `(batch, *spatial, channels)` for
                `"channels_last"` or `(batch, channels, *spatial)`.
            pool_size: Int or tuple of N ints, the window size.
            strides: Int or tuple of N ints, the step of the window; None (the
                default) uses `pool_size`.
            padding: `"valid"` (windows inside the input only) or `"same"` (padded so
                the output has `ceil(size / stride)` positions; padding never wins the
                max).
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.

        Returns:
            The pooled tensor, rank N + 2, with the channels of `inputs`.

        Example:

        >>> x = np.array([1.0, 3.0, 2.0, 5.0, 4.0]).reshape(1, 5, 1)
        >>> ops.convert_to_numpy(ops.max_pool(x, 2))[0, :, 0].tolist()
        [3.0, 5.0]
        >>> ops.convert_to_numpy(ops.max_pool(x, 2, padding="same"))[0, :, 0].tolist()
        [3.0, 5.0, 4.0]

    average_pool(inputs, pool_size, strides=None, padding='valid', data_format=None)
        N-D average pooling: the mean of each window.

        With `"same"` padding, the padded positions are left out of the mean (each
        window is averaged over the input values it covers), as in Keras.

        Args:
            inputs: Tensor of rank N + 2, `(batch, *spatial, channels)` for
                `"channels_last"` or `(batch, channels, *spatial)`.
            pool_size: Int or tuple of N ints, the window size.
            strides: Int or tuple of N ints, the step of the window; None (the
                default) uses `pool_size`.
            padding: `"valid"` (windows inside the input only) or `"same"` (padded so
                the output has `ceil(size / stride)` positions).
            data_format: `"channels_last"` or `"channels_first"`; default
                `keras.config.image_data_format()`.

        Returns:
            The pooled tensor, rank N + 2, with the channels of `inputs`: floating
            (`keras.config.floatx()` for a float64 NumPy input, which is converted as
            every op converts it).

        Example:

        >>> x = np.array([1.0, 3.0, 2.0, 6.0, 4.0]).reshape(1, 5, 1)
        >>> ops.convert_to_numpy(ops.average_pool(x, 2))[0, :, 0].tolist()
        [2.0, 4.0]
        >>> ops.convert_to_numpy(ops.average_pool(x, 2, padding="same"))[0, :, 0].tolist()
        [2.0, 4.0, 4.0]

    unfold(x, kernel_size, dilation=1, padding=0, stride=1)
        Sliding patches of `(N, C, H, W)` images as columns `(N, C * kh * kw, L)` (im2col).

        Each patch of `kernel_size` is flattened channel-major into a column, as
        PyTorch's `unfold` does; the input is channels-first whatever
        `image_data_format` says.

        Args:
            x: A 4-D tensor `(N, C, H, W)`.
            kernel_size: Int or pair of ints `(kh, kw)`, the patch size.
            dilation: Int or pair of ints, the spacing of patch taps (default 1).
            padding: Int or pair of ints, zeros added on both sides of each spatial
                axis (default 0).
            stride: Int or pair of ints, the step between patches (default 1).

        Returns:
            A tensor `(N, C * kh * kw, L)`, `L` the number of patch positions
            (row-major over the output grid).

        Example:

        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> cols = ops.convert_to_numpy(ops.unfold(x, kernel_size=2, stride=2))
        >>> cols.shape
        (1, 4, 4)
        >>> cols[0, :, 0].tolist()
        [0.0, 1.0, 4.0, 5.0]

    fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1)
        Columns summed back into `(N, C, H, W)` images (col2im, the adjoint of `unfold`).

        Each column is a flattened patch placed at its position; where patches
        overlap their values add up, so `fold(unfold(x))` equals `x` only for
        non-overlapping patches.

        Args:
            x: A 3-D tensor `(N, C * kh * kw, L)` of columns, as `unfold` gives.
            output_size: Int or pair of ints `(H, W)`, the size of the images.
            kernel_size: Int or pair of ints `(kh, kw)`, the patch size.
            dilation: Int or pair of ints, the spacing of patch taps (default 1).
            padding: Int or pair of ints, the padding `unfold` used, cropped off
                (default 0).
            stride: Int or pair of ints, the step between patches (default 1).

        Returns:
            A tensor `(N, C, H, W)`.

        Example:

        >>> ones = ops.ones((1, 4, 4))  # 4 patches of 2 x 2 ones, overlapping
        >>> ops.convert_to_numpy(ops.fold(ones, 3, kernel_size=2))[0, 0].tolist()
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
)
