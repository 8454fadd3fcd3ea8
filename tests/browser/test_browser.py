"""The notebook experience, tested as a student would meet it: in a real browser.

The tests start JupyterLab on 127.0.0.1 (a free port, a token, copies of the
lessons in a temporary folder) and drive Debian's Chromium with Playwright
(the ``playwright`` package pointed at ``/usr/bin/chromium-headless-shell``, or
``/usr/bin/chromium``: no browser download).

One JupyterLab server and one browser page serve the lessons of each test
worker (the lessons come in two classes, which ``./dev.sh test`` runs on two
workers at once), and each lesson is executed once here:

* opened as shipped, before running it (untrusted, as after a clone): every
  stored drawing is visible (an image or SVG of real size), no output is a
  text dump of a drawing or a widget, and no exercise shows its hint yet;
* then, in the same tab, every output cleared (so no stored output can pass
  for a new one) and "Run All": no cell errored, the drawings are there, no
  hint shows before a wrong answer. For lesson 1 and the reverse-sweep lesson,
  pressing the player's "step" button moves the highlighted node and changes
  the gradient; in lesson 6 a bare number typed into the "write a custom
  gradient" exercise is refused, and only then does its hint appear; in
  lesson 8 the training-step player steps through the clipping to Adam's
  update.
* An exported HTML animation opened from disk, with every network request
  refused, plays.

Screenshots of every lesson, screenful by screenful, before and after running
(``NN_name_unexecuted_KK.png``, ``NN_name_executed_KK.png``) go to
``tests/artifacts/`` (ignored by git): look at them. Without Chromium or
Playwright the tests skip and say why, except under CI (``CI=true``), where
``.ci/run`` installs both and a skip would hide a broken setup.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "tests" / "artifacts"
# The headless shell first: the same Blink without windows, about a third less CPU a page.
CHROMIUM = (
    os.environ.get("TAPEVIZ_CHROMIUM")
    or shutil.which("chromium-headless-shell")
    or shutil.which("chromium")
    or "/usr/bin/chromium-headless-shell"
)
HIGHLIGHT = "#f59e0b"  # the player's highlight colour (tapeviz.viz.export.HIGHLIGHT)
LESSONS = ["01_first_gradient.ipynb", "07_reverse_sweep.ipynb"]  # their players are stepped
CUSTOM_GRADIENT_LESSON = "06_steering.ipynb"  # its exercise 06.reverse asks for a custom gradient
TRAINING_LESSON = "08_training_loops.ipynb"  # its training-step player is stepped to Adam's update

CHROMIUM_ARGS = [
    # As root in a container Chromium needs --no-sandbox; the rest keep it off
    # the network (this machine has none) and quiet.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the browser tests: .ci/run installs chromium and playwright)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the 'playwright' Python package is not installed (pip install -e '.[test]')")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        _unavailable(f"Chromium not found at {CHROMIUM} (Debian: sudo apt-get install chromium-headless-shell)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server on a copy of the lessons: (base url, token, folder).

    ``shipped/`` holds them exactly as stored in git. Jupyter's data folder
    (where ``jupyter trust`` keeps its signatures) is new and empty, so every
    notebook opens untrusted, as a fresh clone does.
    """
    folder = tmp_path_factory.mktemp("lab")
    work = folder / "notebooks"
    (work / "shipped").mkdir(parents=True)
    for lesson in sorted(NOTEBOOKS.glob("*.ipynb")):
        shutil.copy(lesson, work / "shipped" / lesson.name)
    port, token = _free_port(), uuid.uuid4().hex
    # Render every cell (JupyterLab's default windowing keeps off-screen cells out of the page)
    settings = folder / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    apputils = folder / "settings" / "@jupyterlab" / "apputils-extension"  # no "get Jupyter news?" toast
    apputils.mkdir(parents=True)
    (apputils / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    env = dict(os.environ)
    for name, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTER_DATA_DIR", "data"),
        ("IPYTHONDIR", "ipython"),
    ):
        env[name] = str(folder / sub)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--ServerApp.token={token}",
        f"--ServerApp.root_dir={work}",
        "--ServerApp.port_retries=0",
        f"--LabApp.user_settings_dir={folder / 'settings'}",
        f"--LabApp.workspaces_dir={folder / 'workspaces'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--ServerApp.open_browser=False",
    ]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    log = open(folder / "jupyterlab.log", "wb")
    server = subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with {server.returncode}:\n{(folder / 'jupyterlab.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer in 90 s:\n{(folder / 'jupyterlab.log').read_text()}")
            time.sleep(0.3)
        yield base, token, work
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _new_page(browser, problems):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    return context, page


def _take_the_proposed_kernel(page):
    """Wait until the notebook's kernel is up. JupyterLab may ask which kernel to start instead (when
    the page loaded before the kernel specs): take the proposed one (the notebook's python3). Waiting
    for whichever comes first, not a fixed time for a dialog that mostly never shows."""
    select = page.locator(".jp-Dialog").get_by_role("button", name="Select")
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    select.or_(idle).first.wait_for(timeout=90_000)
    if select.is_visible():
        select.click()
    idle.first.wait_for(timeout=90_000)


def _run_all(page):
    """Run every cell through the menus, as a student would, and wait until done."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(timeout=60_000)
    # the kernel must be up before "Run All"
    _take_the_proposed_kernel(page)
    # A fresh kernel can report "idle" before it takes requests: if nothing
    # starts running, ask again (as an impatient student would).
    for attempt in range(4):
        _menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))",
                timeout=20_000,
            )
            break
        except Exception:
            if attempt == 3:
                raise
    # Done when every code cell has a number in its prompt and none shows [*]
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
            // a folded solution shows an empty prompt; every other one needs its number
            return prompts.some(p => /\\[\\d+\\]/.test(p.textContent))
                && prompts.every(p => p.textContent === '' || /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=int(os.environ.get("TAPEVIZ_BROWSER_TIMEOUT", 240)) * 1000,
    )


def _menu(page, menu, item):
    page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


def _errors(page):
    return page.eval_on_selector_all(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']",
        "nodes => nodes.map(n => n.textContent.slice(0, 300))",
    )


def _player_state(player):
    """(caption text, highlight rect position, badge texts) of one ipywidgets player."""
    return player.evaluate(
        """(root, colour) => {
            const caption = [...root.querySelectorAll('.widget-html-content')]
                .map(n => n.textContent).find(t => /step \\d+ of/.test(t)) || '';
            const rect = [...root.querySelectorAll('rect')].find(r => r.getAttribute('stroke') === colour);
            const badges = [...root.querySelectorAll('g.tapeviz-overlay text')].map(t => t.textContent);
            const card = root.querySelector('table.tv-card');
            const cells = card ? [...card.querySelectorAll('td')].map(td => td.textContent.trim()) : [];
            return {caption, highlight: rect ? [rect.getAttribute('x'), rect.getAttribute('y')] : null, badges,
                    card: cells};
        }""",
        HIGHLIGHT,
    )


def _step(page, player, times=1):
    for _ in range(times):
        before = _player_state(player)
        player.locator("button", has_text="step \u25b6").first.click()
        page.wait_for_function(
            "([root, before]) => { const c = [...root.querySelectorAll('.widget-html-content')]"
            ".map(n => n.textContent).find(t => /step \\d+ of/.test(t)); return c && c !== before; }",
            arg=[player.element_handle(), before["caption"]],
            timeout=15_000,
        )
        _settle(page, player, before["highlight"])
    return _player_state(player)


def _settle(page, player, highlight_before):
    """The caption and the picture are two widgets, updated one after the other: give the picture
    a moment to follow the caption (a loaded machine draws it later). A step that keeps the
    highlight where it was simply waits the moment out; the callers assert what must change."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "([root, colour, before]) => { const r = [...root.querySelectorAll('rect')]"
            ".find(r => r.getAttribute('stroke') === colour);"
            " return r && (r.getAttribute('x') !== before[0] || r.getAttribute('y') !== before[1]); }",
            arg=[player.element_handle(), HIGHLIGHT, highlight_before or ["", ""]],
            timeout=3_000,
        )
    except PlaywrightTimeout:
        pass


def test_exported_html_animation_plays_offline(browser, tmp_path):
    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the exported animation is drawn by graphviz's `dot`, which is not installed")
    from tapeviz.viz.export import animate

    x = tf.Variable(2.0, name="x")
    y = tf.Variable(5.0, name="y")
    with viz.trace() as recorded:  # explicit: other tests may have turned the session recorder off
        with tf.GradientTape() as tape:
            f = x * y + tf.sin(x)
        tape.gradient(f, [x, y])
    path = tmp_path / "sweep.html"
    animate(recorded).save_html(str(path))  # what tf.viz.player(tape).save_html(path) writes
    shutil.copy(path, ARTIFACTS / "exported_sweep.html")

    problems, requests = [], []
    context, page = _new_page(browser, problems)
    try:

        def only_the_file(route):
            requests.append(route.request.url)
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                route.abort()

        context.route("**/*", only_the_file)
        page.goto(path.as_uri())
        caption = page.locator(".tv-caption")
        assert caption.text_content().startswith("step 0 of")
        highlight = page.locator(f"g.graph rect[stroke='{HIGHLIGHT}']")
        start = highlight.first.get_attribute("x"), highlight.first.get_attribute("y")
        page.select_option(".tv-speed", "400")
        page.click(".tv-play")
        page.wait_for_function(
            "() => { const t = document.querySelector('.tv-caption').textContent;"
            " const m = t.match(/step (\\d+) of (\\d+)/); return m && m[1] === m[2]; }",
            timeout=20_000,
        )
        end_caption = caption.text_content()
        assert end_caption.startswith("step ") and "Done" in end_caption, end_caption
        page.click(".tv-first")
        page.click(".tv-next")
        moved = highlight.first.get_attribute("x"), highlight.first.get_attribute("y")
        assert moved != start, "stepping did not move the highlight"
        badges = page.locator("g.graph text").filter(has_text=" = ").count()
        assert badges >= 1, "no gradient badge shown"
        card = page.locator(".tv-card").text_content()
        assert "upstream" in card and "\u00d7" in card, card
        page.screenshot(path=str(ARTIFACTS / "exported_animation.png"))
        outside = [u for u in requests if not u.startswith("file://")]
        assert not outside, f"the exported page asked the network for {outside}"
        assert not problems, problems
    finally:
        context.close()


def test_embedded_player_keeps_its_controls_on_one_line_and_its_frame_fits(browser, tmp_path):
    """The kernel-free player as a notebook output or a docs lesson page embeds it (an ``<iframe srcdoc>``)
    at a notebook's width, 738 px: the controls fit on one line, and the frame is as tall as the player,
    no blank below it, growing when a step's card needs more room."""
    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the player's picture is drawn by graphviz's `dot`, which is not installed")
    from tapeviz.viz.export import animate, iframe

    x = tf.Variable(2.0, name="x")
    y = tf.Variable(5.0, name="y")
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            f = x * y + tf.sin(x)
        tape.gradient(f, [x, y])
    host = tmp_path / "lesson_page.html"
    host.write_text(
        f"<!DOCTYPE html><html><body style='margin:8px;width:738px'>{iframe(animate(recorded).to_html())}"
        "<p>the text after the player</p></body></html>"
    )
    problems = []
    context, page = _new_page(browser, problems)
    try:
        page.goto(host.as_uri())
        frame = page.locator("iframe.tapeviz-embed")
        player = page.frame_locator("iframe.tapeviz-embed")
        player.locator(".tv-caption").filter(has_text="step 0 of").wait_for(timeout=10_000)

        def measure():
            return page.evaluate(
                """() => { const f = document.querySelector('iframe.tapeviz-embed'), d = f.contentDocument;
                    const h = r => d.querySelector(r).getBoundingClientRect().height;
                    return {frame: f.getBoundingClientRect().height, controls: h('.tv-controls'),
                            button: h('.tv-controls button'), player: h('#tapeviz-player')}; }"""
            )

        sizes = measure()
        assert sizes["controls"] < 1.5 * sizes["button"] + 4, f"the controls wrap at 738 px: {sizes}"
        assert sizes["player"] <= sizes["frame"] <= sizes["player"] + 30, f"the frame does not fit the player: {sizes}"
        player.locator(".tv-next").click()
        player.locator(".tv-caption").filter(has_text="step 1 of").wait_for(timeout=10_000)
        stepped = measure()
        assert stepped["player"] <= stepped["frame"], f"a step's card is cut off: {stepped}"
        frame.screenshot(path=str(ARTIFACTS / "embedded_player_738px.png"))
        assert not problems, problems
    finally:
        context.close()


def test_exported_tangent_player_steps_forward(browser, tmp_path):
    """The forward-mode player's page: blue tangents run with the arrows, the card multiplies and sums."""
    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the exported animation is drawn by graphviz's `dot`, which is not installed")
    from tapeviz.viz.export import FORWARD_STYLE, Animation

    viz.watch_all()  # other tests may have turned the session recorder off
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x * x  # noqa: F841
    path = tmp_path / "tangents.html"
    Animation(acc).save_html(str(path))  # what tf.viz.player(acc).save_html(path) writes
    shutil.copy(path, ARTIFACTS / "exported_tangents.html")
    problems = []
    context, page = _new_page(browser, problems)
    try:
        page.goto(path.as_uri())
        page.click(".tv-next")
        caption = page.locator(".tv-caption").text_content()
        assert caption.startswith("step 1 of") and "dy/dt = 3 + 3 = 6" in caption, caption
        card = page.locator(".tv-card").text_content()
        assert "local \u00d7 tangent" in card and "3 \u00d7 1 = 3" in card and "dy/dt = 3 + 3 = 6" in card, card
        flowing = page.locator(f"g.graph path.tv-flow[stroke='{FORWARD_STYLE['flow']}']")
        assert flowing.count() >= 2 and flowing.first.get_attribute("marker-end"), "no tangent drawn along the arrows"
        assert page.locator("g.graph text").filter(has_text="dy/dt = 6").count() == 1
        page.screenshot(path=str(ARTIFACTS / "exported_tangents.png"))
        assert not problems, problems
    finally:
        context.close()


def test_exported_player_jumps_to_the_first_nan_and_keeps_the_node_in_view(browser, tmp_path):
    """The jump buttons of the kernel-free page: "first NaN" in the tf.where trap goes to the Log step, whose
    card shows the 0 x inf; "largest gradient" in a 20-layer MLP's tall picture goes to its step with the highlighted
    node scrolled into view."""
    import numpy as np

    import tapeviz as tf
    import tapeviz.viz as viz
    from tapeviz.viz import frames as framing

    if viz.render.dot_binary() is None:
        pytest.skip("the exported animation is drawn by graphviz's `dot`, which is not installed")
    viz.watch_all()  # other tests may have turned the session recorder off
    x = tf.constant([0.0, 2.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
    tape.gradient(y, x)
    where_player = viz.player(tape)
    keras = tf.keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.layers.Dense(16, activation="sigmoid") for _ in range(20)] + [keras.layers.Dense(1)]
    )
    data = tf.constant(np.random.default_rng(0).standard_normal((32, 8)).astype("float32"))
    model(data)
    with tf.GradientTape() as deep:
        loss = tf.reduce_mean(tf.square(model(data)))
    deep.gradient(loss, model.trainable_variables)
    deep_player = viz.player(deep)
    problems = []
    context, page = _new_page(browser, problems)
    try:
        path = tmp_path / "where.html"
        where_player.save_html(str(path))
        page.goto(path.as_uri())
        assert page.locator(".tv-jump-underflow").is_disabled()  # nothing underflows here
        page.click(".tv-jump-nan")
        nan_step = framing.jump_targets(where_player.frames)["nan"]
        caption = page.locator(".tv-caption").text_content()
        assert caption.startswith(f"step {nan_step} of") and "Log" in caption, caption
        assert "nan" in page.locator(".tv-card").text_content()
        page.screenshot(path=str(ARTIFACTS / "player_jump_first_nan.png"))

        path = tmp_path / "deep.html"
        deep_player.save_html(str(path))
        page.goto(path.as_uri())
        page.click(".tv-jump-largest")
        largest = framing.jump_targets(deep_player.frames)["largest"]
        assert page.locator(".tv-caption").text_content().startswith(f"step {largest} of")
        page.set_viewport_size({"width": 1000, "height": 900})  # a laptop: "fit" draws the picture smaller
        page.click(".tv-zoom-fit")
        page.click(".tv-first")
        for _ in range(12):  # down the chain: the view follows the highlighted node
            page.click(".tv-next")
        seen = page.evaluate(
            f"""() => {{ const view = document.querySelector('.tv-view').getBoundingClientRect();
                const lit = [...document.querySelectorAll('g.graph rect[stroke="{HIGHLIGHT}"]')].pop();
                const box = lit.getBoundingClientRect();
                return box.top >= view.top && box.bottom <= view.bottom; }}"""
        )
        assert seen, "the highlighted node is outside the scrolled view"
        page.screenshot(path=str(ARTIFACTS / "player_deep_followed.png"))
        assert not problems, problems
    finally:
        context.close()


# -- every lesson, as shipped (unexecuted, untrusted) and after Run All -------------------------
ALL_LESSONS = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _open(page, base, token, path):
    page.goto(f"{base}/lab/tree/{path}?token={token}&reset", wait_until="domcontentloaded")
    page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(timeout=60_000)
    # the kernel dialog may cover the page
    _take_the_proposed_kernel(page)


PICTURES = ".jp-OutputArea-output svg, .jp-OutputArea-output img, .jp-OutputArea-output iframe"
SIZES = """nodes => nodes.filter(n => !n.parentElement.closest('svg')).map(n => {
    const r = n.getBoundingClientRect();
    return [n.tagName.toLowerCase(), Math.round(r.width), Math.round(r.height)];
})"""


def _pictures(page):
    """The drawings in output areas that a student can see: [(tag, width, height)]."""
    return page.eval_on_selector_all(PICTURES, SIZES)


def _wait_for_pictures(page, expected, timeout=15_000):
    """Wait until ``expected`` drawings of real size (40 x 20 or more) are visible: outputs render
    after the notebook model loads, widgets after their manager starts. The caller asserts the count."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            f"""expected => ({SIZES})([...document.querySelectorAll({PICTURES!r})])
                .filter(p => p[1] >= 40 && p[2] >= 20).length >= expected""",
            arg=expected,
            timeout=timeout,
        )
    except PlaywrightTimeout:
        pass


def _screenshots(page, name):
    """Screenshots of the whole notebook, one per screenful, scrolled top to bottom."""
    for old in ARTIFACTS.glob(f"{name}_*.png"):
        old.unlink()
    scroller = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").first
    view = scroller.evaluate("n => n.clientHeight")
    shots, top = 0, 0
    while True:
        # scrolled, then two animation frames: the next frame is drawn at the new position
        scroller.evaluate(
            f"n => new Promise(done => {{ n.scrollTop = {top}; requestAnimationFrame(() => requestAnimationFrame(done)); }})"
        )
        page.screenshot(path=str(ARTIFACTS / f"{name}_{shots:02d}.png"))
        shots += 1
        # measured after each screenful: outputs still rendering (a loaded machine draws the stored
        # players' frames late) make the notebook taller while it is being photographed
        height = _content_height(scroller)
        if top + view >= height or shots >= 40:
            break
        top = min(top + view - 60, height - view)  # the last screenful ends at the last cell, not in blank space
    last_shown = scroller.evaluate(
        """n => { const cells = n.querySelectorAll('.jp-Cell'), box = n.getBoundingClientRect();
            if (!cells.length) return true;
            const last = cells[cells.length - 1].getBoundingClientRect();
            return last.top < box.bottom && last.bottom > box.top; }"""
    )
    assert last_shown, f"{name}: the last screenshot does not show the notebook's last cell"
    scroller.evaluate("n => { n.scrollTop = 0; }")
    return shots


def _content_height(scroller):
    """How far down the notebook's last cell ends (JupyterLab pads the notebook below it: scrollHeight
    counts that blank space, where the last screenshot used to land)."""
    return scroller.evaluate(
        """n => { const cells = n.querySelectorAll('.jp-Cell');
            if (!cells.length) return n.scrollHeight;
            const end = cells[cells.length - 1].getBoundingClientRect().bottom;
            return Math.ceil(end - n.getBoundingClientRect().top + n.scrollTop + 20); }"""
    )


def _stored_pictures(path):
    """How many stored outputs of ``path`` carry a drawing (SVG, PNG, a player)."""
    import nbformat

    count = 0
    for cell in nbformat.read(path, as_version=4).cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = data.get("text/html", "")
            if any(k.startswith("image/") for k in data) or any(tag in html for tag in ("<svg", "<img", "<iframe")):
                count += 1
    return count


def _executed_drawings_visible(page, lesson):
    """After Run All: screenshots saved, and at least as many drawings visible as the lesson stores."""
    expected = _stored_pictures(NOTEBOOKS / lesson)
    _wait_for_pictures(page, expected)
    _screenshots(page, f"{lesson.removesuffix('.ipynb')}_executed")
    visible = [p for p in _pictures(page) if p[1] >= 40 and p[2] >= 20]
    assert len(visible) >= expected, _pictures(page)


@pytest.fixture(scope="module")
def lab_page(browser, jupyterlab):
    """One browser page for every lesson (JupyterLab's code is loaded and cached once)."""
    problems = []
    context, page = _new_page(browser, problems)
    page.on("dialog", lambda dialog: dialog.accept())  # "leave the page?" when the next lesson opens
    try:
        yield page, problems
    finally:
        context.close()


def _shut_down_kernels(base, token):
    """Stop the kernels the lessons started, so that the next lesson has the machine to itself."""
    import json

    with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=10) as reply:
        kernels = json.loads(reply.read())
    for kernel in kernels:
        request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(request, timeout=20).close()


def _exercise_verdicts(page):
    """The text of every exercise verdict shown: [(status, text)]."""
    return page.eval_on_selector_all(
        ".jp-OutputArea-output .tapeviz-check",
        "nodes => nodes.map(n => [n.className.match(/tapeviz-check-(\\w+)/)[1], n.textContent])",
    )


def _assert_no_hint_before_a_wrong_answer(page, lesson):
    verdicts = _exercise_verdicts(page)
    waiting = [text for status, text in verdicts if status == "unanswered"]
    if any(lesson.startswith(prefix) for prefix in ("01", "04", "06", "07", "10")):
        assert waiting, f"{lesson}: no exercise verdict is shown"
    shown = [text for text in waiting if "Hint" in text]
    assert not shown, f"{lesson}: a hint shows before any answer: {shown}"


def _player_checks(page, lesson, name):
    """Lessons 1 and 7: the reverse-sweep player steps, its highlight and gradients move."""
    graph = page.locator(".jp-OutputArea-output svg g.node")
    assert graph.count() > 0, "no tape graph (SVG with nodes) in any output"
    player = (
        page.locator(".jp-OutputArea-output .widget-vbox")
        .filter(has=page.locator("button", has_text="step \u25b6"))
        .first
    )
    player.scroll_into_view_if_needed()
    first = _player_state(player)
    assert first["caption"].startswith("step 0 of"), first
    assert first["highlight"] is not None, "step 0 highlights no node"
    page.screenshot(path=str(ARTIFACTS / f"{name}_player_step0.png"), full_page=False)
    _controls_fit_one_line(player, 738)
    second = _step(page, player)
    assert second["caption"].startswith("step 1 of"), second
    assert second["highlight"] != first["highlight"], "the highlighted node did not move"
    assert second["caption"] != first["caption"], "the shown gradient/rule did not change"
    if lesson == "01_first_gradient.ipynb":
        # y = x ** 2 at 3: the card shows the upstream 1, the local derivative 2*x evaluated
        # at the recorded x (6) and their product; the badge on x changes on the same step
        row = second["card"][5:10]  # the header row's five cells, then the first input's row
        assert row[:3] == ["d/dx", "1", "2*x = 6"], second["card"]
        assert row[3] == "1 \u00d7 6 = 6", second["card"]
        assert any(b == "dy/dx = 6" for b in second["badges"]), second["badges"]
        player.screenshot(path=str(ARTIFACTS / f"{name}_player_card.png"))
    later = _step(page, player, times=1)
    assert later["badges"] != first["badges"] or later["caption"] != second["caption"], (
        "the gradients shown on the nodes never changed"
    )
    player.screenshot(path=str(ARTIFACTS / f"{name}_player_stepped.png"))
    page.screenshot(path=str(ARTIFACTS / f"{name}_page.png"), full_page=False)


def _controls_fit_one_line(player, width):
    """The widget's control bar, squeezed to ``width`` px (a notebook's width): one line, nothing cut off."""
    fits = player.evaluate(
        """(root, width) => {
            const bar = [...root.querySelectorAll('.widget-hbox')].filter(b => b.querySelector('.widget-play')).pop();
            const old = root.style.width;
            root.style.width = width + 'px';
            const tops = [...bar.children].map(c => Math.round(c.getBoundingClientRect().top));
            const result = {tops, scroll: bar.scrollWidth, client: bar.clientWidth};
            root.style.width = old;
            return result;
        }""",
        width,
    )
    assert len(set(fits["tops"])) == 1 and fits["scroll"] <= fits["client"] + 1, f"the controls at {width} px: {fits}"


def _predict_mode_checks(page, lesson, name):
    """The predict-mode widget of lessons 1 and 7 after Run All: see _predict_wrong_then_right."""
    predicting = (
        page.locator(".jp-OutputArea-output .widget-vbox")
        .filter(has=page.locator("button", has_text="step \u25b6"))
        .filter(has=page.locator("input[type='checkbox']:checked"))
        .first
    )
    predicting.scroll_into_view_if_needed()
    widget = {
        "step": lambda: _step(page, predicting),
        "field": "input[type='text']:not([disabled])",
        "check": "button:has-text('check')",
        "card": "table.tv-card",
    }
    _predict_wrong_then_right(page, predicting, widget, lesson[:2], ARTIFACTS / f"{name}_predict_retry.png")
    predicting.screenshot(path=str(ARTIFACTS / f"{name}_predict_mode.png"))


# -- predict mode (issue 20): each unknown on the card, a wrong answer, the retry, then "right" ----------
# One script for lessons 1 and 7's players, run on the ipywidgets player (after Run All, above) and on the
# kernel-free page (test_predict_mode_retry_then_right_kernel_free): [(typed, what the player says)],
# "step" pressing step.
PREDICT_SCRIPTS = {
    # lesson 1: y = x ** 2 at 3; the card asks d/dx = upstream 1 x local 6
    "01": ([("step", "your turn"), ("5", "not yet"), ("6", "\u2714 right on the second try")], "0 of 1"),
    # lesson 7: f = x * y + sin(x) at x = 2, y = 5: two products, then cos(2), then x's product and running sum
    "07": (
        [
            ("step", "your turn"),
            ("2", "You added the upstream gradient and the local derivative"),
            ("1", "\u2714 right on the second try"),
            ("1", "\u2714 right first time"),
            ("step", "your turn"),
            ("-0.4161", "\u2714 right first time"),
            ("step", "your turn"),
            ("5", "\u2714 right first time"),
            ("5", "you forgot to add the gradient that already arrived at x"),
            ("4.584", "\u2714 right on the second try"),
            ("2", "\u2714 right first time"),
        ],
        "4 of 6",
    ),
    # forward mode, y = x * x at 3 with the tangent 1: the output's tangent is 3 + 3
    "fw": ([("step", "your turn"), ("3", "one input's share"), ("6", "\u2714 right on the second try")], "0 of 1"),
}


def _predict_wrong_then_right(page, root, parts, lesson, shot=None):
    """Play ``PREDICT_SCRIPTS[lesson]`` on a predict-mode player (``root``; ``parts``: how to step, and
    the selectors of the open field, its check button and the card); each answer must bring one more
    ``said`` into the player, and a retry must leave the card's ``?`` in place."""
    script, score = PREDICT_SCRIPTS[lesson]
    for typed, said in script:
        before = root.evaluate("(node, said) => node.textContent.split(said).length - 1", said)
        if typed == "step":
            parts["step"]()
        else:
            root.locator(parts["field"]).first.fill(typed)
            root.locator(parts["check"]).first.click()
        page.wait_for_function(
            "([node, said, before]) => node.textContent.split(said).length - 1 > before",
            arg=[root.element_handle(), said, before],
            timeout=15_000,
        )
        if typed != "step" and "\u2714" not in said:  # a first wrong answer: the retry
            card = root.locator(parts["card"]).first.text_content()
            assert "? (" in card, f"a first wrong answer revealed the value: {card}"
            if shot is not None:  # the first retry, as a student sees it
                root.screenshot(path=str(shot))
                shot = None
    text = root.text_content()
    assert f"score: {score} right first time" in text, text


def test_predict_mode_retry_then_right_kernel_free(browser, tmp_path):
    """The kernel-free player (player.js) in lessons 1 and 7 as shipped, unexecuted (the stored copy
    the docs site embeds; JupyterLab drops it in an untrusted notebook), and in freshly exported pages
    (the reverse sweep, and forward mode's tangents)."""
    import html

    import nbformat

    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the exported animation is drawn by graphviz's `dot`, which is not installed")
    pages = {}
    for lesson in LESSONS:
        cells = nbformat.read(NOTEBOOKS / lesson, as_version=4).cells
        cell = next(c for c in cells if c.cell_type == "code" and "predict=True" in c.source)
        stored = cell.outputs[0]["data"]["text/html"]
        pages[f"{lesson[:2]}_stored"] = html.unescape(stored.split('srcdoc="', 1)[1].split('"', 1)[0])
    viz.watch_all()  # other tests may have turned the session recorder off
    x, y = tf.Variable(2.0, name="x"), tf.Variable(5.0, name="y")
    with tf.GradientTape() as tape:
        f = x * y + tf.sin(x)
    tape.gradient(f, [x, y])
    pages["07_exported"] = viz.player(tape, predict=True).to_html()
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x * x  # noqa: F841
    pages["fw_exported"] = viz.player(acc, predict=True).to_html()
    problems = []
    context, page = _new_page(browser, problems)
    try:
        for label, text in pages.items():
            path = tmp_path / f"{label}.html"
            path.write_text(text, encoding="utf-8")
            page.goto(path.as_uri())
            assert page.locator(".tv-predict").is_checked(), f"{label}: the page does not open in predict mode"
            parts = {
                "step": lambda: page.click(".tv-next"),
                "field": ".tv-ask input.tv-guess-input:not([disabled])",
                "check": ".tv-ask .tv-check",
                "card": ".tv-card",
            }
            shot = ARTIFACTS / f"predict_kernel_free_{label}_retry.png"
            _predict_wrong_then_right(page, page.locator("#tapeviz-player"), parts, label[:2], shot)
            page.screenshot(path=str(ARTIFACTS / f"predict_kernel_free_{label}.png"))
            page.reload()  # afresh: step on past an unanswered step is refused, as in the widget
            page.click(".tv-next")
            page.click(".tv-next")
            caption = page.locator(".tv-caption").text_content()
            assert caption.startswith("step 1 of") and "your turn" in caption, caption
        assert not problems, problems
    finally:
        context.close()


def _bare_number_refused(page, name):
    """Lesson 6: typing the number a "write a custom gradient" exercise's example prints is refused."""
    cell = page.locator(".jp-CodeCell").filter(has_text='lessons.check("06.reverse"').first
    cell.scroll_into_view_if_needed()
    before = cell.locator(".tapeviz-check").text_content()
    assert "Your turn" in before and "Hint" not in before, before
    editor = cell.locator(".cm-content").first
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type('answer = -3.0\nlessons.check("06.reverse", answer)')
    page.keyboard.press("Shift+Enter")
    verdict = cell.locator(".tapeviz-check-wrong")
    verdict.wait_for(timeout=30_000)
    said = verdict.text_content()
    assert "asks for code" in said and "Hint:" in said, said
    cell.screenshot(path=str(ARTIFACTS / f"{name}_bare_number_refused.png"))


def _opened_unexecuted_then_run_all(lab_page, jupyterlab, lesson):
    """Each lesson, once: as shipped (untrusted), then cleared and run in the same tab."""
    base, token, work = jupyterlab
    page, problems = lab_page
    problems.clear()
    name = lesson.removesuffix(".ipynb")
    try:
        # -- opened before running (untrusted, as cloned): every stored drawing is visible
        _open(page, base, token, f"shipped/{lesson}")
        expected = _stored_pictures(NOTEBOOKS / lesson)
        assert expected >= 1, f"{lesson} stores no drawing at all"
        _wait_for_pictures(page, expected)
        shots = _screenshots(page, f"{name}_unexecuted")
        assert shots >= 1
        visible = [p for p in _pictures(page) if p[1] >= 40 and p[2] >= 20]
        assert len(visible) >= expected, (
            f"{lesson}: {expected} stored drawings, but only {len(visible)} visible before running: {_pictures(page)}"
        )
        dumps = page.eval_on_selector_all(
            ".jp-OutputArea-output",
            "nodes => nodes.map(n => n.textContent)"
            ".filter(t => /^(VBox|HBox)\\(|Cannot display an untrusted|Error displaying widget/.test(t.trim()))",
        )
        assert not dumps, f"{lesson}: outputs shown as text dumps or errors before running: {dumps[:3]}"
        _assert_no_hint_before_a_wrong_answer(page, lesson)

        # -- every output cleared (no stored output can pass for a new one), then Run All
        _menu(page, "Edit", "Clear Outputs of All Cells")
        page.wait_for_function("() => !document.querySelector('.jp-OutputArea-output')", timeout=10_000)
        try:
            _run_all(page)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / f"{name}_failed.png"))
            raise
        errors = _errors(page)
        assert not errors, f"cells raised errors in {lesson}: {errors}"
        _executed_drawings_visible(page, lesson)
        _assert_no_hint_before_a_wrong_answer(page, lesson)
        if lesson in LESSONS:
            _player_checks(page, lesson, name)
            _predict_mode_checks(page, lesson, name)
        if lesson == CUSTOM_GRADIENT_LESSON:
            _bare_number_refused(page, name)
        if lesson == TRAINING_LESSON:
            _lesson_8_player_checks(page, name)
        assert not problems, problems
    finally:
        _shut_down_kernels(base, token)


def _lesson_8_player_checks(page, name):
    """Lesson 8 after Run All: its training-step player steps through the clipping (the global norm the
    lesson printed, the scale) to Adam's update of the first weight (g, m, v, alpha, the step)."""
    printed = page.locator(".jp-OutputArea-output").filter(has_text="global norm of the gradients").first
    norm = printed.text_content().split("global norm of the gradients ")[1].split(",")[0]
    player = (
        page.locator(".jp-OutputArea-output .widget-vbox")
        .filter(has=page.locator("button", has_text="step \u25b6"))
        .first
    )
    player.scroll_into_view_if_needed()
    seen = {}
    for _ in range(60):  # forward, sweep, clipping, then the first update
        state = _player_state(player)
        caption = state["caption"]
        if "Before apply_gradients" in caption and "clip" not in seen:
            _settle(page, player, None)
            seen["clip"] = _player_state(player)
            player.screenshot(path=str(ARTIFACTS / f"{name}_player_clipping.png"))
        if "Adam step" in caption:
            break
        player.locator("button", has_text="step \u25b6").first.click()
        page.wait_for_function(
            "([root, before]) => { const c = [...root.querySelectorAll('.widget-html-content')]"
            ".map(n => n.textContent).find(t => /step \\d+ of/.test(t)); return c && c !== before; }",
            arg=[player.element_handle(), caption],
            timeout=15_000,
        )
    else:
        pytest.fail(f"the player never reached Adam's update; last caption: {caption}")
    assert "clip" in seen, "the player skipped the clipping step"
    clip_card = seen["clip"]["card"]
    # the card's global norm is the number the lesson printed
    assert clip_card[clip_card.index("global norm") + 2] == norm, clip_card
    assert "scale" in clip_card, clip_card
    _settle(page, player, seen["clip"]["highlight"])
    adam = _player_state(player)
    assert adam["highlight"] is not None, "the updated weight is not highlighted"
    cells = adam["card"]
    assert cells[:3] == ["quantity", "rule, with the numbers", "value"], cells
    quantities = cells[3::3]
    assert quantities[:5] == ["g", "m", "v", "\u03b1", "step"], cells
    assert cells[cells.index("m") + 1].startswith("0.9\u00b7m + 0.1\u00b7g"), cells
    assert any(b.split()[:1] == ["now"] for b in adam["badges"]), adam["badges"]  # "now [..]", or "now" over it
    player.screenshot(path=str(ARTIFACTS / f"{name}_player_adam.png"))
    # at "fit" (the zoom it starts at) the whole picture shows at a notebook's width: nothing to scroll to,
    # every badge inside the picture's box, the picture scaled down no more than to 0.65 at 738 px
    fits = player.evaluate(
        """(root, widths) => widths.map(width => {
            const old = root.style.width;
            root.style.width = width + 'px';
            const svg = [...root.querySelectorAll('.widget-html-content svg')].find(s => s.querySelector('g.graph'));
            const box = svg.parentElement, right = box.getBoundingClientRect().right;
            const badges = [...svg.querySelectorAll('g.tv-badge rect')].map(r => r.getBoundingClientRect().right);
            const result = {width, scroll: box.scrollWidth, client: box.clientWidth, right,
                            badge: Math.max(...badges), scale: svg.getBoundingClientRect().width /
                            svg.width.baseVal.value};
            root.style.width = old;
            return result;
        })""",
        [738, 900],
    )
    for fit in fits:
        assert fit["scroll"] <= fit["client"] + 1 and fit["badge"] <= fit["right"] + 1, f"at fit: {fits}"
        assert fit["scale"] >= 0.65, f"at fit the picture is drawn too small to read: {fits}"
    player.evaluate("root => { root.style.width = '738px'; }")
    player.screenshot(path=str(ARTIFACTS / f"{name}_player_fit_738px.png"))
    player.evaluate("root => { root.style.width = ''; }")


# Two classes, so that ``./dev.sh test`` (``--dist loadscope``: a class is a unit of work) runs
# them on two workers at once, each worker with its own JupyterLab and page (the module's
# fixtures); run on one worker, they share one. Every other lesson is in each.
#
# Adding a browser test: a check of one lesson goes into _opened_unexecuted_then_run_all, after
# Run All (as lessons 1, 6, 7 and 8 have theirs): the lesson is not run again. A new test that needs
# JupyterLab (``lab_page``, ``jupyterlab``) is a method of one of these two classes, so that it
# shares that lab; a test that needs only Chromium (``browser``) is a plain function, as above.
class TestLessonsInLabA:
    @pytest.mark.parametrize("lesson", ALL_LESSONS[0::2])
    def test_lesson_opened_unexecuted_then_run_all(self, lab_page, jupyterlab, lesson):
        _opened_unexecuted_then_run_all(lab_page, jupyterlab, lesson)


class TestLessonsInLabB:
    @pytest.mark.parametrize("lesson", ALL_LESSONS[1::2])
    def test_lesson_opened_unexecuted_then_run_all(self, lab_page, jupyterlab, lesson):
        _opened_unexecuted_then_run_all(lab_page, jupyterlab, lesson)


@pytest.mark.parametrize("width", [738, 1366])
def test_training_step_player_keeps_the_card_and_the_node_on_one_screen(browser, tmp_path, width):
    """Lesson 8's training-step player (a 200-row batch, layers folded) embedded as a notebook shows it, on a
    768 px tall screen: the card and the highlighted node fit on one screen (the card beside the picture at
    1366 px, above a picture sized to what the screen leaves at 738 px); an array step's card traces one
    element (no summaries multiplied), and clicking a cell of its strip traces that element instead."""
    import numpy as np

    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the player's picture is drawn by graphviz's `dot`, which is not installed")
    from tapeviz.viz.html_page import iframe

    viz.watch_all()  # other tests may have turned the session recorder off
    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    xs = tf.constant(rng.uniform(-1, 1, size=(200, 1)).astype("float32"))
    ys = tf.constant((3.0 * xs.numpy() + 2.0).astype("float32"))
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(2, activation="tanh", name="hidden"), tf.keras.layers.Dense(1, name="out")],
        name="model",
    )
    adam = tf.keras.optimizers.Adam(0.05)
    with tf.viz.record_update() as update:
        with tf.GradientTape() as tape:
            with tf.name_scope("loss"):
                loss = tf.reduce_mean((ys - model(xs)) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        adam.apply_gradients(zip(grads, model.trainable_variables))
    player = tf.viz.player(tape, update=update, fold="scopes")
    pow_step = next(f["index"] for f in player.frames if f.get("kind") == "step" and f["card"]["op"] == "Pow")
    host = tmp_path / "lesson.html"
    host.write_text(
        f"<!DOCTYPE html><html><body style='margin:8px;width:{width - 30}px'>{iframe(player.to_html())}"
        "<p>the text after the player</p></body></html>"
    )
    problems = []
    context = browser.new_context(viewport={"width": width, "height": 768})
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    try:
        page.goto(host.as_uri())
        player_frame = page.frame_locator("iframe.tapeviz-embed")
        player_frame.locator(".tv-caption").filter(has_text="step 0 of").wait_for(timeout=10_000)
        player_frame.locator(".tv-slider").evaluate(f"s => {{ s.value = {pow_step}; s.oninput(); }}")
        player_frame.locator(".tv-caption").filter(has_text=f"step {pow_step} of").wait_for(timeout=10_000)

        def measure():
            return page.evaluate(
                """() => { const f = document.querySelector('iframe.tapeviz-embed'), d = f.contentDocument;
                    const box = e => { const b = e.getBoundingClientRect(); return [b.top, b.bottom, b.left, b.right]; };
                    const lit = [...d.querySelectorAll('.tapeviz-overlay rect')].find(r => r.getAttribute('stroke') === '#f59e0b');
                    return {card: box(d.querySelector('.tv-card')), lit: box(lit), view: box(d.querySelector('.tv-view')),
                            product: d.querySelector('.tv-product').firstChild.textContent}; }"""
            )

        seen = measure()
        card, lit, view = seen["card"], seen["lit"], seen["view"]
        top, bottom = min(card[0], lit[0]), max(card[1], lit[1])
        assert bottom - top <= 768, f"card and highlighted node are a scroll apart at {width} px: {seen}"
        assert view[0] - 2 <= lit[0] and lit[1] <= view[1] + 2, f"the highlighted node is scrolled out of view: {seen}"
        if width >= 1000:
            assert card[3] <= view[2] + 1, f"at {width} px the card is not beside the picture: {seen}"
        product = seen["product"]
        assert re.match(
            r"at \[\d+, 0\]: [-\d.e]+ \u00d7 [-\d.e]+ = [-\d.e]+ \(each of the 200 elements alike\)", product
        )
        assert "mean" not in product, product
        page.screenshot(path=str(ARTIFACTS / f"training_step_player_{width}px.png"), full_page=True)
        # the student clicks element 3 of the strip: the card traces that one
        player_frame.locator(".tv-product svg.tv-strip rect").nth(3).click()
        traced = measure()["product"]
        assert traced.startswith("at [3, 0]: "), traced
        assert not problems, problems
    finally:
        context.close()


def test_predict_local_asks_the_local_derivative_first_kernel_free(browser, tmp_path):
    """``predict="local"`` in the kernel-free page: on ``x * y``'s step the card hides the local derivative
    (``? (1)``), the first field asks for it; typing the upstream instead gets the message saying so, then
    the right value (y = 5) is accepted and the product is asked next."""
    import tapeviz as tf
    import tapeviz.viz as viz

    if viz.render.dot_binary() is None:
        pytest.skip("the exported animation is drawn by graphviz's `dot`, which is not installed")
    viz.watch_all()
    x, y = tf.Variable(2.0, name="x"), tf.Variable(5.0, name="y")
    with tf.GradientTape() as tape:
        f = x * y + tf.sin(x)
    tape.gradient(f, [x, y])
    player = viz.player(tape, predict="local")
    step = next(k for k, fr in enumerate(player.frames) if fr.get("kind") == "step" and fr["card"]["op"] == "Mul")
    path = tmp_path / "local.html"
    path.write_text(player.to_html(), encoding="utf-8")
    problems = []
    context, page = _new_page(browser, problems)
    try:
        page.goto(path.as_uri())
        for _ in range(step):  # answer each earlier step's questions right, then step on
            while page.locator(".tv-ask input.tv-guess-input:not([disabled])").count():
                question = page.evaluate(
                    "() => { const f = JSON.parse(document.getElementById('tapeviz-frames').textContent);"
                    " const i = parseInt(document.querySelector('.tv-slider').value);"
                    " const done = document.querySelectorAll('.tv-ask input[disabled]').length;"
                    " return f[i].ask[done].answer; }"
                )
                page.fill(".tv-ask input.tv-guess-input:not([disabled])", str(question))
                page.click(".tv-ask .tv-check")
            page.click(".tv-next")
        card = page.locator(".tv-card tr").nth(2)
        assert card.locator("td").nth(2).text_content() == "? (1)", card.text_content()
        label = page.locator(".tv-question").first.text_content()
        assert "local derivative" in label and "d/dx" in label, label
        page.fill(".tv-ask input.tv-guess-input:not([disabled])", "1")  # the upstream
        page.click(".tv-ask .tv-check")
        said = page.locator(".tv-verdict").first.text_content()
        assert "upstream gradient" in said, said
        page.fill(".tv-ask input.tv-guess-input:not([disabled])", "5")
        page.click(".tv-ask .tv-check")
        assert "right" in page.locator(".tv-verdict").first.text_content()
        assert card.locator("td").nth(2).text_content().endswith("= 5")
        second = page.locator(".tv-question").nth(1).text_content()
        assert "upstream \u00d7 local" in second, second
        page.screenshot(path=str(ARTIFACTS / "predict_local_kernel_free.png"))
        assert not problems, problems
    finally:
        context.close()
