"""``tf.function``, ``tf.print``, ``tf.executing_eagerly`` and ``tf.gradients``."""

import builtins

from tapeviz.core import state, traced_custom_gradient  # noqa: F401 - registers the CustomGradient replay
from tapeviz.core.function import ConcreteFunction, Function  # noqa: F401 - tapeviz.core.eager.Function
from tapeviz.core.tensor import Tensor, Variable
from tapeviz.core.tracing import host_call


def function(func=None, input_signature=None, reduce_retracing=False, **options):
    """``@tf.function``: trace the function on the first call with a new input signature, replay after.

    See core/function.py for TF's retracing rules as tapeviz follows them.
    ``input_signature`` (a list of ``tf.TensorSpec``) binds inputs as TF
    does: each positional argument is converted to its spec's dtype (Python
    values, NumPy arrays) or refused with TF's TypeError.
    """
    if func is None:
        return lambda f: function(f, input_signature=input_signature, reduce_retracing=reduce_retracing, **options)
    return Function(func, input_signature, dict(options, reduce_retracing=reduce_retracing))


def executing_eagerly():
    """False while ``tf.function`` traces, True otherwise (as TF)."""
    return not state.local.tracers


@host_call("print", stateful=True)
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
