"""Progbar and ProgbarLogger: the exact lines Keras 3 prints."""

import io
import re

import pytest

from lamina import callbacks

BAR = "━" * 20
TIMING = r"\d+s \d+(s|ms|us)/step"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progbar_final_line_verbose_1():
    out = io.StringIO()
    bar = callbacks.Progbar(47, verbose=1, stream=out, stateful_metrics=["accuracy", "loss"])
    bar.update(10, [("accuracy", 0.5), ("loss", 1.0)])  # not a terminal: nothing yet
    assert out.getvalue() == ""
    bar.update(47, [("accuracy", 0.91), ("loss", 0.27)])
    line = out.getvalue()
    assert re.fullmatch(f"47/47 {BAR} {TIMING} - accuracy: 0.9100 - loss: 0.2700\n", line), line


def test_progbar_redraws_in_place_on_a_terminal():
    out = Terminal()
    bar = callbacks.Progbar(4, verbose=1, stream=out, interval=0)
    bar.update(1, [("loss", 1.0)])
    bar.update(4, [("loss", 0.5)])
    text = out.getvalue()
    assert text.startswith("\r") and text.count("\r") == 2 and text.endswith("\n")
    plain = re.sub(r"\x1b\[\d+m", "", text)
    first, final = plain[1:].split("\r")
    # In progress: the bar is 5 of 20 done, with an ETA; at the end, the elapsed time.
    assert first.startswith("1/4 " + "━" * 20 + " ") and first.endswith(" - loss: 1.0000")
    assert "\x1b[32m" + "━" * 5 + "\x1b[0m" in text
    # The final line is padded with spaces to cover what is left of a longer first line.
    assert re.fullmatch(f"4/4 {BAR} {TIMING} - loss: 0.5000 *\n", final), final
    assert len(final) - 1 == max(len(first), len(final.rstrip(" \n")))


def test_progbar_averages_values_unless_stateful():
    out = io.StringIO()
    bar = callbacks.Progbar(3, verbose=1, stream=out, stateful_metrics=["acc"])
    bar.update(1, [("loss", 1.0), ("acc", 0.1)])
    bar.update(2, [("loss", 2.0), ("acc", 0.2)])
    assert bar._values["loss"] == [3.0, 2] and bar._values["acc"] == [0.2, 1]
    bar.add(1, [("loss", 3.0), ("acc", 0.3)])
    assert "- loss: 3.0000 - acc: 0.3000" in out.getvalue()  # the final values as given


def test_progbar_verbose_2_and_small_values():
    out = io.StringIO()
    bar = callbacks.Progbar(47, verbose=2, stream=out)
    bar.update(20, [("loss", 1.0)])
    assert out.getvalue() == ""
    bar.update(47, [("loss", 0.0001), ("mae", 12345.5)])
    assert re.fullmatch(
        r"47/47 - \d+s - \d+(s|ms|us)/step - loss: 1\.0000e-04 - mae: 12345\.5000\n",
        out.getvalue(),
    ), out.getvalue()


def test_progbar_unknown_target():
    out = Terminal()
    bar = callbacks.Progbar(None, verbose=1, stream=out, interval=0)
    bar.update(3, [("loss", 0.5)])
    assert re.sub(r"\x1b\[\d+m", "", out.getvalue()).startswith("\r3/Unknown ")


def _run_fit_hooks(logger_verbose, epochs=2, steps=3, capsys=None):
    cb_list = callbacks.CallbackList(
        add_progbar=True, epochs=epochs, steps=steps, verbose=logger_verbose
    )
    cb_list.on_train_begin()
    for epoch in range(epochs):
        cb_list.on_epoch_begin(epoch)
        for batch in range(steps or 4):
            cb_list.on_train_batch_end(batch, {"loss": 0.5, "accuracy": 0.75})
        # The validation run inside fit draws nothing.
        cb_list.on_test_begin()
        cb_list.on_test_batch_end(0, {"loss": 9.0})
        cb_list.on_test_end({"loss": 9.0})
        cb_list.on_epoch_end(epoch, {"loss": 0.5, "accuracy": 0.75, "val_loss": 0.25})
    cb_list.on_train_end()


def test_progbar_logger_verbose_1_lines(capsys):
    _run_fit_hooks(1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert re.fullmatch(
        f"3/3 {BAR} {TIMING} - accuracy: 0.7500 - loss: 0.5000 - val_loss: 0.2500", lines[1]
    ), lines[1]


def test_progbar_logger_verbose_2_lines(capsys):
    _run_fit_hooks(2, epochs=1, steps=None)  # unknown steps: the count seen is used
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1  # no "Epoch 1/1" header for a single epoch
    assert re.fullmatch(
        r"4/4 - \d+s - \d+(s|ms|us)/step - accuracy: 0\.7500 - loss: 0\.5000 - val_loss: 0\.2500",
        lines[0],
    ), lines[0]


@pytest.mark.parametrize("verbose", [1, 2])
def test_progbar_logger_evaluate_and_predict(verbose, capsys):
    cb_list = callbacks.CallbackList(add_progbar=True, epochs=1, steps=2, verbose=verbose)
    cb_list.on_test_begin()
    cb_list.on_test_batch_end(0, {"loss": 1.0})
    cb_list.on_test_batch_end(1, {"loss": 0.5})
    cb_list.on_test_end({"loss": 0.75})
    cb_list.on_predict_begin()
    cb_list.on_predict_batch_end(0, {"outputs": [[1.0]]})
    cb_list.on_predict_batch_end(1, {"outputs": [[1.0]]})
    cb_list.on_predict_end()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("2/2 ") and lines[0].endswith("/step - loss: 0.7500")
    assert lines[1].startswith("2/2 ") and lines[1].endswith("/step")


def test_progbar_logger_auto_verbose_is_2_off_a_terminal(capsys):
    logger = callbacks.ProgbarLogger()
    logger.set_params({"epochs": 1, "steps": 1, "verbose": "auto"})
    assert logger.verbose == 2  # pytest captures stdout: not a terminal


@pytest.mark.parametrize("verbose", [1, 2])
def test_validation_inside_fit_draws_no_bar_of_its_own(verbose, capsys):
    import numpy as np

    from lamina import Input, Sequential, layers

    x = np.ones((8, 2), "float32")
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    capsys.readouterr()
    model.fit(x, x[:, :1], batch_size=4, epochs=2, validation_data=(x, x[:, :1]), verbose=verbose)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    bars = [line for line in lines if line.startswith("2/2 ")]
    assert len(bars) == 2, lines  # one per epoch, none from the validation runs
    assert all(" - val_loss: " in line for line in bars)
    assert [line for line in lines if line.startswith("Epoch")] == ["Epoch 1/2", "Epoch 2/2"]
