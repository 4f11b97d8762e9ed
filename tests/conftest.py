"""One suite, two engines: `LAMINA_BACKEND=torch make test` runs the same tests on torch.

A test that only makes sense on one engine (it calls `jax.jit` on lamina code, or checks
torch's `nn.Module` integration) says so with `@pytest.mark.engine("jax")` (or a module's
`pytestmark`); on the other engine it is skipped, with the reason shown by `-rs`.
"""

from __future__ import annotations

import pytest

from lamina import backend


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "engine(name, ...): run this test only on the named engine(s)"
    )


def pytest_collection_modifyitems(config, items):
    current = backend.backend()
    for item in items:
        marker = item.get_closest_marker("engine")
        if marker is not None and current not in marker.args:
            item.add_marker(
                pytest.mark.skip(reason=f"needs the {'/'.join(marker.args)} engine; on {current}")
            )
