"""Write tests/tf_reference/tf_api_names.json: TF 2.21's public names and their parameter names.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/tf_api_names.py

What is listed, as TF's API docs list it (each generated API module's public
``dir()``; a name that is itself a module of TF's API is walked as a
namespace):

* ``tf``: every top-level name (the 308 of TF 2.21, its submodules included,
  marked ``"module"``); only the namespaces below are walked;
* ``tf.math``, ``tf.nn``, ``tf.linalg``, ``tf.random``, ``tf.data``, ``tf.distribute`` and their
  public submodules (``tf.data.experimental.service``...), recursively;
* ``tf.keras``: TF 2.21's ``tf.keras`` is Keras 3.15.1's ``keras._tf_keras.keras``
  shim. Its names are Keras 3's list, tests/keras3_public_names.json (written by
  keras3_names.py from the same Keras), read as ``keras.X`` -> ``tf.keras.X``,
  with the shim's differences stored here (``keras_delta``): the names only
  ``tf.keras`` has (its legacy ``backend`` functions, ``preprocessing`` classes,
  loss aliases) and those it lacks (some loss functions; ``[]``: the whole
  namespace, ``tf.keras.saving``).

For each callable: its parameter names, in order (``*args``/``**kwargs``
written with their stars); a class's are its constructor's. ``null`` for a
name that is not callable (a dtype, a constant). ``keras_parameters``: the
same for each callable of ``tf.keras``, by dotted path (the names themselves
are Keras 3's list with ``keras_delta``).
``methods``: the public methods' parameter names (``self`` left out) of the
classes in METHODS_OF, for the comparison of keyword arguments only.
"""

import importlib.util
import inspect
import json
import os
import pathlib
import re
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tf_api_names.json"
KERAS3 = HERE.parent / "keras3_public_names.json"
WALKED = ("math", "nn", "linalg", "random", "data", "distribute")
# Classes whose methods' keyword arguments are compared too (the ones every training loop calls).
METHODS_OF = ("GradientTape", "Module", "Tensor", "Variable", "data.Dataset")


def parameters(obj):
    """The parameter names of a callable (stars kept), or None when it is not one or has no signature."""
    if not callable(obj):
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    names = [stars.get(p.kind, "") + p.name for p in signature.parameters.values()]
    if names == ["*args", "**kwargs"] and inspect.isclass(obj) and obj.__init__ is not object.__init__:
        names = parameters(obj.__init__)[1:]  # a metaclass's __call__ (tf.Variable) hides the constructor
    return names


def is_module(obj):
    return isinstance(obj, types.ModuleType) or type(obj).__name__ == "KerasLazyLoader"


def walk(module, path, prefixes, table):
    """table[path] = {name: parameters}; modules of the API under prefixes become their own namespaces."""
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        module_name = getattr(obj, "__name__", "") if is_module(obj) else ""
        if module_name and any(module_name.startswith(p) for p in prefixes) and not module_name.startswith("keras.src"):
            walk(obj, f"{path}.{name}", prefixes, table)
        elif module_name:
            names[name] = "module"
        else:
            names[name] = parameters(obj)
    table[path] = names


def methods(cls):
    """{method: parameter names without self} for a class's public methods (properties left out)."""
    found = {}
    for name in sorted(dir(cls)):
        attribute = inspect.getattr_static(cls, name, None)
        if name.startswith("_") or isinstance(attribute, property) or not callable(getattr(cls, name)):
            continue
        names = parameters(getattr(cls, name))
        if names is not None:
            bound = isinstance(attribute, (staticmethod, classmethod))
            found[name] = names if bound else names[1:]
    return found


def keras_delta(tf_keras_table):
    """tf.keras's names against Keras 3's list: what only tf.keras has, and what it lacks."""
    keras3 = json.loads(KERAS3.read_text())
    listed = {"tf." + namespace: set(names) for namespace, names in keras3["namespaces"].items()}
    present = {namespace: set(names) for namespace, names in tf_keras_table.items()}
    added, removed = {}, {}
    for namespace in sorted(set(listed) | set(present)):
        more = sorted(present.get(namespace, set()) - listed.get(namespace, set()))
        fewer = sorted(listed.get(namespace, set()) - present.get(namespace, set()))
        if more or namespace not in listed:
            added[namespace] = more
        if namespace not in present:
            removed[namespace] = []  # the whole namespace (tf.keras.saving)
        elif fewer:
            removed[namespace] = fewer
    return {"keras3_version": keras3["keras_version"], "added": added, "removed": removed}


def _resolve(module, path):
    for part in path.split("."):
        module = getattr(module, part)
    return module


def main():
    import keras
    import tensorflow as tf

    table = {}
    top = {}
    for name in sorted(n for n in dir(tf) if not n.startswith("_")):
        obj = getattr(tf, name)
        top[name] = "module" if is_module(obj) else parameters(obj)
    table["tf"] = top
    for name in WALKED:
        walk(getattr(tf, name), f"tf.{name}", ("tensorflow._api.v2.",), table)
    keras_table = {}
    walk(tf.keras, "tf.keras", ("keras._tf_keras.keras", "keras."), keras_table)
    data = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "namespaces": table,
        "methods": {f"tf.{path}": methods(_resolve(tf, path)) for path in METHODS_OF},
        "keras_delta": keras_delta(keras_table),
        "keras_parameters": {
            f"{namespace}.{name}": params
            for namespace, names in keras_table.items()
            for name, params in names.items()
            if isinstance(params, list)
        },
    }
    tmp = OUT.with_suffix(".tmp")
    text = json.dumps(data, indent=1, sort_keys=True)
    # one line per list of names (none holds a space, bracket or brace): a file that diffs by name
    text = re.sub(r"\[\n\s*([^\[\]{}]*?)\n\s*\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    tmp.write_text(text + "\n")
    os.replace(tmp, OUT)
    count = sum(map(len, table.values()))
    print(f"{count} TF names in {len(table)} namespaces -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    assert importlib.util.find_spec("tensorflow"), "run with an environment that has TensorFlow 2.21"
    main()
