"""The classic `keras.preprocessing` module: `text`, `sequence` and `image` utilities.

`preprocessing.text` (`Tokenizer`, `one_hot`, `hashing_trick`, `text_to_word_sequence`),
`preprocessing.sequence` (`pad_sequences`, `TimeseriesGenerator`, `skipgrams`,
`make_sampling_table`) and `preprocessing.image` (`ImageDataGenerator` and the image file
helpers) behave as in Keras 2.x, and their iterators are `PyDataset`s that `fit` takes.
Keras 3's `keras.preprocessing.image_dataset_from_directory`,
`text_dataset_from_directory` and `timeseries_dataset_from_array` are reachable here too
(they live in `lamina.utils`).
"""

from lamina.preprocessing import image, sequence, text
from lamina.utils import (
    image_dataset_from_directory,
    text_dataset_from_directory,
    timeseries_dataset_from_array,
)

__all__ = [
    "image",
    "sequence",
    "text",
    "image_dataset_from_directory",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]
