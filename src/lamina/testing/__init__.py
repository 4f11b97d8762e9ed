"""Test helpers shipped with lamina, so custom layers can be held to the same checks."""

from lamina.testing.layer_conformance import check_layer

__all__ = ["check_layer"]
