"""``tf.distribute.CrossDeviceOps`` and its kinds: how TF's devices exchange values for an all-reduce.

``MirroredStrategy(cross_device_ops=...)`` takes them, as TF's does; they
change nothing here: the replicas share this process's memory, and an
all-reduce is a sum of the replicas' tensors.
"""

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce", "ReductionToOneDevice"]


class CrossDeviceOps:
    """How TF's devices exchange values (the base class); accepted by ``MirroredStrategy``, unused here."""


class HierarchicalCopyAllReduce(CrossDeviceOps):
    """TF's all-reduce for GPUs without NVLink between all of them; accepted, unused here.

    Args:
        num_packs: how many packs TF splits the tensors into.
    """

    def __init__(self, num_packs=1):
        self.num_packs = num_packs


class NcclAllReduce(CrossDeviceOps):
    """TF's all-reduce by NVIDIA's NCCL library; accepted, unused here.

    Args:
        num_packs: how many packs TF splits the tensors into.
    """

    def __init__(self, num_packs=1):
        self.num_packs = num_packs


class ReductionToOneDevice(CrossDeviceOps):
    """TF's all-reduce through one device (copy there, reduce, copy back); accepted, unused here.

    Args:
        reduce_to_device: the device TF reduces on.
        accumulation_fn: the function TF sums with.
    """

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn
