"""lamina demo: build models three ways, then train a digit classifier.

Run with `make demo`. Trains on the real 8x8 handwritten digits shipped with lamina
(1,797 images) and reports held-out accuracy.
"""

import numpy as np

import lamina
from lamina import Input, Model, Sequential, layers
from lamina.datasets import digits


def build_functional():
    inputs = Input(shape=(64,), name="pixels")
    hidden = layers.Dense(64, activation="relu", name="hidden")(inputs)
    hidden = layers.Dropout(0.1, name="dropout")(hidden)
    outputs = layers.Dense(10, activation="softmax", name="probs")(hidden)
    return Model(inputs, outputs, name="digits_functional")


def build_sequential():
    return Sequential(
        [
            Input(shape=(64,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10, activation="softmax"),
        ],
        name="digits_sequential",
    )


class Residual(Model):
    """A subclassed model: a dense layer with a skip connection."""

    def __init__(self):
        super().__init__(name="digits_subclassed")
        self.inner = layers.Dense(64, activation="relu")
        self.skip = layers.Dense(64)
        self.head = layers.Dense(10, activation="softmax")

    def call(self, x, training=False):
        return self.head(self.inner(x) + self.skip(x))


def main():
    lamina.utils.set_random_seed(0)
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    x_train = x_train.reshape(len(x_train), 64).astype("float32") / 16.0
    x_test = x_test.reshape(len(x_test), 64).astype("float32") / 16.0
    print(f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels\n")

    sequential = build_sequential()
    sequential.summary()
    subclassed = Residual()
    print(f"\nsubclassed model output on 2 images: {np.asarray(subclassed(x_test[:2])).shape}\n")

    model = build_functional()
    model.summary()
    model.compile(
        optimizer="adam",
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    model.fit(x_train, y_train, batch_size=32, epochs=30, validation_split=0.1, verbose=1)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"\nheld-out accuracy: {accuracy:.4f} (loss {loss:.4f})")
    probs = model.predict(x_test[:1], verbose=0)[0]
    print(f"first test image: predicted {int(np.argmax(probs))}, true {int(y_test[0])}")
    if accuracy <= 0.95:
        raise SystemExit(f"demo accuracy {accuracy:.4f} is not above 0.95")


if __name__ == "__main__":
    main()
