"""The base of every Keras loss: per-example values, weighted, then reduced ('sum_over_batch_size', 'sum', 'none')."""

from tapeviz import math as tf_math
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import cast
from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor
from tapeviz.keras.config import floatx
from tapeviz.keras.utils.naming import to_snake_case


def as_tensor(value, dtype=None):
    """``value`` as a tensor (of ``dtype`` when given); a tensor with no dtype asked for is returned as is."""
    if isinstance(value, Tensor) and dtype is None:
        return value
    if hasattr(value, "read_value"):
        value = value.read_value()
    if isinstance(value, Tensor):
        return value if dtype is None or value.dtype == dtype else cast(value, dtype)
    return convert_to_tensor(value, dtype=dtype)


def squeeze_or_expand_to_same_rank(y_true, y_pred):
    """Keras's squeeze_or_expand_to_same_rank: fix a trailing axis of size 1 on one side."""
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = reshape(y_true, tuple(y_true.shape)[:-1])
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = reshape(y_pred, tuple(y_pred.shape)[:-1])
    return y_true, y_pred


class Loss(RecordsInit):
    """Base class: ``loss(y_true, y_pred, sample_weight=None)`` -> a scalar (by default).

    ``reduction``: 'sum_over_batch_size' (the mean, Keras's default), 'sum',
    or 'none' (one value per example).

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the loss's name.

    Raises:
        ValueError: an unknown ``reduction``.

    Raises:
        ValueError: an unknown ``reduction``.
    """

    def __init__(self, reduction="sum_over_batch_size", name=None):
        if reduction not in ("sum_over_batch_size", "sum", "none", "mean", None, "auto"):
            raise ValueError(
                f"Invalid value for argument `reduction`: {reduction!r}. Use 'sum_over_batch_size', 'sum' or 'none'."
            )
        self.reduction = "sum_over_batch_size" if reduction in ("auto", "mean") else reduction
        self.name = name or to_snake_case(type(self).__name__)

    def call(self, y_true, y_pred):
        """The loss of each example, before the reduction; each loss defines it.

        Args:
            y_true: the targets.
            y_pred: the predictions.

        Returns:
            A Tensor of per-example losses.
        """
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        with name_scope(self.name):
            values = self.call(_widened(y_true), _widened(y_pred))
            if sample_weight is not None:
                weight = as_tensor(sample_weight, values.dtype)
                if weight.ndim > values.ndim and weight.shape.num_elements() == values.shape.num_elements():
                    weight = reshape(weight, tuple(values.shape))  # else they broadcast (a batch-wide loss), as Keras
                values = values * weight
            if self.reduction in ("none", None):
                return values
            total = tf_math.reduce_sum(values)
            if self.reduction == "sum":
                return total
            return total / float(max(values.shape.num_elements(), 1))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """A new loss from ``get_config()``'s dict.

        Args:
            config: the dict.

        Returns:
            The new loss.
        """
        return cls(**config)


def _widened(value):
    """A float16 tensor (a mixed-precision model's output) in ``floatx()``: Keras 3's losses
    compute in their own dtype (float32), so the loss and its gradient start in float32."""
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (Tensor, Variable)) and dtype == "float16" and floatx() != "float16":
        return cast(value, floatx())
    return value
