"""The per-layer saving protocol: `save_own_variables` / `load_own_variables`.

As in Keras 3, `.weights.h5` and `.keras` files are written and read one layer at a time
through these two methods (the layer's `vars` entry, keys "0", "1", ...), so a layer
that overrides them files extra state or reads a layout of its own. Files written by
Keras for such a layer load here.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers


class Counted(layers.Layer):
    """A scale weight plus a NumPy array of call counts that is not a variable."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
        self.counts = np.zeros(3, "int64")

    def call(self, x):
        return x * self.w

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["counts"] = self.counts

    def load_own_variables(self, store):
        self.counts = np.asarray(store["counts"])
        super().load_own_variables({"0": store["0"]})


class Transposed(layers.Layer):
    """Files its kernel transposed under a name; reads it back transposed."""

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2), name="kernel")

    def call(self, x):
        return lamina.ops.matmul(x, self.kernel)

    def save_own_variables(self, store):
        store["kernel_t"] = self.kernel.numpy().T

    def load_own_variables(self, store):
        self.kernel.assign(np.asarray(store["kernel_t"]).T)


def _model(cls):
    model = lamina.Sequential([lamina.Input((3,)), cls(name="custom"), layers.Dense(1)])
    return model


def _fill(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(size=w.shape).astype("float32") for w in model.get_weights()])


@pytest.mark.parametrize("cls", [Counted, Transposed])
@pytest.mark.parametrize("suffix", [".weights.h5", ".keras"])
def test_overrides_round_trip(tmp_path, cls, suffix):
    model = _model(cls)
    _fill(model, 0)
    if cls is Counted:
        model.layers[0].counts = np.array([4, 5, 6])
    path = str(tmp_path / f"m{suffix}")
    with lamina.utils.custom_object_scope({cls.__name__: cls}):
        if suffix == ".keras":
            model.save(path)
            loaded = lamina.models.load_model(path)
        else:
            model.save_weights(path)
            loaded = _model(cls)
            loaded.load_weights(path)
    for a, b in zip(model.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    if cls is Counted:
        np.testing.assert_array_equal(loaded.layers[0].counts, [4, 5, 6])
    # The layer's entry holds exactly what its `save_own_variables` filed.
    weights = str(tmp_path / "w.weights.h5")
    model.save_weights(weights)
    with h5py.File(weights, "r") as f:
        keys = sorted(f["layers/custom/vars"]) if "layers/custom" in f else None
        keys = keys or sorted(f[f"layers/{cls.__name__.lower()}/vars"])
    assert keys == (["0", "counts"] if cls is Counted else ["kernel_t"])


def test_default_protocol_matches_keras_dense():
    """The default files each weight by number; `load_own_variables` checks and assigns."""
    dense = layers.Dense(2)
    dense.build((None, 3))
    store = {}
    dense.save_own_variables(store)
    assert list(store) == ["0", "1"]
    np.testing.assert_array_equal(store["0"], dense.kernel.numpy())
    other = layers.Dense(2)
    other.build((None, 3))
    other.load_own_variables(store)
    np.testing.assert_array_equal(other.kernel.numpy(), dense.kernel.numpy())
    with pytest.raises(ValueError, match=r"has 2 weight\(s\).*holds 1 entries"):
        other.load_own_variables({"0": store["0"]})
    with pytest.raises(ValueError, match=r"shape \(3, 2\).*shape \(2, 3\)"):
        other.load_own_variables({"0": store["0"].T, "1": store["1"]})
    with pytest.raises(ValueError, match="not built"):
        layers.Dense(2).load_own_variables(store)


def test_failing_override_assigns_nothing(tmp_path):
    model = _model(Counted)
    _fill(model, 1)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "a") as f:
        del f["layers/counted/vars/counts"]
    target = _model(Counted)
    before = target.get_weights()
    with pytest.raises(ValueError, match="counts"):
        target.load_weights(path)
    for a, b in zip(before, target.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="load_own_variables raised"):
        target.load_weights(path, skip_mismatch=True)


def test_extra_entries_without_load_override_say_how_to_fix(tmp_path):
    class SavesOnly(Counted):
        load_own_variables = layers.Layer.load_own_variables

    model = _model(SavesOnly)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with pytest.raises(ValueError, match="must read it with its own `load_own_variables`"):
        _model(SavesOnly).load_weights(path)


@pytest.mark.engine("jax")
@pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_keras_written_files_load(tmp_path):
    keras = pytest.importorskip("keras")

    class KCounted(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
            self.counts = np.zeros(3, "int64")

        def call(self, x):
            return x * self.w

        def save_own_variables(self, store):
            super().save_own_variables(store)
            store["counts"] = self.counts

        def load_own_variables(self, store):
            self.counts = np.asarray(store["counts"])
            super().load_own_variables({"0": store["0"]})

    KCounted.__name__ = "Counted"
    kmodel = keras.Sequential([keras.Input((3,)), KCounted(name="custom"), keras.layers.Dense(1)])
    rng = np.random.default_rng(2)
    values = [rng.normal(size=w.shape).astype("float32") for w in kmodel.weights]
    for variable, value in zip(kmodel.weights, values, strict=True):
        variable.assign(value)
    kmodel.layers[0].counts = np.array([7, 8, 9])
    x = rng.normal(size=(2, 3)).astype("float32")
    expected = (x * values[0]) @ values[1] + values[2]  # NumPy: scale, then Dense
    weights = str(tmp_path / "k.weights.h5")
    kmodel.save_weights(weights)
    model = _model(Counted)
    model.load_weights(weights)
    np.testing.assert_array_equal(model.layers[0].counts, [7, 8, 9])
    np.testing.assert_allclose(np.asarray(model(x)), expected, rtol=1e-6)
    archive = str(tmp_path / "k.keras")
    kmodel.save(archive)
    loaded = lamina.models.load_model(archive, custom_objects={"Counted": Counted})
    np.testing.assert_array_equal(loaded.layers[0].counts, [7, 8, 9])
    np.testing.assert_allclose(np.asarray(loaded(x)), expected, rtol=1e-6)
