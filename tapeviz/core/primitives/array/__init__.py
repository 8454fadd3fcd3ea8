"""Shape, indexing and constant-making ops, by family; each module holds its kernels with their gradient rules.

This face gathers the families' ops under one name (``from tapeviz.core.primitives import array as a``);
``__all__`` is what the package face re-exports. It fills ``tapeviz.core.families.array`` with them
(how rules of other families call them) and binds Tensor's ``[]`` (and a variable's slices) to them.
"""

from tapeviz.core import families
from tapeviz.core import tensor as _tensor
from tapeviz.core.primitives.array.constants import (
    eye,
    fill,
    one_hot,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from tapeviz.core.primitives.array.indexing import (
    GATHER as GATHER,
)
from tapeviz.core.primitives.array.indexing import (
    GATHER_GRAD as GATHER_GRAD,
)
from tapeviz.core.primitives.array.indexing import (
    GATHER_ND as GATHER_ND,
)
from tapeviz.core.primitives.array.indexing import (
    GATHER_ND_GRAD as GATHER_ND_GRAD,
)
from tapeviz.core.primitives.array.indexing import (
    SLICE_GRAD as SLICE_GRAD,
)
from tapeviz.core.primitives.array.indexing import (
    STRIDED_SLICE as STRIDED_SLICE,
)
from tapeviz.core.primitives.array.indexing import (
    gather,
    gather_nd,
    slice,
    slice_tensor,
)
from tapeviz.core.primitives.array.indexing import (
    gather_grad as gather_grad,
)
from tapeviz.core.primitives.array.indexing import (
    gather_nd_grad as gather_nd_grad,
)
from tapeviz.core.primitives.array.indexing import (
    slice_grad as slice_grad,
)
from tapeviz.core.primitives.array.shapes import (
    BROADCAST_TO as BROADCAST_TO,
)
from tapeviz.core.primitives.array.shapes import (
    CONCAT as CONCAT,
)
from tapeviz.core.primitives.array.shapes import (
    PACK as PACK,
)
from tapeviz.core.primitives.array.shapes import (
    PAD as PAD,
)
from tapeviz.core.primitives.array.shapes import (
    RESHAPE as RESHAPE,
)
from tapeviz.core.primitives.array.shapes import (
    REVERSE as REVERSE,
)
from tapeviz.core.primitives.array.shapes import (
    SPLIT as SPLIT,
)
from tapeviz.core.primitives.array.shapes import (
    TILE as TILE,
)
from tapeviz.core.primitives.array.shapes import (
    TRANSPOSE as TRANSPOSE,
)
from tapeviz.core.primitives.array.shapes import (
    UNPACK as UNPACK,
)
from tapeviz.core.primitives.array.shapes import auto_pack as _auto_pack
from tapeviz.core.primitives.array.shapes import (
    broadcast_to,
    concat,
    expand_dims,
    pad,
    rank,
    reshape,
    reverse,
    shape,
    size,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
)
from tapeviz.core.tensor import convert_to_tensor

newaxis = None  # tf.newaxis: `x[..., tf.newaxis]` adds an axis, as NumPy's None does

__all__ = [
    "newaxis",
    "zeros",
    "ones",
    "fill",
    "zeros_like",
    "ones_like",
    "reshape",
    "broadcast_to",
    "transpose",
    "slice_tensor",
    "stack",
    "unstack",
    "shape",
    "rank",
    "size",
    "convert_to_tensor",
    "expand_dims",
    "squeeze",
    "concat",
    "split",
    "tile",
    "pad",
    "reverse",
    "gather",
    "gather_nd",
    "slice",
    "range",
    "eye",
    "one_hot",
]

families.publish(families.array, globals())
_tensor.bind_ops(slice_tensor=slice_tensor, slice_grad=slice_grad, broadcast_to=broadcast_to, auto_pack=_auto_pack)
