"""The ipywidgets player: play, pause, step back and forward, a slider, a speed,
zoom that follows the highlighted node, and a predict mode.

It is a thin view over :class:`tapeviz.viz.animation.Animation`: the frames are
data (deltas over one layout), the picture is laid out once, and each step
draws that frame's state (highlight, gradients on the nodes and the edges)
and its chain-rule card. ipywidgets is imported when a player is made, never
by ``import tapeviz``. ``to_html()`` gives the same player as a kernel-free
page (with pan by dragging and zoom buttons).

Shown in a notebook, a player carries three forms: the live widget, a
kernel-free copy (what a static viewer or the rendered docs show) and plain
text. Without Graphviz's ``dot`` program it still plays: captions, the card
and the gradients so far, under a note on how to install Graphviz.

Predict mode hides each step's new gradients and asks for every unknown on
the card in turn: each input's product (upstream x local) and, where a
gradient had already arrived (fan-out), the running sum; in forward mode the
output's tangent. A wrong answer gets a teaching message and one retry, then
the value is revealed; the score counts the answers right the first time.
What is asked and how it is judged: :mod:`tapeviz.viz.predict`.
"""

import html
from collections import OrderedDict

from tapeviz.viz import card as cards
from tapeviz.viz import format as fmt
from tapeviz.viz import frames as framing
from tapeviz.viz import predict as predicting
from tapeviz.viz.animation import Animation
from tapeviz.viz.html_page import JUMP_TITLES, iframe
from tapeviz.viz.render import GraphvizUnavailable
from tapeviz.viz.svg_frames import fit_width

# "fit": the whole picture, scaled down to the output's width when it is wider; "1.5x"...: that much of the
# picture around the highlighted node, at 1.5 times its natural size
# the picture's height: the screen less the controls and a line of caption, so card and node share a screen
HEIGHT = "max(240px, calc(100vh - 320px))"
ZOOMS = [("fit", 1.0), ("1.5x", 1.5), ("2x", 2.0), ("3x", 3.0), ("5x", 5.0)]


def answer_of(frame):
    """The first number predict mode asks for on this step (the first input's product; in forward
    mode the output's tangent), or None."""
    asked = frame.get("ask") or []
    return asked[0]["answer"] if asked else None


def is_right(guess, want):
    """A typed answer against the value: right to the 4 digits the player shows."""
    got = predicting.read(guess)
    return got is not None and predicting.close(got, want)


class Player:
    """Step through ``tape``'s sweep (``mode="sweep"``), its recording (``mode="record"``), or
    forward mode (``mode="forward"`` with ``tangents=``; a ForwardAccumulator passed as ``tape``).

    Options: ``sweep`` ("last", "all", index or id), ``predict`` (start in
    predict mode: True asks each product and sum, "local" each local derivative first too), ``rankdir`` ("TB" or "LR"), ``internals`` (show the
    variable reads' steps), and the view options (``fold``, ``open``...).
    """

    def __init__(self, tape, mode="sweep", sweep="last", interval_ms=900, predict=False, **options):
        self.animation = Animation(tape, mode=mode, sweep=sweep, **options)
        self.predict = predicting.level_of(predict)
        self.animation.frames = predicting.with_level(self.animation.frames, self.predict)
        self.frames = self.animation.frames
        self.interval_ms = interval_ms
        self._widget = None
        self._cache = OrderedDict()  # a few drawn frames (a big graph's SVG is large)

    def frame_svg(self, index, zoom=1.0, hide=False):
        key = (index, zoom, hide)
        if key not in self._cache:
            if hide:  # predict mode: the new gradients stay hidden, the highlight moves
                badges, edges = self.animation.state(index - 1)
                frame = dict(self.frames[index], flow=[])
                svg = self.animation.draw_frame(frame, badges, edges, caption=False, zoom=zoom)
            else:
                svg = self.animation.frame_svg(index, caption=False, zoom=zoom)  # the widget shows the caption
            self._cache[key] = svg
            while len(self._cache) > 16:
                self._cache.popitem(last=False)
        return self._cache[key]

    def picture_html(self, index, zoom=1.0, hide=False):
        """The picture of frame ``index`` as the widget shows it: at "fit" (zoom 1) no wider than the output, in a
        box no taller than the screen leaves under the controls; else that zoom around the highlighted node."""
        svg = self.frame_svg(index, zoom, hide)
        svg = fit_width(svg) if zoom == 1.0 else svg
        return f'<div style="overflow:auto;max-height:{HEIGHT};min-height:240px">{svg}</div>'

    def card_html(self, index, hidden=None):
        """The card of frame ``index``; ``hidden``: {(row, cell): question number} of the cells predict
        mode still asks for, shown as ``? (1)`` (True hides every question's cell)."""
        card = self.frames[index].get("card")
        if card is None:
            return ""
        if hidden is True:
            hidden = {(q["row"], q["cell"]): n + 1 for n, q in enumerate(self.frames[index].get("ask") or [])}
        return cards.html(hide_cells(card, hidden or {}))

    def to_html(self, title="tapeviz"):
        """The kernel-free copy of this player, in predict mode when the widget starts in it."""
        return self.animation.to_html(title, self.predict)

    def save_html(self, path, title="tapeviz"):
        return self.animation.save_html(path, title, self.predict)

    def save_gif(self, path, duration_ms=900):
        return self.animation.save_gif(path, duration_ms)

    def save_svg_frames(self, prefix):
        return self.animation.save_svg_frames(prefix)

    @property
    def widget(self):
        """The ipywidgets box (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self):
        try:
            import ipywidgets as w
        except ImportError:
            raise ImportError(
                "The player needs ipywidgets: pip install ipywidgets (or tapeviz[viz]). "
                "player.save_html(path) works without it."
            ) from None
        last = len(self.frames) - 1
        play = w.Play(
            value=0, min=0, max=last, step=1, interval=self.interval_ms, description="play", show_repeat=False
        )
        slider = w.IntSlider(  # gives way, so the bar stays one line at a notebook's width (about 740 px)
            value=0,
            min=0,
            max=last,
            description="step",
            continuous_update=True,
            layout=w.Layout(flex="1 1 120px", min_width="120px", width="auto"),
            style={"description_width": "initial"},
        )
        w.jslink((play, "value"), (slider, "value"))
        back = w.Button(description="\u25c0 step", layout=w.Layout(width="80px"))
        forward = w.Button(description="step \u25b6", layout=w.Layout(width="80px"))
        speed = w.Dropdown(
            options=[("slow", 1600), ("normal", 900), ("fast", 400)],
            value=900,
            description="speed",
            layout=w.Layout(width="130px", flex="0 0 auto"),
            style={"description_width": "initial"},  # the word, then the whole choice ("normal", not "norma")
        )
        zoom = w.Dropdown(
            options=ZOOMS,
            value=1.0,
            description="zoom",
            layout=w.Layout(width="110px", flex="0 0 auto"),
            style={"description_width": "initial"},
            tooltip="zoom in on the highlighted node; it stays in view as the sweep moves",
        )
        asks = predicting.asks_anything(self.frames)  # a recording asks nothing: no predict box then
        predict = w.Checkbox(
            value=self.predict and asks,
            description="predict",
            indent=False,
            layout=w.Layout(width="90px", display=None if asks else "none"),
            tooltip="hide each gradient until you type it",
        )
        speed.observe(lambda change: setattr(play, "interval", change["new"]), names="value")
        caption = w.HTML()
        card = w.HTML()
        asking = w.VBox()  # one field per unknown on the card, asked in order, then the score
        score = w.HTML()
        picture = w.HTML()
        legend = w.HTML(self.animation.legend_html())
        problem = self.missing_dot()
        quiz = self.quiz = predicting.Quiz(self.frames)

        def hiding(index):
            return predict.value and not quiz.done(index)

        def show(index):
            frame = self.frames[index]
            hide = hiding(index)
            text = frame["caption"]
            if hide:
                text = text.split(";")[0] + f"; {predicting.ASKING}"
            caption.value = f"<b>step {index} of {last}</b>: {fmt.html_text(text)}"
            card.value = self.card_html(index, quiz.pending(index) if predict.value else None)
            score.value = f'<span class="tv-score">{quiz.score_text()}</span>' if predict.value else ""
            asking.children = (*questions(index), score) if predict.value else ()
            if problem is None:
                picture.value = self.picture_html(index, zoom.value, hide)
            else:
                picture.value = _gradients_so_far(self.animation.state(index)[0], problem)

        def questions(index):
            """A row per question asked so far on this step: answered ones keep their verdicts."""
            rows, now = [], quiz.current(index)
            for position, question in enumerate(quiz.questions(index)):
                if now is not None and position > now:
                    break
                given = quiz.given.get((index, position), {})
                label = w.HTML(
                    f"{position + 1}. {fmt.html_text(question['label'])} =", layout=w.Layout(flex="0 0 auto")
                )
                field = w.Text(value=given.get("typed", ""), layout=w.Layout(width="110px", flex="0 0 auto"))
                said = w.HTML(_verdict_html(given))
                self._parts["verdict"] = said  # the last question shown: the one asked now, or the last answered
                if position == now:
                    field.value = "" if given.get("status") == "retry" else field.value
                    check = w.Button(description="check", layout=w.Layout(width="70px", flex="0 0 auto"))
                    check.on_click(on_check)
                    self._parts.update(guess=field, check=check)
                    rows.append(w.HBox([label, field, check, said]))
                else:
                    field.disabled = True
                    rows.append(w.HBox([label, field, said]))
            return rows

        def on_check(_=None):
            index = slider.value
            if quiz.answer(index, self._parts["guess"].value) is not None:
                show(index)

        def step_to(index):
            if predict.value and hiding(slider.value) and index > slider.value:
                return  # answer first
            slider.value = max(0, min(last, index))

        slider.observe(lambda change: show(change["new"]), names="value")
        zoom.observe(lambda change: show(slider.value), names="value")
        predict.observe(lambda change: (quiz.reset(), show(slider.value)), names="value")
        back.on_click(lambda _: step_to(slider.value - 1))
        forward.on_click(lambda _: step_to(slider.value + 1))
        controls = w.HBox([play, back, forward, slider, speed, zoom, predict])
        jumps = self._jump_buttons(w, step_to)
        self._parts = {
            "slider": slider,
            "caption": caption,
            "card": card,
            "asking": asking,
            "score": score,
            "picture": picture,
            "predict": predict,
            "zoom": zoom,
            "forward": forward,
            "jumps": jumps,
        }
        show(0)
        rows = [controls] + ([w.HBox([w.HTML("jump to:"), *jumps.values()])] if jumps else [])
        # card and picture on one screen: side by side where the output is wide, else the card above a
        # picture no taller than what the screen leaves (see picture_html), scrolled to the highlighted node
        side = w.VBox([caption, card, asking], layout=w.Layout(flex="1 1 400px", min_width="0", max_width="520px"))
        picture.layout = w.Layout(flex="1 1 680px", min_width="0")
        main = w.Box([side, picture], layout=w.Layout(display="flex", flex_flow="row wrap", align_items="flex-start"))
        return w.VBox([*rows, main, legend])

    def _jump_buttons(self, w, step_to):
        """{"nan" | "underflow" | "largest": a button going to that step} (disabled where there is none), or {}
        for a player with no sweep: first NaN (or inf), first underflow, largest gradient."""
        targets = framing.jump_targets(self.frames)
        if all(targets[key] is None for key in framing.JUMPS):
            return {}
        labels = {"nan": targets["nan_label"], "underflow": "first underflow", "largest": "largest gradient"}
        buttons = {}
        for key in framing.JUMPS:
            step = targets[key]
            title = JUMP_TITLES[key] + (f" (step {step})" if step is not None else ": none in this sweep")
            button = w.Button(
                description=labels[key], disabled=step is None, tooltip=title, layout=w.Layout(width="auto")
            )
            if step is not None:
                button.on_click(lambda _, to=step: step_to(to))
            buttons[key] = button
        return buttons

    def missing_dot(self):
        """None when frames can be drawn, else the GraphvizUnavailable saying how to fix it."""
        try:
            self.frame_svg(0)
        except GraphvizUnavailable as problem:
            return problem
        return None

    def to_text(self):
        """One line per step: the player as plain text."""
        return "\n".join(f"step {frame['index']}: {frame['caption']}" for frame in self.frames)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude))
        problem = self.missing_dot()
        bundle["text/html"] = iframe(self.to_html()) if problem is None else _steps_html(self.frames, problem)
        bundle["text/plain"] = self.to_text()
        return bundle

    def __len__(self):
        return len(self.frames)


def hide_cells(card, hidden):
    """A copy of ``card`` whose cells predict mode still asks for read ``? (n)``.

    ``hidden``: {(row, cell): n}; a product's cell also hides the row's running total unless a
    question of its own asks for the sum; a forward card's "total" hides its products and total."""
    if not hidden:
        return card
    if card.get("forward"):
        if (0, "total") not in hidden:
            return card
        mark = f"? ({hidden[(0, 'total')]})"
        return dict(
            card, rows=[dict(r, product="?") for r in card["rows"]], sum=None, totals=[mark] * len(card["totals"])
        )
    rows = []
    for index, row in enumerate(card["rows"]):
        row = dict(row)
        if (index, "local") in hidden:
            row["local"], row["local_value"] = f"? ({hidden[(index, 'local')]})", None
        if (index, "product") in hidden:
            row["product"] = f"? ({hidden[(index, 'product')]})"
            if (index, "sum") not in hidden:
                row["sum"], row["total"] = None, "?"
        if (index, "sum") in hidden:
            row["sum"], row["total"] = None, f"? ({hidden[(index, 'sum')]})"
        rows.append(row)
    return dict(card, rows=rows)


def _verdict_html(given):
    status = given.get("status")
    if not status:
        return ""
    colour = "#15803d" if status == "right" else ("#92400e" if status == "unreadable" else "#b91c1c")
    return f'<span style="color:{colour}">{fmt.html_text(given["message"])}</span>'


def _notice(problem):
    return f'<div class="tapeviz-missing" style="color:#92400e">{html.escape(str(problem))}</div>'


def _gradients_so_far(badges, problem):
    shown = ", ".join(value for _node, value in sorted(badges.items()))
    return f"gradients so far: {html.escape(shown) or 'none'}{_notice(problem)}"


def _steps_html(frames, problem):
    rows = "".join(f"<li>{html.escape(frame['caption'])}</li>" for frame in frames)
    return f'{_notice(problem)}<ol start="0" class="tapeviz-steps">{rows}</ol>'
