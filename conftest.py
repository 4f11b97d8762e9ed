"""Shared pytest setup: every test (and doctest) starts with fresh names and seeds.

Doctest collection skips the modules of an engine whose library is not installed (torch
is an optional extra).
"""

import importlib.util

import pytest

collect_ignore = []
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("src/lamina/backend/torch")


@pytest.fixture(autouse=True)
def _fresh_session():
    import lamina

    # Without the garbage collection a user's clear_session() runs: with JAX, torch and
    # Keras loaded, a full collection costs ~0.4 s, which per test item was most of the
    # suite's time.
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(1337)
    yield
