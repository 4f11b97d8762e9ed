"""`lamina.datasets`: Keras's data sets (`mnist`, `fashion_mnist`, `cifar10`, `cifar100`,
`imdb`, `reuters`, `boston_housing`, `california_housing`), read from Keras's own files
in the cache and downloaded on first use, and `digits`, shipped inside the package."""

from lamina.datasets import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    digits,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = ["digits"]
__all__ += [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]
