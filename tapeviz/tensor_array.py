"""``tf.TensorArray``: a list of same-shaped tensors written one index at a time, as a value.

TF's TensorArray is a handle plus a "flow" that orders writes; tapeviz's is
a plain value: the elements live in one buffer tensor (element 0 first),
and ``write`` / ``scatter`` / ``unstack`` return a new TensorArray whose
buffer is the old one with the rows replaced (``tensor_scatter_nd_update``),
so tapes record every write and gradients reach the written values, as TF's.
As in TF, use the returned array (``ta = ta.write(i, x)``).

The buffer exists once the element shape is known (from ``element_shape``
or the first write). With ``dynamic_size=True`` a write past the end grows
it. Inside a ``tf.function`` a TensorArray can be carried through a loop
(AutoGraph's ``for``/``while``, ``tf.while_loop``): its buffer is the loop
variable. A loop whose length is known when traced is unrolled when an
array in it has no element shape yet.
"""

import numpy as np

from tapeviz.core.dtypes import as_dtype
from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives.scatter import tensor_scatter_nd_update
from tapeviz.core.tensor import Tensor, convert_to_tensor, to_array

__all__ = ["TensorArray"]


def _concrete_index(index):
    """``index`` as a Python int, or None when it is a traced tensor whose value is not known."""
    from tapeviz.core import control_flow

    if isinstance(index, Tensor):
        if control_flow.is_symbolic(index):
            return None
        return int(to_array(index).reshape(()))
    return int(index)


class TensorArray:
    """A growable or fixed-size array of tensors of one dtype and shape (see the module docstring).

    Args:
        dtype: the elements' dtype.
        size: the number of elements (0 for an empty, dynamic array).
        dynamic_size: whether writes past the end grow the array (default False).
        clear_after_read: accepted for TF's signature (tapeviz's arrays are values; a read keeps the element).
        tensor_array_name, handle, flow, colocate_with_first_write_call, name: accepted, unused.
        infer_shape: whether all elements must have the first element's shape (default True).
        element_shape: the elements' shape, when known before the first write.

    Raises:
        ValueError: neither ``size`` nor ``handle``.
    """

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        if size is None and handle is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        size = 0 if size is None else size
        # a size computed from a trace's inputs (tf.shape(x)[0]) is kept as a tensor for the buffer, so the
        # graph makes the buffer at each call's size; its value at trace time serves the Python-side checks
        self._size_tensor = size if isinstance(size, Tensor) and _concrete_index(size) is None else None
        self._size = int(to_array(size).reshape(())) if isinstance(size, Tensor) else int(size)
        self._element_shape = None if element_shape is None else tuple(element_shape)
        if self._element_shape is not None and None in self._element_shape:
            self._element_shape = None
        self._buffer = None
        if self._element_shape is not None:
            self._start(self._element_shape)
        self._written = set()  # indices written with a known value (reads of the others are refused eagerly)

    # -- construction of new values ----------------------------------------------------------------------
    def _with(self, buffer, written):
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._buffer = buffer
        new._size = buffer.shape[0]
        new._element_shape = tuple(buffer.shape[1:])
        new._written = written
        return new

    # -- properties -----------------------------------------------------------------------------------
    @property
    def dtype(self):
        """The elements' dtype."""
        return self._dtype

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self):
        """The elements' shape (a TensorShape; unknown before the first write without ``element_shape``)."""
        from tapeviz.core.tensor import TensorShape

        return TensorShape(None if self._element_shape is None else list(self._element_shape))

    @property
    def buffer(self):
        """The ``(size, *element_shape)`` tensor of the elements, or None before the element shape is known."""
        return self._buffer

    def size(self, name=None):
        """The number of elements (an int32 scalar).

        Args:
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            An int32 scalar Tensor.
        """
        return convert_to_tensor(self._size, dtype="int32")

    # -- elements -------------------------------------------------------------------------------------
    def _element(self, value):
        value = convert_to_tensor(value, dtype=self._dtype)
        if value.dtype != self._dtype:
            raise TypeError(
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}"
            )
        if self._element_shape is not None and self._infer_shape and tuple(value.shape) != self._element_shape:
            raise ValueError(
                f"Incompatible shape for value ({tuple(value.shape)}), expected ({list(self._element_shape)})"
            )
        return value

    def _grown(self, needed):
        """The buffer, grown with zero rows to ``needed`` elements (only a dynamic array may grow)."""
        if needed <= self._size:
            return self._buffer
        if not self._dynamic_size:
            raise IndexError(
                f"Tried to write to index {needed - 1} but array is not resizeable and size is: {self._size}"
            )
        extra = _pa.zeros((needed - self._size,) + self._element_shape, dtype=self._dtype)
        return _pa.concat([self._buffer, extra], axis=0)

    def _grown_to_traced(self, index):
        """The buffer grown to hold the traced ``index`` (its size is then known only when the graph runs)."""
        from tapeviz.core.primitives import math as _math

        index = convert_to_tensor(index, dtype="int32")
        extra = _math.maximum(index + 1 - _pa.shape(self._buffer, out_type="int32")[0], 0)
        shape = _pa.concat([_pa.reshape(extra, (1,)), convert_to_tensor(np.asarray(self._element_shape, np.int32))], 0)
        return _pa.concat([self._buffer, _pa.zeros(shape, dtype=self._dtype)], axis=0)

    def _start(self, element_shape):
        if self._buffer is None:
            self._element_shape = tuple(element_shape)
            shape = (self._size,) + self._element_shape
            if self._size_tensor is not None:
                size = _pa.reshape(convert_to_tensor(self._size_tensor, dtype="int32"), (1,))
                shape = _pa.concat([size, convert_to_tensor(np.asarray(self._element_shape, np.int32))], 0)
            self._buffer = _pa.zeros(shape, dtype=self._dtype)

    def write(self, index, value, name=None):
        """A new array with element ``index`` set to ``value``.

        Args:
            index: the element's position (>= 0).
            value: a tensor of the elements' dtype and shape.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new TensorArray.

        Raises:
            IndexError: a negative index (or one past the end of a fixed-size array).
        """
        value = self._element(value)
        self._start(value.shape)
        at = _concrete_index(index)
        if at is not None:
            buffer = self._grown(at + 1)
        elif self._dynamic_size:
            buffer = self._grown_to_traced(index)
        else:
            buffer = self._buffer
        if at is not None and at < 0:
            raise IndexError(f"Tried to write to index {at} but array size is: {self._size}")
        position = _pa.reshape(convert_to_tensor(index, dtype="int32"), (1, 1))
        buffer = tensor_scatter_nd_update(buffer, position, _pa.expand_dims(value, 0))
        written = None if at is None or self._written is None else self._written | {at}
        return self._with(buffer, written)

    def read(self, index, name=None):
        """Element ``index``.

        Args:
            index: the element's position.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A Tensor.

        Raises:
            IndexError: an index outside the array.
            ValueError: an element never written whose shape is unknown.
        """
        at = _concrete_index(index)
        if at is not None and (at < 0 or at >= self._size):
            raise IndexError(f"Tried to read from index {at} but array size is: {self._size}")
        if self._buffer is None or (at is not None and self._written is not None and at not in self._written):
            raise ValueError(
                f"Could not read from TensorArray index {at}.  Furthermore, the element shape is not fully "
                "defined: <unknown>.  It is possible you are working with a resizeable TensorArray and "
                "stop_gradients is not allowing the gradients to be written.  If you set the full "
                "element_shape property on the forward TensorArray, the proper all-zeros tensor "
                "will be returned instead of incurring this error."
                if self._buffer is None
                else f"Could not read from TensorArray index {at} because it has not yet been written to."
            )
        return _pa.gather(self._buffer, convert_to_tensor(index, dtype="int32"))

    def stack(self, name=None):
        """All elements stacked along a new first axis.

        Args:
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A Tensor with one row per element.

        Raises:
            ValueError: a non-empty array none of whose elements was written, with no ``element_shape``.
        """
        if self._buffer is None:
            if self._size == 0:
                return convert_to_tensor(np.zeros((0,), self._dtype.as_numpy_dtype))
            raise ValueError(
                "TensorArray has size zero, but element shape <unknown> is not fully defined. Currently only "
                "static shapes are supported when packing zero-size TensorArrays."
                if self._size == 0
                else "tapeviz's TensorArray.stack needs the element shape: write an element or pass element_shape."
            )
        return self._buffer

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked.

        Args:
            indices: the positions to read.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A Tensor, the elements stacked along a new first axis.
        """
        return _pa.gather(self.stack(), convert_to_tensor(indices, dtype="int32"))

    def concat(self, name=None):
        """The elements joined along their first axis.

        Args:
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A Tensor.
        """
        buffer = self.stack()
        return _pa.reshape(buffer, (-1,) + tuple(buffer.shape[2:]))

    def unstack(self, value, name=None):
        """A new array whose elements are the rows of ``value``.

        Args:
            value: a tensor whose rows become the elements.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new TensorArray.

        Raises:
            IndexError: more rows than a fixed-size array holds.
        """
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._dynamic_size and self._size and value.shape[0] > self._size:
            raise IndexError(
                f"Tried to write to index {value.shape[0] - 1} but array is not resizeable and size is: {self._size}"
            )
        if self._buffer is None or value.shape[0] >= self._size:
            return self._with(value, set(range(value.shape[0])))
        return self.scatter(list(range(value.shape[0])), value)

    def scatter(self, indices, value, name=None):
        """A new array with the rows of ``value`` written at ``indices``.

        Args:
            indices: the positions to write.
            value: a tensor with one row per index.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new TensorArray.
        """
        value = convert_to_tensor(value, dtype=self._dtype)
        self._start(value.shape[1:])
        known = [int(i) for i in np.asarray(to_array(convert_to_tensor(indices))).ravel()]
        buffer = self._grown(max(known, default=-1) + 1)
        positions = _pa.reshape(convert_to_tensor(known, dtype="int32"), (-1, 1))
        written = None if self._written is None else self._written | set(known)
        return self._with(tensor_scatter_nd_update(buffer, positions, value), written)

    def split(self, value, lengths, name=None):
        """A new array whose elements are consecutive pieces of ``value``, of ``lengths`` rows each.

        Args:
            value: the tensor to split along its first axis.
            lengths: the rows of each piece (all equal here).
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new TensorArray.

        Raises:
            ValueError: pieces of different lengths.
        """
        value = convert_to_tensor(value, dtype=self._dtype)
        lengths = [int(n) for n in np.asarray(to_array(convert_to_tensor(lengths))).ravel()]
        if len(set(lengths)) > 1:
            raise ValueError("tapeviz's TensorArray.split needs pieces of one length (elements share a shape).")
        pieces = _pa.reshape(value, (len(lengths), lengths[0] if lengths else 0) + tuple(value.shape[1:]))
        return self.unstack(pieces)

    def loop_tensor(self):
        """The buffer a graph loop carries for this array (the protocol of tapeviz's ``while_loop``).

        Returns:
            A Tensor with one row per element.

        Raises:
            ValueError: an element shape not known yet.
        """
        if self._buffer is None:
            raise ValueError(
                "tapeviz's TensorArray can be carried through a graph loop only once its element shape is known: "
                "pass element_shape=... to tf.TensorArray, or write an element before the loop."
            )
        return self._buffer

    def from_loop_tensor(self, buffer):
        """An array like this one whose elements are the rows of a loop's ``buffer``.

        Args:
            buffer: the tensor a loop carried (one row per element).

        Returns:
            A new TensorArray.
        """
        return self._with(buffer, None)

    def identity(self):
        """This array (TF's orders reads after writes; a tapeviz array is a value).

        Returns:
            This TensorArray.
        """
        return self

    def close(self, name=None):
        """Nothing to free (TF's frees its resource).

        Args:
            name: accepted for TensorFlow compatibility, unused.
        """

    def mark_used(self):
        """Accepted, as TF's (it silences an unused-array warning)."""

    def __repr__(self):
        shape = "<unknown>" if self._element_shape is None else list(self._element_shape)
        return f"<TensorArray dtype={self._dtype.name} size={self._size} element_shape={shape}>"
