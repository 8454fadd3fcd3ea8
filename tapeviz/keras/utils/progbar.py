"""A Keras-like text progress bar for ``fit``, ``evaluate`` and ``predict``.

Plain text with carriage returns, so it works in terminals and notebooks
alike and needs no extra package.
"""

import logging
import re
import sys
import time

from tapeviz.keras import config


class _LoggingStream:
    """Where progress goes after ``keras.config.disable_interactive_logging()``: each finished line, as it
    last read (a bar's redraws behind ``\\r`` are dropped), to the ``keras`` logger at level INFO."""

    def __init__(self):
        self._line = ""

    def write(self, text):
        for piece in re.split(r"(\n)", text):
            if piece == "\n":
                logging.getLogger("keras").info(self._line.rsplit("\r", 1)[-1])
                self._line = ""
            else:
                self._line += piece

    def flush(self):
        pass


def output_stream():
    """Standard output while interactive logging is on (Keras's default), else the ``keras`` logger."""
    return sys.stdout if config.is_interactive_logging_enabled() else _LoggingStream()


def print_message(*values):
    """``print`` for what training says (epochs, callbacks' notes): where ``output_stream()`` sends it."""
    print(*values, file=output_stream())


def format_logs(logs):
    """Keras 3's ` - name: value` list: names sorted, 4 decimals, or 4 significant digits below 1e-3."""
    return "".join(f" - {key}: {_number(logs[key])}" for key in sorted(logs))


def _number(value):
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def per_step(elapsed, steps):
    """Keras's time per step: '2s/step', '469ms/step' or '85us/step'."""
    seconds = elapsed / max(steps, 1)
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


def summary_line(step, target, elapsed, logs=None):
    """``verbose=2``'s one line, as Keras 3 prints it: '2/2 - 0s - 50ms/step - accuracy: 0.9000 - loss: 0.3000'."""
    return f"{step}/{target or step} - {elapsed:.0f}s - {per_step(elapsed, step)}" + format_logs(logs or {})


class Progbar:
    """``update(step, logs)`` redraws at most every ``interval`` seconds; ``finish(logs)`` ends the line."""

    def __init__(self, target, width=20, interval=0.1, stream=None):
        self.target = target
        self.width = width
        self.interval = interval
        self.stream = stream or output_stream()
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
        self.stream.write("\r" + self._bar(step) + format_logs(logs or {}))
        self.stream.flush()

    def finish(self, step, logs=None):
        elapsed = time.perf_counter() - self.start
        self.stream.write(
            "\r" + self._bar(step) + f" - {elapsed:.0f}s {per_step(elapsed, step)}" + format_logs(logs or {}) + "\n"
        )
        self.stream.flush()
