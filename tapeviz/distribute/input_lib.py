"""Datasets over replicas: ``InputContext``, ``ValueContext`` and the distributed datasets strategies make.

``experimental_distribute_dataset`` splits each global batch of ``b`` rows
into ``n`` consecutive parts of ``ceil(b / n)`` rows (the last ones
shorter, or empty), as TF's rebatching does; ``distribute_datasets_from_function``
hands the elements of the one dataset to the replicas in turn (one input
pipeline: one process), the replicas left without one at the end getting an
empty batch, as TF's.
"""

from tapeviz.core import nest
from tapeviz.distribute.values import PerReplica

__all__ = [
    "InputContext",
    "ValueContext",
    "DistributedDataset",
    "DistributedDatasetFromFunction",
    "DistributedIterator",
]


class InputContext:
    """``tf.distribute.InputContext``: what ``dataset_fn`` learns about its input pipeline.

    Args:
        num_input_pipelines: how many pipelines feed the replicas (1 here: one process).
        input_pipeline_id: this pipeline's index.
        num_replicas_in_sync: how many replicas the batches are for.
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = int(num_input_pipelines)
        self._input_pipeline_id = int(input_pipeline_id)
        self._num_replicas_in_sync = int(num_replicas_in_sync)

    @property
    def num_input_pipelines(self):
        """How many input pipelines there are (an int)."""
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self):
        """This pipeline's index (an int)."""
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self):
        """How many replicas take batches (an int)."""
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """The batch size of each replica: ``global_batch_size / num_replicas_in_sync``.

        Args:
            global_batch_size: the batch size over all replicas.

        Returns:
            An int.

        Raises:
            ValueError: a global batch size the replicas cannot share evenly.
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by `num_replicas_in_sync` "
                f"{self._num_replicas_in_sync!r} "
            )
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: {self._num_input_pipelines})"


class ValueContext:
    """``tf.distribute.experimental.ValueContext``: which replica a value is made for.

    Args:
        replica_id_in_sync_group: the replica's index.
        num_replicas_in_sync: how many replicas there are.
    """

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id = int(replica_id_in_sync_group)
        self._num_replicas = int(num_replicas_in_sync)

    @property
    def replica_id_in_sync_group(self):
        """The replica's index (an int)."""
        return self._replica_id

    @property
    def num_replicas_in_sync(self):
        """How many replicas there are (an int)."""
        return self._num_replicas


def _rows(element):
    leaves = nest.flatten(element)
    return int(leaves[0].shape[0]) if leaves else 0


def _slice(element, start, stop):
    return nest.map_structure(lambda t: t[start:stop], element)


def _per_replica(parts):
    """One element per replica -> one element of PerReplica leaves."""
    flats = [nest.flatten(p) for p in parts]
    return nest.pack_sequence_as(parts[0], [PerReplica(column) for column in zip(*flats)])


class DistributedIterator:
    """An iterator over a distributed dataset: each step, a nest of ``PerReplica`` batches.

    Args:
        steps: the steps (a Python iterator).
    """

    def __init__(self, steps):
        self._steps = steps

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._steps)

    def get_next(self):
        """The next step's batches.

        Returns:
            A nest of PerReplica batches.

        Raises:
            StopIteration: at the end.
        """
        return next(self._steps)


class DistributedDataset:
    """A dataset of global batches, each split over the replicas (``experimental_distribute_dataset``).

    Args:
        strategy: the strategy.
        dataset: a dataset of batches.
    """

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset

    def _steps(self):
        count = self._strategy.num_replicas_in_sync
        for element in self._dataset:
            if count == 1:
                yield element
                continue
            rows = _rows(element)
            share = -(-rows // count)
            yield _per_replica(
                [_slice(element, min(i * share, rows), min((i + 1) * share, rows)) for i in range(count)]
            )

    def __iter__(self):
        return DistributedIterator(self._steps())


class DistributedDatasetFromFunction(DistributedDataset):
    """Per-replica batches from ``dataset_fn(input_context)``, taken in turn (``distribute_datasets_from_function``).

    Args:
        strategy: the strategy.
        dataset_fn: a function of an InputContext returning a dataset.
    """

    def __init__(self, strategy, dataset_fn):
        self._strategy = strategy
        count = strategy.num_replicas_in_sync
        self._dataset = dataset_fn(InputContext(1, 0, count))

    def _steps(self):
        count = self._strategy.num_replicas_in_sync
        source = iter(self._dataset)
        while True:
            parts = []
            for element in source:
                parts.append(element)
                if len(parts) == count:
                    break
            if not parts:
                return
            if count == 1:
                yield parts[0]
                continue
            short = len(parts) < count
            parts += [_slice(parts[-1], 0, 0)] * (count - len(parts))
            yield _per_replica(parts)
            if short:
                return

    def __iter__(self):
        return DistributedIterator(self._steps())
