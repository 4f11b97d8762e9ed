"""`RemoteMonitor` posts each epoch's logs as Keras 3's does (the bodies `requests`
builds for Keras), to a server this test starts on 127.0.0.1 only."""

import http.server
import json
import socket
import threading
import urllib.parse

import numpy as np
import pytest

from lamina import Input, Sequential, callbacks, layers


class _Recorder(http.server.BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, dict(self.headers), body))
        self.send_response(200 if self.path != "/fail" else 500)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Recorder.received = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", _Recorder.received
    finally:
        httpd.shutdown()
        httpd.server_close()


def _fit(monitor, epochs=2):
    model = Sequential([Input((2,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 2), "float32"), np.zeros((4, 1), "float32")
    return model.fit(x, y, epochs=epochs, batch_size=2, verbose=0, callbacks=[monitor])


def test_posts_the_logs_as_a_form_field(server):
    root, received = server
    history = _fit(callbacks.RemoteMonitor(root=root, headers={"X-Run": "7"}))
    assert [path for path, _, _ in received] == ["/publish/epoch/end/"] * 2
    for epoch, (_, headers, body) in enumerate(received):
        assert headers["Content-Type"] == "application/x-www-form-urlencoded"
        assert headers["X-Run"] == "7"
        form = urllib.parse.parse_qs(body.decode())
        assert list(form) == ["data"]
        sent = json.loads(form["data"][0])
        assert sent["epoch"] == epoch
        assert sent["loss"] == pytest.approx(history.history["loss"][epoch])


def test_posts_json_to_the_given_path_and_field(server):
    root, received = server
    _fit(callbacks.RemoteMonitor(root=root, path="/logs", send_as_json=True), epochs=1)
    (path, headers, body) = received[0]
    assert path == "/logs" and headers["Content-Type"] == "application/json"
    assert set(json.loads(body)) == {"epoch", "loss"}
    monitor = callbacks.RemoteMonitor(root=root, path="/form", field="payload")
    monitor.on_epoch_end(3, {"acc": np.float32(0.5), "vec": np.array(2.0)})
    form = urllib.parse.parse_qs(received[-1][2].decode())
    assert json.loads(form["payload"][0]) == {"epoch": 3, "acc": 0.5, "vec": 2.0}


def test_an_error_status_is_not_a_warning(server, recwarn):
    root, received = server
    callbacks.RemoteMonitor(root=root, path="/fail").on_epoch_end(0, {"loss": 1.0})
    assert received and not recwarn.list


def test_an_unreachable_server_warns_and_training_goes_on():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = f"http://127.0.0.1:{port}"
    with pytest.warns(UserWarning, match=f"Could not reach RemoteMonitor root server at {root}"):
        history = _fit(callbacks.RemoteMonitor(root=root, timeout=2), epochs=1)
    assert len(history.history["loss"]) == 1
