"""Keras 3's public step API on JAX: `train_step(state, data)`, `test_step`,
`predict_step`, `stateless_call`, `compute_loss`, and what `fit` / `evaluate` /
`predict` do with an override (issue 12).

The programs are written as Keras 3's guides write them, with `import lamina as keras`;
every number pinned here was checked by running the same program on Keras 3 (JAX
backend). The rule under test: `fit` always calls `self.train_step`, so an override is
what runs, whatever the loop does around it (chunks of steps, callbacks, validation).
"""

import os

import jax
import numpy as np
import pytest

import lamina as keras
from lamina import ops


def _regression(n=64, features=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features)).astype("float32")
    y = (x @ rng.normal(size=(features, 1))).astype("float32")
    return x, y


def _dense_model(cls, features=8):
    inputs = keras.Input(shape=(features,))
    return cls(inputs, keras.layers.Dense(1)(inputs))


# "Customizing what happens in fit() with JAX" (keras.io/guides/custom_train_step_in_jax)


class GuideModel(keras.Model):
    """Part (a): the compiled loss and metrics, driven by a hand-written step."""

    traced = 0

    def compute_loss_and_updates(
        self, trainable_variables, non_trainable_variables, x, y, training=False
    ):
        y_pred, non_trainable_variables = self.stateless_call(
            trainable_variables, non_trainable_variables, x, training=training
        )
        loss = self.compute_loss(x, y, y_pred)
        return loss, (y_pred, non_trainable_variables)

    def train_step(self, state, data):
        type(self).traced += 1  # runs while the step is traced
        (
            trainable_variables,
            non_trainable_variables,
            optimizer_variables,
            metrics_variables,
        ) = state
        x, y = data
        grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
        (loss, (y_pred, non_trainable_variables)), grads = grad_fn(
            trainable_variables, non_trainable_variables, x, y, training=True
        )
        trainable_variables, optimizer_variables = self.optimizer.stateless_apply(
            optimizer_variables, grads, trainable_variables
        )
        new_metrics_vars = []
        logs = {}
        for metric in self.metrics:
            this_metric_vars = metrics_variables[
                len(new_metrics_vars) : len(new_metrics_vars) + len(metric.variables)
            ]
            if metric.name == "loss":
                this_metric_vars = metric.stateless_update_state(this_metric_vars, loss)
            else:
                this_metric_vars = metric.stateless_update_state(this_metric_vars, y, y_pred)
            logs[metric.name] = metric.stateless_result(this_metric_vars)
            new_metrics_vars += this_metric_vars
        state = (
            trainable_variables,
            non_trainable_variables,
            optimizer_variables,
            new_metrics_vars,
        )
        return logs, state


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
def test_guide_part_a_compiled_loss_and_metrics():
    x, y = _regression()
    GuideModel.traced = 0
    model = _dense_model(GuideModel)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert GuideModel.traced >= 1
    # Keras 3: {'mae': [2.50, 2.49], 'loss': [9.23, 9.17]} on its own initial weights.
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][1] < history.history["loss"][0]
    assert history.history["mae"][1] < history.history["mae"][0]


class GuideModelOwnMetrics(keras.Model):
    """Part (b): no compiled loss; the model keeps its own loss tracker and metric."""

    traced = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def compute_loss_and_updates(
        self, trainable_variables, non_trainable_variables, x, y, training=False
    ):
        y_pred, non_trainable_variables = self.stateless_call(
            trainable_variables, non_trainable_variables, x, training=training
        )
        loss = self.loss_fn(y, y_pred)
        return loss, (y_pred, non_trainable_variables)

    def train_step(self, state, data):
        type(self).traced += 1
        (
            trainable_variables,
            non_trainable_variables,
            optimizer_variables,
            metrics_variables,
        ) = state
        x, y = data
        grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
        (loss, (y_pred, non_trainable_variables)), grads = grad_fn(
            trainable_variables, non_trainable_variables, x, y, training=True
        )
        trainable_variables, optimizer_variables = self.optimizer.stateless_apply(
            optimizer_variables, grads, trainable_variables
        )
        n = len(self.loss_tracker.variables)
        loss_tracker_vars = self.loss_tracker.stateless_update_state(metrics_variables[:n], loss)
        mae_metric_vars = self.mae_metric.stateless_update_state(metrics_variables[n:], y, y_pred)
        logs = {
            self.loss_tracker.name: self.loss_tracker.stateless_result(loss_tracker_vars),
            self.mae_metric.name: self.mae_metric.stateless_result(mae_metric_vars),
        }
        new_metrics_vars = loss_tracker_vars + mae_metric_vars
        state = (
            trainable_variables,
            non_trainable_variables,
            optimizer_variables,
            new_metrics_vars,
        )
        return logs, state

    @property
    def metrics(self):
        # Listed here so that `reset_states()` is called on them at each epoch's start.
        return [self.loss_tracker, self.mae_metric]


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
def test_guide_part_b_own_metrics_without_compiled_loss():
    x, y = _regression()
    GuideModelOwnMetrics.traced = 0
    model = _dense_model(GuideModelOwnMetrics)
    model.compile(optimizer="adam")
    assert [m.name for m in model.metrics] == ["loss", "mae"]
    assert len(model.metrics_variables) == len(model.loss_tracker.variables) + len(
        model.mae_metric.variables
    )
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert GuideModelOwnMetrics.traced >= 1
    # Keras 3: {'loss': [13.72, 13.66], 'mae': [2.79, 2.78]}.
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][1] < history.history["loss"][0]


class GuideModelTestStep(keras.Model):
    """Part (c): a custom `test_step`, state `(trainable, non_trainable, metrics)`."""

    traced = 0

    def test_step(self, state, data):
        type(self).traced += 1
        x, y = data
        trainable_variables, non_trainable_variables, metrics_variables = state
        y_pred, non_trainable_variables = self.stateless_call(
            trainable_variables, non_trainable_variables, x, training=False
        )
        loss = self.compute_loss(x, y, y_pred)
        new_metrics_vars = []
        logs = {}
        for metric in self.metrics:
            this_metric_vars = metrics_variables[
                len(new_metrics_vars) : len(new_metrics_vars) + len(metric.variables)
            ]
            if metric.name == "loss":
                this_metric_vars = metric.stateless_update_state(this_metric_vars, loss)
            else:
                this_metric_vars = metric.stateless_update_state(this_metric_vars, y, y_pred)
            logs[metric.name] = metric.stateless_result(this_metric_vars)
            new_metrics_vars += this_metric_vars
        state = (trainable_variables, non_trainable_variables, new_metrics_vars)
        return logs, state


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
def test_guide_part_c_custom_test_step_drives_evaluate():
    x, y = _regression()
    GuideModelTestStep.traced = 0
    model = _dense_model(GuideModelTestStep)
    model.compile(loss="mse", metrics=["mae"])
    logs = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert GuideModelTestStep.traced >= 1
    assert set(logs) == {"loss", "mae"}
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(logs["loss"], np.mean((pred - y) ** 2), rtol=1e-4)
    np.testing.assert_allclose(logs["mae"], np.mean(np.abs(pred - y)), rtol=1e-4)


# An override is what runs, however fit drives it


class MarkerModel(keras.Model):
    """Steps that leave the state alone and report a value nothing else could produce."""

    def train_step(self, state, data):
        return {"marker": 42.0}, state

    def test_step(self, state, data):
        return {"tested": 7.0}, state


class BatchLogs(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.markers = []

    def on_train_batch_end(self, batch, logs=None):
        self.markers.append(float(logs["marker"]))


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
@pytest.mark.parametrize("steps_per_execution", [1, 4])
@pytest.mark.parametrize("with_callback", [False, True])
def test_fit_never_bypasses_train_step_or_test_step(steps_per_execution, with_callback):
    x, y = _regression()
    model = _dense_model(MarkerModel)
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=steps_per_execution)
    before = [w.copy() for w in model.get_weights()]
    callback = BatchLogs()
    history = model.fit(
        x,
        y,
        epochs=2,
        batch_size=8,
        verbose=0,
        callbacks=[callback] if with_callback else None,
        validation_data=(x[:16], y[:16]),
    )
    # Keras 3 gives exactly these (and calls the hook once per compiled call).
    assert history.history == {"marker": [42.0, 42.0], "val_tested": [7.0, 7.0]}
    for old, new in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)
    if with_callback:
        assert callback.markers and set(callback.markers) == {42.0}


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
def test_on_batch_methods_and_evaluate_run_the_overrides():
    x, y = _regression(n=8)
    model = _dense_model(MarkerModel)
    model.compile(optimizer="sgd", loss="mse")
    assert model.train_on_batch(x, y, return_dict=True) == {"marker": 42.0}
    assert model.test_on_batch(x, y, return_dict=True) == {"tested": 7.0}
    assert model.evaluate(x, y, verbose=0, return_dict=True) == {"tested": 7.0}


class DoublingPredict(keras.Model):
    def predict_step(self, state, data):
        trainable_variables, non_trainable_variables = state
        outputs, non_trainable_variables = self.stateless_call(
            trainable_variables, non_trainable_variables, data, training=False
        )
        return outputs * 2.0, non_trainable_variables


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
@pytest.mark.parametrize("steps_per_execution", [1, 3])
def test_predict_runs_predict_step_override(steps_per_execution):
    x, _ = _regression(n=10)
    model = _dense_model(DoublingPredict)
    model.compile(steps_per_execution=steps_per_execution)
    kernel, bias = model.get_weights()
    expected = 2.0 * (x @ kernel + bias)
    # 10 rows in batches of 3: a partial last batch (and a partial last chunk).
    np.testing.assert_allclose(model.predict(x, batch_size=3, verbose=0), expected, atol=1e-5)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, atol=1e-5)
    np.testing.assert_allclose(model.predict(x[:1], verbose=0), expected[:1], atol=1e-5)
    np.testing.assert_allclose(model.predict_on_batch(x[:4]), expected[:4], atol=1e-5)


# A GAN with two optimizers, written the Keras-3-on-JAX way: one StatelessScope over the
# whole state, stateful code inside it, the new state read back from the scope.


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.seed_generator = keras.random.SeedGenerator(1337)
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn
        # Built before fit, so that their variables exist when the state is gathered.
        d_optimizer.build(self.discriminator.trainable_variables)
        g_optimizer.build(self.generator.trainable_variables)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def call(self, x):
        return self.discriminator(x)

    def _optimizer_variables(self):
        # The order of `state`'s optimizer values: the compiled optimizer's, then each
        # other optimizer the model holds, in the order they were assigned.
        return [
            v for opt in (self.optimizer, self.d_optimizer, self.g_optimizer) for v in opt.variables
        ]

    def train_step(self, state, data):
        trainable_values, non_trainable_values, optimizer_values, metrics_values = state
        real, _, _ = keras.utils.unpack_x_y_sample_weight(data)
        groups = (
            self.trainable_variables,
            self.non_trainable_variables,
            self._optimizer_variables(),
            self.metrics_variables,
        )
        mapping = []
        for variables, values in zip(groups, state, strict=True):
            mapping.extend(zip(variables, values, strict=True))

        with keras.backend.StatelessScope(state_mapping=mapping) as scope:
            z = keras.random.normal((real.shape[0], self.latent_dim), seed=self.seed_generator)
            d_vars = self.discriminator.trainable_variables
            d_fixed = [v.value for v in self.discriminator.non_trainable_variables]
            g_vars = self.generator.trainable_variables
            g_fixed = [v.value for v in self.generator.non_trainable_variables]
            g_values = [v.value for v in g_vars]

            def d_loss_fn(d_values):
                fake, _ = self.generator.stateless_call(g_values, g_fixed, z)
                real_logits, _ = self.discriminator.stateless_call(d_values, d_fixed, real)
                fake_logits, _ = self.discriminator.stateless_call(d_values, d_fixed, fake)
                return self.loss_fn(ops.ones_like(real_logits), real_logits) + self.loss_fn(
                    ops.zeros_like(fake_logits), fake_logits
                )

            d_loss, d_grads = jax.value_and_grad(d_loss_fn)([v.value for v in d_vars])
            self.d_optimizer.apply(d_grads, d_vars)
            d_values = [v.value for v in d_vars]  # the updated discriminator

            def g_loss_fn(g_values):
                fake, _ = self.generator.stateless_call(g_values, g_fixed, z)
                logits, _ = self.discriminator.stateless_call(d_values, d_fixed, fake)
                return self.loss_fn(ops.ones_like(logits), logits)

            g_loss, g_grads = jax.value_and_grad(g_loss_fn)(g_values)
            self.g_optimizer.apply(g_grads, g_vars)
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            logs = {
                "d_loss": self.d_loss_tracker.result(),
                "g_loss": self.g_loss_tracker.result(),
            }
        new_state = tuple([scope.get_current_value(v) for v in variables] for variables in groups)
        return logs, new_state


# JAX-signature custom step `train_step(self, state, data)`; torch steps are stateful.
@pytest.mark.engine("jax")
def test_gan_with_two_optimizers_trains_through_fit():
    keras.utils.set_random_seed(0)
    latent_dim, steps, batch_size = 4, 300, 32
    rng = np.random.default_rng(0)
    real = (3.0 + 0.5 * rng.normal(size=(steps * batch_size, 2))).astype("float32")
    discriminator = keras.Sequential(
        [keras.Input((2,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
    )
    generator = keras.Sequential([keras.Input((latent_dim,)), keras.layers.Dense(2)])
    gan = GAN(discriminator, generator, latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(0.01),
        g_optimizer=keras.optimizers.Adam(0.01),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    z = rng.normal(size=(512, latent_dim)).astype("float32")
    start = np.linalg.norm(generator.predict(z, verbose=0).mean(axis=0) - 3.0)
    seed_before = ops.convert_to_numpy(gan.seed_generator.state.value).copy()

    history = gan.fit(real, batch_size=batch_size, epochs=1, verbose=0)

    assert np.isfinite(history.history["d_loss"]).all()
    assert np.isfinite(history.history["g_loss"]).all()
    assert int(gan.d_optimizer.iterations) == steps
    assert int(gan.g_optimizer.iterations) == steps
    assert not np.array_equal(ops.convert_to_numpy(gan.seed_generator.state.value), seed_before)
    end = np.linalg.norm(generator.predict(z, verbose=0).mean(axis=0) - 3.0)
    # A pure-JAX run of this setup (4 seeds): ~4.2 -> 0.25..0.57 after 300 steps.
    assert end < 0.5 * start, (start, end)


# Knowledge distillation (keras.io/examples/vision/knowledge_distillation)


class Distiller(keras.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(
        self,
        optimizer,
        metrics,
        student_loss_fn,
        distillation_loss_fn,
        alpha=0.1,
        temperature=3,
    ):
        super().compile(optimizer=optimizer, metrics=metrics)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, allow_empty=False):
        teacher_pred = self.teacher(x, training=False)
        student_loss = self.student_loss_fn(y, y_pred)
        distillation_loss = self.distillation_loss_fn(
            ops.softmax(teacher_pred / self.temperature, axis=1),
            ops.softmax(y_pred / self.temperature, axis=1),
        ) * (self.temperature**2)
        return self.alpha * student_loss + (1 - self.alpha) * distillation_loss

    def call(self, x):
        return self.student(x)


def _distiller(alpha, temperature, lr, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = rng.integers(0, 3, size=(32,))
    teacher = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    # Frozen, unlike the example, so that the gradient below involves the student only.
    teacher.trainable = False
    teacher.set_weights(
        [rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=(3,)).astype("float32")]
    )
    student = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    student.set_weights([0.1 * rng.normal(size=(4, 3)).astype("float32"), np.zeros(3, "float32")])
    distiller = Distiller(student, teacher)
    distiller.compile(
        optimizer=keras.optimizers.SGD(lr),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
        student_loss_fn=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        distillation_loss_fn=keras.losses.KLDivergence(),
        alpha=alpha,
        temperature=temperature,
    )
    return distiller, x, y


def _mixed_loss(x, y, teacher_weights, alpha, temperature):
    """The Distiller's loss as a JAX function of the student's (kernel, bias)."""
    jnp = jax.numpy
    kernel_t, bias_t = teacher_weights

    def loss(params):
        kernel, bias = params
        s = x @ kernel + bias
        t = x @ kernel_t + bias_t
        ce = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(s), y[:, None], axis=1))
        p = jnp.clip(jax.nn.softmax(t / temperature), 1e-7, 1.0)
        q = jnp.clip(jax.nn.softmax(s / temperature), 1e-7, 1.0)
        kl = jnp.mean(jnp.sum(p * jnp.log(p / q), axis=-1))
        return alpha * ce + (1 - alpha) * kl * temperature**2

    return loss


def test_distiller_compute_loss_override_is_what_trains():
    alpha, temperature, lr = 0.3, 2.0, 0.5
    distiller, x, y = _distiller(alpha, temperature, lr)
    kernel0, bias0 = [w.copy() for w in distiller.student.get_weights()]
    teacher_weights = [w.copy() for w in distiller.teacher.get_weights()]
    loss_fn = _mixed_loss(x, y, teacher_weights, alpha, temperature)
    expected_loss, (grad_kernel, grad_bias) = jax.jit(jax.value_and_grad(loss_fn))((kernel0, bias0))

    logs = distiller.train_on_batch(x, y, return_dict=True)

    # Keras 3: loss 0.754823 (the JAX formula gives the same), accuracy 0.25, and the
    # step moves the student by exactly -lr * grad (to 3e-8).
    assert set(logs) == {"loss", "sparse_categorical_accuracy"}
    np.testing.assert_allclose(logs["loss"], float(expected_loss), rtol=1e-5)
    kernel1, bias1 = distiller.student.get_weights()
    np.testing.assert_allclose(kernel1, kernel0 - lr * ops.convert_to_numpy(grad_kernel), atol=1e-6)
    np.testing.assert_allclose(bias1, bias0 - lr * ops.convert_to_numpy(grad_bias), atol=1e-6)
    for old, new in zip(teacher_weights, distiller.teacher.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)


def test_distiller_fit_and_evaluate_report_the_compiled_metric():
    distiller, x, y = _distiller(alpha=0.1, temperature=3.0, lr=0.1)
    history = distiller.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert set(history.history) == {"loss", "sparse_categorical_accuracy"}
    assert history.history["loss"][1] < history.history["loss"][0]
    logs = distiller.evaluate(x, y, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "sparse_categorical_accuracy"}
    predicted = np.argmax(distiller.predict(x, verbose=0), axis=-1)
    np.testing.assert_allclose(logs["sparse_categorical_accuracy"], np.mean(predicted == y))
    # Keras 3 returns [loss, accuracy] without return_dict.
    loss, accuracy = distiller.evaluate(x, y, verbose=0)
    assert accuracy == pytest.approx(logs["sparse_categorical_accuracy"])
    assert loss == pytest.approx(logs["loss"], rel=1e-6)


# stateless_call


def test_stateless_call_uses_the_given_values_and_leaves_the_layer_alone():
    rng = np.random.default_rng(1)
    layer = keras.layers.Dense(3)
    layer.build((None, 4))
    kernel = rng.normal(size=(4, 3)).astype("float32")
    bias = rng.normal(size=(3,)).astype("float32")
    before = [w.copy() for w in layer.get_weights()]
    x = rng.normal(size=(5, 4)).astype("float32")
    outputs, non_trainable = layer.stateless_call([kernel, bias], [], x)
    np.testing.assert_allclose(
        ops.convert_to_numpy(outputs), x @ kernel + bias, rtol=1e-5, atol=1e-6
    )
    assert list(non_trainable) == []
    for old, new in zip(before, layer.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)


def test_stateless_call_return_losses():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 4)).astype("float32")
    inputs = keras.Input((4,))
    model = keras.Model(
        inputs, keras.layers.Dense(3, activity_regularizer=keras.regularizers.L2(0.1))(inputs)
    )
    values = [v.value for v in model.trainable_variables]
    outputs, _, losses = model.stateless_call(values, [], x, return_losses=True)
    # Keras 3: [0.1 * sum(out ** 2) / batch_size], and `model.losses` stays empty.
    assert len(losses) == 1
    expected = 0.1 * np.sum(np.square(ops.convert_to_numpy(outputs))) / 5
    np.testing.assert_allclose(float(ops.convert_to_numpy(losses[0])), expected, rtol=1e-5)
    assert list(model.losses) == []

    class AddsLoss(keras.layers.Layer):
        def call(self, x):
            self.add_loss(ops.sum(x))
            return x

    layer = AddsLoss()
    layer(x)
    _, _, losses = layer.stateless_call([], [], x, return_losses=True)
    assert len(losses) == 1
    np.testing.assert_allclose(float(ops.convert_to_numpy(losses[0])), x.sum(), rtol=1e-5)


def test_stateless_call_returns_updated_batch_norm_statistics():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 4)).astype("float32")
    layer = keras.layers.BatchNormalization(momentum=0.5)
    layer.build((None, 4))
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]
    outputs, new_non_trainable = layer.stateless_call(trainable, non_trainable, x, training=True)
    new_mean, new_var = (ops.convert_to_numpy(v) for v in new_non_trainable)
    # Keras 3: moving = 0.5 * moving + 0.5 * batch statistic (the biased variance).
    np.testing.assert_allclose(new_mean, 0.5 * x.mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_var, 0.5 + 0.5 * x.var(axis=0), rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(outputs).mean(axis=0), 0.0, atol=1e-5)
    moving_mean, moving_var = layer.non_trainable_variables
    np.testing.assert_array_equal(ops.convert_to_numpy(moving_mean.value), np.zeros(4))
    np.testing.assert_array_equal(ops.convert_to_numpy(moving_var.value), np.ones(4))


# pack / unpack, against Keras's own functions


def _keras():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    return pytest.importorskip("keras")


def _same_structure(a, b):
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same_structure(u, v) for u, v in zip(a, b, strict=True))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and a.keys() == b.keys()
    return a is b


def test_pack_and_unpack_match_keras():
    k = _keras()
    x, y, sw = np.ones((2, 1)), np.zeros((2, 1)), np.full((2,), 0.5)
    packs = [
        (x,),
        (x, y),
        (x, y, sw),
        (x, None, sw),  # Keras drops a sample weight given without y
        ((x, y),),  # a tuple x is wrapped, so it is not taken for (x, y)
        ([x, y],),
        ([x, y], y),
    ]
    for args in packs:
        ours = keras.utils.pack_x_y_sample_weight(*args)
        theirs = k.utils.pack_x_y_sample_weight(*args)
        assert _same_structure(ours, theirs), (args, ours, theirs)
    unpacks = [x, (x,), (x, y), (x, y, sw), [x, y], {"a": x}, ((x, y),)]
    for data in unpacks:
        ours = keras.utils.unpack_x_y_sample_weight(data)
        theirs = k.utils.unpack_x_y_sample_weight(data)
        assert _same_structure(ours, theirs), (data, ours, theirs)
    assert keras.utils.unpack_x_y_sample_weight({"a": x})[0]["a"] is x
    with pytest.raises(ValueError, match="sample_weight"):
        keras.utils.unpack_x_y_sample_weight((x, y, sw, sw))


# make_*_function


@pytest.mark.parametrize("kind", ["train", "test", "predict"])
def test_make_function_caches_until_forced(kind):
    model = _dense_model(keras.Model)
    model.compile(optimizer="sgd", loss="mse")
    assert getattr(model, f"{kind}_function") is None
    make = getattr(model, f"make_{kind}_function")
    make()
    first = getattr(model, f"{kind}_function")
    assert first is not None
    make()
    assert getattr(model, f"{kind}_function") is first
    make(force=True)
    assert getattr(model, f"{kind}_function") is not first
