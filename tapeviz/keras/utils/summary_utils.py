"""``model.summary()``: the table drawn by rich, as Keras 3 draws it (its ``keras/src/utils/summary_utils.py``).

The same rich calls as Keras make the same characters: a ``rich.table.Table``
of fixed column widths (``line_length`` split at ``positions``), a rule
between rows, then the parameter counts and sizes. The text is captured
without colour (Keras's ``print_fn`` path) and handed to ``print_fn`` whole,
or written to stdout, so notebooks and logs show plain text. rich is an
optional extra: ``pip install "tapeviz[keras]"``.
"""

import re
import shutil
import sys

import numpy as np


def _rich():
    try:
        import rich.console
        import rich.table
        import rich.text
    except ImportError:
        raise ImportError(
            'model.summary() draws its table with rich, which is not installed: pip install "tapeviz[keras]"'
        ) from None
    return rich


def _count(weights):
    return sum(int(np.prod(w.shape)) for w in weights)


def _bytes(weights):
    unique = {id(w): w for w in weights}.values()
    return float(sum(int(np.prod(w.shape)) * np.dtype(w.dtype.as_numpy_dtype).itemsize for w in unique))


def readable_memory_size(size):
    """Bytes as Keras writes them: '1.00 KB' for 1024, two decimals, units up to PB."""
    for unit in ["B", "KB", "MB", "GB", "TB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _shape_text(shape):
    if shape is None:
        return "?"
    if shape and isinstance(shape[0], (tuple, list)):
        return str([_shape_text(s) for s in shape]).replace("'", "")
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _layer_cells(layer, row, prefix, connected, show_trainable):
    if not layer.built:
        params = "0 (unbuilt)"
    else:
        params = f"{layer.count_params():,}"
    cells = [f"{prefix}{layer.name} ({type(layer).__name__})", _shape_text(row.get("shape")), params]
    if connected:
        cells.append(row.get("connections") or "-")
    if show_trainable:
        cells.append(("Y" if layer.trainable else "N") if layer.weights else "-")
    return cells


def layer_range_bounds(names, layer_range):
    """``[start, stop)`` of the rows from the first name matching ``layer_range[0]`` to the last matching ``[1]``."""
    if layer_range is None:
        return 0, len(names)
    if len(layer_range) != 2:
        raise ValueError(
            "layer_range must be a list or tuple of length 2. Received: "
            f"layer_range = {layer_range} of length {len(layer_range)}"
        )
    if not all(isinstance(pattern, str) for pattern in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, name in enumerate(names) if re.match(layer_range[0], name)]
    upper = [i for i, name in enumerate(names) if re.match(layer_range[1], name)]
    if not lower or not upper:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. Received: {layer_range}")
    if min(lower) > max(upper):
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


def column_widths(line_length, positions):
    """Each column's width: ``positions`` are fractions (or absolute ends) of ``line_length``, as Keras's."""
    widths, current = [], 0
    for position in positions:
        width = int(position * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    return widths


def summary_text(
    model,
    rows,
    connected,
    line_length=None,
    positions=None,
    expand_nested=False,
    show_trainable=False,
    layer_range=None,
):
    """The whole summary as one string ending in a newline.

    ``rows`` lists ``{"layer", "shape", "connections"}`` in Keras's order;
    ``connected`` adds the "Connected to" column (a functional model that is
    not a plain chain); ``layer_range`` keeps the rows between two name
    patterns (regular expressions), both included; ``positions`` are where
    the columns end, as fractions of ``line_length``.
    """
    rich = _rich()
    if connected:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        justify = ["left", "left", "right", "left"]
    else:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        justify = ["left", "left", "right"]
    if show_trainable:
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        justify.append("center")
    # Keras narrows the default to the terminal, as here.
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    columns = [
        rich.table.Column(name, justify=align, width=width)
        for name, align, width in zip(header, justify, column_widths(line_length, positions))
    ]
    table = rich.table.Table(*columns, width=line_length, show_lines=True)

    def add(layer, row, level):
        prefix = "   " * level + "└ " if level else ""
        # Text cells: a layer's name is shown as written, never read as rich markup.
        table.add_row(*map(rich.text.Text, _layer_cells(layer, row, prefix, connected, show_trainable)))
        if expand_nested and getattr(layer, "layers", None):
            for inner in layer.layers:
                add(inner, {"shape": getattr(inner, "_output_shape", None)}, level + 1)

    start, stop = layer_range_bounds([row["layer"].name for row in rows], layer_range)
    for row in rows[start:stop]:
        add(row["layer"], row, 0)

    trainable, frozen = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    built = getattr(model, "compiled", False) and optimizer is not None and optimizer.built
    optimizer_weights = list(optimizer.variables) if built else None
    total_count = _count(trainable) + _count(frozen) + _count(optimizer_weights or [])
    total_bytes = _bytes(trainable) + _bytes(frozen) + _bytes(optimizer_weights or [])

    # Keras's console when it is given a print_fn: no terminal codes, no colour, text captured.
    console = rich.console.Console(highlight=False, force_terminal=False, color_system=None)
    console.begin_capture()
    console.print(rich.text.Text(f'Model: "{model.name}"'))
    console.print(table)
    counts = [
        ("Total params", total_count, total_bytes),
        ("Trainable params", _count(trainable), _bytes(trainable)),
        ("Non-trainable params", _count(frozen), _bytes(frozen)),
    ]
    if optimizer_weights is not None:
        counts.append(("Optimizer params", _count(optimizer_weights), _bytes(optimizer_weights)))
    for label, count, size in counts:
        console.print(rich.text.Text(f" {label}: {count:,} ({readable_memory_size(size)})"))
    return console.end_capture()


def emit(text, print_fn=None):
    """Keras hands ``print_fn`` the whole text at once; without one it writes to stdout."""
    if print_fn is None:
        sys.stdout.write(text)
    else:
        print_fn(text)
