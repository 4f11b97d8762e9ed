"""Shared pytest setup: every test (and doctest) starts with fresh names and seeds."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_session():
    import lamina

    lamina.backend.clear_session()
    lamina.utils.set_random_seed(1337)
    yield
