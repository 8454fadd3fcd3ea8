"""TensorFlow's numbers for tests/tf_reference/conv_cases.py (runs only with TF; imports nothing from tapeviz).

    /tmp/tfenv/bin/python tests/tf_reference/conv_reference.py > tests/tf_reference/conv_values.py
    ruff format tests/tf_reference/conv_values.py

TF 2.21 (CPU) differentiates dilated convolutions through tf.nn.convolution
(its Conv2D kernels refuse dilated backprops and NCHW on the CPU), so the
cases use it; tapeviz's NCHW results are compared with these NHWC numbers
transposed.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conv_cases  # noqa: E402
import tensorflow as tf  # noqa: E402

print(f'"""Output of conv_reference.py: TF {tf.__version__} (CPU). Data only."""\n')
print("VALUES = {")
for name in conv_cases.CASES:
    print(f"    {name!r}: {conv_cases.run(tf, name)!r},")
print("}")
