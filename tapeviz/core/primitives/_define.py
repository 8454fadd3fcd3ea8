"""Small factories that turn a kernel into a Primitive plus its public op function."""

import numpy as np

from tapeviz.core import ops, state
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, as_tensors, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.quiet import run_quietly
from tapeviz.core.recording import NO_ATTRS, record
from tapeviz.core.tensor import Tensor, ids

_new = object.__new__

_local = state.local
_listeners = state.listeners
_sweep_op_listeners = state.sweep_op_listeners


def unary(tf_name, prim_name, kernel, doc, differentiable=True, floats_only=False):
    """Define an elementwise one-input primitive and its op ``tf_name(x, name=None)``.

    ``floats_only``: TF has no integer or bool kernel for it (exp, sqrt...), so
    those inputs raise its InvalidArgumentError rather than come back as floats.
    """
    primitive = Primitive(prim_name, kernel, differentiable=differentiable)

    if floats_only:

        def op(x, name=None):
            x = as_tensor(x)
            if x._value.dtype.kind not in "fc":
                raise not_a_float(x, tf_name, prim_name)
            return execute(primitive, (x,))
    else:

        def op(x, name=None):
            return execute(primitive, (as_tensor(x),))

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = with_fields(
        doc,
        args=[_X, _NAME],
        returns="A Tensor of ``x``'s shape, the op applied to each element.",
        raises=[_NOT_A_FLOAT] if floats_only else [],
    )
    op.primitive = primitive
    return op


# The fields an op made here documents (Google style, as the API reference renders it).
_X = "x: a Tensor, or a number, list or NumPy array (converted as ``tf.constant`` converts it)."
_Y = "y: the same, of ``x``'s dtype; its shape broadcasts against ``x``'s."
NAME_ARG = _NAME = "name: TensorFlow's op name; accepted for compatibility, unused."
_NOT_A_FLOAT = (
    "tf.errors.InvalidArgumentError: an integer or bool ``x`` (TF has no kernel for it): cast it to a float first."
)
_NOT_BROADCAST = (
    "tf.errors.InvalidArgumentError: shapes that do not broadcast, or tensors of two dtypes (cast one first)"
)


def with_fields(doc, args=(), returns=None, raises=()):
    """``doc`` with the Args, Returns and Raises sections it lacks added before its Example
    (one text per argument or exception, ``"name: what it is"``)."""
    doc = (doc or "").rstrip()
    lines = doc.splitlines()
    example = next((i for i, line in enumerate(lines) if line.strip() in ("Example:", "Examples:")), len(lines))
    indent = " " * (len(lines[example]) - len(lines[example].lstrip())) if example < len(lines) else ""
    added = []
    for title, entries in (("Args", args), ("Returns", [returns] if returns else []), ("Raises", raises)):
        if entries and f"{title}:" not in doc:
            added += ["", f"{indent}{title}:", *(f"{indent}    {entry}" for entry in entries)]
    if example == len(lines):
        return "\n".join(lines + added) + "\n"
    return "\n".join(lines[:example] + added[1:] + [""] + lines[example:]) + "\n"


def not_a_float(x, tf_name, prim_name):
    """TF's error for an integer or bool tensor given to a float-only op, with the fix."""
    return InvalidArgumentError(
        f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: half, float, "
        f"double. tf.math.{tf_name} takes float tensors only: cast first, e.g. "
        f"tf.math.{tf_name}(tf.cast(x, tf.float32)). [Op:{prim_name}]",
        prim_name,
    )


def not_a_number(x, tf_name, prim_name):
    """TF's error for a bool tensor given to arithmetic that has no bool kernel (sum, +), with the fix."""
    return InvalidArgumentError(
        f"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, "
        f"int64, uint8, int16, int8, complex64, complex128, half, uint16, uint32, uint64. "
        f"tf.{tf_name} does not take bool tensors: cast first, e.g. tf.cast(x, tf.float32) "
        f"(a mean of bools is a fraction) or tf.cast(x, tf.int32) (a count). [Op:{prim_name}]",
        prim_name,
    )


_BOOL = np.dtype(bool)
# NumPy scalar types whose dtype the type fixes (every scalar of one has the same dtype object).
_NUMBER_SCALARS = frozenset(np.dtype(code).type for code in "efdgFDGbhilqBHILQ")


def binary(tf_name, prim_name, kernel, doc, differentiable=True, numbers_only=False):
    """Define an elementwise two-input primitive (broadcasting) and its op.

    ``numbers_only``: TF has no bool kernel for it (+, -), so bools raise its
    InvalidArgumentError rather than come back as a logical or.
    """
    primitive = Primitive(prim_name, kernel, differentiable=differentiable)
    recorded_by_one = differentiable is not None  # tapes record it (record()'s first test)

    def op(x, y, name=None):
        # Every chain of arithmetic (and most gradient rules) runs through here,
        # so ops.execute is spelled out for its commonest case: two tensors of
        # one dtype (converted only otherwise), one output, no attributes.
        # Two NumPy number scalars of one type are one dtype, not bool: no dtype read for them.
        if (
            type(x) is not Tensor
            or type(y) is not Tensor
            or ((kind := type(xv := x._value)) is not type(yv := y._value) or kind not in _NUMBER_SCALARS)
            and ((dtype := xv.dtype) is not yv.dtype or (numbers_only and dtype is _BOOL))
        ):
            x, y = as_tensors(x, y, prim_name)
            if numbers_only and x._value.dtype is _BOOL:  # checked off the common path
                raise not_a_number(x, tf_name, prim_name)
            xv, yv = x._value, y._value
        try:
            value = kernel(xv, yv)
        except (ValueError, IndexError, ArithmeticError) as exc:
            raise InvalidArgumentError(f"{exc} [Op:{prim_name}]", prim_name) from None
        except RuntimeWarning:  # the user made warnings errors: TF's inf/nan come silently
            value = run_quietly(kernel, (xv, yv))
        if ops.numerics_check is not None:  # tf.debugging.enable_check_numerics
            ops.numerics_check(primitive, (x, y), value)
        output = _new(Tensor)  # Tensor(value), inlined: a class call costs more than the arithmetic
        output._value = value
        output._id = next(ids)  # the builtin next: cheaper than calling the counter's bound __next__
        local = _local.__dict__  # one thread-local lookup (state.py)
        if local["tracers"] or (_listeners and (local["tapes"] or not local["depth"] or _sweep_op_listeners)):
            record(primitive, (x, y), (output,), NO_ATTRS)  # (a rule's op outside every tape: nobody wants it)
        elif tapes := local["tapes"]:
            if len(tapes) == 1 and recorded_by_one:  # record()'s commonest case, without its tests
                tapes[0].record_op(primitive, (x, y), (output,), NO_ATTRS, local)
            else:
                record(primitive, (x, y), (output,), NO_ATTRS)
        return output

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = with_fields(
        doc,
        args=[_X, _Y, _NAME],
        returns="A Tensor of the broadcast shape of ``x`` and ``y``.",
        raises=[_NOT_BROADCAST + (", or bool tensors (no kernel for them)." if numbers_only else ".")],
    )
    op.primitive = primitive
    return op
