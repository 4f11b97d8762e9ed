"""Run by test_compilation_cache.py in a fresh process: train one or two tiny models and
print, per model, the persistent-cache hits and misses and the warnings seen, as JSON.

Usage: python compilation_cache_script.py UNITS [UNITS ...]
"""

import collections
import json
import sys
import warnings

import jax.monitoring

events = collections.Counter()
jax.monitoring.register_event_listener(lambda event, **kwargs: events.update([event]))
warnings.simplefilter("always")

with warnings.catch_warnings(record=True) as seen:
    import numpy as np

    import lamina

    report = []
    for units in sys.argv[1:]:
        before = dict(events)
        lamina.utils.set_random_seed(7)
        model = lamina.Sequential(
            [lamina.Input((3,)), lamina.layers.Dense(int(units)), lamina.layers.Dense(1)]
        )
        model.compile("sgd", "mse")
        x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
        history = model.fit(x, x[:, :1], batch_size=8, epochs=2, verbose=0)
        report.append(
            {
                "hits": events["/jax/compilation_cache/cache_hits"]
                - before.get("/jax/compilation_cache/cache_hits", 0),
                "misses": events["/jax/compilation_cache/cache_misses"]
                - before.get("/jax/compilation_cache/cache_misses", 0),
                "loss": history.history["loss"],
            }
        )
print(
    json.dumps(
        {
            "models": report,
            "folder": lamina.config.compilation_cache_folder(),
            "warnings": [str(w.message) for w in seen],
        }
    )
)
