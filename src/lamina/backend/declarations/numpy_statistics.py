"""Order statistics and counts, engine module `numpy`: quantiles, medians, histograms.

Each entry is the engine function's signature and the full documentation of the op
`lamina.ops` builds from it; the contract's one-line summary is its first line (see
`lamina.backend.declarations`). The examples run on every engine (`tests/ops/test_op_docs.py`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    bincount(x, weights=None, minlength=0, sparse=False)
        Counts of each non-negative integer in `x` (weighted by `weights`).

        A rank-2 `x` is counted row by row, every row to the same length (the largest
        value of the whole of `x`, plus one, or `minlength` if larger).

        Args:
            x: Rank-1 or rank-2 tensor of non-negative integers.
            weights: Optional tensor of the shape of `x`; each occurrence adds its
                weight instead of 1.
            minlength: Minimum length of the output. Under `jax.jit` and for
                symbolic inputs the output length must be known without the data:
                give `minlength`, which is the length there (values `>= minlength`
                are dropped). Without it JAX raises a `ValueError` asking for it
                (torch's symbolic shape then says length 1, which is not meaningful).
            sparse: Accepted for Keras compatibility; lamina's engines have no sparse
                tensors, so `True` raises a `ValueError`.

        Returns:
            A tensor of length `max(max(x) + 1, minlength)` along the last axis:
            `"int32"` counts, or sums in the dtype of `weights`.

        Example:

        >>> ops.convert_to_numpy(ops.bincount(np.array([0, 1, 1, 3]))).tolist()
        [1, 2, 0, 1]
        >>> w = np.array([0.5, 1.0, 2.0, 1.0])
        >>> ops.convert_to_numpy(ops.bincount(np.array([0, 1, 1, 3]), weights=w)).tolist()
        [0.5, 3.0, 0.0, 1.0]
        >>> ops.convert_to_numpy(ops.bincount(np.array([[0, 1], [1, 1]]), minlength=3)).tolist()
        [[1, 1, 0], [0, 2, 0]]
        >>> ops.convert_to_numpy(ops.bincount(np.array([[0, 3], [1, 1]]))).tolist()
        [[1, 0, 0, 1], [0, 2, 0, 0]]

    quantile(x, q, axis=None, method='linear', keepdims=False)
        The `q`-th quantiles of `x` along `axis` (`q` in `[0, 1]`).

        Args:
            x: Input tensor.
            q: Quantile (a float in `[0, 1]`) or a 1-D sequence of them. A
                concrete `q` outside `[0, 1]` raises a `ValueError` on both
                engines; a `q` traced by `jax.jit` cannot be checked (JAX then
                returns values outside the data's range, as Keras does).
            axis: Axis or tuple of axes along which to compute the quantiles.
                `None` (the default) uses all elements.
            method: How to pick a value that falls between two data points `i < j`:
                `"linear"` (the default, `i + (j - i) * fraction`), `"lower"` (`i`),
                `"higher"` (`j`), `"midpoint"` (`(i + j) / 2`) or `"nearest"`.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The quantiles, as floats (integer input gives `float32`). With a
            sequence `q`, the quantiles stack along a new first axis. A slice
            holding a NaN gives NaN; see `nanquantile` to skip them.

        Raises:
            ValueError: If a concrete `q` lies outside `[0, 1]`, or `method` is
                unknown.

        Example:

        >>> x = np.array([1.0, 2.0, 3.0, 4.0])
        >>> ops.convert_to_numpy(ops.quantile(x, 0.5)).tolist()
        2.5
        >>> ops.convert_to_numpy(ops.quantile(x, [0.25, 0.75])).tolist()
        [1.75, 3.25]
        >>> ops.convert_to_numpy(ops.quantile(x, 0.4, method="higher")).tolist()
        3.0

    nanquantile(x, q, axis=None, method='linear', keepdims=False)
        The `q`-th quantiles of `x` along `axis`, ignoring NaNs.

        Args:
            x: Input tensor.
            q: Quantile (a float in `[0, 1]`) or a 1-D sequence of them. A
                concrete `q` outside `[0, 1]` raises a `ValueError` on both
                engines; a `q` traced by `jax.jit` cannot be checked (JAX then
                returns values outside the data's range, as Keras does).
            axis: Axis or tuple of axes along which to compute the quantiles.
                `None` (the default) uses all elements.
            method: How to pick a value that falls between two data points `i < j`:
                `"linear"` (the default, `i + (j - i) * fraction`), `"lower"` (`i`),
                `"higher"` (`j`), `"midpoint"` (`(i + j) / 2`) or `"nearest"`.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The quantiles of the non-NaN values, as floats. With a sequence `q`,
            the quantiles stack along a new first axis. A slice that holds only
            NaN gives NaN.

        Example:

        >>> x = np.array([[1.0, 2.0, np.nan], [4.0, 5.0, 6.0]])
        >>> ops.convert_to_numpy(ops.nanquantile(x, 0.5, axis=1)).tolist()
        [1.5, 5.0]
        >>> ops.convert_to_numpy(ops.nanquantile(x, [0.0, 1.0])).tolist()
        [1.0, 6.0]

    median(x, axis=None, keepdims=False)
        Median of `x` along `axis`.

        For an even number of elements the median is the mean of the two middle
        values.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes along which to take the median. `None` (the
                default) takes it over all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The medians, as floats (integer input gives `float32`). A slice holding
            a NaN gives NaN; see `nanmedian` to skip them.

        Example:

        >>> x = np.array([[1.0, 5.0, 3.0], [2.0, 4.0, 8.0]])
        >>> ops.convert_to_numpy(ops.median(x)).tolist()
        3.5
        >>> ops.convert_to_numpy(ops.median(x, axis=1)).tolist()
        [3.0, 4.0]

    nanmedian(x, axis=None, keepdims=False)
        Median of `x` along `axis`, ignoring NaNs.

        Args:
            x: Input tensor.
            axis: Axis or tuple of axes along which to take the median. `None` (the
                default) takes it over all elements.
            keepdims: If `True`, the reduced axes stay in the result with length 1.

        Returns:
            The medians of the non-NaN values, as floats. A slice that holds only
            NaN gives NaN.

        Example:

        >>> x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
        >>> ops.convert_to_numpy(ops.nanmedian(x, axis=1)).tolist()
        [2.0, nan]

    histogram(x, bins=10, range=None)
        Counts (as floats) of 1-D `x` in `bins` equal bins over `range`, and the bin edges.

        Each bin holds values in `[left, right)`, except the last, which also holds its
        right edge.

        Args:
            x: 1-D input tensor.
            bins: Number of equal-width bins (default 10).
            range: `(lower, upper)` bounds of the bins. `None` (default) uses
                `(min(x), max(x))`. Values outside it are not counted.

        Returns:
            A tuple `(counts, edges)`: float counts of shape `(bins,)` and the
            `bins + 1` edges.

        Example:

        >>> counts, edges = ops.histogram(np.array([0.0, 0.5, 1.0, 2.0]), bins=2)
        >>> ops.convert_to_numpy(counts).tolist(), ops.convert_to_numpy(edges).tolist()
        ([2.0, 2.0], [0.0, 1.0, 2.0])
    """
)
