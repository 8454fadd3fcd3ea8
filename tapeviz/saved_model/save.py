"""``tf.saved_model.save``: a Module's traced functions, variable paths and values (or a Keras model's file), all or nothing."""

import json
import os
import secrets

import numpy as np

from tapeviz.core.files import (
    atomic_write,
    write_bytes,
)
from tapeviz.keras.models import Model
from tapeviz.keras.saving import registry
from tapeviz.keras.saving.config import serialize
from tapeviz.module import Module
from tapeviz.saved_model import functions as saved_functions
from tapeviz.saved_model import held
from tapeviz.saved_model.manifest import FORMAT, MANIFEST, data_file_name


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
        manifest = {"format": FORMAT, "version": 2, "kind": "keras", "data_file": data_file}
        encoded = json.dumps(manifest, indent=1).encode("utf-8")
    else:
        # Everything that may fail (tracing, encoding) happens before the first write.
        traced = saved_functions.trace_functions(obj)  # first: tracing a signed function may make variables
        manifest = _describe_module(obj)
        variables = held.saved_variables(obj)
        paths = {id(v): info["path"] for v, info in zip(variables, manifest["variables"])}
        gradients = options is None or bool(getattr(options, "experimental_custom_gradients", True))
        manifest["saved_functions"] = saved_functions.encode_functions(traced, paths, gradients)
        manifest["signatures"] = saved_functions.encode_signatures(obj, signatures, traced, paths, gradients)
        data_file = manifest["data_file"] = f"variables-{token}.npz"
        encoded = json.dumps(manifest, indent=1).encode("utf-8")
        os.makedirs(export_dir, exist_ok=True)
        values = {str(i): v.numpy() for i, v in enumerate(variables)}
        with atomic_write(os.path.join(export_dir, data_file)) as f:
            np.savez(f, **values)
    previous = _previous_data_file(export_dir)
    write_bytes(os.path.join(export_dir, MANIFEST), encoded)
    if previous is not None and previous != data_file:
        try:
            os.unlink(os.path.join(export_dir, previous))
        except OSError:  # already gone (another save removed it): nothing to tidy
            pass


def _previous_data_file(export_dir):
    """The data file the manifest being replaced names, to remove once the new one is in place."""
    try:
        with open(os.path.join(export_dir, MANIFEST), encoding="utf-8") as f:
            manifest = json.load(f)
        return data_file_name(manifest)
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
    paths = {id(v): p for p, v in held.variable_paths(module)}
    return {
        "format": FORMAT,
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
            for i, v in enumerate(held.saved_variables(module))
        ],
        "functions": saved_functions.function_signatures(module),
    }
