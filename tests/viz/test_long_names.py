"""Issue 30: a 100,000-character name (a variable's, a scope) does not make a page of megabytes.

Names are user text: the trace keeps them shortened (start, ellipsis, end), so every page the player
writes (the sweep, the recording, forward mode, a training step), with its cards, captions and
tooltips, costs about what it costs with a short name.
"""

import re

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import format as fmt

LONG = 100_000
SLACK = 16 << 10  # bytes a page may grow by with the longest names: a few shortened names, not the names


def _pages(name, scope, function_name):
    x = tf.Variable(np.ones(3, np.float32), name=name)

    def inner(v):
        @tf.custom_gradient
        def f(t):
            return tf.sin(t), lambda dy: dy * tf.cos(t)

        f.__name__ = function_name
        return f(v)

    with tf.name_scope(scope), viz.record_update() as record:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(inner(x) * 2.0)
        grads = tape.gradient(y, [x])
        tf.keras.optimizers.Adam(0.1).apply_gradients(zip(grads, [x]))
    return {
        "sweep": viz.player(tape).to_html(),
        "recording": viz.player(tape, recording=True).to_html(),
        "forward": viz.player(tape, tangents=[tf.ones(3)]).to_html(),
        "update": viz.player(tape, update=record).to_html(),
    }


@pytest.fixture(scope="module")
def pages():
    viz.watch_all()
    return _pages("w", "s", "f"), _pages("w" * LONG, "s" * LONG, "f" * LONG)


@pytest.mark.parametrize("kind", ["sweep", "recording", "forward", "update"])
def test_a_page_with_names_of_100_000_characters_is_as_small_as_with_short_ones(pages, kind):
    short, long = pages
    assert len(long[kind]) <= len(short[kind]) + SLACK, (len(short[kind]), len(long[kind]))
    longest = max((len(run) for run in re.findall(r"w{50,}|s{50,}|f{50,}", long[kind])), default=0)
    assert longest <= fmt.NAME_LIMIT
    assert "\u2026" in long[kind] or "\\u2026" in long[kind]  # shortened, and it shows


def test_a_long_name_keeps_its_start_and_its_end():
    name = "model/encoder/" + "layer/" * 40 + "kernel"
    shown = fmt.short_name(name)
    assert len(shown) == fmt.NAME_LIMIT
    assert shown.startswith("model/encoder/") and shown.endswith("/kernel") and "\u2026" in shown
    assert fmt.short_name("dense/kernel") == "dense/kernel"
    assert fmt.short_name(None) is None
