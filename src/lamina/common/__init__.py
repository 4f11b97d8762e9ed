"""Helpers every floor above the engine seam shares, and the switches they read.

This package sits directly above `lamina.backend` (it imports only the seam's
engine-independent parts and `lamina.tree`), so activations, layers, losses, training
and the rest all use one copy:

- `serialization`, `object_registration`: the registry through which configs and files
  resolve class names, and `serialize_keras_object` / `deserialize_keras_object`;
- `traceback_utils`: hiding lamina's own frames from user-facing tracebacks;
- `io_utils`: interactive logging (progress bars and summaries on stdout, or through
  `logging`);
- `py_dataset`: `PyDataset`, the base of batch-by-index datasets `fit` reads;
- `data_utils`: packing and unpacking the `(x, y, sample_weight)` a step receives;
- `flash_attention`, `debugging`: process-wide switches that attention layers and `fit`
  read.

Not to be confused with `lamina.backend.common`, the engine-independent half of the seam
itself. The public names live at their Keras paths: `lamina.utils` (`PyDataset`,
`serialize_keras_object`, `register_keras_serializable`, ...), `lamina.saving` and
`lamina.config` re-export them.
"""
