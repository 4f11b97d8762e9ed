"""Full docstrings of contract ops (see `lamina.ops.docs`): math_linalg_image."""

DOCS: dict[str, dict[str, str]] = {}
