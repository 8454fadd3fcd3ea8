"""The built documentation site, read as HTML: a reference that answers questions.

The site is built once per session (``docs_site``), exactly as ``./dev.sh docs``
does (Sphinx, warnings as errors), into a temporary folder; the tests read the
pages it wrote. The Chromium test at the end opens the landing page as a
newcomer does (browser fixtures from ``tests/browser/test_browser.py``), at a laptop's
and a phone's width, and saves screenshots to ``tests/artifacts/``.
"""

import html
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.browser.test_browser import ARTIFACTS, HIGHLIGHT, _new_page, browser  # noqa: F401 (a fixture)

# Every test here reads the built site, and building it takes a minute: not in the quick tier.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# The methods and modules a reader looks up first: each must have its entry.
EXPECTED_ENTRIES = [
    "tapeviz.GradientTape.gradient",
    "tapeviz.GradientTape.jacobian",
    "tapeviz.GradientTape.batch_jacobian",
    "tapeviz.GradientTape.watch",
    "tapeviz.GradientTape.stop_recording",
    "tapeviz.GradientTape.reset",
    "tapeviz.Variable.assign",
    "tapeviz.Variable.assign_add",
    "tapeviz.Variable.assign_sub",
    "tapeviz.autodiff.ForwardAccumulator.jvp",
    "tapeviz.keras.Model.fit",
    "tapeviz.keras.Model.compile",
    "tapeviz.keras.Model.save",
    "tapeviz.keras.Model.evaluate",
    "tapeviz.keras.Model.predict",
    "tapeviz.keras.Sequential.fit",  # inherited members are listed too
    "tapeviz.keras.layers.Dense.build",
    "tapeviz.keras.optimizers.Adam.apply_gradients",
    "tapeviz.saved_model.save",
    "tapeviz.saved_model.load",
    "tapeviz.image.resize",
    "tapeviz.keras.load_model",  # tf.keras.models.load_model: the same object, its page points here
]

# The ~20 most-used names: each entry has Args (rendered "Parameters"), Returns and an Example.
TOP_NAMES = [
    "tapeviz.GradientTape",
    "tapeviz.GradientTape.gradient",
    "tapeviz.GradientTape.jacobian",
    "tapeviz.GradientTape.batch_jacobian",
    "tapeviz.GradientTape.watch",
    "tapeviz.GradientTape.stop_recording",
    "tapeviz.GradientTape.reset",
    "tapeviz.Variable.assign",
    "tapeviz.constant",
    "tapeviz.custom_gradient",
    "tapeviz.autodiff.ForwardAccumulator",
    "tapeviz.autodiff.ForwardAccumulator.jvp",
    "tapeviz.function",
    "tapeviz.keras.Model.fit",
    "tapeviz.keras.Model.compile",
    "tapeviz.keras.Model.save",
    "tapeviz.keras.Model.evaluate",
    "tapeviz.keras.Model.predict",
    "tapeviz.keras.layers.Dense",
    "tapeviz.keras.optimizers.Adam",
    "tapeviz.keras.optimizers.SGD",
    "tapeviz.keras.load_model",
    "tapeviz.saved_model.save",
    "tapeviz.saved_model.load",
    "tapeviz.show",
    "tapeviz.viz.player",
    "tapeviz.explain",
]
NO_RETURNS = {"tapeviz.GradientTape.watch", "tapeviz.GradientTape.reset", "tapeviz.saved_model.save"}
NO_ARGS = {"tapeviz.GradientTape.stop_recording", "tapeviz.GradientTape.reset"}

BUILTINS = [int, float, bool, str, tuple, list, dict, set, frozenset, object, type]


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    """The site, built once as ``./dev.sh docs`` builds it: the folder of its HTML.

    Into a temporary folder, or into ``$TAPEVIZ_DOCS_OUT`` when set (``.ci/run`` sets it to
    ``docs/_build/html`` and then need not build the site a second time), from scratch either way."""
    # Only a missing Sphinx skips; with Sphinx but without the theme or myst-nb the build fails and says so.
    pytest.importorskip("sphinx", reason="Sphinx is not installed: pip install -e '.[docs]' to build the docs")
    given = os.environ.get("TAPEVIZ_DOCS_OUT")
    out = Path(given).resolve() if given else tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    build = subprocess.run(
        # -E: every page read again, whatever an earlier build left in the folder
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-b", "html", "-q", "docs", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, f"the docs build failed:\n{build.stdout[-4000:]}\n{build.stderr[-4000:]}"
    return out


def _api_pages(site):
    return sorted((site / "api").glob("*.html"))


class _Entries(HTMLParser):
    """Every ``<dl class="py ...">`` entry of a page: its id, signature text and body text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.entries = []  # dicts: id, signature, body
        self._stack = []  # open dl/dt/dd elements: (tag, entry or None)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "dl" and "py" in (attrs.get("class") or "").split():
            self.entries.append({"id": None, "signature": "", "body": "", "depth": len(self._stack)})
            self._stack.append(("dl", self.entries[-1]))
        elif tag in ("dl", "dt", "dd"):
            entry = self._current()
            if tag == "dt" and entry is not None and self._stack and self._stack[-1] == ("dl", entry):
                entry["id"] = entry["id"] or attrs.get("id")
                self._stack.append(("dt", entry))
            elif tag == "dd" and entry is not None and self._stack and self._stack[-1] == ("dl", entry):
                self._stack.append(("dd", entry))
            else:
                self._stack.append((tag, None))

    def handle_endtag(self, tag):
        if tag in ("dl", "dt", "dd") and self._stack:
            self._stack.pop()

    def _current(self):
        for _tag, entry in reversed(self._stack):
            if entry is not None:
                return entry
        return None

    def handle_data(self, data):
        # A nested entry's text (a method's) also counts for its class's body: a class whose
        # only text is its methods' is not empty.
        for tag, entry in self._stack:
            if entry is None:
                continue
            if tag == "dt":
                entry["signature"] += data
            elif tag == "dd":
                entry["body"] += data


def _entries(page):
    parser = _Entries()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.entries


def _all_entries(site):
    found = {}
    for page in _api_pages(site):
        for entry in _entries(page):
            if entry["id"]:
                found[entry["id"]] = dict(entry, page=page.name)
    return found


def test_api_pages_list_the_methods_people_look_up(docs_site):
    ids = _all_entries(docs_site)
    missing = [name for name in EXPECTED_ENTRIES if name not in ids]
    assert not missing, f"no API entry for {missing}"
    for module in ("saved_model", "image", "keras_models"):
        assert (docs_site / "api" / f"tapeviz_{module}.html").is_file(), f"no API page for {module}"


def test_the_most_used_names_have_args_returns_and_an_example(docs_site):
    ids = _all_entries(docs_site)
    problems = []
    for name in TOP_NAMES:
        entry = ids.get(name)
        if entry is None:
            problems.append(f"{name}: no entry")
            continue
        body = entry["body"]
        wanted = ["Example"] + ([] if name in NO_ARGS else ["Parameters"]) + ([] if name in NO_RETURNS else ["Returns"])
        if name in ("tapeviz.GradientTape.gradient", "tapeviz.keras.Model.fit", "tapeviz.saved_model.load"):
            wanted.append("Raises")
        lacking = [section for section in wanted if section not in body]
        if "Return type" in body and "Returns" in wanted:  # napoleon read "text: more" as a type
            lacking.append("a Returns text without a colon in its first line")
        if lacking:
            problems.append(f"{name} ({entry['page']}): no {', '.join(lacking)}")
    assert not problems, "\n".join(problems)


def test_no_entry_shows_a_builtin_docstring(docs_site):
    firsts = {t.__name__: (t.__doc__ or "").strip().splitlines()[0] for t in BUILTINS if t.__doc__}
    firsts["ModuleType"] = "Create a module object."
    found = []
    for page in _api_pages(docs_site):
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
        found += [f"{page.name}: {kind}'s docstring" for kind, first in firsts.items() if first in text]
    assert not found, found


def test_no_signature_shows_an_object_repr(docs_site):
    bad = []
    for page in _api_pages(docs_site):
        for entry in _entries(page):
            if re.search(r"<[^<>]*object at 0x", entry["signature"]) or " at 0x" in entry["signature"]:
                bad.append(f"{page.name}: {entry['id']}: {entry['signature'].strip()[:120]}")
    assert not bad, bad


def test_no_empty_entries(docs_site):
    empty = []
    for page in _api_pages(docs_site):
        for entry in _entries(page):
            if not entry["body"].strip():
                empty.append(f"{page.name}: {entry['id'] or entry['signature'].strip()[:80]}")
    assert not empty, empty


class _CodeText(HTMLParser):
    """The text inside each ``<pre>`` and ``<code>`` element of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self._depth = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("pre", "code"):
            if self._depth == 0:
                self.blocks.append("")
            self._depth += 1

    def handle_endtag(self, tag):
        if tag in ("pre", "code") and self._depth:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.blocks[-1] += data


CURLY = "\u201c\u201d\u2018\u2019"  # what smart quotes make of " and ': code pasted with them fails


def test_code_in_the_reference_keeps_straight_quotes(docs_site):
    """An example that renders as a paragraph gets curly quotes (``loss=\u201dmse\u201d``) and runs
    together; one that renders as code keeps its quotes. Every code element of the API pages has none."""
    bad = []
    for page in _api_pages(docs_site):
        parser = _CodeText()
        parser.feed(page.read_text(encoding="utf-8"))
        bad += [f"{page.name}: {block.strip()[:100]!r}" for block in parser.blocks if any(c in block for c in CURLY)]
    assert not bad, "curly quotes inside code:\n" + "\n".join(bad)


def test_keras_examples_render_as_code_not_as_a_paragraph(docs_site):
    """A ``>>>`` outside a code block is an example that rendered as text (an ``Example:`` whose lines
    are not indented under it): the reader sees one run-on paragraph."""
    bad = []
    for page in _api_pages(docs_site):
        text = page.read_text(encoding="utf-8")
        for paragraph in re.findall(r"<p>(.*?)</p>", text, flags=re.S):
            if "&gt;&gt;&gt;" in paragraph:
                bad.append(f"{page.name}: {html.unescape(re.sub(r'<[^>]+>', '', paragraph))[:100]!r}")
    assert not bad, "examples rendered as paragraphs:\n" + "\n".join(bad)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append((attrs["href"], attrs.get("class") or ""))


def _links(page):
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_source_and_docs_link_resolves(docs_site):
    """viewcode's "[source]" links (API page -> highlighted source) and "[docs]" links (source ->
    the entry) name an existing page and, where they have one, an existing anchor on it."""
    pages = {}
    broken, checked = [], 0
    sources = list((docs_site / "_modules").rglob("*.html"))
    for page in _api_pages(docs_site) + sources:
        for href, classes in _links(page).links:
            if "_modules/" not in href and "viewcode-back" not in classes:
                continue
            if href.startswith(("http:", "https:")):
                continue
            parts = urlsplit(href)
            target = (page.parent / unquote(parts.path)).resolve()
            checked += 1
            if not target.is_file():
                broken.append(f"{page.relative_to(docs_site)} -> {href} (no such page)")
                continue
            if parts.fragment:
                if target not in pages:  # each page parsed once (setdefault would parse it for every link)
                    pages[target] = _links(target).ids
                ids = pages[target]
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(docs_site)} -> {href} (no such anchor)")
    assert checked > 100, f"only {checked} source links found: is sphinx.ext.viewcode on?"
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(broken[:60])


# -- the landing page in Chromium, as a newcomer opens it ---------------------------------------
@pytest.fixture(scope="module")
def site_url(docs_site):
    """The built site served over HTTP on 127.0.0.1 (a free port), as a docs host serves it."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(docs_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.browser
def test_landing_page_shows_a_picture_and_a_working_player_above_the_fold(browser, site_url):  # noqa: F811
    problems = []
    context, page = _new_page(browser, problems)
    try:
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto(f"{site_url}/index.html", wait_until="load")
        picture = page.locator(".tv-hero-picture img")
        box = picture.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, f"no picture drawn: {box}"
        assert box["y"] >= 0 and box["y"] + box["height"] <= 768, f"the picture is not above the fold: {box}"
        assert page.evaluate("img => img.complete && img.naturalWidth > 0", picture.element_handle())

        player = page.frame_locator(".tv-hero-player iframe")
        caption = player.locator(".tv-caption")
        caption.wait_for(timeout=15_000)
        assert caption.text_content().startswith("step 0 of"), caption.text_content()
        step = player.locator(".tv-next")
        step_box = step.bounding_box()
        assert step_box and step_box["y"] + step_box["height"] <= 768, f"the step button is below the fold: {step_box}"
        view = page.locator(".tv-hero-player iframe").bounding_box()
        assert view["y"] < 768 * 0.6, f"the player starts too far down: {view}"
        highlight = player.locator(f"g.graph rect[stroke='{HIGHLIGHT}']")
        start = highlight.first.get_attribute("x"), highlight.first.get_attribute("y")
        step.click()
        assert caption.text_content().startswith("step 1 of"), caption.text_content()
        step.click()
        moved = highlight.first.get_attribute("x"), highlight.first.get_attribute("y")
        assert moved != start, "stepping did not move the highlight"
        assert "upstream" in player.locator(".tv-card").text_content()
        page.screenshot(path=str(ARTIFACTS / "docs_landing_1366.png"))
        assert not problems, problems
    finally:
        context.close()


# What sticks out of its box on a page, as a reader would see it (and a picture that does not load,
# which shows as its alt text): the page scrolling sideways, a
# picture, table or frame running past the article's right edge, a printed output (or a stacked
# table's cell) whose text runs past its box, a player whose controls or page are wider than its frame.
WIDER_THAN_ITS_BOX = """() => {
  const found = [], article = document.querySelector("article") || document.body;
  const doc = document.documentElement, edge = article.getBoundingClientRect().right + 1;
  if (doc.scrollWidth > doc.clientWidth + 1) found.push(`the page scrolls sideways (${doc.scrollWidth} px)`);
  for (const el of article.querySelectorAll("img, svg, iframe, table, div.highlight")) {
    const box = el.getBoundingClientRect();
    const scroller = el.parentElement.closest("table, div.highlight, .table-wrapper, .tv-view");
    if (box.width && box.right > edge && !scroller) found.push(`${el.tagName} ends at ${Math.round(box.right)} px`);
  }
  for (const img of article.querySelectorAll("img")) {
    if (img.complete && img.naturalWidth === 0) found.push(`a picture that does not load: ${img.getAttribute("src")}`);
  }
  for (const pre of article.querySelectorAll("div.highlight-text pre, div.cell_output div.output pre")) {
    if (pre.scrollWidth > pre.clientWidth + 1) found.push(`output cut: ${pre.textContent.slice(0, 60)}`);
  }
  for (const cell of article.querySelectorAll("table.tv-stackable td")) {
    if (getComputedStyle(cell).display === "block" && cell.scrollWidth > cell.clientWidth + 1)
      found.push(`table cell cut: ${cell.textContent.slice(0, 60)}`);
  }
  for (const frame of document.querySelectorAll("iframe")) {
    const inner = frame.contentDocument;
    if (!inner || !inner.documentElement) continue;
    const controls = inner.querySelector(".tv-controls");
    if (controls && controls.scrollWidth > controls.clientWidth + 1)
      found.push(`player controls ${controls.scrollWidth} px in ${controls.clientWidth} px`);
    if (inner.documentElement.scrollWidth > inner.documentElement.clientWidth + 1)
      found.push(`a frame's page is ${inner.documentElement.scrollWidth} px in ${inner.documentElement.clientWidth} px`);
  }
  return found;
}"""


def _narrow_to_a_phone(page):
    """The open page at a phone's width, 375 px, once the browser has laid it out again (two frames)."""
    page.set_viewport_size({"width": 375, "height": 800})
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def _site_pages(docs_site):
    """Every page a reader opens: the guides, the API reference and the indexes (not the highlighted
    source pages, whose long lines scroll by design; the lesson pages are checked, every player loaded,
    by test_lesson_page_players_step_without_a_kernel)."""
    return sorted(
        page.relative_to(docs_site).as_posix()
        for page in docs_site.rglob("*.html")
        if not {"_modules", "_sources", "_static", "lessons"} & set(page.relative_to(docs_site).parts)
    )


@pytest.mark.browser
def test_no_page_has_content_wider_than_its_box(browser, docs_site, site_url):  # noqa: F811
    """Each page at a laptop's and a phone's width (loaded once, then narrowed): nothing runs past its
    box; a player's controls wrap inside their frame; printed outputs wrap; the TF map's tables stack
    on a phone, notes included; the install lines sit near the top of the landing on a phone."""
    problems, wide = [], {}
    context, page = _new_page(browser, problems)
    shown = ("tf-map.html", "api/tapeviz.html")  # screenshots at both widths (the landing has its own)
    try:
        pages = _site_pages(docs_site)
        assert {"index.html", "tf-map.html", "player.html", "api/tapeviz.html"} <= set(pages)
        for name in pages:
            page.set_viewport_size({"width": 1366, "height": 800})
            page.goto(f"{site_url}/{name}", wait_until="load")
            for width in (1366, 375):
                if width != 1366:
                    _narrow_to_a_phone(page)
                found = page.evaluate(WIDER_THAN_ITS_BOX)
                if found:
                    wide[f"{name} at {width} px"] = found[:3]
                if name in shown:
                    page.screenshot(path=str(ARTIFACTS / f"docs_{name[:-5].replace('/', '_')}_{width}.png"))
            if name == "tf-map.html":  # at 375 px now
                notes = page.evaluate(
                    """() => [...document.querySelectorAll("table.tv-stackable td")]
                        .filter(td => /note|differ/i.test(td.dataset.label || "") && td.textContent.trim())
                        .map(td => td.getBoundingClientRect()).filter(box => box.width > 0)
                        .map(box => [box.left, box.right])"""
                )
                assert notes, "the TF map shows no notes column on a phone"
                assert all(0 <= left and right <= 375 + 1 for left, right in notes), notes[:5]
            if name == "index.html":
                install = page.locator("article pre").filter(has_text="pip install").first.bounding_box()
                assert install and install["y"] < 400, f"the install line is {install} down the landing on a phone"
                page.screenshot(path=str(ARTIFACTS / "docs_landing_375_full.png"), full_page=True)
        assert not wide, f"content wider than its box: {wide}"
        assert not problems, problems
    finally:
        context.close()


# -- every lesson page in Chromium: the players play with no kernel -----------------------------
LESSON_NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _stored_players(notebook):
    """Each player the lesson stores, in page order: (its steps as the notebook's text says them,
    whether its cell asks for predict mode). The text is the oracle the page's captions must match."""
    import json

    players = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                text = "".join(data["text/plain"])
                steps = re.split(r"^step \d+: ", text, flags=re.MULTILINE)[1:]
                players.append(([s.strip() for s in steps], "predict=True" in "".join(cell["source"])))
    return players


def _kernel_free_state(player):
    """(caption, highlight position, predict box ticked, a question waiting for an answer) of a player page's root."""
    return player.evaluate(
        """(root, colour) => {
            const rect = [...root.querySelectorAll('g.tapeviz-overlay rect')]
                .find(r => r.getAttribute('stroke') === colour);
            return {caption: root.querySelector('.tv-caption').textContent,
                    highlight: rect ? [rect.getAttribute('x'), rect.getAttribute('y')] : null,
                    predict: root.querySelector('.tv-predict').checked,
                    asking: root.querySelector('.tv-guess-input:not([disabled])') !== null};
        }""",
        HIGHLIGHT,
    )


def _step_through(frame, steps, predicting):
    """Click "step" to the end; in predict mode each question is answered wrongly twice first (a retry,
    then the value). The captions shown."""
    root = frame.locator("#tapeviz-player")
    shown, highlights = [], []
    state = _kernel_free_state(root)
    for index, expected in enumerate(steps):
        if index:
            frame.locator(".tv-next").click()
            state = _kernel_free_state(root)
        if state["asking"]:
            assert predicting, f"a player not in predict mode asks for an answer: {state}"
            assert f"step {index} of" in state["caption"] and "your turn" in state["caption"], state
        while state["asking"]:  # each ? on the card: a wrong answer gets a retry, a second one the value
            for attempt, expected_verdict in enumerate(("\u2718 not yet", "\u2718 not quite")):
                frame.locator(".tv-guess-input:not([disabled])").fill("12345")
                frame.locator(".tv-check").click()
                # the last verdict said (a revealed question's line may have the next, still blank, below it)
                verdict = [v.strip() for v in frame.locator(".tv-verdict").all_text_contents() if v.strip()][-1]
                assert verdict.startswith(expected_verdict), f"step {index}, try {attempt + 1}: 12345 got {verdict!r}"
            state = _kernel_free_state(root)
        shown.append(state["caption"])
        highlights.append(state["highlight"])
        assert state["caption"] == f"step {index} of {len(steps) - 1}: {expected}", (index, state["caption"])
    moved = {tuple(h) for h in highlights if h}
    assert len(moved) >= 2 or len(steps) < 3, f"the highlight never moved: {highlights}"
    return shown


@pytest.mark.browser
@pytest.mark.parametrize("notebook", LESSON_NOTEBOOKS, ids=lambda path: path.stem)
def test_lesson_page_players_step_without_a_kernel(browser, site_url, notebook):  # noqa: F811
    """Each lesson page, loaded once, as a student reads the site: every player is the kernel-free
    copy, steps through the captions the notebook stores, opens in predict mode where the lesson
    asks for it and takes a typed answer there. Nothing asks the network beyond the site."""
    players = _stored_players(notebook)
    problems, elsewhere = [], []
    context, page = _new_page(browser, problems)
    try:
        page.set_viewport_size({"width": 1366, "height": 900})
        page.on(
            "request", lambda r: None if r.url.startswith((site_url, "data:", "about:")) else elsewhere.append(r.url)
        )
        page.goto(f"{site_url}/lessons/{notebook.stem}.html", wait_until="load")
        embeds = page.locator("iframe.tapeviz-embed")
        assert embeds.count() == len(players), f"{embeds.count()} players on the page, {len(players)} in the lesson"
        doubled = page.locator(".tapeviz-still + iframe.tapeviz-embed").evaluate_all(
            "frames => frames.filter(f => f.previousElementSibling.offsetParent !== null).length"
        )
        assert doubled == 0, "a player's still picture shows beside the player"
        for index, (steps, predicting) in enumerate(players):
            embeds.nth(index).scroll_into_view_if_needed()  # the iframes load lazily, as a reader scrolls
            frame = page.frame_locator("iframe.tapeviz-embed").nth(index)
            frame.locator(".tv-caption").wait_for(timeout=15_000)
            first = _kernel_free_state(frame.locator("#tapeviz-player"))
            assert first["predict"] == predicting, (
                f"player {index}: predict box {first['predict']}, lesson asks {predicting}"
            )
            shown = _step_through(frame, steps, predicting)
            if notebook.stem.startswith("04"):  # the nested tapes: the inner sweep ends at 6, the outer at 2
                ends = [re.search(r"Done: .* = (\S+) \(returned", c) for c in shown]
                assert [m.group(1) for m in ends if m] == ["6", "2"], shown
        if players:  # the picture a student meets first: the first player's first step, with its card
            embeds.first.scroll_into_view_if_needed()
            first_player = page.frame_locator("iframe.tapeviz-embed").first
            first_player.locator(".tv-first").click()
            first_player.locator(".tv-next").click()
        page.screenshot(path=str(ARTIFACTS / f"docs_lesson_{notebook.stem[:2]}.png"))
        # Every player has loaded now (they load as a reader scrolls): nothing wider than its box, at
        # this laptop's width and on a phone (test_no_page_has_content_wider_than_its_box's check).
        assert not page.evaluate(WIDER_THAN_ITS_BOX), "content wider than its box at 1366 px"
        _narrow_to_a_phone(page)
        assert not page.evaluate(WIDER_THAN_ITS_BOX), "content wider than its box at 375 px"
        assert not elsewhere, f"the page asked beyond the site: {elsewhere}"
        assert not problems, problems
    finally:
        context.close()
