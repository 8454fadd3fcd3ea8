"""``tf.saved_model.save`` / ``load``: a Module's (or a Keras model's) variables in a directory, in tapeviz's format.

TF's SavedModel stores traced graphs, so a loaded object runs without its
Python class. tapeviz runs Python eagerly and has no graphs, so its format
(a directory, like TF's) holds:

- ``tapeviz_saved_model.json``: the format marker, the object's class
  (``module.QualName``), the arguments it was constructed with, the path of
  every variable (``'layers/0/w'``) and the ``tf.function`` methods with their
  input signatures;
- ``variables.npz``: the variables' values, in ``module.variables`` order.

``load`` rebuilds the object when its class is defined in this Python
session (imported, or defined in the notebook): the class is called with
the saved constructor arguments, lazily created variables are made by
calling each ``tf.function`` with an ``input_signature`` on zeros, and every
variable takes its saved value. The loaded object is then a real instance:
its methods, ``tf.function`` or not, can be called. When the class is not
defined, ``load`` returns a restored object holding the variables at their
attribute paths (``restored.layers[0].w``), and calling a saved method
raises an error that says to define the class first. Nothing is imported by
a name read from the file.

A Keras model is saved with ``model.save`` inside the directory
(``model.keras``) and loaded with ``keras.models.load_model``.
"""

import json
import os
import sys

import numpy as np

from tapeviz.core.tensor import Variable

__all__ = ["save", "load", "SaveOptions", "LoadOptions"]

_MANIFEST = "tapeviz_saved_model.json"
_FORMAT = "tapeviz-saved-model"


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted, as TF code passes them. tapeviz saves no
    graphs, so the options change nothing: custom gradients are kept with their Python
    function, and ``experimental_custom_gradients`` is always on in effect."""

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        **future_options,
    ):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.future_options = future_options


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted and ignored (there is no graph to place on a device)."""

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        **future_options,
    ):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.future_options = future_options


def save(obj, export_dir, signatures=None, options=None):
    """Write ``obj`` (a ``tf.Module`` or a Keras model) to the directory ``export_dir``."""
    from tapeviz.keras.models import Model
    from tapeviz.module import Module

    os.makedirs(export_dir, exist_ok=True)
    if isinstance(obj, Model):
        obj.save(os.path.join(export_dir, "model.keras"))
        manifest = {"format": _FORMAT, "version": 1, "kind": "keras"}
    elif isinstance(obj, Module):
        manifest = _describe_module(obj)
        values = {str(i): v.numpy() for i, v in enumerate(obj.variables)}
        np.savez(os.path.join(export_dir, "variables.npz"), **values)
    else:
        raise ValueError(
            f"Expected a tf.Module or a Keras model for export, got {type(obj).__name__}. Subclass tf.Module "
            "(or keras.Model) so that its variables can be found."
        )
    with open(os.path.join(export_dir, _MANIFEST), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)


def _describe_module(module):
    from tapeviz.keras.saving.config import serialize

    cls = type(module)
    args = None
    if "_init_args" in module.__dict__:
        try:
            positional, keywords = module.__dict__["_init_args"]
            args = {"args": serialize(list(positional)), "kwargs": serialize(keywords)}
        except TypeError:
            args = None  # arguments that cannot be written: the class is rebuilt only if it needs none
    paths = {id(v): p for p, v in _variable_paths(module)}
    return {
        "format": _FORMAT,
        "version": 1,
        "kind": "module",
        "class": {"module": cls.__module__, "qualname": cls.__qualname__},
        "init": args,
        "variables": [
            {
                "path": paths.get(id(v), f"<variable {i}>"),
                "name": v.name,
                "trainable": v.trainable,
                "shape": list(v.shape),
                "dtype": v.dtype.name,
            }
            for i, v in enumerate(module.variables)
        ],
        "functions": _functions(module),
    }


def _functions(module):
    from tapeviz.core.eager import Function

    found = {}
    for name in dir(type(module)):
        attribute = getattr(type(module), name, None)
        if isinstance(attribute, Function):
            specs = attribute.input_signature
            found[name] = (
                None
                if specs is None
                else [{"shape": None if s.shape is None else list(s.shape), "dtype": s.dtype.name} for s in specs]
            )
    return found


def _variable_paths(obj, prefix="", seen=None):
    """(path, variable) for every variable reachable through attributes, lists and dicts."""
    from tapeviz.module import Module

    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Variable):
        yield prefix, obj
    elif isinstance(obj, Module):
        for key in sorted(vars(obj)):
            yield from _variable_paths(vars(obj)[key], f"{prefix}/{key}" if prefix else key, seen)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from _variable_paths(item, f"{prefix}/{i}", seen)
    elif isinstance(obj, dict):
        for key in sorted(obj, key=str):
            yield from _variable_paths(obj[key], f"{prefix}/{key}", seen)


def load(export_dir, tags=None, options=None):
    """The object saved in ``export_dir`` by ``tf.saved_model.save`` (see the module's notes)."""
    manifest_path = os.path.join(export_dir, _MANIFEST)
    if not os.path.exists(manifest_path):
        if os.path.exists(os.path.join(export_dir, "saved_model.pb")):
            raise ValueError(
                f"{export_dir} is a TensorFlow SavedModel (a graph), which tapeviz cannot run. Save the object with "
                "tapeviz's tf.saved_model.save, or rebuild the model in code and load its weights."
            )
        raise OSError(f"SavedModel file does not exist at: {export_dir}")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("format") != _FORMAT:
        raise ValueError(f"{manifest_path} is not a tapeviz SavedModel manifest.")
    if manifest["kind"] == "keras":
        from tapeviz.keras.saving import load_model

        return load_model(os.path.join(export_dir, "model.keras"))
    with np.load(os.path.join(export_dir, "variables.npz")) as archive:
        values = [archive[str(i)] for i in range(len(manifest["variables"]))]
    cls = _class_in_memory(manifest["class"])
    if cls is not None:
        obj = _rebuild(cls, manifest)
        if obj is not None and len(obj.variables) == len(values):
            for variable, value in zip(obj.variables, values):
                variable.assign(value)
            return obj
    return _Restored.from_manifest(manifest, values)


def _class_in_memory(info):
    module = sys.modules.get(info["module"])
    obj = module
    for part in info["qualname"].split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def _rebuild(cls, manifest):
    from tapeviz.core.tensor_spec import TensorSpec
    from tapeviz.keras.saving.config import deserialize

    init = manifest.get("init")
    if init is None:
        return None
    try:
        obj = cls(*deserialize(init["args"]), **deserialize(init["kwargs"]))
    except Exception:  # a class that cannot be called with what was saved: fall back to the variables alone
        return None
    if len(obj.variables) != len(manifest["variables"]):
        # Variables made on first call: call each signed tf.function once on zeros.
        for name, specs in manifest["functions"].items():
            if specs:
                zeros = [np.zeros([1 if n is None else n for n in s["shape"]], dtype=s["dtype"]) for s in specs]
                getattr(obj, name)(*[TensorSpec(s["shape"], s["dtype"]).cast(z) for s, z in zip(specs, zeros)])
    return obj


class _Restored:
    """What ``load`` returns when the saved object's class is not defined: its variables at their attribute paths."""

    def __init__(self, class_name, functions):
        self.__dict__["_class_name"] = class_name
        self.__dict__["_functions"] = functions

    @classmethod
    def from_manifest(cls, manifest, values):
        root = cls(manifest["class"]["qualname"], manifest["functions"])
        variables = []
        for info, value in zip(manifest["variables"], values):
            variable = Variable(value, trainable=info["trainable"], name=info["name"].split("/")[-1].rsplit(":", 1)[0])
            variables.append(variable)
            root._place(info["path"].split("/"), variable)
        root.__dict__["_variables"] = variables
        return root

    def _place(self, parts, variable):
        node = self
        for part in parts[:-1]:
            child = node.__dict__.get(part)
            if child is None:
                child = _Restored(part, {})
                node.__dict__[part] = child
            node = child
        node.__dict__[parts[-1]] = variable

    def __getitem__(self, index):
        return self.__dict__[str(index)]  # a list attribute's items were saved as '<name>/0', '<name>/1'...

    @property
    def variables(self):
        return tuple(self.__dict__.get("_variables", ()))

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    def __getattr__(self, name):
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            raise AttributeError(
                f"'{name}' was a tf.function of {self.__dict__['_class_name']}, which is not defined in this Python "
                "session. tapeviz saves no graphs: define (or import) the class, then call tf.saved_model.load "
                "again to get a working object. The variables are restored here."
            )
        raise AttributeError(f"The restored object has no attribute {name!r}.")

    def __repr__(self):
        return f"<restored {self.__dict__['_class_name']} with {len(self.variables)} variables>"
