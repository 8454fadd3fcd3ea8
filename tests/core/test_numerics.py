"""inf and nan arrive silently, as in TF; the user's own NumPy code still warns."""

import subprocess
import sys

SCRIPT = r"""
import warnings
import numpy as np
import tapeviz as tf
import tapeviz.core

warnings.simplefilter("error")  # every warning becomes an error...
tapeviz.core.quiet_numpy_warnings()  # ...except what the package silences at import

x = tf.constant([0.0, 1.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.log(x) * 0.0 + x / 0.0 + tf.sqrt(-x)
assert np.isnan(tape.gradient(y, x).numpy()[0])
try:
    np.log(np.zeros(1))
except RuntimeWarning:
    print("user code still warns")
"""


def test_tapeviz_ops_do_not_warn_but_user_numpy_does():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "user code still warns"
