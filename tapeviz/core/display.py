"""How core objects show themselves in Jupyter, without the core importing the visualizer.

The package's face (``tapeviz/__init__.py``) installs a renderer; a tape's
``_repr_mimebundle_`` asks it. With none installed, Jupyter falls back to the
text ``repr``.
"""

_renderer = None


def set_renderer(renderer):
    """Install ``renderer(obj, include, exclude) -> mimebundle dict``; None removes it."""
    global _renderer
    _renderer = renderer


def mimebundle(obj, include=None, exclude=None):
    """The rich display of ``obj``, or None when no renderer is installed."""
    if _renderer is None:
        return None
    return _renderer(obj, include=include, exclude=exclude)
