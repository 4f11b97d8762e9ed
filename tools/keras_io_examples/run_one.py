"""Run one keras-io (Keras 3) example program unchanged, on small synthetic data, with
`keras` resolving to lamina (or to Keras 3 itself, for comparison). The table "keras-io's
Keras 3 example programs" in docs/migrating_from_keras3.md comes from it.

usage (from the repository root):
    git --git-dir=<a clone of keras-team/keras>/.git archive <rev> examples/keras_io \\
        | tar -x -C /tmp/kio
    PYTHONPATH=src [LAMINA_BACKEND=torch] python tools/keras_io_examples/run_one.py \\
        /tmp/kio/examples/keras_io/vision/mnist_convnet.py [lamina|keras]
    (or tools/keras_io_examples/run_all.sh OUTDIR BACKEND|keras PROGRAM.py ...)

The program text runs as is. Only its data are replaced: `keras.datasets.*.load_data`,
`keras.utils.get_file` and `np.loadtxt` of a URL give small random data of the real
layout; `tensorflow` is a stand-in (fake_tf.py) that emulates `tf.data.Dataset` on NumPy
and nothing else; `tqdm` is a pass-through (a progress bar). Training is shortened: each
`fit` runs one epoch on at most four batches (three steps for datasets), `evaluate` on at
most four batches, and the program stops ("ok-capped") after PROG_CALLS calls of
fit/evaluate/predict (default 60) or PROG_SECONDS seconds (default 150). The last line
printed is `RESULT {json}`, with the last `fit`'s final loss and its shapes.
Keras 3 runs with KERAS_BACKEND=jax whatever the program sets (it needs TensorFlow
otherwise).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import runpy
import sys
import tempfile
import time
import traceback
import types
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.abspath(sys.argv[1])
FLAVOUR = sys.argv[2] if len(sys.argv) > 2 else "lamina"
NAME = os.path.basename(PROG)
CALL_BUDGET = int(os.environ.get("PROG_CALLS", "60"))
TIME_BUDGET = float(os.environ.get("PROG_SECONDS", "150"))
START = time.time()
rng = np.random.RandomState(0)


class StopProgram(BaseException):
    pass


# ---------------------------------------------------------------- keras alias
if FLAVOUR == "lamina":
    sys.path.insert(0, os.path.dirname(HERE))
    import keras_alias

    keras_alias.install()
    import lamina as root
else:
    os.environ["KERAS_BACKEND"] = "jax"
    import keras as root

    # The programs that set KERAS_BACKEND themselves would otherwise read it later.
    os.environ = type(os.environ)(  # noqa: B003
        os.environ._data,
        os.environ.encodekey,
        os.environ.decodekey,
        os.environ.encodevalue,
        os.environ.decodevalue,
    )

sys.path.insert(0, HERE)
import fake_tf  # noqa: E402

fake_tf.install(root.utils.PyDataset, PROG)


def _stub(name, **attrs):
    # A module with a spec: torch.compile looks modules up with importlib.util.find_spec.
    module = types.ModuleType(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    module.__dict__.update(attrs)
    return sys.modules.setdefault(name, module)


_stub("tqdm", tqdm=lambda it=None, *a, **k: it, trange=range)  # a progress bar


# ---------------------------------------------------------------- synthetic data
# Programs that split a fixed number of samples off the training set need that many.
SIZES = {"siamese_contrastive.py": (30512, 256), "token_learner.py": (40512, 256)}
N_TRAIN, N_TEST = SIZES.get(NAME, (512, 128))


def _img(n, shape, classes, label_shape=()):
    x = rng.randint(0, 256, size=(n, *shape)).astype("uint8")
    return x, rng.randint(0, classes, size=(n, *label_shape)).astype("uint8")


def _seqs(n, num_words, maxlen, skip_top=0):
    lens = rng.randint(20, maxlen or 300, size=n)
    x = np.empty(n, dtype=object)
    x[:] = [list(rng.randint(max(2, skip_top), num_words or 5000, size=k)) for k in lens]
    return x


DATASETS = {
    "mnist": lambda *a, **k: (_img(N_TRAIN, (28, 28), 10), _img(N_TEST, (28, 28), 10)),
    "fashion_mnist": lambda *a, **k: (_img(N_TRAIN, (28, 28), 10), _img(N_TEST, (28, 28), 10)),
    "cifar10": lambda *a, **k: (
        _img(N_TRAIN, (32, 32, 3), 10, (1,)),
        _img(N_TEST, (32, 32, 3), 10, (1,)),
    ),
    "cifar100": lambda *a, label_mode="fine", **k: (
        _img(N_TRAIN, (32, 32, 3), 100 if label_mode == "fine" else 20, (1,)),
        _img(N_TEST, (32, 32, 3), 100 if label_mode == "fine" else 20, (1,)),
    ),
    "imdb": lambda path=None, num_words=None, skip_top=0, maxlen=None, **k: (
        (_seqs(N_TRAIN, num_words, maxlen, skip_top), rng.randint(0, 2, N_TRAIN)),
        (_seqs(N_TEST, num_words, maxlen, skip_top), rng.randint(0, 2, N_TEST)),
    ),
}
for _mod, _fn in DATASETS.items():
    importlib.import_module(f"{root.__name__}.datasets.{_mod}").load_data = _fn

WORK = os.environ.get("PROG_WORK") or tempfile.mkdtemp(prefix="kio_")
os.makedirs(WORK, exist_ok=True)


def _fra_eng_zip(path):
    en = ["go", "run", "i", "see", "you", "we", "stop", "wait"]
    fr = ["va", "cours", "je", "vois", "tu", "nous", "arrete", "attends"]
    lines = []
    for _ in range(600):
        a = " ".join(rng.choice(en, size=rng.randint(1, 4)))
        b = " ".join(rng.choice(fr, size=rng.randint(1, 5)))
        lines.append(f"{a.capitalize()}.\t{b.capitalize()} !\tCC-BY 2.0\n")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("fra.txt", "".join(lines))


def fake_get_file(fname=None, origin=None, *a, extract=False, **k):
    fname = fname or os.path.basename(origin)
    path = os.path.join(WORK, fname)
    if os.path.exists(path):
        return path
    if fname == "fra-eng.zip":
        _fra_eng_zip(path)
    elif fname == "moving_mnist.npy":
        np.save(path, rng.randint(0, 256, size=(20, 64, 64, 64)).astype("uint8"))
    else:
        raise OSError(f"runner: no synthetic file for {fname!r} ({origin})")
    if extract:
        with zipfile.ZipFile(path) as z:
            z.extractall(WORK)
    return path


for _modname in ("utils", "utils.file_utils", "src.utils.file_utils"):
    try:
        _m = importlib.import_module(f"{root.__name__}.{_modname}")
    except ImportError:
        continue
    if hasattr(_m, "get_file"):
        _m.get_file = fake_get_file

_loadtxt = np.loadtxt


def fake_loadtxt(fname, *a, **k):
    if isinstance(fname, str) and fname.startswith("http"):
        data = rng.randn(N_TRAIN, 501)  # UCR FordA: the label (-1 or 1), 500 readings
        data[:, 0] = rng.choice([-1.0, 1.0], size=N_TRAIN)
        return data
    return _loadtxt(fname, *a, **k)


np.loadtxt = fake_loadtxt
_system = os.system


def fake_system(cmd):
    if cmd.startswith("unzip"):  # lstm_seq2seq unzips its download with the shell
        parts = cmd.split()
        with zipfile.ZipFile(parts[-3]) as z:
            z.extractall(parts[-1])
        return 0
    return _system(cmd)


os.system = fake_system

# ---------------------------------------------------------------- shortening
CALLS = [0]
IN_FIT = [0]
LAST = {}


def _tick(what):
    if IN_FIT[0]:
        return
    CALLS[0] += 1
    if CALLS[0] > CALL_BUDGET or time.time() - START > TIME_BUDGET:
        raise StopProgram(f"budget reached at {what} (call {CALLS[0]}, {time.time() - START:.0f}s)")


def _first(v, n):
    if v is None:
        return None
    if isinstance(v, dict):
        return {k: _first(x, n) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_first(x, n) for x in v)
    if hasattr(v, "shape") and len(v.shape) > 0:
        return v[:n]
    return v


def _is_arrays(x):
    if isinstance(x, dict):
        return all(_is_arrays(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return all(_is_arrays(v) for v in x)
    return hasattr(x, "shape")


Model = root.Model
_fit, _evaluate, _predict = Model.fit, Model.evaluate, Model.predict


def fit(self, x=None, y=None, batch_size=None, epochs=1, *a, **k):
    _tick("fit")
    k.pop("initial_epoch", None)
    epochs = 1
    if x is not None and _is_arrays(x):
        n = (batch_size or 32) * 4
        x, y = _first(x, n), _first(y, n)
        for key in ("sample_weight", "validation_data"):
            if k.get(key) is not None:
                k[key] = _first(k[key], n)
    else:
        k["steps_per_epoch"] = min(k.get("steps_per_epoch") or 3, 3)
        if k.get("validation_data") is not None and not _is_arrays(k["validation_data"]):
            k["validation_steps"] = min(k.get("validation_steps") or 2, 2)
    IN_FIT[0] += 1
    try:
        history = _fit(self, x, y, batch_size, epochs, *a, **k)
    finally:
        IN_FIT[0] -= 1
    logs = getattr(history, "history", {}) or {}
    LAST["fit_logs"] = {key: float(np.ravel(v[-1])[0]) for key, v in logs.items() if v}
    return history


def evaluate(self, x=None, y=None, batch_size=None, *a, **k):
    _tick("evaluate")
    if x is not None and _is_arrays(x):
        n = (batch_size or 32) * 4
        x, y = _first(x, n), _first(y, n)
    elif x is not None:
        k["steps"] = min(k.get("steps") or 2, 2)
    return _evaluate(self, x, y, batch_size, *a, **k)


def predict(self, x, *a, **k):
    _tick("predict")
    if not _is_arrays(x):
        k["steps"] = min(k.get("steps") or 2, 2)
    out = _predict(self, x, *a, **k)
    LAST["predict_shape"] = [list(np.shape(o)) for o in (out if isinstance(out, list) else [out])]
    return out


Model.fit, Model.evaluate, Model.predict = fit, evaluate, predict

# Plots and images are shown to nobody.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.show = lambda *a, **k: None
# Notebook display helpers (pixelcnn, super_resolution...) show nothing here either.
_nothing = lambda *a, **k: None  # noqa: E731
_display = _stub("IPython.display", display=_nothing, Image=_nothing, SVG=_nothing)
_stub("IPython", display=_display, get_ipython=_nothing, version_info=(8, 0))
_plot_model = root.utils.plot_model


def plot_model(model, to_file="model.png", *a, **k):
    # PNG needs graphviz or cairosvg, which this machine lacks: draw SVG instead (lamina
    # needs nothing for it; Keras needs pydot, so there the drawing is skipped).
    try:
        return _plot_model(model, os.path.splitext(to_file)[0] + ".svg", *a, **k)
    except ImportError:
        return None


root.utils.plot_model = plot_model

os.chdir(WORK)
sys.argv = [PROG]


def _pet_images():
    # image_classification_from_scratch reads the (downloaded, unzipped) Kaggle folder.
    from PIL import Image

    for folder in ("Cat", "Dog"):
        os.makedirs(os.path.join("PetImages", folder), exist_ok=True)
        for i in range(6760, 6800):  # the program opens Cat/6779.jpg by name
            pixels = rng.randint(0, 256, size=(60, 80, 3)).astype("uint8")
            Image.fromarray(pixels).save(os.path.join("PetImages", folder, f"{i}.jpg"))


FILES = {"image_classification_from_scratch.py": _pet_images}
if NAME in FILES:
    FILES[NAME]()

# ---------------------------------------------------------------- run
result = {
    "program": NAME,
    "flavour": FLAVOUR,
    "backend": os.environ.get("LAMINA_BACKEND", "jax") if FLAVOUR == "lamina" else "jax",
}
try:
    runpy.run_path(PROG, run_name="__main__")
    result["status"] = "ok"
except StopProgram as stop:
    result["status"] = "ok-capped"
    result["detail"] = str(stop)
except SystemExit as e:
    result["status"] = "ok" if not e.code else "exit"
    result["detail"] = str(e.code)
except BaseException as e:  # noqa: BLE001
    tb = traceback.extract_tb(e.__traceback__)
    frame = [f for f in tb if f.filename == PROG]
    missing = isinstance(e, ModuleNotFoundError)
    result["status"] = "needs-module" if missing else "error"
    result["error"] = f"{type(e).__name__}: {str(e)[:600]}"
    result["line"] = frame[-1].lineno if frame else None
    result["where"] = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}"
    traceback.print_exc()
result.update(LAST)
result["seconds"] = round(time.time() - START, 1)
result["calls"] = CALLS[0]
print("RESULT " + json.dumps(result), flush=True)
sys.stdout.flush()
os._exit(0)
