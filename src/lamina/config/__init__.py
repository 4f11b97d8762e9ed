"""`lamina.config`: global settings, as in `keras.config`.

Beside Keras's names, lamina's own switches: `enable_input_checks()` (NaN and infinity
in the data given to `fit`, `evaluate` and `predict`; see `lamina.common.debugging`) and
`enable_compilation_cache()` / `disable_compilation_cache()` (compiled programs kept on
disk between runs, on by default; see `lamina.backend.common.compilation_cache`).
"""

from lamina.backend.config import (
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from lamina.common.debugging import (
    disable_input_checks,
    enable_input_checks,
    is_input_checks_enabled,
    max_epochs,
    max_steps_per_epoch,
    set_max_epochs,
    set_max_steps_per_epoch,
)
from lamina.common.flash_attention import (
    disable_flash_attention,
    enable_flash_attention,
    is_flash_attention_enabled,
)
from lamina.common.io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from lamina.common.traceback_utils import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from lamina.config.compilation import (
    compilation_cache_folder,
    disable_compilation_cache,
    enable_compilation_cache,
    is_compilation_cache_enabled,
)
from lamina.config.engine import is_nnx_enabled, set_backend
from lamina.dtype_policies.dtype_policy import dtype_policy, set_dtype_policy
from lamina.layers.core import enable_unsafe_deserialization

__all__ = [
    "backend",
    "compilation_cache_folder",
    "disable_compilation_cache",
    "disable_flash_attention",
    "disable_input_checks",
    "disable_interactive_logging",
    "disable_traceback_filtering",
    "dtype_policy",
    "enable_compilation_cache",
    "enable_flash_attention",
    "enable_input_checks",
    "enable_interactive_logging",
    "enable_traceback_filtering",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_compilation_cache_enabled",
    "is_flash_attention_enabled",
    "is_input_checks_enabled",
    "is_interactive_logging_enabled",
    "is_nnx_enabled",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_backend",
    "set_dtype_policy",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]
