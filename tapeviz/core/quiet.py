"""Kernels never warn: inf and nan arrive silently, as in TF.

The package installs a warnings filter for its own modules at import
(``tapeviz.core.quiet_numpy_warnings``), which costs nothing per op. A filter
the user adds later (``warnings.simplefilter("error")``, ``pytest -W error``)
comes first and would turn NumPy's floating-point RuntimeWarning into an
exception inside a kernel. The op then runs its kernel again here, with
NumPy's floating-point reporting off (thread-safe: ``np.errstate`` is
per-context), so only that rare path pays for ``errstate``.
"""

from tapeviz import backend as B


def run_quietly(kernel, arrays, attrs=None):
    """``kernel(*arrays, **attrs)`` with floating-point warnings off (inf/nan come back silently)."""
    with B.xp.errstate(all="ignore"):
        return kernel(*arrays, **attrs) if attrs else kernel(*arrays)
