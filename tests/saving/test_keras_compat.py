"""Configs written by Keras 3 load in lamina (no Keras needed: the configs are spelled out)."""

import numpy as np
import pytest

from lamina import layers, ops


def test_batch_normalization_accepts_keras_renorm_defaults():
    config = {
        "name": "bn",
        "axis": -1,
        "momentum": 0.99,
        "epsilon": 0.001,
        "renorm": False,
        "renorm_clipping": None,
        "renorm_momentum": 0.99,
    }
    bn = layers.BatchNormalization.from_config(config)
    again = layers.BatchNormalization.from_config(bn.get_config())
    assert again.get_config()["renorm"] is False
    assert again.get_config()["renorm_momentum"] == 0.99
    np.testing.assert_allclose(
        ops.convert_to_numpy(bn(np.ones((2, 3), "float32"))),
        ops.convert_to_numpy(again(np.ones((2, 3), "float32"))),
    )


def test_batch_normalization_refuses_renorm():
    with pytest.raises(ValueError, match="renorm=True.*not supported"):
        layers.BatchNormalization(renorm=True)
    with pytest.raises(ValueError, match="renorm=True"):
        layers.BatchNormalization.from_config({"renorm": True, "renorm_clipping": {"rmax": 3}})
