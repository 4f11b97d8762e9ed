"""The backend contract as data: every name, signature and doc an engine provides.

Each engine package (`backend/jax/`, `backend/torch/`) has the modules named in `ENGINE`
and defines in each the names declared there, with exactly the declared parameters
(names, order, kinds and defaults). `tests/backend/test_contract.py` checks every engine
against this declaration; `lamina.ops` builds its pass-through ops from it (the declared
signature and documentation become the op's); and a test fails when code outside
`backend/` uses a backend name that is not declared here.

The functions behind ops (engine modules `core`, `numpy`, `nn`, `math`, `linalg`,
`image`, `random`) are declared with their ops' full documentation in
`lamina.backend.declarations`, one module per family, gathered here by engine module;
the modules an engine provides for the rest of lamina (`execution`, `layer`,
`optimizers`, `distribution`, `export`) are declared below, in the same format (see
`lamina.backend.declarations`).

`COMMON` declares what `lamina.backend` itself provides whatever the engine (config,
variables, naming, dtype promotion), by the module that defines it; `NAMESPACE` is what
`lamina.backend` re-exports at its top level.

>>> ENGINE["numpy"]["mean"].signature
<Signature (x, axis=None, keepdims=False)>
>>> ENGINE["numpy"]["mean"].doc
'Arithmetic mean of `x` along `axis` (integer input averages as float).'
"""

from __future__ import annotations

from lamina.backend.declarations import (
    Declaration,
    core,
    declare,
    image,
    linalg,
    math,
    math_fft,
    nn,
    nn_activations,
    nn_convolution,
    numpy_arithmetic,
    numpy_bitwise,
    numpy_complex,
    numpy_creation,
    numpy_elementwise,
    numpy_indexing,
    numpy_logic,
    numpy_products,
    numpy_reductions,
    numpy_shapes,
    numpy_statistics,
    numpy_trigonometry,
    random,
)


def _gather(*families) -> dict[str, Declaration]:
    """One engine module's declarations, from the family modules that declare it."""
    gathered: dict[str, Declaration] = {}
    for family in families:
        for name, entry in family.DECLARATIONS.items():
            if name in gathered:
                raise ValueError(f"Backend contract declares {name!r} twice.")
            gathered[name] = entry
    return gathered


# Engine modules behind the ops ---------------------------------------------------------
CORE = _gather(core)
NUMPY = _gather(
    numpy_creation,
    numpy_elementwise,
    numpy_trigonometry,
    numpy_arithmetic,
    numpy_logic,
    numpy_products,
    numpy_reductions,
    numpy_statistics,
    numpy_shapes,
    numpy_indexing,
    numpy_bitwise,
    numpy_complex,
)
NN = _gather(nn_activations, nn_convolution, nn)
# An engine kernel behind an op written once from others (`lamina.ops.ctc`), declared
# here rather than with the ops: it is not an op of its own.
NN.update(
    declare(
        """
        ctc_loss(target, output, target_length, output_length, mask_index=0)
            The engine's own CTC kernel, where it has one: the per-sample CTC loss of
            logits `output` `(batch, time, classes)` (log-softmax applied; an impossible
            alignment gives a large finite loss, about 1e5), differentiable; None where
            the engine has none, and `lamina.ops.ctc_loss` runs its own forward algorithm.
        """
    )
)
MATH = _gather(math, math_fft)
LINALG = _gather(linalg)
IMAGE = _gather(image)
RANDOM = _gather(random)

# Engine modules for the rest of lamina -------------------------------------------------
EXECUTION = declare(
    """
    STATEFUL
        True where `fit` runs steps statefully (torch: `train_step(self, data)` updates
        the variables in place), False where steps are pure functions of the state (JAX).
    JIT_BY_DEFAULT
        True where `compile(jit_compile="auto")` runs the steps compiled (JAX: every step is
        traced and compiled whole), False where they run eagerly unless `jit_compile=True`
        asks for more (torch: `torch.compile`).
    KEEPS_INT64_DATA
        True where int64 data (NumPy arrays fed to `fit`, `evaluate`, `predict` and the
        `*_on_batch` calls) reaches the steps as int64, as in Keras 3 on torch; False where
        it becomes int32, as on JAX without 64-bit types.
    Program(fn, name, donate_argnums=(), static_argnums=(), compiled=True, max_signatures=32, gradients=False, live=False, jit=None, replay=None, compiler_options=None)
        A step compiled once per input signature; `compiled=False` runs it as is;
        `gradients=True` for a step that differentiates (a taping engine records only then);
        `live=True` for a stateful engine's step on the live variables (no strict scope);
        `jit=model` on an eager engine compiles the model's `call` inside the step
        (`compile(jit_compile=True)`: `torch.compile`), ignored where steps compile whole;
        `replay=variables_for` on an eager engine runs a read-only step (predict's) from a
        graph of its operations captured once per signature, while `variables_for()`
        names the variables it reads (None: eagerly); ignored where steps compile whole;
        `compiler_options` are options for the compiler of a step compiled whole (XLA's on
        JAX, chosen per model by `step_programs`), refused where steps run eagerly.
    program(fn, name, **kwargs)
        Make the `Program` that runs the step `fn` (see `Program`'s arguments).
    step_form(pure, live)
        Of two ways to write a model's steps, the one this engine runs: `pure` (pure
        functions of the state, compiled whole: `train_step(self, state, data)`, JAX) or
        `live` (steps on the live variables: `train_step(self, data)`, torch).
    step_programs(model, kind, replay=None)
        The `Program`s `fit` (`kind="train"`), `evaluate` ("test") or `predict`
        ("predict") run, by form: "one" batch, "many" (`steps_per_execution` batches
        stacked on axis 0) and, for training data resident on the device, "one_from",
        "many_from", "one_at", "many_at". They call the model's public step of `kind`
        (`model.train_step`, ...) at each trace: pure steps scanned and compiled with the
        state donated (JAX), or stateful steps looped on the live variables (torch, whose
        programs are `live`). `replay` names the variables the model's predict step reads
        when an eager engine may capture and replay it (None: it runs eagerly).
    captured(fn, name, variables_for)
        On an eager engine, `fn(data)` (a stateful train step's forward pass and loss) run
        from a graph of its operations captured once per input signature, under autograd,
        while `variables_for()` names the variables it reads (None: eagerly; an optional
        `variables_for.watched()` names a user's layers, whose Python state the capture
        checks); what it assigns is carried out of the graph; `fn` itself where steps
        compile whole.
    no_grad()
        A context in which operations are not recorded for differentiation (an optimizer
        update on a taping engine); changes nothing on JAX.
    gradients(loss, variables)
        On a stateful engine, the gradients of the scalar `loss` just computed with respect
        to `variables` (Variables), detached; a stateless engine refuses, naming
        `value_and_grad`.
    grad(fn)
        A function returning the gradient of the scalar `fn(primals)` with respect to
        `primals` (a tensor, or a list or tuple of tensors), itself differentiable: inside
        a step that differentiates, the gradient is part of what it differentiates (the
        classic `K.gradients` in a graph trained with `fit`). JAX's `jax.grad`; on torch
        `torch.autograd.grad`, with `create_graph` while autograd records.
    profile_trace(log_dir)
        A context running the engine's own profiler over the block; the trace is written
        for TensorBoard under `log_dir/plugins/profile/<run>/` (`jax.profiler`'s layout).
    """
)

LAYER = declare(
    """
    LayerBase(...)
        The engine's base of every `Layer` (`torch.nn.Module` on torch; nothing on JAX).
    dense(x, kernel, bias=None)
        `Dense`'s math, `x @ kernel + bias` exactly as `matmul` then `add` give it, with
        one fused kernel where the engine has one.
    wrap_modules(wrapper)
        From now on a layer replaces a bare engine module assigned as its attribute by
        `wrapper(module)` (Keras's torch backend wraps a `torch.nn.Module` so); nothing on JAX.
    module_variables(module, path, who)
        `TorchModuleWrapper`'s parameters: checks `module` (a `torch.nn.Module`), moves it
        to the engine's device and returns `[(name, Variable)]`, each Variable holding the
        parameter's own tensor. JAX, which has no modules, raises naming the fix.
    call_module(module, variables, training, args, kwargs)
        `module(*args, **kwargs)` with its parameters read through `variables` (so
        stateless scopes and abstract evaluation apply); `training` False puts it in
        eval mode, anything else in train mode (Keras's rule).
    module_state(module)
        The module's `state_dict()` (parameters and buffers) as NumPy arrays by name.
    load_module_state(module, state, who)
        Load `{name: array}` into the module's `state_dict`, refusing other entries or shapes.
    serialize_module(module)
        The module pickled (`torch.save`) as base64 text, Keras's `TorchModuleWrapper` config.
    deserialize_module(data)
        The module `serialize_module` wrote; runs pickle, so callers check `safe_mode` first.
    """
)

OPTIMIZERS = declare(
    """
    FUSED
        The `kind`s of update `fused_apply` applies (a frozenset: `"sgd"`, `"adam"` on
        torch; empty on JAX, whose compiled steps fuse the generic update themselves).
    fused_apply(kind, variables, grads, slots, learning_rate, step, hyper)
        One optimizer step applied in place to the live `variables` with the engine's
        fused kernels (`kind` `"sgd"` or `"adam"`, `slots` the slot Variables of each
        variable, `hyper` the rule's hyperparameters); False when the engine has none,
        and the generic update runs.
    """
)

DISTRIBUTION = declare(
    """
    MODEL_PARALLEL
        Whether variables may be split over devices (`ModelParallel`).
    MODEL_PARALLEL_MESSAGE
        Why not, when `MODEL_PARALLEL` is False (names what to use instead).
    METRICS_PER_PROCESS
        Whether metric totals are each process's own in a job of several processes
        (torch; `job_totals` sums them when read), rather than the job's (JAX).
    list_devices(device_type=None)
        The engine's devices as strings such as `"cpu:0"` (of `device_type` when given).
    to_mesh(shape, axis_names, devices)
        The engine's device mesh of `shape` over `devices` (strings), axes `axis_names`.
    to_layout(axes, mesh)
        The engine's layout splitting dimension i of a tensor over mesh axis `axes[i]`
        (`None`: not split) of `mesh` (from `to_mesh`).
    distribute_tensor(x, layout)
        `x` placed on the layout's devices, sharded as it says.
    distribute_data(x, layout)
        This process's part of a batch (its own rows) placed as part of the global batch
        `layout` splits over the devices of every process.
    distribute_variable(x, layout)
        A new variable's value placed as `layout` says; in a job of several processes
        every process gets process 0's value (so all replicas start equal).
    create_distributed(fn, layout)
        Run `fn()`, which returns `(value, extras)`, so that `value` (a new variable's
        initial value) is made directly in `layout`, each device computing its own part
        (never whole on one device); returns `(value, extras)`, `extras` (small arrays,
        such as advanced seed states) as ordinary arrays of this process.
    all_reduce_mean(values)
        Each tensor of `values` averaged over the processes of the job (the gradients of
        data-parallel training); as it is with one process, or where the compiled step
        already reduces them (JAX). On torch, gradients whose averaging the backward
        pass started (`execution.gradients`, bucket by bucket) are waited for.
    job_totals(values)
        Each tensor of `values` (this process's metric totals) summed over the
        processes of the job, in one collective; as they are with one process, or
        where they are the job's already (JAX).
    layout_of(x)
        The engine layout of tensor `x`, or `None`.
    step_done(values, mesh)
        Called with a step's results under a distribution over `mesh` (from `to_mesh`);
        waits for them where the engine cannot safely queue the next step.
    initialize(job_addresses=None, num_processes=None, process_id=None)
        Join the processes of one job, coordinated at `job_addresses` (`host:port`).
    process_count()
        How many processes take part (1 unless `initialize` joined a job).
    process_index()
        This process's rank among `process_count()`.
    """
)

# Exporting inference programs (`lamina.export`) ------------------------------------------
EXPORT = declare(
    """
    FORMATS
        The export formats the engine writes (`Model.export(format=...)`), its own
        program format first.
    write_program(fn, weights, arguments, format, filepath, output_names=None, options=None)
        Trace `fn(values, *args)` once for inference and write it to `filepath` in
        `format`: `weights` maps names to the tensors the program keeps (passed to `fn`
        as the list `values`, in order), `arguments` is a tuple of positional arguments
        as nested lists/tuples/dicts of specs (`.shape` with `None` for a size left free,
        `.dtype`, `.name`), `output_names` names the flat outputs where the format has
        names, `options` are the format's own options.
    read_program(filepath, format)
        A callable running a program the engine wrote in `format` in the format's own
        runtime (`jax.export.deserialize`, `torch.export.load`).
    """
)

# Keeping compiled programs between runs (`backend/common/compilation_cache.py`) ---------
COMPILATION = declare(
    """
    use_cache(folder, default=False)
        Keep the engine's compiled programs in `folder` from now on (`None`: keep none);
        `default` marks lamina's own choice at import, which a folder the user gave the
        engine directly overrides.
    cache_folder()
        The folder the engine keeps compiled programs in, or `None`.
    """
)

ENGINE: dict[str, dict[str, Declaration]] = {
    "core": CORE,
    "numpy": NUMPY,
    "nn": NN,
    "math": MATH,
    "linalg": LINALG,
    "image": IMAGE,
    "random": RANDOM,
    "execution": EXECUTION,
    "layer": LAYER,
    "optimizers": OPTIMIZERS,
    "distribution": DISTRIBUTION,
    "export": EXPORT,
    "compilation": COMPILATION,
}


# What lamina.backend provides itself, whatever the engine ------------------------------
COMMON: dict[str, dict[str, Declaration]] = {
    "config": declare(
        """
        backend()
            Name of the engine in use.
        floatx()
            The default float dtype, such as `"float32"`.
        set_floatx(value)
            Set the default float dtype.
        epsilon()
            The fuzz factor used to avoid division by zero.
        set_epsilon(value)
            Set the fuzz factor.
        image_data_format()
            The default image layout: `"channels_last"` or `"channels_first"`.
        set_image_data_format(data_format)
            Set the default image layout.
        standardize_data_format(data_format)
            Resolve `None` to the default image layout and validate the value.
        """
    ),
    "common.variables": declare(
        """
        Variable(initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation='none', synchronization='auto', name=None, layout=None, *, path=None)
            The engine-independent base of every engine's Variable.
        StatelessScope(state_mapping=(), collect_losses=False, initialize_variables=True)
            A scope mapping Variables to values: reads come from it, assigns are recorded.
        current_stateless_scope()
            The innermost StatelessScope, or `None`.
        in_stateless_scope()
            Whether a StatelessScope is active.
        standardize_dtype(dtype)
            The canonical string name of a dtype (`"float32"`, `"int64"`, ...).
        AllocationBudget(max_bytes, what, how_to_raise)
            A cap on the bytes Variables may allocate inside the scope.
        deferred_initialization()
            A block (a load) in which built-in initializers take their seeds at once but
            draw a Variable's value only when it is read or the block ends unassigned.
        structure_version()
            A number that changes whenever a variable is created or trainability changes.
        bump_structure_version()
            Change `structure_version()` (a layer's `trainable` flag was set).
        relaxed(keep_scopes=False)
            A context suspending the strict check of compiled steps (and, unless
            `keep_scopes`, the stateless scopes): a stateful step reads live variables.
        set_pending_sync(fn)
            Register the write-back run before any variable is read or assigned outside
            a stateless scope (`fit` holding its state between compiled calls).
        """
    ),
    "common.name_scope": declare(
        """
        name_scope(name, caller=None, deduplicate=True, override_parent=None)
            A context adding `name` to the path of the variables made inside it.
        current_path()
            The path of the innermost open name scope (`""` outside any).
        """
    ),
    "common.seed_state": declare(
        """
        register(factory)
            Register `factory() -> Variable`: the global seed state random ops given no
            seed draw from, which every program carries as an argument and a result.
        variable()
            The global seed state's variable (made on first use), or None.
        read(state)
            The value a program is given: the innermost scope's, else the stored one.
        write(state, value)
            Store the value a program returned.
        carried(state, value)
            A stateless scope mapping the global seed state to `value` for one step.
        """
    ),
    "common.symbolic_scope": declare(
        """
        SymbolicScope()
            A context marking symbolic (abstract) evaluation.
        get_symbolic_scope()
            The innermost open SymbolicScope, or `None`.
        in_symbolic_scope()
            Whether a SymbolicScope is open.
        """
    ),
    "common.devices": declare(
        """
        VALID_FORMS
            The device names `lamina.device` takes, in words.
        parse_device_name(device_name)
            `(kind, index)` of a device name such as `"gpu:1"` (`"cuda"` is `"gpu"`).
        unavailable(device_name, available)
            The error for a device this machine does not have.
        """
    ),
    "common.execution": declare(
        """
        RetraceWarning(...)
            Issued when one compiled program keeps being traced for new signatures.
        profile()
            A context collecting each program's calls, compiles and seconds in the block.
        profiling()
            Whether a `profile()` block is collecting.
        record_call(name, seconds, traced)
            Report one program call to the active profiles (engines' Programs call this).
        """
    ),
    "common.global_state": declare(
        """
        to_snake_case(name)
            Keras's rule: `Conv2DTranspose` -> `conv2d_transpose`.
        unique_name(base)
            `base` the first time, then `base_1`, `base_2`, ...
        register_reset_hook(fn)
            Run `fn()` on `clear_session()`.
        reset_session()
            Reset automatic names and run the reset hooks.
        current_distribution()
            The distribution set with `lamina.distribution.set_distribution`, or `None`.
        set_current_distribution(value)
            Record the distribution in use (`None`: one device).
        fixed_learning_phase()
            The learning phase the classic `K.set_learning_phase` fixed (a bool), or None.
        set_fixed_learning_phase(value)
            Fix the learning phase for every later call (a bool), or not (None).
        learning_phase_or(default)
            The fixed learning phase, else `default` (the phase the call would choose).
        """
    ),
    "common.initializer_lookup": declare(
        """
        register_initializer_lookup(get)
            Register `lamina.initializers.get`, which resolves an initializer given to a
            Variable by name, config or class (done when `lamina` is imported).
        resolve_initializer(initializer, name)
            The initializer given by name, config or class, resolved by the registration.
        """
    ),
    "common.classic": declare(
        """
        register_classic_api(namespace)
            Make the classic API's names reachable as `lamina.backend.<name>`
            (`lamina.legacy` registers itself when `lamina` is imported).
        classic_api()
            The registered classic namespace, or `None` before the registration.
        NOT_REGISTERED
            Why a classic name is missing when nothing registered the classic API.
        """
    ),
    "common.compilation_cache": declare(
        """
        ENV
            The environment variable that places or turns off the cache.
        default_folder()
            `$LAMINA_HOME/compilation_cache`, else `~/.lamina/compilation_cache`.
        configure(engine)
            Set the cache up from the environment for `engine` (once, at import).
        enable(folder=None)
            Keep compiled programs in `folder` from now on; the folder in use, or `None`.
        disable()
            Stop keeping compiled programs on disk.
        folder()
            The folder compiled programs are kept in, or `None` when the cache is off.
        """
    ),
    "common.dtypes": declare(
        """
        result_type(*dtypes)
            The dtype Keras 3 promotes `dtypes` to (Python `int`/`float`/`bool` are weak).
        is_float_dtype(dtype)
            Whether `dtype` is a floating type (`float16/32/64`, `bfloat16`).
        is_int_dtype(dtype)
            Whether `dtype` is a signed or unsigned integer type.
        """
    ),
    "common.einsum_plans": declare(
        """
        flat_product(left, right, out)
            `(batch rank, contracted rank)` when the einsum `left,right->out` is one matrix
            product of runs of axes, `BC,CO->BO`; None otherwise.
        """
    ),
    "common.shapes": declare(
        """
        conv_transpose_output_length(length, kernel_size, stride, padding='valid', output_padding=None, dilation=1)
            Keras's length of a transposed convolution's output along one axis.
        check_resize_args(interpolation, methods, crop, pad, fill_mode, ndim, size)
            Validate `resize`'s arguments; returns the checked size.
        aspect_ratio_window(height, width, size, crop)
            Where `resize` crops (`crop`) or pads `(height, width)` to `size`'s aspect ratio.
        check_affine_args(interpolation, fill_mode)
            Validate `affine_transform`'s arguments.
        check_map_coordinates_args(input_shape, coordinates_shape, order, fill_mode)
            Validate `map_coordinates`'s arguments.
        check_scale_and_translate_args(input_shape, output_shape, spatial_dims, n_scale, n_translation, method)
            Validate `scale_and_translate`'s arguments; returns the checked output shape
            and spatial dims.
        """
    ),
    "": declare(
        """
        function(inputs, outputs, updates=None, name=None)
            The classic `K.function`: a callable from input values to output values.
        clear_session(free_memory=True)
            Reset automatic layer names and the global seed state (and the reset hooks'
            state); with `free_memory`, run Python's garbage collector too.
        """
    ),
}

# The names `lamina.backend` offers at its top level: the engine modules, its own names,
# and these re-exports of engine `core` and of `COMMON` names.
NAMESPACE: frozenset[str] = frozenset(
    [
        *ENGINE,
        *COMMON[""],
        *COMMON["config"],
        "StatelessScope",
        "Program",
        "RetraceWarning",
        "profile",
        "set_pending_sync",
        "result_type",
        "is_float_dtype",
        "is_int_dtype",
        "current_stateless_scope",
        "in_stateless_scope",
        "standardize_dtype",
        "Variable",
        "block_until_ready",
        "cast",
        "cond",
        "convert_to_numpy",
        "convert_to_tensor",
        "fori_loop",
        "is_tensor",
        "jit",
        "scan",
        "shape",
        "stop_gradient",
        "value_and_grad",
        "while_loop",
    ]
)
