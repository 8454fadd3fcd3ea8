"""Keras 3's ``.weights.h5`` files: the same layout as Keras writes, so weights move both ways.

The file holds one HDF5 group per layer (and the optimizer), at the path
Keras 3 gives it: an attribute name (``dense_a/vars``), a container and the
snake-cased class name, numbered per class (``layers/dense_1/vars``), and a
nested layer under its parent (``layers/lstm/cell/vars``). Each ``vars``
group holds that object's own variables as datasets ``0, 1, ...`` in Keras's
order (trainable first). Objects are visited in the order Keras visits them
(attribute names sorted), each once.

h5py is needed to read and write the files (``pip install h5py`` or
``pip install 'tapeviz[saving]'``); nothing else in tapeviz needs it.
"""

import re

import numpy as np

__all__ = ["save_weights", "load_weights", "check_weights_filename", "h5py_module"]


def h5py_module():
    try:
        import h5py
    except ImportError as exc:
        raise ImportError(
            "Saving and loading Keras weights files (.weights.h5, .keras) needs h5py: "
            "pip install h5py  (or pip install 'tapeviz[saving]')."
        ) from exc
    return h5py


def check_weights_filename(filepath):
    """Keras 3's rule: ``save_weights`` writes ``*.weights.h5`` only."""
    if not str(filepath).endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")


def _snake_case(name):
    from tapeviz.keras.layers.base import _snake_case as snake

    return snake(name)


def _is_saveable(obj):
    from tapeviz.keras.layers.base import Layer
    from tapeviz.keras.optimizers.base import Optimizer

    return isinstance(obj, (Layer, Optimizer))


def own_variables(obj):
    """What an object stores in its ``vars`` group: a layer's own weights (trainable first), an optimizer's variables."""
    from tapeviz.keras.optimizers.base import Optimizer

    if isinstance(obj, Optimizer):
        return obj.variables
    own = obj.__dict__.get("_own_weights", [])
    return [w for w in own if w.trainable] + [w for w in own if not w.trainable]


def _children(obj):
    """(attribute, child) pairs Keras walks: public attributes in sorted order, and a model's ``layers``."""
    from tapeviz.keras.layers.base import Layer

    attributes = {name: value for name, value in vars(obj).items() if not name.startswith("_") and name != "optimizer"}
    if isinstance(obj, Layer) and getattr(obj, "_lists_layers_when_saved", False):
        attributes["layers"] = obj.layers
    for name in sorted(attributes):
        value = attributes[name]
        if _is_saveable(value) or (isinstance(value, (list, tuple, dict)) and value):
            yield name, value


def _walk(obj, path, visited, visit):
    """Call ``visit(obj, path)`` for ``obj`` and every saveable object under it, depth first, each once."""
    if id(obj) in visited:
        return
    visited.add(id(obj))
    visit(obj, path)
    for name, child in _children(obj):
        child_path = f"{path}/{name}" if path else name
        if _is_saveable(child):
            _walk(child, child_path, visited, visit)
        else:
            _walk_container(child, child_path, visited, visit)


def _walk_container(container, path, visited, visit):
    items = list(container.values()) if isinstance(container, dict) else list(container)
    used = {}
    for item in items:
        if not _is_saveable(item):
            continue
        name = _snake_case(type(item).__name__)
        if name in used:
            used[name] += 1
            name = f"{name}_{used[name]}"
        else:
            used[name] = 0
        _walk(item, f"{path}/{name}", visited, visit)


def save_weights(model, filepath):
    """Write ``model``'s weights (and its optimizer's state, once built) to a Keras 3 ``.weights.h5`` file."""
    h5py = h5py_module()
    with h5py.File(filepath, "w") as f:
        write_state(model, f)


def write_state(model, h5file):
    def visit(obj, path):
        group = h5file.require_group(f"{path}/vars" if path else "vars")
        group.attrs["name"] = getattr(obj, "name", type(obj).__name__)
        for index, variable in enumerate(own_variables(obj)):
            group.create_dataset(str(index), data=variable.numpy())

    _walk(model, "", set(), visit)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and getattr(optimizer, "built", False) and "optimizer" not in h5file:
        _walk(optimizer, "optimizer", set(), visit)


def load_weights(model, filepath):
    """Read a Keras 3 ``.weights.h5`` file (Keras's or tapeviz's) into ``model``, which must be built."""
    h5py = h5py_module()
    with h5py.File(filepath, "r") as f:
        read_state(model, f)


def read_state(model, h5file):
    if not model.built or (not model.weights and _file_has_layer_weights(h5file)):
        raise ValueError(
            "You are loading weights into a model that has not yet been built. "
            "Try building the model first by calling it on some data or by using `build()`."
        )
    failures = []

    def visit(obj, path):
        group_path = f"{path}/vars" if path else "vars"
        stored = h5file[group_path] if group_path in h5file else {}
        try:
            _assign_own(obj, stored)
        except ValueError as exc:
            failures.append((obj, exc))

    _walk(model, "", set(), visit)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and "optimizer/vars" in h5file:
        if not optimizer.built:
            optimizer.build(model.trainable_variables)
        _walk(optimizer, "optimizer", set(), visit)
    if failures:
        obj, exc = failures[0]
        raise ValueError(
            f"A total of {len(failures)} objects could not be loaded. Example error message for object {obj!r}:\n\n"
            f"{exc}\n\nList of objects that could not be loaded:\n[{', '.join(repr(o) for o, _ in failures)}]"
        )


def _file_has_layer_weights(h5file):
    found = []
    h5file.visit(
        lambda name: found.append(name) if re.search(r"vars/\d+$", name) and not name.startswith("optimizer") else None
    )
    return bool(found)


def _assign_own(obj, stored):
    variables = own_variables(obj)
    if len(stored) != len(variables):
        what = "Layer" if not hasattr(obj, "apply_gradients") else "Optimizer"
        raise ValueError(
            f"{what} '{obj.name}' expected {len(variables)} variables, but received {len(stored)} variables during "
            f"loading. Expected: {[v.name for v in variables]}"
        )
    for index, variable in enumerate(variables):
        value = np.asarray(stored[str(index)])
        if tuple(value.shape) != tuple(variable.shape):
            raise ValueError(
                "The shape of the target variable and the shape of the target value in `variable.assign(value)` "
                f"must match. variable.shape={tuple(variable.shape)}, Received: value.shape={tuple(value.shape)}. "
                f"Target variable: {variable!r}"
            )
        variable.assign(value.astype(variable.dtype.as_numpy_dtype))
