"""The families of primitives that others call upward, as namespaces of their ops, filled when each loads: how code reaches
the ops of a family that loads after it.

The families depend on each other through their gradient rules, not their
kernels: the rule of ``broadcast_to`` (array) sums the upstream with
``reduce_sum`` (math), whose rule broadcasts it back with ``broadcast_to``.
Imports both ways would be a circle, so a family imports the families below
it (array < complex < math < linalg < solvers < decompositions, and nn,
scatter, conv... above those) and reaches the ones above through these
namespaces: ``from tapeviz.core.families import math as m``, then
``m.reduce_sum(...)`` inside the rule. The face of each family fills its
namespace with its public names as its last step
(``primitives/math/__init__.py``). A rule runs in a sweep, after every family
has loaded; a lookup here costs what a module attribute does.
"""

import types


class Family:
    """The public ops of one family of primitives, by name (filled by ``publish``)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):  # only for a name not (yet) published
        raise AttributeError(
            f"tapeviz.core.primitives.{self._name} has no op {name!r} here (yet): a family fills this "
            "namespace once it has loaded, so code that runs while the primitives load cannot call it."
        )

    def __repr__(self):
        return f"<ops of tapeviz.core.primitives.{self._name}: {len(vars(self)) - 1} names>"


array = Family("array")  # tapeviz.core.primitives.array: constants, indexing, shapes
math = Family("math")  # tapeviz.core.primitives.math: arithmetic, comparisons, elementary, reductions
complex_numbers = Family("complex")  # tapeviz.core.primitives.complex: conj, real, imag, angle (transpose conjugates)


def publish(family, names):
    """Fill ``family`` with the public, non-module values of ``names`` (a face's ``globals()``)."""
    vars(family).update(
        (name, value)
        for name, value in names.items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    )
