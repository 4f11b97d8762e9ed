"""lamina.distribution (issue 14): Keras 3's API, and on JAX data and model parallelism
over 4 virtual CPU devices (in a fresh process, since JAX fixes its device count when
it starts). The reference for every trained weight is the same model trained on one
device in the same process."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import lamina
from lamina import backend
from lamina import distribution as dist

SCRIPT = pathlib.Path(__file__).with_name("_multi_device_script.py")


@pytest.fixture(scope="module")
def multi_device():
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=240, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.engine("jax")
def test_data_parallel_fit_equals_one_device_fit(multi_device):
    assert multi_device["devices"] == ["cpu:0", "cpu:1", "cpu:2", "cpu:3"]
    assert multi_device["dp_kernel_spec"] == "P(None, None)"  # replicated
    # Same global batches, so the same weights up to float32 summation order.
    assert multi_device["dp_max_diff"] < 1e-6
    assert multi_device["dp_predict_diff"] < 1e-5
    ours, reference = multi_device["dp_eval"]
    assert ours == pytest.approx(reference, rel=1e-6)


@pytest.mark.engine("jax")
def test_model_parallel_shards_dense_and_embedding_kernels(multi_device):
    specs = multi_device["mp_specs"]
    assert specs["dense"] == "P(None, 'model')"
    assert specs["embedding"] == "P(None, 'model')"
    assert specs["out"] == "P('model', None)"
    assert specs["bias"] == "P(None,)"  # no rule: replicated
    assert multi_device["mp_after_fit_spec"] == "P(None, 'model')"
    assert multi_device["mp_slot_spec"] == "P(None, 'model')"  # Adam slots follow
    assert multi_device["mp_max_diff"] < 1e-6


@pytest.mark.engine("jax")
def test_on_batch_methods_split_the_batch_and_match_one_device(multi_device):
    # train_on_batch x2, test_on_batch, predict_on_batch: x, ids (and y, except predict)
    assert multi_device["on_batch_split"] == 3 * 3 + 2
    assert multi_device["on_batch_log_diff"] < 1e-6
    assert multi_device["on_batch_weight_diff"] < 1e-6
    assert multi_device["on_batch_predict_diff"] < 1e-5


@pytest.mark.engine("jax")
def test_model_parallel_variables_are_made_split(multi_device):
    # Each device computed its own part: no whole kernel was handed over to be split,
    # and the values are those of the same seed on one device (seeds advanced alike).
    assert multi_device["mp_whole_values_placed"] == []
    assert multi_device["mp_initial_diff"] == 0.0


@pytest.mark.engine("jax")
def test_unmatched_rule_warns_naming_it(multi_device):
    assert len(multi_device["mp_warnings"]) == 1
    assert "'no_such_layer/.*' matched no variable" in multi_device["mp_warnings"][0]


@pytest.mark.engine("jax")
def test_saving_gathers_and_loading_reshards(multi_device):
    assert multi_device["plain_load_diff"] == 0.0
    assert multi_device["reload_spec"] == "P(None, 'model')"
    assert multi_device["reload_diff"] == 0.0


@pytest.mark.engine("jax")
def test_layout_errors_name_the_variable_and_the_axis(multi_device):
    message = multi_device["indivisible_error"]
    assert "'dense/kernel'" in message and "(12, 16)" in message
    assert "'model' of 3 devices" in message
    assert "'nope'" in multi_device["unknown_axis_error"]
    assert "['batch', 'model']" in multi_device["unknown_axis_error"]


@pytest.mark.engine("jax")
def test_backup_and_restore_resumes_exactly_under_data_parallel(multi_device):
    assert multi_device["resume_epochs_run"] == [1, 2]  # resumed inside epoch 1
    assert multi_device["resume_diff"] < 1e-6
    assert multi_device["resume_spec"] == "P(None, None)"


# In-process: the API on this process's devices ----------------------------------------
def test_device_mesh_checks_its_arguments():
    devices = dist.list_devices()
    assert dist.get_device_count() == len(devices)
    with pytest.raises(ValueError, match="same, non-zero length"):
        dist.DeviceMesh((1,), ["a", "b"], devices[:1])
    with pytest.raises(ValueError, match=r"needs 2 devices; received 1"):
        dist.DeviceMesh((2,), ["batch"], devices[:1])
    with pytest.raises(ValueError, match="unique"):
        dist.DeviceMesh((1, 1), ["a", "a"], devices[:1])
    mesh = dist.DeviceMesh((1,), ["batch"], devices[:1])
    assert mesh.shape == (1,) and mesh.axis_names == ("batch",)
    with pytest.raises(ValueError, match="'model'.*\\['batch'\\]"):
        dist.TensorLayout((None, "model"), mesh)


def test_layout_map_keys_are_whole_path_regexes():
    mesh = dist.DeviceMesh((1,), ["model"], dist.list_devices()[:1])
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*/kernel"] = (None, "model")
    layout_map["dense_1/kernel"] = ("model", None)
    layout_map[".*bias"] = dist.TensorLayout(("model",))
    assert layout_map["dense_1/kernel"].axes == ("model", None)  # exact key wins
    assert layout_map["dense_2/kernel"].axes == (None, "model")
    assert layout_map["dense/kernel_extra"] is None  # fullmatch, not search
    assert layout_map["dense/bias"].device_mesh is mesh
    with pytest.raises(ValueError, match="already in the LayoutMap"):
        layout_map["dense.*/kernel"] = (None, None)
    with pytest.raises(ValueError, match="TensorLayout or a tuple"):
        layout_map["x"] = "model"
    with pytest.raises(ValueError, match="regular expression"):
        layout_map["("] = (None,)
    layout_map["d.*_2/kernel"] = (None, None)
    with pytest.raises(ValueError, match="several LayoutMap keys"):
        layout_map["dense_2/kernel"]  # noqa: B018
    assert len(layout_map) == 4
    del layout_map["d.*_2/kernel"]
    assert sorted(layout_map) == [".*bias", "dense.*/kernel", "dense_1/kernel"]


def test_set_distribution_and_scope():
    assert dist.distribution() is None
    data_parallel = dist.DataParallel(devices=dist.list_devices()[:1])
    with data_parallel.scope():
        assert dist.distribution() is data_parallel
    assert dist.distribution() is None
    dist.set_distribution(data_parallel)
    try:
        assert dist.distribution() is data_parallel
    finally:
        dist.set_distribution(None)
    with pytest.raises(TypeError, match="DataParallel/ModelParallel"):
        dist.set_distribution("data")


@pytest.mark.engine("jax")
def test_model_parallel_checks_its_arguments():
    with pytest.raises(ValueError, match="LayoutMap"):
        dist.ModelParallel(layout_map={"dense": (None,)})
    mesh = dist.DeviceMesh((1,), ["model"], dist.list_devices()[:1])
    with pytest.raises(ValueError, match="batch_dim_name 'batch'"):
        dist.ModelParallel(layout_map=dist.LayoutMap(mesh), batch_dim_name="batch")
    with pytest.raises(TypeError, match="unexpected arguments"):
        dist.ModelParallel(layout_map=dist.LayoutMap(mesh), mesh=mesh)


def test_data_parallel_on_one_device_trains_as_usual():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)

    def make():
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        return model

    reference = make()
    reference.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    with dist.DataParallel(devices=dist.list_devices()[:1]).scope():
        model = make()
        model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(model.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_distribute_tensor_leaves_graph_tensors_alone():
    mesh = dist.DeviceMesh((1,), ["batch"], dist.list_devices()[:1])
    layout = dist.TensorLayout(("batch", None), mesh)
    symbolic = lamina.Input((2,))
    assert dist.distribute_tensor(symbolic, layout) is symbolic
    value = dist.distribute_tensor(np.ones((2, 2), "float32"), layout)
    np.testing.assert_array_equal(backend.convert_to_numpy(value), np.ones((2, 2)))
    with pytest.raises(ValueError, match="3 dimensions"):
        dist.distribute_tensor(np.ones((2, 2, 2)), layout)


def test_initialize_reads_keras_environment_variables(monkeypatch):
    monkeypatch.setenv("KERAS_DISTRIBUTION_NUM_PROCESSES", "2")
    monkeypatch.setenv("KERAS_DISTRIBUTION_PROCESS_ID", "5")
    with pytest.raises(ValueError, match=r"process_id must be in \[0, num_processes=2\)"):
        dist.initialize()
    monkeypatch.setenv("KERAS_DISTRIBUTION_PROCESS_ID", "one")
    with pytest.raises(ValueError, match="KERAS_DISTRIBUTION_PROCESS_ID='one'"):
        dist.initialize()


@pytest.mark.engine("torch")
def test_torch_says_model_parallel_is_jax_only():
    mesh = dist.DeviceMesh((1,), ["model"], dist.list_devices()[:1])
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense/kernel"] = (None, "model")
    with pytest.raises(ValueError, match="JAX-only"):
        dist.ModelParallel(layout_map=layout_map)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_job(script_name, engine, tmp_path, attempts=2):
    """Processes 0 and 1 of a job on localhost, and the one-process reference; again on
    another port when the coordinator's was taken between choosing and binding it
    (other programs on the machine pick free ports too)."""
    for attempt in range(attempts):
        failures = _job_failures(script_name, engine, tmp_path)
        taken = any("address already in use" in err.lower() for err in failures)
        if not taken or attempt == attempts - 1:
            break
        for leftover in tmp_path.iterdir():  # a backup the failed attempt wrote
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    assert not failures, "\n\n".join(err[-3000:] for err in failures)


def _job_failures(script_name, engine, tmp_path) -> list:
    script = SCRIPT.with_name(script_name)
    port = str(_free_port())
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["LAMINA_BACKEND"] = engine
    # Files, not pipes: an unread pipe that fills would stop its process.
    logs = [tempfile.TemporaryFile("w+") for _ in range(3)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), rank, port, str(tmp_path)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        for rank, log in zip(("0", "1", "single"), logs, strict=True)
    ]
    deadline = time.monotonic() + 180
    try:
        # A process that fails ends the job: the others would wait for it.
        while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
            if any(p.poll() not in (None, 0) for p in procs):
                break
            time.sleep(0.05)
    finally:
        for p in procs:  # bounded: nothing is left running
            if p.poll() is None:
                p.kill()
    failures = []
    for p, log in zip(procs, logs, strict=True):
        p.wait()
        log.seek(0)
        if p.returncode != 0:
            failures.append(log.read() or f"exit status {p.returncode}")
        log.close()
    return failures


@pytest.mark.engine("jax")
def test_two_jax_processes_joined_by_jax_distributed_equal_one_process(tmp_path):
    _run_job("_jax_multiprocess_script.py", "jax", tmp_path)
    single = np.load(tmp_path / "single.npz")
    reference = json.loads((tmp_path / "single.json").read_text())
    for rank in ("0", "1"):
        ours = np.load(tmp_path / f"{rank}.npz")
        resumed = np.load(tmp_path / f"{rank}_resumed.npz")  # exact resume, two processes
        # 6 batches in all; 4 ran and were backed up before the stop (after epoch 1's
        # batch 1), so the resumed fit runs the last 2 only.
        assert int(resumed["steps_after_resume"]) == 2
        for key in single.files:
            np.testing.assert_allclose(ours[key], single[key], rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(resumed[key], ours[key])
        found = json.loads((tmp_path / f"{rank}.json").read_text())
        assert len(found["devices"]) == 2  # the job's devices, one per process
        # evaluate reduces over the whole job; predict gives each process its rows.
        assert found["loss"] == pytest.approx(reference["loss"], rel=1e-5)
        np.testing.assert_allclose(
            found["predictions"],
            np.asarray(reference["predictions"])[found["rows"]],
            rtol=1e-5,
            atol=1e-6,
        )


def _gloo_available() -> bool:
    import torch.distributed

    return torch.distributed.is_available() and torch.distributed.is_gloo_available()


@pytest.mark.engine("torch")
def test_two_torch_processes_over_gloo_equal_one_process(tmp_path):
    if not _gloo_available():
        pytest.skip("this torch build has no torch.distributed with gloo")
    _run_job("_torch_ddp_script.py", "torch", tmp_path)
    single = np.load(tmp_path / "single.npz")
    single_classifier = np.load(tmp_path / "single_classifier.npz")
    reference = json.loads((tmp_path / "single_logs.json").read_text())
    for rank in ("0", "1"):
        ours = np.load(tmp_path / f"{rank}.npz")
        resumed = np.load(tmp_path / f"{rank}_resumed.npz")  # exact resume, two processes
        # 6 batches in all; 4 ran and were backed up before the stop (after epoch 1's
        # batch 1), so the resumed fit runs the last 2 only.
        assert int(resumed["steps_after_resume"]) == 2
        for key in single.files:
            np.testing.assert_allclose(ours[key], single[key], rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(resumed[key], ours[key])
        # The classifier: gradients averaged bucket by bucket while the backward pass
        # ran (3 buckets in each of the 4 steps), weights as on the global batches.
        classifier = np.load(tmp_path / f"{rank}_classifier.npz")
        for key in single_classifier.files:
            np.testing.assert_allclose(classifier[key], single_classifier[key], atol=1e-6)
        logs = json.loads((tmp_path / f"{rank}_logs.json").read_text())
        assert logs["buckets"] == 3
        assert logs["launched_in_backward"] == 3 * 4
        assert logs["devices"] == ["cpu:0", "cpu:1"]  # the job's: one device per process
        # The logs are the job's, on every process: per epoch, validation, evaluate.
        for key, values in reference["history"].items():
            assert logs["history"][key] == pytest.approx(values, rel=1e-6), key
        assert logs["evaluate"] == pytest.approx(reference["evaluate"], rel=1e-6)
    # Process 0 alone read each batch's logs (process 1 skipped them): the job's too.
    batches = json.loads((tmp_path / "0_logs.json").read_text())["batches"]
    assert len(batches) == len(reference["batches"]) == 4
    for ours, theirs in zip(batches, reference["batches"], strict=True):
        assert ours == pytest.approx(theirs, rel=1e-6)
    assert "3 devices in a job of 2 processes" in logs["three_devices_error"]


@pytest.mark.engine("torch")
@pytest.mark.parametrize(
    ("arguments", "environment", "message"),
    [
        ({}, {}, r"WORLD_SIZE.*RANK.*MASTER_ADDR.*MASTER_PORT.*torchrun"),
        ({}, {"RANK": "0", "WORLD_SIZE": "2"}, r"not told the coordinator's address"),
        ({}, {"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "x", "MASTER_PORT": "1"}, r"2 is not"),
        ({"job_addresses": "localhost", "num_processes": 2, "process_id": 0}, {}, "host:port"),
        ({"job_addresses": "localhost:1"}, {"WORLD_SIZE": "two"}, "WORLD_SIZE='two'"),
    ],
)
def test_torch_initialize_says_what_is_missing(monkeypatch, arguments, environment, message):
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("KERAS_DISTRIBUTION_"):
            monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        dist.initialize(**arguments)
    assert dist.distribution() is None and backend.distribution.process_count() == 1


def test_data_parallel_refuses_a_process_torchrun_started_outside_its_job(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(ValueError, match=r"one of 2 .*distribution.initialize\(\) before"):
        dist.DataParallel()
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert dist.DataParallel().data_shard_id == 0


@pytest.mark.engine("jax")
def test_a_layout_rule_for_a_layers_output_constrains_it(multi_device):
    """Keras's distribution guide: `layout_map["d2/output"] = ("batch", None)` puts a
    sharding constraint on that layer's output in the compiled step (lamina ignored the
    rule and warned that it matched no variable)."""
    assert multi_device["output_constraints"] >= 1
    assert multi_device["output_rule_warnings"] == []
    assert multi_device["output_predict_diff"] < 1e-5
