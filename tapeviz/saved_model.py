"""``tf.saved_model.save`` / ``load``: a Module (or a Keras model) in a directory, in tapeviz's format.

As TF's SavedModel, it stores the object's traced ``tf.function``s, so a
loaded object can be called, and differentiated, without its Python class.
The directory holds:

- ``tapeviz_saved_model.json``: the format marker, the object's class name
  (as data: shown, never imported), the arguments it was constructed with,
  the path of every variable (``'layers/0/w'``), the traces of every
  ``tf.function`` of the object and of the modules it holds
  (``saved_functions``: ``ConcreteFunction.to_dict()`` data, custom gradients
  included, captured variables named by path; a function a file cannot hold,
  such as an optimizer step, is left out with a note), the ``signatures``,
  and the name of the data file beside it;
- ``variables-<token>.npz``: the variables' values, in ``module.variables``
  order (``model-<token>.keras`` for a Keras model).

A file is data. ``load`` returns, as TF does, a restored object holding the
variables at their attribute paths (``restored.layers[0].w``) and one
callable per saved ``tf.function`` (``restored.inner.scaled(x)``,
``restored(x)`` for ``__call__``), which runs the first stored trace that
accepts its arguments. Ops are found only in tapeviz's primitive registry,
host calls only in its closed table; a graph is checked (arities, value ids,
variable indices, shapes) before it is accepted. ``load`` rebuilds a real
instance only of a class the user hands it:
``load(path, custom_objects={"Scaled": Scaled})``, or a class registered
with ``tf.keras.saving.register_keras_serializable()``. That class is called
with the saved constructor arguments (values, and only objects the Keras
loader may make), lazily created variables are made by calling each
``tf.function`` with an ``input_signature`` on zeros, and every variable
takes its saved value. No module or attribute named in the file is ever
looked up.

Writing is all or nothing: the data file gets a fresh name, the manifest
naming it replaces the old one in one ``os.replace``, and only then is the
old data file removed, so the folder always holds a readable, matching pair.
Functions are traced and encoded before anything is written.
"""

import json
import os
import re
import secrets
import zipfile

import numpy as np

from tapeviz import saved_functions
from tapeviz.core.eager import Function
from tapeviz.core.files import (
    ARCHIVE_ERRORS,
    FileFormatError,
    atomic_write,
    read_array_member,
    remove_stale_temporaries,
    write_bytes,
)
from tapeviz.core.tensor import Variable
from tapeviz.keras.models import Model
from tapeviz.keras.saving import registry
from tapeviz.keras.saving.config import deserialize, serialize
from tapeviz.keras.saving.model_file import load_model
from tapeviz.module import Module

__all__ = ["save", "load", "SaveOptions", "LoadOptions"]

_MANIFEST = "tapeviz_saved_model.json"
_FORMAT = "tapeviz-saved-model"
_DATA_FILE = re.compile(r"^(variables(-[0-9a-f]{16})?\.npz|model(-[0-9a-f]{16})?\.keras)$")
_NUMERIC_KINDS = "biufc"
_MAX_MANIFEST_BYTES = 64 << 20


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted, as TF code passes them. Only
    ``experimental_custom_gradients`` changes anything: ``True`` (TF's default) stores each custom
    gradient with the traces; ``False`` stores the function alone, so a loaded function raises TF's
    ``LookupError: No gradient defined for operation ...`` when a tape differentiates it.

    Args:
        namespace_whitelist: accepted (there are no custom ops).
        save_debug_info: accepted.
        function_aliases: accepted.
        experimental_io_device: accepted.
        experimental_variable_policy: accepted.
        experimental_custom_gradients: kept: whether traced functions keep their custom gradients.
        **future_options: accepted.
    """

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
    """``tf.saved_model.LoadOptions``: accepted and ignored (there is no graph to place on a device).

    Args:
        allow_partial_checkpoint: accepted.
        experimental_io_device: accepted.
        experimental_skip_checkpoint: accepted.
        **future_options: accepted.
    """

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
    """Write ``obj`` (a ``tf.Module`` or a Keras model) to the directory ``export_dir``, all or nothing.

    Args:
        obj: a ``tf.Module`` or a Keras model.
        export_dir: the directory (created if missing).
        signatures: a ``tf.function`` with an ``input_signature``, a ConcreteFunction, or a dict of
            them by key; as TF, the root's one signed ``tf.function`` is ``'serving_default'`` when
            none is given.
        options: a ``SaveOptions``; ``experimental_custom_gradients=False`` leaves custom gradients out.

    Raises:
        ValueError: ``obj`` is neither a ``tf.Module`` nor a Keras model, or a signature asked for
            cannot be stored (it captures a variable the object does not hold, or runs Python).

    Example:
        >>> import tempfile
        >>> import tapeviz as tf
        >>> class Scale(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(2.0)
        >>> folder = tempfile.mkdtemp()
        >>> tf.saved_model.save(Scale(), folder)
        >>> print(tf.saved_model.load(folder).w.numpy())
        2.0
    """
    if not isinstance(obj, (Model, Module)):
        raise ValueError(
            f"Expected a tf.Module or a Keras model for export, got {type(obj).__name__}. Subclass tf.Module "
            "(or keras.Model) so that its variables can be found."
        )
    token = secrets.token_hex(8)
    if isinstance(obj, Model):
        os.makedirs(export_dir, exist_ok=True)
        data_file = f"model-{token}.keras"
        obj.save(os.path.join(export_dir, data_file))
        manifest = {"format": _FORMAT, "version": 2, "kind": "keras", "data_file": data_file}
        encoded = json.dumps(manifest, indent=1).encode("utf-8")
    else:
        # Everything that may fail (tracing, encoding) happens before the first write.
        traced = saved_functions.trace_functions(obj)  # first: tracing a signed function may make variables
        manifest = _describe_module(obj)
        paths = {id(v): info["path"] for v, info in zip(obj.variables, manifest["variables"])}
        gradients = options is None or bool(getattr(options, "experimental_custom_gradients", True))
        manifest["saved_functions"] = saved_functions.encode_functions(traced, paths, gradients)
        manifest["signatures"] = saved_functions.encode_signatures(obj, signatures, traced, paths, gradients)
        data_file = manifest["data_file"] = f"variables-{token}.npz"
        encoded = json.dumps(manifest, indent=1).encode("utf-8")
        os.makedirs(export_dir, exist_ok=True)
        values = {str(i): v.numpy() for i, v in enumerate(obj.variables)}
        with atomic_write(os.path.join(export_dir, data_file)) as f:
            np.savez(f, **values)
    previous = _previous_data_file(export_dir)
    write_bytes(os.path.join(export_dir, _MANIFEST), encoded)
    if previous is not None and previous != data_file:
        try:
            os.unlink(os.path.join(export_dir, previous))
        except OSError:  # already gone (another save removed it): nothing to tidy
            pass


def _previous_data_file(export_dir):
    """The data file the manifest being replaced names, to remove once the new one is in place."""
    try:
        with open(os.path.join(export_dir, _MANIFEST), encoding="utf-8") as f:
            manifest = json.load(f)
        return _data_file(manifest)
    except (OSError, ValueError, AttributeError):
        return None


def _describe_module(module):
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
        "version": 3,
        "kind": "module",
        "class": {"name": registry.get_registered_name(cls), "module": cls.__module__, "qualname": cls.__qualname__},
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
    manifest_path = os.path.join(export_dir, _MANIFEST)
    remove_stale_temporaries(export_dir)  # what a save killed midway left in this folder
    if not os.path.isfile(manifest_path):
        if os.path.exists(os.path.join(export_dir, "saved_model.pb")):
            raise ValueError(
                f"{export_dir} is a TensorFlow SavedModel (a graph), which tapeviz cannot run. Save the object with "
                "tapeviz's tf.saved_model.save, or rebuild the model in code and load its weights."
            )
        raise OSError(f"SavedModel file does not exist at: {export_dir}")
    manifest = _read_manifest(manifest_path)
    data_path = os.path.join(export_dir, _data_file(manifest))
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
        if obj is not None and [tuple(v.shape) for v in obj.variables] == [v.shape for v in values]:
            for variable, value in zip(obj.variables, values):
                variable.assign(value)
            return obj
    return restored


def _read_manifest(path):
    if os.path.getsize(path) > _MAX_MANIFEST_BYTES:
        raise FileFormatError(f"{path} is larger than any tapeviz SavedModel manifest.")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"{path} is not a tapeviz SavedModel manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise FileFormatError(f"{path} is not a tapeviz SavedModel manifest.")
    if manifest.get("kind") == "keras":
        return manifest
    if manifest.get("kind") != "module":
        raise FileFormatError(f"{path}: unknown kind of saved object {manifest.get('kind')!r}.")
    problem = _manifest_problem(manifest)
    if problem:
        raise FileFormatError(f"{path} is malformed: {problem}.")
    return manifest


def _manifest_problem(manifest):
    """What is wrong with a module manifest's shape, or None: checked before anything is built from it."""
    info = manifest.get("class")
    if not isinstance(info, dict) or not all(isinstance(info.get(k, ""), str) for k in ("name", "qualname")):
        return "'class' must name the class as text"
    variables = manifest.get("variables")
    if not isinstance(variables, list):
        return "'variables' must be a list"
    for v in variables:
        if not isinstance(v, dict) or not isinstance(v.get("path"), str) or not v["path"]:
            return "each variable needs a 'path'"
        if not isinstance(v.get("name"), str) or not isinstance(v.get("trainable", True), bool):
            return "each variable needs a 'name' and a boolean 'trainable'"
        shape = v.get("shape")
        if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
            return "each variable's 'shape' must be a list of sizes"
        if not isinstance(v.get("dtype"), str):
            return "each variable needs a 'dtype'"
    functions = manifest.get("functions", {})
    if not isinstance(functions, dict):
        return "'functions' must be a dict"
    for specs in functions.values():
        if specs is not None and not (
            isinstance(specs, list)
            and all(isinstance(s, dict) and isinstance(s.get("dtype"), str) for s in specs)
            and all(s.get("shape") is None or isinstance(s.get("shape"), list) for s in specs)
        ):
            return "each function's input signature must be a list of specs"
    return None


def _data_file(manifest):
    """The data file's name, which must be one of the names ``save`` writes: never a path out of the folder."""
    default = "model.keras" if manifest.get("kind") == "keras" else "variables.npz"  # version 1 folders
    name = manifest.get("data_file", default)
    if not isinstance(name, str) or not _DATA_FILE.match(name):
        raise FileFormatError(f"The SavedModel manifest names an unexpected data file: {name!r}.")
    return name


def _read_values(path, variables):
    """The saved arrays, each member's header checked against the manifest's numeric dtype and shape before it is
    inflated, and never inflated past those bytes."""
    try:
        with zipfile.ZipFile(path) as archive:
            values = []
            for i, info in enumerate(variables):
                expected = np.dtype(info["dtype"]) if info["dtype"] in np.sctypeDict else None
                if expected is None or expected.kind not in _NUMERIC_KINDS or any(n < 0 for n in info["shape"]):
                    raise FileFormatError(
                        f"{path}: variable {i} is not the numbers the manifest describes ({info['dtype']} "
                        f"{info['shape']})."
                    )
                values.append(read_array_member(archive, f"{i}.npy", expected, info["shape"], f"{path} (variable {i})"))
            return values
    except FileNotFoundError:
        raise FileFormatError(f"The SavedModel's data file {path} is missing.") from None
    except FileFormatError:
        raise
    except ARCHIVE_ERRORS as exc:
        raise FileFormatError(f"{path} cannot be read as the SavedModel's variables: {exc}") from None


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
        if len(obj.variables) != len(manifest["variables"]):
            # Variables made on first call: call the class's own signed tf.functions once on zeros. Which methods,
            # and their shapes, come from the class, never from the file.
            for name, specs in _functions(obj).items():
                if specs:
                    signature = getattr(type(obj), name).input_signature
                    getattr(obj, name)(
                        *[spec.cast(np.zeros(_example_shape(spec), spec.dtype.name)) for spec in signature]
                    )
    except Exception:  # the class cannot be called with what was saved: fall back to the variables alone
        return None
    return obj


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
