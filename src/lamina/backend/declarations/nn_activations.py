"""Activations, engine module `nn`: ReLU and its relatives, sigmoids, softmax.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    relu(x)
        Rectified linear unit: `max(x, 0)`, elementwise.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x`: `x` where positive, else 0.

        Example:

        >>> ops.convert_to_numpy(ops.relu(np.array([-2.0, 0.0, 3.0]))).tolist()
        [0.0, 0.0, 3.0]

    relu6(x)
        ReLU capped at 6: `min(max(x, 0), 6)`, elementwise.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with values in `[0, 6]`.

        Example:

        >>> ops.convert_to_numpy(ops.relu6(np.array([-1.0, 3.0, 9.0]))).tolist()
        [0.0, 3.0, 6.0]

    sigmoid(x)
        Logistic sigmoid: `1 / (1 + exp(-x))`, elementwise.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with values in `(0, 1)` (exactly 0 or 1 only
            where the float type runs out of precision).

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.sigmoid(np.array([-1.0, 0.0, 1.0]))), 4))
        [0.2689 0.5    0.7311]

    hard_sigmoid(x)
        Piecewise-linear sigmoid: `clip(x / 6 + 0.5, 0, 1)`, elementwise.

        A cheap stand-in for `sigmoid`: 0 below -3, 1 above 3, a straight line between
        (the same as `relu6(x + 3) / 6`).

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with values in `[0, 1]`.

        Example:

        >>> ops.convert_to_numpy(ops.hard_sigmoid(np.array([-4.0, 0.0, 1.5, 4.0]))).tolist()
        [0.0, 0.5, 0.75, 1.0]

    hard_silu(x)
        Hard SiLU: `x * hard_sigmoid(x)`, elementwise.

        The piecewise version of `silu`: 0 below -3, `x` above 3 and
        `x * (x + 3) / 6` between. Keras also calls it `hard_swish`.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.hard_silu(np.array([-4.0, 0.0, 3.0, 5.0]))).tolist()
        [-0.0, 0.0, 3.0, 5.0]

    softplus(x)
        Softplus: `log(1 + exp(x))`, elementwise and computed stably.

        A smooth ReLU: close to 0 for very negative `x` and to `x` for large `x`,
        without overflow.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with positive values.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.softplus(np.array([-1.0, 0.0, 1.0]))), 4))
        [0.3133 0.6931 1.3133]

    softsign(x)
        Softsign: `x / (1 + abs(x))`, elementwise.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with values in `(-1, 1)`.

        Example:

        >>> ops.convert_to_numpy(ops.softsign(np.array([-3.0, 0.0, 1.0]))).tolist()
        [-0.75, 0.0, 0.5]

    silu(x)
        Sigmoid linear unit (also called swish): `x * sigmoid(x)`, elementwise.

        Keras also exposes it as `swish`.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.silu(np.array([-1.0, 0.0, 1.0]))), 4))
        [-0.2689  0.      0.7311]

    log_sigmoid(x)
        Log of the logistic sigmoid: `log(sigmoid(x))`, computed stably.

        Equal to `-softplus(-x)`; it stays finite for very negative `x`, where
        `log(sigmoid(x))` computed directly would be `log(0)`.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x` with values at most 0.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.log_sigmoid(np.array([-100.0, 0.0]))), 4))
        [-100.       -0.6931]

    leaky_relu(x, negative_slope=0.2)
        Leaky ReLU: `x` where positive, else `negative_slope * x`.

        Args:
            x: Input tensor of any shape.
            negative_slope: The slope used for negative inputs (default 0.2, as in Keras).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> ops.convert_to_numpy(ops.leaky_relu(np.array([-2.0, 3.0]))).tolist()
        [-0.4000000059604645, 3.0]
        >>> ops.convert_to_numpy(ops.leaky_relu(np.array([-2.0, 3.0]), 0.5)).tolist()
        [-1.0, 3.0]

    elu(x, alpha=1.0)
        Exponential linear unit: `x` where positive, else `alpha * (exp(x) - 1)`.

        Args:
            x: Input tensor of any shape.
            alpha: The scale of the negative part, which tends to `-alpha` as `x`
                goes to minus infinity (default 1.0).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.elu(np.array([-1.0, 0.0, 2.0]))), 4))
        [-0.6321  0.      2.    ]

    selu(x)
        Scaled exponential linear unit, the self-normalizing activation.

        `scale * x` where positive, else `scale * alpha * (exp(x) - 1)`, with the fixed
        constants `alpha = 1.67326324` and `scale = 1.05070098` (Klambauer et al.,
        2017). With LeCun-normal initialization it keeps activations near mean 0 and
        variance 1.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.selu(np.array([-1.0, 0.0, 1.0]))), 4))
        [-1.1113  0.      1.0507]

    gelu(x, approximate=True)
        Gaussian error linear unit: `x * Phi(x)`, by default its tanh approximation.

        Uses the tanh approximation
        `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3)))` by default,
        as Keras does; `approximate=False` computes the exact `0.5 * x * (1 + erf(x /
        sqrt(2)))`.

        Args:
            x: Input tensor of any shape.
            approximate: Whether to use the tanh approximation (default True).

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> print(np.round(ops.convert_to_numpy(ops.gelu(x, approximate=False)), 4))
        [-0.1587  0.      0.8413]

    mish(x)
        Mish activation: `x * tanh(softplus(x))`, elementwise.

        Args:
            x: Input tensor of any shape.

        Returns:
            A tensor of the shape of `x`.

        Example:

        >>> print(np.round(ops.convert_to_numpy(ops.mish(np.array([-1.0, 0.0, 1.0]))), 4))
        [-0.3034  0.      0.8651]

    softmax(x, axis=-1)
        Softmax: `exp(x)` normalized to sum to 1 along `axis`.

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

    log_softmax(x, axis=-1)
        Log-softmax: `log(softmax(x))` along `axis`, computed stably.

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
    """
)
