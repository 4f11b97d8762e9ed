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

    lamina.backend.clear_session()
    lamina.utils.set_random_seed(1337)
    yield
