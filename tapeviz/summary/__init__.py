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

The package: ``writers.py`` (writers, ``record_if``, the step), ``values.py``
(``scalar``, ``histogram``, ``text``, ``image``, ``write``), ``tracing.py``
(``trace_on``, ``trace_export``), ``protos.py`` (TensorBoard's protocol
buffers, loaded on first use) and ``experimental.py`` (the default step).
"""

from tapeviz.summary import experimental
from tapeviz.summary.tracing import trace_export, trace_off, trace_on
from tapeviz.summary.values import histogram, image, scalar, text, write
from tapeviz.summary.writers import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
    should_record_summaries,
)

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
