"""Tracebacks of lamina's errors end at the user's own line, as Keras's do.

With filtering on (the default) the frames of lamina's own code are removed from the
traceback of an exception leaving `fit`, `evaluate`, `predict`, the `*_on_batch` methods,
a layer call or a model call; the user's frames stay, and the full traceback stays on
the exception. Turned off, everything shows.
"""

import os
import traceback

import numpy as np
import pytest

import lamina
from lamina import Input, Model, layers
from lamina.common import traceback_utils

PACKAGE = os.path.dirname(os.path.abspath(lamina.__file__)) + os.sep
FILTER = os.path.abspath(traceback_utils.__file__)


@pytest.fixture(autouse=True)
def _filtering_back_on():
    yield
    lamina.config.enable_traceback_filtering()


def _frames(tb):
    return [(os.path.abspath(f.filename), f.name) for f in traceback.extract_tb(tb)]


def _lamina_frames(tb):
    return [frame for frame in _frames(tb) if frame[0].startswith(PACKAGE)]


def _model():
    inputs = Input((4,), name="features")
    model = Model(inputs, layers.Dense(2)(inputs))
    model.compile("sgd", "mse")
    return model


class _Broken(layers.Layer):
    """A user's layer with a bug in `call` that shows on batches of 2 samples."""

    def call(self, x):
        return self.helper(x)

    def helper(self, x):
        if x.shape[0] == 2:
            raise ValueError("the user's own bug") from KeyError("its cause")
        return x


def test_the_switches_as_in_keras_config():
    assert lamina.config.is_traceback_filtering_enabled() is True
    lamina.config.disable_traceback_filtering()
    assert lamina.config.is_traceback_filtering_enabled() is False
    lamina.config.enable_traceback_filtering()
    assert lamina.config.is_traceback_filtering_enabled() is True
    lamina.config.disable_traceback_filtering()
    lamina.backend.clear_session()  # as Keras's clear_session, it turns filtering back on
    assert lamina.config.is_traceback_filtering_enabled() is True


@pytest.mark.parametrize("entry", ["fit", "evaluate", "predict", "train_on_batch", "call"])
def test_a_shape_error_keeps_the_users_frame_and_drops_lamina_frames(entry):
    model = _model()
    bad = np.ones((3, 5), "float32")
    with pytest.raises(ValueError, match="features") as info:
        if entry == "fit":
            model.fit(bad, np.ones((3, 2)), verbose=0)
        elif entry == "evaluate":
            model.evaluate(bad, np.ones((3, 2)), verbose=0)
        elif entry == "predict":
            model.predict(bad, verbose=0)
        elif entry == "train_on_batch":
            model.train_on_batch(bad, np.ones((3, 2)))
        else:
            model(bad)
    frames = _frames(info.value.__traceback__)
    here = os.path.abspath(__file__)
    assert (here, "test_a_shape_error_keeps_the_users_frame_and_drops_lamina_frames") in frames
    # The only lamina frame left is the filter's own re-raise, last.
    assert [path for path, _ in _lamina_frames(info.value.__traceback__)] == [FILTER]
    assert frames[-1][0] == FILTER
    # Nothing is lost: the full traceback reaches the line that raised.
    full = _lamina_frames(traceback_utils.unfiltered_traceback(info.value))
    assert len(full) > 3
    assert any(path.endswith(os.path.join("models", "model.py")) for path, _ in full)


def test_disabling_shows_every_frame():
    lamina.config.disable_traceback_filtering()
    model = _model()
    with pytest.raises(ValueError) as info:
        model.fit(np.ones((3, 5)), np.ones((3, 2)), verbose=0)
    paths = [path for path, _ in _lamina_frames(info.value.__traceback__)]
    assert any(path.endswith(os.path.join("training", "trainer.py")) for path in paths)
    assert any(path.endswith(os.path.join("models", "model.py")) for path in paths)
    assert traceback_utils.unfiltered_traceback(info.value) is info.value.__traceback__


@pytest.mark.parametrize("through", ["layer", "model call", "fit"])
def test_a_bug_in_a_users_layer_points_at_its_lines(through):
    inputs = Input((3,))
    model = Model(inputs, _Broken()(layers.Dense(3)(inputs))) if through != "layer" else None
    with pytest.raises(ValueError, match="the user's own bug") as info:
        if through == "layer":
            _Broken()(np.ones((2, 3), "float32"))
        elif through == "model call":
            model(np.ones((2, 3), "float32"))
        else:
            model.compile("sgd", "mse")
            model.fit(np.ones((2, 3)), np.ones((2, 3)), verbose=0)
    here = os.path.abspath(__file__)
    user = [name for path, name in _frames(info.value.__traceback__) if path == here]
    assert user[-2:] == ["call", "helper"]  # the bug's own lines end the traceback
    assert [p for p, _ in _lamina_frames(info.value.__traceback__)] == [FILTER]
    # The exception keeps its cause, and the unfiltered traceback keeps every level.
    assert isinstance(info.value.__cause__, KeyError)
    full = _frames(traceback_utils.unfiltered_traceback(info.value))
    assert [name for path, name in full if path == here][-2:] == ["call", "helper"]
    if through == "fit":
        full_paths = [path for path, _ in full]
        assert any(p.endswith(os.path.join("training", "trainer.py")) for p in full_paths)
        assert any(p.endswith(os.path.join("layers", "layer.py")) for p in full_paths)


def test_keyboard_interrupt_passes_untouched():
    class Interrupting(layers.Layer):
        def call(self, x):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as info:
        Interrupting()(np.ones((1, 2), "float32"))
    assert len(_lamina_frames(info.value.__traceback__)) > 1
    assert not hasattr(info.value, "_lamina_unfiltered_traceback")


def test_printed_traceback_ends_with_the_message_after_the_users_line():
    model = _model()
    with pytest.raises(ValueError) as info:
        model.predict(np.ones((2, 7)), verbose=0)
    text = "".join(traceback.format_exception(info.value))
    assert "model.predict(np.ones((2, 7)), verbose=0)" in text
    assert "trainer.py" not in text and "epochs.py" not in text
    assert "disable_traceback_filtering" in text  # the one lamina line left says how
