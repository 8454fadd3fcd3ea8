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

import io
import os
import re

import numpy as np

from tapeviz.core.files import FileFormatError, atomic_write, remove_stale_temporaries
from tapeviz.core.tensor import to_array
from tapeviz.keras.saving import registry
from tapeviz.keras.utils.naming import to_snake_case

__all__ = ["save_weights", "load_weights", "check_weights_filename", "h5py_module", "write_state", "read_state"]


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


def _is_saveable(obj):
    return isinstance(obj, (registry.part("Layer"), registry.part("Optimizer")))


def own_variables(obj):
    """What an object stores in its ``vars`` group: a layer's own weights (trainable first), an optimizer's variables."""
    if isinstance(obj, registry.part("Optimizer")):
        return obj.variables
    own = obj.__dict__.get("_own_weights", [])
    return [w for w in own if w.trainable] + [w for w in own if not w.trainable]


def _children(obj):
    """(attribute, child) pairs Keras walks: public attributes in sorted order, and a model's ``layers``."""
    attributes = {name: value for name, value in vars(obj).items() if not name.startswith("_") and name != "optimizer"}
    if isinstance(obj, registry.part("Layer")) and getattr(obj, "_lists_layers_when_saved", False):
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
        name = to_snake_case(type(item).__name__)
        if name in used:
            used[name] += 1
            name = f"{name}_{used[name]}"
        else:
            used[name] = 0
        _walk(item, f"{path}/{name}", visited, visit)


_MAX_SLOTS = 4  # slot variables an optimizer keeps per weight, at most (AMSGrad Adam: 3; RMSprop centered: 3)
_DATASET_BYTES = 64 << 10  # what HDF5 may spend around one dataset (headers, a group, attributes), generously


def capacity(model):
    """The most bytes a ``.weights.h5`` for ``model`` can take: its weights (stored up to twice as wide), an
    optimizer's slots for each trainable one, and HDF5's bookkeeping. No weights: the format's own cap."""
    weights = list(getattr(model, "weights", []))
    if not weights:
        return 1 << 31
    trainable = sum(to_array(w).nbytes for w in model.trainable_weights)
    total = sum(to_array(w).nbytes for w in weights)
    values = 2 * (total + _MAX_SLOTS * trainable)
    return values + _DATASET_BYTES * (len(weights) * (1 + _MAX_SLOTS) + 16) + (1 << 20)


def save_weights(model, filepath, overwrite=True):
    """Write ``model``'s weights (and its optimizer's state, once built) to a Keras 3 ``.weights.h5`` file.

    All or nothing: the file is written beside ``filepath`` and moved into place once complete.
    """
    with atomic_write(filepath, overwrite=overwrite) as f:
        f.write(state_bytes(model))


def state_bytes(model):
    """The bytes of a ``.weights.h5`` file holding ``model``'s state."""
    h5py = h5py_module()
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        write_state(model, f)
    return buffer.getvalue()


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
    remove_stale_temporaries(os.path.dirname(os.path.abspath(filepath)))  # what a save killed midway left there
    if not os.path.isfile(filepath):
        raise FileNotFoundError(f"No weights file at {filepath}.")
    with open(filepath, "rb") as f:
        read_state_bytes(model, f.read(), str(filepath))


def read_state_bytes(model, data, where):
    """Load the ``.weights.h5`` bytes ``data`` (from ``where``, for messages) into ``model``: all weights or none."""
    h5py = h5py_module()
    try:
        h5file = h5py.File(io.BytesIO(data), "r")
    except OSError as exc:
        raise FileFormatError(f"{where} is not a readable HDF5 weights file ({exc}).") from None
    with h5file:
        try:
            refuse_outside_storage(h5file, where)
            read_state(model, h5file, where)
        except (OSError, KeyError, RuntimeError, TypeError, AttributeError) as exc:  # h5py on a damaged file
            raise FileFormatError(f"{where} is a damaged weights file: {type(exc).__name__}: {exc}") from None


def refuse_outside_storage(h5file, where="the weights file"):
    """Keras 3's rule: no soft or external links, external or virtual datasets: a weights file holds its own bytes.

    Checked for every object before any is read, so no byte from another file reaches a weight.
    """
    h5py = h5py_module()
    pending = [h5file]
    while pending:
        group = pending.pop()
        for name in group:
            link = group.get(name, getlink=True)
            if isinstance(link, (h5py.SoftLink, h5py.ExternalLink)):
                raise FileFormatError(
                    f"Not allowed: H5 file with {type(link).__name__} ({group.name.rstrip('/')}/{name} in {where}). "
                    "A weights file must hold its own data; links can make a load read another file."
                )
            item = group.get(name)
            if isinstance(item, h5py.Group):
                pending.append(item)
            elif isinstance(item, h5py.Dataset):
                if item.external:
                    raise FileFormatError(
                        f"Not allowed: H5 file with external Dataset: {item.external} ({item.name} in {where})."
                    )
                if item.is_virtual:
                    raise FileFormatError(f"Not allowed: H5 file with virtual Dataset ({item.name} in {where}).")
            else:
                raise FileFormatError(f"Not allowed: {item!r} at {group.name}/{name} in {where}.")


def read_state(model, h5file, where="the weights file"):
    """Check every stored value against ``model``'s variables, then assign them all; nothing changes on an error."""
    if not model.built or (not model.weights and _file_has_layer_weights(h5file)):
        raise ValueError(
            "You are loading weights into a model that has not yet been built. "
            "Try building the model first by calling it on some data or by using `build()`."
        )
    failures, assignments = [], []

    def visit(obj, path):
        group_path = f"{path}/vars" if path else "vars"
        stored = h5file.get(group_path, {})
        if not isinstance(stored, (dict, h5py_module().Group)):
            failures.append((obj, ValueError(f"{group_path} in {where} is not a group of weights.")))
            return
        try:
            assignments.extend(_checked_values(obj, stored, where))
        except ValueError as exc:
            failures.append((obj, exc))

    _walk(model, "", set(), visit)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and "optimizer/vars" in h5file and not failures:
        if not optimizer.built:
            optimizer.build(model.trainable_variables)
        _walk(optimizer, "optimizer", set(), visit)
    if failures:
        obj, exc = failures[0]
        raise ValueError(
            f"A total of {len(failures)} objects could not be loaded. Example error message for object {obj!r}:\n\n"
            f"{exc}\n\nList of objects that could not be loaded:\n[{', '.join(repr(o) for o, _ in failures)}]"
        )
    for variable, value in assignments:
        variable.assign(value)


def _file_has_layer_weights(h5file):
    found = []
    h5file.visit(
        lambda name: found.append(name) if re.search(r"vars/\d+$", name) and not name.startswith("optimizer") else None
    )
    return bool(found)


def _checked_values(obj, stored, where):
    """(variable, value) for each of ``obj``'s variables, every value checked before any is assigned."""
    variables = own_variables(obj)
    if len(stored) != len(variables):
        what = "Layer" if not hasattr(obj, "apply_gradients") else "Optimizer"
        raise ValueError(
            f"{what} '{obj.name}' expected {len(variables)} variables, but received {len(stored)} variables during "
            f"loading. Expected: {[v.name for v in variables]}"
        )
    pairs = []
    for index, variable in enumerate(variables):
        dataset = stored.get(str(index))
        if dataset is None or not hasattr(dataset, "dtype") or dataset.dtype.kind not in "biuf":
            raise ValueError(f"Weight {index} of '{obj.name}' in {where} is missing or does not hold numbers.")
        if tuple(dataset.shape) != tuple(variable.shape):
            raise ValueError(
                "The shape of the target variable and the shape of the target value in `variable.assign(value)` "
                f"must match. variable.shape={tuple(variable.shape)}, Received: value.shape={tuple(dataset.shape)}. "
                f"Target variable: {variable!r}"
            )
        try:
            value = np.asarray(dataset).astype(variable.dtype.as_numpy_dtype)
        except (OSError, ValueError, TypeError) as exc:
            raise ValueError(f"Weight {index} of '{obj.name}' in {where} cannot be read: {exc}") from None
        pairs.append((variable, value))
    return pairs
