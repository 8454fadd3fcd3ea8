"""Running primitives: call the backend kernel, wrap the result, tell the tapes.

Every public op is a thin function that converts its arguments and calls
``execute`` (the elementwise binary ops spell out its commonest case, see
primitives/_define.py); recording costs nothing when no tape is active and
no listener is subscribed.
"""

from tapeviz.core import numpy_promotion, state
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitive import Primitive
from tapeviz.core.quiet import run_quietly
from tapeviz.core.recording import NO_ATTRS as _NO_ATTRS
from tapeviz.core.recording import record
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor

_local = state.local
_listeners = state.listeners
_sweep_op_listeners = state.sweep_op_listeners

__all__ = ["Primitive", "execute", "as_tensor", "as_tensors", "same_dtype", "set_numerics_check"]

# While tf.debugging.enable_check_numerics is on: called as check(primitive, inputs, result) after each
# kernel (and by the binary ops' own fast path, primitives/_define.py). None costs one test per op.
numerics_check = None


def set_numerics_check(check):
    """Run ``check(primitive, inputs, result)`` after every op's kernel from now on; None stops it."""
    global numerics_check
    numerics_check = check


def execute(primitive, inputs, attrs=_NO_ATTRS):
    """Run ``primitive`` on a tuple of Tensors; returns a Tensor (or a list)."""
    try:
        if attrs:
            result = primitive.kernel(*[t._value for t in inputs], **attrs)
        else:  # most ops: skip building an empty keyword dict
            result = primitive.kernel(*[t._value for t in inputs])
    except (ValueError, IndexError, ArithmeticError) as exc:
        error = InvalidArgumentError(f"{exc} [Op:{primitive.name}]", primitive.name)
        result = _deferred(primitive, inputs, attrs, error)  # a trace raises it only if the op is kept
        if result is None:
            raise error from None
        output = Tensor(result)
        record(primitive, inputs, (output,), attrs)
        for tracer in _local.tracers:
            tracer.defer_error(output, error)
        return output
    except RuntimeWarning:  # the user made warnings errors: TF's inf/nan come silently
        result = run_quietly(primitive.kernel, [t._value for t in inputs], attrs)
    if numerics_check is not None:
        numerics_check(primitive, inputs, result)
    local = _local.__dict__  # one thread-local lookup (state.py)
    # Recorded when a tape or a trace may keep it, or a listener wants it (a sweep's op outside every
    # tape only when one asked for those: record()'s own early out, without the call).
    wanted = local["tapes"] or local["tracers"] or (_listeners and (not local["depth"] or _sweep_op_listeners))
    if primitive.n_outputs == 1:
        output = Tensor(result)
        if wanted:
            record(primitive, inputs, (output,), attrs)
        return output
    outputs = tuple([Tensor(r) for r in result])
    if wanted:
        record(primitive, inputs, outputs, attrs)
    return list(outputs)


def _deferred(primitive, inputs, attrs, error):
    """A stand-in result for an op that failed while a trace records it, when the trace may prune it (as
    TF never runs an op nothing uses); None when it must raise now."""
    if not _local.tracers or primitive.name not in DEFERRABLE:
        return None
    return DEFERRABLE[primitive.name]([t._value for t in inputs], attrs)


def _gather_stand_in(arrays, attrs):
    from tapeviz import backend

    params, indices = arrays
    axis, batch = attrs["axis"], attrs["batch_dims"]
    shape = params.shape[:axis] + indices.shape[batch:] + params.shape[axis + 1 :]
    return backend.xp.zeros(shape, dtype=params.dtype)


def _gather_nd_stand_in(arrays, attrs):
    from tapeviz import backend

    params, indices = arrays
    return backend.xp.zeros(indices.shape[:-1] + params.shape[indices.shape[-1] :], dtype=params.dtype)


# Ops a trace may record despite an error on the traced values (their output's shape and dtype are known).
DEFERRABLE = {"GatherV2": _gather_stand_in, "GatherNd": _gather_nd_stand_in}


def as_tensor(value, dtype=None):
    """Fast path of convert_to_tensor for op arguments."""
    if type(value) is Tensor and dtype is None:
        return value
    return convert_to_tensor(value, dtype=dtype)


def as_matching_tensors(values):
    """An op's list argument as Tensors, converting as TF's eager ops do: Python values take the
    dtype of the first Tensor or Variable among ``values`` (``tf.concat((floats, [2]), 0)`` is float;
    ``[[1]]`` next to strings is TF's TypeError); tensors are kept, for ``same_dtype`` to check."""
    dtype = next((v.dtype for v in values if isinstance(v, (Tensor, Variable))), None)
    return [as_tensor(v) if isinstance(v, (Tensor, Variable)) else as_tensor(v, dtype) for v in values]


def as_tensors(x, y, op="op"):
    """Two op arguments as Tensors of one dtype, converting Python values as TF does.

    A Python number or NumPy array next to a tensor takes the tensor's dtype;
    two tensors of different dtypes are an error, as in TF.
    """
    if type(x) is Tensor:
        if type(y) is Tensor:
            if x._value.dtype is y._value.dtype:
                return x, y
        elif type(y) is Variable and not numpy_promotion.settings.enabled:
            y = y.read_value()  # a weight (``x * w``), the commonest conversion: its read, recorded, is the tensor
            if x._value.dtype is not y._value.dtype and x._value.dtype != y._value.dtype:
                same_dtype(x, y, op=op)
            return x, y
    if numpy_promotion.settings.enabled:  # tnp.experimental_enable_numpy_behavior()
        return tuple(numpy_promotion.promote(x, y))
    if type(x) is not Tensor:
        if isinstance(x, (Tensor, Variable)):
            x = convert_to_tensor(x)
        elif isinstance(y, (Tensor, Variable)):
            y = convert_to_tensor(y)
            x = convert_to_tensor(x, dtype=y.dtype)
            return x, y
        else:
            x = convert_to_tensor(x)
    if type(y) is not Tensor:
        if isinstance(y, (Tensor, Variable)):
            y = convert_to_tensor(y)
        else:
            try:
                y = convert_to_tensor(y, dtype=x.dtype)
            except TypeError:
                if op == "Mul" and x._value.dtype.kind == "b" and isinstance(y, (int, float, complex)):
                    y = convert_to_tensor(bool(y))  # TF: bool tensor * number is a logical and with bool(number)
                elif op != "AddV2":
                    raise
                else:  # TF's add converts a float as float32, then refuses int32 + float32
                    y = convert_to_tensor(y)
    if x._value.dtype is not y._value.dtype and x._value.dtype != y._value.dtype:
        same_dtype(x, y, op=op)
    return x, y


def same_dtype(*tensors, op="op"):
    """Raise TF's InvalidArgumentError when tensors' dtypes differ."""
    first = tensors[0].dtype
    for position, tensor in enumerate(tensors[1:], start=1):
        if tensor.dtype != first:
            fix = f"Cast one side first, e.g. tf.cast(y, {first!r})."
            if "string" in (first.name, tensor.dtype.name):  # no cast to or from strings, as in TF
                fix = "Convert first: tf.strings.as_string(number) or tf.strings.to_number(text)."
            raise InvalidArgumentError(
                f"cannot compute {op} as input #{position}(zero-based) was expected to be a "
                f"{first.name} tensor but is a {tensor.dtype.name} tensor. {fix}",
                op,
            )
