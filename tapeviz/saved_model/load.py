"""``tf.saved_model.load``: the restored object (or the user's class rebuilt), from a folder read as data."""

import os

import numpy as np

from tapeviz.core.files import (
    FileFormatError,
    NpzArrays,
    remove_stale_temporaries,
)
from tapeviz.core.tensor import Variable
from tapeviz.keras.saving import registry
from tapeviz.keras.saving.config import deserialize
from tapeviz.keras.saving.model_file import load_model
from tapeviz.module import Module
from tapeviz.saved_model import functions as saved_functions
from tapeviz.saved_model import held
from tapeviz.saved_model.manifest import MANIFEST, NUMERIC_KINDS, data_file_name, read_manifest


def load(export_dir, tags=None, options=None, custom_objects=None):
    """The object saved in ``export_dir`` by ``tf.saved_model.save`` (see the module's notes).

    ``custom_objects`` maps a class name to the class to rebuild (tapeviz's
    addition: TF always returns a restored object). A malformed or hostile
    folder raises ``FileFormatError`` (a ``ValueError``); nothing named in it
    is imported, called or written.

    Args:
        export_dir: a directory written by ``tf.saved_model.save``.
        tags: accepted for TensorFlow compatibility.
        options: accepted for TensorFlow compatibility.
        custom_objects: ``{"ClassName": cls}``: rebuild a real instance of ``cls``.

    Returns:
        A restored object holding the variables and the saved ``tf.function``s
        at their attribute paths (and ``.signatures``), or an instance of the
        class you passed (a Keras model for a saved model).

    Raises:
        OSError: no saved object in ``export_dir``.
        ValueError: a TensorFlow SavedModel (graphs tapeviz cannot run), or a
            malformed folder (``FileFormatError``).

    Example:
        >>> import tempfile
        >>> import tapeviz as tf
        >>> module = tf.Module()
        >>> module.v = tf.Variable([1.0, 2.0])
        >>> folder = tempfile.mkdtemp()
        >>> tf.saved_model.save(module, folder)
        >>> print(tf.saved_model.load(folder).v.numpy())
        [1. 2.]
    """
    export_dir = os.fspath(export_dir)
    manifest_path = os.path.join(export_dir, MANIFEST)
    remove_stale_temporaries(export_dir)  # what a save killed midway left in this folder
    if not os.path.isfile(manifest_path):
        if os.path.exists(os.path.join(export_dir, "saved_model.pb")):
            raise ValueError(
                f"{export_dir} is a TensorFlow SavedModel (a graph), which tapeviz cannot run. Save the object with "
                "tapeviz's tf.saved_model.save, or rebuild the model in code and load its weights."
            )
        raise OSError(f"SavedModel file does not exist at: {export_dir}")
    manifest = read_manifest(manifest_path)
    data_path = os.path.join(export_dir, data_file_name(manifest))
    if manifest["kind"] == "keras":
        return load_model(data_path, custom_objects=custom_objects)
    values = _read_values(data_path, manifest["variables"])
    try:  # built (never run) whether or not a class is given: a malformed function is refused either way
        restored = _Restored.from_manifest(manifest, values)
    except ValueError as exc:
        raise FileFormatError(f"{manifest_path} is malformed: {exc}") from None
    cls = _registered_class(manifest["class"], custom_objects)
    if cls is not None:
        obj = _rebuild(cls, manifest, custom_objects)
        variables = _saved_order(obj, [v.shape for v in values]) if obj is not None else None
        if variables is not None:
            for variable, value in zip(variables, values):
                variable.assign(value)
            return obj
    return restored


def _read_values(path, variables):
    """The saved arrays, read by the reader checkpoints share: each member's size and header checked against
    the manifest's numeric dtype and shape before anything is inflated, and never inflated past those bytes."""
    declared = {}
    for i, info in enumerate(variables):
        expected = np.dtype(info["dtype"]) if info["dtype"] in np.sctypeDict else None
        if expected is None or expected.kind not in NUMERIC_KINDS or any(n < 0 for n in info["shape"]):
            raise FileFormatError(
                f"{path}: variable {i} is not the numbers the manifest describes ({info['dtype']} {info['shape']})."
            )
        declared[f"variable {i}"] = (f"{i}.npy", expected, info["shape"])
    arrays = NpzArrays(path, declared, "the SavedModel's variables")
    return [arrays.read(key) for key in declared]


def _registered_class(info, custom_objects):
    """The tf.Module class the user passed in or registered under the saved name, or None: never imported."""
    names = [info.get("name"), info.get("qualname"), str(info.get("qualname", "")).rsplit(".", 1)[-1]]
    for name in filter(None, names):
        try:
            cls = registry.lookup(name, None, custom_objects)
        except ValueError:
            continue
        if isinstance(cls, type) and issubclass(cls, Module):
            return cls
    return None


def _rebuild(cls, manifest, custom_objects):
    """An instance of the user's ``cls`` made with the saved arguments, its lazy variables created, or None."""
    init = manifest.get("init")
    if not isinstance(init, dict):
        return None
    try:
        args = deserialize(init.get("args", []), custom_objects)
        kwargs = deserialize(init.get("kwargs", {}), custom_objects)
        obj = cls(*args, **kwargs)
        count = len(manifest["variables"])
        if count not in (len(held.saved_variables(obj)), len(obj.variables)):
            # Variables made on first call: call the class's own signed tf.functions once on zeros. Which methods,
            # and their shapes, come from the class, never from the file.
            for name, specs in saved_functions.function_signatures(obj).items():
                if specs:
                    signature = getattr(type(obj), name).input_signature
                    getattr(obj, name)(
                        *[spec.cast(np.zeros(_example_shape(spec), spec.dtype.name)) for spec in signature]
                    )
    except Exception:  # the class cannot be called with what was saved: fall back to the variables alone
        return None
    return obj


def _saved_order(obj, shapes):
    """``obj``'s variables in the order they were saved, if they have these shapes: with its Generators' states
    (saved since tapeviz saves them), else without (a folder saved before); None when neither fits."""
    for variables in (held.saved_variables(obj), obj.variables):
        if [tuple(v.shape) for v in variables] == [tuple(s) for s in shapes]:
            return variables
    return None


def _example_shape(spec):
    return [] if spec.shape is None else [1 if n is None else n for n in spec.shape]


class _Restored:
    """What ``load`` returns for a class it was not given: the variables at their attribute paths."""

    def __init__(self, class_name, functions):
        self.__dict__["_class_name"] = class_name
        self.__dict__["_functions"] = functions
        self.__dict__["_children"] = {}

    @classmethod
    def from_manifest(cls, manifest, values):
        root = cls(manifest["class"].get("qualname") or manifest["class"].get("name"), manifest.get("functions", {}))
        variables = []
        for info, value in zip(manifest["variables"], values):
            variable = Variable(value, trainable=info.get("trainable", True), name=_short_name(info["name"]))
            variables.append(variable)
            root._place(info["path"].split("/"), variable)
        root.__dict__["_variables"] = variables
        by_path = {info["path"]: variable for info, variable in zip(manifest["variables"], variables)}
        for path, name, function in saved_functions.decode_functions(manifest.get("saved_functions", []), by_path):
            root._place(path.split("/") + [name] if path else [name], function)
        signatures = manifest.get("signatures", {})
        if not isinstance(signatures, dict):
            raise ValueError("'signatures' must be a dict")
        root.__dict__["signatures"] = {
            str(key): saved_functions.SignatureFunction(str(key), saved_functions.decode_trace(data, by_path))
            for key, data in signatures.items()
        }
        return root

    @property
    def __call__(self):
        """The restored ``__call__`` (``loaded(x)`` calls it; ``loaded.__call__`` is it, as in TF)."""
        function = self.__dict__["_children"].get("__call__")
        if function is None:
            if "__call__" in self.__dict__["_functions"]:
                self.__getattr__("__call__")  # a folder saved before traces were kept: says how to pass the class
            raise TypeError(
                f"The restored {self.__dict__['_class_name']} object is not callable: it saved no __call__."
            )
        return function

    def _place(self, parts, variable):
        node = self
        for part in parts[:-1]:
            child = node._children.get(part)
            if child is None:
                child = node._children[part] = _Restored(part, {})
            elif not isinstance(child, _Restored):
                raise FileFormatError(f"The SavedModel manifest puts a variable inside another at {'/'.join(parts)}.")
            node = child
        if parts[-1] in node._children:
            raise FileFormatError(f"The SavedModel manifest names the path {'/'.join(parts)} twice.")
        node._children[parts[-1]] = variable

    def __getitem__(self, index):
        return self._children[str(index)]  # a list attribute's items were saved as '<name>/0', '<name>/1'...

    @property
    def variables(self):
        return tuple(self.__dict__.get("_variables", ()))

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    def __getattr__(self, name):
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            raise AttributeError(
                f"'{name}' was a tf.function of {self.__dict__['_class_name']}, whose class was not given to "
                "tf.saved_model.load, and this folder was saved before tapeviz stored traces (save it again to "
                "keep them). tapeviz never imports a class named in a file: pass it, "
                f"tf.saved_model.load(path, custom_objects={{'{self.__dict__['_class_name'].rsplit('.', 1)[-1]}': "
                "TheClass}), or register it with @tf.keras.saving.register_keras_serializable(), to get a working "
                "object. The variables are restored here."
            )
        raise AttributeError(f"The restored object has no attribute {name!r}.")

    def __repr__(self):
        return f"<restored {self.__dict__['_class_name']} with {len(self.variables)} variables>"


def _short_name(name):
    return name.split("/")[-1].rsplit(":", 1)[0] or "Variable"
