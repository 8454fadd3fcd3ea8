"""``tf.distribute``: strategies that run a computation on several replicas and combine the results.

One process here: ``MirroredStrategy``'s replicas (one per device, virtual
CPUs included) run one after another, each with TF's semantics (its share of
the batch, its replica id, its own random stream, mirrored variables kept in
sync, all-reduce); the results print as TF prints them. No speedup: it is for
running TF code unchanged and for learning what a strategy does.
Multi-worker, TPU and parameter-server strategies are out of scope (see
docs/tf-map.md).
"""

from types import SimpleNamespace as _Namespace

from tapeviz.distribute.cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from tapeviz.distribute.input_lib import DistributedDataset, DistributedIterator, InputContext, ValueContext
from tapeviz.distribute.reduce_op import ReduceOp
from tapeviz.distribute.replica_context import ReplicaContext
from tapeviz.distribute.strategy import (
    CentralStorageStrategy,
    MirroredStrategy,
    OneDeviceStrategy,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tapeviz.distribute.values import DistributedValues

__all__ = [
    "CrossDeviceOps",
    "HierarchicalCopyAllReduce",
    "NcclAllReduce",
    "ReductionToOneDevice",
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "InputContext",
    "MirroredStrategy",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "experimental",
    "experimental_set_strategy",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

experimental = _Namespace(ValueContext=ValueContext, CentralStorageStrategy=CentralStorageStrategy)
"""``tf.distribute.experimental``: ``ValueContext`` and ``CentralStorageStrategy`` (the multi-worker, TPU and parameter-server strategies are
out of scope: one process)."""
