"""``tf.debugging``: TensorFlow's checks of values, shapes and dtypes, and the NaN/Inf check of every op.

As in TF 2.21, with TF's error types and messages:

* ``check_numerics(x, message)`` returns ``x``, or raises ``InvalidArgumentError``
  when it holds a NaN or an Inf; its gradient passes through, checked too.
* ``enable_check_numerics()`` checks every float output of every op from then
  on (in this thread), forward and in gradient sweeps, and raises at the first
  op that makes a NaN or an Inf, with TF's message plus the user's line that
  ran it ("Made at: train.py:12"; in a sweep, the op whose gradient rule made
  it too). ``disable_check_numerics()`` stops it. Off, it costs one test per op.
* ``assert_equal``, ``assert_less``, ``assert_near``, ``assert_positive``...,
  ``assert_shapes``, ``assert_rank``, ``assert_type``..., ``Assert``: eager
  checks that return None (``assert_all_finite`` returns its tensor). Inside a
  ``tf.function`` the value and size checks run on every call, as TF's ops do;
  dtype and rank checks run when it traces (a new dtype or rank traces again).

``set_log_device_placement`` and the traceback-filtering switches are kept for
compatibility and change nothing (tapeviz places nothing and filters no traceback).
"""

import threading

import numpy as np

from tapeviz import backend as B
from tapeviz.core import ops, origin
from tapeviz.core.dtypes import as_dtype, float32
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives.numerics import check_numerics as _check_numerics_op
from tapeviz.core.primitives.numerics import nonfinite_kinds
from tapeviz.core.tape import entry_being_differentiated
from tapeviz.core.tensor import Tensor, TensorShape, Variable, convert_to_tensor, to_array
from tapeviz.core.tracing import host_call

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "disable_check_numerics",
    "disable_traceback_filtering",
    "enable_check_numerics",
    "enable_traceback_filtering",
    "get_log_device_placement",
    "is_numeric_tensor",
    "is_traceback_filtering_enabled",
    "set_log_device_placement",
]


# -- NaN and Inf --------------------------------------------------------------------------------
def check_numerics(tensor, message, name=None):
    """Return ``tensor`` unchanged, or raise ``InvalidArgumentError`` if it holds a NaN or an Inf.

    Args:
        tensor: a float tensor.
        message: the start of the error's message ("loss" gives "loss : Tensor had NaN values").
        name: ignored (TF's op name).

    Returns:
        A tensor equal to ``tensor``. Its gradient is the upstream gradient, checked
        the same way ("Not a number (NaN) or infinity (Inf) values detected in gradient. ...").

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.check_numerics(tf.math.log(tf.constant([1.0, 0.0])), "log of x")
        Traceback (most recent call last):
        ...
        tapeviz.core.errors.InvalidArgumentError: log of x : Tensor had Inf values [Op:CheckNumerics]
    """
    return _check_numerics_op(tensor, message, name)


def assert_all_finite(x, message, name=None):
    """``check_numerics`` by TF 2's other name: ``x`` unchanged, or ``InvalidArgumentError`` on NaN or Inf.

    Args:
        x: a float tensor.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``x``, unchanged.
    """
    return _check_numerics_op(x, message, name)


# TF's enable_check_numerics skips these (they move values, never make them) and the
# batch-norm statistics of an empty batch, which are NaN by design.
_SAFE_OPS = frozenset(
    {
        "Concat",
        "ConcatV2",
        "ExpandDims",
        "Fill",
        "Gather",
        "GatherV2",
        "Maximum",
        "Minimum",
        "Reshape",
        "Slice",
        "Squeeze",
        "Stack",
        "Pack",
        "StridedSlice",
        "StridedSliceGrad",
        "Transpose",
        "Unpack",
        "CheckNumerics",
    }
)
_IGNORED_OUTPUTS = frozenset(
    (op, slot) for op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3") for slot in range(1, 6)
)

_threads_checking = set()  # idents of the threads that enabled the check (TF's switch is per thread)
_switch_lock = threading.Lock()


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on (in this thread), raise at the first op whose float output holds a NaN or an Inf.

    Every op is checked, in the forward pass and in gradient sweeps (a rule's
    ops), inside ``tf.function`` calls too. The ``InvalidArgumentError`` has
    TF's message (the op, its output's dtype, shape and NaN/Inf counts, its
    inputs) plus ``Made at: file.py:LINE``, the user's line that ran the op; in
    a sweep, also the op whose gradient rule made the value.

    Args:
        stack_height_limit, path_length_limit: TF's limits for its graph-mode
            stack traces; accepted and unused (the message names one line).

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.enable_check_numerics()
        >>> try:
        ...     tf.math.log(tf.constant(0.0))
        ... except tf.errors.InvalidArgumentError as error:
        ...     print(str(error).splitlines()[2])
        !!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!
        >>> tf.debugging.disable_check_numerics()
    """
    with _switch_lock:
        _threads_checking.add(threading.get_ident())
        ops.set_numerics_check(_check_outputs)


def disable_check_numerics():
    """Stop what ``enable_check_numerics`` started in this thread (nothing happens if it was not on)."""
    with _switch_lock:
        _threads_checking.discard(threading.get_ident())
        if not _threads_checking:
            ops.set_numerics_check(None)


def _check_outputs(primitive, inputs, result):
    """The check ``ops.execute`` runs after each kernel while some thread enabled it."""
    name = primitive.name
    if name in _SAFE_OPS or threading.get_ident() not in _threads_checking:
        return
    outputs = (result,) if primitive.n_outputs == 1 else tuple(result)
    for slot, array in enumerate(outputs):
        dtype = getattr(array, "dtype", None)
        if dtype is None or dtype.kind != "f" or (name, slot) in _IGNORED_OUTPUTS:
            continue
        if not bool(B.xp.isfinite(array).all()):
            raise InvalidArgumentError(_numerics_message(name, slot, len(outputs), array, inputs), "CheckNumericsV2")


def _numerics_message(op, slot, n_outputs, array, inputs):
    """TF's enable_check_numerics message for an eager op, with the user's line added before its end."""
    xp = B.xp
    infinite = xp.isinf(array)
    counts = (
        ("-Inf", int((infinite & (array < 0)).sum())),
        ("+Inf", int((infinite & (array > 0)).sum())),
        ("+NaN", int(xp.isnan(array).sum())),
    )
    lines = [
        "",
        f'!!! Detected Infinity or NaN in output {slot} of eagerly-executing op "{op}" (# of outputs: {n_outputs}) !!!',
        f"  dtype: {as_dtype(array.dtype)}",
        f"  shape: {TensorShape(tuple(array.shape))}",
    ]
    lines += [f"  # of {word} elements: {count}" for word, count in counts if count]
    if len(inputs) == 1:
        lines += ["", f"  Input tensor: {_as_text(inputs[0])}"]
    elif inputs:
        lines += ["", f"  Input tensors ({len(inputs)}):"]
        lines += [f"         {i}: {_as_text(t)}" for i, t in enumerate(inputs)]
    lines.append(_where())
    return (
        "\n" + "\n".join(lines) + f"\n\n : Tensor had {nonfinite_kinds(array, signed=True)} values [Op:CheckNumericsV2]"
    )


def _as_text(tensor):
    return str(tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor))


def _where():
    """``  Made at: file.py:LINE``: the user's line; in a gradient sweep, the op whose rule ran too."""
    line = f"  Made at: {origin.describe(origin.capture()) or 'an unknown line'}"
    entry = entry_being_differentiated()
    if entry is not None:
        line += f', in the gradient of op "{entry.primitive.name}"'
    return line


# -- comparisons ----------------------------------------------------------------------------------
_COMPARISONS = {  # symbol -> (TF's op, NumPy's test)
    "==": ("Equal", np.equal),
    "!=": ("NotEqual", np.not_equal),
    "<": ("Less", np.less),
    "<=": ("LessEqual", np.less_equal),
    ">": ("Greater", np.greater),
    ">=": ("GreaterEqual", np.greater_equal),
}


@host_call("debugging.compare", stateful=True)  # inside tf.function: checked on every call, as TF's op
def _compare(sym, x, y, data, summarize, message):
    """TF's ``_binary_assert`` in eager mode: None, or InvalidArgumentError with its message."""
    op, test = _COMPARISONS[sym]
    x, y = ops.as_tensors(x, y, op)
    xv, yv = B.to_numpy(to_array(x)), B.to_numpy(to_array(y))
    try:
        passed = test(xv, yv)
    except ValueError:
        raise InvalidArgumentError(
            f"Incompatible shapes: {_dims(xv.shape)} vs. {_dims(yv.shape)} [Op:{op}]", op
        ) from None
    if passed.all():
        return None
    summarize = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
    if data is None:
        data = _comparison_data(sym, xv, yv, passed, summarize)
    if message is not None:
        data = [message, *data]
    raise InvalidArgumentError("\n".join(_pretty(item, summarize) for item in data))


def _dims(shape):
    return "[" + ",".join(str(n) for n in shape) + "]"


def _comparison_data(sym, x, y, passed, summarize):
    data = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        if x.shape == y.shape and x.shape:  # same shape, not scalars: which elements failed
            failed = ~passed
            indices = np.argwhere(failed)
            count = min(summarize, indices.shape[0])
            data += [f"Indices of first {count} different values:", indices[:count]]
            data += ["Corresponding x values:", x[failed].reshape(-1)[:count]]
            data += ["Corresponding y values:", y[failed].reshape(-1)[:count]]
        x_flat, y_flat = x.reshape(-1), y.reshape(-1)
        x_count, y_count = min(x_flat.size, summarize), min(y_flat.size, summarize)
        data += [f"First {x_count} elements of x:", x_flat[:x_count], f"First {y_count} elements of y:"]
        data.append(y_flat[:y_count])
    return data


def _pretty(item, summarize):
    """One item of an assert's data as TF's eager message writes it."""
    if isinstance(item, (Tensor, Variable)):
        array = B.to_numpy(to_array(convert_to_tensor(item)))
        if array.ndim == 0:
            return str(array[()])
        flat = array.reshape(-1)
        words = [str(v) for v in flat[:summarize]]
        if len(words) < flat.size:
            words.append("...")
        return str(words)
    return str(item)


def _prefix(message):
    return f"{message}.  " if message else ""


def _shape_and_dtype(x):
    return f"shape={x.shape} dtype={x.dtype.name}"


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x == y`` element-wise (broadcasting); returns None.

    The message (after ``message``, when given) lists the first ``summarize``
    (default 3) differing indices and values, and the first elements of both.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="labels")
        Traceback (most recent call last):
        ...
        tapeviz.core.errors.InvalidArgumentError: labels
        Condition x == y did not hold.
        Indices of first 1 different values:
        [[1]]
        Corresponding x values:
        [2]
        Corresponding y values:
        [3]
        First 2 elements of x:
        [1 2]
        First 2 elements of y:
        [1 3]
    """
    return _compare("==", x, y, None, summarize, message)


def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x != y`` for every element; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        summarize: how many entries the message shows.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _compare("!=", x, y, None, summarize, message)


def assert_less(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x < y`` element-wise; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _compare("<", x, y, None, summarize, message)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x <= y`` element-wise; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _compare("<=", x, y, None, summarize, message)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x > y`` element-wise; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _compare(">", x, y, None, summarize, message)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x >= y`` element-wise; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        y: the same, of a shape that broadcasts with ``x``'s.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _compare(">=", x, y, None, summarize, message)


def _sign_assert(sym, condition, x, message, summarize):
    x = convert_to_tensor(x)
    data = [_prefix(message), condition, f"x ({_shape_and_dtype(x)}) = ", x]
    if sym == "<=":  # TF's assert_non_positive joins these two lines (no comma in its list)
        data[1:3] = [condition + data[2]]
    zero = convert_to_tensor(0, dtype=x.dtype)
    return _compare(sym, x, zero, data, summarize, None)


def assert_negative(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless every element of ``x`` is < 0 (an empty ``x`` passes); returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _sign_assert("<", "Condition x < 0 did not hold element-wise:", x, message, summarize)


def assert_positive(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless every element of ``x`` is > 0 (an empty ``x`` passes); returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.assert_positive(tf.constant([0.5, 2.0]), message="variance")  # passes: None
    """
    return _sign_assert(">", "Condition x > 0 did not hold element-wise:", x, message, summarize)


def assert_non_negative(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless every element of ``x`` is >= 0; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _sign_assert(">=", "Condition x >= 0 did not hold element-wise:", x, message, summarize)


def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless every element of ``x`` is <= 0; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    return _sign_assert("<=", "Condition x <= 0 did not hold element-wise:", x, message, summarize)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``|x - y| < atol + rtol * |y|`` element-wise; returns None.

    ``rtol`` and ``atol`` default to 10 times the float type's machine epsilon,
    as in TF; ``x`` must be a float (or complex) tensor.

    Args:
        x: a float tensor.
        y: the same, of a shape that broadcasts with ``x``'s.
        rtol: the relative tolerance (TF's default for the dtype when None).
        atol: the absolute tolerance (likewise).
        message: a prefix for the error message.
        summarize: how many entries the message shows.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None (an ``Assert`` op inside ``tf.function``).
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    real = np.real(np.zeros((), x.dtype.as_numpy_dtype)).dtype
    eps = np.finfo(real).eps  # an integer dtype raises NumPy's ValueError, as in TF
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=as_dtype(real))
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=as_dtype(real))
    data = [
        _prefix(message),
        f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
        f"x ({_shape_and_dtype(x)}) = ",
        x,
        f"y ({_shape_and_dtype(y)}) = ",
        y,
    ]
    return _near(x, y, rtol, atol, data, summarize)


@host_call("debugging.near", stateful=True)
def _near(x, y, rtol, atol, data, summarize):
    xv, yv, atol, rtol = (B.to_numpy(to_array(t)) for t in (x, y, atol, rtol))
    close = np.abs(xv - yv) < atol + rtol * np.abs(yv)
    return _assert_now(convert_to_tensor(bool(np.all(close))), data, summarize)


# -- Assert ---------------------------------------------------------------------------------------
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raise ``InvalidArgumentError`` when ``condition`` (a scalar bool) is False, showing ``data``; returns None.

    Each item of ``data`` is written as TF does: a string as bytes (``b'x is'``),
    a tensor as its first ``summarize`` (default 3) values.

    Args:
        condition: a scalar bool.
        data: a list of tensors (or values) to show in the message.
        summarize: how many entries of each to show.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        None.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant([1.0, -2.0])
        >>> tf.debugging.Assert(tf.reduce_all(x > 0), ["x must be positive:", x])
        Traceback (most recent call last):
        ...
        tapeviz.core.errors.InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'x must be positive:'
        1.0, -2.0
    """
    return _assert(condition, list(data), summarize)


def _assert_now(condition, data, summarize):
    if condition:  # a tensor of several elements raises NumPy's "truth value ... is ambiguous", as TF
        return None
    words = "\n".join(_summarized(item, summarize) for item in data)
    raise InvalidArgumentError(f"Expected '{condition!s}' to be true. Summarized data: {words}")


_assert = host_call("debugging.Assert", stateful=True)(_assert_now)  # inside tf.function: on every call


def _summarized(item, summarize):
    """TF's ``_summarize_eager``: a string as bytes, a tensor's first values joined by ", "."""
    if isinstance(item, str):
        return str(item.encode())
    if isinstance(item, bytes):
        return str(item)
    array = B.to_numpy(to_array(convert_to_tensor(item)))
    summarize = 3 if summarize is None else (array.size if summarize < 0 else summarize)
    if array.ndim == 0:
        return str(array[()]) if summarize != 0 else ""
    flat = array.reshape(-1)
    words = [str(v) for v in flat[:summarize]]
    if len(words) < flat.size:
        words.append("...")
    return ", ".join(words)


# -- ranks and shapes -----------------------------------------------------------------------------
def _static_rank(rank):
    value = np.asarray(B.to_numpy(to_array(convert_to_tensor(rank))) if isinstance(rank, (Tensor, Variable)) else rank)
    if value.dtype.kind not in "iu":
        raise TypeError(f"rank must be of type tf.int32; got {as_dtype(value.dtype)!r}")
    if value.ndim != 0:
        raise ValueError("Rank must be a scalar.")
    return int(value)


def assert_rank(x, rank, message=None, name=None):
    """Raise ``ValueError`` unless ``x`` has rank ``rank``; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        rank: the rank it must have.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        ValueError: ``x`` of another rank.

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.assert_rank(tf.zeros([2, 3]), 4, message="images are NHWC")
        Traceback (most recent call last):
        ...
        ValueError: images are NHWC.  Tensor  must have rank 4.  Received rank 2, shape (2, 3)
    """
    x, rank = convert_to_tensor(x), _static_rank(rank)
    if x.shape.rank != rank:
        raise ValueError(
            f"{_prefix(message)}Tensor  must have rank {rank}.  Received rank {x.shape.rank}, shape {x.shape}"
        )


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise ``ValueError`` unless ``x`` has rank ``rank`` or more; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        rank: the smallest rank allowed.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        ValueError: ``x`` of another rank.
    """
    x, rank = convert_to_tensor(x), _static_rank(rank)
    if x.shape.rank < rank:
        raise ValueError(
            f"{_prefix(message)}Tensor  must have rank at least {rank}.  Received rank {x.shape.rank}, shape {x.shape}"
        )


def assert_rank_in(x, ranks, message=None, name=None):
    """Raise ``ValueError`` unless the rank of ``x`` is one of ``ranks``; returns None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        ranks: the ranks allowed.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        ValueError: ``x`` of another rank.
    """
    x = convert_to_tensor(x)
    ranks = tuple(_static_rank(r) for r in ranks)
    if x.shape.rank not in ranks:
        raise ValueError(
            f"{_prefix(message)}Tensor  must have rank in {ranks}.  Received rank {x.shape.rank}, shape {x.shape}"
        )


def assert_scalar(tensor, message=None, name=None):
    """Raise ``ValueError`` unless ``tensor`` is a scalar (rank 0); returns None.

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        ValueError: a ``tensor`` of rank other than 0.
    """
    tensor = convert_to_tensor(tensor)
    if tensor.shape.rank != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {tensor.shape}.")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Raise ``ValueError`` unless the tensors' shapes fit the symbolic shapes given with them; returns None.

    ``shapes``: ``(tensor, shape)`` pairs (or a dict); a shape lists one entry per
    dimension: a number (that size), a name (the same size wherever the name
    appears), ``None`` or ``"."`` (any size), and ``...`` or ``"*"`` first (any
    number of leading dimensions). A scalar fits ``()`` and ``(1,)``.

    Args:
        shapes: ``(tensor, shape)`` pairs (or a dict); a shape's entries are ints or
            names (``"N"``) that must stand for one size everywhere.
        data: accepted for TensorFlow compatibility.
        summarize: accepted for TensorFlow compatibility.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Example:
        >>> import tapeviz as tf
        >>> tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "D")), (tf.zeros([3]), ("N",))])
        Traceback (most recent call last):
        ...
        ValueError: Specified by tensor shape=(2, 3) dtype=float32 dimension 0.  Tensor shape=(3,) dtype=float32 dimension 0 must have size 2.  Received size 3, shape (3,)
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    pairs = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]
    _check_shapes([x for x, _ in pairs], [s for _, s in pairs], message)


@host_call("debugging.assert_shapes", stateful=True)  # inside tf.function: sizes checked on every call
def _check_shapes(tensors, symbolic, message):
    prefix = _prefix(message)
    parsed = []
    for x, spec in zip(tensors, symbolic):
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(
                f"{prefix}Tensor {_shape_and_dtype(x)}.  Specified shape must be an iterable.  An iterable has the "
                f"attribute `__iter__` or `__getitem__`.  Received specified shape: {spec}"
            )
        spec = tuple(spec)
        leading = False
        for i, symbol in enumerate(spec):
            if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                if i != 0:
                    raise ValueError(
                        f"{prefix}Tensor {_shape_and_dtype(x)} specified shape index {i}.  Symbol `...` or `*` for a "
                        "variable number of unspecified dimensions is only allowed as the first entry"
                    )
                leading = True
        sizes = tuple(x.shape) if x.shape.rank else (1,)
        parsed.append((x, leading, sizes, (spec[1:] if leading else spec) or (1,)))  # () means (1,), as TF
    for x, leading, _, spec in parsed:  # ranks first, as TF
        if leading:
            if len(spec) > 1:
                assert_rank_at_least(x, len(spec), message=message)
        elif len(spec) == 1:
            assert_rank_in(x, [0, 1], message=message)
        else:
            assert_rank(x, len(spec), message=message)
    named = {}
    for x, leading, sizes, spec in parsed:
        for i, symbol in enumerate(spec):
            if symbol is None or (isinstance(symbol, str) and symbol == "."):
                continue
            dim = i - len(spec) if leading else i
            explicit = _as_size(symbol)
            if explicit is not None:
                wanted, how = explicit, "Specified explicitly"
            elif symbol in named:
                wanted, by, by_dim = named[symbol]
                how = f"Specified by tensor {_shape_and_dtype(by)} dimension {by_dim}"
            else:
                named[symbol] = (sizes[dim], x, dim)
                continue
            if sizes[dim] != wanted:
                raise ValueError(
                    f"{prefix}{how}.  Tensor {_shape_and_dtype(x)} dimension {dim} must have size {wanted}.  "
                    f"Received size {sizes[dim]}, shape {x.shape}"
                )


def _as_size(symbol):
    """The size a symbol states (a number, or a string of one, as TF reads it), else None (a name)."""
    try:
        return int(symbol)
    except (TypeError, ValueError):
        return None


# -- dtypes and types -----------------------------------------------------------------------------
def assert_type(tensor, tf_type, message=None, name=None):
    """Raise ``TypeError`` unless ``tensor``'s dtype is ``tf_type``; returns None.

    Args:
        tensor: a tensor.
        tf_type: the dtype it must have.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        TypeError: ``tensor`` of another dtype.
    """
    tf_type = as_dtype(tf_type)
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        raise TypeError(f"{_prefix(message)}tensor must be of type {tf_type!r}; got {tensor.dtype!r}")


def assert_integer(x, message=None, name=None):
    """Raise ``TypeError`` unless ``x`` has an integer dtype; returns None.

    Args:
        x: a tensor.
        message: a prefix for the error message.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Raises:
        TypeError: ``x`` of a dtype that is not an integer.
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of dtype {x.dtype}')


def assert_same_float_dtype(tensors=None, dtype=None):
    """The float dtype all ``tensors`` share (and ``dtype``, when given); float32 for none.

    Raises ``ValueError`` when their dtypes differ or are not floats.

    Args:
        tensors: tensors whose dtypes must be one float dtype.
        dtype: the float dtype they must have, when given.

    Returns:
        The dtype (float32 when there is none to read).

    Raises:
        ValueError: dtypes that differ, or one that is not a float.
    """
    if tensors:
        dtype = _same_dtype(tensors, dtype)
    if not dtype:
        return float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _same_dtype(items, expected=None):
    """TF's ``_assert_same_base_type``: the items' one dtype, or its ValueError naming the first that differs."""
    expected = None if expected is None else as_dtype(expected)
    first = None
    for item in items:
        if item is None:
            continue
        if expected is None:
            expected, first = item.dtype, str(item)
        elif item.dtype != expected:
            against = f" as {first}" if first is not None else ""
            raise ValueError(f"{item!s}, type={item.dtype}, must be of the same type ({expected}){against}.")
    return expected


_NUMERIC_KINDS = frozenset("iufc")


def is_numeric_tensor(tensor):
    """True for a tensor of a number dtype (not bool or string): TF's ``is_numeric_tensor``.

    Args:
        tensor: anything.

    Returns:
        A bool.
    """
    return isinstance(tensor, (Tensor, Variable)) and np.dtype(tensor.dtype.as_numpy_dtype).kind in _NUMERIC_KINDS


def assert_proper_iterable(values):
    """Raise ``TypeError`` unless ``values`` is an iterable other than a tensor, an array or a string.

    Args:
        values: what to check.

    Raises:
        TypeError: a tensor, array, string or bytes, or something that is not iterable.
    """
    if isinstance(values, (Tensor, Variable, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


# -- switches kept for compatibility ----------------------------------------------------------------
_switches = {"log_device_placement": False, "traceback_filtering": True}


def set_log_device_placement(enabled):
    """Kept for TF code: tapeviz runs every op on its one backend, so there is no placement to log.

    Args:
        enabled: kept, and returned by ``get_log_device_placement``.
    """
    _switches["log_device_placement"] = bool(enabled)


def get_log_device_placement():
    """What ``set_log_device_placement`` was last given (False at first).

    Returns:
        A bool.
    """
    return _switches["log_device_placement"]


def enable_traceback_filtering():
    """Kept for TF code: tapeviz's errors carry plain Python tracebacks, never filtered."""
    _switches["traceback_filtering"] = True


def disable_traceback_filtering():
    """Kept for TF code (see ``enable_traceback_filtering``)."""
    _switches["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    """What the traceback-filtering switch says (True at first, as TF).

    Returns:
        A bool.
    """
    return _switches["traceback_filtering"]
