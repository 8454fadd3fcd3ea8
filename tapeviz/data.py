"""``tf.data``: a small ``Dataset`` pipeline for custom training loops.

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
    for epoch in range(epochs):
        for x_batch, y_batch in dataset:
            ...

A Dataset is a recipe: iterating it runs the pipeline afresh (so ``shuffle``
gives a new order every epoch, as in TF). Elements are tapeviz Tensors, in
the structure given (a tensor, a tuple or a dict).

Pipelines that start with ``from_tensor_slices`` and only ``shuffle``,
``take`` or ``skip`` before ``batch`` are run on index arrays, and each batch
is gathered with one indexing operation: no per-element Python work.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz import random as tf_random
from tapeviz.core import nest
from tapeviz.core.tensor import Tensor, convert_to_tensor, to_array

__all__ = ["Dataset", "AUTOTUNE", "experimental"]

#: ``tf.data.AUTOTUNE``: pass as ``num_parallel_calls`` or ``buffer_size`` to let the pipeline
#: choose (here: run sequentially, prefetch nothing); the value is -1, as in TensorFlow.
AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


def _rng(seed):
    """A NumPy Generator following tf.random's global/op seed rules when available."""

    make = getattr(tf_random, "generator", None)
    return make(seed) if make is not None else np.random.default_rng(seed)


def _as_tensor(value):
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _structure_to_tensors(value):
    """Tuples and dicts are structure; anything else (a list too, as in TF) is one tensor."""
    if isinstance(value, tuple):
        return tuple(_structure_to_tensors(v) for v in value)
    if isinstance(value, dict):
        return {k: _structure_to_tensors(v) for k, v in value.items()}
    return _as_tensor(value)


def _stack(elements):
    """Stack a list of same-structured elements leaf by leaf into one batched element."""
    first = elements[0]
    leaves = [nest.flatten(e) for e in elements]
    stacked = [Tensor(B.xp.stack([to_array(leaf[i]) for leaf in leaves])) for i in range(len(leaves[0]))]
    return nest.pack_sequence_as(first, stacked)


class Dataset:
    """A re-iterable pipeline of elements, as ``tf.data.Dataset``.

    Build one with ``from_tensor_slices``, ``from_tensors`` or ``range``, then
    chain ``shuffle``, ``batch``, ``map``, ``filter``, ``take``, ``skip``,
    ``repeat``. ``prefetch`` and ``cache`` are accepted and do nothing.
    """

    def __init__(self, make_iterator, cardinality=UNKNOWN, indices=None, source=None):
        self._make_iterator = make_iterator  # () -> iterator over elements
        self._cardinality = cardinality
        # The fast path: ``indices()`` gives one epoch's row numbers into ``source``
        # (the structure and flat arrays of a from_tensor_slices dataset).
        self._indices = indices
        self._source = source

    # -- sources ----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row: slices of ``tensors`` (a tensor, tuple or dict) along axis 0."""
        tensors = _structure_to_tensors(tensors)
        flat = nest.flatten(tensors)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one tensor.")
        sizes = {to_array(t).shape[0] if t.ndim else None for t in flat}
        if None in sizes:
            raise ValueError(
                "Unbatching a tensor is only supported for rank >= 1: from_tensor_slices needs arrays, not scalars."
            )
        if len(sizes) > 1:
            raise ValueError(f"Dimensions of the tensors must match along axis 0, got sizes {sorted(sizes)}.")
        n = sizes.pop()
        source = (tensors, [to_array(t) for t in flat])

        def indices():
            return np.arange(n)

        return Dataset._indexed(source, indices, n)

    @staticmethod
    def _indexed(source, indices, cardinality):
        structure, arrays = source

        def make_iterator():
            for i in indices():
                yield nest.pack_sequence_as(structure, [Tensor(a[i]) for a in arrays])

        return Dataset(make_iterator, cardinality, indices, source)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: ``tensors`` as a whole."""
        element = _structure_to_tensors(tensors)
        return Dataset(lambda: iter([element]), 1)

    @staticmethod
    def range(*args, dtype="int64", name=None):
        """0, 1, ... like Python's range (start, stop, step), as int64 scalars."""
        values = range(*args)
        np_dtype = np.dtype(dtype if isinstance(dtype, str) else getattr(dtype, "name", "int64"))
        return Dataset(lambda: (Tensor(B.xp.asarray(v, dtype=np_dtype)) for v in values), len(values))

    @staticmethod
    def zip(datasets, name=None):
        """Elements of several datasets side by side, as a tuple (stops at the shortest)."""
        datasets = tuple(datasets)
        cards = [d._cardinality for d in datasets]
        finite = [c for c in cards if c >= 0]
        card = min(finite) if finite else (INFINITE if all(c == INFINITE for c in cards) else UNKNOWN)
        return Dataset(lambda: zip(*[iter(d) for d in datasets]), card)

    # -- transformations ------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffle with a buffer of ``buffer_size`` elements, as TF does.

        A buffer at least as large as the dataset gives a uniform shuffle;
        a small one only mixes nearby elements. A new order every iteration
        unless ``reshuffle_each_iteration=False``.
        """
        buffer_size = int(buffer_size)
        if buffer_size <= 0:
            raise ValueError(f"buffer_size must be greater than zero, got {buffer_size}.")
        rng = _rng(seed)
        fixed_seed = int(rng.integers(2**31)) if not reshuffle_each_iteration else None

        def epoch_rng():
            return np.random.default_rng(fixed_seed) if fixed_seed is not None else rng

        if self._indices is not None:
            parent = self._indices

            def indices():
                return _buffer_shuffle(parent(), buffer_size, epoch_rng())

            return Dataset._indexed(self._source, indices, self._cardinality)

        def make_iterator():
            return iter(_buffer_shuffle(list(self), buffer_size, epoch_rng()))

        return Dataset(make_iterator, self._cardinality)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Group consecutive elements into batches (stacked along a new axis 0)."""
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be greater than zero, got {batch_size}.")
        card = self._cardinality
        if card >= 0:
            card = card // batch_size if drop_remainder else -(-card // batch_size)

        if self._indices is not None:
            structure, arrays = self._source
            parent = self._indices

            def make_iterator():
                order = parent()
                stop = len(order) - (len(order) % batch_size if drop_remainder else 0)
                for start in range(0, stop, batch_size):
                    rows = order[start : start + batch_size]
                    yield nest.pack_sequence_as(structure, [Tensor(a[rows]) for a in arrays])

            return Dataset(make_iterator, card)

        def make_iterator():
            pending = []
            for element in self:
                pending.append(element)
                if len(pending) == batch_size:
                    yield _stack(pending)
                    pending = []
            if pending and not drop_remainder:
                yield _stack(pending)

        return Dataset(make_iterator, card)

    def unbatch(self, name=None):
        """Split each element along axis 0 back into single elements."""

        def make_iterator():
            for element in self:
                flat = nest.flatten(element)
                for i in range(to_array(flat[0]).shape[0]):
                    yield nest.pack_sequence_as(element, [Tensor(to_array(t)[i]) for t in flat])

        return Dataset(make_iterator, UNKNOWN)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply ``map_func`` to each element (a tuple element is passed as separate arguments)."""

        def make_iterator():
            for element in self:
                yield map_func(*element) if isinstance(element, tuple) else map_func(element)

        return Dataset(make_iterator, self._cardinality)

    def filter(self, predicate, name=None):
        """Keep the elements for which ``predicate`` is true."""

        def make_iterator():
            for element in self:
                keep = predicate(*element) if isinstance(element, tuple) else predicate(element)
                if bool(keep):
                    yield element

        return Dataset(make_iterator, UNKNOWN)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them when count is -1)."""
        count = int(count)
        if count < 0:
            return self
        card = (
            min(count, self._cardinality)
            if self._cardinality >= 0
            else (count if self._cardinality == INFINITE else UNKNOWN)
        )
        if self._indices is not None:
            parent = self._indices
            return Dataset._indexed(self._source, lambda: parent()[:count], card)
        return Dataset(lambda: _islice(self, 0, count), card)

    def skip(self, count, name=None):
        """All but the first ``count`` elements."""
        count = int(count)
        card = max(self._cardinality - count, 0) if self._cardinality >= 0 else self._cardinality
        if self._indices is not None:
            parent = self._indices
            return Dataset._indexed(self._source, lambda: parent()[count:], card)
        return Dataset(lambda: _islice(self, count, None), card)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (forever when None); a shuffle reshuffles each time."""

        def make_iterator():
            n = 0
            while count is None or count < 0 or n < count:
                yield from self
                n += 1

        if count is None or count < 0:
            card = INFINITE if self._cardinality != 0 else 0
        else:
            card = self._cardinality * count if self._cardinality >= 0 else self._cardinality
        return Dataset(make_iterator, card)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 scalar."""

        def make_iterator():
            for i, element in enumerate(self, start):
                yield Tensor(np.int64(i) if B.xp is np else B.xp.asarray(i, dtype=np.int64)), element

        return Dataset(make_iterator, self._cardinality)

    def prefetch(self, buffer_size, name=None):
        """Accepted for compatibility; tapeviz runs eagerly in one thread, so it does nothing."""
        return self

    def cache(self, filename="", name=None):
        """Accepted for compatibility; does nothing (the data is already in memory)."""
        return self

    # -- consuming ----------------------------------------------------------------------------
    def __iter__(self):
        return iter(self._make_iterator())

    def as_numpy_iterator(self):
        """Iterate over elements as NumPy values."""
        for element in self:
            yield nest.map_structure(lambda t: t.numpy(), element)

    def cardinality(self):
        """The number of elements as an int64 tensor: -1 if infinite, -2 if unknown."""
        return Tensor(B.asarray(self._cardinality, dtype=np.int64))

    def __len__(self):
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __bool__(self):
        return True

    def __repr__(self):
        card = {INFINITE: "infinite", UNKNOWN: "unknown"}.get(self._cardinality, self._cardinality)
        return f"<Dataset cardinality={card}>"


def _islice(dataset, start, stop):
    import itertools

    return itertools.islice(iter(dataset), start, stop)


def _buffer_shuffle(items, buffer_size, rng):
    """TF's shuffle: fill a buffer, then repeatedly emit a random buffer slot and refill it."""
    n = len(items)
    if buffer_size >= n:
        order = rng.permutation(n)
        return items[order] if isinstance(items, np.ndarray) else [items[i] for i in order]
    buffer = list(items[:buffer_size])
    out = []
    for item in items[buffer_size:]:
        slot = int(rng.integers(len(buffer)))
        out.append(buffer[slot])
        buffer[slot] = item
    while buffer:
        slot = int(rng.integers(len(buffer)))
        out.append(buffer[slot])
        buffer[slot] = buffer[-1]
        buffer.pop()
    return np.asarray(out) if isinstance(items, np.ndarray) else out


class experimental:  # noqa: N801  (TF's namespace name)
    """``tf.data.experimental``: the constants code refers to."""

    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE
    UNKNOWN_CARDINALITY = UNKNOWN
