"""What a tape remembers of its ops after it released their values.

A non-persistent tape drops its recorded entries after ``gradient`` (that is
what frees the memory, as in TF). It keeps a sketch of them: the primitive,
which tensors went in and came out, their shapes and dtypes, the name scope
and derivative order, but no array. The visualizer draws a released tape
from this sketch, whatever was imported and whenever it is asked.

Every ``gradient`` of a non-persistent tape takes a sketch and most are
never drawn, so taking one must cost next to nothing: ``Sketch`` copies the
fields into a few flat lists in C-level passes (``map`` with
``attrgetter``, no Python call per entry or per tensor), and builds the
``EntrySketch`` objects only when they are asked for. The lists hold ints,
shapes and NumPy dtypes, which the garbage collector does not track, so a
kept sketch does not slow down later collections either.
"""

from itertools import accumulate, chain, filterfalse
from operator import attrgetter

from tapeviz.core.dtypes import as_dtype
from tapeviz.core.tensor import Tensor


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

    __slots__ = ("primitive", "inputs", "outputs", "attrs", "scope", "depth", "index")

    def __init__(self, primitive, inputs, outputs, scope, depth, index):
        self.primitive = primitive
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = {}  # attributes may hold arrays or closures: not kept
        self.scope = scope
        self.depth = depth
        self.index = index

    @classmethod
    def of(cls, entry, sketch_of):
        """The sketch of a live ``entry``, each tensor replaced by ``sketch_of(tensor)``."""
        return cls(entry.primitive, tuple([sketch_of(t) for t in entry.inputs]),
                   tuple([sketch_of(t) for t in entry.outputs]), entry.scope, entry.depth, entry.index)

    @property
    def name(self):
        return self.primitive.name

    def __repr__(self):
        ins = ", ".join(f"#{t.tensor_id}" if isinstance(t, TensorSketch) else repr(t) for t in self.inputs)
        outs = ", ".join(f"#{t.tensor_id}" for t in self.outputs)
        return f"<EntrySketch {self.primitive.name}({ins}) -> {outs} depth={self.depth}>"


_PRIMITIVE, _SCOPE, _DEPTH, _INDEX = map(attrgetter, ("primitive", "scope", "depth", "index"))
_INPUTS, _OUTPUTS = attrgetter("inputs"), attrgetter("outputs")
_META = attrgetter("_id", "_value.shape", "_value.dtype")  # a tensor's structure, without the array
_ID = attrgetter("_id")


class Sketch:
    """The structure of recorded ``entries``, in flat lists; ``entries()`` gives ``EntrySketch``es.

    Variables stay themselves (the user owns them, and draws show their name).
    """

    __slots__ = ("_primitives", "_scopes", "_depths", "_indexes", "_input_ends", "_inputs",
                 "_output_ends", "_outputs", "_variables", "_built")

    def __init__(self, entries):
        self._primitives = list(map(_PRIMITIVE, entries))
        self._scopes = list(map(_SCOPE, entries))
        self._depths = list(map(_DEPTH, entries))
        self._indexes = list(map(_INDEX, entries))
        inputs = list(map(_INPUTS, entries))
        outputs = list(map(_OUTPUTS, entries))
        # Entry i's tensors are _inputs[_input_ends[i-1]:_input_ends[i]] (the same for outputs).
        self._input_ends = list(accumulate(map(len, inputs)))
        self._inputs = list(map(_META, chain.from_iterable(inputs)))  # (id, shape, numpy dtype)
        self._output_ends = list(accumulate(map(len, outputs)))
        self._outputs = list(map(_META, chain.from_iterable(outputs)))
        self._variables = {v._id: v for v in filterfalse(Tensor.__instancecheck__, chain.from_iterable(inputs))}
        self._built = None

    def __len__(self):
        return len(self._primitives)

    def entries(self):
        """One ``EntrySketch`` per entry, in recorded order (built on the first call)."""
        if self._built is None:
            tensors = {}  # id -> its TensorSketch, shared by every entry that names it

            def sketch_of(meta):
                tensor_id, shape, dtype = meta
                found = tensors.get(tensor_id)
                if found is None:
                    found = self._variables.get(tensor_id)
                    if found is None:
                        found = TensorSketch(tensor_id, tuple(shape), as_dtype(dtype))
                    tensors[tensor_id] = found
                return found

            built = []
            in_start = out_start = 0
            for position, primitive in enumerate(self._primitives):
                in_end, out_end = self._input_ends[position], self._output_ends[position]
                built.append(EntrySketch(
                    primitive,
                    tuple([sketch_of(m) for m in self._inputs[in_start:in_end]]),
                    tuple([sketch_of(m) for m in self._outputs[out_start:out_end]]),
                    self._scopes[position], self._depths[position], self._indexes[position]))
                in_start, out_start = in_end, out_end
            self._built = tuple(built)
        return self._built


EMPTY = Sketch(())  # what a tape that never released holds
