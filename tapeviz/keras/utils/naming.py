"""Names of layers, metrics and losses, as Keras 3 makes them (``keras/src/utils/naming.py``)."""

import re


def to_snake_case(name):
    """Keras's snake case of a class name: 'F1Score' -> 'f1_score', 'TopKCategoricalAccuracy' -> 'top_k_...'."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
