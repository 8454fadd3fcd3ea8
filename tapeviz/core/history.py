"""What a tape remembers of its ops after it released their values.

A non-persistent tape drops its recorded entries after ``gradient`` (that is
what frees the memory, as in TF). It keeps a sketch of them: the primitive,
which tensors went in and came out, their shapes and dtypes, the name scope
and derivative order, but no array. The visualizer draws a released tape
from this sketch, whatever was imported and whenever it is asked.

Every ``gradient`` of a non-persistent tape takes a sketch and most are
never drawn, so taking one must cost next to nothing (a tape of NumPy
float scalars, whose release frees next to nothing, defers it:
``DeferredSketch``): ``Sketch`` copies the fields into a few flat lists,
one comprehension (or C-level ``map``) per field, no Python call per entry
or per tensor, and builds the ``EntrySketch`` objects only when they are
asked for. The lists hold ints,
shapes and NumPy dtypes (or, when every output is a NumPy scalar, as in a
chain of scalar ops, just their types, which say shape () and the dtype; one
type for all when they share it), which the garbage collector does not
track, so a kept sketch does not slow down later collections either. Each
pass costs tens of nanoseconds per entry, so there are as few as the fields
need: counts rather than running totals of each entry's inputs and outputs,
and the tensors no entry made found by set difference.
"""

from itertools import chain

import numpy as np

from tapeviz.core.dtypes import as_dtype
from tapeviz.core.tensor import Variable


class TensorSketch:
    """A tensor without its value: ``tensor_id``, ``shape``, ``dtype``."""

    __slots__ = ("tensor_id", "shape", "dtype")

    def __init__(self, tensor_id, shape, dtype):
        self.tensor_id = tensor_id
        self.shape = shape
        self.dtype = dtype

    def __repr__(self):
        return f"<TensorSketch #{self.tensor_id} shape={self.shape} dtype={self.dtype.name}>"


class EntrySketch:
    """A recorded entry without values: the same fields as ``TapeEntry``, sketched tensors."""

    __slots__ = (
        "primitive", "inputs", "outputs", "attrs", "scope", "depth", "index", "tapes", "origin", "origin_at"
    )  # fmt: skip

    def __init__(self, primitive, inputs, outputs, scope, depth, index, tapes=(), origin=None, origin_at=None):
        self.primitive = primitive
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = {}  # attributes may hold arrays or closures: not kept
        self.scope = scope
        self.depth = depth
        self.index = index
        self.tapes = tapes  # empty in a tape's own sketch (its history): that tape's
        self.origin, self.origin_at = origin, origin_at  # the user's line (core.origin.note), or None

    @classmethod
    def of(cls, entry, sketch_of):
        """The sketch of a live ``entry``, each tensor replaced by ``sketch_of(tensor)``."""
        return cls(
            entry.primitive,
            tuple([sketch_of(t) for t in entry.inputs]),
            tuple([sketch_of(t) for t in entry.outputs]),
            entry.scope,
            entry.depth,
            entry.index,
            entry.tapes,
            entry.origin,
            entry.origin_at,
        )

    @property
    def name(self):
        return self.primitive.name

    def __repr__(self):
        ins = ", ".join(f"#{t.tensor_id}" if isinstance(t, TensorSketch) else repr(t) for t in self.inputs)
        outs = ", ".join(f"#{t.tensor_id}" for t in self.outputs)
        return f"<EntrySketch {self.primitive.name}({ins}) -> {outs} depth={self.depth}>"


# NumPy scalar types whose every value has shape () and one dtype, np.dtype(the type).
_NUMPY_SCALARS = frozenset(np.dtype(code).type for code in "?efdgFDGbhilqBHILQ")


class Sketch:
    """The structure of recorded ``entries``, in flat lists; ``entries()`` gives ``EntrySketch``es.

    Variables stay themselves (the user owns them, and draws show their name).
    """

    __slots__ = (
        "_primitives",
        "_scopes",
        "_depths",
        "_indexes",
        "_origins",
        "_origin_offsets",
        "_input_counts",
        "_input_ids",
        "_output_counts",
        "_output_ids",
        "_output_shapes",
        "_output_dtypes",
        "_others",
        "_built",
    )

    def __init__(self, entries):
        # Comprehensions rather than map(attrgetter(...)): a slot read in a comprehension is a
        # specialized instruction, about twice as fast as attrgetter's generic lookup.
        self._primitives = [e.primitive for e in entries]
        self._scopes = [e.scope for e in entries]
        self._depths = [e.depth for e in entries]
        self._indexes = [e.index for e in entries]
        self._origins = [e.origin for e in entries]
        self._origin_offsets = [e.origin_at for e in entries]
        inputs = [e.inputs for e in entries]
        outputs = [e.outputs for e in entries]
        # Entry i's inputs are the _input_counts[i] ids after those of the entries before it
        # (the same for outputs); entries() adds the counts up.
        self._input_counts = list(map(len, inputs))
        self._output_counts = list(map(len, outputs))
        inputs = list(chain.from_iterable(inputs))
        outputs = list(chain.from_iterable(outputs))
        self._input_ids = [t._id for t in inputs]
        self._output_ids = [t._id for t in outputs]
        kinds = {type(t._value) for t in outputs}
        if _NUMPY_SCALARS.issuperset(kinds):  # a scalar chain: each type says shape () and its dtype
            self._output_shapes = None  # one type stands for all, else each output's
            self._output_dtypes = kinds.pop() if len(kinds) == 1 else [type(t._value) for t in outputs]
        else:
            self._output_shapes = [t._value.shape for t in outputs]
            self._output_dtypes = [t._value.dtype for t in outputs]
        # Inputs that no entry made (sources, constants, variables): their shape and NumPy dtype
        # taken now, while at hand (each once: a source is used again and again, found by set
        # difference in C); sketched, like the outputs, only when asked for.
        self._others = {
            tensor_id: _shape_and_dtype(tensor)
            for tensor_id, tensor in _unmade(inputs, self._input_ids, self._output_ids)
        }
        self._built = None

    def __len__(self):
        return len(self._primitives)

    def entries(self):
        """One ``EntrySketch`` per entry, in recorded order (built on the first call)."""
        if self._built is None:
            tensors = {  # id -> its TensorSketch (or Variable), shared by the entries naming it
                tensor_id: other if type(other) is not tuple else TensorSketch(tensor_id, other[0], as_dtype(other[1]))
                for tensor_id, other in self._others.items()
            }
            dtypes = self._output_dtypes
            if self._output_shapes is None:  # NumPy scalars, kept as their types (or one type for all)
                shapes = [()] * len(self._output_ids)
                dtypes = [np.dtype(dtypes)] * len(shapes) if isinstance(dtypes, type) else map(np.dtype, dtypes)
            else:
                shapes = self._output_shapes
            for tensor_id, shape, dtype in zip(self._output_ids, shapes, dtypes):
                tensors[tensor_id] = TensorSketch(tensor_id, tuple(shape), as_dtype(dtype))
            built = []
            in_start = out_start = 0
            for position, primitive in enumerate(self._primitives):
                in_end = in_start + self._input_counts[position]
                out_end = out_start + self._output_counts[position]
                built.append(
                    EntrySketch(
                        primitive,
                        tuple([tensors[i] for i in self._input_ids[in_start:in_end]]),
                        tuple([tensors[i] for i in self._output_ids[out_start:out_end]]),
                        self._scopes[position],
                        self._depths[position],
                        self._indexes[position],
                        (),
                        self._origins[position],
                        self._origin_offsets[position],
                    )
                )
                in_start, out_start = in_end, out_end
            self._built = tuple(built)
        return self._built


def _unmade(inputs, input_ids, output_ids):
    """(id, tensor) of each of ``inputs`` (ids ``input_ids``) whose id is not among ``output_ids``."""
    ids = set(input_ids).difference(output_ids)
    if len(ids) <= 8:  # a few sources and constants, as usual: each found by a scan in C
        return [(tensor_id, inputs[input_ids.index(tensor_id)]) for tensor_id in ids]
    by_id = dict(zip(input_ids, inputs))
    return [(tensor_id, by_id[tensor_id]) for tensor_id in ids]


def _shape_and_dtype(tensor):
    """A variable itself (the user's, drawn by its name), else ``(shape, NumPy dtype)`` of the tensor's value."""
    if isinstance(tensor, Variable):
        return tensor
    value = tensor._value
    return (tuple(value.shape), value.dtype)


class DeferredSketch:
    """The sketch of entries whose every value is a NumPy float scalar, taken when first asked for.

    A tape of scalars (a lesson's, a chain of scalar ops) frees next to nothing when it drops
    its entries: kept, they cost a few hundred bytes each, while sketching them at every
    release costs about a tenth of the gradient's time. So the tape keeps them as they are
    and the sketch is taken only if the tape is drawn (the same sketch: entries and tensors
    never change). A tape that holds an array sketches at release, freeing the arrays.
    """

    __slots__ = ("_entries", "_sketch")

    def __init__(self, entries):
        self._entries = entries
        self._sketch = None

    def __len__(self):
        return len(self._entries) if self._sketch is None else len(self._sketch)

    def entries(self):
        """One ``EntrySketch`` per entry, in recorded order (sketched on the first call)."""
        if self._sketch is None:
            self._sketch = Sketch(self._entries)
            self._entries = ()
        return self._sketch.entries()


EMPTY = Sketch(())  # what a tape that never released holds
