"""lamina's version (Keras 3's `keras.version()`).

>>> import lamina
>>> lamina.version() == lamina.__version__
True
"""

__version__ = "0.1.0"


def version() -> str:
    """The installed lamina version, such as `"0.1.0"`.

    >>> version() == __version__
    True
    """
    return __version__
