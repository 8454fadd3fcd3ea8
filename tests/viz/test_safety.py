"""User text is escaped everywhere; a missing `dot` gives a message and a table."""

import html
import html.parser

import pytest

import tapeviz as tf
import tapeviz.viz as viz

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


from tapeviz.viz import export, render
from tapeviz.viz.trace import trace_of

EVIL = ["<script>alert(1)</script>", '"]; a -> b [', "back\\slash & <b>"]


def evil_tape():
    vs = [tf.Variable(float(i + 1), name=name) for i, name in enumerate(EVIL)]
    with tf.GradientTape() as tape:
        with tf.name_scope("<img src=x onerror=alert(2)>"):
            y = vs[0] * vs[1] + vs[2]
    tape.gradient(y, vs)
    return tape


def test_dot_escapes_user_text():
    text = viz.to_dot(trace_of(evil_tape()))
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert '"]; a -> b [' not in text  # the quote is escaped: &quot; in labels, \" in strings
    assert "<img" not in text
    assert text.count("->") == text.count(' [id="e')  # no edge injected


needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")


@needs_dot
def test_svg_and_html_render_names_as_text():
    tape = evil_tape()
    svg = viz.show(tape).svg()
    assert "<script" not in svg and "<img" not in svg and "&lt;script&gt;" in svg
    page = export.animate(tape).to_html()
    parser = _Collect()
    parser.feed(page)
    assert (
        parser.tags.count("script") == 8
    )  # seven JSON blocks (frames, boxes, paths, links, badge spots, style, predict mode's rules) and the player
    assert "img" not in parser.tags
    assert "&lt;img src=x onerror=alert(2)&gt;" in page  # shown, as text


def test_missing_dot_gives_message_and_table(monkeypatch):
    monkeypatch.setattr(render, "dot_binary", lambda: None)
    tape = evil_tape()
    bundle = tape._repr_mimebundle_()
    assert "apt-get install graphviz" in bundle["text/html"]
    assert "<table" in bundle["text/html"] and "&lt;script&gt;" in bundle["text/html"]
    assert "Mul" in bundle["text/plain"]
    with pytest.raises(render.GraphvizUnavailable, match="install"):
        viz.show(tape).svg()


def test_import_tapeviz_stays_light():
    import subprocess
    import sys

    code = (
        "import sys, tapeviz; heavy = [m for m in ('graphviz', 'ipywidgets', 'IPython', 'PIL', 'tapeviz.viz') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_top_level_conveniences_are_lazy():
    assert tf.show is viz.show and tf.explain is viz.explain
    assert tf.find_nonfinite is viz.find_nonfinite and tf.gradcheck is viz.gradcheck


class _Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


@needs_dot
def test_html_table_fallback_parses(monkeypatch):
    monkeypatch.setattr(render, "dot_binary", lambda: None)
    parser = _Collect()
    parser.feed(evil_tape()._repr_mimebundle_()["text/html"])
    assert "script" not in parser.tags and "img" not in parser.tags


def test_rendered_pictures_keep_node_labels_free_of_link_underlines():
    if render.dot_binary() is None:
        pytest.skip("Graphviz's dot program is not installed (apt-get install graphviz)")
    svg = render.svg('digraph { a [tooltip="x"] }')
    assert svg.startswith("<svg") and "svg a {text-decoration: none}" in svg


# -- names no picture can carry: control characters, NUL, lone surrogates, 16 KB+ --------------------

import json  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

UNDRAWABLE = [
    "nul\x00here",
    "bell\x07\x1b[31m",
    "lone \ud800 surrogate",
    "\udfff",
    "line\u2028sep",
    "rtl\u202eevil",
    "x" * 17000,
    "\x00" * 20000,
    "\ud800" * 9000,
]


def named_tape(name, scope):
    v = tf.Variable(2.0, name=name)
    with tf.GradientTape() as tape:
        with tf.name_scope(scope):
            y = v * v
    tape.gradient(y, v)
    return tape


def check_bundle(bundle):
    """A bundle Jupyter can send: strict UTF-8 JSON, an SVG or a table, never a plea to report a bug."""
    json.dumps(bundle).encode("utf-8")  # lone surrogates would raise here
    for value in bundle.values():
        value.encode("utf-8")
        assert "report" not in value.lower()
    if render.dot_binary() is not None:
        assert "<svg" in bundle["text/html"], bundle["text/html"][:500]
    else:
        assert "<table" in bundle["text/html"]


@pytest.mark.parametrize("text", UNDRAWABLE, ids=lambda t: ascii(t[:12]))
def test_undrawable_names_scopes_and_titles_draw(text):
    tape = named_tape(text, text)
    check_bundle(tape._repr_mimebundle_())
    check_bundle(viz.show(tape, title=text)._repr_mimebundle_())
    dot = viz.to_dot(tape, title=text)
    assert max(len(line.encode("utf-8")) for line in dot.splitlines()) < 16384  # Graphviz's limit per string
    if len(text) < 100:  # labels, tooltips and tables show the name with visible escapes (\x00, \ud800)
        shown = html.escape("".join(c if c.isprintable() else ascii(c)[1:-1] for c in text))
        assert shown in dot
        assert "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text) in viz.table(tape)


def test_a_huge_scope_folds_and_opens_in_the_picture():
    scope = "s\x00" + "y" * 17000
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        with tf.name_scope(scope):
            h = x
            for _ in range(30):
                h = tf.sin(h)
    tape.gradient(h, x)
    figure = viz.show(tape, max_nodes=5, title=scope)
    assert "folds;" in figure.dot or "fold;" in figure.dot
    check_bundle(figure._repr_mimebundle_())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.text(st.characters(exclude_categories=()), max_size=30),
    scope=st.text(st.characters(exclude_categories=()), min_size=1, max_size=30),
    title=st.text(st.characters(exclude_categories=()), max_size=30),
)
def test_any_text_as_name_scope_or_title_draws(name, scope, title):
    tape = named_tape(name or "v", scope)
    figure = viz.show(tape, title=title)
    check_bundle(figure._repr_mimebundle_())
    plain = viz.table(tape)
    plain.encode("utf-8")
    html_page = viz.text.html_table(trace_of(tape))
    parser = _Collect()
    parser.feed(html_page)
    assert set(parser.tags) <= {"table", "tr", "th", "td", "p"}


def test_a_layout_program_failing_on_a_graph_hands_over_to_the_next(monkeypatch, tmp_path):
    broken = tmp_path / "dot"
    broken.write_text("#!/bin/sh\necho 'Error: trouble in init_rank' >&2\nexit 1\n")
    broken.chmod(0o755)
    others = {name: path for name, path in render.layout_programs().items() if name != "dot"}
    monkeypatch.setattr(render, "layout_programs", lambda: {"dot": str(broken), **others})
    source = "digraph { a -> b }"
    if others:  # graphviz-pure draws what the broken dot could not
        assert render.svg(source).startswith("<svg")
    else:
        with pytest.raises(render.GraphvizUnavailable, match="trouble in init_rank") as failure:
            render.svg(source)
        assert "report" not in str(failure.value).lower() and "table" in str(failure.value)
    monkeypatch.setattr(render, "layout_programs", lambda: {"dot": str(broken)})
    bundle = viz.show(evil_tape())._repr_mimebundle_()
    assert "trouble in init_rank" in bundle["text/html"] and "<table" in bundle["text/html"]
    assert "report" not in bundle["text/html"].lower()
