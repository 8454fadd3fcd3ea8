"""A Keras-like text progress bar for ``fit``, ``evaluate`` and ``predict``.

Plain text with carriage returns, so it works in terminals and notebooks
alike and needs no extra package.
"""

import sys
import time


def _format(logs):
    return "".join(f" - {key}: {value:.4f}" for key, value in logs.items())


class Progbar:
    """``update(step, logs)`` redraws at most every ``interval`` seconds; ``finish(logs)`` ends the line."""

    def __init__(self, target, width=20, interval=0.1, stream=None):
        self.target = target
        self.width = width
        self.interval = interval
        self.stream = stream or sys.stdout
        self.start = time.perf_counter()
        self._last = 0.0

    def _bar(self, step):
        if not self.target:
            return f"{step}/Unknown"
        done = int(self.width * step / self.target)
        return (
            f"{step}/{self.target} ["
            + "=" * max(done - 1, 0)
            + (">" if 0 < done < self.width else "=" if done else "")
            + "." * (self.width - done)
            + "]"
        )

    def update(self, step, logs=None):
        now = time.perf_counter()
        if now - self._last < self.interval:
            return
        self._last = now
        self.stream.write("\r" + self._bar(step) + _format(logs or {}))
        self.stream.flush()

    def finish(self, step, logs=None):
        elapsed = time.perf_counter() - self.start
        per_step = 1000 * elapsed / max(step, 1)
        self.stream.write(
            "\r" + self._bar(step) + f" - {elapsed:.0f}s {per_step:.0f}ms/step" + _format(logs or {}) + "\n"
        )
        self.stream.flush()
