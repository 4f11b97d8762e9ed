"""The JAX engine: the only package in lamina that imports `jax`."""

from lamina.backend.jax import core, image, math, nn, numpy, random  # noqa: F401
