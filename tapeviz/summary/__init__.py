"""``tf.summary``: scalars, histograms, text, images and traced graphs, as event files TensorBoard reads.

The files are written by TensorBoard's own writer (the ``tensorboard``
package's ``EventFileWriter``, as ``keras.callbacks.TensorBoard``), with the
tensors and plugin names TF 2.21 writes, so ``tensorboard --logdir`` shows
them as it shows TF's. Install it with ``pip install tensorboard`` (also in
``tapeviz[tensorboard]``).

As in TF, a summary is written only inside ``writer.as_default()`` (or after
``writer.set_as_default()``) and while ``record_if``'s condition holds; its
step is the ``step`` argument, else the one ``as_default(step)`` or
``experimental.set_step`` set. Inside a ``tf.function`` each write runs on
every call (a stateful host call), with its step and condition read then.
"""

import contextlib
import os
import struct
import threading
import time
import warnings
import zlib

import numpy as np

from tapeviz.core import function as _function
from tapeviz.core.tensor import constant, to_array
from tapeviz.core.tracing import host_call
from tapeviz.keras.callbacks.tensorboard import histogram_buckets
from tapeviz.summary import experimental

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "trace_export",
    "trace_off",
    "trace_on",
    "write",
]

_local = threading.local()  # the default writers and record_if conditions of this thread, innermost last
_NO_STEP = (
    "No step set. Please specify one either through the `step` argument or through tf.summary.experimental.set_step()"
)


def _protos():
    """TensorBoard's writer and protocol buffers (a clear error without the package)."""
    try:
        from tensorboard.compat.proto import (
            config_pb2,
            event_pb2,
            graph_pb2,
            node_def_pb2,
            summary_pb2,
            tensor_pb2,
            tensor_shape_pb2,
            types_pb2,
        )
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise ImportError(
            "tf.summary writes its files with the `tensorboard` package, which is not installed. "
            "Install it: pip install tensorboard (or pip install 'tapeviz[tensorboard]')."
        ) from None
    return {
        "writer": EventFileWriter,
        "config": config_pb2,
        "event": event_pb2,
        "graph": graph_pb2,
        "node": node_def_pb2,
        "summary": summary_pb2,
        "tensor": tensor_pb2,
        "shape": tensor_shape_pb2,
        "types": types_pb2,
    }


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


class _FileWriter(SummaryWriter):
    """A writer of one event file in ``logdir`` (TensorBoard's EventFileWriter)."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._protos = _protos()
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        self._writer = self._protos["writer"](
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

    def _write_event(self, event_fields):
        if self._closed:
            return False
        self._writer.add_event(self._protos["event"].Event(wall_time=time.time(), **event_fields))
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
    return _FileWriter(
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
    writer = writer if writer is not None else _default_writer()
    if writer is not None:
        writer.flush()


def _default_writer():
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


def _holds(condition):
    if callable(condition):
        condition = condition()
    return bool(to_array(condition)) if hasattr(condition, "dtype") else bool(condition)


def should_record_summaries():
    """Whether a summary written here would be recorded: a default writer, and ``record_if``'s condition.

    Returns:
        A bool tensor.
    """
    conditions = _stack("conditions")
    return constant(_default_writer() is not None and (not conditions or _holds(conditions[-1])))


# -- writing --------------------------------------------------------------------------------------


def _step_value(step):
    if step is None:
        step = experimental.get_step()
    if step is None:
        raise ValueError(_NO_STEP)
    return int(to_array(step)) if hasattr(step, "dtype") else int(step)


@host_call(stateful=True)
def _emit(writer, condition, tag, build, data, step, metadata):
    """Write one summary (run again on every call of a traced function); a bool tensor: written or not."""
    if not isinstance(writer, _FileWriter) or (condition is not None and not _holds(condition)):
        return constant(False)  # a no-op writer, or record_if says no
    step = _step_value(step)
    protos = writer._protos
    tensor = build(protos, data)
    plugin, content, data_class, description = metadata
    summary = protos["summary"]
    meta = summary.SummaryMetadata(
        plugin_data=summary.SummaryMetadata.PluginData(plugin_name=plugin, content=content),
        summary_description=description or "",
        data_class=data_class,
    )
    value = summary.Summary.Value(tag=tag, tensor=tensor, metadata=meta)
    return constant(writer._write_event({"step": step, "summary": summary.Summary(value=[value])}))


def _write(tag, build, data, step, plugin, data_class, description=None, content=b""):
    writer = _default_writer()
    if writer is None:
        return constant(False)
    conditions = _stack("conditions")
    condition = conditions[-1] if conditions else None
    if step is None and experimental.get_step() is None and (condition is None or _holds(condition)):
        raise ValueError(_NO_STEP)
    if step is None:
        step = experimental.get_step()
    written = _emit(writer, condition, str(tag), build, data, step, (plugin, content, data_class, description))
    return constant(False) if written is None else written


def _tensor_proto(protos, array, dtype):
    shape = protos["shape"].TensorShapeProto(dim=[protos["shape"].TensorShapeProto.Dim(size=n) for n in array.shape])
    return protos["tensor"].TensorProto(dtype=dtype, tensor_shape=shape, tensor_content=array.tobytes())


def _string_proto(protos, values, shape):
    dims = [protos["shape"].TensorShapeProto.Dim(size=n) for n in shape]
    return protos["tensor"].TensorProto(
        dtype=protos["types"].DT_STRING,
        tensor_shape=protos["shape"].TensorShapeProto(dim=dims),
        string_val=list(values),
    )


def _scalar_tensor(protos, data):
    array = np.asarray(to_array(data), np.float32)
    if array.ndim:
        raise ValueError(f"tf.summary.scalar takes a scalar; got data of shape {array.shape}")
    return _tensor_proto(protos, array, protos["types"].DT_FLOAT)


def scalar(name, data, step=None, description=None):
    """Write a scalar (the Scalars dashboard).

    Args:
        name: the tag.
        data: a real number or scalar tensor (written as float32).
        step: the step (default: the default step).
        description: a longer description, in Markdown.

    Returns:
        A bool tensor, True when written (False without a default writer, or when ``record_if`` says no).

    Raises:
        ValueError: no step is given or set, or ``data`` is not a scalar.
    """
    return _write(name, _scalar_tensor, data, step, "scalars", 1, description)


def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of ``data``'s values (the Histograms and Distributions dashboards).

    Args:
        name: the tag.
        data: numbers of any shape.
        step: the step (default: the default step).
        buckets: the number of equal-width buckets between the smallest and largest value (default 30).
        description: a longer description, in Markdown.

    Returns:
        A bool tensor, True when written.

    Raises:
        ValueError: no step is given or set.
    """
    count = 30 if buckets is None else int(buckets)

    def build(protos, values):
        return _tensor_proto(protos, histogram_buckets(to_array(values), count), protos["types"].DT_DOUBLE)

    return _write(name, build, data, step, "histograms", 3, description)


def _text_tensor(protos, data):
    array = np.asarray(data if isinstance(data, (str, bytes, list, tuple, np.ndarray)) else to_array(data))
    if array.dtype.kind not in "USO":
        raise TypeError(f"tf.summary.text takes strings; got {array.dtype}")
    flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1)]
    return _string_proto(protos, flat, array.shape)


def text(name, data, step=None, description=None):
    """Write text (the Text dashboard renders it as Markdown).

    Args:
        name: the tag.
        data: a string, or a list or NumPy array of strings (tapeviz has no string tensors).
        step: the step (default: the default step).
        description: a longer description, in Markdown.

    Returns:
        A bool tensor, True when written.

    Raises:
        ValueError: no step is given or set.
        TypeError: ``data`` is not strings (when written).
    """
    return _write(name, _text_tensor, data, step, "text", 3, description)


def _png(pixels):
    """PNG bytes of an (h, w, c) uint8 array, c in 1, 2, 3, 4 (gray, gray+alpha, RGB, RGBA): unfiltered rows."""
    height, width, channels = pixels.shape
    colour_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _as_uint8(array):
    """As ``tf.image.convert_image_dtype(..., tf.uint8, saturate=True)``: floats in [0, 1] times 255.5, truncated."""
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f":
        return np.clip(array.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    raise TypeError(f"tf.summary.image takes uint8 or float images; got {array.dtype}")


def image(name, data, step=None, max_outputs=3, description=None):
    """Write images (the Images dashboard), as PNGs.

    Args:
        name: the tag.
        data: a (k, h, w, c) batch, c = 1, 2, 3 or 4; uint8, or floats in [0, 1].
        step: the step (default: the default step).
        max_outputs: at most this many of the batch's images are written.
        description: a longer description, in Markdown.

    Returns:
        A bool tensor, True when written.

    Raises:
        ValueError: no step is given or set, or ``data`` is not a batch of images (when written).
        TypeError: the images are neither uint8 nor floats (when written).
    """
    limit = int(max_outputs)

    def build(protos, images):
        array = np.asarray(to_array(images))
        if array.ndim != 4 or array.shape[-1] not in (1, 2, 3, 4):
            raise ValueError(f"tf.summary.image takes a (k, h, w, c) batch with c in 1-4; got shape {array.shape}")
        pixels = _as_uint8(array[:limit])
        height, width = array.shape[1:3]
        values = [str(width).encode(), str(height).encode()] + [_png(p) for p in pixels]
        return _string_proto(protos, values, (len(values),))

    return _write(name, build, data, step, "images", 3, description)


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write a tensor with the given plugin metadata (the generic form the other summaries use).

    Args:
        tag: the tag.
        tensor: numbers of any shape (written with their dtype; float64, float32, int32 or int64).
        step: the step (default: the default step).
        metadata: a ``SummaryMetadata`` proto, its serialized bytes, or None (no plugin).
        name: TF's op name; ignored.

    Returns:
        A bool tensor, True when written.

    Raises:
        ValueError: no step is given or set.
        TypeError: the dtype has no TensorBoard tensor type here (when written).
    """
    plugin, content, description = "", b"", None
    if metadata is not None:
        if isinstance(metadata, bytes):
            metadata = _protos()["summary"].SummaryMetadata.FromString(metadata)
        plugin, content = metadata.plugin_data.plugin_name, metadata.plugin_data.content
        description = metadata.summary_description

    def build(protos, data):
        array = np.asarray(to_array(data))
        types = protos["types"]
        kinds = {
            "float64": types.DT_DOUBLE,
            "float32": types.DT_FLOAT,
            "int32": types.DT_INT32,
            "int64": types.DT_INT64,
        }
        if array.dtype.name not in kinds:
            raise TypeError(f"tf.summary.write: no tensor type for {array.dtype} here (use float32/64, int32/64)")
        return _tensor_proto(protos, array, kinds[array.dtype.name])

    return _write(tag, build, tensor, step, plugin, 0, description, content)


# -- traced graphs --------------------------------------------------------------------------------

_trace = {"functions": None}  # the ConcreteFunctions called since trace_on (None: not tracing)


def _seen(concrete):
    functions = _trace["functions"]
    if functions is not None and all(f is not concrete for f in functions):
        functions.append(concrete)


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of the ``tf.function`` calls that follow, for ``trace_export``.

    Args:
        graph: collect the graphs (as TF: the only thing tapeviz collects).
        profiler: TF's profiler; tapeviz has none (a warning says so, and graphs are still collected).
        profiler_outdir: for the profiler; ignored.
    """
    if profiler:
        warnings.warn("tapeviz has no profiler: tf.summary.trace_on collects the graphs only", stacklevel=2)
    if graph and _trace["functions"] is None:
        _trace["functions"] = []
        _function.CALL_LISTENERS.append(_seen)


def trace_off():
    """Stop collecting graphs and forget those collected."""
    if _seen in _function.CALL_LISTENERS:
        _function.CALL_LISTENERS.remove(_seen)
    _trace["functions"] = None


def _run_metadata(protos, graph_defs):
    """TF's RunMetadata of the collected graphs, serialized (what TensorBoard's graph dashboard reads)."""
    run = protos["config"].RunMetadata()
    for light in graph_defs:
        proto = protos["graph"].GraphDef(
            node=[protos["node"].NodeDef(name=n.name, op=n.op, input=n.input) for n in light.node]
        )
        run.partition_graphs.append(proto)
        run.function_graphs.add(pre_optimization_graph=proto)
    return run.SerializeToString()


def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs collected since ``trace_on`` (TensorBoard's Graphs dashboard), then stop collecting.

    Args:
        name: the tag.
        step: the step (default: the default step).
        profiler_outdir: for TF's profiler; ignored.

    Raises:
        ValueError: no step is given or set.
    """
    functions = _trace["functions"]
    if functions is None:
        warnings.warn("Must enable trace before export through tf.summary.trace_on().", stacklevel=2)
        return
    graph_defs = [f.graph.as_graph_def() for f in functions]

    def build(protos, _):
        return _string_proto(protos, [_run_metadata(protos, graph_defs)], ())

    try:
        _write(name, build, None, step, "graph_run_metadata_graph", 0, content=b"1")
    finally:
        trace_off()
