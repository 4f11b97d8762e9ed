"""Callbacks driven by real `fit` runs on tiny models (the trainer integration)."""

import csv
import io

import numpy as np
import pytest

from lamina import Input, Sequential, callbacks, layers, models, optimizers


def _model(lr=0.05):
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(lr), loss="mse")
    return model


X = np.random.default_rng(0).standard_normal((32, 2)).astype("float32")
Y = X @ np.array([[1.0], [-1.0]], "float32")


def test_model_checkpoint_epoch_best_and_batches(tmp_path):
    model = _model()
    path = str(tmp_path / "w-{epoch:02d}-{loss:.3f}.weights.h5")
    model.fit(
        X,
        Y,
        epochs=2,
        batch_size=8,
        verbose=0,
        callbacks=[callbacks.ModelCheckpoint(path, save_weights_only=True)],
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2 and names[0].startswith("w-01-") and names[1].startswith("w-02-")
    best = str(tmp_path / "best.weights.h5")
    cb = callbacks.ModelCheckpoint(
        best, monitor="loss", save_best_only=True, save_weights_only=True
    )
    model.fit(X, Y, epochs=3, batch_size=8, verbose=0, callbacks=[cb])
    clone = _model()
    clone.load_weights(best)
    assert cb.best is not None
    batches = tmp_path / "batches"
    cb = callbacks.ModelCheckpoint(
        str(batches / "b-{epoch}-{batch}.weights.h5"), save_weights_only=True, save_freq=2
    )
    model.fit(X, Y, epochs=1, batch_size=8, verbose=0, callbacks=[cb])  # 4 batches -> 2 saves
    assert len(list(batches.iterdir())) == 2
    # A `.keras` name is a whole model's; weights go to any other name (issue 32 made
    # `x.h5` Keras 2's weights layout, as `save_weights("x.h5")` writes it).
    with pytest.raises(ValueError, match="whole-model `.keras` file"):
        callbacks.ModelCheckpoint(str(tmp_path / "x.keras"), save_weights_only=True)


def test_checkpointed_weights_equal_model_weights(tmp_path):
    model = _model()
    path = str(tmp_path / "last.weights.h5")
    model.fit(
        X,
        Y,
        epochs=2,
        verbose=0,
        callbacks=[callbacks.ModelCheckpoint(path, save_weights_only=True)],
    )
    clone = _model()
    clone.load_weights(path)
    for a, b in zip(clone.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_csv_logger_and_append(tmp_path):
    path = tmp_path / "log.csv"
    model = _model()
    model.fit(
        X, Y, epochs=2, verbose=0, validation_split=0.25, callbacks=[callbacks.CSVLogger(str(path))]
    )
    model.fit(
        X,
        Y,
        epochs=1,
        verbose=0,
        validation_split=0.25,
        callbacks=[callbacks.CSVLogger(str(path), append=True)],
    )
    with path.open() as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["epoch", "loss", "val_loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "0"]


def test_learning_rate_scheduler_and_lambda_and_terminate(capsys):
    model = _model()
    seen = []
    model.fit(
        X,
        Y,
        epochs=3,
        verbose=0,
        callbacks=[
            callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1)),
            callbacks.LambdaCallback(
                on_epoch_end=lambda epoch, logs: seen.append(round(logs["learning_rate"], 5))
            ),
        ],
    )
    assert seen == [0.1, 0.05, 0.03333]
    with pytest.raises(TypeError, match="no hook named"):
        callbacks.LambdaCallback(on_typo=print)
    nan_model = _model(lr=1e8)
    nan_model.fit(
        X, Y * 1e8, epochs=3, batch_size=4, verbose=0, callbacks=[callbacks.TerminateOnNaN()]
    )
    assert nan_model.stop_training
    assert "Invalid loss, terminating training" in capsys.readouterr().out


def test_progbar_lines(capsys):
    out = io.StringIO()
    bar = callbacks.Progbar(47, verbose=1, stream=out)
    bar.update(47, [("accuracy", 0.91), ("loss", 0.27)])
    line = out.getvalue().strip()
    assert line.startswith("47/47 " + "━" * 20 + " ")
    assert line.endswith("/step - accuracy: 0.9100 - loss: 0.2700")
    model = _model()
    model.fit(X, Y, epochs=2, batch_size=8, verbose=2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert lines[1].startswith("4/4 - ") and " - loss: " in lines[1]
    model.fit(X, Y, epochs=1, batch_size=8, verbose=1)
    assert "4/4 ━━━━━━━━━━━━━━━━━━━━" in capsys.readouterr().out


def test_history_and_hook_arguments():
    model = _model()
    history = model.fit(X, Y, epochs=2, verbose=0)
    assert (
        model.history is history and history.epoch == [0, 1] and list(history.history) == ["loss"]
    )
    with pytest.raises(TypeError, match="must be Callback instances"):
        model.fit(X, Y, epochs=1, verbose=0, callbacks=[print])


def test_checkpoint_to_a_legacy_h5_file(tmp_path):
    # Keras 3 accepts a whole-model checkpoint in the legacy `.h5` format, as `model.save`
    # does; the file loads back with the weights of the epoch saved.
    model = _model()
    path = tmp_path / "model.h5"
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[callbacks.ModelCheckpoint(str(path))])
    restored = models.load_model(path)
    for a, b in zip(restored.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
