"""TensorBoard's protocol buffers (loaded on first use) and the tensors each summary writes into them."""

import struct
import zlib

import numpy as np

from tapeviz.core.tensor import to_array
from tapeviz.keras.callbacks.tensorboard import histogram_buckets


def tensorboard_protos():
    """TensorBoard's writer and protocol buffers, by short name (a clear error without the package).

    Returns:
        A dict: ``writer`` (``EventFileWriter``), and the ``config``, ``event``, ``graph``, ``node``,
        ``summary``, ``tensor``, ``shape`` and ``types`` proto modules.

    Raises:
        ImportError: the ``tensorboard`` package is not installed.
    """
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


def summary_proto(protos, tag, tensor, metadata):
    """A ``Summary`` of one tagged tensor; ``metadata`` is (plugin name, plugin content, data class, description)."""
    plugin, content, data_class, description = metadata
    summary = protos["summary"]
    meta = summary.SummaryMetadata(
        plugin_data=summary.SummaryMetadata.PluginData(plugin_name=plugin, content=content),
        summary_description=description or "",
        data_class=data_class,
    )
    return summary.Summary(value=[summary.Summary.Value(tag=tag, tensor=tensor, metadata=meta)])


def tensor_proto(protos, array, dtype):
    """A ``TensorProto`` of a NumPy array's bytes, with the TensorBoard ``dtype`` given."""
    shape = protos["shape"].TensorShapeProto(dim=[protos["shape"].TensorShapeProto.Dim(size=n) for n in array.shape])
    return protos["tensor"].TensorProto(dtype=dtype, tensor_shape=shape, tensor_content=array.tobytes())


def string_proto(protos, values, shape):
    """A string ``TensorProto`` of ``values`` (bytes, flat) with the given shape."""
    dims = [protos["shape"].TensorShapeProto.Dim(size=n) for n in shape]
    return protos["tensor"].TensorProto(
        dtype=protos["types"].DT_STRING,
        tensor_shape=protos["shape"].TensorShapeProto(dim=dims),
        string_val=list(values),
    )


def scalar_tensor(protos, data):
    """``tf.summary.scalar``'s tensor: a float32 scalar (ValueError for any other shape)."""
    array = np.asarray(to_array(data), np.float32)
    if array.ndim:
        raise ValueError(f"tf.summary.scalar takes a scalar; got data of shape {array.shape}")
    return tensor_proto(protos, array, protos["types"].DT_FLOAT)


def histogram_tensor(protos, values, buckets):
    """``tf.summary.histogram``'s tensor: (left edge, right edge, count) of ``buckets`` buckets, as float64."""
    return tensor_proto(protos, histogram_buckets(to_array(values), buckets), protos["types"].DT_DOUBLE)


def text_tensor(protos, data):
    """``tf.summary.text``'s tensor: the strings UTF-8 encoded, in their shape (TypeError for non-strings)."""
    array = np.asarray(data if isinstance(data, (str, bytes, list, tuple, np.ndarray)) else to_array(data))
    if array.dtype.kind not in "USO":
        raise TypeError(f"tf.summary.text takes strings; got {array.dtype}")
    flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1)]
    return string_proto(protos, flat, array.shape)


def png(pixels):
    """PNG bytes of an (h, w, c) uint8 array, c in 1, 2, 3, 4 (gray, gray+alpha, RGB, RGBA): unfiltered rows."""
    height, width, channels = pixels.shape
    colour_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def as_uint8(array):
    """As ``tf.image.convert_image_dtype(..., tf.uint8, saturate=True)``: floats in [0, 1] times 255.5, truncated."""
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f":
        return np.clip(array.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    raise TypeError(f"tf.summary.image takes uint8 or float images; got {array.dtype}")


def image_tensor(protos, images, max_outputs):
    """``tf.summary.image``'s tensor: width, height, then the first ``max_outputs`` images as PNGs."""
    array = np.asarray(to_array(images))
    if array.ndim != 4 or array.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"tf.summary.image takes a (k, h, w, c) batch with c in 1-4; got shape {array.shape}")
    pixels = as_uint8(array[:max_outputs])
    height, width = array.shape[1:3]
    values = [str(width).encode(), str(height).encode()] + [png(p) for p in pixels]
    return string_proto(protos, values, (len(values),))


def numeric_tensor(protos, data):
    """``tf.summary.write``'s tensor: the numbers in their dtype (TypeError for one TensorBoard has no type for here)."""
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
    return tensor_proto(protos, array, kinds[array.dtype.name])


def run_metadata(protos, graph_defs):
    """TF's RunMetadata of the collected graphs, serialized (what TensorBoard's graph dashboard reads)."""
    run = protos["config"].RunMetadata()
    for light in graph_defs:
        proto = protos["graph"].GraphDef(
            node=[protos["node"].NodeDef(name=n.name, op=n.op, input=n.input) for n in light.node]
        )
        run.partition_graphs.append(proto)
        run.function_graphs.add(pre_optimization_graph=proto)
    return run.SerializeToString()
