"""Static pictures of tapes and traces, and how they show up in Jupyter.

``show(tape_or_trace, **options)`` returns a :class:`Figure`; a tape or trace
that is the last expression of a cell calls :func:`mimebundle` through its
``_repr_mimebundle_``. With no layout program (see :mod:`tapeviz.viz.render`)
the figure says what to install and shows a table of the entries instead:
never a traceback, whatever the names in the tape.
"""

from tapeviz.core.files import write_bytes
from tapeviz.core.tape import GradientTape
from tapeviz.viz import dot as dotmod
from tapeviz.viz import format as fmt
from tapeviz.viz import legend as legends
from tapeviz.viz import names as naming
from tapeviz.viz import render, text
from tapeviz.viz import view as views
from tapeviz.viz.trace import Trace, trace_of


class Figure:
    """A drawing of a trace, as :func:`tapeviz.show` returns it: ``.dot`` (the Graphviz
    source), ``.svg()``, ``.save(path)``; Jupyter shows it at the end of a cell.

    Args:
        trace: a GradientTape or a ``tapeviz.viz.trace()``.
        title: a caption under the picture, or None.
        names: labels for tensors and tapes by trace id (``{"t3": "y"}``); None
            (the default) looks up the Python names the student gave them, once,
            now, as the player does (:mod:`tapeviz.viz.names`); False keeps the ids.
        **options: the view's options, as :func:`tapeviz.show` takes them
            (``sweep``, ``fold``, ``open``, ``show_reads``, ``max_nodes``, ``untaped``).

    Example:
        >>> import tapeviz as tf
        >>> x = tf.Variable(3.0, name="x")
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> figure = tf.show(tape, title="y = x * x")
        >>> type(figure).__name__
        'Figure'
        >>> figure.dot.startswith("digraph")
        True
        >>> figure.save("tape.dot")
        'tape.dot'
    """

    def __init__(self, trace, title=None, names=None, **options):
        self.trace = trace_of(trace)
        self.title = title
        self.options = options
        self.names = naming.lookup(self.trace) if names is None else dict(names or {})
        self.keep_ids = names is False  # the trace's own ids (t3), as a debugging aid
        self._dot = None
        self._view = None
        self._svg = None

    @property
    def dot(self):
        if self._dot is None:
            data = self.trace.data if self.keep_ids else naming.relabel(self.trace.data, self.names)
            self._view = views.build(data, **self.options)
            self._dot = dotmod.write(self._view, data, self.title)
        return self._dot

    def legend_html(self):
        """The legend of what this picture draws (the one players show under theirs).

        Returns:
            An HTML fragment (a string).
        """
        self.dot  # noqa: B018 - builds the view
        return legends.html(legends.entries(self._view, data=self.trace.data))

    def svg(self):
        """The picture as SVG text, laid out by Graphviz once and kept.

        Without Graphviz's layout program this raises ``GraphvizUnavailable``, whose
        message says what to install (Jupyter then shows a table instead).

        Returns:
            The SVG document, a string.
        """
        if self._svg is None:
            self._svg = render.svg(self.dot)
        return self._svg

    def save(self, path):
        """Write the picture to a file, in the format its extension names (atomically).

        Args:
            path: a file name ending in ``.svg``, ``.png``, ``.dot`` (or ``.gv``),
                or ``.json`` (the trace, as data); any other ending gets SVG.

        Returns:
            ``path``, as a string.
        """
        path = str(path)
        if path.endswith(".dot") or path.endswith(".gv"):
            data = self.dot.encode()
        elif path.endswith(".png"):
            data = render.png(self.dot)
        elif path.endswith(".json"):
            data = self.trace.to_json(indent=1).encode()
        else:
            data = self.svg().encode()
        write_bytes(path, data)
        return path

    def __repr__(self):
        return text.table(self.trace)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return _bundle(self, include, exclude)


def _bundle(figure, include, exclude):
    plain = text.table(figure.trace)
    try:
        body = figure.svg()
    except render.GraphvizUnavailable as problem:
        body = f'<div class="tapeviz-missing" style="color:#92400e">{fmt.html_text(problem)}</div>' + text.html_table(
            figure.trace
        )
    body += figure.legend_html()  # a static picture explains its encodings as a player does
    notes = figure.trace.data.get("notes", [])
    if notes:  # what the picture cannot show, said above it
        plain = "\n".join(fmt.drawable(n) for n in notes) + "\n" + plain
        body = (
            "".join(f'<div class="tapeviz-note" style="color:#92400e">{fmt.html_text(n)}</div>' for n in notes) + body
        )
    bundle = {"text/plain": plain, "text/html": f'<div class="tapeviz">{body}</div>'}
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle


def show(obj, title=None, **options):
    """Draw a tape or a trace. Options: ``sweep`` ("last", None, id), ``fold``
    (True/False), ``open`` (scopes, or loops by the op id written on them, to
    unfold), ``show_reads`` (False), ``max_nodes`` (300),
    ``untaped`` ("forward", "all", "none"), ``names`` (None: the Python names
    found for tensors; False: trace ids; or a dict).

    Args:
        obj: a GradientTape, a ``tapeviz.viz.trace()``, or a ``tf.function`` /
            ConcreteFunction (its traced graph).
        title: a caption under the picture.
        **options: the options above (see :doc:`/visualizer`).

    Returns:
        A :class:`Figure`, shown by Jupyter at the end of a cell; ``.svg()``
        gives the SVG text, ``.save("tape.png")`` writes a file, ``.dot`` the
        Graphviz source.

    Raises:
        TypeError: ``obj`` is neither a tape, a trace nor a ``tf.function``
            (``tf.show(42)``); the message says what to pass.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.Variable(3.0, name="x")
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> figure = tf.show(tape)
        >>> figure.dot.startswith("digraph")
        True
    """
    from tapeviz.viz import function_graph  # a tf.function or ConcreteFunction: its traced graph

    if function_graph.is_traced_function(obj):
        return function_graph.FunctionFigure(obj, title=title)
    if not isinstance(obj, (GradientTape, Trace)):
        raise TypeError(
            f"tf.show() draws a tf.GradientTape, a tapeviz.viz.trace() or a tf.function, not "
            f"{type(obj).__name__} ({obj!r:.60}). Record first: `with tf.GradientTape() as tape: ...`, "
            "then tf.show(tape)."
        )
    return Figure(obj, title=title, **options)


def mimebundle(obj, include=None, exclude=None):
    """What Jupyter shows for a tape or trace that ends a cell."""
    return _bundle(Figure(obj), include, exclude)


def tape_mimebundle(tape, include=None, exclude=None):
    """Called by ``GradientTape._repr_mimebundle_`` (the core imports viz only there)."""
    return mimebundle(tape, include=include, exclude=exclude)


__all__ = ["Figure", "show", "mimebundle", "tape_mimebundle", "Trace"]
