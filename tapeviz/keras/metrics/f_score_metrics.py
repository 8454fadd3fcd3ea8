"""``keras.metrics.FBetaScore`` and ``F1Score``: the F-score of each class, or averaged over the classes.

Per class, over every batch seen: precision p = tp / (tp + fp), recall
r = tp / (tp + fn), and F_beta = (1 + beta^2) p r / (beta^2 p + r), each
ratio with Keras's epsilon in the denominator (so an empty class scores 0,
not NaN). Predictions become 0/1 by ``threshold``, or, without one, by which
class is the row's largest.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras import config
from tapeviz.keras.metrics.metric import Metric, host_array

_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """F-beta of (batch, classes) labels and predictions; ``average`` None (per class), 'micro', 'macro' or
    'weighted'; ``threshold``: a prediction above it counts as 1 (None: the row's largest counts).

    Args:
        average: ``None`` (one score per class), ``"micro"``, ``"macro"`` or ``"weighted"``.
        beta: how much more recall counts than precision (> 0).
        threshold: predictions above it count as 1 (None: the largest per row).
        name: the object's name.
        dtype: the dtype of its state.

    Raises:
        ValueError: an unknown ``average``, a ``beta`` of 0 or less, or a ``threshold`` outside (0, 1].
    """

    _direction = "up"

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name, dtype or "float32")
        if average not in _AVERAGES:
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', 'weighted'}. "
                f"Received: average={average}"
            )
        if not isinstance(beta, float):
            raise ValueError(
                f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta} of type '{type(beta)}'"
            )
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(
                    "Invalid `threshold` argument value. It should be a Python float. "
                    f"Received: threshold={threshold} of type '{type(threshold)}'"
                )
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(
                    f"Invalid `threshold` argument value. It should verify 0 < threshold <= 1. Received: threshold={threshold}"
                )
        self.average, self.beta, self.threshold = average, beta, threshold
        self._counts = None  # per-class sums, made at the first batch (when the class count is known)

    def _state(self, classes):
        if self._counts is None:
            self._counts = {
                key: self.add_variable(shape=(classes,), name=key)
                for key in ("true_positives", "false_positives", "false_negatives", "intermediate_weights")
            }
        return self._counts

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add a batch of one-hot labels and scores.

        Args:
            y_true: the labels, [batch, classes].
            y_pred: the scores, of the same shape.
            sample_weight: a weight per example.

        Raises:
            ValueError: inputs that are not 2-D.
        """
        y_true = host_array(y_true).astype(np.float32)
        y_pred = host_array(y_pred).astype(np.float32)
        if y_true.ndim != 2 or y_pred.ndim != 2:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                f"y_pred.shape={y_pred.shape} and y_true.shape={y_true.shape}."
            )
        if self.threshold is None:  # the row's largest prediction is its class
            predicted = (y_pred >= y_pred.max(axis=-1, keepdims=True)) & (np.abs(y_pred) > 1e-9)
        else:
            predicted = y_pred > self.threshold
        predicted = predicted.astype(np.float32)
        weight = np.float32(1.0) if sample_weight is None else host_array(sample_weight).astype(np.float32)
        if np.ndim(weight) == 1:
            weight = weight[:, None]
        counts = self._state(y_true.shape[-1])
        sums = {
            "true_positives": predicted * y_true,
            "false_positives": predicted * (1 - y_true),
            "false_negatives": (1 - predicted) * y_true,
            "intermediate_weights": y_true,
        }
        for key, values in sums.items():
            counts[key].assign(to_array(counts[key]) + np.sum(values * weight, axis=0, dtype=np.float32))

    def result(self):
        if self._counts is None:
            return Tensor(B.asarray(np.float32(0.0)))
        c = {key: to_array(v).astype(np.float32) for key, v in self._counts.items()}
        tp, fp, fn = c["true_positives"], c["false_positives"], c["false_negatives"]
        if self.average == "micro":
            tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
        eps = np.float32(config.epsilon())
        beta2 = np.float32(self.beta**2)
        precision = tp / (tp + fp + eps)
        recall = tp / (tp + fn + eps)
        score = (1 + beta2) * (precision * recall / (beta2 * precision + recall + eps))
        if self.average == "weighted":
            weights = c["intermediate_weights"] / c["intermediate_weights"].sum()
            score = np.sum(score * weights)
        elif self.average is not None:  # macro (micro is one number already)
            score = np.mean(score)
        return Tensor(B.asarray(np.asarray(score, np.float32)))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {
            "name": self.name,
            "dtype": self.dtype,
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """F1 = 2 p r / (p + r): the F-score with beta = 1.

    Args:
        average: ``None`` (one score per class), ``"micro"``, ``"macro"`` or ``"weighted"``.
        threshold: predictions above it count as 1 (None: the largest per row).
        name: the object's name.
        dtype: the dtype of its state.
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config_ = super().get_config()
        del config_["beta"]
        return config_
