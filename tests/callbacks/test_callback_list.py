"""Callback.model and CallbackList: the model is synced on read, and only when needed."""

import ast
import io
import pathlib
from contextlib import redirect_stdout

import lamina
from lamina import callbacks


class SyncCountingModel:
    """A model whose trainer holds the state apart: reading it through a callback syncs."""

    def __init__(self):
        self.syncs = 0
        self.history = None
        self.stop_training = False

    def _sync_state_for_callbacks(self):
        self.syncs += 1


def test_reading_callback_model_syncs_the_trainer_state_into_the_model():
    model = SyncCountingModel()
    cb = callbacks.Callback()
    cb.set_model(model)
    assert model.syncs == 0
    assert cb.model is model
    assert model.syncs == 1


def test_callback_model_without_a_sync_hook_is_returned_as_is():
    cb = callbacks.Callback()
    assert cb.model is None
    model = object()
    cb.model = model  # assignment still works, as in Keras
    assert cb.model is model


def test_callback_whose_init_skips_super_still_has_a_model():
    class NoSuper(callbacks.Callback):
        def __init__(self):
            pass

    assert NoSuper().model is None


def test_history_and_progbar_leave_the_state_alone_on_batches():
    model = SyncCountingModel()
    cb_list = callbacks.CallbackList(
        add_history=True, add_progbar=True, model=model, epochs=1, steps=3, verbose=1
    )
    with redirect_stdout(io.StringIO()):
        cb_list.on_train_begin()
        cb_list.on_epoch_begin(0)
        for batch in range(3):
            cb_list.on_train_batch_begin(batch)
            cb_list.on_train_batch_end(batch, {"loss": 1.0})
        assert model.syncs == 0
        cb_list.on_test_begin()
        cb_list.on_test_batch_begin(0)
        cb_list.on_test_batch_end(0, {"loss": 1.0})
        cb_list.on_test_end({"loss": 1.0})
        cb_list.on_predict_begin()
        cb_list.on_predict_batch_begin(0)
        cb_list.on_predict_batch_end(0, {"outputs": None})
        cb_list.on_predict_end()
        cb_list.on_epoch_end(0, {"loss": 1.0})
        cb_list.on_train_end({"loss": 1.0})
    assert model.syncs == 0
    assert model.history is cb_list.history
    assert cb_list.history.history == {"loss": [1.0]}


def test_appended_callback_gets_the_model_without_a_sync():
    model = SyncCountingModel()
    cb_list = callbacks.CallbackList(model=model)
    cb = callbacks.Callback()
    cb_list.append(cb)
    assert model.syncs == 0
    assert cb._model is model


def test_callback_list_is_public_and_lives_in_its_own_module():
    from lamina.callbacks.callback_list import CallbackList

    assert callbacks.CallbackList is CallbackList
    assert lamina.callbacks.CallbackList is CallbackList


def test_callbacks_modules_import_at_the_top_not_inside_functions():
    # An import inside a function is how a module dodges an import cycle; the
    # callbacks package has none left to dodge.
    package = pathlib.Path(callbacks.__file__).parent
    lazy = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith(
                        "lamina"
                    ):
                        lazy.append(f"{path.name}:{inner.lineno} from {inner.module}")
                    if isinstance(inner, ast.Import) and any(
                        alias.name.startswith("lamina") for alias in inner.names
                    ):
                        lazy.append(f"{path.name}:{inner.lineno}")
    assert lazy == []
