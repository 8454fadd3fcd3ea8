"""The one ``get(identifier)`` that activations, losses, metrics, optimizers and initializers share.

An identifier is an object of the family (returned as is), a name from the
family's table (its class instantiated, or its function returned), a class
of the family (instantiated), or a plain callable (returned, or wrapped).
"""

__all__ = ["resolve", "serialize_object", "deserialize_object"]


def resolve(identifier, *, kind, table, base=None, instantiate=True, wrap_callable=None):
    """``identifier`` as an object of the family ``kind`` ('activation function', 'loss'...).

    Args:
        table: name -> class (instantiated when ``instantiate``) or function.
        base: the family's base class, if it has one.
        wrap_callable: what to do with a plain callable (default: return it).
    """
    if base is not None and isinstance(identifier, base):
        return identifier
    if isinstance(identifier, str) or identifier is None:
        if identifier not in table:
            known = sorted(k for k in table if isinstance(k, str) and k)
            raise ValueError(f"Unknown {kind}: {identifier!r}. Known names: {known}.")
        entry = table[identifier]
        return entry() if instantiate and isinstance(entry, type) else entry
    if base is not None and isinstance(identifier, type) and issubclass(identifier, base):
        return identifier()
    if callable(identifier):
        return wrap_callable(identifier) if wrap_callable is not None else identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}")


def serialize_object(obj, module):
    """``obj`` as Keras's JSON-able dict (module, class_name, config, registered_name); None stays None."""
    if obj is None:
        return None
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(), "registered_name": None}


def deserialize_object(config, *, kind, table, get, custom_objects=None):
    """An object of the family ``kind`` from ``serialize_object``'s dict (a name goes to ``get``).

    Only the classes of ``table`` and ``custom_objects`` are built: nothing is found by a name in the dict.
    """
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name")
    classes = {**table, **(custom_objects or {})}
    if name not in classes or not isinstance(classes[name], type):
        raise ValueError(f"Could not interpret {kind} identifier: {config}")
    return classes[name].from_config(config.get("config", {}))
