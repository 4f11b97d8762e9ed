# temporary: removed once training/ and models/ import lamina.tree
from lamina.tree import *  # noqa: F403
