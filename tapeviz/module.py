"""``tf.Module``: a named container that finds the variables and modules held in its attributes.

As in TF 2: a module's ``name`` defaults to its class name in snake case and
must be a Python identifier; ``name_scope`` is the ``tf.name_scope`` of that
name (nested inside the scope active when the module was created), entered by
methods decorated with ``@tf.Module.with_name_scope``. ``variables``,
``trainable_variables``, ``non_trainable_variables`` and ``submodules`` walk
the attributes in sorted order, through lists, tuples and dicts (dicts by
sorted key), taking each object once: the module's own first, then each
submodule's, in TF's order.

Keras layers are not Modules (as in TF 2.16+, where Keras 3 layers are not
``tf.Module``): a Keras layer held by a Module is not walked.
"""

import functools
import re

from tapeviz.core import nest, pending_restores, state
from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import Variable

__all__ = ["Module"]

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_IGNORED = frozenset(("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names"))


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class _ScopePath(name_scope):
    """A name scope entered at an absolute path ('outer/inner'), as a module's ``name_scope`` is."""

    def __init__(self, path):
        super().__init__(path.rstrip("/").split("/")[-1])
        self._path = path.rstrip("/").split("/")
        self._name = path  # TF's module scope is named by its full path: 'outer/module/'

    def __enter__(self):
        self._saved = list(state.local.scopes)
        state.local.scopes[:] = self._path
        return "/".join(self._path) + "/"

    def __exit__(self, *exc_info):
        state.local.scopes[:] = self._saved
        return False


class Module(RecordsInit):
    """Base class for a model built of variables and other modules, as ``tf.Module``.

    Args:
        name: the module's name, a Python identifier (the snake-case class name when None).

    Raises:
        ValueError: a name that is not a valid Python identifier.

    Example:
        >>> import tapeviz as tf
        >>> class Line(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(2.0)
        ...         self.b = tf.Variable(1.0)
        ...     def __call__(self, x):
        ...         return self.w * x + self.b
        >>> line = Line()
        >>> float(line(3.0)), len(line.trainable_variables), line.name
        (7.0, 2, 'line')
    """

    _TF_MODULE_IGNORED_PROPERTIES = _IGNORED

    def __init__(self, name=None):
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_NAME.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                "(e.g. a valid class name)."
            )
        self._name = name
        outer = list(state.local.scopes)
        self._scope_path = "/".join(outer + [name]) + "/"

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        pending_restores.notify(self)  # a checkpoint restored before this attribute existed fills it now

    @property
    def name(self):
        """The module's name (not unique: two modules may share one, as in TF 2)."""
        return self._name

    @property
    def name_scope(self):
        """The ``tf.name_scope`` of this module: ``with self.name_scope:`` labels the ops inside it."""
        return _ScopePath(self._scope_path)

    @property
    def variables(self):
        """Every Variable held by this module or its submodules (each once), as a tuple."""
        return tuple(_flatten(self, lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self):
        """The trainable ones among ``variables``."""
        return tuple(_flatten(self, lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(_flatten(self, lambda v: isinstance(v, Variable) and not v.trainable))

    @property
    def submodules(self):
        """Every Module held by this one, directly or through other modules, as a tuple."""
        return tuple(_flatten(self, lambda v: isinstance(v, Module)))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside ``self.name_scope``.

        Args:
            method: a method of a Module subclass.

        Returns:
            The method, wrapped.
        """

        @functools.wraps(method)
        def scoped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return scoped


def _leaves(value):
    """The leaves of an attribute's value, through lists, tuples and dicts (sorted keys), as tf.nest flattens."""
    if isinstance(value, (list, tuple, dict)):
        try:
            return nest.flatten(value)
        except TypeError:
            return list(value.values()) if isinstance(value, dict) else list(value)
    return [value]


def _flatten(module, predicate, seen=None, stack=None):
    """TF's walk: the module's attributes (sorted) first, then each submodule's, each object once."""
    seen = {id(module)} if seen is None else seen
    stack = [] if stack is None else stack
    recursive = id(module) not in stack
    submodules = []
    for key in sorted(vars(module)):
        if key in _IGNORED:
            continue
        for leaf in _leaves(vars(module)[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if recursive and isinstance(leaf, Module):
                submodules.append(leaf)
    stack.append(id(module))
    for submodule in submodules:
        yield from _flatten(submodule, predicate, seen, stack)
    stack.pop()
