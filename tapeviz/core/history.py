"""What a tape remembers of its ops after it released their values.

A non-persistent tape drops its recorded entries after ``gradient`` (that is
what frees the memory, as in TF). It keeps a sketch of them: the primitive,
which tensors went in and came out, their shapes and dtypes, the name scope
and derivative order, but no array. The visualizer draws a released tape
from this sketch, whatever was imported and whenever it is asked.
"""

from tapeviz.core.dtypes import of_array


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

    def __init__(self, entry, sketch_of):
        self.primitive = entry.primitive
        self.inputs = tuple([sketch_of(t) for t in entry.inputs])
        self.outputs = tuple([sketch_of(t) for t in entry.outputs])
        self.attrs = {}  # attributes may hold arrays or closures: not kept
        self.scope = entry.scope
        self.depth = entry.depth
        self.index = entry.index

    @property
    def name(self):
        return self.primitive.name


def sketch(entries):
    """Sketches of ``entries``; variables stay themselves (the user owns them)."""
    sketches = {}

    def sketch_of(tensor):
        if hasattr(tensor, "assign"):
            return tensor
        found = sketches.get(tensor._id)
        if found is None:
            value = tensor._value
            found = sketches[tensor._id] = TensorSketch(tensor._id, tuple(value.shape), of_array(value))
        return found

    return tuple([EntrySketch(entry, sketch_of) for entry in entries])
