"""Confusion-matrix metrics: true/false positives and negatives, precision, recall, and the AUC.

``AUC``: the area under the ROC or precision-recall curve, from counts at thresholds.

Over every batch seen, the metric counts true/false positives and negatives
at ``num_thresholds`` thresholds (a prediction above a threshold is positive;
a nonzero label is positive), then sums the curve's area over the intervals
between thresholds: trapezoids by default ('interpolation'; for the PR curve,
Davis and Goadrich's interpolation of precision), or the lower ('minoring')
or upper ('majoring') rectangles. ``multi_label``: one curve per label,
averaged (weighted by ``label_weights``).
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras.metrics.metric import Metric, host_array, squeeze_like
from tapeviz.keras.utils.naming import to_snake_case


class _Confusion(Metric):
    """A count of one cell of the confusion matrix at a threshold (predictions > threshold are positive)."""

    _cell = None

    def __init__(self, thresholds=None, name=None, dtype="float32"):
        super().__init__(name or to_snake_case(type(self).__name__), dtype)
        self.thresholds = 0.5 if thresholds is None else thresholds
        self.accumulator = self.add_variable("accumulator")

    def _counts(self, y_true, y_pred, sample_weight):
        y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
        truth = y_true.astype(bool)
        predicted = y_pred > self.thresholds
        weight = (
            np.ones(truth.shape, np.float32)
            if sample_weight is None
            else np.broadcast_to(host_array(sample_weight), truth.shape)
        )
        return {
            "tp": np.sum(weight * (truth & predicted)),
            "fp": np.sum(weight * (~truth & predicted)),
            "tn": np.sum(weight * (~truth & ~predicted)),
            "fn": np.sum(weight * (truth & ~predicted)),
        }

    def update_state(self, y_true, y_pred, sample_weight=None):
        count = self._counts(y_true, y_pred, sample_weight)[self._cell]
        self.accumulator.assign(to_array(self.accumulator) + np.float32(count))

    def result(self):
        return Tensor(B.asarray(np.asarray(to_array(self.accumulator), np.float32)))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {"name": self.name, "dtype": self.dtype, "thresholds": self.thresholds}


class TruePositives(_Confusion):
    """The (weighted) number of true positives.

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    _cell = "tp"


class FalsePositives(_Confusion):
    """The (weighted) number of false positives.

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "down"

    _cell = "fp"


class TrueNegatives(_Confusion):
    """The (weighted) number of true negatives.

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    _cell = "tn"


class FalseNegatives(_Confusion):
    """The (weighted) number of false negatives.

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "down"

    _cell = "fn"


class _Ratio(Metric):
    """tp / (tp + other): precision (other = fp) or recall (other = fn), at ``thresholds``."""

    _direction = "up"

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype="float32"):
        super().__init__(name or type(self).__name__.lower(), dtype)
        if top_k is not None or class_id is not None:
            raise ValueError(f"tapeviz's {type(self).__name__} has no top_k= or class_id=; threshold the predictions.")
        self.thresholds = 0.5 if thresholds is None else thresholds
        self.true_positives = self.add_variable("true_positives")
        self.others = self.add_variable("false_positives" if self._other == "fp" else "false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _Confusion._counts(self, y_true, y_pred, sample_weight)
        self.true_positives.assign(to_array(self.true_positives) + np.float32(counts["tp"]))
        self.others.assign(to_array(self.others) + np.float32(counts[self._other]))

    def result(self):
        tp, other = float(to_array(self.true_positives)), float(to_array(self.others))
        return Tensor(B.asarray(np.float32(tp / (tp + other) if tp + other else 0.0)))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {"name": self.name, "dtype": self.dtype, "thresholds": self.thresholds}


class Precision(_Ratio):
    """tp / (tp + fp) at ``thresholds`` (default 0.5).

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        top_k: None only.
        class_id: None only.
        name: the object's name.
        dtype: the dtype of its state.

    Raises:
        ValueError: ``top_k`` or ``class_id`` (not implemented: threshold the predictions).
    """

    _other = "fp"


class Recall(_Ratio):
    """tp / (tp + fn) at ``thresholds`` (default 0.5).

    Args:
        thresholds: a threshold or a list of them (0.5 by default).
        top_k: None only.
        class_id: None only.
        name: the object's name.
        dtype: the dtype of its state.

    Raises:
        ValueError: ``top_k`` or ``class_id`` (not implemented: threshold the predictions).
    """

    _other = "fn"


_EPSILON = 1e-7  # the outermost thresholds sit this far outside [0, 1], so every prediction lies between


class AUC(Metric):
    """Area under the ROC (``curve="ROC"``) or precision-recall (``"PR"``) curve of 0/1 labels and scores.

    Args:
        num_thresholds: how many thresholds (> 1).
        curve: ``"ROC"`` or ``"PR"``.
        summation_method: ``"interpolation"``, ``"minoring"`` or ``"majoring"``.
        name: the object's name.
        dtype: the dtype of its state.
        thresholds: the thresholds themselves, instead of ``num_thresholds``.
        multi_label: one curve per label, averaged.
        num_labels: the number of labels, with ``multi_label``.
        label_weights: a weight per label.
        from_logits: the predictions are logits.

    Raises:
        ValueError: an unknown ``curve`` or ``summation_method``, or ``num_thresholds`` below 2.
    """

    _direction = "up"

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        super().__init__(name or "auc", dtype or "float32")
        curve, summation_method = str(curve).upper(), str(summation_method).lower()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", "PR"]')
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". '
                'Expected values are ["interpolation", "majoring", "minoring"]'
            )
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self._evenly = False
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    f"Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={num_thresholds}"
                )
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._evenly = True
        self.thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
        self.num_thresholds = len(self.thresholds)
        self.curve, self.summation_method = curve, summation_method
        self.multi_label, self.num_labels, self.from_logits = multi_label, num_labels, from_logits
        self.label_weights = None if label_weights is None else np.asarray(label_weights, np.float32)
        self._counts = None

    def _state(self, labels):
        if self._counts is None:
            shape = (self.num_thresholds, labels) if self.multi_label else (self.num_thresholds,)
            self._counts = {
                key: self.add_variable(shape=shape, name=key)
                for key in ("true_positives", "false_positives", "true_negatives", "false_negatives")
            }
        return self._counts

    def _predicted_positive(self, scores):
        """(thresholds, ...) booleans: whether each score is above each threshold.

        With evenly spaced thresholds Keras puts each score in a bucket, max(ceil(s (n - 1)) - 1, 0), and counts
        it positive at thresholds 0..bucket: the same as s > i / (n - 1), computed as Keras does in float32.
        """
        index = np.arange(self.num_thresholds).reshape((-1,) + (1,) * scores.ndim)
        if self._evenly:
            bucket = np.maximum(np.ceil(scores * np.float32(self.num_thresholds - 1)) - 1, 0)
            return index <= np.minimum(bucket, self.num_thresholds - 1)
        thresholds = np.asarray(self.thresholds, np.float32).reshape(index.shape)
        return scores > thresholds

    def update_state(self, y_true, y_pred, sample_weight=None):
        labels = host_array(y_true).astype(np.float32)
        scores = host_array(y_pred).astype(np.float32)
        if self.from_logits:
            scores = 1 / (1 + np.exp(-scores))
        labels = np.broadcast_to(labels.reshape(scores.shape) if labels.size == scores.size else labels, scores.shape)
        weight = np.ones(scores.shape, np.float32)
        if sample_weight is not None:
            given = host_array(sample_weight).astype(np.float32)
            weight = np.broadcast_to(given.reshape(given.shape + (1,) * (scores.ndim - given.ndim)), scores.shape)
        if self.multi_label:  # per label: (examples, labels)
            scores, labels, weight = (a.reshape(-1, scores.shape[-1]) for a in (scores, labels, weight))
        else:
            scores, labels, weight = scores.reshape(-1), labels.reshape(-1), weight.reshape(-1)
        positive = labels != 0
        above = self._predicted_positive(scores)
        counts = self._state(scores.shape[-1] if self.multi_label else 1)
        cells = {
            "true_positives": above & positive,
            "false_positives": above & ~positive,
            "true_negatives": ~above & ~positive,
            "false_negatives": ~above & positive,
        }
        for key, mask in cells.items():
            counts[key].assign(to_array(counts[key]) + np.sum(mask * weight, axis=1, dtype=np.float32))

    def _interpolated_pr(self, tp, fp, fn):
        """Davis and Goadrich's PR area: precision interpolated between thresholds along the count of positives."""
        dtp = tp[:-1] - tp[1:]
        predicted = tp + fp
        dp = predicted[:-1] - predicted[1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(np.maximum(dp, 0) != 0, dtp / np.maximum(dp, 0), 0.0)
            intercept = tp[1:] - slope * predicted[1:]
            both = (predicted[:-1] > 0) & (predicted[1:] > 0)
            ratio = np.where(both, predicted[:-1] / np.where(both, np.maximum(predicted[1:], 0), 1), 1.0)
            actual = np.maximum(tp[1:] + fn[1:], 0)
            increment = slope * (dtp + intercept * np.log(ratio))
            increment = np.where(actual != 0, increment / np.where(actual != 0, actual, 1), 0.0)
        return increment.sum(axis=0)

    def _area(self, tp, fp, tn, fn):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr(tp, fp, fn)
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = np.where(tp + fn != 0, tp / (tp + fn), 0.0)
            if self.curve == "ROC":
                x, y = np.where(fp + tn != 0, fp / (fp + tn), 0.0), recall
            else:
                x, y = recall, np.where(tp + fp != 0, tp / (tp + fp), 0.0)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = np.minimum(y[:-1], y[1:])
        else:
            heights = np.maximum(y[:-1], y[1:])
        return np.sum((x[:-1] - x[1:]) * heights, axis=0)

    def result(self):
        if self._counts is None:
            return Tensor(B.asarray(np.float32(0.0)))
        c = [to_array(self._counts[k]).astype(np.float32) for k in ("true_positives", "false_positives")]
        c += [to_array(self._counts[k]).astype(np.float32) for k in ("true_negatives", "false_negatives")]
        area = self._area(*c)
        if self.multi_label:
            if self.label_weights is None:
                area = np.mean(area)
            else:
                area = np.sum(area * self.label_weights) / np.sum(self.label_weights)
        return Tensor(B.asarray(np.asarray(area, np.float32)))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {
            "name": self.name,
            "dtype": self.dtype,
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else self.label_weights.tolist(),
            "from_logits": self.from_logits,
            "thresholds": self.thresholds[1:-1],
        }
