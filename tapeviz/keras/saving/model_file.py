"""``model.save('name.keras')`` and ``keras.models.load_model``: a whole model in one zip file.

The zip holds, as Keras 3's does, ``metadata.json``, ``config.json`` and
``model.weights.h5``. The weights file is Keras 3's layout (a Keras model of
the same structure can ``load_weights`` it, and tapeviz can ``load_weights``
a Keras ``.keras`` file). config.json is tapeviz's own description (see
``config.py``): Sequential and functional models of built-in layers load
with no help; custom layers and subclassed models need ``custom_objects`` or
``@keras.saving.register_keras_serializable()``, as in Keras, and a
subclassed model is rebuilt by calling it on zeros of the input shape it was
first called with. The compiled optimizer, loss and metrics come back, with
the optimizer's state.
"""

import datetime
import io
import json
import zipfile

from tapeviz.keras.saving import weights as weights_io
from tapeviz.keras.saving.config import FORMAT, deserialize, serialize

__all__ = ["save_model", "load_model"]

_SAVE_SUFFIX_ERROR = (
    "Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format "
    "(recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use "
    "with TFLite/TFServing/etc. Received: filepath={path}."
)


def save_model(model, filepath, overwrite=True, **kwargs):
    """Write ``model`` (architecture, weights, compile state) to a ``.keras`` zip file."""
    path = str(filepath)
    if path.endswith(".h5"):
        raise ValueError(
            f"tapeviz saves whole models in the native `.keras` format only (Keras 3's recommended one), not the legacy "
            f"HDF5 format: use model.save('{path[:-3]}.keras'), or model.save_weights('{path[:-3]}.weights.h5') for "
            "the weights alone."
        )
    if not path.endswith(".keras"):
        raise ValueError(_SAVE_SUFFIX_ERROR.format(path=path))
    h5py = weights_io.h5py_module()
    config = {"format": FORMAT, "version": 1, "model": describe_model(model)}
    if getattr(model, "compiled", False):
        config["compile"] = serialize(model._compile_args)
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        weights_io.write_state(model, f)
    from tapeviz import __version__

    metadata = {
        "keras_version": "3 (tapeviz)",
        "tapeviz_version": __version__,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("metadata.json", json.dumps(metadata))
        z.writestr("config.json", json.dumps(config))
        z.writestr("model.weights.h5", buffer.getvalue())


def describe_model(model):
    """JSON data for a model or layer: Sequential and functional models by structure, others by constructor."""
    from tapeviz.keras.models import Sequential

    if isinstance(model, Sequential):
        return {
            "__sequential__": model.name,
            "trainable": model.trainable,
            "layers": [describe_model(layer) for layer in model._layers],
            "build_input_shape": _shape(model.__dict__.get("_build_input_shape")),
        }
    if getattr(model, "_functional", None) is not None:
        return _describe_functional(model)
    data = serialize(model)
    data["name"] = model.name
    data["build_input_shape"] = _shape(model.__dict__.get("_build_input_shape"))
    return data


def _shape(shape):
    return None if shape is None else serialize(shape)


def _describe_functional(model):
    inputs, outputs, order = model._functional
    layers, layer_ids, nodes = [], {}, []
    node_index = {id(node): i for i, node in enumerate(order)}
    for node in order:
        if node.layer is None:
            nodes.append({"input": True, "shape": list(node.shape), "dtype": node.dtype, "name": node.name})
            continue
        layer, args, kwargs = node.layer
        if id(layer) not in layer_ids:
            layer_ids[id(layer)] = len(layers)
            layers.append(describe_model(layer))
        nodes.append(
            {
                "layer": layer_ids[id(layer)],
                "parents": [node_index[id(p)] for p in node.parents],
                "args": serialize(list(args)),
                "kwargs": serialize({k: v for k, v in kwargs.items() if k != "training"}),
            }
        )

    def where(structure):
        from tapeviz.core import nest

        return serialize(nest.map_structure(lambda t: node_index[id(t)], structure))

    return {
        "__functional__": model.name,
        "layers": layers,
        "nodes": nodes,
        "inputs": where(inputs),
        "outputs": where(outputs),
    }


def rebuild_model(data, custom_objects=None):
    """The model (or layer) ``data`` describes, built, with fresh weights."""
    from tapeviz.keras.models import Sequential

    if "__sequential__" in data:
        layers = [rebuild_model(d, custom_objects) for d in data["layers"]]
        model = Sequential(layers, name=data["__sequential__"], trainable=data.get("trainable", True))
        shape = deserialize(data.get("build_input_shape"))
        if not model.built and shape is not None:
            model.build(shape)
        return model
    if "__functional__" in data:
        return _rebuild_functional(data, custom_objects)
    name = data.get("name")
    obj = deserialize({k: v for k, v in data.items() if k not in ("name", "build_input_shape")}, custom_objects)
    if name is not None:
        obj.name = name
    shape = deserialize(data.get("build_input_shape"))
    from tapeviz.keras.models import Model

    if shape is not None and not obj.built and isinstance(obj, Model):
        obj.build(shape)  # a subclassed model: run zeros through it (plain layers are built by their container)
    return obj


def _rebuild_functional(data, custom_objects):
    from tapeviz.core import nest
    from tapeviz.keras.layers.core import Input
    from tapeviz.keras.models import Model

    layers = [rebuild_model(d, custom_objects) for d in data["layers"]]
    built = []
    for node in data["nodes"]:
        if node.get("input"):
            built.append(
                Input(
                    shape=tuple(node["shape"][1:]), batch_size=node["shape"][0], dtype=node["dtype"], name=node["name"]
                )
            )
            continue
        parents = [built[i] for i in node["parents"]]
        args = deserialize(node["args"], custom_objects)
        kwargs = deserialize(node["kwargs"], custom_objects)
        built.append(layers[node["layer"]](parents[0] if len(parents) == 1 else parents, *args, **kwargs))
    inputs = nest.map_structure(lambda i: built[i], deserialize(data["inputs"]))
    outputs = nest.map_structure(lambda i: built[i], deserialize(data["outputs"]))
    return Model(inputs=inputs, outputs=outputs, name=data["__functional__"])


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model saved by ``model.save('name.keras')`` (tapeviz's), with its weights and compile state."""
    path = str(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"File format not supported: filepath={path}. Keras 3 only supports V3 `.keras` files, legacy H5 format "
            "files (`.h5` extension). Note that the legacy SavedModel format is not supported by `load_model()` in "
            "Keras 3. In order to reload a TensorFlow SavedModel as an inference-only layer in Keras 3, use "
            f"`keras.layers.TFSMLayer({path}, call_endpoint='serving_default')` (note that your `call_endpoint` "
            "might have a different name)."
        )
    h5py = weights_io.h5py_module()
    with zipfile.ZipFile(path) as z:
        config = json.loads(z.read("config.json"))
        weights = z.read("model.weights.h5")
    if config.get("format") != FORMAT:
        raise ValueError(
            f"{path} is a .keras file written by Keras, whose config tapeviz cannot rebuild. Rebuild the model in "
            f"code and call model.load_weights({path!r}): the weights inside are in Keras 3's layout."
        )
    model = rebuild_model(config["model"], custom_objects)
    if compile and "compile" in config:
        model.compile(**deserialize(config["compile"], custom_objects))
    with h5py.File(io.BytesIO(weights), "r") as f:
        weights_io.read_state(model, f)
    return model


def load_weights_from_keras_file(model, filepath):
    """``model.load_weights('name.keras')``: the weights inside a .keras zip (Keras's or tapeviz's)."""
    h5py = weights_io.h5py_module()
    with zipfile.ZipFile(str(filepath)) as z:
        weights = z.read("model.weights.h5")
    with h5py.File(io.BytesIO(weights), "r") as f:
        weights_io.read_state(model, f)
