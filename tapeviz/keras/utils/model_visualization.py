"""``keras.utils.plot_model`` and ``model_to_dot``: a model's layer graph, laid out by the visualizer's
layout program (the system Graphviz or the bundled ``graphviz-pure``); no pydot needed.

``model_to_dot`` returns the DOT text (Keras returns a pydot object);
``plot_model`` writes the picture (.png, .svg, .pdf, .dot) atomically and,
in IPython, returns it as an ``Image`` as Keras does.
"""

import html
import os

__all__ = ["model_to_dot", "plot_model"]


def _graph(model):
    """(layers in order, edges between layer indices) of a Sequential or functional model."""
    from tapeviz.keras.layers.base import KerasTensor

    functional = getattr(model, "_functional", None)
    if functional:
        inputs, outputs, order = functional
        nodes, index, edges = [], {}, []

        def node_of(tensor):
            owner = tensor.layer[0] if tensor.layer is not None else getattr(tensor, "input_layer", None) or tensor
            if id(owner) not in index:
                index[id(owner)] = len(nodes)
                nodes.append((owner, tensor))
            return index[id(owner)]

        for tensor in order:
            target = node_of(tensor)
            for parent in tensor.parents:
                if isinstance(parent, KerasTensor):
                    edge = (node_of(parent), target)
                    if edge not in edges:
                        edges.append(edge)
        return nodes, edges
    layers = list(model.layers)
    start = getattr(model, "_input_shape", None)
    nodes = [(layer, None) for layer in layers]
    if start is not None:
        from tapeviz.keras.layers.core import InputLayer

        nodes.insert(0, (InputLayer(shape=tuple(start)[1:], name="input_layer"), None))
    return nodes, [(i, i + 1) for i in range(len(nodes) - 1)]


def _shape_text(owner, tensor):
    shape = getattr(tensor, "shape", None) if tensor is not None else None
    if shape is None:
        shape = getattr(owner, "_output_shape", None)
        if shape is None and hasattr(owner, "shape") and not hasattr(owner, "layers"):
            shape = (None,) + tuple(owner.shape)
    return "?" if shape is None else str(tuple(shape))


def model_to_dot(
    model,
    show_shapes=False,
    show_dtype=False,
    show_layer_names=True,
    rankdir="TB",
    expand_nested=False,
    dpi=200,
    subgraph=False,
    show_layer_activations=False,
    show_trainable=False,
    **kwargs,
):
    """The DOT text of ``model``'s layer graph: one box per layer ('name (Class)'), arrows in data order.

    Args:
        model: a built model.
        show_shapes: show each layer's output shape.
        show_dtype: show each layer's dtype.
        show_layer_names: show the layers' names.
        rankdir: ``"TB"`` (top to bottom) or ``"LR"``.
        expand_nested: draw nested models' layers.
        dpi: the picture's resolution.
        subgraph: accepted for compatibility.
        show_layer_activations: show each layer's activation.
        show_trainable: show whether each layer trains.
        **kwargs: accepted for compatibility.

    Returns:
        The DOT text, a string.

    Raises:
        ValueError: a model not built yet.
    """
    if not getattr(model, "built", False):
        raise ValueError(
            "This model has not yet been built. Build the model first by calling `build()` or by calling the "
            "model on a batch of data."
        )
    nodes, edges = _graph(model)
    lines = [
        "digraph model {",
        f'  graph [rankdir="{rankdir}", dpi={int(dpi)}, label="{html.escape(model.name)}", labelloc="t"];',
        '  node [shape="box", style="rounded", fontname="Helvetica", fontsize="11"];',
    ]
    for i, (owner, tensor) in enumerate(nodes):
        kind = type(owner).__name__ if not hasattr(owner, "input_layer") else "InputLayer"
        name = getattr(owner, "name", None) or "input"
        title = f"{name} ({kind})" if show_layer_names else kind
        rows = [html.escape(title)]
        if show_layer_activations and getattr(owner, "activation", None) is not None:
            rows.append("activation: " + html.escape(getattr(owner.activation, "__name__", str(owner.activation))))
        if show_shapes:
            rows.append("output: " + html.escape(_shape_text(owner, tensor)))
        if show_dtype:
            rows.append(
                "dtype: " + html.escape(str(getattr(tensor, "dtype", None) or getattr(owner, "_dtype", "float32")))
            )
        if show_trainable and hasattr(owner, "trainable"):
            rows.append("trainable: " + ("yes" if owner.trainable else "no"))
        label = "\\n".join(rows)
        lines.append(f'  n{i} [label="{label}"];')
    lines += [f"  n{a} -> n{b};" for a, b in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def plot_model(
    model,
    to_file="model.png",
    show_shapes=False,
    show_dtype=False,
    show_layer_names=True,
    rankdir="TB",
    expand_nested=False,
    dpi=200,
    show_layer_activations=False,
    show_trainable=False,
    **kwargs,
):
    """Draw ``model``'s layer graph into ``to_file`` (.png, .svg, .pdf or .dot), written atomically.

    Needs the visualizer's layout program (``pip install tapeviz[viz]`` brings
    ``graphviz-pure``); in IPython the picture is returned as an ``Image``.

    Args:
        model: a built model.
        to_file: the file to write (``.png``, ``.svg``, ``.pdf`` or ``.dot``).
        show_shapes: show each layer's output shape.
        show_dtype: show each layer's dtype.
        show_layer_names: show the layers' names.
        rankdir: ``"TB"`` (top to bottom) or ``"LR"``.
        expand_nested: draw nested models' layers.
        dpi: the picture's resolution.
        show_layer_activations: show each layer's activation.
        show_trainable: show whether each layer trains.
        **kwargs: accepted for compatibility.

    Returns:
        In IPython, for a PNG, an ``Image`` of it; else None.

    Raises:
        ValueError: another file extension.
    """
    source = model_to_dot(
        model,
        show_shapes=show_shapes,
        show_dtype=show_dtype,
        show_layer_names=show_layer_names,
        rankdir=rankdir,
        expand_nested=expand_nested,
        dpi=dpi,
        show_layer_activations=show_layer_activations,
        show_trainable=show_trainable,
    )
    extension = os.path.splitext(to_file)[1].lower().lstrip(".") or "png"
    if extension == "dot":
        data = source.encode("utf-8")
    elif extension in ("png", "svg", "pdf"):
        from tapeviz.viz import render

        data = render.run_dot(source, extension)
    else:
        raise ValueError(f"plot_model writes .png, .svg, .pdf or .dot files, got {to_file!r}.")
    from tapeviz.core.files import write_bytes

    write_bytes(to_file, data)  # all or nothing
    if extension != "png":
        return None
    try:
        from IPython import display
    except ImportError:
        return None
    return display.Image(filename=to_file)
