"""`lamina.wrappers`: scikit-learn estimators around lamina models (Keras's `keras.wrappers`).

scikit-learn is an optional dependency (`pip install lamina[sklearn]`): importing this
package does not import it; the first use of a wrapper class does, and raises an
`ImportError` naming the install command when it is missing.
"""

from __future__ import annotations

_WRAPPERS = ("SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer")

__all__ = list(_WRAPPERS)


def __getattr__(name: str):
    if name in _WRAPPERS:
        from lamina.wrappers import sklearn_wrapper

        return getattr(sklearn_wrapper, name)
    raise AttributeError(f"module 'lamina.wrappers' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_WRAPPERS))
