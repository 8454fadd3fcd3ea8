"""tapeviz always runs eagerly: ``tf.function`` is accepted and runs the Python as is."""

import builtins
import functools

from tapeviz.core.tensor import Tensor, Variable


def function(func=None, input_signature=None, **options):
    """Accept ``@tf.function`` (with or without options) and run the function eagerly.

    TF would trace it into a graph; tapeviz runs every op eagerly so that each
    one can be recorded and seen. Results are the same; speed is not.
    ``input_signature`` (a list of ``tf.TensorSpec``) is honoured as TF
    binds inputs: each positional argument is converted to its spec's dtype
    (Python values, NumPy arrays) or refused with TF's TypeError (a tensor of
    another dtype, a shape that does not fit).

    Args:
        func: the function (when used as ``@tf.function`` without options).
        input_signature: a list of ``tf.TensorSpec``, one per positional argument.
        **options: TensorFlow's other options (``jit_compile``, ``reduce_retracing``...),
            accepted and ignored.

    Returns:
        A :class:`Function` that calls ``func`` eagerly, or, without ``func``,
        a decorator that makes one.

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
        return lambda f: function(f, input_signature=input_signature, **options)
    return Function(func, input_signature, options)


class Function:
    """What ``tf.function`` returns: the Python function, run eagerly, with TF's attributes."""

    def __init__(self, python_function, input_signature=None, options=None, bound_to=None):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self.input_signature = None if input_signature is None else tuple(input_signature)
        self._options = dict(options or {})
        self._bound_to = bound_to

    def __call__(self, *args, **kwargs):
        if self.input_signature is not None:
            args = self._bind(args, kwargs)
        if self._bound_to is not None:
            return self.python_function(self._bound_to, *args, **kwargs)
        return self.python_function(*args, **kwargs)

    def __get__(self, instance, owner=None):
        """A method decorated with ``@tf.function``: bind it, keeping the signature for the other arguments."""
        if instance is None:
            return self
        return Function(self.python_function, self.input_signature, self._options, bound_to=instance)

    def _bind(self, args, kwargs):
        from tapeviz.core import nest

        specs = self.input_signature
        if len(args) > len(specs) or kwargs:
            raise TypeError(
                f"{self.__name__} has an input_signature of {len(specs)} argument(s): call it with exactly those, "
                f"positionally (got {len(args)} positional and {len(kwargs)} keyword arguments)."
            )

        def cast(spec, value):
            if hasattr(spec, "cast"):
                return spec.cast(value)
            flat_specs, flat_values = nest.flatten(spec), nest.flatten(value)
            if len(flat_specs) != len(flat_values):
                raise TypeError(f"the argument's structure does not match the signature's {spec!r}")
            return nest.pack_sequence_as(spec, [s.cast(v) for s, v in zip(flat_specs, flat_values)])

        try:
            return tuple(cast(spec, arg) for spec, arg in zip(specs, args))
        except TypeError as exc:
            signature = ", ".join(f"{name}: {spec!r}" for name, spec in zip(self._argument_names(), specs))
            raise TypeError(
                f"Binding inputs to tf.function failed due to `{exc}`. Received args: {args} and kwargs: {kwargs} "
                f"for signature: ({signature})."
            ) from None

    def _argument_names(self):
        import inspect

        names = list(inspect.signature(self.python_function).parameters)
        return names[1:] if self._bound_to is not None else names

    def get_concrete_function(self, *args, **kwargs):
        """TF's traced function for these arguments; here the same eager callable."""
        return self

    def __repr__(self):
        return f"<tapeviz.function {self.__name__} (runs eagerly)>"


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
