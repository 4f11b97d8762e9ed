"""The rest of engine module `nn`: one-hot labels, their cross-entropy, moments, `polar`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    one_hot(x, num_classes, axis=-1, dtype=None, sparse=False)
        One-hot encoding of integer `x` with `num_classes` classes on `axis`.

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

    sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1)
        Per-sample cross-entropy of integer labels `target` against class scores `output`.

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

    moments(x, axes, keepdims=False, synchronized=False)
        Mean and variance of `x` over `axes`.

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

    fused_batch_norm(x, axis, scale, offset, epsilon, mean=None, variance=None)
        Batch normalization in one fused kernel, or None.

        The engine's fused kernel where it has one (torch); None where it has none (JAX,
        whose compiler fuses the composite itself): the caller then computes the
        composite. Not an op of its own: `BatchNormalization` calls it.

        `(x - mean) / sqrt(variance + epsilon) * scale + offset`. Without `mean` and
        `variance` (training), they are the batch's statistics, taken over every axis
        but `axis` (the biased variance), and the gradient flows through them, as
        through the composite's. With them (inference: the moving statistics), they are
        constants; the gradient flows to `x`, `scale` and `offset`.

        Args:
            x: A float32 tensor.
            axis: The feature axis (an int).
            scale: The factor `gamma`, a vector along `axis`, or None for 1.
            offset: The shift `beta`, a vector along `axis`, or None for 0.
            epsilon: Added to the variance.
            mean: The statistics to normalize with (vectors along `axis`), or None
                (both None) for the batch's own.
            variance: As `mean`.

        Returns:
            `(outputs, mean, variance)`, the statistics as vectors along `axis` (for the
            moving averages; not differentiated), or None.

        Example:

        >>> from lamina import backend
        >>> found = backend.nn.fused_batch_norm(np.ones((2, 3), "float32"), 1, None, None, 1e-3)
        >>> found is None or tuple(found[0].shape) == (2, 3)
        True

    fused_conv(inputs, kernel, bias, strides=1, padding="valid", data_format=None, dilation_rate=1)
        `conv` with a bias added along the channels in one fused kernel, or None.

        The engine's convolution kernel with its bias where it has one (torch: one pass
        over the output fewer, and the bias gradient from the kernel's backward); None
        where the engine has none (JAX, whose compiler fuses the addition itself) or the
        inputs and bias are not both float32 (half precision rounds the convolution's
        output before the bias is added, as the composite does): the caller then adds it.
        Not an op of its own: the convolution layers call it.

        Args:
            inputs: The inputs, as `conv` takes them.
            kernel: The kernel, as `conv` takes it.
            bias: A vector of one value per output channel.
            strides: As `conv`'s.
            padding: As `conv`'s.
            data_format: As `conv`'s.
            dilation_rate: As `conv`'s.

        Returns:
            `conv(...)` plus `bias` along the channel axis, or None.

        Example:

        >>> from lamina import backend
        >>> x, k = np.ones((1, 3, 1), "float32"), np.ones((2, 1, 2), "float32")
        >>> found = backend.nn.fused_conv(x, k, np.array([0.5, -1.0], "float32"))
        >>> found is None or backend.convert_to_numpy(found).tolist() == [[[2.5, 1.0], [2.5, 1.0]]]
        True

    polar(abs_, angle)
        The complex numbers with magnitude `abs_` and phase `angle`.

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
    """
)
