"""Names of layers, optimizers, metrics and variables, as Keras 3 makes them (its ``keras/src/utils/naming.py``).

Below everything else in keras (it imports nothing of tapeviz), so a Variable,
a Layer and an Optimizer name themselves without importing one another.
"""

import re

_names = {}  # base name -> how many objects took it


def to_snake_case(name):
    """Keras's snake case of a class name: 'F1Score' -> 'f1_score', 'TopKCategoricalAccuracy' -> 'top_k_...'."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base):
    """Keras's names: 'dense', then 'dense_1', 'dense_2'..."""
    count = _names.get(base, 0)
    _names[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def auto_name(class_name):
    """A new object's default name: its class name in snake case, made unique ('Dense' -> 'dense_1')."""
    return unique_name(to_snake_case(class_name))


def reset_names():
    """Forget the names handed out (``keras.backend.clear_session``): the next Dense is 'dense' again."""
    _names.clear()
