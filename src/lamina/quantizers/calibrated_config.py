"""GPTQ's and AWQ's configs: post-training quantization calibrated on sample data."""

from __future__ import annotations

from lamina.quantizers.quantization_config import QuantizationConfig


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer; received {name}={value!r}.")


def _group(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < -1 or value == 0:
        raise ValueError(
            "Invalid group_size. Supported values are -1 (per-channel) or a positive "
            f"integer, but got {value!r}."
        )


class GPTQConfig(QuantizationConfig):
    """GPTQ: quantize each weight column in turn and spread its rounding error over
    the columns not yet quantized, weighted by the inverse Hessian of the layer's
    squared output error on calibration data (Frantar et al., 2022).

    Args:
        dataset: the calibration data: an array of model inputs, or an iterable of
            batches (or of strings, with a `tokenizer`).
        tokenizer: turns strings of `dataset` into token ids (None for numeric data).
        weight_bits: 2, 3, 4 or 8.
        num_samples: how many calibration samples to use.
        per_channel: one scale per output channel (else one for the whole tensor).
        sequence_length: the length each tokenized sample is cut or padded to.
        hessian_damping: added to the Hessian's diagonal, as a fraction of its mean.
        group_size: input columns per scale (-1: one per output channel).
        symmetric: a zero point in the middle of the range (else fitted per group).
        activation_order: quantize the columns with the largest Hessian diagonal first.
        quantization_layer_structure: `{"pre_block_layers": [...],
            "sequential_blocks": [...]}`: the layers run before the blocks, and the blocks
            quantized one after another (None: the model's
            `get_quantization_layer_structure`).

    >>> GPTQConfig(None, None, weight_bits=4, group_size=8).dtype_policy_string()
    'gptq/4/8'
    """

    def __init__(
        self,
        dataset,
        tokenizer,
        *,
        weight_bits: int = 4,
        num_samples: int = 128,
        per_channel: bool = True,
        sequence_length: int = 512,
        hessian_damping: float = 0.01,
        group_size: int = 128,
        symmetric: bool = False,
        activation_order: bool = False,
        quantization_layer_structure: dict | None = None,
    ):
        super().__init__()
        if weight_bits not in (2, 3, 4, 8):
            raise ValueError(
                f"Unsupported weight_bits {weight_bits!r}. Supported values are 2, 3, 4, and 8."
            )
        _positive("num_samples", num_samples)
        _positive("sequence_length", sequence_length)
        if not 0 <= hessian_damping <= 1:
            raise ValueError(
                f"hessian_damping must be between 0 and 1; received {hessian_damping!r}."
            )
        _group(group_size)
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.weight_bits = weight_bits
        self.num_samples = num_samples
        self.per_channel = per_channel
        self.sequence_length = sequence_length
        self.hessian_damping = hessian_damping
        self.group_size = group_size
        self.symmetric = symmetric
        self.activation_order = activation_order
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "gptq"

    def dtype_policy_string(self) -> str:
        """The quantized policy's mode, such as `"gptq/4/128"`."""
        return f"gptq/{self.weight_bits}/{self.group_size}"

    def get_config(self):
        # The dataset, tokenizer and block structure (layers) serve one calibration;
        # files do not keep them.
        return {
            "dataset": None,
            "tokenizer": None,
            "weight_bits": self.weight_bits,
            "num_samples": self.num_samples,
            "per_channel": self.per_channel,
            "sequence_length": self.sequence_length,
            "hessian_damping": self.hessian_damping,
            "group_size": self.group_size,
            "symmetric": self.symmetric,
            "activation_order": self.activation_order,
            "quantization_layer_structure": None,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class AWQConfig(QuantizationConfig):
    """AWQ: scale up the weight columns whose inputs are large before quantizing to
    4 bits (and divide the inputs by the same scales), with the scales' exponent
    searched on a grid to minimize the layer's output error on calibration data
    (Lin et al., 2023).

    Args:
        dataset: the calibration data (as `GPTQConfig`'s).
        tokenizer: turns strings of `dataset` into token ids (None for numeric data).
        weight_bits: 4 (the only width AWQ has).
        num_samples: how many calibration samples to use.
        sequence_length: the length each tokenized sample is cut or padded to.
        group_size: input columns per scale (-1: one per output channel).
        num_grid_points: how many exponents in [0, 1) the scale search tries.
        quantization_layer_structure: as `GPTQConfig`'s.

    >>> AWQConfig(None, None, group_size=-1).dtype_policy_string()
    'awq/4/-1'
    """

    def __init__(
        self,
        dataset,
        tokenizer,
        *,
        weight_bits: int = 4,
        num_samples: int = 128,
        sequence_length: int = 512,
        group_size: int = 128,
        num_grid_points: int = 20,
        quantization_layer_structure: dict | None = None,
    ):
        super().__init__()
        if weight_bits != 4:
            raise ValueError(
                f"AWQ only supports 4-bit quantization. Received weight_bits={weight_bits!r}."
            )
        _positive("num_samples", num_samples)
        _positive("sequence_length", sequence_length)
        _group(group_size)
        _positive("num_grid_points", num_grid_points)
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.weight_bits = weight_bits
        self.num_samples = num_samples
        self.sequence_length = sequence_length
        self.group_size = group_size
        self.num_grid_points = num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "awq"

    def dtype_policy_string(self) -> str:
        """The quantized policy's mode, such as `"awq/4/128"`."""
        return f"awq/{self.weight_bits}/{self.group_size}"

    def get_config(self):
        return {
            "dataset": None,
            "tokenizer": None,
            "weight_bits": self.weight_bits,
            "num_samples": self.num_samples,
            "sequence_length": self.sequence_length,
            "group_size": self.group_size,
            "num_grid_points": self.num_grid_points,
            "quantization_layer_structure": None,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
