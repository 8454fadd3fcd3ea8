"""``tf.summary.trace_on`` / ``trace_off`` / ``trace_export``: the graphs of ``tf.function`` calls, for TensorBoard."""

import warnings

from tapeviz.core import function as _function
from tapeviz.summary.protos import run_metadata, string_proto
from tapeviz.summary.values import write_summary

_trace = {"functions": None}  # the ConcreteFunctions called since trace_on (None: not tracing)


def _seen(concrete):
    functions = _trace["functions"]
    if functions is not None and all(f is not concrete for f in functions):
        functions.append(concrete)


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of the ``tf.function`` calls that follow, for ``trace_export``.

    Args:
        graph: collect the graphs (as TF: the only thing tapeviz collects).
        profiler: TF's profiler; tapeviz has none (a warning says so, and graphs are still collected).
        profiler_outdir: for the profiler; ignored.
    """
    if profiler:
        warnings.warn("tapeviz has no profiler: tf.summary.trace_on collects the graphs only", stacklevel=2)
    if graph and _trace["functions"] is None:
        _trace["functions"] = []
        _function.CALL_LISTENERS.append(_seen)


def trace_off():
    """Stop collecting graphs and forget those collected."""
    if _seen in _function.CALL_LISTENERS:
        _function.CALL_LISTENERS.remove(_seen)
    _trace["functions"] = None


def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs collected since ``trace_on`` (TensorBoard's Graphs dashboard), then stop collecting.

    Args:
        name: the tag.
        step: the step (default: the default step).
        profiler_outdir: for TF's profiler; ignored.

    Raises:
        ValueError: no step is given or set.
    """
    functions = _trace["functions"]
    if functions is None:
        warnings.warn("Must enable trace before export through tf.summary.trace_on().", stacklevel=2)
        return
    graph_defs = [f.graph.as_graph_def() for f in functions]

    def build(protos, _):
        return string_proto(protos, [run_metadata(protos, graph_defs)], ())

    try:
        write_summary(name, build, None, step, "graph_run_metadata_graph", 0, content=b"1")
    finally:
        trace_off()
