"""``keras.utils.PyDataset``: a data set read in batches by index, which ``fit`` accepts."""

from tapeviz.keras.trainers.data_adapters.data_adapter_utils import pack_x_y_sample_weight, to_host


class PyDataset:
    """Batches by index: subclass it with ``__len__`` (the number of batches) and ``__getitem__(i)``
    (batch i: ``(x, y)`` or ``(x, y, sample_weight)``); ``fit`` calls ``on_epoch_end`` after each epoch.

    ``workers``/``use_multiprocessing``/``max_queue_size`` are accepted and
    ignored: tapeviz loads batches in the training thread.

    Args:
        workers: accepted for compatibility (one thread here).
        use_multiprocessing: accepted for compatibility.
        max_queue_size: accepted for compatibility.
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers, self._use_multiprocessing, self._max_queue_size = workers, use_multiprocessing, max_queue_size

    @property
    def workers(self):
        return self._workers

    @property
    def use_multiprocessing(self):
        return self._use_multiprocessing

    @property
    def max_queue_size(self):
        return self._max_queue_size

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    @property
    def num_batches(self):
        return len(self)

    def on_epoch_begin(self):
        """Called at the start of each epoch; does nothing here (override it)."""
        pass

    def on_epoch_end(self):
        """Called at the end of each epoch; does nothing here (override it, e.g. to shuffle)."""
        pass


def py_dataset_batches(dataset, order):
    """A PyDataset's batches in ``order`` as (x, y, sample_weight) host arrays; ``on_epoch_end`` once all are read."""
    dataset.on_epoch_begin()
    for index in order:
        batch = dataset[int(index)]
        batch = batch if isinstance(batch, tuple) else (batch,)
        yield pack_x_y_sample_weight(*(to_host(part) if part is not None else None for part in batch))
    dataset.on_epoch_end()
