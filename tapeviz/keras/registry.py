"""The one ``get(identifier)`` that activations, losses, metrics, optimizers and initializers share.

An identifier is an object of the family (returned as is), a name from the
family's table (its class instantiated, or its function returned), a class
of the family (instantiated), or a plain callable (returned, or wrapped).
"""

__all__ = ["resolve"]


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
