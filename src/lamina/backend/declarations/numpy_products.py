"""Products and diagonals, engine module `numpy`: `matmul`, `einsum`, `trace`, `correlate`.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    matmul(x1, x2)
        Matrix product of two tensors, batched over leading axes.

        Follows `numpy.matmul`: a 1-D operand is treated as a matrix (a row for `x1`,
        a column for `x2`) and the added axis is dropped from the result; the axes
        before the last two broadcast against each other.

        Args:
            x1: First tensor, shape `(..., n, k)` or `(k,)`.
            x2: Second tensor, shape `(..., k, m)` or `(k,)`.

        Returns:
            The product, shape `(..., n, m)` (without the axes a 1-D operand
            dropped), in the promoted dtype of `x1` and `x2`; two `int8` operands
            give `int32`, as in Keras (the products accumulate without overflow).

        Example:

        >>> a = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.matmul(a, a)).tolist()
        [[7, 10], [15, 22]]
        >>> ops.convert_to_numpy(ops.matmul(np.ones((5, 2, 3)), np.ones((3, 4)))).shape
        (5, 2, 4)

    dot(x1, x2)
        Dot product (NumPy's rules for each rank).

        Two 1-D tensors give their inner product; 2-D tensors a matrix product; a
        scalar operand multiplies elementwise; an N-D `x1` and 1-D `x2` sum over the
        last axis of `x1`; otherwise the sum runs over the last axis of `x1` and the
        second-to-last of `x2`.

        Args:
            x1: First tensor.
            x2: Second tensor.

        Returns:
            The product, in the promoted dtype of `x1` and `x2`.

        Example:

        >>> ops.convert_to_numpy(ops.dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))).tolist()
        11.0
        >>> ops.convert_to_numpy(ops.dot(np.ones((2, 3)), np.ones((3, 4)))).shape
        (2, 4)

    einsum(subscripts, *operands, **kwargs)
        Einstein summation over `operands` as described by `subscripts`.

        Each operand gets one letter per axis; letters repeated across operands are
        multiplied together, and letters missing from the output (after `->`) are
        summed over. Without `->`, the output takes the letters that appear once, in
        alphabetical order. `...` stands for broadcast leading axes.

        Args:
            subscripts: The equation, such as `"ij,jk->ik"`.
            *operands: The tensors, one per comma-separated term of `subscripts`.
            **kwargs: Options of `jax.numpy.einsum`, as Keras forwards them:
                `optimize` (the contraction order), `precision` and
                `preferred_element_type` (the result dtype). On torch, which plans
                and computes the contraction itself, `optimize` and `precision` are
                accepted and have no effect, and `preferred_element_type` casts the
                result. Any other name raises a `TypeError`.

        Returns:
            The contracted tensor, in the promoted dtype of the operands (int32
            when they are all int8, as in Keras), or `preferred_element_type`.

        Example:

        >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
        >>> ops.convert_to_numpy(ops.einsum("ij,jk->ik", a, b)).tolist()
        [[3.0, 3.0], [12.0, 12.0]]
        >>> ops.convert_to_numpy(ops.einsum("ii", np.eye(3))).tolist()
        3.0

    tensordot(x1, x2, axes=2)
        Tensor contraction over `axes`.

        Multiplies `x1` and `x2` and sums over pairs of axes, one from each; the
        remaining axes of `x1` then those of `x2` form the result.

        Args:
            x1: First tensor.
            x2: Second tensor.
            axes: An int `n`: contract the last `n` axes of `x1` with the first
                `n` axes of `x2` (`0` gives the outer product, `1` the matrix
                product); or a pair of sequences `(axes_of_x1, axes_of_x2)` naming
                the axes to pair, which must have equal lengths. Defaults to `2`.

        Returns:
            The contraction, in the promoted dtype of `x1` and `x2`.

        Example:

        >>> a = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.tensordot(a, a, axes=1)).tolist()
        [[7, 10], [15, 22]]
        >>> ops.convert_to_numpy(ops.tensordot(a, a, axes=([0], [0]))).tolist()
        [[10, 14], [14, 20]]
        >>> ops.convert_to_numpy(ops.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5)))).shape
        (2, 5)

    outer(x1, x2)
        Outer product of two vectors (inputs are flattened).

        Args:
            x1: First tensor; flattened to a vector of length `n`.
            x2: Second tensor; flattened to a vector of length `m`.

        Returns:
            A tensor of shape `(n, m)` whose element `[i, j]` is `x1[i] * x2[j]`,
            in the promoted dtype of `x1` and `x2`.

        Example:

        >>> a = np.array([1, 2], "int32")
        >>> b = np.array([3, 4, 5], "int32")
        >>> ops.convert_to_numpy(ops.outer(a, b)).tolist()
        [[3, 4, 5], [6, 8, 10]]

    cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None)
        Cross product of 3-vectors (or 2-vectors) along the given axes.

        For 2-vectors the result is the z-component of the product, a scalar per pair.

        Args:
            x1: First tensor of vectors (length 2 or 3 along `axisa`).
            x2: Second tensor of vectors (length 2 or 3 along `axisb`); the other axes
                broadcast with `x1`'s.
            axisa: Axis of `x1` holding the vectors (default the last).
            axisb: Axis of `x2` holding the vectors (default the last).
            axisc: Axis of the result holding the vectors (default the last).
            axis: If given, overrides `axisa`, `axisb` and `axisc` at once.

        Returns:
            The cross products, in the promoted dtype.

        Example:

        >>> x = ops.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        >>> ops.convert_to_numpy(x).tolist()
        [0.0, 0.0, 1.0]

    trace(x, offset=0, axis1=0, axis2=1)
        Sum along a diagonal of `x`.

        Args:
            x: Input tensor of rank 2 or more.
            offset: Which diagonal: `0` (the default) is the main diagonal,
                positive values are above it and negative ones below.
            axis1: First axis of the 2-D planes whose diagonals are summed.
                Defaults to `0`.
            axis2: Second axis of those planes. Defaults to `1`.

        Returns:
            The diagonal sums: a scalar for a matrix, otherwise a tensor over the
            remaining axes. Booleans and integers narrower than 32 bits widen to
            `int32`.

        Example:

        >>> x = np.arange(9, dtype="int32").reshape(3, 3)
        >>> ops.convert_to_numpy(ops.trace(x)).tolist()
        12
        >>> ops.convert_to_numpy(ops.trace(x, offset=1)).tolist()
        6
        >>> y = np.arange(8, dtype="int32").reshape(2, 2, 2)
        >>> ops.convert_to_numpy(ops.trace(y, axis1=1, axis2=2)).tolist()
        [3, 11]

    diag(x, k=0)
        The `k`-th diagonal of a matrix, or a diagonal matrix from a vector.

        Args:
            x: A 1-D tensor (to place on a diagonal) or a 2-D tensor (to read one from).
            k: Which diagonal: 0 (default) the main one, positive above it, negative
                below it.

        Returns:
            For 1-D `x`, a square 2-D tensor with `x` on the `k`-th diagonal and zeros
            elsewhere; for 2-D `x`, a 1-D tensor of its `k`-th diagonal.

        Example:

        >>> ops.convert_to_numpy(ops.diag(np.array([1, 2]))).tolist()
        [[1, 0], [0, 2]]
        >>> ops.convert_to_numpy(ops.diag(np.arange(9).reshape(3, 3), k=-1)).tolist()
        [3, 7]

    diagonal(x, offset=0, axis1=0, axis2=1)
        The diagonal of `x` taken over `axis1` and `axis2`.

        Args:
            x: Tensor of rank 2 or more.
            offset: Which diagonal: 0 (default) the main one, positive above it,
                negative below it.
            axis1: First axis of the 2-D planes (default 0).
            axis2: Second axis of the 2-D planes (default 1).

        Returns:
            The diagonals: `axis1` and `axis2` are removed and a last axis holding the
            diagonal is added.

        Example:

        >>> x = np.arange(9).reshape(3, 3)
        >>> ops.convert_to_numpy(ops.diagonal(x)).tolist()
        [0, 4, 8]
        >>> ops.convert_to_numpy(ops.diagonal(x, offset=1)).tolist()
        [1, 5]

    correlate(x1, x2, mode='valid')
        Cross-correlation of two 1-D sequences.

        `c[k] = sum_n x1[n + k] * x2[n]`, NumPy's definition (no conjugation of real
        input).

        Args:
            x1: First 1-D tensor.
            x2: Second 1-D tensor.
            mode: `"valid"` (default) keeps only full overlaps, `"same"` gives the
                length of the longer input, `"full"` every partial overlap.

        Returns:
            A 1-D float tensor.

        Example:

        >>> a, v = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])
        >>> ops.convert_to_numpy(ops.correlate(a, v)).tolist()
        [3.5]
        >>> ops.convert_to_numpy(ops.correlate(a, v, mode="full")).tolist()
        [0.5, 2.0, 3.5, 3.0, 0.0]
    """
)
