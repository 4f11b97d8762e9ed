"""The loops of `fit`, `evaluate` and `predict`: batches in, compiled calls out.

Batches enter here from `data_adapter` and reach a program (`programs.py`) through the
pass's `targets.StepData`, made once per pass: inputs in graph order, class weights
folded into the sample weights, packed as the `data` a step receives; nothing goes back
to the trainer on the way. With `steps_per_execution=k`, up to k batches of one shape
run as one call. Training arrays that fit `data_adapter.resident_bytes()` go to the device
once per `fit`, and each call then receives only where its batches sit.

During `fit` the training state lives outside the variables (`runtime.LiveState`) and is
written back lazily: at each epoch's end, and when a callback reads `callback.model`
(as Keras does), never merely because a callback has batch hooks.
"""

from __future__ import annotations

import contextlib
import signal
import threading

import numpy as np

from lamina import backend, tree
from lamina.backend.common.global_state import current_distribution
from lamina.training import concurrency, data_adapter, host_arrays, loop_utils, runtime, structures
from lamina.training import steps as steps_module
from lamina.training.targets import StepData


def flat_logs(logs) -> dict:
    """Logs with nested dicts (a `compile_metrics` result) flattened into one, keys
    sorted by name: Keras 3 hands out every logs dict in that order (its
    `pythonify_logs`), so history keys, `evaluate(return_dict=True)` and callbacks read
    'accuracy', 'loss', 'val_accuracy', 'val_loss'. A nested dict's keys, sorted, take
    its place."""
    if not isinstance(logs, dict):
        raise TypeError(
            f"A train/test step must return its logs as a dict of metric values; received "
            f"{type(logs).__name__}. Return e.g. `{{'loss': loss}}` (or "
            "`self.get_metrics_result()`) as the first element of `(logs, state)`."
        )
    out = {}
    for key, value in sorted(logs.items(), key=lambda item: item[0]):
        if isinstance(value, dict):
            out.update(flat_logs(value))
        else:
            out[key] = value
    return out


@contextlib.contextmanager
def steps_finish_on_ctrl_c(live):
    """During `fit`: a Ctrl-C (SIGINT) that arrives while a step replaces the state
    raises its `KeyboardInterrupt` once the step is done, so the variables hold a
    complete step, never half of one (torch updates them one by one; on JAX the old
    state is donated before the new one is kept). Outside steps it raises at once.
    Only where Python's own handler is installed, in the main thread."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def handler(signum, frame):
        if not live.in_step:
            raise KeyboardInterrupt
        live.interrupted = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def fit_epochs(
    model,
    batches,
    callback_list,
    live,
    num_epochs,
    initial_epoch,
    class_weight,
    validation_data,
    validation,
):
    """The epochs of `fit` (from `initial_epoch`, or a backup's resume point); returns
    `model.history`."""
    callback_list.on_train_begin()
    resume, model._resume_point = model._resume_point, None
    if resume is not None:
        initial_epoch = resume["epoch"]
    epoch_logs = {}
    for epoch in range(initial_epoch, num_epochs):
        skip = 0
        if resume is not None and epoch == resume["epoch"]:
            skip = resume["step"]
        if skip == 0:
            # Mid-epoch, the restored metrics carry on; at an epoch's start (a backup
            # from the previous epoch's end holds its totals) they start afresh.
            model.reset_metrics()
        callback_list.on_epoch_begin(epoch)
        if resume is not None and epoch == resume["epoch"]:
            np.random.set_state(resume["rng_state"])
        # The data order is drawn from this state; a backup records it to redraw it.
        model._epoch_rng_state = np.random.get_state()
        order = batches.epoch_order()
        logs, seen = train_epoch(model, batches, order, class_weight, callback_list, live, skip)
        if seen == 0:
            raise ValueError(
                "The training data produced no batches this epoch; check the data or "
                "steps_per_epoch."
            )
        live.sync()
        epoch_logs = pass_logs(model, logs)
        if validation_data is not None and loop_utils.should_validate(epoch, validation["freq"]):
            vx, vy, vsw = data_adapter.unpack_validation_data(validation_data)
            val_logs = model.evaluate(
                vx,
                vy,
                sample_weight=vsw,
                batch_size=validation["batch_size"],
                steps=validation["steps"],
                verbose=0,
                callbacks=callback_list,  # validation fires the test hooks, as in Keras
                return_dict=True,
                _internal=True,
            )
            epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
        batches.on_epoch_end()
        callback_list.on_epoch_end(epoch, epoch_logs)
        if model.stop_training:
            break
    if hasattr(model.optimizer, "finalize_variable_values"):
        # The cached list (a walk over the layers would cost ~0.3 ms per `fit` call).
        model.optimizer.finalize_variable_values(runtime.state_variables(model)[0])
    callback_list.on_train_end(epoch_logs)
    return model.history


def build_from_first_batch(model, batches):
    """Build everything a step builds (structures, metrics, optimizer) from one batch.

    A generator's first batch is peeked and handed back to the epoch, not lost.
    """
    first = next(iter(batches.batches()), None) if loop_utils.is_arrays(batches) else batches.peek()
    if first is not None:
        structures.ensure_built(model, first[0], first[1])


def train_epoch(model, batches, order, class_weight, callback_list, live, skip=0):
    """One epoch of training; returns `(logs, steps_seen)`."""
    if loop_utils.is_arrays(batches):
        return _train_array_epoch(model, batches, order, class_weight, callback_list, live, skip)
    k = model.steps_per_execution
    step = skip
    logs = {}
    pending = []  # batches of one shape waiting to fill a chunk of k
    fns = prep = None

    def flush(step):
        chunk = pending[0] if len(pending) == 1 else loop_utils.stack_batches(pending)
        return _train_chunk(fns, live, chunk, len(pending), step, callback_list)

    for x, y, sw in batches.batches(order, start=skip):
        if fns is None:
            structures.ensure_built(model, x, y)
            fns = model.make_train_function()
            prep = StepData(model, class_weight)
        data = prep(x, y, sw)
        if pending and not loop_utils.same_shapes([pending[0], data]):
            # A batch of another shape (the last, partial one) ends the group.
            logs, step = flush(step)
            pending = []
            if model.stop_training:
                break
        pending.append(data)
        if len(pending) == k:
            logs, step = flush(step)
            pending = []
            if model.stop_training:
                break
    if pending and not model.stop_training:
        # The remainder of fewer than k same-shaped batches runs as one shorter scan.
        logs, step = flush(step)
    return logs, step


def _train_array_epoch(model, batches, order, class_weight, callback_list, live, skip):
    fns = resident = prep = None
    step = skip
    logs = {}
    size = batches.batch_size
    for rows, n in batches.row_chunks(order, start=skip, k=model.steps_per_execution):
        if fns is None:
            first = slice(rows.start, rows.start + size) if isinstance(rows, slice) else rows[:size]
            structures.ensure_built(
                model, data_adapter.take(batches.x, first), data_adapter.take(batches.y, first)
            )
            fns = model.make_train_function()
            prep = StepData(model, class_weight)
            prep.check_all(batches.y)
            resident = _resident_data(prep, batches)
        if resident is not None:
            if isinstance(rows, slice):  # unshuffled: where each batch starts
                starts = rows.start + size * np.arange(n, dtype="int32")
                where = ("from", starts if n > 1 else starts[0], (rows.stop - rows.start) // n)
            else:
                where = ("at", rows.astype("int32").reshape((n, -1) if n > 1 else (-1,)))
            logs, step = _train_chunk(fns, live, where, n, step, callback_list, resident)
        else:
            x, y, sw = (data_adapter.take(s, rows) for s in batches.arrays)
            data = prep(x, y, sw, check=False)
            if n > 1:
                data = loop_utils.split_rows(data, n)
            logs, step = _train_chunk(fns, live, data, n, step, callback_list)
        if model.stop_training:
            break
    return logs, step


def _placed(data, chunked: bool):
    """`data` split over the devices of the distribution in use (as it is without one)."""
    distribution = current_distribution()
    return data if distribution is None else distribution._place_batch(data, chunked)


def _step_done(values):
    """Tell the distribution in use (if any) that a step returned `values`."""
    distribution = current_distribution()
    if distribution is not None:
        distribution._step_done(values)


def _resident_data(prep, batches):
    """The whole prepared training set on the device, once per `fit` (None if too big,
    or under a distribution, whose batches are split as each step takes them)."""
    if (
        batches.nbytes > data_adapter.resident_bytes()
        or current_distribution() is not None
        or any(isinstance(a, host_arrays.SparseRows) for a in tree.flatten(list(batches.arrays)))
    ):
        return None  # (SciPy sparse data stays on the host, densified a batch at a time)
    if getattr(batches, "resident", None) is None:
        data = prep(*batches.arrays, check=False)
        # `device_put` copies host arrays as they are (2x faster than a conversion).
        batches.resident = tree.map_structure(
            lambda a: None if a is None else backend.core.device_put(a), data
        )
    return batches.resident


def _train_chunk(fns, live, data, n, step, callback_list, resident=None):
    """Run `n` batches as one compiled call. With `resident` (the training set on the
    device), `data` says where the batches sit: `("from", starts, rows_per_batch)` or
    `("at", indices)`."""
    callback_list.on_train_batch_begin(step)
    # A step replaces the weights (donating or updating them in place): it waits for
    # `predict` calls in other threads to finish with them, and they for it.
    with concurrency.state_lock(live.model).writing():
        live.in_step = True
        try:
            state = live.get(fns["one"])
            if resident is None:
                state, logs = fns["one" if n == 1 else "many"](state, _placed(data, n > 1))
                _step_done(logs)
            elif data[0] == "from":
                _, starts, rows = data
                state, logs = fns["one_from" if n == 1 else "many_from"](
                    state, resident, starts, rows
                )
            else:
                state, logs = fns["one_at" if n == 1 else "many_at"](state, resident, data[1])
            live.set(state)
        finally:
            live.in_step = False
    if live.interrupted:
        live.interrupted = False
        raise KeyboardInterrupt
    step += n
    logs = flat_logs(logs)
    callback_list.on_train_batch_end(step - 1, logs)
    return logs, step


def evaluation_pass(model, batches, callback_list):
    """Run the test step over every batch; returns the last logs (metrics reset first)."""
    fns = weights = metrics_values = prep = None
    logs = {}
    step = 0
    for xb, yb, swb, n in _chunks(model, batches):
        if fns is None:
            structures.ensure_built(model, *(loop_utils.first_rows(s, n) for s in (xb, yb)))
            fns = model.make_test_function()
            model.reset_metrics()
            trainable, non_trainable, metrics_values = runtime.read_state(model, fns["one"], "test")
            weights = (trainable, non_trainable)
            prep = StepData(model)
            if loop_utils.is_arrays(batches):
                prep.check_all(batches.y)
        data = prep(xb, yb, swb, check=not loop_utils.is_arrays(batches))
        callback_list.on_test_batch_begin(step)
        if n == 1:
            metrics_values, logs = fns["one"](weights, metrics_values, _placed(data, False))
        else:
            data = _placed(loop_utils.split_rows(data, n), True)
            metrics_values, logs = fns["many"](weights, metrics_values, data)
        _step_done(logs)
        step += n
        logs = flat_logs(logs)
        callback_list.on_test_batch_end(step - 1, logs)
    if fns is not None:
        runtime.write_state(model, metrics_values, kind="test")
    return logs, step


def prediction_pass(model, batches, callback_list):
    """Run the predict step over every batch; returns the outputs joined on the host
    (NumPy arrays in the outputs' structure), None when no batch came."""
    fns = weights = prep = None
    gathered = loop_utils.HostOutputs()
    step = 0
    for xb, _, _, n in _chunks(model, batches):
        if fns is None:
            structures.ensure_built_for_predict(model, loop_utils.first_rows(xb, n))
            fns = model.make_predict_function()
            weights = runtime.read_state(model, fns["one"], "predict")
            prep = StepData(model)
        data = prep.inputs(xb)
        if callback_list is not None:
            callback_list.on_predict_batch_begin(step)
        if n == 1:
            out, non_trainable = fns["one"](weights, _placed(data, False))
        else:
            chunk = _placed(loop_utils.split_rows(data, n), True)
            out, non_trainable = fns["many"](weights, chunk)
            if callback_list is not None:
                # A callback sees a call's rows as one batch; otherwise the host
                # joins the stacked outputs (no engine call per chunk).
                out = tree.map_structure(lambda v: v.reshape((-1,) + v.shape[2:]), out)
        _step_done(out)
        weights = runtime.carry_non_trainable(model, weights, non_trainable)
        gathered.add(out, stacked=n > 1 and callback_list is None)
        step += n
        if callback_list is not None:
            callback_list.on_predict_batch_end(step - 1, {"outputs": out})
    return gathered.result()


def log_value(value):
    """A log as Keras hands it out: a Python float, or a writable NumPy array for a
    metric whose result is not one number (`R2Score(class_aggregation=None)`,
    `TruePositives(thresholds=[...])`)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.array(backend.convert_to_numpy(value))


def python_logs(logs) -> dict:
    """`flat_logs` with each value a `log_value`."""
    return {k: log_value(v) for k, v in flat_logs(logs).items()}


def pass_logs(model, logs) -> dict:
    """The logs of a finished pass, as Python floats (arrays for metrics with several
    values). As in Keras, when the step's logs
    name exactly the model's metrics they are read from the metrics (a resumed epoch may
    have run no step); a custom step's own logs are kept as they are."""
    # The default step's logs are `get_metrics_result()` of the state its last call
    # left, the state the metrics hold now: computing them again would run the metrics'
    # `result()` eagerly, each op a program compiled in a fresh process.
    if not (logs and _steps_log_the_metrics(model)):
        results = model.get_metrics_result()
        if not logs or set(flat_logs(logs)) == set(results):
            logs = results
    return python_logs(logs)


def _steps_log_the_metrics(model) -> bool:
    """Whether the train and test steps are lamina's own, whose logs are the metrics'
    results (neither they nor the metrics methods they call overridden)."""
    cls, form = type(model), model._step_form
    names = ("train_step", "test_step", "compute_metrics", "get_metrics_result")
    return (
        cls.train_step is form.train_step
        and cls.test_step is form.test_step
        and cls.compute_metrics is steps_module.compute_metrics
        and cls.get_metrics_result is steps_module.get_metrics_result
        and not set(names) & vars(model).keys()
    )


def _chunks(model, batches):
    """`(x, y, sample_weight, n)` for evaluate and predict: with arrays and
    `steps_per_execution=k`, up to k batches at a time (one compiled call runs them),
    else one batch at a time."""
    k = model.steps_per_execution if model.compiled else 1
    if loop_utils.is_arrays(batches):
        yield from batches.chunks(None, k=k)
    else:
        for xb, yb, swb in batches.batches():
            yield xb, yb, swb, 1
