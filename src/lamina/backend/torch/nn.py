"""Placeholder for the torch engine's `nn` module (written by another change)."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def missing(*args, **kwargs):
        raise NotImplementedError(f"lamina.backend.torch.nn.{name} is not written yet.")

    return missing
