"""The names a saved model may use: tapeviz's own Keras classes and functions, and those the user registered.

Loading resolves every class or function a file names here, and nowhere
else: never by importing a module or reading an attribute named in the file.
tapeviz's Keras package registers its own serializable objects by family
(layers, losses, ...) when it is imported; ``register_keras_serializable``
adds the user's under ``"package>name"``, as Keras 3 does, so a user class
called ``Dense`` never takes the built-in ``Dense``'s place. Saving reaches
models through this table too (``part``), so it imports no model code.
"""

__all__ = [
    "register_builtin",
    "register_part",
    "part",
    "register_keras_serializable",
    "get_registered_name",
    "get_registered_object",
    "saved_name",
    "lookup",
]

_BUILTIN = {}  # (family, name) -> class or function a file may name
_BUILTIN_FIRST = {}  # name -> the first family's object of that name (files that name no family)
_BUILTIN_NAMES = {}  # object -> (family, name)
_CUSTOM = {}  # "package>name" -> the user's class or function
_CUSTOM_NAMES = {}  # the user's object -> "package>name"
_PARTS = {}  # objects saving uses that no file may name (base classes, Input)


def register_builtin(family, objects):
    """Make tapeviz's own ``objects`` (classes or functions) loadable under their names, in ``family``."""
    for obj in objects:
        name = obj.__name__
        _BUILTIN[(family, name)] = obj
        _BUILTIN_FIRST.setdefault(name, obj)
        _BUILTIN_NAMES.setdefault(obj, (family, name))


def register_part(**objects):
    """Objects saving needs (``Sequential=...``, ``Input=...``) without importing the modules that define them."""
    _PARTS.update(objects)


def part(name):
    return _PARTS[name]


def register_keras_serializable(package="Custom", name=None):
    """Decorator: save a class (or function) as ``"package>name"`` and load it back without ``custom_objects``.

    Args:
        package: the package part of the name.
        name: the object's part (its ``__name__`` when None).

    Returns:
        The decorator.
    """

    def register(obj):
        key = f"{package}>{name if name is not None else obj.__name__}"
        _CUSTOM[key] = obj
        _CUSTOM_NAMES[obj] = key
        return obj

    return register


def get_registered_name(obj):
    """The name ``obj`` is saved under: ``"package>name"`` if registered, else its own name.

    Args:
        obj: a class or function.

    Returns:
        A string.
    """
    return _CUSTOM_NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The class or function registered (or passed in ``custom_objects``) under ``name``, or None.

    Args:
        name: the registered name.
        custom_objects: a dict of extra names.
        module_objects: a dict of names from a module.

    Returns:
        The object, or None.
    """
    for table in (custom_objects or {}, _CUSTOM, module_objects or {}):
        if name in table:
            return table[name]
    return None


def saved_name(obj):
    """``(name, family)`` to write for ``obj``; family is None for the user's objects."""
    try:
        if obj in _CUSTOM_NAMES:
            return _CUSTOM_NAMES[obj], None
        if obj in _BUILTIN_NAMES:
            family, name = _BUILTIN_NAMES[obj]
            return name, family
    except TypeError:  # unhashable: not a class or function of ours
        pass
    return getattr(obj, "__name__", None), None


def lookup(name, family=None, custom_objects=None):
    """The class or function a file names: from ``custom_objects``, the user's registry, or tapeviz's own."""
    if not isinstance(name, str):
        raise ValueError(f"A class or function name in a saved file must be a string, got {name!r}.")
    custom_objects = custom_objects or {}
    for key in (name, name.rsplit(">", 1)[-1]):
        if key in custom_objects:
            return custom_objects[key]
    if ">" in name:
        if name in _CUSTOM:
            return _CUSTOM[name]
    elif (family, name) in _BUILTIN:
        return _BUILTIN[(family, name)]
    elif family is None and name in _BUILTIN_FIRST:
        return _BUILTIN_FIRST[name]
    raise ValueError(
        f"Could not locate class or function {name!r}. Make sure custom classes and functions are passed to "
        "`load_model(..., custom_objects={...})` or decorated with "
        "`@keras.saving.register_keras_serializable()`. Only those and tapeviz's own Keras layers, losses, "
        "metrics, optimizers, schedules, initializers and activations can be named in a saved file."
    )
