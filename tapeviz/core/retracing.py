"""TF's warning when a ``tf.function`` traces on too many of its recent calls.

As TF 2.21 (``polymorphic_function._FrequentTracingDetector``): of a
function's last calls (those within the last 10), when 5 or more traced, the
call that traced warns, at most twice in the process for one Python function.
The count is kept per code object, so a ``tf.function`` made again in a loop
around the same ``def`` counts as one. The text is TF's; it goes to the
``tapeviz`` logger (TF's goes to the ``tensorflow`` one).
"""

import logging
import threading
import weakref

MAX_CALL_HISTORY = 10
THRESHOLD = 5
MAX_WARNINGS = 2

logger = logging.getLogger("tapeviz")


def message(traced, calls, function):
    """TF's warning text (its doubled space before "more details" included)."""
    return (
        f"{traced} out of the last {calls} calls to {function!r} triggered tf.function retracing. Tracing is "
        "expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in "
        "a loop, (2) passing tensors with different shapes, (3) passing Python objects instead of tensors. For "
        "(1), please define your @tf.function outside of the loop. For (2), @tf.function has "
        "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
        "https://www.tensorflow.org/guide/function#controlling_retracing and "
        "https://www.tensorflow.org/api_docs/python/tf/function for  more details."
    )


class _Detector:
    """One Python function's recent calls: how many replays followed each trace."""

    __slots__ = ("calls_per_trace", "calls", "warnings")

    def __init__(self):
        self.calls_per_trace = []  # one entry per trace still in the window: 1 + the replays after it
        self.calls = 0  # calls in the window
        self.warnings = 0

    def traced(self, function):
        """Count a call that traced; returns the warning's text when it is due, else None."""
        self.calls += 1
        self.calls_per_trace.append(1)
        while self.calls_per_trace and self.calls - self.calls_per_trace[0] > MAX_CALL_HISTORY:
            self.calls -= self.calls_per_trace.pop(0)
        if self.warnings < MAX_WARNINGS and len(self.calls_per_trace) >= THRESHOLD:
            self.warnings += 1
            return message(len(self.calls_per_trace), self.calls, function)
        return None

    def replayed(self):
        if not self.calls_per_trace:  # a first call that found a trace made by get_concrete_function
            self.calls_per_trace.append(0)
        self.calls_per_trace[-1] += 1
        self.calls += 1


_detectors = weakref.WeakKeyDictionary()  # code object (or the function) -> _Detector
_lock = threading.Lock()


def _key(python_function):
    """TF's key: the code object under any ``functools.wraps`` layers and bound methods."""
    target = python_function
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", python_function)


def count_call(python_function, traced):
    """Count one eager call of ``python_function``'s tf.function; ``traced``: did it trace."""
    key = _key(python_function)
    warning = None
    with _lock:
        detector = _detectors.get(key)
        if detector is None:
            try:
                detector = _detectors[key] = _Detector()
            except TypeError:  # an object without weak references: not counted
                return
        if traced:
            warning = detector.traced(python_function)
        else:
            detector.replayed()
    if warning is not None:  # logged after the lock: a handler may run anything
        logger.warning(warning)
