"""SciPy sparse matrices as `fit` / `evaluate` / `predict` data, as Keras 3 takes them
(a scikit-learn TF-IDF or one-hot matrix passed straight to `fit`).

The reference is Keras 3 itself (JAX backend) on the same matrix with the same weights.
lamina densifies one batch at a time, so a matrix whose dense form would not fit in
memory still trains.
"""

import os

import numpy as np
import pytest

import lamina

sparse = pytest.importorskip("scipy.sparse")
os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)

RNG = np.random.default_rng(11)
N, FEATURES = 48, 30
MATRIX = sparse.random(N, FEATURES, density=0.1, format="csr", random_state=3, dtype=np.float64)
LABELS = RNG.integers(0, 3, N)


def _model(K):
    model = K.Sequential(
        [K.Input((FEATURES,)), K.layers.Dense(8, activation="relu"), K.layers.Dense(3)]
    )
    model.compile(
        optimizer=K.optimizers.SGD(0.1),
        loss=K.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


@pytest.mark.parametrize("layout", ["csr", "coo", "csc"])
def test_fit_evaluate_predict_on_a_sparse_matrix_match_keras(layout):
    matrix = MATRIX.asformat(layout)
    reference = _model(keras)
    ours = _model(lamina)
    ours.set_weights(reference.get_weights())
    kw = dict(batch_size=16, epochs=2, shuffle=False, verbose=0, validation_split=0.25)
    expected = reference.fit(MATRIX, LABELS, **kw).history  # Keras: CSR only
    got = ours.fit(matrix, LABELS, **kw).history
    for key in ("loss", "val_loss"):
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-6)
    for a, b in zip(ours.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        ours.evaluate(matrix, LABELS, verbose=0),
        reference.evaluate(MATRIX, LABELS, verbose=0),
        rtol=1e-5,
    )
    out = ours.predict(matrix, batch_size=20, verbose=0)
    assert out.shape == (N, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out, reference.predict(MATRIX, verbose=0), rtol=1e-5, atol=1e-6)
    # One batch's worth goes the short way; the same numbers.
    few = MATRIX[:5].asformat(layout)
    np.testing.assert_allclose(ours.predict(few, verbose=0), out[:5], rtol=1e-6)


def test_shuffled_batches_are_the_dense_rows():
    """Shuffled and unshuffled, the model sees the dense matrix's rows: training on the
    sparse matrix and on its dense array from the same NumPy seed ends alike."""
    model = _model(lamina)
    weights = model.get_weights()
    results = []
    for data in (MATRIX, MATRIX.toarray().astype("float32")):
        model.set_weights(weights)
        np.random.seed(5)
        model.fit(data, LABELS, batch_size=8, epochs=2, shuffle=True, verbose=0)
        results.append(model.get_weights())
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_a_matrix_too_large_to_densify_trains_a_batch_at_a_time():
    """50,000 x 200,000 float32 would be 40 GB dense; each batch is 6.4 MB."""
    rows, columns = 50_000, 200_000
    matrix = sparse.csr_matrix(
        (np.ones(rows, "float32"), (np.arange(rows), RNG.integers(0, columns, rows))),
        shape=(rows, columns),
    )
    labels = RNG.integers(0, 2, rows)
    model = lamina.Sequential([lamina.Input((columns,)), lamina.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(
        matrix,
        labels,
        batch_size=8,
        steps_per_epoch=2,
        validation_split=0.1,
        validation_steps=2,
        epochs=1,
        verbose=0,
    )
    assert np.isfinite(history.history["val_loss"][0])
    assert model.predict(matrix[:16], verbose=0).shape == (16, 1)


def test_non_finite_stored_values_are_named_with_their_row_and_column():
    bad = MATRIX.copy()
    bad.data[4] = np.nan
    row = int(np.searchsorted(bad.indptr, 4, side="right") - 1)
    column = int(bad.indices[4])
    model = _model(lamina)
    lamina.config.enable_input_checks()
    try:
        with pytest.raises(ValueError, match=rf"index \({row}, {column}\)"):
            model.fit(bad, LABELS, epochs=1, verbose=0)
    finally:
        lamina.config.disable_input_checks()
