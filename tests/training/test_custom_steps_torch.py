"""Keras 3's guide "Customizing what happens in `fit()` with PyTorch", run on lamina.

On the torch engine steps are stateful: `train_step(self, data)` runs the model, calls
`loss.backward()` and `self.optimizer.apply(...)` on the live variables. The guide's
code runs unchanged with `import lamina as keras`; the overrides are what `fit` and
`evaluate` run; the numbers match a plain PyTorch loop doing the same work.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import lamina as keras  # noqa: E402

pytestmark = pytest.mark.engine("torch")


def _data(n=64, d=8, seed=0):
    rng = np.random.RandomState(seed)
    return rng.random_sample((n, d)).astype("float32"), rng.random_sample((n, 1)).astype("float32")


class GuideModel(keras.Model):
    """Part 1 of the guide: the compiled loss and metrics, a hand-written step."""

    steps_run = 0

    def train_step(self, data):
        type(self).steps_run += 1
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        loss.backward()
        trainable_weights = [v for v in self.trainable_weights]
        gradients = [v.value.grad for v in trainable_weights]
        with torch.no_grad():
            self.optimizer.apply(gradients, trainable_weights)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _guide_model(cls=GuideModel, d=8):
    inputs = keras.Input(shape=(d,))
    outputs = keras.layers.Dense(1, kernel_initializer="ones")(inputs)
    return cls(inputs, outputs)


def test_guide_part_1_runs_the_override_and_trains():
    GuideModel.steps_run = 0
    model = _guide_model()
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = _data()
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert GuideModel.steps_run == 12
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_guide_step_matches_a_plain_pytorch_loop():
    model = _guide_model()
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    x, y = _data()
    model.fit(x, y, epochs=2, batch_size=16, shuffle=False, verbose=0)

    ref = torch.nn.Linear(8, 1)
    with torch.no_grad():
        ref.weight.fill_(1.0)
        ref.bias.zero_()
    opt = torch.optim.SGD(ref.parameters(), lr=0.05)
    for _ in range(2):
        for i in range(0, 64, 16):
            opt.zero_grad()
            loss = torch.mean(
                (ref(torch.from_numpy(x[i : i + 16])) - torch.from_numpy(y[i : i + 16])) ** 2
            )
            loss.backward()
            opt.step()
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel.T, ref.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, ref.bias.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_guide_part_2_own_metrics_and_loss_without_compiled_loss():
    class CustomModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = keras.losses.MeanSquaredError()

        def train_step(self, data):
            x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
            loss.backward()
            trainable_weights = [v for v in self.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            with torch.no_grad():
                self.optimizer.apply(gradients, trainable_weights)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    model = _guide_model(CustomModel)
    model.compile(optimizer="adam")
    x, y = _data()
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    # The metrics reset at each epoch's start: the epoch's mean, not a running total.
    assert history.history["mae"][0] < 10


def test_guide_part_4_custom_test_step_is_what_evaluate_runs():
    calls = []

    class CustomModel(keras.Model):
        def test_step(self, data):
            calls.append(1)
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    model = _guide_model(CustomModel)
    model.compile(loss="mse", metrics=["mae"])
    x, y = _data()
    logs = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert len(calls) == 4
    y_pred = x.sum(axis=1, keepdims=True)  # kernel of ones, zero bias
    np.testing.assert_allclose(logs["loss"], np.mean((y_pred - y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(logs["mae"], np.mean(np.abs(y_pred - y)), rtol=1e-5)


def test_gan_with_two_optimizers_trains_the_torch_way():
    latent = 4
    discriminator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
    generator = keras.Sequential([keras.Input((latent,)), keras.layers.Dense(8)])

    class GAN(keras.Model):
        def __init__(self, discriminator, generator):
            super().__init__()
            self.discriminator = discriminator
            self.generator = generator
            self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
            self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
            self.seed_generator = keras.random.SeedGenerator(1337)

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer
            self.loss_fn = loss_fn

        def train_step(self, real):
            batch = real.shape[0]
            noise = keras.random.normal((batch, latent), seed=self.seed_generator)
            fake = self.generator(noise)
            images = torch.cat([fake.detach(), real], dim=0)
            labels = torch.cat([torch.ones((batch, 1)), torch.zeros((batch, 1))], dim=0)
            self.zero_grad()
            d_loss = self.loss_fn(labels, self.discriminator(images))
            d_loss.backward()
            d_vars = self.discriminator.trainable_weights
            with torch.no_grad():
                self.d_optimizer.apply([v.value.grad for v in d_vars], d_vars)
            self.zero_grad()
            noise = keras.random.normal((batch, latent), seed=self.seed_generator)
            g_loss = self.loss_fn(
                torch.zeros((batch, 1)), self.discriminator(self.generator(noise))
            )
            g_loss.backward()
            g_vars = self.generator.trainable_weights
            with torch.no_grad():
                self.g_optimizer.apply([v.value.grad for v in g_vars], g_vars)
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}

    gan = GAN(discriminator, generator)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(1e-3),
        g_optimizer=keras.optimizers.Adam(1e-3),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    d_before = [w.copy() for w in discriminator.get_weights()]
    g_before = [w.copy() for w in generator.get_weights()]
    real = np.random.RandomState(0).normal(size=(32, 8)).astype("float32")
    history = gan.fit(real, epochs=2, batch_size=8, verbose=0)
    assert set(history.history) == {"d_loss", "g_loss"}
    assert all(np.isfinite(v) for v in history.history["d_loss"] + history.history["g_loss"])
    assert any(not np.allclose(a, b) for a, b in zip(d_before, discriminator.get_weights()))
    assert any(not np.allclose(a, b) for a, b in zip(g_before, generator.get_weights()))
    assert gan.d_optimizer.iterations.numpy() == 8 and gan.g_optimizer.iterations.numpy() == 8


def test_a_model_is_a_torch_module_usable_in_a_plain_torch_loop():
    model = _guide_model()
    assert isinstance(model, torch.nn.Module)
    params = list(model.parameters())
    assert [tuple(p.shape) for p in params] == [(8, 1), (1,)]
    assert all(p.requires_grad for p in params)
    assert sorted(model.state_dict()) == sorted(v.path for v in model.weights)

    x, y = (torch.from_numpy(a) for a in _data())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    first = None
    for _ in range(5):
        opt.zero_grad()
        loss = torch.mean((model(x) - y) ** 2)
        loss.backward()
        opt.step()
        first = first if first is not None else float(loss.detach())
    assert float(loss.detach()) < first
    # The torch optimizer changed the lamina variables themselves.
    np.testing.assert_allclose(model.get_weights()[0], params[0].detach().numpy())

    # Keys are variable paths (as in Keras): the same model built afresh has them.
    state = model.state_dict()
    keras.backend.clear_session()
    clone = _guide_model()
    clone.load_state_dict(state)
    np.testing.assert_allclose(
        clone.predict(x.numpy(), verbose=0), model.predict(x.numpy(), verbose=0)
    )


def test_fit_updates_the_same_parameter_tensors_in_place():
    model = _guide_model(keras.Model)
    model.compile(optimizer="adam", loss="mse")
    before = [id(p) for p in model.parameters()]
    x, y = _data()
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    assert [id(p) for p in model.parameters()] == before
    assert all(p.grad is None for p in model.parameters())  # the default step leaves none


def test_steps_called_directly_after_compile_work_as_in_keras():
    model = _guide_model(keras.Model)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x, y = _data(n=16)
    logs = model.train_step((torch.from_numpy(x), torch.from_numpy(y)))
    assert set(logs) == {"loss", "mae"} and np.isfinite(float(logs["loss"]))
    assert int(model.optimizer.iterations.numpy()) == 1
    logs = model.test_step((torch.from_numpy(x), torch.from_numpy(y)))
    assert set(logs) == {"loss", "mae"}
