"""``tf.keras``: layers, models, losses, metrics and optimizers on tapeviz tensors.

Keras 3's names, defaults and formulas (TF 2.16+ ships Keras 3 as
``tf.keras``), so the seeds' training code (custom loops with GradientTape,
or ``compile``/``fit``) and TensorFlow's guides run unchanged.
"""

# saving.serializables registers the classes and functions a saved file may name.
from tapeviz.keras import (  # noqa: F401
    activations,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    ops,
    optimizers,
    random,
    regularizers,
    saving,
    utils,
)
from tapeviz.keras.config import DTypePolicy  # noqa: F401
from tapeviz.keras.layers import Input, Layer  # noqa: F401
from tapeviz.keras.models import Model, Sequential  # noqa: F401
from tapeviz.keras.saving import (  # noqa: F401
    load_model,
    save_model,
    serializables,  # noqa: F401
)
from tapeviz.keras.variables import Variable  # noqa: F401


class _Namespace:
    """A read-only group of names, as ``keras.models`` or ``keras.preprocessing.image``."""

    def __init__(self, doc, **names):
        self.__doc__ = doc
        self.__dict__.update(names)


from tapeviz.keras.models.cloning import clone_model  # noqa: E402

models = _Namespace(
    "``tf.keras.models``: Model, Sequential, clone_model, load_model, save_model.",
    clone_model=clone_model,
    Model=Model,
    Sequential=Sequential,
    load_model=load_model,
    save_model=save_model,
)
preprocessing = _Namespace(
    "``tf.keras.preprocessing``: image.array_to_img, sequence.pad_sequences.",
    image=_Namespace(
        "``tf.keras.preprocessing.image``.", array_to_img=utils.array_to_img, img_to_array=utils.img_to_array
    ),
    sequence=_Namespace("``keras.preprocessing.sequence``.", pad_sequences=utils.pad_sequences),
)

__all__ = [
    "activations",
    "backend",
    "config",
    "callbacks",
    "constraints",
    "datasets",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "ops",
    "random",
    "regularizers",
    "optimizers",
    "saving",
    "utils",
    "models",
    "preprocessing",
    "Model",
    "Sequential",
    "Input",
    "Layer",
    "Variable",
    "DTypePolicy",
    "load_model",
    "save_model",
]
