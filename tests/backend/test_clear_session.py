"""`clear_session(free_memory=True)` as in Keras: names, seeds, the global dtype policy
and the memory of deleted models."""

import gc
import weakref

import lamina
from lamina import backend, layers


def test_clear_session_forgets_the_global_dtype_policy():
    lamina.config.set_dtype_policy("mixed_bfloat16")
    backend.clear_session()
    assert lamina.config.dtype_policy().name == "float32"


def test_free_memory_collects_deleted_models_in_reference_cycles():
    gc.disable()  # only clear_session may collect here
    try:
        model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
        model.self_reference = model  # a cycle: reference counting alone cannot free it
        alive = weakref.ref(model)
        del model
        backend.clear_session(free_memory=False)
        assert alive() is not None
        backend.clear_session()  # free_memory=True by default
        assert alive() is None
    finally:
        gc.enable()
