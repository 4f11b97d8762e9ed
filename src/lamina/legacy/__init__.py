"""What classic Keras had and Keras 3 dropped, kept so that programs of that era run:
the classic backend API (`from lamina import backend as K`), resolved from
`lamina.legacy.backend`."""
