"""`RemoteMonitor`: POST each epoch's logs to a server, as Keras 3's callback does.

Keras sends them with the `requests` library; lamina with the standard library's
`urllib`, so nothing needs installing. The bodies are the same: with
`send_as_json=False` (the default) a form (`application/x-www-form-urlencoded`) with one
field, `field`, whose value is the logs as a JSON string; with `send_as_json=True` the
logs as a JSON body (`application/json`).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from lamina.callbacks.callback import Callback


class RemoteMonitor(Callback):
    """Send `{"epoch": epoch, **logs}` to `root + path` at the end of each epoch.

    A server that cannot be reached gives a warning, and training goes on.

    Args:
        root: the server's address, `"http://localhost:9000"` by default.
        path: the path the logs are posted to, `"/publish/epoch/end/"` by default.
        field: the form field that holds the JSON logs (when not `send_as_json`).
        headers: extra HTTP headers, a dict.
        send_as_json: send the logs as a JSON body instead of a form field.
        timeout: seconds to wait for the server (lamina's; `requests`, which Keras
            uses, waits without limit by default).

    >>> monitor = RemoteMonitor(root="http://127.0.0.1:9000", send_as_json=True)
    >>> monitor.root + monitor.path
    'http://127.0.0.1:9000/publish/epoch/end/'
    """

    def __init__(
        self,
        root="http://localhost:9000",
        path="/publish/epoch/end/",
        field="data",
        headers=None,
        send_as_json=False,
        timeout=10.0,
    ):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json
        self.timeout = timeout

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            # NumPy scalars and 0-d arrays are not JSON: send their Python value.
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf-8")
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(
            self.root + self.path, data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()
        except urllib.error.HTTPError:
            pass  # the server answered (with an error status): Keras does not check it
        except (urllib.error.URLError, OSError, ValueError):
            warnings.warn(
                f"Could not reach RemoteMonitor root server at {self.root}",
                stacklevel=2,
            )


__all__ = ["RemoteMonitor"]
