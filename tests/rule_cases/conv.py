"""Cases for the convolution and pooling rules.

Pooling inputs are a permutation of distinct values, so no window has a tie
(finite differences cannot see TF's first-max convention; test_keras_conv
checks it directly).
"""

import numpy as np

from tapeviz.core.primitives import conv as c
from tests.rule_cases import Case, rand


def _distinct(*shape, seed=0):
    """Distinct values, well apart (0.1 steps), shuffled: no ties within a finite-difference step."""
    count = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(count).reshape(shape) * 0.1


_POOL = {"ksize": (2, 2), "strides": (1, 2), "padding": "SAME"}

CASES = {
    "Conv2D": Case(lambda x, w: c.conv2d(x, w, strides=(2, 1), padding="SAME"), [rand(2, 5, 4, 2), rand(3, 2, 2, 3)]),
    "Conv2DBackpropInput": Case(
        lambda g, w: c.conv2d_backprop_input((1, 4, 5, 2), w, g, (1, 2), "SAME"), [rand(1, 4, 3, 3), rand(2, 3, 2, 3)]
    ),
    "Conv2DBackpropFilter": Case(
        lambda x, g: c.conv2d_backprop_filter(x, (3, 2, 2, 2), g, (1, 1), "VALID"), [rand(2, 4, 4, 2), rand(2, 2, 3, 2)]
    ),
    # Overlapping windows (stride 1 down the rows) and SAME padding: the general path.
    "MaxPool": Case(lambda x: c.max_pool2d(x, 2, (1, 2), "SAME") ** 2, [_distinct(2, 3, 5, 2)]),
    "MaxPoolGrad": Case(
        lambda x, g: c.max_pool_grad(x, g * g, _POOL),
        [_distinct(1, 3, 4, 2), rand(1, 3, 2, 2)],
        wrt=(1,),
        notes="piecewise constant in x: its gradient there is zero, as in TF",
    ),
    "MaxPoolGradGrad": Case(
        lambda x, h: c.max_pool_grad_grad(x, h * h, _POOL),
        [_distinct(1, 3, 4, 2), rand(1, 3, 4, 2)],
        wrt=(1,),
        notes="piecewise constant in x: its gradient there is zero, as in TF",
    ),
}

# Average pooling is linear: 'SAME' padding with overlapping windows exercises the border counts.
CASES["AvgPool"] = Case(lambda x: c.avg_pool2d(x, (2, 3), (1, 2), "SAME") ** 2, [rand(2, 3, 5, 2)])
CASES["AvgPoolGrad"] = Case(
    lambda g: c.avg_pool_grad((1, 4, 5, 2), g * g, {"ksize": (3, 2), "strides": (2, 1), "padding": "SAME"}),
    [rand(1, 2, 5, 2)],
)

# More cases of the convolution rules, for the geometry the cases above do not
# reach: dilations, NCHW (transposes around the NHWC kernels), the transposed
# convolution as tf.nn.conv2d_transpose calls it, and the narrow-output path
# (one output channel over many inputs). tests/core/primitives/conv/test_convolution.py runs them to the
# second order, as tests/core/test_rules.py runs CASES.
VARIANTS = {
    "Conv2D dilated SAME": Case(
        lambda x, w: c.conv2d(x, w, 1, "SAME", dilations=(2, 3)), [rand(1, 6, 7, 2), rand(2, 2, 2, 3)]
    ),
    "Conv2D dilated and strided": Case(
        lambda x, w: c.conv2d(x, w, (2, 1), "VALID", dilations=(1, 2)), [rand(2, 6, 7, 2), rand(2, 3, 2, 2)]
    ),
    "Conv2D NCHW": Case(
        lambda x, w: c.conv2d(x, w, [1, 1, 2, 1], "SAME", data_format="NCHW"), [rand(2, 3, 5, 4), rand(2, 3, 3, 2)]
    ),
    "Conv2D NCHW dilated": Case(
        lambda x, w: c.conv2d(x, w, 1, "VALID", data_format="NCHW", dilations=[1, 1, 2, 1]),
        [rand(1, 2, 6, 5), rand(2, 2, 2, 3)],
    ),
    "Conv2D narrow output": Case(
        lambda x, w: c.conv2d(x, w, 1, "SAME", dilations=(1, 2)), [rand(1, 4, 5, 10), rand(3, 3, 10, 1)]
    ),
    "Conv2DBackpropInput dilated": Case(
        lambda g, w: c.conv2d_backprop_input((1, 6, 5, 2), w, g, 1, "SAME", dilations=(2, 1)),
        [rand(1, 6, 5, 3), rand(2, 3, 2, 3)],
    ),
    "Conv2DBackpropInput NCHW": Case(
        lambda g, w: c.conv2d_backprop_input((1, 2, 5, 4), w, g, (2, 1), "SAME", data_format="NCHW"),
        [rand(1, 3, 3, 4), rand(3, 2, 2, 3)],
    ),
    "Conv2DBackpropInput narrow upstream": Case(
        lambda g, w: c.conv2d_backprop_input((1, 4, 5, 9), w, g, 1, "SAME"), [rand(1, 4, 5, 1), rand(3, 3, 9, 1)]
    ),
    "Conv2DBackpropFilter dilated": Case(
        lambda x, g: c.conv2d_backprop_filter(x, (2, 2, 2, 3), g, 1, "VALID", dilations=(2, 2)),
        [rand(1, 5, 6, 2), rand(1, 3, 4, 3)],
    ),
    "Conv2DBackpropFilter NCHW": Case(
        lambda x, g: c.conv2d_backprop_filter(x, (3, 2, 2, 2), g, (1, 2), "SAME", data_format="NCHW"),
        [rand(1, 2, 4, 5), rand(1, 2, 4, 3)],
    ),
    "Conv2DBackpropFilter narrow upstream": Case(
        lambda x, g: c.conv2d_backprop_filter(x, (3, 3, 9, 1), g, 1, "SAME"), [rand(1, 4, 5, 9), rand(1, 4, 5, 1)]
    ),
}
