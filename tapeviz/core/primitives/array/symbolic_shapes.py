"""Shape-reading and shape-taking ops as graph nodes while a trace follows a tensor whose size may change.

Eagerly (and for tensors a trace holds as constants) ``tf.shape``, ``tf.ones_like``
and friends make constants, as before. When their input is computed from a
traced function's inputs, they run as these primitives instead, so the trace
records them: a replay (or a SavedModel loaded later) computes each size from
the tensors of that call, and one trace serves every size its signature allows.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core import dtypes, state
from tapeviz.core.families import array as a
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import Tensor, tensor_id


def _dims(shape):
    return tuple(int(n) for n in B.to_numpy(shape).reshape(-1))


def _np_type(dtype_name):
    return dtypes.as_dtype(dtype_name).as_numpy_dtype


SHAPE = Primitive("Shape", lambda x, out_type: B.xp.asarray(x.shape, dtype=_np_type(out_type)), differentiable=None)
SIZE = Primitive("Size", lambda x, out_type: B.xp.asarray(x.size, dtype=_np_type(out_type)), differentiable=None)
RANK = Primitive("Rank", lambda x: B.xp.asarray(x.ndim, dtype=np.int32), differentiable=None)
ZEROS_LIKE = Primitive(
    "ZerosLike", lambda x, dtype: B.xp.zeros(x.shape, dtype=_np_type(dtype) if dtype else x.dtype), differentiable=None
)
ONES_LIKE = Primitive(
    "OnesLike", lambda x, dtype: B.xp.ones(x.shape, dtype=_np_type(dtype) if dtype else x.dtype), differentiable=None
)
RANGE = Primitive(
    "Range",
    lambda start, limit, delta, dtype: B.xp.arange(start, limit, delta).astype(_np_type(dtype)),
    differentiable=None,
)
# TF's Reshape with its shape as a tensor input: the target sizes come from the call, not the trace.
RESHAPE_TO = Primitive("ReshapeTo", lambda x, shape: B.xp.reshape(x, _dims(shape)))


BROADCAST_TO_SHAPE = Primitive("BroadcastToShape", lambda x, shape: B.xp.broadcast_to(x, _dims(shape)))


@defgrad(
    BROADCAST_TO_SHAPE,
    "sum the upstream over the broadcast axes",
    local=described("1 per copy: the upstream summed over the broadcast axes", None),
)
def _broadcast_to_shape_rule(op, needs, g):
    return (m.unbroadcast(g, op.inputs[0]), None)


@defgrad(
    RESHAPE_TO,
    "reshape the upstream back to x's shape",
    local=described("1 per element: the upstream reshaped back to x's shape"),
)
def _reshape_to_rule(op, needs, g):
    return (a.reshape(g, op.inputs[0]._value.shape), None)


def is_symbolic(*values):
    """True when a trace is running and one of ``values`` (tensors, or lists of them) comes from its inputs."""
    tracers = state.local.tracers
    if not tracers:
        return False
    for value in values:
        if isinstance(value, (list, tuple)):
            if is_symbolic(*value):
                return True
        elif isinstance(value, Tensor):
            key = tensor_id(value)
            if any(key in tracer.symbolic for tracer in tracers):
                return True
    return False


def shape(x, out_type):
    return execute(SHAPE, (x,), {"out_type": dtypes.as_dtype(out_type).name})


def size(x, out_type):
    return execute(SIZE, (x,), {"out_type": dtypes.as_dtype(out_type).name})


def rank(x):
    return execute(RANK, (x,))


def like(x, dtype, ones):
    name = None if dtype is None else dtypes.as_dtype(dtype).name
    return execute(ONES_LIKE if ones else ZEROS_LIKE, (x,), {"dtype": name})


def shape_tensor(shape):
    """A shape given as an int tensor or a list mixing ints and scalar tensors, as one int32/int64 tensor."""
    if isinstance(shape, Tensor):
        return shape
    parts = [as_tensor(n) if isinstance(n, Tensor) else n for n in shape]
    dtype = next((p.dtype for p in parts if isinstance(p, Tensor)), dtypes.int32)
    return a.stack([p if isinstance(p, Tensor) else as_tensor(int(p), dtype=dtype) for p in parts])


def reshape(x, shape):
    return execute(RESHAPE_TO, (x, shape_tensor(shape)))


def broadcast_to(x, shape):
    return execute(BROADCAST_TO_SHAPE, (x, shape_tensor(shape)))


def range_(start, limit, delta, dtype):
    parts = tuple(v if isinstance(v, Tensor) else as_tensor(v, dtype=dtype) for v in (start, limit, delta))
    parts = tuple(v if v.dtype == dtypes.as_dtype(dtype) else m.cast(v, dtype) for v in parts)
    return execute(RANGE, parts, {"dtype": dtypes.as_dtype(dtype).name})
