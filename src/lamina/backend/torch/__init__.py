"""The PyTorch engine: the only package in lamina that imports `torch`."""

from lamina.backend.torch import core, image, math, nn, numpy, random  # noqa: F401
