"""``keras.callbacks.TensorBoard``: what ``fit`` did, as event files TensorBoard reads.

The files are written by TensorBoard's own writer (the ``tensorboard``
package's ``EventFileWriter``, the one PyTorch's ``SummaryWriter`` uses too),
with the tags and layout Keras 3 on TensorFlow writes: ``log_dir/train`` and
``log_dir/validation``, scalars ``epoch_loss``, ``epoch_<metric>``,
``epoch_learning_rate`` (and ``batch_*`` with ``update_freq``), validation's
``evaluation_<metric>_vs_iterations``, and each weight's histogram every
``histogram_freq`` epochs. Install it with ``pip install tensorboard``
(also in ``tapeviz[tensorboard]``); then ``tensorboard --logdir logs``.
"""

import json
import os
import time

import numpy as np

from tapeviz.core.tensor import to_array
from tapeviz.keras.callbacks.callback import Callback, learning_rate_of

_BUCKETS = 30  # as tf.summary.histogram


def _tensorboard():
    """The writer and the protocol buffers, from the ``tensorboard`` package (a clear error without it)."""
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise ImportError(
            "keras.callbacks.TensorBoard writes its files with the `tensorboard` package, which is not installed. "
            "Install it: pip install tensorboard (or pip install 'tapeviz[tensorboard]')."
        ) from None
    return EventFileWriter, event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2


def histogram_buckets(values, buckets=_BUCKETS):
    """(buckets, 3) float64 rows [left edge, right edge, count], as TensorBoard's histogram plugin reads them."""
    values = np.asarray(values, np.float64).reshape(-1)
    if values.size == 0:
        return np.zeros((0, 3))
    low, high = float(values.min()), float(values.max())
    if low == high:  # one value: every edge at it, all the values in the last bucket (TF 2.21)
        counts = np.zeros(buckets)
        counts[-1] = values.size
        return np.stack([np.full(buckets, low), np.full(buckets, low), counts], axis=1)
    counts, edges = np.histogram(values, bins=buckets, range=(low, high))
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


class _Run:
    """One folder of event files (``train`` or ``validation``), written by TensorBoard's writer."""

    def __init__(self, folder):
        writer, self._event, self._summary, self._tensor, self._shape, self._types = _tensorboard()
        os.makedirs(folder, exist_ok=True)
        self._writer = writer(folder)

    def _write(self, tag, tensor, plugin, step, data_class):
        metadata = self._summary.SummaryMetadata(
            plugin_data=self._summary.SummaryMetadata.PluginData(plugin_name=plugin), data_class=data_class
        )
        value = self._summary.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)
        event = self._event.Event(wall_time=time.time(), step=int(step), summary=self._summary.Summary(value=[value]))
        self._writer.add_event(event)

    def _proto(self, array, dtype):
        shape = self._shape.TensorShapeProto(dim=[self._shape.TensorShapeProto.Dim(size=n) for n in array.shape])
        return self._tensor.TensorProto(dtype=dtype, tensor_shape=shape, tensor_content=array.tobytes())

    def scalar(self, tag, value, step):
        proto = self._proto(np.asarray(value, np.float32), self._types.DT_FLOAT)
        self._write(tag, proto, "scalars", step, self._summary.DATA_CLASS_SCALAR)

    def histogram(self, tag, values, step):
        proto = self._proto(histogram_buckets(values), self._types.DT_DOUBLE)
        self._write(tag, proto, "histograms", step, self._summary.DATA_CLASS_TENSOR)

    def text(self, tag, text, step, plugin):
        shape = self._shape.TensorShapeProto(dim=[self._shape.TensorShapeProto.Dim(size=1)])
        proto = self._tensor.TensorProto(dtype=self._types.DT_STRING, tensor_shape=shape, string_val=[text.encode()])
        self._write(tag, proto, plugin, step, self._summary.DATA_CLASS_TENSOR)

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()


class TensorBoard(Callback):
    """Write ``fit``'s losses, metrics, learning rate and (``histogram_freq``) weight histograms for TensorBoard.

    Args:
        log_dir: the folder; runs go to ``log_dir/train`` and ``log_dir/validation``.
        histogram_freq: every how many epochs each weight's histogram is written (0: never).
        write_graph: write the model's configuration (TensorBoard's Keras graph view).
        update_freq: ``"epoch"``, ``"batch"``, or every N batches an integer: when ``batch_*`` scalars are written.
        write_images, write_steps_per_second, profile_batch, embeddings_freq, embeddings_metadata: accepted
            for Keras code; tapeviz writes no images, profiles or embeddings (``write_steps_per_second`` is
            written).

    Raises:
        ImportError: the ``tensorboard`` package is not installed (when training starts).
    """

    def __init__(
        self,
        log_dir="logs",
        histogram_freq=0,
        write_graph=True,
        write_images=False,
        write_steps_per_second=False,
        update_freq="epoch",
        profile_batch=0,
        embeddings_freq=0,
        embeddings_metadata=None,
    ):
        super().__init__()
        self.log_dir = str(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = write_graph
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self._runs = {}
        self._batches = 0  # batches since training began: the step of batch_* scalars
        self._epoch_batches = 0
        self._epoch_started = None

    def _run(self, name):
        if name not in self._runs:
            self._runs[name] = _Run(os.path.join(self.log_dir, name))
        return self._runs[name]

    def on_train_begin(self, logs=None):
        _tensorboard()  # fail now, not after an epoch, when the package is missing
        self._batches = 0
        if self.write_graph and hasattr(self.model, "get_config"):
            config = {"class_name": type(self.model).__name__, "config": self.model.get_config()}
            self._run("train").text("keras", json.dumps(config, default=str), 0, "graph_keras_model")

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_started = time.perf_counter()
        self._epoch_batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        self._epoch_batches += 1
        if isinstance(self.update_freq, int) and self._batches % self.update_freq == 0:
            train = self._run("train")
            for key, value in (logs or {}).items():
                train.scalar(f"batch_{key}", value, self._batches)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        train = self._run("train")
        for key, value in logs.items():
            if not key.startswith("val_"):
                train.scalar(f"epoch_{key}", value, epoch)
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            train.scalar("epoch_learning_rate", learning_rate_of(optimizer), epoch)
        if self.write_steps_per_second and self._epoch_started is not None:
            elapsed = time.perf_counter() - self._epoch_started
            train.scalar("epoch_steps_per_second", self._epoch_batches / elapsed if elapsed else 0.0, epoch)
        validation = {key[4:]: value for key, value in logs.items() if key.startswith("val_")}
        if validation:
            run = self._run("validation")
            iterations = int(to_array(optimizer.iterations)) if optimizer is not None else epoch
            for key, value in validation.items():
                run.scalar(f"evaluation_{key}_vs_iterations", value, iterations)
            for key, value in validation.items():
                run.scalar(f"epoch_{key}", value, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            for weight in self.model.weights:
                train.histogram(f"{weight.path}/histogram", to_array(weight), epoch)
        for run in self._runs.values():
            run.flush()

    def on_train_end(self, logs=None):
        for run in self._runs.values():
            run.close()
        self._runs = {}
