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

import itertools
import logging
import os

import numpy as np

from tapeviz import backend as B
from tapeviz import random as tf_random
from tapeviz.core import nest, philox
from tapeviz.core.errors import OpError, OutOfRangeError
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor, to_array
from tapeviz.core.tensor_spec import TensorSpec
from tapeviz.data import strings
from tapeviz.data.generator import generator_elements

__all__ = ["Dataset", "Iterator", "AUTOTUNE", "INFINITE", "UNKNOWN"]

#: ``tf.data.AUTOTUNE``: pass as ``num_parallel_calls`` or ``buffer_size`` to let the pipeline
#: choose (here: run sequentially, prefetch nothing); the value is -1, as in TensorFlow.
AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


def _seed_streams(seed, reshuffle_each_iteration):
    """A function giving each iteration's Philox stream, as tf.data seeds a shuffle.

    The shuffle takes its seeds by tf.random's rules when it is made (with a
    global seed and no ``seed``: the next op seed). Reshuffling, TF draws two
    words per iteration from a stream keyed by those seeds and keys the
    iteration's stream with them; otherwise every iteration uses the seeds.
    """
    seed1, seed2 = tf_random.get_seed(seed)
    if seed1 is None:  # unseeded: TF takes random seeds
        seed1, seed2 = (int(w) for w in np.random.default_rng().integers(1, 2**63, size=2))
    if not reshuffle_each_iteration:
        return lambda: philox.Philox.from_seeds(seed1, seed2)
    seeds = philox.words(philox.Philox.from_seeds(seed1, seed2), chunk=1)
    return lambda: philox.Philox.from_seeds(next(seeds), next(seeds))


_LOG = logging.getLogger("tapeviz.data")


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value
    if strings.is_string_leaf(value):
        return strings.element(value)
    return convert_to_tensor(value)


def _leaf_array(leaf):
    """A leaf's values as a NumPy (or backend) array: tensors' arrays, strings as object arrays of bytes."""
    if isinstance(leaf, Tensor):
        return to_array(leaf)
    if isinstance(leaf, (bytes, str)):
        return strings.as_string_leaf(leaf)
    if isinstance(leaf, np.ndarray) and leaf.dtype == object:
        return leaf
    return to_array(convert_to_tensor(leaf))


def _wrap(array):
    """An array slice as an element leaf: a Tensor (of ``tf.string`` for an object array of bytes)."""
    if isinstance(array, np.ndarray) and array.dtype == object or isinstance(array, (bytes, str)):
        return strings.element(array)
    return Tensor(array)


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
    stacked = []
    for i in range(len(leaves[0])):
        arrays = [_leaf_array(leaf[i]) for leaf in leaves]
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(
                f"Cannot batch tensors with different shapes in component {i}: {sorted(shapes)}. Use "
                "padded_batch() to pad them to one shape, or ragged_batch()."
            )
        if arrays[0].dtype == object:
            stacked.append(strings.element(np.stack(arrays)))
        else:
            stacked.append(Tensor(B.xp.stack(arrays)))
    return nest.pack_sequence_as(first, stacked)


class Dataset:
    """A re-iterable pipeline of elements, as ``tf.data.Dataset``.

    Build one with ``from_tensor_slices``, ``from_tensors`` or ``range``, then
    chain ``shuffle``, ``batch``, ``map``, ``filter``, ``take``, ``skip``,
    ``repeat``. ``prefetch`` and ``cache`` are accepted and do nothing.

    Args:
        make_iterator: a function of no arguments that returns an iterator over the elements.
        cardinality: the number of elements (-1 infinite, -2 unknown).
        indices: internal (a function giving one pass's row numbers into ``source``).
        source: internal (the structure and arrays rows are read from).
    """

    def __init__(self, make_iterator, cardinality=UNKNOWN, indices=None, source=None):
        self._make_iterator = make_iterator  # () -> iterator over elements
        self._cardinality = cardinality
        # The fast path: ``indices()`` gives one epoch's row numbers into ``source``
        # (the structure and flat arrays of a from_tensor_slices dataset).
        self._indices = indices
        self._source = source
        self._spec = None  # () -> element_spec, where a transformation knows it without running the pipeline

    # -- sources ----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row: slices of ``tensors`` (a tensor, tuple or dict) along axis 0.

        Args:
            tensors: a tensor, array or list, or a tuple/dict (nested) of them, all of
                one length along axis 0.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset with one element per row, in the structure of ``tensors``.

        Raises:
            ValueError: no tensor, a scalar, or lengths along axis 0 that differ.

        Example:
            >>> import tapeviz as tf
            >>> ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [0, 1, 0]))
            >>> for x, y in ds.take(2):
            ...     print(x.numpy(), y.numpy())
            1.0 0
            2.0 1
        """
        tensors = _structure_to_tensors(tensors)
        flat = nest.flatten(tensors)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one tensor.")
        sizes = {_leaf_array(t).shape[0] if _leaf_array(t).ndim else None for t in flat}
        if None in sizes:
            raise ValueError(
                "Unbatching a tensor is only supported for rank >= 1: from_tensor_slices needs arrays, not scalars."
            )
        if len(sizes) > 1:
            raise ValueError(f"Dimensions of the tensors must match along axis 0, got sizes {sorted(sizes)}.")
        n = sizes.pop()
        source = (tensors, [_leaf_array(t) for t in flat])

        def indices():
            return np.arange(n)

        return Dataset._indexed(source, indices, n)

    @staticmethod
    def _indexed(source, indices, cardinality):
        structure, arrays = source

        def make_iterator():
            for i in indices():
                yield nest.pack_sequence_as(structure, [_wrap(a[i]) for a in arrays])

        return Dataset(make_iterator, cardinality, indices, source)

    @staticmethod
    def _of(elements):
        """A dataset of the given elements (a window's contents)."""
        return Dataset(lambda: iter(elements), len(elements))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None):
        """Elements from calling ``generator(*args)`` afresh each pass, checked against ``output_signature``.

        Each yielded value is converted to its ``TensorSpec``'s dtype and
        must fit its shape (TF's ``InvalidArgumentError`` otherwise). The
        cardinality is unknown, as in TF.

        Args:
            generator: a callable that returns an iterator (called once per pass).
            output_types: the dtypes of the elements (TF's older form of ``output_signature``).
            output_shapes: their shapes, with ``output_types``.
            args: a tuple of arguments to call ``generator`` with.
            output_signature: a ``tf.TensorSpec`` (or a structure of them) per element.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset of the generated elements.
        """
        return Dataset(
            lambda: generator_elements(generator, args, output_signature, output_types, output_shapes), UNKNOWN
        )

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: ``tensors`` as a whole.

        Args:
            tensors: a tensor, or a tuple/dict (nested) of them.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset with one element.
        """
        element = _structure_to_tensors(tensors)
        return Dataset(lambda: iter([element]), 1)

    @staticmethod
    def range(*args, dtype="int64", name=None):
        """0, 1, ... like Python's range (start, stop, step), as int64 scalars.

        Args:
            *args: ``stop``, or ``start, stop[, step]``, as Python's ``range`` takes them.
            dtype: the elements' dtype (int64 by default).
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset of scalars.

        Example:
            >>> import tapeviz as tf
            >>> list(tf.data.Dataset.range(1, 7, 2).as_numpy_iterator())
            [np.int64(1), np.int64(3), np.int64(5)]
        """
        values = range(*args)
        np_dtype = np.dtype(dtype if isinstance(dtype, str) else getattr(dtype, "name", "int64"))
        return Dataset(lambda: (Tensor(B.xp.asarray(v, dtype=np_dtype)) for v in values), len(values))

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of several datasets side by side, in their structure (a tuple, a dict, nested); stops at the shortest.

        ``Dataset.zip((a, b))`` and, as in TF 2.21, ``Dataset.zip(a, b)``.

        Args:
            *datasets: a tuple or dict (possibly nested) of datasets, or the datasets themselves.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset whose elements have the structure of ``datasets``.

        Raises:
            TypeError: something that is not a Dataset among ``datasets``.
        """
        structure = datasets[0] if len(datasets) == 1 else datasets
        if isinstance(structure, list):
            structure = tuple(structure)
        flat = nest.flatten(structure)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError(f"Dataset.zip takes datasets in a tuple or dict (possibly nested), got {structure!r}.")
        cards = [d._cardinality for d in flat]
        finite = [c for c in cards if c >= 0]
        card = min(finite) if finite else (INFINITE if all(c == INFINITE for c in cards) else UNKNOWN)

        def make_iterator():
            for elements in zip(*flat):
                yield nest.pack_sequence_as(structure, list(elements))

        return Dataset(make_iterator, card)

    # -- transformations ------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffle with a buffer of ``buffer_size`` elements, as TF does.

        A buffer at least as large as the dataset gives a uniform shuffle;
        a small one only mixes nearby elements. A new order every iteration
        unless ``reshuffle_each_iteration=False``.

        Args:
            buffer_size: how many elements the buffer holds (> 0).
            seed: the op seed; with ``tf.random.set_seed`` the order repeats, as in TF.
            reshuffle_each_iteration: a new order on each pass (True) or the same one.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).

        Raises:
            ValueError: a ``buffer_size`` of 0 or less.

        Example:
            >>> import tapeviz as tf
            >>> ds = tf.data.Dataset.range(5).shuffle(5, seed=1)
            >>> sorted(int(x) for x in ds)
            [0, 1, 2, 3, 4]
        """
        buffer_size = int(buffer_size)
        if buffer_size <= 0:
            raise ValueError(f"buffer_size must be greater than zero, got {buffer_size}.")
        next_stream = _seed_streams(seed, reshuffle_each_iteration)

        if self._indices is not None:
            parent = self._indices

            def indices():
                items = parent()
                if buffer_size >= len(items):  # TF's buffer then holds them all: its draws are Fisher-Yates swaps
                    order = philox.permutation(next_stream(), len(items))
                else:
                    order = philox.buffer_shuffle(range(len(items)), buffer_size, next_stream())
                    order = np.fromiter(order, np.int64, count=len(items))
                return items[order] if isinstance(items, np.ndarray) else [items[i] for i in order]

            return Dataset._indexed(self._source, indices, self._cardinality)

        def make_iterator():
            return philox.buffer_shuffle(iter(self), buffer_size, next_stream())

        return Dataset(make_iterator, self._cardinality)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Group consecutive elements into batches (stacked along a new axis 0).

        Args:
            batch_size: elements per batch (> 0).
            drop_remainder: drop a last batch smaller than ``batch_size`` (its
                batches then have a known first dimension).
            num_parallel_calls: accepted for TensorFlow compatibility (one thread here).
            deterministic: accepted for TensorFlow compatibility (the order is always kept).
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Dataset of batches, in the elements' structure.

        Raises:
            ValueError: a ``batch_size`` of 0 or less.

        Example:
            >>> import tapeviz as tf
            >>> ds = tf.data.Dataset.range(5).batch(2)
            >>> [b.numpy().tolist() for b in ds]
            [[0, 1], [2, 3], [4]]
            >>> [b.numpy().tolist() for b in tf.data.Dataset.range(5).batch(2, drop_remainder=True)]
            [[0, 1], [2, 3]]
        """
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
                    yield nest.pack_sequence_as(structure, [_wrap(a[rows]) for a in arrays])

            batched = Dataset(make_iterator, card)
        else:

            def make_iterator():
                pending = []
                for element in self:
                    pending.append(element)
                    if len(pending) == batch_size:
                        yield _stack(pending)
                        pending = []
                if pending and not drop_remainder:
                    yield _stack(pending)

            batched = Dataset(make_iterator, card)
        outer = batch_size if drop_remainder else None
        batched._spec = lambda: nest.map_structure(lambda s: _spec(s.dtype, (outer, *s.shape)), self.element_spec)
        return batched

    def unbatch(self, name=None):
        """Split each element along axis 0 back into single elements.

        Args:
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

        def make_iterator():
            for element in self:
                flat = [_leaf_array(t) for t in nest.flatten(element)]
                for i in range(flat[0].shape[0]):
                    yield nest.pack_sequence_as(element, [_wrap(t[i]) for t in flat])

        card = UNKNOWN
        if self._indices is not None and self._cardinality >= 0:  # rows of one array: every element has one size
            arrays = self._source[1]
            card = self._cardinality * arrays[0].shape[1] if arrays[0].ndim > 1 else UNKNOWN
        return Dataset(make_iterator, card)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply ``map_func`` to each element (a tuple element is passed as separate arguments).

        Args:
            map_func: a function of an element (of its parts, for a tuple) that
                returns the new element.
            num_parallel_calls: accepted for TensorFlow compatibility (one thread here).
            deterministic: accepted for TensorFlow compatibility (the order is always kept).
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).

        Example:
            >>> import tapeviz as tf
            >>> ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [10.0, 20.0]))
            >>> [float(s) for s in ds.map(lambda x, y: x + y)]
            [11.0, 22.0]
        """

        return Dataset(lambda: _Mapped(iter(self), map_func), self._cardinality)

    def filter(self, predicate, name=None):
        """Keep the elements for which ``predicate`` is true.

        Args:
            predicate: a function of an element (of its parts, for a tuple) that returns a bool.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

        def make_iterator():
            for element in self:
                keep = predicate(*element) if isinstance(element, tuple) else predicate(element)
                if bool(keep):
                    yield element

        return Dataset(make_iterator, UNKNOWN)

    def ignore_errors(self, log_warning=False, name=None):
        """Drop the elements whose making raised a ``tf.errors.OpError`` (a malformed CSV record, a failing op in ``map``).

        With ``log_warning=True`` each dropped error is logged as TF logs it
        ("Error raised with error message ..."). Other exceptions (a Python
        bug in a ``map`` function) still propagate.

        **Difference:** the readers (``CsvDataset``, ``make_csv_dataset``) and
        ``map`` go on after an error, as in TF; other steps of a pipeline end
        at their first error, so put ``ignore_errors`` right after the step
        that fails.

        Args:
            log_warning: log each dropped error.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

        def make_iterator():
            elements = iter(self)
            while True:
                try:
                    yield next(elements)
                except StopIteration:
                    return
                except OpError as exc:
                    if log_warning:
                        _LOG.warning("Error raised with error message %s", exc.message)

        return Dataset(make_iterator, UNKNOWN)

    def apply(self, transformation_func):
        """``transformation_func(self)``: a function from one dataset to another (such as ``tf.data.experimental.ignore_errors()``).

        Args:
            transformation_func: a function that takes this dataset and returns a Dataset.

        Returns:
            What ``transformation_func`` returned.

        Raises:
            TypeError: ``transformation_func`` returned something that is not a Dataset.
        """
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"`transformation_func` must return a Dataset, got {type(dataset).__name__}.")
        return dataset

    def take(self, count, name=None):
        """The first ``count`` elements (all of them when count is -1).

        Args:
            count: how many elements; -1 (or less) keeps them all.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).

        Example:
            >>> import tapeviz as tf
            >>> [int(x) for x in tf.data.Dataset.range(10).take(3)]
            [0, 1, 2]
        """
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
        """All but the first ``count`` elements (none of them when count is -1, as in TF).

        Args:
            count: how many elements to skip; -1 skips them all.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """
        count = int(count)
        if count < 0:
            return Dataset(lambda: iter(()), 0)
        card = max(self._cardinality - count, 0) if self._cardinality >= 0 else self._cardinality
        if self._indices is not None:
            parent = self._indices
            return Dataset._indexed(self._source, lambda: parent()[count:], card)
        return Dataset(lambda: _islice(self, count, None), card)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (forever when None); a shuffle reshuffles each time.

        Args:
            count: how many passes; None (or -1) repeats forever.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

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
        """(index, element) pairs, the index an int64 scalar.

        Args:
            start: the first index.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

        def make_iterator():
            for i, element in enumerate(self, start):
                yield Tensor(np.int64(i) if B.xp is np else B.xp.asarray(i, dtype=np.int64)), element

        return Dataset(make_iterator, self._cardinality)

    def prefetch(self, buffer_size, name=None):
        """Accepted for compatibility; tapeviz runs eagerly in one thread, so it does nothing.

        Args:
            buffer_size: accepted (``tf.data.AUTOTUNE`` too), unused.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            This dataset's elements, as a Dataset.
        """
        return self

    def cache(self, filename="", name=None):
        """Keep the elements of the first complete pass in memory; later passes replay them.

        As TF's in-memory cache: the pipeline before ``cache`` runs once
        (a ``map`` is not called again), and a pass stopped early caches
        nothing. **Difference:** a ``filename`` is accepted but nothing is
        written to disk.

        Args:
            filename: accepted (``""``: in memory, the only place here).
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """
        stored = []

        def make_iterator():
            if stored:
                yield from stored[0]
                return
            seen = []
            for element in self:
                seen.append(element)
                yield element
            stored.append(seen)

        return Dataset(make_iterator, self._cardinality)

    # -- combining ---------------------------------------------------------------------------
    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s.

        Args:
            dataset: a Dataset whose elements have this one's structure.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """
        a, b = self._cardinality, dataset._cardinality
        if INFINITE in (a, b):
            card = INFINITE
        else:
            card = a + b if a >= 0 and b >= 0 else UNKNOWN
        return Dataset(lambda: itertools.chain(self, dataset), card)

    def flat_map(self, map_func, name=None):
        """``map_func`` turns each element into a dataset; their elements follow one another.

        Args:
            map_func: a function of an element (of its parts, for a tuple) that returns a Dataset.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).
        """

        def make_iterator():
            for element in self:
                yield from _call(map_func, element)

        return Dataset(make_iterator, UNKNOWN)

    def interleave(
        self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None, name=None
    ):
        """Like ``flat_map``, but ``cycle_length`` datasets are open at once and take turns, ``block_length`` each.

        TF's order exactly: a slot whose dataset ends moves the turn on, and
        is refilled from the input when its turn comes again. As in TF, the
        default ``cycle_length`` is the number of CPU cores, so the order of
        a default interleave depends on the machine.

        Args:
            map_func: a function of an element that returns a Dataset.
            cycle_length: how many datasets are open at once.
            block_length: how many elements each gives in its turn.
            num_parallel_calls: accepted for TensorFlow compatibility.
            deterministic: accepted for TensorFlow compatibility.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).

        Raises:
            ValueError: a ``cycle_length`` or ``block_length`` of 0 or less.
        """
        cycle = os.cpu_count() or 1 if cycle_length in (None, AUTOTUNE) else int(cycle_length)
        block = 1 if block_length is None else int(block_length)
        if cycle <= 0 or block <= 0:
            raise ValueError("cycle_length and block_length must be positive (or None for the defaults).")

        def make_iterator():
            inputs = iter(self)
            slots = [None] * cycle
            index = taken = 0
            open_count, inputs_left = 0, True
            while inputs_left or open_count:
                if slots[index] is not None:
                    element = next(slots[index], _END)
                    if element is not _END:
                        yield element
                        taken += 1
                        if taken == block:
                            index, taken = (index + 1) % cycle, 0
                        continue
                    slots[index] = None
                    open_count -= 1
                    index, taken = (index + 1) % cycle, 0
                elif inputs_left:
                    source = next(inputs, _END)
                    if source is _END:
                        inputs_left = False
                    else:
                        slots[index] = iter(_call(map_func, source))
                        open_count += 1
                else:
                    index, taken = (index + 1) % cycle, 0

        return Dataset(make_iterator, UNKNOWN)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Datasets of ``size`` elements (every ``stride``-th), a new one each ``shift`` elements.

        Each window is a Dataset (a tuple or dict of Datasets for structured
        elements, as in TF); ``w.batch(size)`` inside ``flat_map`` makes them tensors.

        Args:
            size: elements per window.
            shift: elements between window starts (``size`` when None).
            stride: the step between a window's elements.
            drop_remainder: drop windows shorter than ``size`` at the end.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A Dataset of windows, each a Dataset (in the elements' structure).

        Raises:
            ValueError: a ``size``, ``shift`` or ``stride`` of 0 or less.
        """
        size, stride = int(size), int(stride)
        shift = size if shift is None else int(shift)
        if min(size, shift, stride) <= 0:
            raise ValueError("size, shift and stride of a window must be positive.")
        span = (size - 1) * stride + 1
        n = self._cardinality
        if n == INFINITE:
            card = INFINITE
        elif n < 0:
            card = UNKNOWN
        elif drop_remainder:
            card = 0 if n < span else (n - span) // shift + 1
        else:
            card = -(-n // shift)

        def make_iterator():
            buffer, start, source = [], 0, iter(self)  # buffer[0] is element number ``start``
            exhausted = False
            while True:
                while not exhausted and len(buffer) < span:
                    element = next(source, _END)
                    if element is _END:
                        exhausted = True
                    else:
                        buffer.append(element)
                if not buffer or (drop_remainder and len(buffer) < span):
                    return
                yield _window_of(buffer[0:span:stride])
                start += shift
                if shift <= len(buffer):
                    del buffer[:shift]
                else:
                    skip = shift - len(buffer)
                    buffer = []
                    for _ in range(skip):
                        if next(source, _END) is _END:
                            return

        return Dataset(make_iterator, card)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Like ``batch``, but each component is padded to ``padded_shapes`` (None: the batch's longest).

        Args:
            batch_size: elements per batch (> 0).
            padded_shapes: the shape to pad each component to (None: the batch's longest).
            padding_values: the padding value per component (0 by default).
            drop_remainder: drop a last, smaller batch.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A new Dataset (this one is unchanged).

        Raises:
            ValueError: a ``batch_size`` of 0 or less.
        """
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be greater than zero, got {batch_size}.")
        card = self._cardinality
        if card >= 0:
            card = card // batch_size if drop_remainder else -(-card // batch_size)

        def make_iterator():
            pending = []
            for element in self:
                pending.append(element)
                if len(pending) == batch_size:
                    yield _pad_and_stack(pending, padded_shapes, padding_values)
                    pending = []
            if pending and not drop_remainder:
                yield _pad_and_stack(pending, padded_shapes, padding_values)

        return Dataset(make_iterator, card)

    # -- consuming ----------------------------------------------------------------------------
    def __iter__(self):
        return Iterator(self._make_iterator(), self)

    @property
    def element_spec(self):
        """The structure of ``TensorSpec`` objects of one element; a batch's first dimension is None unless drop_remainder.

        **Difference:** where tapeviz cannot know it without running the
        pipeline (after ``map``, ``filter``, a generator...), it runs it for
        one element and reports that element's shapes.
        """
        if self._spec is not None:
            return self._spec()
        if self._source is not None:
            structure, arrays = self._source
            return nest.pack_sequence_as(structure, [_spec(_dtype_of(a), a.shape[1:]) for a in arrays])
        first = next(iter(self), None)
        if first is None:
            raise ValueError("The dataset is empty: tapeviz finds an element_spec from the first element.")
        return nest.map_structure(lambda leaf: _spec(_dtype_of(_leaf_array(leaf)), _leaf_array(leaf).shape), first)

    def as_numpy_iterator(self):
        """The elements as NumPy values (arrays, or NumPy scalars for rank 0), in their structure.

        Returns:
            An iterator over the elements.

        Example:
            >>> import tapeviz as tf
            >>> list(tf.data.Dataset.from_tensor_slices([1.5, 2.5]).as_numpy_iterator())
            [np.float32(1.5), np.float32(2.5)]
        """
        for element in self:
            yield nest.map_structure(_to_numpy, element)

    def cardinality(self):
        """The number of elements as an int64 tensor: -1 if infinite, -2 if unknown.

        Returns:
            A scalar int64 Tensor.

        Example:
            >>> import tapeviz as tf
            >>> int(tf.data.Dataset.range(10).batch(3).cardinality())
            4
            >>> int(tf.data.Dataset.range(3).repeat().cardinality())
            -1
        """
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
    return itertools.islice(iter(dataset), start, stop)


_END = object()


def _dtype_of(array):
    return "string" if array.dtype == object else array.dtype.name


def _spec(dtype, shape):
    if dtype == "string":
        return strings.StringSpec(tuple(shape))
    return TensorSpec(tuple(shape), dtype)


def _to_numpy(leaf):
    return leaf.numpy() if hasattr(leaf, "numpy") else leaf


def _call(fn, element):
    return fn(*element) if isinstance(element, tuple) else fn(element)


class _Mapped:
    """``map``'s iterator: a class, not a generator, so an error in one element leaves it able to go on."""

    def __init__(self, elements, map_func):
        self._elements = elements
        self._map_func = map_func

    def __iter__(self):
        return self

    def __next__(self):
        result = _call(self._map_func, next(self._elements))
        return tuple(result) if isinstance(result, list) else result  # TF: a returned list is a tuple


def _window_of(elements):
    """One window: a Dataset of ``elements``, or the same structure of Datasets, one per component."""
    first = elements[0]
    if isinstance(first, (tuple, dict)):
        flat = [nest.flatten(e) for e in elements]
        columns = [Dataset._of([row[i] for row in flat]) for i in range(len(flat[0]))]
        return nest.pack_sequence_as(first, columns)
    return Dataset._of(list(elements))


def _flatten_up_to(structure, value):
    """``value`` (padded_shapes or padding_values) flattened as ``structure``'s tuples and dicts nest, or repeated."""
    if isinstance(structure, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            return [v for s in structure for v in _flatten_up_to(s, value)]
        return [v for s, sub in zip(structure, value) for v in _flatten_up_to(s, sub)]
    if isinstance(structure, dict):
        if not isinstance(value, dict):
            return [v for key in sorted(structure) for v in _flatten_up_to(structure[key], value)]
        return [v for key in sorted(structure) for v in _flatten_up_to(structure[key], value[key])]
    return [value]


def _pad_and_stack(elements, padded_shapes, padding_values):
    first = elements[0]
    leaves = [nest.flatten(e) for e in elements]
    shapes = _flatten_up_to(first, padded_shapes)
    values = _flatten_up_to(first, padding_values)
    out = []
    for i in range(len(leaves[0])):
        arrays = [np.asarray(_leaf_array(row[i]) if B.xp is np else B.to_numpy(_leaf_array(row[i]))) for row in leaves]
        longest = [max(a.shape[d] for a in arrays) for d in range(arrays[0].ndim)]
        wanted = shapes[i]
        if wanted is not None:
            wanted = list(wanted.as_list() if hasattr(wanted, "as_list") else wanted)
            if len(wanted) != len(longest):
                raise ValueError(
                    f"The padded shape {wanted} of component {i} has rank {len(wanted)}, but its elements have "
                    f"rank {len(longest)}."
                )
            for d, (w, n) in enumerate(zip(wanted, longest)):
                if w is not None and w >= 0 and w < n:
                    raise ValueError(
                        f"Attempted to pad to a smaller size than the input element: dimension {d} of component {i} "
                        f"has size {n}, more than the padded shape {wanted}."
                    )
            target = [n if w is None or w < 0 else w for w, n in zip(wanted, longest)]
        else:
            target = longest
        fill = values[i]
        if fill is None:
            fill = b"" if arrays[0].dtype == object else 0
        fill = np.asarray(fill.numpy() if hasattr(fill, "numpy") else fill)
        batch = np.full([len(arrays), *target], fill, dtype=arrays[0].dtype)
        for row, a in enumerate(arrays):
            batch[(row, *[slice(0, n) for n in a.shape])] = a
        out.append(strings.element(batch) if batch.dtype == object else Tensor(B.xp.asarray(batch)))
    return nest.pack_sequence_as(first, out)


class Iterator:
    """What ``iter(dataset)`` gives: ``next(it)`` raises StopIteration at the end, ``it.get_next()`` TF's error.

    A ``tf.train.Checkpoint`` can hold it (as TF's): it saves how many elements were taken, and a
    restored iterator continues from there (a fresh pass skipped ahead: a reshuffling dataset gives a
    new order, where TF restores its shuffle buffer).

    Args:
        elements: the iterator over the dataset's elements.
        dataset: the dataset, for ``element_spec``.
    """

    def __init__(self, elements, dataset=None):
        self._elements = iter(elements)
        self._dataset = dataset
        self._taken = 0
        self._position = None  # the Variable a checkpoint saves, made when a checkpoint first asks

    def __iter__(self):
        return self

    def __next__(self):
        if self._position is not None:
            self._follow_restore()
        element = next(self._elements)
        self._taken += 1
        if self._position is not None:
            self._position.assign(self._taken)
        return element

    def get_next(self):
        """The next element; at the end, ``tf.errors.OutOfRangeError('End of sequence')``, as TF.

        Returns:
            The next element.

        Raises:
            tf.errors.OutOfRangeError: at the end.
        """
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    def _checkpoint_position(self):
        if self._position is None:
            self._position = Variable(self._taken, dtype="int64", name="iterator_position", trainable=False)
        return self._position

    def _follow_restore(self):
        wanted = int(self._position.numpy())
        if wanted != self._taken and self._dataset is not None:
            self._elements = itertools.islice(iter(self._dataset._make_iterator()), wanted, None)
            self._taken = wanted
