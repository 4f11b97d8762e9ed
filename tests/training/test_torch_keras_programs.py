"""Programs Keras 3 users write on its PyTorch backend, run on lamina's torch engine.

Each test is a short program a Keras-on-torch user writes as a matter of course (torch
functions over a layer's weights, a hand-written loop) and checks what they see: the
values (against NumPy or plain torch), the types, the gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import lamina  # noqa: E402
from lamina import layers  # noqa: E402

pytestmark = pytest.mark.engine("torch")


class TorchLinear(layers.Layer):
    """A layer whose call is torch code over its weights, as Keras's torch users write."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 3), initializer="glorot_uniform")
        self.b = self.add_weight(shape=(3,), initializer="ones")

    def call(self, x):
        return torch.matmul(x, self.w) + self.b


class TorchConcat(TorchLinear):
    """Variables nested in a list argument (`torch.cat([...])`)."""

    def call(self, x):
        return torch.cat([torch.relu(x @ self.w), torch.stack([self.b] * x.shape[0])], dim=-1)


def test_torch_functions_take_variables_as_their_values():
    v = lamina.Variable(np.arange(6, dtype="float32").reshape(2, 3))
    expected = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(torch.sum(v).item(), expected.sum())
    np.testing.assert_allclose(
        torch.nn.functional.relu(v - 2).numpy(force=True), np.maximum(expected - 2, 0)
    )
    where = torch.where(torch.tensor(expected > 2), v, torch.zeros(2, 3))
    np.testing.assert_allclose(where.numpy(force=True), np.where(expected > 2, expected, 0))
    cat = torch.cat([v, v], dim=0, out=None)
    np.testing.assert_allclose(cat.numpy(force=True), np.concatenate([expected, expected]))
    assert type(torch.sum(v)) is torch.Tensor


def test_a_layer_calling_torch_functions_on_its_weights_runs_and_trains():
    x = np.random.RandomState(0).rand(4, 2).astype("float32")
    layer = TorchLinear()
    out = layer(torch.from_numpy(x))
    w, b = layer.w.numpy(), layer.b.numpy()
    np.testing.assert_allclose(out.numpy(force=True), x @ w + b, rtol=1e-6)
    out.sum().backward()
    # d(sum(x @ w + b))/dw = x^T @ ones; /db = batch size.
    np.testing.assert_allclose(layer.w.value.grad.numpy(), x.T @ np.ones((4, 3)), rtol=1e-6)
    np.testing.assert_allclose(layer.b.value.grad.numpy(), np.full(3, 4.0))

    symbolic = TorchConcat()(lamina.Input((2,)))
    assert symbolic.shape == (None, 6)
    model = lamina.Sequential([lamina.Input((2,)), TorchConcat(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    before = model.layers[0].w.numpy().copy()
    history = model.fit(x, np.ones((4, 1), "float32"), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert not np.allclose(before, model.layers[0].w.numpy())
    assert model.predict(x, verbose=0).shape == (4, 1)


def _mlp():
    inputs = lamina.Input((4,))
    hidden = layers.Dense(8, activation="relu")(inputs)
    return lamina.Model(inputs, layers.Dense(2)(hidden))


def test_export_after_the_model_was_called_keeps_the_batch_dynamic(tmp_path):
    # model(x) caches the shape it checked; comparing that cache with export's symbolic
    # batch added the guard `batch != 3`, and export refused the dynamic batch.
    model = _mlp()
    x = torch.rand(3, 4)
    expected = model(x).detach()
    model.export(tmp_path / "m.pt2", format="torch", verbose=False)
    program = torch.export.load(tmp_path / "m.pt2").module()
    torch.testing.assert_close(program(x), expected)
    assert program(torch.rand(5, 4)).shape == (5, 2)
    # The capture's symbolic shape is not left in the cache for later calls.
    torch.testing.assert_close(model(x), expected)
    static = torch.export.export(model, (x,)).module()  # no symbolic size left cached
    torch.testing.assert_close(static(x), expected)
    batch = torch.export.Dim("batch")
    direct = torch.export.export(model, (x,), dynamic_shapes=(({0: batch},),)).module()
    torch.testing.assert_close(direct(x), expected)
    assert direct(torch.rand(5, 4)).shape == (5, 2)


def test_fit_without_any_loss_says_so():
    # Keras's torch backend: "No loss to compute. Provide a `loss` argument in
    # `compile()`."; lamina failed in autograd ("element 0 of tensors does not require
    # grad and does not have a grad_fn").
    model = _mlp()
    model.compile(optimizer="adam", metrics=["mae"])
    x, y = np.ones((4, 4), "float32"), np.ones((4, 2), "float32")
    with pytest.raises(ValueError, match=r"No loss to compute.*compile\(\)"):
        model.fit(x, y, verbose=0)
    # Evaluating needs no gradient: the loss reads 0, as before.
    assert model.evaluate(x, y, verbose=0, return_dict=True)["loss"] == 0.0


def test_a_frozen_layers_parameters_do_not_require_grad():
    # Keras's torch backend: freezing a layer makes its variables non-trainable, so
    # their tensors stop requiring grad and a torch optimizer over `parameters()` leaves
    # them alone (transfer learning with `base.trainable = False`).
    base = lamina.Sequential([lamina.Input((4,)), layers.Dense(8), layers.Dense(8)])
    head = layers.Dense(1)
    model = lamina.Sequential([base, head])
    base.trainable = False
    assert [p.requires_grad for p in model.parameters()] == [False] * 4 + [True] * 2
    frozen = [p.detach().clone() for p in base.parameters()]
    head_before = head.kernel.numpy().copy()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.rand(5, 4)).square().mean().backward()
        optimizer.step()
    for before, after in zip(frozen, base.parameters(), strict=True):
        torch.testing.assert_close(before, after.detach(), rtol=0, atol=0)
    assert not np.allclose(head_before, head.kernel.numpy())

    base.trainable = True
    assert all(p.requires_grad for p in model.parameters())
    # Frozen before it is built, and a variable's own flag still wins when unfrozen.
    layer = layers.BatchNormalization(trainable=False)
    layer.build((None, 3))
    assert not any(p.requires_grad for p in layer.parameters())
    layer.trainable = True
    assert [p.requires_grad for p in layer.parameters()] == [True, True, False, False]
