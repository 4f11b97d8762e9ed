"""Placeholder for the torch engine's `image` module (written by another change)."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def missing(*args, **kwargs):
        raise NotImplementedError(f"lamina.backend.torch.image.{name} is not written yet.")

    return missing
