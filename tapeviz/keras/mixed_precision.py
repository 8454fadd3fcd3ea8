"""``keras.mixed_precision``: dtype policies and loss scaling, as Keras 3's.

Under ``set_global_policy("mixed_float16")`` new layers compute in float16
and keep their weights in float32 (a layer reads its weights cast to float16
inside its call, so gradients reach the float32 weights); ``compile`` then
wraps the optimizer in a ``LossScaleOptimizer``. The policy itself lives in
``keras.config`` (one place): these names are Keras's other spellings of it.
"""

from tapeviz.keras.config import DTypePolicy, dtype_policy, set_dtype_policy
from tapeviz.keras.optimizers.loss_scale import LossScaleOptimizer

Policy = DTypePolicy


def global_policy():
    """The global dtype policy (``keras.config.dtype_policy()``).

    Returns:
        A ``DTypePolicy``.
    """
    return dtype_policy()


def set_global_policy(policy):
    """Set the global dtype policy: ``"mixed_float16"``, ``"float32"``... or a ``DTypePolicy``; new layers use it.

    Args:
        policy: a policy name or a ``DTypePolicy``.
    """
    set_dtype_policy(policy)


__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]
