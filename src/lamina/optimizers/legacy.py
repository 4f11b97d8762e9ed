"""`keras.optimizers.legacy`: the optimizer classes of Keras 2 (`tf.keras.optimizers.
legacy.Adam`, ...), for programs of that era.

Keras 3 keeps these names only to refuse them (an ImportError sending users to
`tf_keras`). lamina runs the classic API instead (see `lamina.optimizers.classic`): each
name here is lamina's class of that name, which takes Keras 2's arguments as well as
Keras 3's: `lr` for `learning_rate` (with a warning about the name), `decay` (Keras 2's
time-based decay, step `t` using `learning_rate / (1 + decay * t)`), `clipnorm`,
`clipvalue`. Keras 2's legacy defaults are Keras 3's for these five classes, so nothing
changes there. `Optimizer` is lamina's base class: a Keras 2 optimizer written against
`OptimizerV2`'s slot API (`_create_slots`, `_resource_apply_dense`) needs porting to
`build` / `update_step`.

>>> from lamina.optimizers import legacy
>>> type(legacy.Adam(learning_rate=0.01)).__name__
'Adam'
"""

from lamina.optimizers.adam import Adam
from lamina.optimizers.base import Optimizer
from lamina.optimizers.ftrl import Ftrl
from lamina.optimizers.rmsprop import Adagrad, RMSprop
from lamina.optimizers.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop"]
