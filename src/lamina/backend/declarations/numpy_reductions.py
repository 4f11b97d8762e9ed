"""Reductions along axes, engine module `numpy`: sums, means, extremes, cumulative sums.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    sum(x, axis=None, keepdims=False)
        Sum of `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to add over. `None` (the default) adds all
                elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The sums. Floating inputs keep their dtype; booleans and integers
            narrower than 32 bits widen to `int32` (unsigned ones to `uint32`).

        Example:

        >>> x = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.sum(x)).tolist()
        10
        >>> ops.convert_to_numpy(ops.sum(x, axis=1, keepdims=True)).tolist()
        [[3], [7]]
        >>> ops.convert_to_numpy(ops.sum(np.array([True, True, False]))).tolist()
        2

    mean(x, axis=None, keepdims=False)
        Arithmetic mean of `x` along `axis` (integer input averages as float).

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to average over. `None` (the default)
                averages all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The means. Floating inputs keep their dtype; integer and boolean
            inputs give `float32`.

        Example:

        >>> x = np.array([[1.0, 3.0], [2.0, 6.0]])
        >>> ops.convert_to_numpy(ops.mean(x)).tolist()
        3.0
        >>> ops.convert_to_numpy(ops.mean(x, axis=0, keepdims=True)).tolist()
        [[1.5, 4.5]]
        >>> ops.convert_to_numpy(ops.mean(np.array([1, 2], "int32"))).dtype
        dtype('float32')

    max(x, axis=None, keepdims=False, initial=None)
        Maximum of `x` along `axis` (at least `initial` when given).

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to reduce. `None` (the default) reduces
                over all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1,
                so it broadcasts against `x`.
            initial: Optional lower bound: each result is at least `initial`. It
                also gives the result of reducing an empty tensor, which otherwise
                raises an error.

        Returns:
            The maxima, in the dtype of `x`. NaN propagates: a slice holding a NaN
            gives NaN.

        Example:

        >>> x = np.array([[1, 7], [4, 2]], "int32")
        >>> ops.convert_to_numpy(ops.max(x)).tolist()
        7
        >>> ops.convert_to_numpy(ops.max(x, axis=0)).tolist()
        [4, 7]
        >>> ops.convert_to_numpy(ops.max(x, axis=1, keepdims=True, initial=5)).tolist()
        [[7], [5]]

    min(x, axis=None, keepdims=False, initial=None)
        Minimum of `x` along `axis` (at most `initial` when given).

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to reduce. `None` (the default) reduces
                over all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1,
                so it broadcasts against `x`.
            initial: Optional upper bound: each result is at most `initial`. It
                also gives the result of reducing an empty tensor, which otherwise
                raises an error.

        Returns:
            The minima, in the dtype of `x`. NaN propagates: a slice holding a NaN
            gives NaN.

        Example:

        >>> x = np.array([[1, 7], [4, 2]], "int32")
        >>> ops.convert_to_numpy(ops.min(x)).tolist()
        1
        >>> ops.convert_to_numpy(ops.min(x, axis=1, keepdims=True)).tolist()
        [[1], [2]]
        >>> ops.convert_to_numpy(ops.min(x, axis=0, initial=3)).tolist()
        [1, 2]

    prod(x, axis=None, keepdims=False, dtype=None)
        Product of `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to multiply over. `None` (the default)
                multiplies all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.
            dtype: The dtype to compute and return in. `None` (the default) keeps
                the dtype of `x`, except that booleans and integers narrower than
                32 bits widen to `int32` (unsigned ones to `uint32`).

        Returns:
            The products; the product over no elements is `1`.

        Example:

        >>> x = np.array([[1, 2], [3, 4]], "int32")
        >>> ops.convert_to_numpy(ops.prod(x)).tolist()
        24
        >>> ops.convert_to_numpy(ops.prod(x, axis=0)).tolist()
        [3, 8]
        >>> ops.convert_to_numpy(ops.prod(x, axis=1, keepdims=True, dtype="float32")).tolist()
        [[2.0], [12.0]]

    std(x, axis=None, keepdims=False)
        Standard deviation of `x` along `axis`.

        This is the population standard deviation (divisor `N`, no Bessel
        correction): `sqrt(mean(abs(x - mean(x)) ** 2))`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to reduce. `None` (the default) uses all
                elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The standard deviations, as floats (integer input gives `float32`).

        Example:

        >>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
        >>> ops.convert_to_numpy(ops.std(x, axis=1)).tolist()
        [1.0, 0.0]
        >>> print(f"{float(ops.convert_to_numpy(ops.std(x))):.4f}")
        0.7071

    var(x, axis=None, keepdims=False)
        Variance of `x` along `axis`.

        This is the population variance (divisor `N`, no Bessel correction):
        `mean(abs(x - mean(x)) ** 2)`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to reduce. `None` (the default) uses all
                elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The variances, as floats (integer input gives `float32`).

        Example:

        >>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
        >>> ops.convert_to_numpy(ops.var(x)).tolist()
        0.5
        >>> ops.convert_to_numpy(ops.var(x, axis=1, keepdims=True)).tolist()
        [[1.0], [0.0]]

    any(x, axis=None, keepdims=False)
        Whether any element along `axis` is true.

        Args:
            x: Input tensor; non-zero values count as true.
            axis: Axis or tuple of axes to reduce. `None` (default) reduces all axes.
            keepdims: If `True`, reduced axes are kept with length 1.

        Returns:
            A bool tensor.

        Example:

        >>> x = np.array([[0, 0], [0, 3]])
        >>> ops.convert_to_numpy(ops.any(x, axis=1)).tolist()
        [False, True]

    all(x, axis=None, keepdims=False)
        Whether every element along `axis` is true.

        Args:
            x: Input tensor; non-zero values count as true.
            axis: Axis or tuple of axes to reduce. `None` (default) reduces all axes.
            keepdims: If `True`, reduced axes are kept with length 1.

        Returns:
            A bool tensor.

        Example:

        >>> x = np.array([[True, False], [True, True]])
        >>> ops.convert_to_numpy(ops.all(x, axis=1)).tolist()
        [False, True]

    argmax(x, axis=None, keepdims=False)
        Index of the maximum along `axis`.

        Ties go to the first occurrence.

        Args:
            x: Input tensor.
            axis: Axis to search. `None` (default) searches the flattened tensor.
            keepdims: If `True`, the reduced axis is kept with length 1.

        Returns:
            An `"int32"` tensor of indices.

        Example:

        >>> x = np.array([[1, 5, 2], [7, 0, 3]])
        >>> ops.convert_to_numpy(ops.argmax(x, axis=1)).tolist()
        [1, 0]
        >>> ops.convert_to_numpy(ops.argmax(x)).tolist()
        3

    argmin(x, axis=None, keepdims=False)
        Index of the minimum along `axis`.

        Ties go to the first occurrence.

        Args:
            x: Input tensor.
            axis: Axis to search. `None` (default) searches the flattened tensor.
            keepdims: If `True`, the reduced axis is kept with length 1.

        Returns:
            An `"int32"` tensor of indices.

        Example:

        >>> x = np.array([[3, 1], [0, 4]])
        >>> ops.convert_to_numpy(ops.argmin(x, axis=0, keepdims=True)).tolist()
        [[1, 0]]

    cumsum(x, axis=None, dtype=None)
        Cumulative sum along `axis` (flattened when `None`).

        Args:
            x: Input tensor.
            axis: Axis to accumulate along. `None` (default) flattens `x` first.
            dtype: Dtype of the result. `None` keeps the dtype of `x` (bools become
                `"int32"`).

        Returns:
            The running sums; same shape as `x` with an `axis`, 1-D without.

        Example:

        >>> x = np.array([[1, 2], [3, 4]])
        >>> ops.convert_to_numpy(ops.cumsum(x)).tolist()
        [1, 3, 6, 10]
        >>> ops.convert_to_numpy(ops.cumsum(x, axis=1)).tolist()
        [[1, 3], [3, 7]]

    cumprod(x, axis=None, dtype=None)
        Cumulative product along `axis` (flattened when `None`).

        Args:
            x: Input tensor.
            axis: Axis to accumulate along. `None` (default) flattens `x` first.
            dtype: Dtype of the result. `None` keeps the dtype of `x` (bools become
                `"int32"`).

        Returns:
            The running products; same shape as `x` with an `axis`, 1-D without.

        Example:

        >>> ops.convert_to_numpy(ops.cumprod(np.array([1, 2, 3, 4]))).tolist()
        [1, 2, 6, 24]
        >>> ops.convert_to_numpy(ops.cumprod(np.array([[1, 2], [3, 4]]), axis=0)).tolist()
        [[1, 2], [3, 8]]

    count_nonzero(x, axis=None)
        Number of non-zero elements along `axis`.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes to count over. `None` (default) counts all
                elements.

        Returns:
            An `"int32"` tensor of counts.

        Example:

        >>> x = np.array([[0, 1, 2], [3, 0, 0]])
        >>> ops.convert_to_numpy(ops.count_nonzero(x)).tolist()
        3
        >>> ops.convert_to_numpy(ops.count_nonzero(x, axis=1)).tolist()
        [2, 1]

    average(x, axis=None, weights=None)
        Weighted average of `x` along `axis`.

        Args:
            x: Input tensor.
            axis: Axis to average over. `None` (default) averages all elements.
            weights: Weights, either the shape of `x` or 1-D with the length of `x`
                along `axis`. `None` (default) weighs every element equally.

        Returns:
            `sum(x * weights) / sum(weights)` along `axis`, as a float tensor.

        Example:

        >>> x = np.array([1.0, 2.0, 3.0])
        >>> ops.convert_to_numpy(ops.average(x, weights=np.array([3.0, 1.0, 0.0]))).tolist()
        1.25
    """
)
