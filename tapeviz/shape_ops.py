"""TF's shape helpers and graph-mode names that mean little when ops run at once.

``shape_n``, ``identity_n``, ``ensure_shape``, ``broadcast_static_shape``,
``broadcast_dynamic_shape``, ``unravel_index``, ``get_static_value``; and, as
TF 2 runs them eagerly, ``no_op`` and ``group`` (None), ``tuple`` (the
tensors), ``control_dependencies`` (a context that does nothing: ops run in
program order), ``inside_function`` (True while ``tf.function`` traces),
``get_current_name_scope``, ``guarantee_const`` (the identity),
``parallel_stack`` (TF's ``RuntimeError`` in eager mode).
"""

import contextlib as _contextlib

import numpy as _np

from tapeviz.core import dtypes as _dtypes
from tapeviz.core import state as _state
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives.array import shape as _shape
from tapeviz.core.primitives.math import identity as _identity
from tapeviz.core.tensor import TensorShape as _TensorShape
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tensor import to_array as _to_array

__all__ = [
    "broadcast_dynamic_shape",
    "broadcast_static_shape",
    "control_dependencies",
    "ensure_shape",
    "get_current_name_scope",
    "get_static_value",
    "group",
    "guarantee_const",
    "identity_n",
    "inside_function",
    "no_op",
    "parallel_stack",
    "shape_n",
    "tuple",
    "unravel_index",
]


def shape_n(input, out_type=_dtypes.int32, name=None):  # noqa: A002 - TF's name
    """The shape of each tensor of ``input``, as a list of 1-D tensors.

    Args:
        input: a list of tensors.
        out_type: the dtype of the shapes (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A list of 1-D Tensors.
    """
    return [_shape(t, out_type=out_type) for t in input]


def identity_n(input, name=None):  # noqa: A002 - TF's name
    """Each tensor of ``input`` through ``tf.identity`` (its gradient passes unchanged).

    Args:
        input: a list of tensors.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A list of Tensors.
    """
    return [_identity(t) for t in input]


def ensure_shape(x, shape, name=None):
    """``x`` itself when its shape fits ``shape`` (``None``: any size), else TF's ``InvalidArgumentError``.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        shape: the expected shape; None entries match any size.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``x``.

    Raises:
        tf.errors.InvalidArgumentError: a shape that does not fit.
    """
    x = _as_tensor(x)
    want = _TensorShape(shape)
    have = x.shape
    if not want.is_compatible_with(have):
        raise _InvalidArgumentError(
            f"Shape of tensor input {list(have)} is not compatible with expected shape "
            f"{list(want) if want.rank is not None else '<unknown>'}. [Op:EnsureShape]".replace("None", "?"),
            "EnsureShape",
        )
    return _identity(x)


def broadcast_static_shape(shape_x, shape_y):
    """The shape ``shape_x`` and ``shape_y`` broadcast to, as a ``TensorShape``; ``ValueError`` when they cannot.

    Args:
        shape_x: a ``TensorShape`` (or a list of sizes).
        shape_y: another.

    Returns:
        A ``TensorShape``.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    try:
        return _TensorShape(_np.broadcast_shapes(tuple(shape_x), tuple(shape_y)))
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
            f"pair they are either equal or one of them is 1. Received: {shape_x} and {shape_y}."
        ) from None


def broadcast_dynamic_shape(shape_x, shape_y):
    """``broadcast_static_shape`` of two 1-D shape tensors, as a 1-D tensor of their dtype.

    Args:
        shape_x: a 1-D integer tensor of sizes.
        shape_y: another.

    Returns:
        A 1-D Tensor of the broadcast sizes.

    Raises:
        tf.errors.InvalidArgumentError: shapes that do not broadcast.
    """
    x, y = _as_tensor(shape_x), _as_tensor(shape_y)
    try:
        out = _np.broadcast_shapes(tuple(_to_array(x).tolist()), tuple(_to_array(y).tolist()))
    except ValueError:
        raise _InvalidArgumentError(
            f"Incompatible shapes: {_to_array(x).tolist()} vs. {_to_array(y).tolist()} [Op:BroadcastArgs]",
            "BroadcastArgs",
        ) from None
    return _constant(list(out), dtype=x.dtype)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``: shape ``[len(dims)] + indices.shape``.

    Args:
        indices: flat indices, an int tensor.
        dims: the shape they index.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        An int Tensor of shape ``[len(dims)] + indices.shape``.

    Raises:
        tf.errors.InvalidArgumentError: an index out of range, or a ``dims`` that is not positive.
    """
    indices = _as_tensor(indices)
    if not indices.dtype.is_integer:
        raise _InvalidArgumentError(
            f"Value for attr 'Tidx' of {indices.dtype.name} is not in the list of allowed values: int32, int64 "
            "[Op:UnravelIndex]",
            "UnravelIndex",
        )
    flat = _to_array(indices)
    sizes = _to_array(_as_tensor(dims, indices.dtype))
    if (flat < 0).any() or (flat >= int(_np.prod(sizes))).any():
        raise _InvalidArgumentError(
            f"index out of range: every index must be in [0, {int(_np.prod(sizes))}) [Op:UnravelIndex]", "UnravelIndex"
        )
    coords = _np.unravel_index(flat, tuple(int(n) for n in sizes))
    return _constant(_np.stack(coords).astype(flat.dtype), dtype=indices.dtype)


def get_static_value(tensor, partial=False):
    """The NumPy value of ``tensor`` (every tapeviz tensor has one), None for anything that is not a tensor.

    Args:
        tensor: a Tensor, or anything else.
        partial: accepted for TensorFlow compatibility.

    Returns:
        A NumPy array, or None.
    """
    if isinstance(tensor, _np.ndarray) or not hasattr(tensor, "numpy"):
        return tensor if isinstance(tensor, _np.ndarray) else None
    return tensor.numpy()


def no_op(name=None):
    """Does nothing; TF 2 returns None when it runs eagerly, as here.

    Args:
        name: accepted for TensorFlow compatibility.
    """
    return None


def group(*inputs, **kwargs):
    """TF's grouping of ops to run together: eagerly they already ran, so None, as TF 2.

    Args:
        *inputs: tensors or ops.
        **kwargs: ``name`` (accepted, unused).
    """
    return None


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """The tensors, as a list (TF waits for all of them first; eagerly they are all there).

    Args:
        tensors: a list of tensors.
        name: accepted for TensorFlow compatibility.
        control_inputs: accepted for TensorFlow compatibility.

    Returns:
        The tensors, as a list.
    """
    return list(tensors)


@_contextlib.contextmanager
def control_dependencies(control_inputs):
    """A context in which TF's graph would run ``control_inputs`` first; ops run in program order here.

    Args:
        control_inputs: tensors or ops (or None).

    Returns:
        A context manager that does nothing.
    """
    yield None


def inside_function():
    """True while ``tf.function`` traces its Python (building a graph), as TF.

    Returns:
        A bool.
    """
    return bool(_state.local.tracers)


def get_current_name_scope():
    """The ``tf.name_scope`` path active now, ``"outer/inner"`` (``""`` outside every scope).

    Returns:
        A string.
    """
    return "/".join(_state.local.scopes)


def guarantee_const(input, name=None):  # noqa: A002 - TF's name
    """TF's promise that ``input`` is constant (deprecated in TF): the identity.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``input`` as a Tensor.
    """
    return _identity(input)


def parallel_stack(values, name="parallel_stack"):
    """TF's graph-only stack: eagerly TF raises, and so does tapeviz (use ``tf.stack``).

    Args:
        values: TF's tensors.
        name: TF's op name.

    Raises:
        RuntimeError: always (use ``tf.stack``), as TF raises eagerly.
    """
    raise RuntimeError("tf.parallel_stack() is not compatible with eager execution. Use tf.stack(values) instead.")
