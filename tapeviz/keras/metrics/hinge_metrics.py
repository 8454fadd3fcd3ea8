"""Hinge metrics: the running mean of the hinge, squared hinge and categorical hinge losses."""

from tapeviz.keras.metrics.reduction_metrics import loss_function, loss_metric_class

Hinge = loss_metric_class("Hinge", "hinge", "hinge", "The running hinge loss.")


SquaredHinge = loss_metric_class("SquaredHinge", "squared_hinge", "squared_hinge", "The running squared hinge loss.")


CategoricalHinge = loss_metric_class(
    "CategoricalHinge", "categorical_hinge", "categorical_hinge", "The running categorical hinge loss."
)


def hinge(y_true, y_pred):
    """The hinge loss per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("hinge")(y_true, y_pred)


def squared_hinge(y_true, y_pred):
    """The squared hinge loss per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("squared_hinge")(y_true, y_pred)


def categorical_hinge(y_true, y_pred):
    """The categorical hinge loss per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("categorical_hinge")(y_true, y_pred)
