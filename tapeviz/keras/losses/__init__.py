"""``tf.keras.losses``: loss functions (per example) and Loss objects (reduced to a scalar).

The functional forms return one value per example (the mean over the last
axis); a Loss object's call reduces them, by default to their mean
('sum_over_batch_size'), as Keras does. Formulas follow Keras 3's
TensorFlow backend, including the 1e-7 clipping of probabilities.

``loss.py`` holds the base class, ``losses.py`` the functions and their classes,
as Keras 3's ``keras/src/losses``.
"""

from tapeviz.keras.losses.loss import Loss
from tapeviz.keras.losses.losses import (
    MAE,
    MSE,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Dice,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    LossFunctionWrapper,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
    Tversky,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    cosine_similarity,
    dice,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mae,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
    tversky,
)
from tapeviz.keras.saving.serialization_lib import resolve

__all__ = [
    "Loss",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "Huber",
    "mean_squared_error",
    "mean_absolute_error",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "huber",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "CosineSimilarity",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "KLDivergence",
    "Poisson",
    "LogCosh",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "cosine_similarity",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "kl_divergence",
    "poisson",
    "log_cosh",
    "Dice",
    "Tversky",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "dice",
    "tversky",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "get",
    "serialize",
    "deserialize",
    "mse",
    "mae",
    "MSE",
    "MAE",
]


_BY_NAME = {
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "mean_absolute_error": MeanAbsoluteError,
    "huber": Huber,
    "huber_loss": Huber,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "cosine_similarity": CosineSimilarity,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "kld": KLDivergence,
    "kl_divergence": KLDivergence,
    "poisson": Poisson,
    "log_cosh": LogCosh,
    "bce": BinaryCrossentropy,
}


_FUNCTIONS = {
    "mean_squared_error": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "huber": huber,
    "log_cosh": log_cosh,
    "cosine_similarity": cosine_similarity,
    "poisson": poisson,
    "hinge": hinge,
    "squared_hinge": squared_hinge,
    "categorical_hinge": categorical_hinge,
    "kl_divergence": kl_divergence,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "dice": dice,
    "tversky": tversky,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
}


_FUNCTIONS.update(
    {
        "mse": mean_squared_error,
        "MSE": mean_squared_error,
        "mae": mean_absolute_error,
        "MAE": mean_absolute_error,
        "mape": mean_absolute_percentage_error,
        "MAPE": mean_absolute_percentage_error,
        "msle": mean_squared_logarithmic_error,
        "MSLE": mean_squared_logarithmic_error,
        "kld": kl_divergence,
        "KLD": kl_divergence,
        "bce": binary_crossentropy,
        "BCE": binary_crossentropy,
    }
)


_CLASSES = {
    cls.__name__: cls
    for cls in (
        Loss,
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        Huber,
        LogCosh,
        CosineSimilarity,
        Poisson,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        KLDivergence,
        BinaryCrossentropy,
        CategoricalCrossentropy,
        SparseCategoricalCrossentropy,
        Dice,
        Tversky,
        BinaryFocalCrossentropy,
        CategoricalFocalCrossentropy,
    )
}


def get(identifier):
    """As Keras 3's ``losses.get``: a function for a function's name or alias ('mse' -> mean_squared_error),
    an instance for a class name ('MeanSquaredError'); Loss objects and callables are returned as they are.

    Args:
        identifier: a name, a Loss, a callable, or None.

    Returns:
        A loss function or Loss (None for None).

    Raises:
        ValueError: a name Keras does not have.
    """
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        known = sorted({*_FUNCTIONS, *_CLASSES})
        raise ValueError(
            f"Could not interpret loss identifier: {identifier}. Unknown loss function name; known names: {known}."
        )
    return resolve(identifier, kind="loss function", table={}, base=Loss)


def as_loss(identifier):
    """What ``compile(loss=...)`` uses: a Loss object from a name ('mse', 'sparse_categorical_crossentropy'...),
    a Loss, or a function ``(y_true, y_pred) -> per-example values``."""
    return resolve(
        identifier,
        kind="loss function",
        table={**_BY_NAME, **_CLASSES},
        base=Loss,
        wrap_callable=lambda fn: LossFunctionWrapper(fn, getattr(fn, "__name__", "loss")),
    )


def serialize(loss):
    """A Loss as Keras's JSON-able dict: module, class_name, config, registered_name.

    Args:
        loss: a Loss.

    Returns:
        A dict.
    """
    return {
        "module": "keras.losses",
        "class_name": type(loss).__name__,
        "config": loss.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """A Loss from ``serialize``'s dict; classes come from this module or ``custom_objects``, never by import.

    Args:
        config: ``serialize``'s dict (or a name).
        custom_objects: a dict of your own classes by name.

    Returns:
        A Loss.

    Raises:
        ValueError: a class it does not know.
    """
    table = {**_CLASSES, **(custom_objects or {})}
    name = config.get("class_name") if isinstance(config, dict) else config
    if name not in table:
        raise ValueError(f"Could not interpret loss identifier: {config}")
    return table[name].from_config(config.get("config", {})) if isinstance(config, dict) else get(name)
