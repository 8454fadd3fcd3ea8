"""Flatten and rebuild nested lists, tuples and dicts, in ``tf.nest``'s order."""

import collections


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _is_flat_sequence(value):
    """A plain list or tuple of leaves: ``model.trainable_variables``, the common case, kept fast."""
    return type(value) in (list, tuple) and not any(isinstance(item, (list, tuple, dict)) for item in value)


def sorted_keys(mapping):
    """A dict's keys in tf.nest's order (sorted), or a clear error when they cannot be sorted.

    Args:
        mapping: a dict.

    Returns:
        Its keys, sorted.

    Raises:
        TypeError: keys that cannot be sorted together (mixed kinds).
    """
    try:
        return sorted(mapping)
    except TypeError:
        kinds = sorted({type(key).__name__ for key in mapping})
        raise TypeError(
            f"nest only supports dicts with sortable keys, got keys of types {', '.join(kinds)}. "
            "Use keys of one type (all strings, say) in a dict of tensors."
        ) from None


def flatten(structure):
    """The leaves of ``structure`` in order (dicts by sorted key, like tf.nest).

    Args:
        structure: a leaf, or nested lists, tuples, dicts (and namedtuples) of leaves.

    Returns:
        A list of the leaves.

    Example:
        >>> import tapeviz as tf
        >>> tf.nest.flatten({"b": [1, 2], "a": 3})
        [3, 1, 2]
    """
    if _is_flat_sequence(structure):
        return list(structure)
    if isinstance(structure, dict):
        return [leaf for key in sorted_keys(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat):
    """``structure`` with its leaves replaced, in order, by ``flat``.

    Args:
        structure: the nesting to rebuild.
        flat: the new leaves, as many as ``structure`` has, in ``flatten``'s order.

    Returns:
        A structure like ``structure``.
    """
    if _is_flat_sequence(structure) and len(flat) == len(structure):
        return type(structure)(flat)
    leaves = iter(flat)

    def build(node):
        if isinstance(node, dict):
            rebuilt = {key: build(node[key]) for key in sorted_keys(node)}
            items = [(key, rebuilt[key]) for key in node]  # the caller's key order
            if isinstance(node, collections.defaultdict):
                return type(node)(node.default_factory, items)
            return type(node)(items)
        if _is_namedtuple(node):
            return type(node)(*[build(item) for item in node])
        if isinstance(node, (list, tuple)):
            return type(node)(build(item) for item in node)
        return next(leaves)

    return build(structure)


def map_structure(fn, structure):
    """``fn`` applied to every leaf of ``structure``, packed back into the same nesting.

    ``tf.nest.map_structure(lambda v: v * 2, {"a": 1, "b": (2, 3)})`` is ``{"a": 2, "b": (4, 6)}``.

    Args:
        fn: a function of one leaf.
        structure: a nested structure of leaves.

    Returns:
        The structure of ``fn``'s results.

    Example:
        >>> import tapeviz as tf
        >>> tf.nest.map_structure(lambda v: v * 10, (1, [2, 3]))
        (10, [20, 30])
    """
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])
