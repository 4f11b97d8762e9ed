"""Keras 3's newer losses (CTC, Dice, Tversky, Circle, generalized cross-entropy) against
NumPy formulas and against Keras itself on the same inputs; configs and `.keras` files."""

import itertools
import os

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import losses, ops

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

RNG = np.random.default_rng(7)
MASK_T = RNG.integers(0, 2, (3, 4, 4, 1)).astype("float32")
MASK_P = RNG.uniform(size=(3, 4, 4, 1)).astype("float32")
WEIGHTS = np.array([0.5, 1.0, 2.0], "float32")
EPS = 1e-7


def _np(x):
    return ops.convert_to_numpy(x)


def _keras_np(x):
    return np.asarray(keras.ops.convert_to_numpy(x))


def ref_tversky(t, p, alpha, beta, axis):
    t, p = t.astype("float64"), p.astype("float64")
    tp = np.sum(t * p, axis=axis)
    first = np.sum(t * (1 - p), axis=axis)
    second = np.sum((1 - t) * p, axis=axis)
    return 1 - tp / (tp + alpha * first + beta * second + EPS)


def ref_dice(t, p, axis):
    t, p = t.astype("float64"), p.astype("float64")
    return 1 - 2 * np.sum(t * p, axis=axis) / (np.sum(t, axis=axis) + np.sum(p, axis=axis) + EPS)


@pytest.mark.parametrize("axis", [None, (1, 2, 3)])
def test_dice_and_tversky_match_numpy_and_keras(axis):
    np.testing.assert_allclose(
        _np(losses.dice(MASK_T, MASK_P, axis=axis)), ref_dice(MASK_T, MASK_P, axis), rtol=1e-5
    )
    got = _np(losses.tversky(MASK_T, MASK_P, alpha=0.3, beta=0.7, axis=axis))
    np.testing.assert_allclose(got, ref_tversky(MASK_T, MASK_P, 0.3, 0.7, axis), rtol=1e-5)
    for reduction in ["sum_over_batch_size", "sum", None]:
        weights = WEIGHTS if axis else None
        ours = losses.Dice(axis=axis, reduction=reduction)(MASK_T, MASK_P, sample_weight=weights)
        theirs = keras.losses.Dice(axis=axis, reduction=reduction)(
            MASK_T, MASK_P, sample_weight=weights
        )
        np.testing.assert_allclose(_np(ours), _keras_np(theirs), rtol=1e-5, atol=1e-6)
        ours = losses.Tversky(0.3, 0.7, axis=axis, reduction=reduction)(MASK_T, MASK_P, weights)
        theirs = keras.losses.Tversky(0.3, 0.7, axis=axis, reduction=reduction)(
            MASK_T, MASK_P, weights
        )
        np.testing.assert_allclose(_np(ours), _keras_np(theirs), rtol=1e-5, atol=1e-6)


def test_tversky_with_equal_weights_is_dice():
    np.testing.assert_allclose(
        _np(losses.Tversky(axis=(1, 2, 3), reduction=None)(MASK_T, MASK_P)),
        _np(losses.Dice(axis=(1, 2, 3), reduction=None)(MASK_T, MASK_P)),
        rtol=1e-6,
    )


def test_generalized_cross_entropy_matches_numpy_and_keras():
    labels = np.array([0, 2, 1, 2])
    probs = special.softmax(RNG.standard_normal((4, 3)), -1).astype("float32")
    q = 0.7
    expected = (1 - probs[np.arange(4), labels].astype("float64") ** q) / q
    got = losses.categorical_generalized_cross_entropy(labels, probs, q)
    np.testing.assert_allclose(_np(got), expected, rtol=1e-5)
    # A (batch, 1) label column gives the same per-sample values.
    loss = losses.CategoricalGeneralizedCrossEntropy(q=q, reduction=None)
    np.testing.assert_allclose(_np(loss(labels[:, None], probs)), expected, rtol=1e-5)
    w = np.array([1.0, 0.0, 2.0, 0.5], "float32")
    ours = losses.CategoricalGeneralizedCrossEntropy(q=q)(labels, probs, sample_weight=w)
    theirs = keras.losses.CategoricalGeneralizedCrossEntropy(q=q)(labels, probs, sample_weight=w)
    np.testing.assert_allclose(_np(ours), _keras_np(theirs), rtol=1e-5)
    with pytest.raises(ValueError, match=r"\(0, 1\).*q=1.5"):
        losses.CategoricalGeneralizedCrossEntropy(q=1.5)


def _unit(x):
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype("float32")


def ref_circle(labels, emb, ref_labels, ref_emb, gamma, margin, remove_diagonal):
    """Circle loss per sample (Sun et al., 2020, eq. 4 with cosine distances), float64."""
    dist = np.maximum(1 - emb.astype("float64") @ ref_emb.astype("float64").T, 0)
    pos = labels[:, None] == ref_labels[None, :]
    neg = ~pos
    if remove_diagonal:
        pos &= ~np.eye(len(labels), len(ref_labels), dtype=bool)
    out = []
    for i in range(len(labels)):
        a_p = np.maximum(margin + dist[i], 0)
        a_n = np.maximum(1 + margin - dist[i], 0)
        lp = -gamma * a_p * (margin - dist[i])
        ln = gamma * a_n * (1 - margin - dist[i])
        sp = special.logsumexp(lp[pos[i]]) if pos[i].any() else -np.inf
        sn = special.logsumexp(ln[neg[i]]) if neg[i].any() else -np.inf
        out.append(np.logaddexp(0, sp + sn))
    return np.array(out)


def test_circle_matches_numpy_with_a_sample_without_positives():
    labels = np.array([0, 1, 0, 2, 1, 0])  # label 2 has no positive pair: masked out
    emb = _unit(RNG.standard_normal((6, 5)))
    expected = ref_circle(labels, emb, labels, emb, 80.0, 0.4, True)
    assert expected[3] == 0
    ours = losses.Circle(reduction=None)(labels, emb)
    np.testing.assert_allclose(_np(ours), expected, rtol=1e-4, atol=1e-5)
    # Samples whose loss is 0 leave the mean, as Keras masks them (a Keras call here
    # would cost ~4 s of compiling; the arithmetic was checked against Keras 3.15 once).
    ours = losses.Circle()(labels, emb)
    np.testing.assert_allclose(_np(ours), expected.sum() / 5, rtol=1e-4)
    # Reference embeddings of the batch's shape: the same compiled ops serve both calls.
    ref = _unit(RNG.standard_normal((6, 5)))
    ref_labels = np.array([0, 1, 1, 2, 2, 0])
    ours = losses.circle(labels, emb, ref_labels, ref, remove_diagonal=False, gamma=20, margin=0.25)
    expected = ref_circle(labels, emb, ref_labels, ref, 20.0, 0.25, False)
    np.testing.assert_allclose(_np(ours), expected, rtol=1e-4, atol=1e-5)


def ref_ctc(labels, logits):
    """-log of the summed probability of every alignment, enumerated (blank = 0)."""
    log_probs = special.log_softmax(logits.astype("float64"), -1)
    time_steps, num_classes = log_probs.shape
    target = [int(c) for c in labels if c != 0]
    total = -np.inf
    for path in itertools.product(range(num_classes), repeat=time_steps):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            total = np.logaddexp(total, sum(log_probs[t, c] for t, c in enumerate(path)))
    return -total


def test_ctc_matches_an_enumeration_of_alignments_and_refuses_wrong_ranks():
    logits = RNG.standard_normal((3, 5, 3)).astype("float32")
    labels = np.array([[1, 2, 2], [2, 0, 0], [1, 1, 0]])
    expected = [ref_ctc(t, p) for t, p in zip(labels, logits)]
    ours = losses.CTC(reduction=None)(labels, logits)
    np.testing.assert_allclose(_np(ours), expected, rtol=1e-5)
    weights = np.array([1.0, 0.5, 0.0], "float32")
    got = losses.CTC()(labels, logits, sample_weight=weights)
    np.testing.assert_allclose(_np(got), np.mean(np.multiply(expected, weights)), rtol=1e-5)
    with pytest.raises(ValueError, match=r"y_true.*\(batch_size, max_label_length\).*\(5,\)"):
        losses.ctc(np.ones(5), logits)
    with pytest.raises(ValueError, match=r"y_pred.*received shape \(3, 5\)"):
        losses.ctc(labels, logits[..., 0])


LOSSES = [
    (losses.CTC, {}),
    (losses.Dice, {"axis": (1, 2)}),
    (losses.Tversky, {"alpha": 0.2, "beta": 0.8, "axis": (1,)}),
    (losses.Circle, {"gamma": 32.0, "margin": 0.3, "remove_diagonal": False}),
    (losses.CategoricalGeneralizedCrossEntropy, {"q": 0.3}),
]


@pytest.mark.parametrize(("cls", "kwargs"), LOSSES, ids=lambda x: getattr(x, "__name__", ""))
def test_config_matches_keras_and_round_trips(cls, kwargs):
    ours = cls(reduction="sum", **kwargs)
    theirs = getattr(keras.losses, cls.__name__)(reduction="sum", **kwargs)
    # Keras leaves a default dtype out of its loss configs; lamina writes `None`.
    assert {**theirs.get_config(), "dtype": None} == ours.get_config()
    again = losses.deserialize(losses.serialize(ours))
    assert type(again) is cls and again.get_config() == ours.get_config()
    # Keras reads our config and we read Keras's (Keras 3.15 cannot read its own
    # CategoricalGeneralizedCrossEntropy config back: it is missing from its table).
    if not isinstance(keras.losses.deserialize(keras.losses.serialize(theirs)), str):
        assert type(keras.losses.deserialize(losses.serialize(ours))).__name__ == cls.__name__
    assert type(losses.get(keras.losses.serialize(theirs))) is cls
    assert losses.get(theirs.name) is getattr(losses, theirs.name)


def test_a_model_compiled_with_a_new_loss_saves_it_in_a_keras_file(tmp_path):
    # (It trains in tests/metrics/test_gap_metrics.py, which fits with Dice.)
    model = lamina.Sequential([lamina.Input((6,)), lamina.layers.Dense(6, activation="sigmoid")])
    model.compile(optimizer="adam", loss=losses.Dice(axis=(1,)))
    model.save(tmp_path / "dice.keras")
    loaded = lamina.saving.load_model(tmp_path / "dice.keras")
    loss_config = loaded._compile_config()["loss"]
    assert loss_config["class_name"] == "Dice" and tuple(loss_config["config"]["axis"]) == (1,)
