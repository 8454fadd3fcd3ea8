"""2-D convolution, max and average pooling, NHWC.

The convolution is im2col: gather every kernel-sized window of the (padded)
input into one matrix, then do a single matrix product with the filter.
The gather is a loop over the kernel's kh*kw offsets, each one a strided
slice, so it works on NumPy and CuPy alike and never loops over pixels.

Eight primitives, as in TensorFlow, so that every rule is written in tapeviz
ops and second derivatives exist (each kernel's rule sits below it):

- ``Conv2D(x, w)``                      the forward convolution;
- ``Conv2DBackpropInput(g, w)``         its gradient with respect to x;
- ``Conv2DBackpropFilter(x, g)``        its gradient with respect to w;
- ``MaxPool(x)``                        the forward pooling;
- ``MaxPoolGrad(x, g)`` / ``MaxPoolGradGrad(x, h)``  its gradient and that
  gradient's own gradient (routing to / picking from the window's first max);
- ``AvgPool(x)`` / ``AvgPoolGrad(g)``   average pooling and its gradient (each
  the other's transpose: both linear).

A transposed convolution (``conv2d_transpose``, Keras's Conv2DTranspose) is
``Conv2DBackpropInput`` itself, as in TF.
"""

from tapeviz.core.primitives.conv.convolution import (
    CONV2D,
    CONV2D_BACKPROP_FILTER,
    CONV2D_BACKPROP_INPUT,
    conv2d,
    conv2d_backprop_filter,
    conv2d_backprop_input,
)
from tapeviz.core.primitives.conv.layout import geometry
from tapeviz.core.primitives.conv.pooling import (
    AVG_POOL,
    AVG_POOL_GRAD,
    MAX_POOL,
    MAX_POOL_GRAD,
    MAX_POOL_GRAD_GRAD,
    avg_pool2d,
    avg_pool_grad,
    max_pool2d,
    max_pool_grad,
    max_pool_grad_grad,
)

__all__ = [
    "CONV2D",
    "CONV2D_BACKPROP_FILTER",
    "CONV2D_BACKPROP_INPUT",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "AVG_POOL",
    "AVG_POOL_GRAD",
    "MAX_POOL",
    "MAX_POOL_GRAD",
    "MAX_POOL_GRAD_GRAD",
    "avg_pool2d",
    "avg_pool_grad",
    "max_pool2d",
    "max_pool_grad",
    "max_pool_grad_grad",
    "geometry",
]
