"""Cases for the resize rules (the kernels directly: tf.image.resize casts to float32)."""

from tapeviz.core.primitives.image import resize_bilinear, resize_bilinear_grad, resize_nearest, resize_nearest_grad
from tests.rule_cases import Case, rand

CASES = {
    # Up in height, down in width: both the interpolating and the skipping paths.
    "ResizeBilinear": Case(lambda x: resize_bilinear(x * x, (5, 2)), [rand(2, 3, 4, 2)]),
    "ResizeBilinearGrad": Case(lambda g: resize_bilinear_grad(g * g, (2, 3, 4, 2)), [rand(2, 5, 2, 2)]),
    "ResizeNearestNeighbor": Case(lambda x: resize_nearest(x * x, (5, 2)), [rand(2, 3, 4, 2)]),
    "ResizeNearestNeighborGrad": Case(lambda g: resize_nearest_grad(g * g, (2, 3, 4, 2)), [rand(2, 5, 2, 2)]),
}
