"""Pure update rules: `(param, grad, slots, lr, step) -> (new_param, new_slots)`.

Each rule is a plain function of tensors, with its hyperparameters bound by the optimizer
that uses it. `step` is the 1-based step number as a float tensor. The equations follow
the published algorithms as Keras 3 implements them.
"""

from __future__ import annotations

from lamina import ops


def sgd(param, grad, slots, lr, step, momentum=0.0, nesterov=False):
    """Plain or momentum SGD: `m = momentum * m - lr * g`; `param += m` (Nesterov:
    `param += momentum * m - lr * g`)."""
    if momentum == 0.0:
        return param - lr * grad, slots
    (m,) = slots
    m = momentum * m - lr * grad
    if nesterov:
        return param + momentum * m - lr * grad, (m,)
    return param + m, (m,)


def adam(param, grad, slots, lr, step, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False):
    """Adam (Kingma & Ba, 2015) with the bias correction folded into the step size."""
    m, v = slots[0], slots[1]
    alpha = lr * ops.sqrt(1.0 - beta_2**step) / (1.0 - beta_1**step)
    m = m + (grad - m) * (1.0 - beta_1)
    v = v + (ops.square(grad) - v) * (1.0 - beta_2)
    if amsgrad:
        v_hat = ops.maximum(slots[2], v)
        return param - m * alpha / (ops.sqrt(v_hat) + epsilon), (m, v, v_hat)
    return param - m * alpha / (ops.sqrt(v) + epsilon), (m, v)


def adamax(param, grad, slots, lr, step, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """Adamax: Adam with the infinity norm of past gradients."""
    m, u = slots
    m = m + (grad - m) * (1.0 - beta_1)
    u = ops.maximum(beta_2 * u, ops.abs(grad))
    return param - (lr * m) / ((1.0 - beta_1**step) * (u + epsilon)), (m, u)


def nadam(param, grad, slots, lr, step, u_product, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """Nadam (Dozat, 2016): Adam with Nesterov momentum and a momentum-cache schedule.

    `u_product` is the running product of the momentum cache up to this step.
    """
    m, v = slots
    u_t = beta_1 * (1.0 - 0.5 * 0.96**step)
    u_t_1 = beta_1 * (1.0 - 0.5 * 0.96 ** (step + 1.0))
    u_product_t_1 = u_product * u_t_1
    m = m + (grad - m) * (1.0 - beta_1)
    v = v + (ops.square(grad) - v) * (1.0 - beta_2)
    m_hat = u_t_1 * m / (1.0 - u_product_t_1) + (1.0 - u_t) * grad / (1.0 - u_product)
    v_hat = v / (1.0 - beta_2**step)
    return param - m_hat * lr / (ops.sqrt(v_hat) + epsilon), (m, v)


def rmsprop(param, grad, slots, lr, step, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    """RMSprop (Hinton): divide by a running root mean square of the gradients."""
    velocity = rho * slots[0] + (1.0 - rho) * ops.square(grad)
    rest = list(slots[1:])
    if centered:
        average = rho * rest[0] + (1.0 - rho) * grad
        denominator = velocity - ops.square(average) + epsilon
        rest[0] = average
    else:
        denominator = velocity + epsilon
    increment = lr * grad / ops.sqrt(denominator)
    if momentum > 0:
        m = momentum * rest[-1] + increment
        rest[-1] = m
        return param - m, (velocity, *rest)
    return param - increment, (velocity, *rest)


def adagrad(param, grad, slots, lr, step, epsilon=1e-7):
    """Adagrad (Duchi et al., 2011): per-parameter rates from summed squared gradients."""
    (accumulator,) = slots
    accumulator = accumulator + ops.square(grad)
    return param - lr * grad / ops.sqrt(accumulator + epsilon), (accumulator,)


def adadelta(param, grad, slots, lr, step, rho=0.95, epsilon=1e-7):
    """Adadelta (Zeiler, 2012): step sizes from running averages of updates."""
    accumulated_grad, accumulated_delta = slots
    accumulated_grad = rho * accumulated_grad + (1.0 - rho) * ops.square(grad)
    delta = -ops.sqrt(accumulated_delta + epsilon) / ops.sqrt(accumulated_grad + epsilon) * grad
    accumulated_delta = rho * accumulated_delta + (1.0 - rho) * ops.square(delta)
    return param + lr * delta, (accumulated_grad, accumulated_delta)


def lion(param, grad, slots, lr, step, beta_1=0.9, beta_2=0.99):
    """Lion (Chen et al., 2023): the sign of an interpolated momentum."""
    (m,) = slots
    update = ops.sign(beta_1 * m + (1.0 - beta_1) * grad)
    m = beta_2 * m + (1.0 - beta_2) * grad
    return param - lr * update, (m,)
