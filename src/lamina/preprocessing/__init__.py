"""The classic `keras.preprocessing` module: `text`, `sequence` and `image` utilities.

`preprocessing.text` (`Tokenizer`, `one_hot`, `hashing_trick`, `text_to_word_sequence`),
`preprocessing.sequence` (`pad_sequences`, `TimeseriesGenerator`, `skipgrams`,
`make_sampling_table`) and `preprocessing.image` (`ImageDataGenerator` and the image file
helpers) behave as in Keras 2.x, and their iterators are `PyDataset`s that `fit` takes.
"""

from lamina.preprocessing import sequence, text

__all__ = ["sequence", "text"]
