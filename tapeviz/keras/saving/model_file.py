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

A file is data: loading calls only the classes ``registry.py`` allows, runs
a saved lambda only with ``safe_mode=False``, refuses HDF5 links and
external storage, and reports any malformed file as ``FileFormatError`` (a
``ValueError``). Saving writes a temporary file and replaces the target only
when complete.
"""

import datetime
import importlib.metadata
import json
import os
import zipfile
import zlib

from tapeviz.core import nest
from tapeviz.core.files import FileFormatError, atomic_write, remove_stale_temporaries
from tapeviz.keras.saving import registry
from tapeviz.keras.saving import weights as weights_io
from tapeviz.keras.saving.config import FORMAT, deserialize, serialize

__all__ = ["save_model", "load_model", "load_weights_from_keras_file"]

_SAVE_SUFFIX_ERROR = (
    "Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format "
    "(recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use "
    "with TFLite/TFServing/etc. Received: filepath={path}."
)
_MAX_MEMBER_BYTES = 1 << 31  # a zip member claiming more than 2 GiB is refused before it is inflated
_MAX_CONFIG_BYTES = 64 << 20  # a config.json claiming more is refused before it is inflated


def save_model(model, filepath, overwrite=True, **kwargs):
    """Write ``model`` (architecture, weights, compile state) to a ``.keras`` zip file, all or nothing.

    ``overwrite=False`` and an existing file: Keras asks; tapeviz raises ``FileExistsError`` and writes nothing.

    Args:
        model: the model.
        filepath: a path ending in ``.keras``.
        overwrite: replace an existing file (False: ``FileExistsError``).
        **kwargs: Keras options accepted for compatibility (``zipped``...).

    Raises:
        ValueError: a path ending in ``.h5`` (HDF5 is not written) or not in ``.keras``.
    """
    path = str(filepath)
    if path.endswith(".h5"):
        raise ValueError(
            f"tapeviz saves whole models in the native `.keras` format only (Keras 3's recommended one), not the legacy "
            f"HDF5 format: use model.save('{path[:-3]}.keras'), or model.save_weights('{path[:-3]}.weights.h5') for "
            "the weights alone."
        )
    if not path.endswith(".keras"):
        raise ValueError(_SAVE_SUFFIX_ERROR.format(path=path))
    config = {"format": FORMAT, "version": 1, "model": describe_model(model)}
    if getattr(model, "compiled", False):
        config["compile"] = serialize(model._compile_args)
    weights = weights_io.state_bytes(model)
    metadata = {
        "keras_version": "3 (tapeviz)",
        "tapeviz_version": _tapeviz_version(),
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    with atomic_write(path, overwrite=overwrite) as f:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("metadata.json", json.dumps(metadata))
            z.writestr("config.json", json.dumps(config))
            z.writestr("model.weights.h5", weights)


def _tapeviz_version():
    try:
        return importlib.metadata.version("tapeviz")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def describe_model(model):
    """JSON data for a model or layer: Sequential and functional models by structure, others by constructor."""
    if isinstance(model, registry.part("Sequential")):
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
        return serialize(nest.map_structure(lambda t: node_index[id(t)], structure))

    return {
        "__functional__": model.name,
        "layers": layers,
        "nodes": nodes,
        "inputs": where(inputs),
        "outputs": where(outputs),
    }


class _Rebuilder:
    """Builds the model a config describes, calling only what ``deserialize`` allows."""

    def __init__(self, custom_objects, safe_mode):
        self.custom_objects = custom_objects
        self.safe_mode = safe_mode

    def read(self, data):
        return deserialize(data, self.custom_objects, self.safe_mode)

    def model(self, data):
        if not isinstance(data, dict):
            raise FileFormatError(f"A model in config.json must be an object, got {type(data).__name__}.")
        if "__sequential__" in data:
            layers = [self.model(d) for d in _list(data.get("layers"), "layers")]
            Sequential = registry.part("Sequential")
            model = Sequential(layers, name=_text(data["__sequential__"]), trainable=bool(data.get("trainable", True)))
            shape = self.read(data.get("build_input_shape"))
            if not model.built and shape is not None:
                model.build(shape)
            return model
        if "__functional__" in data:
            return self.functional(data)
        name = data.get("name")
        obj = self.read({k: v for k, v in data.items() if k not in ("name", "build_input_shape")})
        if not isinstance(obj, registry.part("Layer")):
            raise FileFormatError(f"config.json describes a {type(obj).__name__} where a layer or model belongs.")
        if name is not None:
            obj.name = _text(name)
        shape = self.read(data.get("build_input_shape"))
        if shape is not None and not obj.built and isinstance(obj, registry.part("Model")):
            obj.build(shape)  # a subclassed model: run zeros through it (plain layers are built by their container)
        return obj

    def functional(self, data):
        layers = [self.model(d) for d in _list(data.get("layers"), "layers")]
        Input = registry.part("Input")
        built = []
        for node in _list(data.get("nodes"), "nodes"):
            if node.get("input"):
                shape = [None if n is None else int(n) for n in _list(node["shape"], "shape")]
                built.append(Input(shape=tuple(shape[1:]), batch_size=shape[0], dtype=node["dtype"], name=node["name"]))
                continue
            parents = [built[_index(i, len(built))] for i in _list(node["parents"], "parents")]
            args = self.read(node["args"])
            kwargs = self.read(node["kwargs"])
            layer = layers[_index(node["layer"], len(layers))]
            built.append(layer(parents[0] if len(parents) == 1 else parents, *args, **kwargs))
        inputs = nest.map_structure(lambda i: built[_index(i, len(built))], self.read(data["inputs"]))
        outputs = nest.map_structure(lambda i: built[_index(i, len(built))], self.read(data["outputs"]))
        return registry.part("Model")(inputs=inputs, outputs=outputs, name=_text(data["__functional__"]))


def _list(value, what):
    if not isinstance(value, list):
        raise FileFormatError(f"'{what}' in config.json must be a list.")
    return value


def _text(value):
    if not isinstance(value, str):
        raise FileFormatError(f"A name in config.json must be a string, got {value!r}.")
    return value


def _index(value, size):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise FileFormatError(f"A node index in config.json is out of range: {value!r}.")
    return value


def rebuild_model(data, custom_objects=None, safe_mode=True):
    """The model (or layer) ``data`` describes, built, with fresh weights."""
    return _Rebuilder(custom_objects, safe_mode).model(data)


def _read_members(path, names, limit=_MAX_MEMBER_BYTES, also=()):
    """The bytes of ``names`` inside the zip at ``path``, as a clear error for anything but a readable zip.

    A member claiming more than ``limit`` bytes is refused before it is inflated, and none is
    inflated past what it claims (zipfile stops there). ``also``: members that must be there, not read now.
    """
    try:
        with zipfile.ZipFile(path) as z:
            for name in [*names, *also]:
                if name not in z.namelist():
                    raise FileFormatError(f"{path} is not a .keras model file: it has no {name!r}.")
            found = {}
            for name in names:
                info = z.getinfo(name)
                if info.file_size > limit:
                    raise FileFormatError(
                        f"{path}: {name} claims {info.file_size} bytes, more than a model file for this model holds "
                        f"({limit})."
                    )
                found[name] = z.read(info)
            return found
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise  # the path, not the file's content: the usual OSError
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        RuntimeError,
        EOFError,
        NotImplementedError,
        ValueError,
        OSError,
    ) as exc:
        if isinstance(exc, FileFormatError):
            raise
        raise FileFormatError(f"{path} is not a readable .keras (zip) file: {exc}") from None


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model saved by ``model.save('name.keras')`` (tapeviz's), with its weights and compile state.

    Only tapeviz's own Keras classes and functions, those registered with
    ``register_keras_serializable`` and those in ``custom_objects`` are called;
    a saved lambda is Python code, run only with ``safe_mode=False``.

    Args:
        filepath: a ``.keras`` file written by ``model.save``.
        custom_objects: ``{"name": class_or_function}`` for your own layers,
            losses... (or register them with ``register_keras_serializable``).
        compile: restore the optimizer, loss and metrics too.
        safe_mode: refuse to run saved lambdas (Python code in the file).

    Returns:
        The model, with its weights (and, with ``compile``, its compile state).

    Raises:
        ValueError: a path that is not a ``.keras`` file, a class that is
            neither tapeviz's, registered nor in ``custom_objects``, or a
            lambda with ``safe_mode=True``.

    Example:
        >>> import os, tempfile
        >>> import tapeviz as tf
        >>> model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
        >>> model.save(path)
        >>> restored = tf.keras.models.load_model(path)
        >>> bool((restored.predict(tf.ones((1, 3)), verbose=0) == model.predict(tf.ones((1, 3)), verbose=0)).all())
        True
    """
    path = str(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"File format not supported: filepath={path}. Keras 3 only supports V3 `.keras` files, legacy H5 format "
            "files (`.h5` extension). Note that the legacy SavedModel format is not supported by `load_model()` in "
            "Keras 3. In order to reload a TensorFlow SavedModel as an inference-only layer in Keras 3, use "
            f"`keras.layers.TFSMLayer({path}, call_endpoint='serving_default')` (note that your `call_endpoint` "
            "might have a different name)."
        )
    remove_stale_temporaries(os.path.dirname(os.path.abspath(path)))  # what a save killed midway left there
    members = _read_members(path, ["config.json"], _MAX_CONFIG_BYTES, also=["model.weights.h5"])
    try:
        config = json.loads(members["config.json"])
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"{path}: config.json is not JSON ({exc}).") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise FileFormatError(
            f"{path} is a .keras file written by Keras, whose config tapeviz cannot rebuild. Rebuild the model in "
            f"code and call model.load_weights({path!r}): the weights inside are in Keras 3's layout."
        )
    rebuild = _Rebuilder(custom_objects, safe_mode)
    try:
        model = rebuild.model(config.get("model"))
        if compile and "compile" in config:
            compile_args = rebuild.read(config["compile"])
            if not isinstance(compile_args, dict):
                raise FileFormatError("'compile' in config.json must describe keyword arguments.")
            model.compile(**compile_args)
    except ValueError:
        raise  # a clear error already (an unknown class, a lambda in safe mode, a bad entry)
    except Exception as exc:  # a constructor given what no saved model gives it
        raise FileFormatError(
            f"{path}: the model in config.json cannot be rebuilt: {type(exc).__name__}: {exc}"
        ) from exc
    load_weights_from_keras_file(model, path)
    return model


def load_weights_from_keras_file(model, filepath):
    """``model.load_weights('name.keras')``: the weights inside a .keras zip (Keras's or tapeviz's).

    The weights file is inflated only up to what ``model`` can hold (``weights_io.capacity``).
    """
    path = str(filepath)
    weights = _read_members(path, ["model.weights.h5"], weights_io.capacity(model))["model.weights.h5"]
    weights_io.read_state_bytes(model, weights, f"{path} (model.weights.h5)")
