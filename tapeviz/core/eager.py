"""tapeviz always runs eagerly: ``tf.function`` is accepted and runs the Python as is."""

import builtins
import functools

from tapeviz.core.tensor import Tensor, Variable


def function(func=None, **options):
    """Accept ``@tf.function`` (with or without options) and run the function eagerly.

    TF would trace it into a graph; tapeviz runs every op eagerly so that each
    one can be recorded and seen. Results are the same; speed is not.
    """
    if func is None:
        return lambda f: function(f, **options)

    @functools.wraps(func)
    def eager(*args, **kwargs):
        return func(*args, **kwargs)

    return eager


def executing_eagerly():
    """Always True: tapeviz has no graph mode."""
    return True


def print(*inputs, sep=" ", end="\n", **kwargs):  # noqa: A001 - TF's name
    """``tf.print``: print tensors by value, as TF does (no shape/dtype decoration)."""
    values = [i.numpy() if isinstance(i, (Tensor, Variable)) else i for i in inputs]
    builtins.print(*values, sep=sep, end=end)


def gradients(ys, xs, grad_ys=None, **kwargs):
    """``tf.gradients`` belongs to TF's graph mode, which tapeviz (like TF 2 eagerly) has not.

    Raises RuntimeError as TF 2 does, saying what to write instead.
    """
    raise RuntimeError(
        "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead:\n"
        "    with tf.GradientTape() as tape:\n"
        "        ys = f(xs)\n"
        "    grads = tape.gradient(ys, xs)"
    )
