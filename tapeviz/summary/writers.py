"""Summary writers and what decides a write: the default writer, ``record_if``'s condition, the step."""

import contextlib
import os
import threading
import time

from tapeviz.core.tensor import constant, to_array
from tapeviz.summary import experimental
from tapeviz.summary.protos import tensorboard_protos

_local = threading.local()  # the default writers and record_if conditions of this thread, innermost last

#: The error a summary written with no step gives (TF's words).
NO_STEP = (
    "No step set. Please specify one either through the `step` argument or through tf.summary.experimental.set_step()"
)


def _stack(name):
    if not hasattr(_local, name):
        setattr(_local, name, [])
    return getattr(_local, name)


# -- writers ------------------------------------------------------------------------------------


class SummaryWriter:
    """Where summaries go: make one with ``create_file_writer``, then write inside ``as_default()``."""

    _closed = False

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Make this the default writer inside the block (and ``step`` the default step); flush on leaving.

        Args:
            step: the default step inside the block (an int, or an int tensor or variable); None keeps the current.

        Returns:
            A context manager.

        Raises:
            RuntimeError: the writer is closed.
        """
        self._check_open()
        writers = _stack("writers")
        writers.append(self)
        previous = experimental.get_step()
        if step is not None:
            experimental.set_step(step)
        try:
            yield self
        finally:
            writers.pop()
            if step is not None:
                experimental.set_step(previous)
            self.flush()

    def set_as_default(self, step=None):
        """Make this the default writer from now on (and ``step`` the default step).

        Args:
            step: the default step from now on; None keeps the current.

        Raises:
            RuntimeError: the writer is closed.
        """
        self._check_open()
        writers = _stack("writers")
        writers[:] = [self]
        if step is not None:
            experimental.set_step(step)

    def init(self):
        """Open the writer's file (the writer opens it when made; kept for TF code)."""

    def flush(self):
        """Write out what is queued."""

    def close(self):
        """Flush and close; the writer cannot be made the default again."""
        self._closed = True

    def _check_open(self):
        if self._closed:
            raise RuntimeError("SummaryWriter is already closed")


class FileWriter(SummaryWriter):
    """A writer of one event file in ``logdir`` (TensorBoard's EventFileWriter); ``create_file_writer`` makes one."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self.protos = tensorboard_protos()  # TensorBoard's proto modules, for the summaries written here
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        self._writer = self.protos["writer"](
            self.logdir, max_queue_size=max_queue, flush_secs=flush_millis / 1000, filename_suffix=filename_suffix
        )

    def flush(self):
        """Write out what is queued."""
        if not self._closed:
            self._writer.flush()

    def close(self):
        """Flush and close the file; the writer cannot be made the default again."""
        if not self._closed:
            self._writer.close()
        self._closed = True

    def write_event(self, event_fields):
        """Queue an ``Event`` of these fields, stamped now; False (nothing written) once closed."""
        if self._closed:
            return False
        self._writer.add_event(self.protos["event"].Event(wall_time=time.time(), **event_fields))
        return True

    def __repr__(self):
        return f"<tf.summary.SummaryWriter logdir={self.logdir!r}{' (closed)' if self._closed else ''}>"


def create_file_writer(
    logdir,
    max_queue=None,
    flush_millis=None,
    filename_suffix=None,
    name=None,
    experimental_trackable=False,
    experimental_mesh=None,
):
    """A writer of an event file in ``logdir`` (made now, as TF's), for ``writer.as_default()``.

    Args:
        logdir: the folder (made if missing).
        max_queue: how many summaries to queue before writing (default 10).
        flush_millis: the longest time between writes to the file, in milliseconds (default 120,000).
        filename_suffix: appended to the event file's name (default ``.v2``, as TF).
        name, experimental_trackable, experimental_mesh: TF's; tapeviz accepts and ignores them.

    Returns:
        A ``SummaryWriter``.

    Raises:
        ImportError: the ``tensorboard`` package is not installed.
    """
    return FileWriter(
        logdir,
        10 if max_queue is None else int(max_queue),
        120_000 if flush_millis is None else float(flush_millis),
        ".v2" if filename_suffix is None else str(filename_suffix),
    )


def create_noop_writer():
    """A writer that writes nothing (code paths that take a writer, with summaries off).

    Returns:
        A ``SummaryWriter``.
    """
    return SummaryWriter()


def flush(writer=None, name=None):
    """Write out what the writer (default: the default writer) has queued.

    Args:
        writer: a SummaryWriter, or None for the default one.
        name: TF's op name; ignored.
    """
    writer = writer if writer is not None else default_writer()
    if writer is not None:
        writer.flush()


def default_writer():
    """The innermost default writer of this thread, or None."""
    writers = _stack("writers")
    return writers[-1] if writers else None


# -- recording conditions ---------------------------------------------------------------------


@contextlib.contextmanager
def record_if(condition):
    """Write summaries inside the block only while ``condition`` holds.

    Args:
        condition: a bool, a bool tensor, or a function returning one (called at each write, so
            ``lambda: step % 100 == 0`` follows the step).

    Returns:
        A context manager.
    """
    conditions = _stack("conditions")
    conditions.append(condition)
    try:
        yield
    finally:
        conditions.pop()


def current_condition():
    """The innermost ``record_if`` condition of this thread, or None (record always)."""
    conditions = _stack("conditions")
    return conditions[-1] if conditions else None


def holds(condition):
    """Whether a ``record_if`` condition holds now (a function is called, a tensor read)."""
    if callable(condition):
        condition = condition()
    return bool(to_array(condition)) if hasattr(condition, "dtype") else bool(condition)


def should_record_summaries():
    """Whether a summary written here would be recorded: a default writer, and ``record_if``'s condition.

    Returns:
        A bool tensor.
    """
    conditions = _stack("conditions")
    return constant(default_writer() is not None and (not conditions or holds(conditions[-1])))


# -- the step -------------------------------------------------------------------------------------


def step_value(step):
    """``step`` (else the default step) as an int; ValueError when neither is set."""
    if step is None:
        step = experimental.get_step()
    if step is None:
        raise ValueError(NO_STEP)
    return int(to_array(step)) if hasattr(step, "dtype") else int(step)
