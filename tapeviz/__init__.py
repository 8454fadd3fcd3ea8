"""tapeviz: TensorFlow's GradientTape, made visible.

``import tapeviz as tf`` runs GradientTape code unchanged on NumPy, and
every step of it can be watched through :mod:`tapeviz.events`.

The top level re-exports each family's ``__all__`` (math, array ops,
linear algebra), as TensorFlow's top level does, and the TF-named
namespaces (``tf.math``, ``tf.nn``, ``tf.config``, ``tf.keras``...).
``dir(tapeviz)`` and ``__all__`` list only those: the layers underneath
(``tapeviz.core``, ``tapeviz.backend``, ...) stay importable by their full
names but are not part of the face (see docs/architecture.md).
"""

# The order of these imports is kept by hand: a later star import wins a shared name.

import sys as _sys

from tapeviz import core as _core  # noqa: F401  (registers primitives and rules)
from tapeviz import autodiff, backend, bitwise, config, debugging, dtypes, image, linalg, math, nn, random
from tapeviz.dtypes import saturate_cast  # noqa: F401
from tapeviz.core.variable_policies import AggregationMethod, VariableAggregation, VariableSynchronization  # noqa: F401
from tapeviz.debugging import Assert, assert_equal, assert_greater, assert_less, assert_rank  # noqa: F401
from tapeviz.gradient_ops import grad_pass_through, hessians, no_gradient, recompute_grad  # noqa: F401
from tapeviz.host_ops import get_logger, timestamp  # noqa: F401
from tapeviz.histogram_ops import histogram_fixed_width, histogram_fixed_width_bins  # noqa: F401
from tapeviz.init_ops import *  # noqa: F401,F403
from tapeviz.partition_ops import dynamic_partition, dynamic_stitch  # noqa: F401
from tapeviz.sequence_ops import *  # noqa: F401,F403
from tapeviz.space_batch_ops import *  # noqa: F401,F403
from tapeviz.shape_ops import *  # noqa: F401,F403
from tapeviz.config import device  # noqa: F401
from tapeviz import events
from tapeviz.core import errors, nest
from tapeviz.core.dtypes import (  # noqa: F401
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tapeviz.core.primitives.array import *  # noqa: F401,F403
from tapeviz.array_ops import *  # noqa: F401,F403
from tapeviz.core.primitives.math import cast, identity, stop_gradient  # noqa: F401
from tapeviz.core.custom_gradient import custom_gradient  # noqa: F401
from tapeviz.core.control_flow import case, cond, switch_case, while_loop  # noqa: F401
from tapeviz.map_ops import foldl, foldr, map_fn, scan, vectorized_map  # noqa: F401
from tapeviz.tensor_array import TensorArray  # noqa: F401
from tapeviz import autograph  # noqa: E402,F401
from tapeviz.core.indexed_slices import IndexedSlices  # noqa: F401
from tapeviz.core.eager import executing_eagerly, function, gradients, init_scope, print, py_function  # noqa: F401
from tapeviz.core.scopes import name_scope  # noqa: F401
from tapeviz.core.tape import GradientTape, UnconnectedGradients  # noqa: F401
from tapeviz.core.tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor, is_tensor  # noqa: F401
from tapeviz.linalg import einsum, eye, matmul, tensordot  # noqa: F401
from tapeviz.math import *  # noqa: F401,F403

# tf.math names that TF 2.21 keeps out of the top level (tf.math.X only).
del polyval, xlog1py, reciprocal_no_nan, multiply_no_nan, softsign, rint, logical_xor, count_nonzero  # noqa: F821
del zero_fraction, is_non_decreasing, is_strictly_increasing, invert_permutation, accumulate_n  # noqa: F821
del cumulative_logsumexp  # noqa: F821
from tapeviz import data  # noqa: E402,F401
from tapeviz import ragged, sparse  # noqa: E402,F401
from tapeviz import experimental  # noqa: E402,F401
from tapeviz import distribute  # noqa: E402,F401
from tapeviz import types, version  # noqa: E402,F401
from tapeviz.ragged import RaggedTensor  # noqa: E402,F401
from tapeviz import io, strings  # noqa: E402,F401  (string tensors)
from tapeviz.strings import as_string  # noqa: E402,F401
from tapeviz.sparse import SparseTensor  # noqa: E402,F401
from tapeviz.core.tensor_spec import TensorSpec  # noqa: E402,F401
from tapeviz.module import Module  # noqa: E402,F401

__version__ = version.VERSION

# `import tapeviz.errors` / `from tapeviz.nest import flatten`, as the reference names them: both
# modules live in tapeviz.core, and these entries make the short paths importable too.
_sys.modules.setdefault(__name__ + ".errors", errors)
_sys.modules.setdefault(__name__ + ".nest", nest)

# The visualizer loads on first use, so `import tapeviz` stays light (no
# graphviz, ipywidgets or IPython): tapeviz.show(...) imports tapeviz.viz then.
_VIZ_NAMES = ("show", "explain", "find_nonfinite", "gradcheck", "viz")


def _draw(obj, include=None, exclude=None):
    """A tape ending a Jupyter cell draws itself; the visualizer is imported on that first draw."""
    import importlib

    viz_display = importlib.import_module("tapeviz.viz.display")
    return viz_display.mimebundle(obj, include=include, exclude=exclude)


_core.display.set_renderer(_draw)


# Loaded on first use, as TF loads tf.keras: Keras, what TF's top level takes from it, and the
# saving and summary stacks built on it. `import tapeviz` then costs 0.28 s instead of 0.50 s
# here for a program or lesson kernel that never trains a Keras model.
_ON_FIRST_USE = {
    "keras": "tapeviz.keras",
    "optimizers": "tapeviz.optimizers",
    "initializers": "tapeviz.keras.initializers",  # Keras's, as in TF 2.21
    "losses": "tapeviz.keras.losses",
    "metrics": "tapeviz.keras.metrics",
    "saved_model": "tapeviz.saved_model",
    "train": "tapeviz.train",
    "summary": "tapeviz.summary",
}

# Submodules the face imports for their side effects or to re-export from:
# reachable as attributes (Python sets them), but not advertised.
_LAYERS_BELOW = frozenset({"core", "backend", "array_ops", "module"})
__all__ = sorted({n for n in globals() if not n.startswith("_") and n not in _LAYERS_BELOW} | set(_ON_FIRST_USE))


def __dir__():
    return sorted([*__all__, *_VIZ_NAMES])


def __getattr__(name):
    if name in _ON_FIRST_USE:
        import importlib

        module = globals()[name] = importlib.import_module(_ON_FIRST_USE[name])
        return module
    if name in _VIZ_NAMES:
        import importlib

        viz = importlib.import_module("tapeviz.viz")
        return viz if name == "viz" else getattr(viz, name)
    if name.startswith("_"):  # Python's and tools' own probes (__path__, _ipython_canary...)
        raise AttributeError(f"module 'tapeviz' has no attribute {name!r}")
    raise AttributeError(
        f"module 'tapeviz' has no attribute {name!r}: tapeviz does not implement every TensorFlow API. "
        "What it has instead, and what is not available (tf.numpy_function, tf.lookup, "
        "tf.Graph...), is in the TF map: docs/tf-map.md, section 'Not available'."
    )


def _record_from_the_start():
    """In an IPython shell or Jupyter kernel, subscribe the visualizer's session recorder now, so
    ``tf.viz.player(tape)`` after ``tape.gradient`` has the sweep to play (issue 22). A plain
    script is untouched (IPython is never imported here). Off: ``TAPEVIZ_RECORD=0`` in the
    environment, or ``tapeviz.viz.stop_watching()``."""
    import os
    import sys

    shell = sys.modules.get("IPython")
    if shell is None or os.environ.get("TAPEVIZ_RECORD", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    get_ipython = getattr(shell, "get_ipython", None)
    if get_ipython is not None and get_ipython() is not None:
        import importlib

        importlib.import_module("tapeviz.viz")  # importing it subscribes the recorder


_record_from_the_start()
del _record_from_the_start
