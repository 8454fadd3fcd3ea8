"""The value summaries (``scalar``, ``histogram``, ``text``, ``image``, ``write``) and the host call that writes one."""

from tapeviz.core.tensor import constant
from tapeviz.core.tracing import host_call
from tapeviz.summary import experimental
from tapeviz.summary.protos import (
    histogram_tensor,
    image_tensor,
    numeric_tensor,
    scalar_tensor,
    summary_proto,
    tensorboard_protos,
    text_tensor,
)
from tapeviz.summary.writers import NO_STEP, FileWriter, current_condition, default_writer, holds, step_value


@host_call(stateful=True)
def _emit(writer, condition, tag, build, data, step, metadata):
    """Write one summary (run again on every call of a traced function); a bool tensor: written or not."""
    if not isinstance(writer, FileWriter) or (condition is not None and not holds(condition)):
        return constant(False)  # a no-op writer, or record_if says no
    step = step_value(step)
    protos = writer.protos
    summary = summary_proto(protos, tag, build(protos, data), metadata)
    return constant(writer.write_event({"step": step, "summary": summary}))


def write_summary(tag, build, data, step, plugin, data_class, description=None, content=b""):
    """Write ``build(protos, data)`` under ``tag`` to the default writer, if there is one and ``record_if`` agrees.

    ``build`` makes the TensorProto when the summary is written (in a ``tf.function``: at each call);
    ``plugin``, ``content`` and ``data_class`` are the SummaryMetadata TensorBoard's dashboards read.
    A bool tensor: True when written. ValueError when no step is given or set (and a write would happen).
    """
    writer = default_writer()
    if writer is None:
        return constant(False)
    condition = current_condition()
    if step is None and experimental.get_step() is None and (condition is None or holds(condition)):
        raise ValueError(NO_STEP)
    if step is None:
        step = experimental.get_step()
    written = _emit(writer, condition, str(tag), build, data, step, (plugin, content, data_class, description))
    return constant(False) if written is None else written


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
    return write_summary(name, scalar_tensor, data, step, "scalars", 1, description)


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
        return histogram_tensor(protos, values, count)

    return write_summary(name, build, data, step, "histograms", 3, description)


def text(name, data, step=None, description=None):
    """Write text (the Text dashboard renders it as Markdown).

    Args:
        name: the tag.
        data: a string, a string tensor, or a list or NumPy array of strings.
        step: the step (default: the default step).
        description: a longer description, in Markdown.

    Returns:
        A bool tensor, True when written.

    Raises:
        ValueError: no step is given or set.
        TypeError: ``data`` is not strings (when written).
    """
    return write_summary(name, text_tensor, data, step, "text", 3, description)


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
        return image_tensor(protos, images, limit)

    return write_summary(name, build, data, step, "images", 3, description)


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
            metadata = tensorboard_protos()["summary"].SummaryMetadata.FromString(metadata)
        plugin, content = metadata.plugin_data.plugin_name, metadata.plugin_data.content
        description = metadata.summary_description
    return write_summary(tag, numeric_tensor, tensor, step, plugin, 0, description, content)
