"""What classic Keras had and Keras 3 dropped, kept so that programs of that era run:
the classic backend API (`from lamina import backend as K`), resolved from
`lamina.legacy.backend`.

Importing this package registers that API with the engine seam
(`lamina.backend.common.classic`), which cannot import it: the classic names are built
on the graph and ops above the seam. `import lamina` imports this package, so
`K.function`, `K.placeholder` and the rest are there whenever `lamina` is.
"""

from lamina.backend.common.classic import register_classic_api
from lamina.legacy import backend, saving  # saving: `keras.legacy.saving`'s Keras 2 configs

register_classic_api(backend)

__all__ = ["backend", "saving"]
