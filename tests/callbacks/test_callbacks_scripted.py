"""Callbacks driven directly through CallbackList hooks, with a fake model and scripted logs."""

import csv
import math

import numpy as np
import pytest

from lamina import callbacks, optimizers


class FakeOptimizer:
    def __init__(self, learning_rate=1.0):
        self.learning_rate = np.float32(learning_rate)  # stored as float32, as ours are


class FakeModel:
    """What callbacks touch: weights, stop_training, optimizer, history, saving."""

    def __init__(self, optimizer=None):
        self.stop_training = False
        self.history = None
        self.weights = [np.zeros(1)]
        self.optimizer = optimizer or FakeOptimizer()
        self.saved = []

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [w.copy() for w in weights]

    def save_weights(self, path, overwrite=True):
        self.saved.append(path)
        with open(path, "w") as f:
            f.write(str(self.weights[0][0]))

    def save(self, path, overwrite=True):
        self.save_weights(path, overwrite)


def _fit(cbs, epoch_logs, steps=1, model=None, batch_logs=None):
    """Drive a fit-like run: epoch `e` ends with logs `epoch_logs[e]` and weights [e]."""
    model = model or FakeModel()
    cb_list = callbacks.CallbackList(
        cbs, add_history=True, model=model, epochs=len(epoch_logs), steps=steps, verbose=0
    )
    cb_list.on_train_begin()
    last = None
    for epoch, logs in enumerate(epoch_logs):
        cb_list.on_epoch_begin(epoch)
        for batch in range(steps):
            cb_list.on_train_batch_begin(batch)
            cb_list.on_train_batch_end(batch, dict(batch_logs or {"loss": 1.0}))
            if model.stop_training:
                break
        model.weights = [np.array([float(epoch)])]
        cb_list.on_epoch_end(epoch, dict(logs))
        last = epoch
        if model.stop_training:
            break
    cb_list.on_train_end()
    return model, last


def _losses(values, key="val_loss"):
    return [{key: v} for v in values]


# CallbackList and History -------------------------------------------------------------


class Recorder(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        attr = super().__getattribute__(name)
        if name.startswith("on_") and name not in ("on_batch_begin", "on_batch_end"):
            calls = super().__getattribute__("calls")

            def record(*args, **kwargs):
                calls.append((name, *args))
                return attr(*args, **kwargs)

            return record
        return attr


def test_callback_list_dispatches_every_hook_in_order():
    rec = Recorder()
    model = FakeModel()
    cb_list = callbacks.CallbackList([rec], model=model, epochs=2, steps=3, verbose=0)
    assert rec.model is model and rec.params == {"epochs": 2, "steps": 3, "verbose": 0}
    hooks = [name for name in dir(callbacks.Callback) if name.startswith("on_")]
    for name in hooks:
        args = (0, {"k": 1}) if "batch" in name or "epoch" in name else ({"k": 1},)
        getattr(cb_list, name)(*args)
    called = [c[0] for c in rec.calls]
    assert called == [h for h in hooks if h not in ("on_batch_begin", "on_batch_end")]
    assert ("on_epoch_end", 0, {"k": 1}) in rec.calls and ("on_train_begin", {"k": 1}) in rec.calls


def test_legacy_batch_hooks_alias_the_train_batch_hooks():
    seen = []

    class Legacy(callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            seen.append(("end", batch, logs["loss"]))

    _fit([Legacy()], _losses([1.0]), steps=2)
    assert seen == [("begin", 0), ("end", 0, 1.0), ("begin", 1), ("end", 1, 1.0)]


def test_default_callbacks_come_after_the_users_and_are_not_duplicated():
    user = callbacks.Callback()
    cb_list = callbacks.CallbackList(
        [user], add_history=True, add_progbar=True, epochs=1, steps=1, verbose=1
    )
    kinds = [type(c) for c in cb_list.callbacks]
    assert kinds == [callbacks.Callback, callbacks.History, callbacks.ProgbarLogger]
    history = callbacks.History()
    cb_list = callbacks.CallbackList([history], add_history=True, model=FakeModel())
    assert cb_list.callbacks == [history] and cb_list.model.history is history
    with pytest.raises(TypeError, match="must be Callback instances"):
        callbacks.CallbackList([print])


def test_history_records_epoch_logs_and_sees_values_added_by_callbacks():
    model = FakeModel(FakeOptimizer(0.5))
    logs = [{"loss": 1.0, "val_loss": 2.0}, {"loss": 0.5, "val_loss": 1.5}]
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: lr)
    model, _ = _fit([sched], logs, model=model)
    history = model.history
    assert isinstance(history, callbacks.History) and history.epoch == [0, 1]
    assert history.history == {
        "loss": [1.0, 0.5],
        "val_loss": [2.0, 1.5],
        "learning_rate": [0.5, 0.5],
    }
    assert history.params["epochs"] == 2


# EarlyStopping --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "values", "stopped"),
    [
        ({"patience": 0}, [1.0, 0.9, 0.95, 0.5], 2),
        ({"patience": 2}, [1.0, 0.9, 0.95, 0.91, 0.5, 0.4], 3),
        ({"patience": 1, "min_delta": 0.2}, [1.0, 0.9, 0.85, 0.5], 1),
        # An epoch that misses the baseline does not reset the count (Keras 3).
        ({"patience": 2, "baseline": 0.5}, [0.9, 0.95, 0.97, 0.99], 1),
        ({"patience": 2}, [0.9, 0.95, 0.97, 0.99], 2),
        ({"patience": 0, "start_from_epoch": 2}, [1.0, 2.0, 3.0, 4.0, 5.0], 3),
        ({"patience": 5}, [1.0, 0.9, 0.8], 0),
    ],
)
def test_early_stopping_patience_min_delta_baseline_start(kwargs, values, stopped):
    cb = callbacks.EarlyStopping(**kwargs)
    model, last = _fit([cb], _losses(values))
    assert cb.stopped_epoch == stopped
    assert model.stop_training == (stopped > 0)
    assert last == (stopped or len(values) - 1)


def test_early_stopping_mode():
    cb = callbacks.EarlyStopping(monitor="val_accuracy", patience=1)
    assert cb.mode == "max"
    _, last = _fit([cb], _losses([0.5, 0.6, 0.55, 0.9], "val_accuracy"))
    assert last == 2 and cb.best == 0.6 and cb.best_epoch == 1
    cb = callbacks.EarlyStopping(monitor="val_accuracy", mode="min", patience=0)
    _, last = _fit([cb], _losses([0.5, 0.6], "val_accuracy"))
    assert last == 1
    with pytest.raises(ValueError, match="mode must be 'auto', 'min' or 'max'"):
        callbacks.EarlyStopping(mode="lowest")


def test_early_stopping_restores_the_best_epochs_weights(capsys):
    cb = callbacks.EarlyStopping(patience=1, restore_best_weights=True, verbose=1)
    model, last = _fit([cb], _losses([1.0, 0.2, 0.5, 0.6]))
    assert last == 2 and model.weights[0][0] == 1.0
    out = capsys.readouterr().out
    assert "Epoch 3: early stopping" in out
    assert "Restoring model weights from the end of the best epoch: 2." in out
    # Keras 3 restores at the end of training even without an early stop.
    cb = callbacks.EarlyStopping(patience=10, restore_best_weights=True)
    model, last = _fit([cb], _losses([1.0, 0.2, 0.5]))
    assert last == 2 and model.weights[0][0] == 1.0
    # A reused instance starts afresh.
    model, _ = _fit([cb], _losses([3.0, 4.0]))
    assert cb.best == 3.0 and model.weights[0][0] == 0.0


def test_missing_monitor_warns_and_does_nothing():
    cb = callbacks.EarlyStopping(patience=0)
    with pytest.warns(UserWarning, match="'val_loss', which is not in the logs"):
        model, last = _fit([cb], _losses([1.0, 2.0], "loss"))
    assert last == 1 and not model.stop_training


# ReduceLROnPlateau / LearningRateScheduler -------------------------------------------


def _lr(model):
    return float(model.optimizer.learning_rate)


def test_reduce_lr_on_plateau_patience_min_lr_and_cooldown():
    cb = callbacks.ReduceLROnPlateau(factor=0.5, patience=1, min_lr=0.3)
    model, _ = _fit([cb], _losses([1.0, 1.0, 1.0, 1.0, 1.0]))
    assert _lr(model) == pytest.approx(0.3)
    cb = callbacks.ReduceLROnPlateau(factor=0.5, patience=1, cooldown=2)
    model, _ = _fit([cb], _losses([1.0] * 5))
    # Reductions at epochs 1 and 3 (as in Keras, the cool-down counts down from the
    # epoch after a reduction, and waiting resumes on the epoch it reaches 0).
    assert _lr(model) == pytest.approx(0.25)
    model, _ = _fit([callbacks.ReduceLROnPlateau(factor=0.5, patience=1)], _losses([1.0] * 5))
    assert _lr(model) == pytest.approx(1 / 16)
    cb = callbacks.ReduceLROnPlateau(factor=0.5, patience=2, min_delta=0.1)
    model, _ = _fit([cb], _losses([1.0, 0.95, 0.92, 0.5]))
    assert _lr(model) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="factor must be < 1"):
        callbacks.ReduceLROnPlateau(factor=2.0)


def test_reduce_lr_on_plateau_with_a_real_optimizer_and_logs_learning_rate():
    model = FakeModel(optimizers.SGD(0.1))
    cb = callbacks.ReduceLROnPlateau(monitor="loss", factor=0.1, patience=0, verbose=1)
    model, _ = _fit([cb], _losses([1.0, 2.0], "loss"), model=model)
    assert _lr(model) == pytest.approx(0.01)
    assert model.history.history["learning_rate"] == pytest.approx([0.1, 0.1])


def test_learning_rate_scheduler(capsys):
    model = FakeModel(optimizers.SGD(0.1))
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5, verbose=1)
    model, _ = _fit([sched], _losses([1.0, 1.0, 1.0]), model=model)
    assert _lr(model) == pytest.approx(0.0125)
    assert model.history.history["learning_rate"] == pytest.approx([0.05, 0.025, 0.0125])
    assert (
        "Epoch 3: LearningRateScheduler setting learning rate to 0.0125" in capsys.readouterr().out
    )
    sched = callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))  # epoch only
    model, _ = _fit([sched], _losses([1.0, 1.0]))
    assert _lr(model) == pytest.approx(0.02)
    with pytest.raises(ValueError, match="must return a float"):
        _fit([callbacks.LearningRateScheduler(lambda epoch, lr: "fast")], _losses([1.0]))


# TerminateOnNaN / LambdaCallback ----------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, math.inf, np.float32("-inf")])
def test_terminate_on_nan(bad, capsys):
    model, last = _fit([callbacks.TerminateOnNaN()], _losses([1.0, 1.0]), batch_logs={"loss": bad})
    assert model.stop_training and last == 0
    assert "Batch 0: Invalid loss, terminating training" in capsys.readouterr().out
    model, _ = _fit([callbacks.TerminateOnNaN()], _losses([1.0]), batch_logs={"loss": 3.0})
    assert not model.stop_training
    with pytest.raises(RuntimeError, match="loss is"):
        _fit([callbacks.TerminateOnNaN(raise_error=True)], _losses([1.0]), batch_logs={"loss": bad})


def test_lambda_callback():
    seen = []
    cb = callbacks.LambdaCallback(
        on_train_begin=lambda logs: seen.append("begin"),
        on_epoch_end=lambda epoch, logs: seen.append((epoch, logs["val_loss"])),
        on_train_batch_end=lambda batch, logs: seen.append(batch),
        on_train_end=lambda logs: seen.append("end"),
        on_test_begin=lambda logs: seen.append("test"),
    )
    _fit([cb], _losses([0.5]), steps=2)
    assert seen == ["begin", 0, 1, (0, 0.5), "end"]
    cb.on_test_begin({})
    assert seen[-1] == "test"
    with pytest.raises(TypeError, match="no hook named 'on_typo'"):
        callbacks.LambdaCallback(on_typo=print)


# ModelCheckpoint ----------------------------------------------------------------------


def test_model_checkpoint_names_files_from_epoch_and_logs(tmp_path):
    path = str(tmp_path / "ckpt" / "w-{epoch:02d}-{val_loss:.2f}.weights.h5")
    cb = callbacks.ModelCheckpoint(path, save_weights_only=True)
    model, _ = _fit([cb], _losses([0.5, 0.25]))
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == [
        "w-01-0.50.weights.h5",
        "w-02-0.25.weights.h5",
    ]
    cb = callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))
    model, _ = _fit([cb], _losses([0.5]))
    assert model.saved == [str(tmp_path / "m-1.keras")]
    with pytest.raises(KeyError, match="val_acc"):
        _fit([callbacks.ModelCheckpoint(str(tmp_path / "{val_acc}.keras"))], _losses([0.5]))


def test_model_checkpoint_save_best_only(tmp_path, capsys):
    path = tmp_path / "best.weights.h5"
    cb = callbacks.ModelCheckpoint(
        str(path), save_best_only=True, save_weights_only=True, verbose=1
    )
    model, _ = _fit([cb], _losses([0.5, 0.7, 0.3, 0.4]))
    assert len(model.saved) == 2 and path.read_text() == "2.0" and cb.best == 0.3
    out = capsys.readouterr().out
    assert "Epoch 3: val_loss improved from 0.50000 to 0.30000" in out
    assert "Epoch 4: val_loss did not improve from 0.30000" in out
    cb = callbacks.ModelCheckpoint(
        str(tmp_path / "acc.keras"), monitor="val_accuracy", save_best_only=True
    )
    model, _ = _fit([cb], _losses([0.5, 0.4, 0.6], "val_accuracy"))
    assert len(model.saved) == 2
    cb = callbacks.ModelCheckpoint(
        str(tmp_path / "t.keras"), save_best_only=True, initial_value_threshold=0.45
    )
    model, _ = _fit([cb], _losses([0.5, 0.4]))
    assert len(model.saved) == 1


def test_model_checkpoint_every_n_batches(tmp_path):
    path = str(tmp_path / "b-{epoch}-{batch}.weights.h5")
    cb = callbacks.ModelCheckpoint(path, save_weights_only=True, save_freq=3)
    model, _ = _fit([cb], _losses([1.0, 1.0]), steps=4)  # 8 batches -> saves after 3 and 6
    assert [p.rsplit("/", 1)[1] for p in model.saved] == ["b-1-3.weights.h5", "b-2-2.weights.h5"]
    # With steps_per_execution the hook sees only each chunk's last batch index.
    cb = callbacks.ModelCheckpoint(path, save_weights_only=True, save_freq=4)
    model = FakeModel()
    cb.set_model(model)
    for batch in (1, 3, 5, 7):
        cb.on_train_batch_end(batch)
    assert len(model.saved) == 2


def test_model_checkpoint_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="whole-model `.keras` file"):
        callbacks.ModelCheckpoint(str(tmp_path / "x.keras"), save_weights_only=True)
    with pytest.raises(ValueError, match="`.keras` files"):
        callbacks.ModelCheckpoint(str(tmp_path / "x.weights.h5"))
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.ModelCheckpoint(str(tmp_path / "x.keras"), save_freq="batch")


# CSVLogger ---------------------------------------------------------------------------


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_csv_logger_writes_sorted_columns_and_appends(tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"val_loss": 2.0, "loss": 1.0, "accuracy": 0.5, "val_accuracy": 0.25}] * 2
    _fit([callbacks.CSVLogger(str(path))], logs)
    _fit([callbacks.CSVLogger(str(path), append=True)], logs[:1])
    rows = _rows(path)
    assert rows[0] == ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "0"]  # the header is not repeated
    assert rows[1][1:] == ["0.5", "1.0", "0.25", "2.0"]
    _fit([callbacks.CSVLogger(str(path))], logs[:1])  # no append: overwritten
    assert len(_rows(path)) == 2


def test_csv_logger_separator_and_missing_validation_columns(tmp_path):
    path = tmp_path / "log.tsv"
    _fit(
        [callbacks.CSVLogger(str(path), separator="\t")],
        [{"loss": 1.0}, {"loss": 0.5, "val_loss": 0.7}],
    )
    assert path.read_text().splitlines() == ["epoch\tloss\tval_loss", "0\t1.0\tNA", "1\t0.5\t0.7"]
