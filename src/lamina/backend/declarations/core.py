"""Engine module `core`: tensors, conversion, control flow, compilation, differentiation.

The entries that `lamina.ops` passes through (`cast`, `slice`, `scatter`, ...) carry the
op's full documentation, whose first line is the contract's summary; the others say in a
line or two what the engine provides (see `lamina.backend.declarations`).
"""

from lamina.backend.declarations import declare

DECLARATIONS = declare(
    """
    SUPPORTS_SPARSE_TENSORS
        Whether the engine has sparse tensors (`sparse=True` arguments are refused if not).

    Variable(initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation='none', synchronization='auto', name=None, layout=None, *, path=None)
        A mutable tensor holding model state (weights, counters, seeds).

    convert_to_tensor(x, dtype=None)
        Convert an array-like (or Variable) to an engine tensor, optionally cast to `dtype`.

    convert_to_numpy(x)
        Copy a tensor, Variable or array-like (NumPy, lists, scalars) to a NumPy array.

    is_tensor(x)
        Whether `x` is an engine tensor.

    is_concrete(x)
        Whether `x` holds data now (NumPy, or an engine tensor outside any trace).

    shape(x)
        The shape of `x` as a tuple of ints.

    cast(x, dtype)
        Cast a tensor to another dtype.

        Floats cast to integers truncate toward zero; values outside the target
        range are not clipped (use `saturate_cast` for that).

        Args:
            x: Tensor or array-like.
            dtype: The target dtype, as a string such as `"int32"` or a dtype object.

        Returns:
            A tensor of the values of `x` in `dtype`.

        Example:

        >>> y = ops.cast(np.array([1.7, -1.7]), "int32")
        >>> ops.dtype(y), ops.convert_to_numpy(y).tolist()
        ('int32', [1, -1])

    stop_gradient(variable)
        `variable` unchanged, with no gradient flowing back through it.

        In the forward pass it is the identity; differentiation treats its result as
        a constant.

        Args:
            variable: Tensor (or Variable) to block gradients for.

        Returns:
            A tensor with the value of `variable`.

        Example:

        >>> ops.convert_to_numpy(ops.stop_gradient(np.array([1.0, 2.0]))).tolist()
        [1.0, 2.0]

    cond(pred, true_fn, false_fn)
        `true_fn()` if `pred` else `false_fn()`, traced as one conditional when compiled.

    scan(f, init, xs=None, length=None, reverse=False, unroll=1)
        Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns `(carry, ys)`.

    fori_loop(lower, upper, body_fun, init_val)
        `for i in range(lower, upper): val = body_fun(i, val)` as one compiled loop.

    while_loop(cond, body, loop_vars, maximum_iterations=None)
        `while cond(vars): vars = body(vars)` as one compiled loop.

    vectorized_map(function, elements)
        `function` mapped over the leading axis of `elements`, vectorized.

        Like `map`, with the same results: on JAX the per-slice calls are batched
        into one computation (`jax.vmap`), which is fast and holds all slices at
        once; the torch engine runs them as a loop.

        Args:
            function: Callable taking one slice of `elements` (a structure of
                tensors when `elements` is a structure).
            elements: Tensor or nested structure of tensors sharing their leading axis.

        Returns:
            The results of `function`, stacked along a new leading axis.

        Example:

        >>> y = ops.vectorized_map(lambda row: ops.sum(row), np.array([[1, 2], [3, 4]]))
        >>> ops.convert_to_numpy(y).tolist()
        [3, 7]

    slice(inputs, start_indices, shape)
        The block of `inputs` of size `shape` starting at `start_indices`.

        A dynamic slice: the start may be a tensor (computed inside a compiled
        function), the size must be static.

        Args:
            inputs: Tensor to slice.
            start_indices: One start index per axis (list, tuple or int tensor).
            shape: The size of the block along each axis.

        Returns:
            A tensor of shape `shape`.

        Example:

        >>> x = np.arange(12).reshape(3, 4)
        >>> ops.convert_to_numpy(ops.slice(x, (1, 1), (2, 2))).tolist()
        [[5, 6], [9, 10]]

    slice_update(inputs, start_indices, updates)
        `inputs` with the block at `start_indices` replaced by `updates`.

        Args:
            inputs: Tensor to update (it is not changed; a new tensor comes back).
            start_indices: One start index per axis (list, tuple or int tensor).
            updates: The new block; its rank is that of `inputs`, its shape the block's
                size.

        Returns:
            A tensor of the shape and dtype of `inputs`.

        Example:

        >>> x = np.zeros((3, 3), "int32")
        >>> ops.convert_to_numpy(ops.slice_update(x, (1, 1), np.ones((2, 2), "int32"))).tolist()
        [[0, 0, 0], [0, 1, 1], [0, 1, 1]]

    unstack(x, num=None, axis=0)
        The list of slices of `x` along `axis` (the inverse of `stack`).

        Args:
            x: Tensor to split.
            num: Accepted for Keras compatibility (the number of slices, which lamina
                reads from the shape of `x`).
            axis: The axis to unstack along (default 0).

        Returns:
            A list of `x.shape[axis]` tensors, each with `axis` removed.

        Example:

        >>> parts = ops.unstack(np.array([[1, 2], [3, 4]]), axis=1)
        >>> [ops.convert_to_numpy(p).tolist() for p in parts]
        [[1, 3], [2, 4]]

    compute_output_spec(fn, args, kwargs, is_spec, make_spec)
        Output specs of `fn(*args, **kwargs)` by abstract evaluation, never on data.

    device_scope(device_name)
        A context placing the tensors made inside it on a device (`"cpu:0"`, `"gpu:1"`).

    jit(fn, donate_argnums=(), static_argnums=())
        `fn` compiled; donated arguments' buffers may be reused for the outputs.

    value_and_grad(fn, has_aux=False)
        A function returning `fn`'s value and its gradient with respect to the first argument.

    tree_map(fn, *trees)
        `fn` applied to the leaves of nested structures.

    tree_flatten(tree)
        The leaves of a nested structure, in order.

    device_put(x)
        `x` placed on the default device.

    block_until_ready(x)
        `x`, once every computation producing it has finished.

    associative_scan(f, elems, reverse=False, axis=0)
        Inclusive scan of `elems` along `axis` with associative `f(a, b)`.

        Computes `[x0, f(x0, x1), f(f(x0, x1), x2), ...]` in parallel steps, so `f`
        must be associative (`f(f(a, b), c) == f(a, f(b, c))`); `cumsum` is the scan
        of `add`. `f` is called on whole slices, so it must work elementwise.

        Args:
            f: Associative function of two arguments of the structure of `elems`.
            elems: Tensor or nested structure of tensors, all of the same length on
                `axis`.
            reverse: Whether to scan from the end (default False).
            axis: The axis to scan along (default 0).

        Returns:
            The scanned values, of the structure and shapes of `elems`.

        Example:

        >>> y = ops.associative_scan(lambda a, b: a + b, np.array([1, 2, 3, 4]))
        >>> ops.convert_to_numpy(y).tolist()
        [1, 3, 6, 10]

    custom_gradient(f)
        A function returning `f(*args)[0]` whose gradient is given by `f(*args)[1]`,
        called with the upstream gradient.

    jvp(fun, primals, tangents, has_aux=False)
        The forward-mode Jacobian-vector product: `(fun(*primals), J @ tangents)`.

        Args:
            fun: Function of the primals returning a tensor or structure of tensors
                (with `has_aux`, a pair `(output, aux)`).
            primals: Tuple or list of the points to evaluate at, one per argument of
                `fun`.
            tangents: Tuple or list of tangent vectors, one per primal, of the same
                shapes.
            has_aux: Whether `fun` returns `(output, aux)`, `aux` passed through
                without differentiation (default False).

        Returns:
            `(primals_out, tangents_out)`, or `(primals_out, tangents_out, aux)` with
            `has_aux`.

        Example:

        >>> value, tangent = ops.jvp(lambda x: x * x, (np.array(3.0),), (np.array(1.0),))
        >>> float(ops.convert_to_numpy(value)), float(ops.convert_to_numpy(tangent))
        (9.0, 6.0)

    remat(f)
        `f` rematerialized (gradient checkpointing): the same values and gradients, its
        intermediate results recomputed in the backward pass instead of kept.

    map(f, xs)
        `f` applied to each slice of `xs` along its leading axis, results stacked.

        A sequential loop over the slices (one compiled loop on JAX), so `f` is
        traced once and the memory of one slice is used at a time; see
        `vectorized_map` for the batched version.

        Args:
            f: Callable taking one slice of `xs`.
            xs: Tensor or nested structure of tensors sharing their leading axis.

        Returns:
            The results of `f`, stacked along a new leading axis.

        Example:

        >>> y = ops.map(lambda row: row * 2, np.array([[1, 2], [3, 4]]))
        >>> ops.convert_to_numpy(y).tolist()
        [[2, 4], [6, 8]]

    scatter(indices, values, shape)
        Zeros of `shape` with `values` added at `indices`.

        Each row of `indices` holds `k` indices into the first `k` axes of the result;
        values at repeated indices add up.

        Args:
            indices: Integer tensor of shape `(num_updates, k)`.
            values: Tensor of shape `(num_updates, *shape[k:])`; its dtype is the
                result's.
            shape: The shape of the result.

        Returns:
            A tensor of shape `shape`.

        Example:

        >>> y = ops.scatter(np.array([[0], [2], [0]]), np.array([1, 2, 3]), (4,))
        >>> ops.convert_to_numpy(y).tolist()
        [4, 0, 2, 0]

    scatter_update(inputs, indices, updates, reduction=None)
        `inputs` with `updates` written (or combined by `reduction`) at `indices`.

        Each row of `indices` holds `k` indices into the first `k` axes of `inputs`.
        With a `reduction`, the update is combined with the value already there
        instead of replacing it.

        Args:
            inputs: Tensor to update (it is not changed; a new tensor comes back).
            indices: Integer tensor of shape `(num_updates, k)`.
            updates: Tensor of shape `(num_updates, *inputs.shape[k:])`.
            reduction: None (the default) to overwrite, or `"add"`, `"max"`, `"min"` or
                `"mul"` to combine.

        Returns:
            A tensor of the shape and dtype of `inputs`.

        Example:

        >>> x = np.array([1, 1, 1, 1])
        >>> y = ops.scatter_update(x, np.array([[1], [3]]), np.array([5, 7]))
        >>> ops.convert_to_numpy(y).tolist()
        [1, 5, 1, 7]
        >>> y = ops.scatter_update(x, np.array([[1], [1]]), np.array([5, 7]), reduction="add")
        >>> ops.convert_to_numpy(y).tolist()
        [1, 13, 1, 1]

    switch(index, branches, *operands)
        `branches[index](*operands)`: run one of several functions chosen by `index`.

        Compiled, it is one conditional whose branches all trace; so every branch
        must return the same structure, shapes and dtypes. An `index` out of range is
        clamped to the first or last branch.

        Args:
            index: Integer scalar (or scalar tensor) choosing the branch.
            branches: Sequence of callables, each taking `*operands`.
            *operands: The arguments passed to the chosen branch.

        Returns:
            The result of the chosen branch.

        Example:

        >>> branches = [lambda x: x + 1, lambda x: x * 10]
        >>> float(ops.convert_to_numpy(ops.switch(1, branches, 2.0)))
        20.0
        >>> float(ops.convert_to_numpy(ops.switch(7, branches, 2.0)))
        20.0
    """
)
