"""Probabilistic metrics: the running mean of a cross-entropy, KL divergence or Poisson loss."""

from tapeviz.keras.metrics.reduction_metrics import loss_function, loss_metric_class

BinaryCrossentropy = loss_metric_class(
    "BinaryCrossentropy",
    "binary_crossentropy",
    "binary_crossentropy",
    "The running binary cross-entropy.",
    from_logits=False,
    label_smoothing=0,
)


CategoricalCrossentropy = loss_metric_class(
    "CategoricalCrossentropy",
    "categorical_crossentropy",
    "categorical_crossentropy",
    "The running categorical cross-entropy.",
    from_logits=False,
    label_smoothing=0,
    axis=-1,
)


SparseCategoricalCrossentropy = loss_metric_class(
    "SparseCategoricalCrossentropy",
    "sparse_categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "The running sparse categorical cross-entropy.",
    from_logits=False,
    axis=-1,
)


KLDivergence = loss_metric_class("KLDivergence", "kl_divergence", "kl_divergence", "The running KL divergence.")


Poisson = loss_metric_class("Poisson", "poisson", "poisson", "The running Poisson loss.")


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The binary cross-entropy per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("binary_crossentropy")(y_true, y_pred, from_logits, label_smoothing, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The categorical cross-entropy per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("categorical_crossentropy")(y_true, y_pred, from_logits, label_smoothing, axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """The sparse categorical cross-entropy per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("sparse_categorical_crossentropy")(y_true, y_pred, from_logits, axis)


def kl_divergence(y_true, y_pred):
    """The KL divergence per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("kl_divergence")(y_true, y_pred)


def poisson(y_true, y_pred):
    """The Poisson loss per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("poisson")(y_true, y_pred)


def binary_focal_crossentropy(
    y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """The binary focal cross-entropy per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        apply_class_balancing: weight the classes by ``alpha``.
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("binary_focal_crossentropy")(
        y_true, y_pred, apply_class_balancing, alpha, gamma, from_logits, label_smoothing, axis
    )


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """The categorical focal cross-entropy per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("categorical_focal_crossentropy")(
        y_true, y_pred, alpha, gamma, from_logits, label_smoothing, axis
    )
