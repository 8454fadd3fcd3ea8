"""The autodiff core: tensors, primitives, the rules table, tapes and events.

Import order matters only here: tensors first, then the primitives (as they
load they bind Tensor's operators and fill core.families), primitives before
the rules table, the rules before the tape.
"""

import warnings


def quiet_numpy_warnings():
    """Silence NumPy's floating-point RuntimeWarnings raised inside tapeviz kernels.

    TF returns inf and nan silently (log(0) = -inf, 0 * inf = nan), and so do
    we. A filter scoped to our modules costs nothing per op, unlike
    ``np.errstate``, and leaves the user's own NumPy code warning as before.
    """
    warnings.filterwarnings(
        "ignore",
        message=r"(divide by zero|invalid value|overflow|underflow) encountered",
        category=RuntimeWarning,
        module=r"tapeviz\.(core|backend)\b",  # backend: its reductions, and the strict backend's kernels
    )


quiet_numpy_warnings()

from tapeviz.core import tensor  # noqa: E402,F401
from tapeviz.core import primitives  # noqa: E402,F401
from tapeviz.core import rules  # noqa: E402,F401  (the primitives above filled its table)
from tapeviz.core import tape  # noqa: E402,F401
from tapeviz.core import custom_gradient  # noqa: E402,F401  (registers its rule)
