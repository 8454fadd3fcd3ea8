"""The kernel-free HTML player: one self-contained page per animation.

The page embeds the laid-out SVG once, the frames (deltas) as JSON and the
player's script and styles, which ship as package data files
(``tapeviz/viz/static/player.js``, ``player.css``) so a linter can read them.
No kernel, no network: a 2,000-step sweep stays a few hundred kilobytes.
Captions, cards and badges are set with ``textContent``, and the JSON is
escaped for ``<script>``, so user text never becomes markup.
"""

import functools
import json
import math
import re
from importlib import resources

from tapeviz.viz import card as cards
from tapeviz.viz import format as fmt
from tapeviz.viz import frames as framing
from tapeviz.viz import heatmaps, tangent_card, update_card
from tapeviz.viz import predict as predicting


@functools.cache
def static_text(name):
    """A file of ``tapeviz/viz/static`` (the player's script or styles), read once."""
    return resources.files("tapeviz.viz").joinpath("static", name).read_text(encoding="utf-8")


_KEEP = ("index", "kind", "node", "caption", "set", "edges", "flow", "clear", "hidden", "card", "ask")


def _compact_card(card):
    """What the page needs of a card (rows of short strings)."""
    if card is None:
        return None
    if card.get("forward"):
        return tangent_card.compact(card)
    if card.get("update"):
        return update_card.compact(card)
    if card.get("seed"):
        rows = [[cards.ratio(r["input"], r["input"]), "", "", r["total"], r["total"], 0] for r in card["rows"]]
    else:
        rows = [
            [
                cards.wrt(r["input"]),
                cards.local_shown(r),
                "",
                r["product"],
                r["sum"] or r["total"],
                1 if r["elementwise"] else 0,
                _element(r.get("element")),
            ]
            for r in card["rows"]
        ]
    return {
        "op": card["op"],
        "out": card["outputs"],
        "up": card["upstream"],
        "f": card["formula"],
        "rows": rows,
        "seed": 1 if card.get("seed") else 0,
    }


def _element(element):
    """An array step's traced element as the page ships it: the text, and the products (4 digits) for the
    strip the student clicks to trace another element; 0 for a scalar step."""
    if element is None:
        return 0
    shipped = {"flat": element["flat"], "shape": element["shape"], "sum": int(element["summed"])}
    if element["count"] <= heatmaps.STRIP_CELLS:
        up, local = element["factors"]
        shipped.update(u=_numbers(up), l=_numbers(local), p=_numbers(element["values"]))
    return shipped


def _numbers(values):
    """Floats at the card's 4 digits (JSON has no nan/inf: those become null, drawn yellow)."""
    return [float(f"{v:.4g}") if math.isfinite(v) else None for v in values.tolist()]


def _shipped(question, texts):
    """A question as the page ships it: 6 digits (plenty for a 1e-3 tolerance), and each message as an
    index into ``texts`` (a long sweep repeats the same few messages at every step)."""

    def short(value):
        return float(f"{value:.6g}")

    def index(text):
        return texts.setdefault(text, len(texts))

    upstream = question["upstream"]
    return dict(
        question,
        answer=short(question["answer"]),
        hints=[[short(value), index(said)] for value, said in question["hints"]],
        otherwise=index(question["otherwise"]),
        upstream=None if upstream is None else short(upstream),
    )


def _frame_json(animation):
    """(frames as the page replays them, the predict-mode messages their questions point into)."""
    out, texts = [], {}
    for frame in animation.frames:
        item = {k: frame[k] for k in _KEEP if frame.get(k)}
        if "card" in item:
            item["card"] = _compact_card(item["card"])
        if "ask" in item:
            item["ask"] = [_shipped(question, texts) for question in item["ask"]]
        item["index"] = frame["index"]
        out.append(item)
    return out, list(texts)


def html_player(animation, title="tapeviz", predict=False):
    """A self-contained HTML page that plays the frames without a kernel or network.

    ``predict``: the page opens in predict mode (as ``tf.viz.player(tape, predict=True)`` does). Where no
    frame asks anything (a recording), the predict box is hidden: ticking it would change nothing.
    """
    shipped, texts = _frame_json(animation)
    asks = predicting.asks_anything(animation.frames)
    predict = predict and asks
    frames = fmt.script_json(json.dumps(shipped, sort_keys=True, separators=(",", ":")))
    boxes = fmt.script_json(
        json.dumps({k: [round(v, 1) for v in b] for k, b in sorted(animation.boxes.items())}, separators=(",", ":"))
    )
    paths = fmt.script_json(
        json.dumps(
            {k: [[round(x, 1), round(y, 1)] for x, y in p] for k, p in sorted(animation.paths.items())},
            separators=(",", ":"),
        )
    )
    links = fmt.script_json(json.dumps([points for _b, _f, points in animation.routes], separators=(",", ":")))
    spots = fmt.script_json(
        json.dumps(
            {
                k: None if spot is None else [round(spot[0], 1), round(spot[1], 1)]
                for k, spot in sorted(animation.spots.items())
            },
            separators=(",", ":"),
        )
    )
    style = fmt.script_json(json.dumps(animation.style, sort_keys=True, separators=(",", ":")))
    rules = fmt.script_json(json.dumps(dict(predicting.rules(), texts=texts), sort_keys=True, separators=(",", ":")))
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{fmt.html_text(title)}</title>
<style>{static_text("player.css")}</style></head><body>
<div id="tapeviz-player">
<div class="tv-bar">
<div class="tv-controls">
<button class="tv-first" title="first step">&#x25C0;&#x25C0;</button><button class="tv-back" title="step back">&#x25C0; step</button><button class="tv-play">&#x25B6; play</button><button class="tv-next" title="step forward">step &#x25B6;</button><button class="tv-last" title="last step">&#x25B6;&#x25B6;</button>
<input class="tv-slider" type="range" min="0" max="0" value="0" title="go to a step">
<label>speed <select class="tv-speed"><option value="1600">slow</option><option value="900" selected>normal</option><option value="400">fast</option></select></label>
<button class="tv-zoom-out" title="zoom out">&#x2212;</button><span class="tv-zoom-level">100%</span><button class="tv-zoom-in" title="zoom in">+</button><button class="tv-zoom-fit" title="fit the width">fit</button>
<label title="hide each gradient until you type it"{"" if asks else " hidden"}><input type="checkbox" class="tv-predict"{" checked" if predict else ""}> predict</label>
</div>
{_jump_buttons(animation.frames)}
</div>
<div class="tv-main">
<div class="tv-side">
<div class="tv-caption"></div>
<div class="tv-card"></div>
<div class="tv-ask"></div><div class="tv-score"></div>
</div>
<div class="tv-view">
{animation.base_svg}
</div>
</div>
<div class="tv-legend">{animation.legend_html()}</div>
</div>
<script type="application/json" id="tapeviz-frames">{frames}</script>
<script type="application/json" id="tapeviz-boxes">{boxes}</script>
<script type="application/json" id="tapeviz-paths">{paths}</script>
<script type="application/json" id="tapeviz-links">{links}</script>
<script type="application/json" id="tapeviz-spots">{spots}</script>
<script type="application/json" id="tapeviz-style">{style}</script>
<script type="application/json" id="tapeviz-predict">{rules}</script>
<script>{static_text("player.js")}</script>
</body></html>
"""


JUMP_TITLES = {
    "nan": "go to the first step whose gradients hold a NaN (or, with none, an inf)",
    "underflow": "go to the first step where upstream \u00d7 local underflowed to 0",
    "largest": "go to the step that sent the largest gradient (by its norm)",
}


def _jump_buttons(frames):
    """The jump buttons (first NaN, first underflow, largest gradient), each with the step it goes to in
    ``data-step``; disabled where the sweep has no such step; none at all for a player with no sweep."""
    targets = framing.jump_targets(frames)
    if all(targets[key] is None for key in framing.JUMPS):
        return ""
    labels = {"nan": targets["nan_label"], "underflow": "first underflow", "largest": "largest gradient"}
    buttons = []
    for key in framing.JUMPS:
        step = targets[key]
        state = f' data-step="{step}"' if step is not None else " disabled"
        title = JUMP_TITLES[key] + (f" (step {step})" if step is not None else ": none in this sweep")
        buttons.append(
            f'<button class="tv-jump tv-jump-{key}"{state} title="{fmt.html_text(title)}">{labels[key]}</button>'
        )
    return f'<div class="tv-jumps">jump to: {"".join(buttons)}</div>'


def iframe(page, height=None):
    """A whole HTML page (an exported animation) as an inline iframe that keeps its own scripts."""
    import html as _html

    if height is None:
        height = _guess_height(page)
    return (
        f'<iframe class="tapeviz-embed" srcdoc="{_html.escape(page, quote=True)}" '
        f'style="width:100%;box-sizing:border-box;height:{height}px;border:1px solid #e5e7eb;border-radius:4px" '
        'loading="lazy"></iframe>'
    )


def _guess_height(page):
    match = re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', page)
    graph = float(match.group(1)) * 4 / 3 if match else 300.0
    return int(min(900, graph + 260))
