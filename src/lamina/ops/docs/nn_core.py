"""Full docstrings of contract ops (see `lamina.ops.docs`): `nn` and `core`.

Each entry is the docstring of the public op built from that contract function: a
summary, the arguments in signature order, what comes back and an example that prints
the same text on every engine.
"""

_ACTIVATION_ARG = "x: Input tensor of any shape."

DOCS: dict[str, dict[str, str]] = {
    "nn": {
        "relu": f"""Rectified linear unit: `max(x, 0)`, elementwise.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x`: `x` where positive, else 0.

        Example:

        >>> ops.convert_to_numpy(ops.relu(np.array([-2.0, 0.0, 3.0]))).tolist()
        [0.0, 0.0, 3.0]
        """,
        "relu6": f"""ReLU capped at 6: `min(max(x, 0), 6)`, elementwise.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with values in `[0, 6]`.

        Example:

        >>> ops.convert_to_numpy(ops.relu6(np.array([-1.0, 3.0, 9.0]))).tolist()
        [0.0, 3.0, 6.0]
        """,
        "sigmoid": f"""Logistic sigmoid: `1 / (1 + exp(-x))`, elementwise.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with values in `(0, 1)` (exactly 0 or 1 only
            where the float type runs out of precision).

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.sigmoid(np.array([-1.0, 0.0, 1.0]))), 4))
        [0.2689 0.5    0.7311]
        """,
        "hard_sigmoid": f"""Piecewise-linear sigmoid: `clip(x / 6 + 0.5, 0, 1)`, elementwise.

        A cheap stand-in for `sigmoid`: 0 below -3, 1 above 3, a straight line between
        (the same as `relu6(x + 3) / 6`).

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with values in `[0, 1]`.

        Example:

        >>> ops.convert_to_numpy(ops.hard_sigmoid(np.array([-4.0, 0.0, 1.5, 4.0]))).tolist()
        [0.0, 0.5, 0.75, 1.0]
        """,
        "hard_silu": f"""Hard SiLU: `x * hard_sigmoid(x)`, elementwise.

        The piecewise version of `silu`: 0 below -3, `x` above 3 and
        `x * (x + 3) / 6` between. Keras also calls it `hard_swish`.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.hard_silu(np.array([-4.0, 0.0, 3.0, 5.0]))).tolist()
        [-0.0, 0.0, 3.0, 5.0]
        """,
        "softplus": f"""Softplus: `log(1 + exp(x))`, elementwise and computed stably.

        A smooth ReLU: close to 0 for very negative `x` and to `x` for large `x`,
        without overflow.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with positive values.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.softplus(np.array([-1.0, 0.0, 1.0]))), 4))
        [0.3133 0.6931 1.3133]
        """,
        "softsign": f"""Softsign: `x / (1 + abs(x))`, elementwise.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with values in `(-1, 1)`.

        Example:

        >>> ops.convert_to_numpy(ops.softsign(np.array([-3.0, 0.0, 1.0]))).tolist()
        [-0.75, 0.0, 0.5]
        """,
        "silu": f"""Sigmoid linear unit (also called swish): `x * sigmoid(x)`, elementwise.

        Keras also exposes it as `swish`.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.silu(np.array([-1.0, 0.0, 1.0]))), 4))
        [-0.2689  0.      0.7311]
        """,
        "log_sigmoid": f"""Log of the logistic sigmoid: `log(sigmoid(x))`, computed stably.

        Equal to `-softplus(-x)`; it stays finite for very negative `x`, where
        `log(sigmoid(x))` computed directly would be `log(0)`.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x` with values at most 0.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.log_sigmoid(np.array([-100.0, 0.0]))), 4))
        [-100.       -0.6931]
        """,
        "leaky_relu": f"""Leaky ReLU: `x` where positive, else `negative_slope * x`.

        Args:
            {_ACTIVATION_ARG}
            negative_slope: The slope used for negative inputs (default 0.2, as in Keras).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.leaky_relu(np.array([-2.0, 3.0]))).tolist()
        [-0.4000000059604645, 3.0]
        >>> ops.convert_to_numpy(ops.leaky_relu(np.array([-2.0, 3.0]), 0.5)).tolist()
        [-1.0, 3.0]
        """,
        "elu": f"""Exponential linear unit: `x` where positive, else `alpha * (exp(x) - 1)`.

        Args:
            {_ACTIVATION_ARG}
            alpha: The scale of the negative part, which tends to `-alpha` as `x`
                goes to minus infinity (default 1.0).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.elu(np.array([-1.0, 0.0, 2.0]))), 4))
        [-0.6321  0.      2.    ]
        """,
        "selu": f"""Scaled exponential linear unit, the self-normalizing activation.

        `scale * x` where positive, else `scale * alpha * (exp(x) - 1)`, with the fixed
        constants `alpha = 1.67326324` and `scale = 1.05070098` (Klambauer et al.,
        2017). With LeCun-normal initialization it keeps activations near mean 0 and
        variance 1.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.selu(np.array([-1.0, 0.0, 1.0]))), 4))
        [-1.1113  0.      1.0507]
        """,
        "gelu": f"""Gaussian error linear unit: `x * Phi(x)`, `Phi` the standard normal CDF.

        Uses the tanh approximation
        `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3)))` by default,
        as Keras does; `approximate=False` computes the exact `0.5 * x * (1 + erf(x /
        sqrt(2)))`.

        Args:
            {_ACTIVATION_ARG}
            approximate: Whether to use the tanh approximation (default True).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> print(np.round(ops.convert_to_numpy(ops.gelu(x, approximate=False)), 4))
        [-0.1587  0.      0.8413]
        """,
        "mish": f"""Mish activation: `x * tanh(softplus(x))`, elementwise.

        Args:
            {_ACTIVATION_ARG}

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.mish(np.array([-1.0, 0.0, 1.0]))), 4))
        [-0.3034  0.      0.8651]
        """,
        "softmax": """Softmax: `exp(x)` normalized to sum to 1 along `axis`.

        Computed stably (the maximum along `axis` is subtracted first).

        Args:
            x: Input tensor of scores (logits).
            axis: The axis (or tuple of axes) to normalize over (default -1, the last).

        Returns:
            A tensor of the shape of `x` with values in `[0, 1]` summing to 1 along
            `axis`.

        Example:

        >>> y = ops.softmax(np.array([[1.0, 1.0], [0.0, np.log(3.0)]]))
        >>> print(np.round(ops.convert_to_numpy(y), 4))
        [[0.5  0.5 ]
         [0.25 0.75]]
        """,
        "log_softmax": """Log-softmax: `log(softmax(x))` along `axis`, computed stably.

        Equal to `x - logsumexp(x, axis, keepdims=True)`; use it (or losses with
        `from_logits=True`) rather than taking the log of a softmax, which can be
        `log(0)`.

        Args:
            x: Input tensor of scores (logits).
            axis: The axis to normalize over (default -1, the last).

        Returns:
            A tensor of the shape of `x` whose exponentials sum to 1 along `axis`.

        Example:

        >>> y = ops.log_softmax(np.array([0.0, np.log(3.0)]))
        >>> print(np.round(np.exp(ops.convert_to_numpy(y)), 4))
        [0.25 0.75]
        """,
        "one_hot": """One-hot encoding of integer `x` with `num_classes` classes on `axis`.

        A label outside `[0, num_classes)` (a negative one included) gives a row of
        zeros.

        Args:
            x: Integer tensor of class indices, any shape.
            num_classes: The number of classes, the length of the new axis.
            axis: Where the new class axis goes in the result (default -1, last).
            dtype: The result's dtype (default: `keras.config.floatx()`, usually
                `"float32"`).
            sparse: Accepted for Keras compatibility: lamina has no sparse tensors, so
                `True` raises a `ValueError`.

        Returns:
            A tensor of shape `x.shape` with an axis of length `num_classes` inserted
            at `axis`, 1 at each label's class and 0 elsewhere.

        Example:

        >>> ops.convert_to_numpy(ops.one_hot(np.array([0, 2, 5]), 3)).tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
        """,
        "sparse_categorical_crossentropy": """Cross-entropy of integer labels against class scores.

        For each sample, `-log(p[target])` where `p` is `output` normalized along
        `axis`. Probabilities (`from_logits=False`) are first divided by their sum and
        clipped to `[epsilon, 1 - epsilon]` (`keras.config.epsilon()`); logits go
        through a stable log-softmax. A label outside `[0, num_classes)` gives a loss
        of 0.

        Args:
            target: Integer class labels, shape `output.shape` without `axis`.
            output: Class scores: probabilities, or logits when `from_logits`.
            from_logits: Whether `output` holds logits rather than probabilities
                (default False).
            axis: The class axis of `output` (default -1, the last).

        Returns:
            The per-sample losses, a float tensor of the shape of `target`.

        Example:

        >>> target = np.array([0, 1])
        >>> output = np.array([[0.5, 0.5], [0.25, 0.75]])
        >>> y = ops.sparse_categorical_crossentropy(target, output)
        >>> print(np.round(ops.convert_to_numpy(y), 4))
        [0.6931 0.2877]
        """,
        "moments": """Mean and variance of `x` over `axes`.

        The variance is the biased (population) one, `mean(square(x - mean))`.

        Args:
            x: Input tensor.
            axes: The axis or list of axes to reduce over.
            keepdims: Whether to keep the reduced axes with length 1 (default False).
            synchronized: Accepted for Keras compatibility (Keras averages across
                replicas of a distributed step); lamina computes the same statistics
                either way, also under a distribution.

        Returns:
            A tuple `(mean, variance)` of tensors of the reduced shape.

        Example:

        >>> mean, variance = ops.moments(np.array([1.0, 2.0, 3.0, 4.0]), axes=[0])
        >>> float(ops.convert_to_numpy(mean)), float(ops.convert_to_numpy(variance))
        (2.5, 1.25)
        """,
        "conv": """N-D convolution (1-D, 2-D or 3-D), as in Keras's `Conv` layers.

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
        """,
        "depthwise_conv": """N-D depthwise convolution: each input channel convolved on its own.

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
        """,
        "separable_conv": """Depthwise convolution followed by a pointwise (1x1) convolution.

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
        """,
        "conv_transpose": """N-D transposed convolution, the gradient of `conv` for its input.

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
        """,
        "max_pool": """N-D max pooling: the largest value of each window.

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
        """,
        "average_pool": """N-D average pooling: the mean of each window.

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
        """,
        "unfold": """Sliding patches of `(N, C, H, W)` images as columns (im2col).

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
        """,
        "fold": """Columns summed back into `(N, C, H, W)` images (col2im, the adjoint of `unfold`).

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
        """,
        "polar": """The complex numbers with magnitude `abs_` and phase `angle`.

        `abs_ * (cos(angle) + 1j * sin(angle))`, elementwise with broadcasting.

        Args:
            abs_: The magnitudes (real tensor).
            angle: The phases in radians (real tensor).

        Returns:
            A complex tensor of the broadcast shape (`complex64` for float32 input).

        Example:

        >>> z = ops.convert_to_numpy(ops.polar(np.array([2.0]), np.array([np.pi / 2])))
        >>> z.dtype, np.round(z.imag, 4).tolist()
        (dtype('complex64'), [2.0])
        """,
    },
    "core": {
        "cast": """Cast a tensor to another dtype.

        Floats cast to integers truncate toward zero; values outside the target
        range are not clipped (use `saturate_cast` for that).

        Args:
            x: Tensor or array-like.
            dtype: The target dtype, as a string such as `"int32"` or a dtype object.

        Returns:
            A tensor of the values of `x` in `dtype`.

        Example:

        >>> y = ops.cast(np.array([1.7, -1.7]), "int32")
        >>> ops.dtype(y), ops.convert_to_numpy(y).tolist()
        ('int32', [1, -1])
        """,
        "stop_gradient": """`variable` unchanged, with no gradient flowing back through it.

        In the forward pass it is the identity; differentiation treats its result as
        a constant.

        Args:
            variable: Tensor (or Variable) to block gradients for.

        Returns:
            A tensor with the value of `variable`.

        Example:

        >>> ops.convert_to_numpy(ops.stop_gradient(np.array([1.0, 2.0]))).tolist()
        [1.0, 2.0]
        """,
        "slice": """The block of `inputs` of size `shape` starting at `start_indices`.

        A dynamic slice: the start may be a tensor (computed inside a compiled
        function), the size must be static.

        Args:
            inputs: Tensor to slice.
            start_indices: One start index per axis (list, tuple or int tensor).
            shape: The size of the block along each axis.

        Returns:
            A tensor of shape `shape`.

        Example:

        >>> x = np.arange(12).reshape(3, 4)
        >>> ops.convert_to_numpy(ops.slice(x, (1, 1), (2, 2))).tolist()
        [[5, 6], [9, 10]]
        """,
        "slice_update": """`inputs` with the block at `start_indices` replaced by `updates`.

        Args:
            inputs: Tensor to update (it is not changed; a new tensor comes back).
            start_indices: One start index per axis (list, tuple or int tensor).
            updates: The new block; its rank is that of `inputs`, its shape the block's
                size.

        Returns:
            A tensor of the shape and dtype of `inputs`.

        Example:

        >>> x = np.zeros((3, 3), "int32")
        >>> ops.convert_to_numpy(ops.slice_update(x, (1, 1), np.ones((2, 2), "int32"))).tolist()
        [[0, 0, 0], [0, 1, 1], [0, 1, 1]]
        """,
        "unstack": """The list of slices of `x` along `axis` (the inverse of `stack`).

        Args:
            x: Tensor to split.
            num: Accepted for Keras compatibility (the number of slices, which lamina
                reads from the shape of `x`).
            axis: The axis to unstack along (default 0).

        Returns:
            A list of `x.shape[axis]` tensors, each with `axis` removed.

        Example:

        >>> parts = ops.unstack(np.array([[1, 2], [3, 4]]), axis=1)
        >>> [ops.convert_to_numpy(p).tolist() for p in parts]
        [[1, 3], [2, 4]]
        """,
        "vectorized_map": """`function` mapped over the leading axis of `elements`, vectorized.

        Like `map`, with the same results: on JAX the per-slice calls are batched
        into one computation (`jax.vmap`), which is fast and holds all slices at
        once; the torch engine runs them as a loop.

        Args:
            function: Callable taking one slice of `elements` (a structure of
                tensors when `elements` is a structure).
            elements: Tensor or nested structure of tensors sharing their leading axis.

        Returns:
            The results of `function`, stacked along a new leading axis.

        Example:

        >>> y = ops.vectorized_map(lambda row: ops.sum(row), np.array([[1, 2], [3, 4]]))
        >>> ops.convert_to_numpy(y).tolist()
        [3, 7]
        """,
        "associative_scan": """Inclusive scan of `elems` along `axis` with associative `f(a, b)`.

        Computes `[x0, f(x0, x1), f(f(x0, x1), x2), ...]` in parallel steps, so `f`
        must be associative (`f(f(a, b), c) == f(a, f(b, c))`); `cumsum` is the scan
        of `add`. `f` is called on whole slices, so it must work elementwise.

        Args:
            f: Associative function of two arguments of the structure of `elems`.
            elems: Tensor or nested structure of tensors, all of the same length on
                `axis`.
            reverse: Whether to scan from the end (default False).
            axis: The axis to scan along (default 0).

        Returns:
            The scanned values, of the structure and shapes of `elems`.

        Example:

        >>> y = ops.associative_scan(lambda a, b: a + b, np.array([1, 2, 3, 4]))
        >>> ops.convert_to_numpy(y).tolist()
        [1, 3, 6, 10]
        """,
        "jvp": """The forward-mode Jacobian-vector product: `(fun(*primals), J @ tangents)`.

        Args:
            fun: Function of the primals returning a tensor or structure of tensors
                (with `has_aux`, a pair `(output, aux)`).
            primals: Tuple or list of the points to evaluate at, one per argument of
                `fun`.
            tangents: Tuple or list of tangent vectors, one per primal, of the same
                shapes.
            has_aux: Whether `fun` returns `(output, aux)`, `aux` passed through
                without differentiation (default False).

        Returns:
            `(primals_out, tangents_out)`, or `(primals_out, tangents_out, aux)` with
            `has_aux`.

        Example:

        >>> value, tangent = ops.jvp(lambda x: x * x, (np.array(3.0),), (np.array(1.0),))
        >>> float(ops.convert_to_numpy(value)), float(ops.convert_to_numpy(tangent))
        (9.0, 6.0)
        """,
        "map": """`f` applied to each slice of `xs` along its leading axis, results stacked.

        A sequential loop over the slices (one compiled loop on JAX), so `f` is
        traced once and the memory of one slice is used at a time; see
        `vectorized_map` for the batched version.

        Args:
            f: Callable taking one slice of `xs`.
            xs: Tensor or nested structure of tensors sharing their leading axis.

        Returns:
            The results of `f`, stacked along a new leading axis.

        Example:

        >>> y = ops.map(lambda row: row * 2, np.array([[1, 2], [3, 4]]))
        >>> ops.convert_to_numpy(y).tolist()
        [[2, 4], [6, 8]]
        """,
        "scatter": """Zeros of `shape` with `values` added at `indices`.

        Each row of `indices` holds `k` indices into the first `k` axes of the result;
        values at repeated indices add up.

        Args:
            indices: Integer tensor of shape `(num_updates, k)`.
            values: Tensor of shape `(num_updates, *shape[k:])`; its dtype is the
                result's.
            shape: The shape of the result.

        Returns:
            A tensor of shape `shape`.

        Example:

        >>> y = ops.scatter(np.array([[0], [2], [0]]), np.array([1, 2, 3]), (4,))
        >>> ops.convert_to_numpy(y).tolist()
        [4, 0, 2, 0]
        """,
        "scatter_update": """`inputs` with `updates` written at `indices`.

        Each row of `indices` holds `k` indices into the first `k` axes of `inputs`.
        With a `reduction`, the update is combined with the value already there
        instead of replacing it.

        Args:
            inputs: Tensor to update (it is not changed; a new tensor comes back).
            indices: Integer tensor of shape `(num_updates, k)`.
            updates: Tensor of shape `(num_updates, *inputs.shape[k:])`.
            reduction: None (the default) to overwrite, or `"add"`, `"max"`, `"min"` or
                `"mul"` to combine.

        Returns:
            A tensor of the shape and dtype of `inputs`.

        Example:

        >>> x = np.array([1, 1, 1, 1])
        >>> y = ops.scatter_update(x, np.array([[1], [3]]), np.array([5, 7]))
        >>> ops.convert_to_numpy(y).tolist()
        [1, 5, 1, 7]
        >>> y = ops.scatter_update(x, np.array([[1], [1]]), np.array([5, 7]), reduction="add")
        >>> ops.convert_to_numpy(y).tolist()
        [1, 13, 1, 1]
        """,
        "switch": """`branches[index](*operands)`: run one of several functions chosen by `index`.

        Compiled, it is one conditional whose branches all trace; so every branch
        must return the same structure, shapes and dtypes. An `index` out of range is
        clamped to the first or last branch.

        Args:
            index: Integer scalar (or scalar tensor) choosing the branch.
            branches: Sequence of callables, each taking `*operands`.
            *operands: The arguments passed to the chosen branch.

        Returns:
            The result of the chosen branch.

        Example:

        >>> branches = [lambda x: x + 1, lambda x: x * 10]
        >>> float(ops.convert_to_numpy(ops.switch(1, branches, 2.0)))
        20.0
        >>> float(ops.convert_to_numpy(ops.switch(7, branches, 2.0)))
        20.0
        """,
    },
}
