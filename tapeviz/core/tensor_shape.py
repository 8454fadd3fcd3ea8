"""``tf.TensorShape``: a tensor's shape, with TF's behaviour.

It is no tuple (as TF's): ``"%s" % t.shape`` prints ``(15,)``, not ``15``, since
Python's ``%`` unpacks any tuple. It still compares equal to tuples and lists
(``t.shape == (2, 3)``), hashes as the tuple of its sizes, iterates, indexes
(an int gives an int or None, a slice a TensorShape), concatenates with ``+``
(also after a tuple: ``(1,) + t.shape``), and goes wherever NumPy takes a shape
(``np.zeros(t.shape)``). A size may be None (unknown); ``TensorShape(None)``
has an unknown rank, as a ``tf.TensorSpec`` may.
"""

import math
import operator

import numpy as np

from tapeviz import backend

__all__ = ["TensorShape"]


def _dimension(d):
    """One size: an int >= 0 or None (from an int, a NumPy int, anything with ``__index__``, a TF Dimension)."""
    if type(d) is int and d >= 0:
        return d
    d = getattr(d, "value", d)  # a TF-style Dimension
    if d is None:
        return None
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ method, "
            f"got value '{d!r}' with type '{type(d)}'"
        ) from None
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


def dims_of(dims):
    """A shape-like value (list, tuple, TensorShape, int, int tensor) as a tuple of ints and Nones.

    Raises:
        TypeError: a value that is not a size or an iterable of sizes.
    """
    if type(dims) is TensorShape:
        return dims._dims
    if hasattr(dims, "_value"):
        dims = np.asarray(backend.to_numpy(dims._value)).tolist()
    if isinstance(dims, (int, np.integer)):
        return (_dimension(dims),)
    if isinstance(dims, (str, bytes)):
        raise TypeError(
            f"Failed to convert '{dims!r}' to a shape: '{dims[:1]!r}'could not be converted to a dimension. A shape "
            "should either be single dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, None])."
        )
    return tuple(_dimension(d) for d in dims)


def from_dims(dims):
    """A TensorShape of ``dims``, a tuple of ints (>= 0) and Nones taken as it is (a backend array's shape)."""
    shape = object.__new__(TensorShape)
    shape._dims = dims
    return shape


class TensorShape:
    """A tensor's shape, as ``tf.TensorShape``: ``repr`` gives ``TensorShape([7, 10])``, ``str`` gives ``(7, 10)``.

    Args:
        dims: the sizes (a list or tuple of ints and Nones, an int, another
            TensorShape), or None for an unknown rank.

    Raises:
        TypeError: a size that is not an int or None.
        ValueError: a negative size.
    """

    __slots__ = ("_dims",)  # a tuple of ints and Nones, or None for an unknown rank

    def __init__(self, dims=()):
        self._dims = None if dims is None else dims_of(dims)

    # -- TF's TensorShape API ------------------------------------------------
    @property
    def rank(self):
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """The dimensions as a list (ints, None where unknown), or None for an unknown rank.

        TF returns ``Dimension`` objects here; plain ints compare the same.
        """
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        """The sizes as a list (None for an unknown size).

        Returns:
            A list.

        Raises:
            ValueError: an unknown rank.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        """The number of elements, or None when a dimension (or the rank) is unknown.

        Returns:
            An int, or None.
        """
        if not self.is_fully_defined():
            return None
        return math.prod(self._dims)

    def is_fully_defined(self):
        """Whether every size is known.

        Returns:
            A bool.
        """
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        """Raise unless every size is known.

        Raises:
            ValueError: an unknown size or rank.
        """
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def is_compatible_with(self, other):
        """True when the shapes could describe the same tensor (None matches anything).

        Args:
            other: a TensorShape or a list of sizes.

        Returns:
            A bool.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raise unless the shapes could describe the same tensor.

        Args:
            other: a TensorShape or a list of sizes.

        Raises:
            ValueError: shapes that conflict.
        """
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both.

        Args:
            other: a TensorShape or a list of sizes.

        Returns:
            A TensorShape.

        Raises:
            ValueError: shapes that conflict.
        """
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return from_dims(tuple(a if b is None else b for a, b in zip(self._dims, other._dims)))

    def most_specific_compatible_shape(self, other):
        """The most specific shape both are compatible with: sizes that differ become None.

        Args:
            other: a TensorShape or a list of sizes.

        Returns:
            A TensorShape (of unknown rank when the ranks differ or one is unknown).
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return from_dims(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def is_subtype_of(self, other):
        """True when ``other`` is this shape or more general (its None sizes, or unknown rank, take any size).

        Args:
            other: a TensorShape.

        Returns:
            A bool.
        """
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific shape that this one and each of ``others`` is a subtype of.

        Args:
            others: a list of TensorShapes.

        Returns:
            A TensorShape.
        """
        result = self
        for other in others:
            result = result.most_specific_compatible_shape(other)
        return result

    def concatenate(self, other):
        """This shape followed by ``other``'s sizes.

        Args:
            other: a TensorShape or a list of sizes.

        Returns:
            A TensorShape.
        """
        other = other._dims if type(other) is TensorShape else (None if other is None else dims_of(other))
        if self._dims is None or other is None:
            return TensorShape(None)
        return from_dims(self._dims + other)

    def assert_has_rank(self, rank):
        """Raise unless the rank is ``rank`` (or unknown).

        Args:
            rank: an int.

        Raises:
            ValueError: another rank.
        """
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        """Raise unless ``other`` has this rank (an unknown rank matches any).

        Args:
            other: a TensorShape or a list of sizes.

        Raises:
            ValueError: another rank.
        """
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank):
        """This shape, checked to have ``rank`` dimensions (an unknown rank becomes ``rank`` unknown sizes).

        Args:
            rank: an int.

        Returns:
            A TensorShape.

        Raises:
            ValueError: another rank.
        """
        if self._dims is None:
            return from_dims((None,) * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        """This shape, checked to have at least ``rank`` dimensions.

        Args:
            rank: an int.

        Returns:
            A TensorShape.

        Raises:
            ValueError: fewer dimensions.
        """
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        """This shape, checked to have at most ``rank`` dimensions.

        Args:
            rank: an int.

        Returns:
            A TensorShape.

        Raises:
            ValueError: more dimensions.
        """
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    # -- the sequence and value protocols -----------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        dims = self._dims
        if dims is not None:
            return from_dims(dims[key]) if isinstance(key, slice) else dims[key]
        if not isinstance(key, slice):
            return None  # a size of an unknown-rank shape: unknown
        start, stop = key.start, key.stop
        if key.step is None and isinstance(start, (int, type(None))) and isinstance(stop, int):
            start = start or 0
            if 0 <= start <= stop:
                return from_dims((None,) * (stop - start))
        return TensorShape(None)

    def __bool__(self):
        return self._dims is not None  # as TF: a scalar's shape () is true too

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __eq__(self, other):
        if type(other) is TensorShape:
            return self._dims == other._dims
        if type(other) is tuple:
            return self._dims == other
        try:
            return self._dims == as_shape(other)._dims
        except (TypeError, ValueError):
            return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._dims)  # as the tuple of its sizes: a dict keyed by shapes finds either

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        return repr(self._dims)

    def __reduce__(self):
        return (TensorShape, (None if self._dims is None else list(self._dims),))


def as_shape(shape):
    """``shape`` as a TensorShape (itself when it is one).

    Args:
        shape: a TensorShape, a list or tuple of sizes, an int, or None (unknown rank).

    Returns:
        A TensorShape.

    Raises:
        TypeError: a value that is not a shape.
    """
    return shape if type(shape) is TensorShape else TensorShape(shape)
