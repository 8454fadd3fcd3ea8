"""The primitive ops, by family. Composite ops (softmax, losses...) live in the
TF namespaces (tapeviz.math, tapeviz.nn...) and are built from these."""

from tapeviz.core.primitives import array, complex, conv, decompositions, image, linalg, math, nn, scatter, sorting  # noqa: F401  (registers them)
