"""Export a model's inference as a program people serve (`keras.export`'s place).

`Model.export(filepath, format=...)` writes one program; `ExportArchive` writes several
named endpoints; `load` runs either in this process. The formats, and why these, are in
`lamina.export.export_lib`'s docstring: `"stablehlo"` (jax), `"torch"` (torch) and
`"onnx"` (torch; jax with the optional `jax2onnx`).
"""

from lamina.export.export_lib import ExportArchive, LoadedArtifact, load

__all__ = ["ExportArchive", "LoadedArtifact", "load"]
