"""The primitive ops, by family. Composite ops (softmax, losses...) live in the
TF namespaces (tapeviz.math, tapeviz.nn...) and are built from these."""

from tapeviz.core.primitives import (  # noqa: F401  (registers them and their rules)
    array,
    complex,
    conv,
    decompositions,
    image,
    linalg,
    math,
    nn,
    scatter,
    solvers,
    sorting,
)
