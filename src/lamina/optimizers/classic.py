"""Keras 2's lower-case optimizer names: `optimizers.sgd`, `rmsprop`, `adagrad`,
`adadelta`, `adam`, `adamax`, `nadam`.

In Keras 2 these were other names of the classes. Here each is a function that makes
the class with Keras 2's defaults where they differ from Keras 3's (the classes keep
Keras 3's): Adagrad 0.01 from empty accumulators, Adadelta 1.0, Adamax and Nadam 0.002,
and Nadam's momentum schedule with `schedule_decay=0.004`. Every class argument passes
through (`lr`, `decay`, `clipnorm`, `clipvalue`, `nesterov`, `amsgrad`, ...), and what
comes back is the ordinary class, so `get`/`serialize` treat it as any other optimizer.

The package attributes `optimizers.sgd`, `optimizers.adam` and `optimizers.rmsprop` are
these functions, not the modules of the same names (`lamina.optimizers.adam` as a module
path still imports: `from lamina.optimizers.adam import Adam`).

>>> from lamina import optimizers
>>> opt = optimizers.adadelta()
>>> type(opt).__name__, float(opt.learning_rate.numpy())
('Adadelta', 1.0)
"""

from __future__ import annotations

from lamina.optimizers.adam import Adam, Adamax, Nadam
from lamina.optimizers.rmsprop import Adadelta, Adagrad, RMSprop
from lamina.optimizers.sgd import SGD


def _defaults(rate, kwargs: dict, **defaults) -> dict:
    """`kwargs` with Keras 2's `defaults` filled in. The rate may come first by position
    (`sgd(0.1)`), as `learning_rate=` or as Keras 2's `lr=` (the class warns about the
    name)."""
    given = dict(kwargs)
    if rate is not None:
        given["learning_rate"] = rate
    if "lr" in given:
        defaults.pop("learning_rate", None)
    return {**defaults, **given}


def sgd(learning_rate=None, **kwargs) -> SGD:
    """Keras 2's `sgd`: `SGD` (learning rate 0.01, momentum 0, `nesterov`, `decay`).

    >>> from lamina import optimizers
    >>> import lamina
    >>> opt = optimizers.sgd(0.1, momentum=0.9)
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6), opt.momentum
    ('SGD', 0.1, 0.9)
    >>> w = lamina.Variable([1.0])
    >>> opt.apply([lamina.ops.convert_to_tensor([2.0])], [w])
    >>> [round(float(x), 4) for x in w.numpy()]
    [0.8]
    """
    return SGD(**_defaults(learning_rate, kwargs, learning_rate=0.01))


def rmsprop(learning_rate=None, **kwargs) -> RMSprop:
    """Keras 2's `rmsprop`: `RMSprop` (learning rate 0.001, rho 0.9).

    >>> from lamina import optimizers
    >>> opt = optimizers.rmsprop()
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6), opt.rho
    ('RMSprop', 0.001, 0.9)
    """
    return RMSprop(**_defaults(learning_rate, kwargs, learning_rate=0.001, rho=0.9))


def adagrad(learning_rate=None, **kwargs) -> Adagrad:
    """Keras 2's `adagrad`: `Adagrad` with learning rate 0.01 and accumulators starting
    at 0 (Keras 3: 0.001 and 0.1).

    >>> from lamina import optimizers
    >>> opt = optimizers.adagrad()
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6)
    ('Adagrad', 0.01)
    >>> opt.initial_accumulator_value
    0.0
    """
    return Adagrad(
        **_defaults(learning_rate, kwargs, learning_rate=0.01, initial_accumulator_value=0.0)
    )


def adadelta(learning_rate=None, **kwargs) -> Adadelta:
    """Keras 2's `adadelta`: `Adadelta` with learning rate 1.0 (Keras 3: 0.001), rho
    0.95.

    >>> from lamina import optimizers
    >>> opt = optimizers.adadelta()
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6), opt.rho
    ('Adadelta', 1.0, 0.95)
    """
    return Adadelta(**_defaults(learning_rate, kwargs, learning_rate=1.0, rho=0.95))


def adam(learning_rate=None, **kwargs) -> Adam:
    """Keras 2's `adam`: `Adam` (learning rate 0.001, `amsgrad`).

    >>> from lamina import optimizers
    >>> opt = optimizers.adam(amsgrad=True)
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6), opt.amsgrad
    ('Adam', 0.001, True)
    """
    return Adam(**_defaults(learning_rate, kwargs, learning_rate=0.001))


def adamax(learning_rate=None, **kwargs) -> Adamax:
    """Keras 2's `adamax`: `Adamax` with learning rate 0.002 (Keras 3: 0.001).

    >>> from lamina import optimizers
    >>> opt = optimizers.adamax()
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6)
    ('Adamax', 0.002)
    """
    return Adamax(**_defaults(learning_rate, kwargs, learning_rate=0.002))


def nadam(learning_rate=None, **kwargs) -> Nadam:
    """Keras 2's `nadam`: `Nadam` with learning rate 0.002 and Keras 2's momentum
    schedule, `schedule_decay=0.004` (Keras 3: 0.001 and its own schedule).

    >>> from lamina import optimizers
    >>> opt = optimizers.nadam()
    >>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6)
    ('Nadam', 0.002)
    >>> opt.get_config()["schedule_decay"]
    0.004
    """
    return Nadam(**_defaults(learning_rate, kwargs, learning_rate=0.002, schedule_decay=0.004))


__all__ = ["adadelta", "adagrad", "adam", "adamax", "nadam", "rmsprop", "sgd"]
