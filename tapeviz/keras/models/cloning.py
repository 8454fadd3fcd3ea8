"""``keras.models.clone_model``: the same architecture with new layers (fresh weights), as Keras 3.

Each layer is rebuilt from its config (``type(layer).from_config(layer.get_config())``,
or ``clone_function(layer)``); a functional model's graph is replayed on new
Inputs with the new layers. Weights are not copied: ``set_weights`` does that.
"""

from tapeviz.core import nest
from tapeviz.keras.layers.core import Input
from tapeviz.keras.models.model import Model
from tapeviz.keras.models.sequential import Sequential

__all__ = ["clone_model"]


def _default_clone(layer):
    return type(layer).from_config(layer.get_config())


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False, **kwargs):
    """A new model of ``model``'s architecture; its layers made by ``clone_function`` (default: from config).

    Args:
        model: a Sequential or functional model.
        input_tensors: new inputs for a functional clone.
        clone_function: a function of a layer that returns its copy (from its config by default).
        call_function: accepted for compatibility.
        recursive: accepted for compatibility.
        **kwargs: accepted for compatibility.

    Returns:
        A new model with new (freshly initialized) weights.

    Raises:
        ValueError: a subclassed model (no layer graph to copy).
    """
    clone = clone_function or _default_clone
    if isinstance(model, Sequential):
        layers = [clone(layer) for layer in model.layers]
        start = [] if model._input_shape is None else [Input(batch_shape=tuple(model._input_shape))]
        return Sequential(start + layers, name=model.name)
    functional = getattr(model, "_functional", None)
    if not functional:
        raise ValueError(
            "Arguments clone_function and input_tensors are only supported for Sequential models or Functional "
            f"models. Received model of type '{type(model).__name__}'; a subclassed model cannot be cloned from "
            "its graph: construct a new instance of its class instead."
        )
    inputs, outputs, order = functional
    new_layers, values = {}, {}
    given = nest.flatten(input_tensors) if input_tensors is not None else None
    for position, symbolic in enumerate(nest.flatten(inputs)):
        values[id(symbolic)] = (
            given[position]
            if given
            else Input(batch_shape=tuple(symbolic.shape), name=symbolic.name, dtype=symbolic.dtype)
        )
    for node in order:
        if node.layer is None:
            continue
        layer, args, node_kwargs = node.layer
        if id(layer) not in new_layers:
            new_layers[id(layer)] = clone(layer)
        parents = [values[id(p)] for p in node.parents]
        values[id(node)] = new_layers[id(layer)](parents[0] if len(parents) == 1 else parents, *args, **node_kwargs)
    new_inputs = nest.map_structure(lambda k: values[id(k)], inputs)
    new_outputs = nest.map_structure(lambda k: values[id(k)], outputs)
    return Model(new_inputs, new_outputs, name=model.name)
