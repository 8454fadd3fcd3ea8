"""The memory chart: what it marks and how it shows up in a notebook."""

import pytest

import tapeviz as tf
import tapeviz.viz as viz

viz.stop_watching()  # keep the session recorder on only inside these tests


pytestmark = pytest.mark.usefixtures("session_recorder")


def _two_tapes():
    x = tf.Variable(tf.ones((10,)))
    tapes = []
    for persistent in (False, True):
        with tf.GradientTape(persistent=persistent) as tape:
            y = tf.reduce_sum(tf.tanh(x * 2.0))
        tape.gradient(y, x)
        tapes.append(tape)
    return viz.memory(*tapes, labels=["plain", "kept"])


def test_the_gradient_call_is_where_the_sweep_starts():
    view = _two_tapes()
    for index in range(2):
        call = view.gradient_call(index)
        points = view.series[index][1]
        assert points[call - 1][2].startswith("record") and points[call][2].startswith("sweep")
    svg = view.svg()
    assert svg.count("gradient() called") == 1  # both tapes sweep at the same event: one mark


def test_lines_that_coincide_stay_distinguishable():
    view = _two_tapes()
    svg = view.svg()
    polylines = [part for part in svg.split("<polyline")[1:]]
    assert len(polylines) == 2
    styles = [p.split("/>")[0].split('points="')[1].split('"', 1)[1] for p in polylines]
    assert styles[0] != styles[1] and "stroke-dasharray" in styles[1]


def test_a_tape_that_never_swept_has_no_mark():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        x * x
    view = viz.memory(tape)
    assert view.gradient_call(0) is None and "gradient() called" not in view.svg()


def test_shown_as_html_so_untrusted_notebooks_draw_it():
    bundle = _two_tapes()._repr_mimebundle_()
    assert bundle["text/html"].count("<svg") == 1 and "image/svg+xml" not in bundle
    assert "peak" in bundle["text/plain"]
