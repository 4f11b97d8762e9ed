"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy_a_l."""

DOCS: dict[str, dict[str, str]] = {}
