"""The object graph a checkpoint saves: which objects hold which variables, under which names.

As in TensorFlow, a checkpoint names each variable by the path of
attributes that reaches it from the root (``net/l1/kernel``), walked
breadth-first so an object reached twice is saved once, under its shortest
path. A ``tf.Module`` or a ``tf.train.Checkpoint`` contributes the
attributes it holds; a Keras layer its attributes (its weights by attribute
name, nested layers also under ``_layers/<i>``, weights held by no attribute
under ``_weights/<i>``); a Keras optimizer ``_iterations``,
``_learning_rate`` and its slots as ``_variables/<i>`` (their index in
``optimizer.variables``, as Keras 3 numbers them); a ``tf.random.Generator`` its state
as ``_state_var``; lists, tuples and dicts their items by index or key.
"""

import collections

from tapeviz.core.random_generator import Generator
from tapeviz.core.tensor import Variable
from tapeviz.data.dataset import Iterator as DataIterator
from tapeviz.keras.layers.base import Layer
from tapeviz.keras.optimizers.base import Optimizer
from tapeviz.module import Module

__all__ = ["VALUE_SUFFIX", "children", "escape", "is_trackable", "variables_by_key", "hookable"]

# The attribute of a variable node that holds its value: TF's key suffix.
VALUE_SUFFIX = ".ATTRIBUTES/VARIABLE_VALUE"

# A Keras layer's bookkeeping, never saved as dependencies (the model's optimizer is saved only when named).
_LAYER_BOOKKEEPING = frozenset(
    ("_layers", "_own_weights", "_losses", "_weight_regularizers", "optimizer", "compiled_metrics", "compiled_loss")
)
_MODULE_IGNORED = frozenset(("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names"))


class Root:
    """Marker base of ``tf.train.Checkpoint``: its tracked attributes are its children."""

    def _checkpoint_children(self):
        raise NotImplementedError


def escape(name):
    """TF's escaping of one path component: '.' becomes '..' and '/' becomes '.S'."""
    return name.replace(".", "..").replace("/", ".S")


def hookable(obj):
    """Objects that report new attributes to ``pending_restores`` (so values can wait for them)."""
    return isinstance(obj, (Module, Layer, Optimizer, Root))


def is_trackable(value):
    """Whether a checkpoint saves ``value`` (or something inside it)."""
    if isinstance(value, (Variable, Module, Layer, Optimizer, Root, DataIterator, Generator)):
        return True
    if isinstance(value, (list, tuple)):
        return any(is_trackable(item) for item in value)
    if isinstance(value, dict):
        return any(isinstance(key, str) and is_trackable(item) for key, item in value.items())
    return False


def children(obj):
    """``(escaped name, child)`` for each trackable child of ``obj``, in a fixed order."""
    if isinstance(obj, Root):
        pairs = obj._checkpoint_children()
    elif isinstance(obj, Optimizer):
        pairs = _optimizer_children(obj)
    elif isinstance(obj, Generator):
        pairs = [("_state_var", obj.state)]  # TF's name for the state variable
    elif isinstance(obj, DataIterator):
        pairs = [("_position", obj._checkpoint_position())]  # how many elements were taken
    elif isinstance(obj, Layer):
        pairs = _layer_children(obj)
    elif isinstance(obj, Module):
        pairs = [(k, v) for k, v in vars(obj).items() if k not in _MODULE_IGNORED]
    elif isinstance(obj, (list, tuple)):
        pairs = [(str(i), item) for i, item in enumerate(obj)]
    elif isinstance(obj, dict):
        pairs = [(key, item) for key, item in obj.items() if isinstance(key, str)]
    else:
        pairs = []
    return [(escape(name), child) for name, child in pairs if is_trackable(child)]


def _layer_children(layer):
    pairs = [(k, v) for k, v in vars(layer).items() if k not in _LAYER_BOOKKEEPING and not k.startswith("__")]
    pairs.append(("_layers", list(layer._layers)))
    named = {id(v) for _, v in pairs if isinstance(v, Variable)}
    pairs.append(("_weights", {str(i): w for i, w in enumerate(layer._own_weights) if id(w) not in named}))
    return pairs


def _optimizer_children(optimizer):
    own = [("_iterations", optimizer.iterations)]
    if isinstance(optimizer._learning_rate, Variable):
        own.append(("_learning_rate", optimizer._learning_rate))
    first = {id(v) for _, v in own}
    slots = {str(i): v for i, v in enumerate(optimizer.variables) if id(v) not in first}
    return own + [("_variables", slots)]


def variables_by_key(root, aliases=None):
    """``{checkpoint key: Variable}`` for every variable reachable from ``root``, breadth-first, each once.

    ``aliases``, a dict, receives ``{other path: key}`` for variables reached by more than one path (TF
    keeps every edge of its object graph, so a restore may reach a variable by either).
    """
    found = {}
    key_of = {}  # id(variable) -> its key
    seen = {id(root)}
    queue = collections.deque([("", root)])
    while queue:
        path, obj = queue.popleft()
        for name, child in children(obj):
            child_path = f"{path}{name}/"
            if not isinstance(child, (list, tuple, dict)):  # containers may be made on the fly: their ids repeat
                if id(child) in seen:
                    if aliases is not None and id(child) in key_of:
                        aliases.setdefault(child_path + VALUE_SUFFIX, key_of[id(child)])
                    continue
                seen.add(id(child))
            if isinstance(child, Variable):
                found[child_path + VALUE_SUFFIX] = child
                key_of[id(child)] = child_path + VALUE_SUFFIX
            else:
                queue.append((child_path, child))
    return found
