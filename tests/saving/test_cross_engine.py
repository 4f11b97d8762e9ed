"""Files move between engines: a `.keras` file and a `.weights.h5` file saved on one
engine load on the other and predict the same. Run on each engine, each direction is
checked once: this process saves, a fresh process on the other engine loads."""

from __future__ import annotations

import importlib.util
import inspect
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina import backend

pytest.importorskip("torch")

OTHER = {"jax": "torch", "torch": "jax"}[backend.backend()]


def _model():
    lamina.utils.set_random_seed(7)
    model = build()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def _data():
    rng = np.random.RandomState(1)
    return [
        rng.rand(6, 8, 8, 3).astype("float32"),
        rng.randint(0, 20, size=(6, 5)).astype("int32"),
    ], rng.randint(0, 3, size=(6,)).astype("int32")


def _in_other_engine(script: str, tmp_path: pathlib.Path) -> None:
    env = dict(os.environ, LAMINA_BACKEND=OTHER)
    env.pop("KERAS_BACKEND", None)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_keras_and_weights_files_load_on_the_other_engine(tmp_path):
    model = _model()
    (x, tokens), y = _data()
    model.fit([x, tokens], y, epochs=2, batch_size=3, verbose=0)  # moved BN stats, Adam slots
    expected = model.predict([x, tokens], verbose=0)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "tokens.npy", tokens)
    model.save(tmp_path / "model.keras")
    model.save_weights(tmp_path / "model.weights.h5")
    (tmp_path / "builder.py").write_text(inspect.getsource(build))
    _in_other_engine(
        f"""
        import numpy as np, lamina
        assert lamina.backend.backend() == "{OTHER}"
        x, tokens = np.load("x.npy"), np.load("tokens.npy")
        loaded = lamina.saving.load_model("model.keras")
        np.save("from_keras_file.npy", loaded.predict([x, tokens], verbose=0))
        # The optimizer state came along: one more step runs on this engine.
        loaded.fit([x, tokens], np.zeros(6, "int32"), epochs=1, verbose=0)
        import builder
        fresh = builder.build()
        fresh.load_weights("model.weights.h5")
        np.save("from_weights_file.npy", fresh.predict([x, tokens], verbose=0))
        """,
        tmp_path,
    )
    for name in ("from_keras_file.npy", "from_weights_file.npy"):
        np.testing.assert_allclose(np.load(tmp_path / name), expected, rtol=1e-4, atol=1e-5)


def build():
    import lamina
    from lamina import layers

    image = lamina.Input((8, 8, 3), name="image")
    tokens = lamina.Input((5,), dtype="int32", name="tokens")
    x = layers.Conv2D(4, 3, padding="same", activation="relu")(image)
    x = layers.BatchNormalization()(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    t = layers.Embedding(20, 6)(tokens)
    t = layers.LSTM(5)(t)
    t = layers.LayerNormalization()(t)
    merged = layers.Concatenate()([x, t])
    out = layers.Dense(3, activation="softmax", name="out")(layers.Dropout(0.2)(merged))
    return lamina.Model([image, tokens], out)


# Once, on the engine that file comes from: the Keras-on-torch run that writes it takes
# ~10 s, and lamina's loading does not depend on its engine here (the other test moves
# files between lamina's engines).
@pytest.mark.engine("torch")
def test_a_file_written_by_keras_3_on_its_torch_backend_loads(tmp_path):
    if importlib.util.find_spec("keras") is None:
        pytest.skip("keras (a dev dependency) is not installed")
    env = dict(os.environ, KERAS_BACKEND="torch")
    env.pop("LAMINA_BACKEND", None)
    script = """
        import numpy as np, keras
        assert keras.backend.backend() == "torch"
        keras.utils.set_random_seed(3)
        inp = keras.Input((6, 4))
        x = keras.layers.Conv1D(5, 3, padding="same", activation="relu")(inp)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.GRU(4)(x)
        out = keras.layers.Dense(2, activation="softmax")(x)
        model = keras.Model(inp, out)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        x = np.random.RandomState(0).rand(8, 6, 4).astype("float32")
        model.fit(x, np.arange(8) % 2, epochs=2, verbose=0)
        np.save("x.npy", x)
        np.save("expected.npy", keras.ops.convert_to_numpy(model.predict(x, verbose=0)))
        model.save("keras_torch.keras")
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = lamina.saving.load_model(tmp_path / "keras_torch.keras")
    got = loaded.predict(np.load(tmp_path / "x.npy"), verbose=0)
    np.testing.assert_allclose(got, np.load(tmp_path / "expected.npy"), rtol=1e-4, atol=1e-5)
