"""SpectralNormalization: divides a layer's kernel by its largest singular value.

Miyato et al. (2018), "Spectral Normalization for Generative Adversarial Networks".
The largest singular value `sigma` of the kernel (reshaped to a matrix whose columns
are the kernel's last axis) is estimated by power iteration from a persistent vector
`vector_u`; each training call runs `power_iterations` steps, then writes the updated
`vector_u` and `kernel / sigma` back into the variables, as Keras 3 does. Inference
calls use the kernel as it stands.
"""

from __future__ import annotations

from lamina import backend, initializers, ops
from lamina.common import serialization
from lamina.layers.input_spec import InputSpec
from lamina.layers.wrapper_base import Wrapper


def _l2_normalize(x):
    """`x / ||x||` over all entries, the norm floored at `epsilon` (Keras's formula)."""
    inverse_norm = ops.rsqrt(ops.sum(ops.square(x)))
    return x * ops.minimum(inverse_norm, 1.0 / backend.epsilon())


class SpectralNormalization(Wrapper):
    """Constrains the spectral norm of a layer's kernel to 1 (stabilizes GAN training).

    Wrap a layer that has a `kernel` (`Dense`, `Conv2D`, ...) or an `embeddings` table
    (`Embedding`). Training calls (`training=True`, as in `fit`) refine the estimate of
    the kernel's largest singular value `sigma` by power iteration and replace the
    kernel with `kernel / sigma` before running the layer; other calls run the layer
    unchanged. The wrapper holds the kernel (shared with the wrapped layer) and the
    non-trainable `vector_u` of shape `(1, kernel.shape[-1])`, so `.keras` files move
    between lamina and Keras.

    Args:
        layer: the layer to wrap.
        power_iterations: power-iteration steps per training call (a positive int).
        **kwargs: the base layer arguments (`name`, `trainable`, `dtype`, ...).

    Call arguments:
        inputs: the wrapped layer's input.
        training: whether to update `vector_u` and normalize the kernel first.

    Unlike Keras, whose output is cast to the input's dtype, an integer input (to a
    wrapped `Embedding`) gives the layer's float output unchanged.

    >>> import numpy as np
    >>> from lamina.layers.core import Dense
    >>> layer = SpectralNormalization(Dense(4))
    >>> layer(np.ones((2, 3)), training=True).shape
    (2, 4)
    >>> [w.name for w in layer.weights], tuple(layer.vector_u.shape)
    (['kernel', 'vector_u', 'bias'], (1, 4))
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if (
            not isinstance(power_iterations, int)
            or isinstance(power_iterations, bool)
            or power_iterations <= 0
        ):
            raise ValueError(
                "SpectralNormalization expects `power_iterations` to be a positive int; "
                f"received {power_iterations!r}."
            )
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: tuple(input_shape)[-1]})
        kernel = getattr(self.layer, "kernel", None)
        if kernel is None:
            kernel = getattr(self.layer, "embeddings", None)
        if kernel is None:
            raise ValueError(
                f"SpectralNormalization wraps a layer with a `kernel` (Dense, Conv2D, ...) "
                f"or `embeddings` (Embedding) weight; {type(self.layer).__name__} "
                f"{self.layer.name!r} has neither."
            )
        # The same variable as the wrapped layer's: Keras saves it under both.
        self.kernel = kernel
        self.kernel_shape = tuple(kernel.shape)
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            name="vector_u",
            dtype=kernel.dtype,
        )
        self.built = True

    def call(self, inputs, training=False):
        if training:
            kernel = self.kernel.value
            vector_u, sigma = self._power_iteration(kernel)
            # An all-zero kernel has no direction to estimate: both stay unchanged (as
            # Keras's `cond`). `where` rather than `cond` keeps eager calls from compiling
            # a conditional each time; dividing by 1 keeps the untaken branch finite.
            all_zero = ops.all(ops.equal(kernel, 0))
            sigma = ops.where(all_zero, ops.ones_like(sigma), sigma)
            vector_u = ops.where(all_zero, self.vector_u.value, vector_u)
            self.vector_u.assign(ops.cast(vector_u, self.vector_u.dtype))
            self.kernel.assign(ops.cast(ops.divide(kernel, sigma), self.kernel.dtype))
        output = self.layer(inputs)
        if "float" in str(inputs.dtype):
            output = ops.cast(output, inputs.dtype)
        return output

    def _power_iteration(self, kernel):
        """`(vector_u, sigma)`: the refined left vector and the singular value estimate,
        both held constant for the gradient (training differentiates `kernel / sigma`
        through the kernel only)."""
        weights = ops.reshape(kernel, (-1, self.kernel_shape[-1]))
        vector_u = self.vector_u.value
        for _ in range(self.power_iterations):
            vector_v = _l2_normalize(ops.matmul(vector_u, ops.transpose(weights)))
            vector_u = _l2_normalize(ops.matmul(vector_v, weights))
        vector_u = ops.stop_gradient(vector_u)
        vector_v = ops.stop_gradient(vector_v)
        sigma = ops.matmul(ops.matmul(vector_v, weights), ops.transpose(vector_u))
        return vector_u, sigma

    def normalized_weights(self):
        """`(new vector_u, kernel / sigma)` after `power_iterations` power-iteration steps
        (what a training call writes into the variables, for a nonzero kernel)."""
        kernel = self.kernel.value
        vector_u, sigma = self._power_iteration(kernel)
        return (
            ops.cast(vector_u, self.vector_u.dtype),
            ops.cast(ops.divide(kernel, sigma), self.kernel.dtype),
        )

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}


serialization.register_builtin("layers", SpectralNormalization)
