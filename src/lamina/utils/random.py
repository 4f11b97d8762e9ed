"""Seeding every source of randomness at once."""

from __future__ import annotations

import random

import numpy as np

from lamina.ops import random as ops_random


def set_random_seed(seed: int) -> None:
    """Seed Python's `random`, NumPy and lamina's global seed generator.

    After this, layer initialization, dropout and shuffling in `fit` repeat exactly.

    >>> set_random_seed(0)
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"set_random_seed expects an int; received {seed!r}.")
    random.seed(seed)
    np.random.seed(seed % (2**32))
    ops_random.set_global_seed(seed)
