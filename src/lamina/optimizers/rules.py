"""Pure update rules and gradient transforms: plain functions of tensors, no Variables.

An update rule maps one gradient and its slots to an update and new slots:

    rule(grad, slots, learning_rate, step, **hyperparameters) -> (update, new_slots)

The update is *added* to the parameter (`apply_updates`), as in Optax, and `step` is the
1-based step number as a float tensor. Rules that keep the learning rate inside their
state (SGD and RMSprop momentum) take it as an argument, which is how Keras writes them
and why changing the learning rate between steps matches Keras exactly.

An optimizer step is the composition of the pieces below, in Keras 3's order:
`clip_*` the gradients, `decay_weights`, the rule, `apply_updates`, then
`moving_average` of the weights. `Optimizer.apply` runs them over its variables; every
function here can equally be called on arrays inside `jax.jit` or `grad`.

>>> import numpy as np
>>> update, (m,) = sgd(np.float32(2.0), (np.float32(0.0),), 0.1, 1.0, momentum=0.9)
>>> round(float(update), 4), round(float(m), 4)
(-0.2, -0.2)
"""

from __future__ import annotations

from lamina import ops

# Gradient transforms -----------------------------------------------------------------


def clip_by_value(grad, clipvalue):
    """Clip each element of `grad` to `[-clipvalue, clipvalue]`."""
    return ops.clip(grad, -clipvalue, clipvalue)


def clip_by_norm(grad, clipnorm):
    """Rescale `grad` so its L2 norm is at most `clipnorm` (Keras's `_clip_by_norm`)."""
    l2sum = ops.sum(ops.square(grad))
    positive = l2sum > 0
    # The two-sided `where` keeps the gradient of sqrt finite at zero.
    norm = ops.where(positive, ops.sqrt(ops.where(positive, l2sum, 1.0)), l2sum)
    return grad * clipnorm / ops.maximum(norm, clipnorm)


def global_norm(grads):
    """The L2 norm of all `grads` taken together."""
    return ops.sqrt(sum(ops.sum(ops.square(ops.cast(g, "float32"))) for g in grads))


def clip_by_global_norm(grads, clipnorm):
    """Rescale all `grads` by one factor so their global norm is at most `clipnorm`.

    A non-finite global norm makes every gradient NaN, as in Keras, so a diverged step
    shows up instead of being silently clipped.
    """
    norm = global_norm(grads)
    scale = clipnorm * ops.minimum(1.0 / norm, 1.0 / clipnorm) + (norm - norm)
    return [g * ops.cast(scale, ops.dtype(g)) for g in grads]


def decay_weights(param, weight_decay, learning_rate):
    """Decoupled weight decay (Loshchilov & Hutter): `param - param * wd * lr`."""
    return param - param * weight_decay * learning_rate


def apply_updates(param, update):
    """The new parameter value: `param + update`."""
    return param + update


def moving_average(average, value, momentum):
    """One step of an exponential moving average: `average * m + value * (1 - m)`."""
    return average * momentum + value * (1.0 - momentum)


# Update rules --------------------------------------------------------------------------


def sgd(grad, slots, learning_rate, step, momentum=0.0, nesterov=False):
    """Gradient descent. With momentum: `m = momentum * m - lr * g`; the update is `m`
    (Nesterov: `momentum * m - lr * g`). Slots: `(m,)` with momentum, else `()`."""
    if not slots:
        return -learning_rate * grad, ()
    (m,) = slots
    m = momentum * m - learning_rate * grad
    update = momentum * m - learning_rate * grad if nesterov else m
    return update, (m,)


def adam(grad, slots, learning_rate, step, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False):
    """Adam (Kingma & Ba, 2015), bias correction folded into the step size as Keras does
    (so `epsilon` is added to the uncorrected `sqrt(v)`). Slots: `(m, v)` or, with
    `amsgrad` (Reddi et al., 2018), `(m, v, v_hat)`."""
    m, v = slots[0], slots[1]
    m = m + (grad - m) * (1.0 - beta_1)
    v = v + (ops.square(grad) - v) * (1.0 - beta_2)
    new_slots = (m, v)
    if amsgrad:
        v = ops.maximum(slots[2], v)
        new_slots = (*new_slots, v)
    alpha = learning_rate * ops.sqrt(1.0 - ops.power(beta_2, step))
    alpha = alpha / (1.0 - ops.power(beta_1, step))
    return -(m * alpha) / (ops.sqrt(v) + epsilon), new_slots


def adamax(grad, slots, learning_rate, step, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """Adamax (Kingma & Ba, 2015, section 7): Adam with the infinity norm.
    Slots: `(m, u)`."""
    m, u = slots
    m = m + (grad - m) * (1.0 - beta_1)
    u = ops.maximum(beta_2 * u, ops.abs(grad))
    update = -(learning_rate * m) / ((1.0 - ops.power(beta_1, step)) * (u + epsilon))
    return update, (m, u)


def nadam_momentum_cache(step, beta_1=0.9, schedule_decay=None):
    """Nadam's momentum schedule `mu_t = beta_1 * (1 - 0.5 * 0.96 ** t)` (Keras 3); with
    Keras 2's `schedule_decay` `s`, `beta_1 * (1 - 0.5 * 0.96 ** (t * s))`."""
    exponent = step if schedule_decay is None else step * schedule_decay
    return beta_1 * (1.0 - 0.5 * ops.power(0.96, exponent))


def nadam(
    grad,
    slots,
    learning_rate,
    step,
    u_product,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    schedule_decay=None,
):
    """Nadam (Dozat, 2016): Adam with Nesterov momentum.

    `u_product` is the product of `nadam_momentum_cache` over steps `1..step` (the
    optimizer keeps it as a variable). Slots: `(m, v)`.
    """
    m, v = slots
    u_t = nadam_momentum_cache(step, beta_1, schedule_decay)
    u_next = nadam_momentum_cache(step + 1.0, beta_1, schedule_decay)
    m = m + (grad - m) * (1.0 - beta_1)
    v = v + (ops.square(grad) - v) * (1.0 - beta_2)
    m_hat = u_next * m / (1.0 - u_product * u_next) + (1.0 - u_t) * grad / (1.0 - u_product)
    v_hat = v / (1.0 - ops.power(beta_2, step))
    return -(m_hat * learning_rate) / (ops.sqrt(v_hat) + epsilon), (m, v)


def rmsprop(grad, slots, learning_rate, step, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    """RMSprop (Hinton, 2012). Slots: `(velocity[, momentum][, average_gradient])`, the
    optional ones present when `momentum > 0` and `centered`."""
    velocity = rho * slots[0] + (1.0 - rho) * ops.square(grad)
    new_slots = [velocity]
    denominator = velocity + epsilon
    if centered:
        average = rho * slots[-1] + (1.0 - rho) * grad
        denominator = velocity - ops.square(average) + epsilon
    increment = learning_rate * grad / ops.sqrt(denominator)
    update = -increment
    if momentum > 0:
        moment = momentum * slots[1] + increment
        new_slots.append(moment)
        update = -moment
    if centered:
        new_slots.append(average)
    return update, tuple(new_slots)


def adagrad(grad, slots, learning_rate, step, epsilon=1e-7):
    """Adagrad (Duchi et al., 2011). Slots: `(accumulator,)`."""
    (accumulator,) = slots
    accumulator = accumulator + ops.square(grad)
    return -(learning_rate * grad) / ops.sqrt(accumulator + epsilon), (accumulator,)


def adadelta(grad, slots, learning_rate, step, rho=0.95, epsilon=1e-7):
    """Adadelta (Zeiler, 2012). Slots: `(accumulated_grad, accumulated_delta_var)`."""
    accumulated_grad, accumulated_delta = slots
    accumulated_grad = rho * accumulated_grad + (1.0 - rho) * ops.square(grad)
    delta = -ops.sqrt(accumulated_delta + epsilon) * grad / ops.sqrt(accumulated_grad + epsilon)
    accumulated_delta = rho * accumulated_delta + (1.0 - rho) * ops.square(delta)
    return learning_rate * delta, (accumulated_grad, accumulated_delta)


def lion(grad, slots, learning_rate, step, beta_1=0.9, beta_2=0.99):
    """Lion (Chen et al., 2023): the sign of an interpolated momentum. Slots: `(m,)`."""
    (m,) = slots
    update = -learning_rate * ops.sign(m * beta_1 + grad * (1.0 - beta_1))
    return update, (m * beta_2 + grad * (1.0 - beta_2),)
