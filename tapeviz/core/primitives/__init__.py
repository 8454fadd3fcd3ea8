"""The primitive ops, by family. Composite ops (softmax, losses...) live in the
TF namespaces (tapeviz.math, tapeviz.nn...) and are built from these.

A family is a module of a few related ops, each kernel followed by its
gradient rule (``sin = unary(...)``, then ``_unary(sin, ...)`` or
``@defgrad(sin, ...)``), so one screen shows both; the rule table itself is
:mod:`tapeviz.core.rules`. Importing this package fills that table. A family
imports the families below it (array < complex < math < linalg < solvers <
decompositions, the others above); a rule that calls a family loading after
its own reaches it through :mod:`tapeviz.core.families` (``m.reduce_sum``).
"""

from tapeviz.core.primitives import (  # noqa: F401  (registers them and their rules)
    array,
    bitwise,
    complex,
    conv,
    decompositions,
    image,
    linalg,
    math,
    nn,
    numerics,
    scatter,
    solvers,
    sorting,
)
