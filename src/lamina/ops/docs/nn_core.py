"""Full docstrings of contract ops (see `lamina.ops.docs`): nn_core."""

DOCS: dict[str, dict[str, str]] = {}
