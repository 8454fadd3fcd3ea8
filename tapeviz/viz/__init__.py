"""tapeviz.viz: see tapes, nested tapes and the reverse sweep.

Importing this package subscribes the session recorder (see
:mod:`tapeviz.viz.recorder`): from then on every tape keeps its records,
including its sweeps, so ``tape`` at the end of a cell draws the whole story,
even after a non-persistent tape released its entries. ``stop_watching()``
turns that off; ``trace()`` records one block explicitly. graphviz,
ipywidgets and Pillow are imported only by the functions that need them.

Pieces (model and view apart): ``trace`` (events -> plain data), ``view`` +
``dot`` (data -> deterministic DOT), ``render`` (the ``dot`` program),
``frames`` + ``widget`` (the reverse sweep, step by step), ``tangents`` +
``tangent_card`` (forward mode, step by step), ``animation`` (the model the
widget and the files share) drawn by ``svg_frames``, ``html_page`` and
``gif_frames`` (SVG frames, kernel-free HTML, GIF; ``export`` names them), ``explain`` (why a gradient is None, non-finite values,
gradcheck), ``magnitude`` (the gradient's norm per layer and loop turn), ``memory_view`` (bytes a tape holds), ``fold`` (large tapes),
``update`` + ``update_card`` (the optimizer's step, on a training step's player).
No submodule shares a name with a function here, so ``viz.player`` and
``viz.memory`` stay functions whatever gets imported later.

``__all__`` names one entry point per purpose: ``show`` (a static picture),
``player`` (step through the sweep, forward mode, or the recording),
``trace`` (the events as plain data), ``diagnose`` (everything wrong with a
gradient; ``diagnosis.findings_of(trace)`` gives the player's captions the
same findings), ``explain`` / ``find_nonfinite`` / ``gradcheck``,
``gradient_norms``, ``memory``, ``heatmap``. The older doors (``Figure``,
``to_dot``, ``table``, ``recording_player``, ``trace_of``, ``Trace``...)
stay importable for code that uses them; docs/visualizer.md says which is which.
"""

# Figure, to_dot, table, trace_of, Trace: the older doors, importable but not in __all__.
from tapeviz.viz.diagnosis import Diagnosis, Finding, diagnose, findings_of  # noqa: F401
from tapeviz.viz.display import Figure, show  # noqa: F401
from tapeviz.viz.dot import to_dot  # noqa: F401

# explain.py needs only numpy; importing it here also keeps the name `explain`
# bound to the function rather than to the submodule.
from tapeviz.viz.explain import explain, find_nonfinite, gradcheck  # noqa: E402
from tapeviz.viz.heatmaps import Heatmap
from tapeviz.viz.magnitude import gradient_norms
from tapeviz.viz.memory_view import memory_view
from tapeviz.viz.recorder import stop_watching, watch_all
from tapeviz.viz.render import GraphvizUnavailable
from tapeviz.viz.text import table  # noqa: F401
from tapeviz.viz.trace import Trace, trace, trace_of  # noqa: F401
from tapeviz.viz.update import record_update
from tapeviz.viz.widget import Player


def player(tape, sweep="last", tangents=None, primals=None, recording=False, update=None, **options):
    """An ipywidgets player over the reverse sweep of ``tape`` (or a trace), with a chain-rule card.

    ``player(inner_tape)`` plays that tape's own sweep; ``sweep="all"`` plays
    every sweep in order (a nested tape's first-order sweep, then the
    second-order one). Options: ``predict=True`` (type each unknown on the card,
    products and running sums, before it is shown: one retry, then the value,
    and a score; ``predict="local"`` asks each local derivative first too), ``rankdir="LR"``, ``internals=True`` (the variable reads'
    steps), and the view's (``fold``, ``open``, ``max_nodes``).

    Forward mode: ``player(acc)`` for a ``tf.autodiff.ForwardAccumulator``
    steps forward through the ops it recorded, pushing its tangents along the
    arrows (``dy/dt``), with a card of local derivative x tangent at each op;
    ``player(tape, tangents=v)`` does the same on a tape (``primals=``: the
    tensors that move, by default what the tape watched).

    ``recording=True`` plays the forward pass instead: the ops appearing on
    the tape in the order they were recorded.

    One training step: ``player(tape, update=record)``, with ``record`` from
    ``with tf.viz.record_update() as record:`` around the step, plays the
    forward pass, the sweep to each weight's gradient, what happened between
    ``gradient`` and ``apply_gradients`` (the global norm and the scale of
    ``tf.clip_by_global_norm``), then the optimizer's update of each variable
    (Adam: ``m``, ``v`` and the step). ``fold="scopes"`` draws each layer as
    one box (``open=["model/dense"]`` opens one).

    Args:
        tape: a GradientTape whose ``gradient`` ran, a trace, or a
            ForwardAccumulator.
        sweep: ``"last"``, ``"all"``, or a sweep's index.
        tangents: play forward mode on a tape, along these tangents.
        primals: with ``tangents``: the tensors that move.
        recording: play the forward pass being recorded instead of a sweep.
        update: an UpdateRecord (``tf.viz.record_update()``): play the whole training step.
        **options: ``predict``, ``rankdir``, ``internals``, ``fold``, ``open``,
            ``max_nodes``.

    Returns:
        A ``Player``, a widget in Jupyter (a kernel-free copy where no kernel
        runs); ``.to_html()`` / ``.save_html(path)``, ``.save_gif(path)`` and
        ``.save_svg_frames(prefix)`` export it.

    Raises:
        ValueError: a tape with no reverse sweep to play (call ``gradient`` first).

    Example:
        >>> import tapeviz as tf
        >>> import tapeviz.viz  # in a script: record the sweep (Jupyter does it on import tapeviz)
        >>> x = tf.Variable(3.0, name="x")
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> html = tf.viz.player(tape).to_html()
        >>> "tapeviz-player" in html
        True
    """
    if recording:
        if tangents is not None:
            raise ValueError("player(recording=True) plays the recording; it takes no tangents (leave one out).")
        if update is not None:
            raise ValueError("player(recording=True) plays the recording; update= plays a training step (one of them).")
        return Player(tape, mode="record", **options)
    if tangents is not None:
        if update is not None:
            raise ValueError("player(update=...) plays a training step's reverse sweep; it takes no tangents.")
        return Player(tape, mode="forward", tangents=tangents, primals=primals, **options)
    if update is not None:
        return Player(tape, sweep=sweep, update=update, **options)
    return Player(tape, sweep=sweep, **options)


def recording_player(tape, **options):
    """``player(tape, recording=True)``: the forward pass, ops appearing on the tape in order."""
    return player(tape, recording=True, **options)


def heatmap(value, title=None, **options):
    """A Jacobian or Hessian drawn as an SVG heatmap (blue negative, white zero, red positive).

    Args:
        value: a 2-D tensor or array (a Jacobian or Hessian).
        title: a caption.
        **options: the drawing's options (row and column labels...).

    Returns:
        A ``Heatmap``; ``.svg()`` gives the picture, Jupyter shows it.
    """
    return Heatmap(value, title=title, **options)


def memory(*tapes, **options):
    """Bytes each tape holds for the backward pass, as it records and as the sweep frees them.

    Args:
        *tapes: GradientTapes (or traces).
        **options: how to draw (``title``...).

    Returns:
        A memory view that draws itself in Jupyter.
    """
    return memory_view(*tapes, **options)


watch_all()

# One entry point per purpose; the older doors above stay importable, unadvertised.
__all__ = [
    "show",  # a static picture (a Figure: .svg(), .save(); a table without a layout program)
    "player",  # step through: the reverse sweep, forward mode (tangents=), the recording (recording=True)
    "trace",  # the events of a block as plain data (for your own pictures)
    "record_update",  # a training step's optimizer update, for player(tape, update=...)
    "diagnose",  # everything wrong with a gradient: findings with the op, the line and the step
    "explain",  # why a gradient is None
    "find_nonfinite",  # the first op that made an inf or nan
    "gradcheck",  # a function's gradients against finite differences
    "gradient_norms",  # how big the gradient arriving at each layer and loop turn is (vanishing, exploding)
    "memory",  # bytes each tape holds
    "heatmap",  # a Jacobian or Hessian
    "watch_all",  # the session recorder on ...
    "stop_watching",  # ... and off
    "GraphvizUnavailable",  # what show() raises when asked for an SVG with no layout program
]
