"""The optimizer update's card: one row per quantity (g, m, v, the step...), its rule with numbers, its value.

A card is plain data (``{"update": True, "title", "rows": [{"what", "rule",
"value"}]}``, made by :mod:`tapeviz.viz.update`), drawn here as lines of text
(the GIF, the player's text form), as HTML (the widget) and compacted for the
kernel-free page (its script draws the same table).
"""

from tapeviz.viz import format as fmt

_TABLE = "border-collapse:collapse;font-size:12px;margin:2px 0"
_CELL = "border:1px solid #e5e7eb;padding:2px 6px"


def text(card):
    lines = [card["title"]]
    lines += [f"  {row['what']} = {row['rule']} = {row['value']}" for row in card["rows"]]
    return lines


def html(card):
    e = fmt.html_text
    head = (
        f"<tr><th colspan=3 style='text-align:left'>{e(card['title'])}</th></tr>"
        "<tr style='color:#6b7280'><td>quantity</td><td>rule, with the numbers</td><td>value</td></tr>"
    )
    body = "".join(
        f"<tr><td><b>{e(row['what'])}</b></td><td>{e(row['rule'])}</td><td><b>{e(row['value'])}</b></td></tr>"
        for row in card["rows"]
    )
    return f'<table class="tv-card" style="{_TABLE}">{head}{body}</table>'.replace("<td>", f'<td style="{_CELL}">')


def compact(card):
    """What the kernel-free page needs (short strings)."""
    return {"upd": 1, "t": card["title"], "rows": [[r["what"], r["rule"], r["value"]] for r in card["rows"]]}
