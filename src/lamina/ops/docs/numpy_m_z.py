"""Full docstrings of contract ops (see `lamina.ops.docs`): numpy_m_z."""

DOCS: dict[str, dict[str, str]] = {}
