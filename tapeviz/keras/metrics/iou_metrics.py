"""``keras.metrics`` IoU family: intersection over union from a confusion matrix summed over batches.

For a class c: IoU = tp / (tp + fp + fn), read off the matrix (rows: true
class, columns: predicted). The result is the mean over ``target_class_ids``
of the classes that occurred at all (a class never seen, in labels or
predictions, does not count as 0). As in Keras, the matrix counts whole
examples: a float sample weight is truncated to an int, with Keras's warning.
"""

import warnings

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras import config
from tapeviz.keras.metrics.metric import Metric, host_array


class IoU(Metric):
    """Mean IoU of ``target_class_ids`` out of ``num_classes``; labels and predictions are class ids
    (``sparse_y_true`` / ``sparse_y_pred`` False: one-hot or scores, their argmax along ``axis``);
    ``ignore_class``: a label that is left out.

    Args:
        num_classes: the number of classes.
        target_class_ids: the classes averaged over.
        name: the object's name.
        dtype: the dtype of its state.
        ignore_class: a class id to leave out.
        sparse_y_true: the labels are class ids (else one-hot).
        sparse_y_pred: the predictions are class ids (else scores).
        axis: the class axis.

    Raises:
        ValueError: a target class id out of range.
    """

    _direction = "up"

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(name or "io_u", dtype or "float32")
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is [0, {num_classes}).")
        self.num_classes = int(num_classes)
        self.target_class_ids = [int(i) for i in target_class_ids]
        self.ignore_class, self.sparse_y_true, self.sparse_y_pred, self.axis = (
            ignore_class,
            sparse_y_true,
            sparse_y_pred,
            axis,
        )
        self.total_cm = self.add_variable(shape=(num_classes, num_classes), name="total_confusion_matrix")

    def _class_ids(self, y_true, y_pred):
        """Flat int labels and predictions."""
        y_true, y_pred = host_array(y_true), host_array(y_pred)
        if not self.sparse_y_true:
            y_true = np.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = np.argmax(y_pred, axis=self.axis)
        return y_true.reshape(-1).astype(np.int64), y_pred.reshape(-1).astype(np.int64)

    def update_state(self, y_true, y_pred, sample_weight=None):
        labels, predictions = self._class_ids(y_true, y_pred)
        weight = np.ones(labels.shape, np.int64)
        if sample_weight is not None:
            given = host_array(sample_weight)
            if given.dtype.kind == "f":  # Keras counts in ints: a float weight is truncated, with its warning
                warnings.warn(
                    "You are passing weight as `float`, but dtype is `int`. This may result in an incorrect weight "
                    "due to type casting Consider using integer weights.",
                    stacklevel=3,
                )
            weight = np.broadcast_to(given.astype(np.int64).reshape(-1), labels.shape)
        if self.ignore_class is not None:
            kept = labels != self.ignore_class
            labels, predictions, weight = labels[kept], predictions[kept], weight[kept]
        matrix = np.zeros((self.num_classes, self.num_classes), np.float32)
        np.add.at(matrix, (labels, predictions), weight.astype(np.float32))
        self.total_cm.assign(to_array(self.total_cm) + matrix)

    def result(self):
        matrix = to_array(self.total_cm).astype(np.float32)
        true_positives = np.diag(matrix)
        denominator = matrix.sum(axis=0) + matrix.sum(axis=1) - true_positives
        ids = self.target_class_ids
        true_positives, denominator = true_positives[ids], denominator[ids]
        eps = np.float32(config.epsilon())  # in both divisions, as Keras: a perfect class scores 1 - 1e-7
        iou = true_positives / (denominator + eps)
        seen = np.float32(np.count_nonzero(denominator))
        return Tensor(B.asarray(np.float32(iou.sum(dtype=np.float32) / (seen + eps))))

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {
            "name": self.name,
            "dtype": self.dtype,
            "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes``.

    Args:
        num_classes: the number of classes.
        name: the object's name.
        dtype: the dtype of its state.
        ignore_class: a class id to leave out.
        sparse_y_true: the labels are class ids (else one-hot).
        sparse_y_pred: the predictions are class ids (else scores).
        axis: the class axis.
    """

    def __init__(
        self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True, axis=-1
    ):
        super().__init__(
            num_classes,
            list(range(num_classes)),
            name=name or "mean_io_u",
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self):
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """IoU of 0/1 labels, predictions above ``threshold`` counting as 1; ``target_class_ids`` (0, 1).

    Args:
        target_class_ids: the classes (0 and/or 1) averaged over.
        threshold: predictions above it count as 1.
        name: the object's name.
        dtype: the dtype of its state.
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, list(target_class_ids), name=name or "binary_io_u", dtype=dtype)
        self.threshold = threshold

    def _class_ids(self, y_true, y_pred):
        y_true, y_pred = host_array(y_true), host_array(y_pred)
        return y_true.reshape(-1).astype(np.int64), (y_pred > self.threshold).reshape(-1).astype(np.int64)

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "target_class_ids": self.target_class_ids,
            "threshold": self.threshold,
        }


class OneHotIoU(IoU):
    """IoU of one-hot labels and class scores (the argmax of each).

    Args:
        num_classes: the number of classes.
        target_class_ids: the classes averaged over.
        name: the object's name.
        dtype: the dtype of its state.
        ignore_class: a class id to leave out.
        sparse_y_pred: the predictions are class ids (else scores).
        axis: the class axis.
    """

    def __init__(
        self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1
    ):
        super().__init__(
            num_classes,
            target_class_ids,
            name=name or "one_hot_io_u",
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )


class OneHotMeanIoU(MeanIoU):
    """Mean IoU of one-hot labels and class scores, over all ``num_classes``.

    Args:
        num_classes: the number of classes.
        name: the object's name.
        dtype: the dtype of its state.
        ignore_class: a class id to leave out.
        sparse_y_pred: the predictions are class ids (else scores).
        axis: the class axis.
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(
            num_classes,
            name=name or "one_hot_mean_io_u",
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )
