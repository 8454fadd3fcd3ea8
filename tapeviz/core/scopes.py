"""``tf.name_scope``: label the ops recorded inside a block.

Scopes are how the visualizer folds a layer or a loss into one box; a
recorded entry's ``scope`` is the "outer/inner" path active when it ran.
"""

from tapeviz.core import state


class name_scope:  # noqa: N801 - TF's spelling
    """A context manager that prefixes ``name`` to the scope of every op inside it.

    Args:
        name: a non-empty string.

    Raises:
        ValueError: an empty or non-string name.
    """

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"name_scope needs a non-empty string name, got {name!r}.")
        self._name = name

    @property
    def name(self):
        return self._name

    def __enter__(self):
        scopes = state.local.scopes
        scopes.append(self._name)
        return "/".join(scopes) + "/"

    def __exit__(self, *exc_info):
        state.local.scopes.pop()
        return False
