"""``tf.function``, ``tf.print``, ``tf.executing_eagerly`` and ``tf.gradients``."""

import contextlib
import functools
import sys

from tapeviz.core import print_format, state, traced_custom_gradient  # noqa: F401 - registers the CustomGradient replay
from tapeviz.core.function import ConcreteFunction, Function  # noqa: F401 - tapeviz.core.eager.Function
from tapeviz.core.tensor import Tensor, Variable
from tapeviz.core.tracing import host_call


def function(func=None, input_signature=None, reduce_retracing=False, **options):
    """``@tf.function``: trace the function on the first call with a new input signature, replay after.

    See core/function.py for TF's retracing rules as tapeviz follows them.
    ``input_signature`` (a list of ``tf.TensorSpec``) binds inputs as TF
    does: each positional argument is converted to its spec's dtype (Python
    values, NumPy arrays) or refused with TF's TypeError. The first call runs
    the Python on the real tensors, so a tape around it records every op.

    Args:
        func: the function (when used as ``@tf.function`` without options).
        input_signature: a list of ``tf.TensorSpec``, one per positional argument.
        reduce_retracing: relax shapes that change between calls into ``None``
            sizes instead of tracing again for each.
        **options: TensorFlow's other options (``jit_compile``...), accepted and ignored.

    Returns:
        A :class:`Function` that traces ``func`` and replays its traces, or,
        without ``func``, a decorator that makes one.

    Raises:
        TypeError: when called, an argument its ``input_signature`` refuses.

    Example:
        >>> import tapeviz as tf
        >>> @tf.function
        ... def square(x):
        ...     return x * x
        >>> x = tf.Variable(3.0)
        >>> with tf.GradientTape() as tape:
        ...     y = square(x)
        >>> print(tape.gradient(y, x))  # every op inside was recorded
        tf.Tensor(6.0, shape=(), dtype=float32)
    """
    if func is None:
        return lambda f: function(f, input_signature=input_signature, reduce_retracing=reduce_retracing, **options)
    return Function(func, input_signature, dict(options, reduce_retracing=reduce_retracing))


def executing_eagerly():
    """False while ``tf.function`` traces, True otherwise (as TF).

    Returns:
        A bool.
    """
    return not state.local.tracers


@host_call("print", stateful=True)
def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001 - TF's name
    """``tf.print``: print tensors by value, as TF 2.21 writes them, to standard error by default.

    Args:
        *inputs: tensors, variables and Python values (nested lists, tuples and dicts too).
        output_stream: ``sys.stderr`` (the default, as TF), ``sys.stdout``, or ``"file://PATH"`` (appended to).
        summarize: how many of the first and last entries of each axis to print (default 3; -1: all).
        sep: between the inputs.
        end: after the last input.
        name: ignored.

    Raises:
        ValueError: for an output_stream that is none of those.
    """
    text = sep.join(_format(value, summarize) for value in inputs) + end
    if output_stream is None:
        output_stream = sys.stderr  # read at each call: a redirection (pytest's capsys, Jupyter) is honoured
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(f"Unsupported output stream, logging level, or file. {output_stream}")
        with open(output_stream[len("file://") :], "a", encoding="utf-8") as file:
            file.write(text)
        return
    if not hasattr(output_stream, "write"):
        raise ValueError(f"Unsupported output stream, logging level, or file. {output_stream}")
    output_stream.write(text)


def _format(value, summarize):
    def array_of(item):
        return item.numpy() if isinstance(item, (Tensor, Variable)) else None

    return print_format.format_value(value, summarize, array_of)


def gradients(ys, xs, grad_ys=None, **kwargs):
    """``tf.gradients`` belongs to TF's graph mode, which tapeviz (like TF 2 eagerly) has not.

    Raises RuntimeError as TF 2 does, saying what to write instead.

    Args:
        ys: TF's targets.
        xs: TF's sources.
        grad_ys: TF's upstream gradients.
        **kwargs: TF's other options.

    Raises:
        RuntimeError: always (use a ``tf.GradientTape``), as TF 2 raises eagerly.
    """
    raise RuntimeError(
        "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead:\n"
        "    with tf.GradientTape() as tape:\n"
        "        ys = f(xs)\n"
        "    grads = tape.gradient(ys, xs)"
    )


@contextlib.contextmanager
def init_scope():
    """``tf.init_scope()``: run a block outside the function being traced (and outside tapes), as TF.

    Inside ``tf.function`` the block runs once, while tracing; what it computes
    reaches the trace as constants or through the variables it assigns.

    Returns:
        A context manager.
    """
    local = state.local
    saved = local.tracers, local.tapes
    local.tracers, local.tapes = [], []
    try:
        yield
    finally:
        local.tracers, local.tapes = saved


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TF's name
    """``tf.py_function``: run Python eagerly on tensors, on every call of a ``tf.function`` too.

    ``tf.py_function(f, [x, y], Tout=tf.float32)`` or ``@tf.py_function(Tout=tf.float32)``.
    Tapes record the ops ``f`` runs, so gradients flow through it (as in TF);
    a trace keeps the call as a host call, which a stored graph cannot hold.

    Args:
        func: a Python function of tensors.
        inp: the list of its inputs.
        Tout: the output dtype(s).
        name: accepted for TensorFlow compatibility.

    Returns:
        What ``func`` returns, as Tensors.
    """
    if func is None:
        return lambda f: py_function(f, inp, Tout, name)
    if inp is None:  # the decorator form: a function to call later

        @functools.wraps(func)
        def wrapper(*args):
            return _py_call(func, list(args), Tout)

        return wrapper
    return _py_call(func, list(inp), Tout)


@host_call(stateful=True)
def _py_call(func, inputs, dtypes_out):
    from tapeviz.core.tensor import convert_to_tensor

    result = func(*[convert_to_tensor(x) for x in inputs])
    if dtypes_out is None:
        return None
    if isinstance(dtypes_out, (list, tuple)):
        values = result if isinstance(result, (list, tuple)) else [result]
        return [convert_to_tensor(v, dtype=d) for v, d in zip(values, dtypes_out)]
    if isinstance(result, (list, tuple)) and result:  # TF reads a returned list as the outputs: the first is it
        result = result[0]
    return convert_to_tensor(result, dtype=dtypes_out)
