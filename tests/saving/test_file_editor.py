"""`KerasFileEditor` reads, edits and writes weights files as Keras 3's does: the same
tree from the same file, and edited files that Keras 3 reads and loads."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina import layers  # noqa: E402
from lamina.saving import KerasFileEditor  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    ),
    # Keras reading any editor-written file (its own editor's too): the editor keeps
    # weights, not the empty groups of Keras's graph containers.
    pytest.mark.filterwarnings("ignore:Skipping nested container:UserWarning"),
]


def _flat(tree, prefix=""):
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}/"))
        else:
            out[f"{prefix}{key}"] = np.asarray(value)
    return out


def _assert_same_tree(ours, theirs):
    ours, theirs = _flat(ours), _flat(theirs)
    assert sorted(ours) == sorted(theirs)
    for key in ours:
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def _keras_model(units=(4, 3, 2)):
    inputs = keras.Input((3,))
    x = inputs
    for size in units:
        x = keras.layers.Dense(size)(x)
    return keras.Model(inputs, keras.layers.BatchNormalization()(x))


def _lamina_model(units=(4, 3, 2)):
    inputs = lamina.Input((3,))
    x = inputs
    for size in units:
        x = layers.Dense(size)(x)
    return lamina.Model(inputs, layers.BatchNormalization()(x))


@pytest.fixture(scope="module")
def keras_file(tmp_path_factory):
    """A `.keras` file Keras 3 wrote, with an optimizer's state."""
    model = _keras_model()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    path = str(tmp_path_factory.mktemp("editor") / "model.keras")
    model.save(path)
    return path


def test_reads_keras_files_as_keras_does(keras_file, tmp_path, capsys):
    ours = KerasFileEditor(keras_file)
    printed = capsys.readouterr().out
    assert f"Keras model file '{keras_file}'" in printed and "Saved with Keras" in printed
    theirs = keras.saving.KerasFileEditor(keras_file)
    _assert_same_tree(ours.weights_dict, theirs.weights_dict)
    assert ours.config == theirs.config and ours.metadata == theirs.metadata
    weights = str(tmp_path / "w.weights.h5")
    keras.saving.load_model(keras_file).save_weights(weights)
    _assert_same_tree(KerasFileEditor(weights).weights_dict, ours.weights_dict)


def test_reads_lamina_files_nested_models_included(tmp_path):
    inner = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, inner(layers.Dense(4)(inputs)))
    path = str(tmp_path / "m.keras")
    model.save(path)
    tree = KerasFileEditor(path).weights_dict
    np.testing.assert_array_equal(
        tree["layers"]["sequential"]["layers"]["dense"]["0"], inner.layers[0].kernel.numpy()
    )
    assert KerasFileEditor(path).compare(model)["status"] == "success"


def test_summary_prints_the_tree(keras_file, capsys):
    editor = KerasFileEditor(keras_file)
    capsys.readouterr()
    editor.summary()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "Weights structure"
    assert printed[1] == "  > layers"
    assert any("0: shape=(3, 4), dtype=float32" in line for line in printed)


@pytest.mark.parametrize(
    "units, errors, matches", [((4, 3, 2), 1, 10), ((4, 3), 6, 4), ((4, 5, 2), 4, 7)]
)
def test_compare_finds_what_keras_finds(keras_file, units, errors, matches):
    ours = KerasFileEditor(keras_file).compare(_lamina_model(units))
    theirs = keras.saving.KerasFileEditor(keras_file).compare(_keras_model(units))
    assert ours["status"] == theirs["status"] == "error"
    # Keras adds its running counts back at each level of nesting (it reports 11
    # errors for the 6 of the second case); lamina counts each object or weight once:
    # the optimizer the uncompiled model lacks, the layers and weights that differ.
    assert (ours["error_count"], ours["match_count"]) == (errors, matches)
    model = lamina.saving.load_model(keras_file)
    assert KerasFileEditor(keras_file).compare(model) == {
        "status": "success",
        "error_count": 0,
        "match_count": 10 + 18,  # the layers' weights; Adam's 2 + 2 per trainable one
    }


def test_edits_give_a_file_keras_loads(keras_file, tmp_path):
    editor = KerasFileEditor(keras_file)
    source = _flat(editor.weights_dict)
    # Fit the file of a (4, 3, 2) model to a (4, 3) one: drop the last Dense and the
    # optimizer, give the normalization 3 features, and exercise every edit on the way.
    editor.delete_object("layers/dense_2")
    editor.delete_object("optimizer")
    editor.rename_object("dense_1", "renamed")
    editor.rename_object("layers/renamed", "dense_1")
    editor.delete_object("batch_normalization")
    editor.add_object("layers/batch_normalization", {"0": np.full((3,), 2.0, "float32")})
    editor.add_weights(
        "batch_normalization", {str(i): np.full((3,), i + 1.0, "float32") for i in range(1, 4)}
    )
    editor.delete_weight("layers/dense_1", "1")
    editor.add_weights("layers/dense_1", {"1": np.full((3,), 7.0, "float32")})
    path = str(tmp_path / "edited.weights.h5")
    editor.save(path)
    _assert_same_tree(keras.saving.KerasFileEditor(path).weights_dict, editor.weights_dict)

    target = _keras_model(units=(4, 3))
    target.load_weights(path)
    values = [keras.ops.convert_to_numpy(v) for v in target.weights]
    np.testing.assert_array_equal(values[0], source["layers/dense/0"])
    np.testing.assert_array_equal(values[2], source["layers/dense_1/0"])
    np.testing.assert_array_equal(values[3], np.full((3,), 7.0))
    np.testing.assert_array_equal(values[4], np.full((3,), 2.0))
    ours = _lamina_model(units=(4, 3))
    ours.load_weights(path)
    for got, expected in zip(ours.get_weights(), values):
        np.testing.assert_array_equal(got, expected)
    again = str(tmp_path / "again.weights.h5")
    editor.resave_weights(again)
    _assert_same_tree(KerasFileEditor(again).weights_dict, editor.weights_dict)


def test_edit_errors(keras_file, tmp_path):
    editor = KerasFileEditor(keras_file)
    with pytest.raises(ValueError, match="occurs more than once"):
        editor.delete_object("0")
    with pytest.raises(ValueError, match="does not appear"):
        editor.delete_object("nothing")
    with pytest.raises(ValueError, match="not found in model"):
        editor.rename_object("layers/nothing", "x")
    with pytest.raises(ValueError, match="leaf name"):
        editor.rename_object("dense", "layers/other")
    with pytest.raises(ValueError, match="should be a dict"):
        editor.add_object("layers/x", np.ones(2))
    with pytest.raises(ValueError, match="not found in model"):
        editor.add_object("missing/x", {"0": np.ones(2)})
    with pytest.raises(ValueError, match="Weight 9 not found"):
        editor.delete_weight("layers/dense", "9")
    with pytest.raises(ValueError, match=r"\.weights\.h5"):
        editor.save(str(tmp_path / "x.keras"))
    with pytest.raises(ValueError, match="Invalid filename"):
        KerasFileEditor(str(tmp_path / "x.h5"))
