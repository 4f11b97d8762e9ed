"""`lamina.datasets`: small real data sets shipped inside the package (no downloads)."""

from lamina.datasets import digits

__all__ = ["digits"]
