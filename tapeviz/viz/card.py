"""The chain-rule card: what one backward step computes, with the recorded numbers.

At each step of the reverse sweep the player shows, for the op being
differentiated, the gradient arriving at its output (*upstream*), each
input's local derivative evaluated at the recorded values (``2*x = 6``,
derived from the rule itself: :mod:`tapeviz.core.local_derivatives`), their product
(``1 x 6 = 6``), and where the product goes, with the running sum when
several gradients meet at one tensor (``-0.99 + 6 = 5.01``). Only the inputs
the sweep differentiates get a row (not ``d(x**y)/dy`` for a constant ``y``).

A card is plain data (a dict of strings), so the widget, the HTML export and
the GIF draw the same thing; :func:`text` gives it as lines.

The recorded values come from the trace's live events (``Trace.records``);
a trace loaded from JSON has only previews, and its cards show the rules'
formulas and the previews instead of evaluated local derivatives.
"""

import numpy as np

from tapeviz.viz import format as fmt
from tapeviz.viz import heatmaps, tangent_card, update_card
from tapeviz.viz.card_parts import (  # noqa: F401  (the cards' shared vocabulary, used by frames and export)
    array_of,
    evaluated_locals,
    formula_on_inputs,
    is_big,
    local_shown,
    named,
    ratio,
    traced,
    traced_text,
    value_text,
    wrt,
)


def sweep_events(trace, index):
    """(start, [BackwardStep...], finish) events of the trace's ``index``-th sweep, or None."""
    objects = getattr(trace, "objects", None)
    if not objects:
        return None
    return objects["sweeps"].get(f"s{index}")


def step_card(op, step, event, name_of, totals, node_of, skip=(), pick=None):
    """The card of one backward step.

    ``op``/``step``: the trace's op and sweep step; ``event``: the live
    BackwardStep (or None); ``name_of(tid)``: what the picture calls a tensor;
    ``totals``: node id -> running total (float64 array or preview string),
    updated here; ``node_of(tid)``: the node a tensor is drawn as; ``skip``:
    input positions whose gradient is not summed here (a variable's read step); ``pick``: the flat index
    of the element an array step traces (default: its largest product).
    """
    entry = event.entry if event is not None else None
    described = evaluated_locals(op, entry)
    upstream_values = [array_of(u) for u in event.upstream] if event is not None else []
    outputs = ", ".join(name_of(t) for t in op["outputs"]) or op["id"]
    upstream = [u if u is not None else "None" for u in step["upstream"]]
    symbol_of = getattr(name_of, "symbol", name_of)
    rows = []
    for position, (tid, grad) in enumerate(zip(op["inputs"], step["grads"])):
        if grad is None:
            continue  # a branch of the rule this sweep does not need
        item = described[position] if described and position < len(described) else None
        grad_value = array_of(event.grads[position]) if event is not None else None
        row = {
            "tid": tid,
            "position": position,
            "input": name_of(tid),
            "local": None,
            "local_value": None,
            "product": grad,
            "elementwise": False,
            "into": name_of(tid),
            "sum": None,
            "total": grad,
        }
        if item is not None:
            local_text, local_value = item
            row["local"] = named(local_text, op["name"], [symbol_of(t) for t in op["inputs"]])
            if local_value is not None:
                row["elementwise"] = True
                row["local_value"] = value_text(local_value)
                up = upstream_values[0] if upstream_values else None
                shown_up = value_text(up) if up is not None else upstream[0]
                element = traced(up, local_value, grad_value, pick) if up is not None else None
                if element is not None and (is_big(up) or is_big(local_value)):
                    # an array step: one element traced through, never summaries multiplied together
                    row["product"] = traced_text(element, grad)
                    row["element"] = element
                else:
                    row["product"] = f"{shown_up} \u00d7 {row['local_value']} = {grad}"
                if grad_value is not None and up is not None and np.shape(grad_value) != np.shape(local_value):
                    if "element" not in row:
                        row["product"] += " (summed to the input's shape)"
                elif grad_value is not None and up is not None:
                    row["underflow"] = underflow_product(up, local_value, grad_value)
        node = node_of(tid)
        before = totals.get(node)
        if position not in skip:
            row["sum"], row["total"] = accumulate(totals, node, grad_value, grad, step["totals"].get(tid))
        # The card's numbers as floats where they are single numbers: what predict mode asks and checks.
        row["numbers"] = {
            "upstream": _scalar(upstream_values[0] if upstream_values else upstream[0]),
            "local": _scalar(item[1]) if item is not None else None,
            "product": _scalar(grad_value if grad_value is not None else grad),
            "before": _scalar(before) if row["sum"] else None,
            "after": _scalar(totals.get(node)) if row["sum"] else None,
        }
        rows.append(row)
    return {
        "op": op["name"],
        "id": op["id"],
        "outputs": outputs,
        "upstream": ", ".join(upstream),
        # The rule written on this op's own inputs: d(b*x)/db = x, d(x**2)/dx = 2*x**(2-1).
        "formula": formula_on_inputs(op, [g is not None for g in step["grads"]], name_of),
        "rows": rows,
        "evaluated": described is not None,
    }


def _scalar(value):
    """A single finite number as a float (from an array or a preview text), else None."""
    if value is None:
        return None
    try:
        array = np.asarray(float(value) if isinstance(value, str) else value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if array.size != 1 or not np.isfinite(array).all():
        return None
    return float(array.reshape(()))


def underflow_product(upstream, local, grad):
    """The exact product upstream x local (float64) where the recorded gradient came out 0 though neither
    factor was 0: the largest such, as text; None where nothing underflowed."""
    try:
        with np.errstate(all="ignore"):  # 0 x inf = nan on a NaN step: a value shown, never a warning in the notebook
            exact = np.asarray(upstream, dtype=np.float64) * np.asarray(local, dtype=np.float64)
        lost = (exact != 0) & (np.broadcast_to(np.asarray(grad), exact.shape) == 0)
    except ValueError:  # shapes that do not line up (a summary): nothing to say
        return None
    return fmt.number(float(np.abs(exact[lost]).max())) if lost.any() else None


def accumulate(totals, node, value, preview, fallback):
    """Add one gradient to ``node``'s running total: (running-sum text or None, new total text)."""
    previous = totals.get(node)
    if value is not None and not isinstance(previous, str):
        if previous is None:
            totals[node] = value
            return None, fmt.preview(value)
        try:
            with np.errstate(all="ignore"):  # inf + -inf = nan: shown on the card, not warned about
                new = np.asarray(previous + value)
        except ValueError:  # shapes that do not add (a summary): fall back to the trace's total
            new = None
        if new is not None:
            totals[node] = new
            return f"{fmt.preview(previous)} + {fmt.preview(value)} = {fmt.preview(new)}", fmt.preview(new)
    # No live numbers: the trace's preview of the total (exact for tensors drawn as themselves).
    total = fallback if fallback is not None else preview
    if previous is not None:
        totals[node] = total
        return f"{previous if isinstance(previous, str) else fmt.preview(previous)} + {preview} = {total}", total
    totals[node] = total
    return None, total


def seed_card(target_names, seeds, sources=()):
    rows = [
        {
            "input": name,
            "local": None,
            "local_value": None,
            "product": seed,
            "elementwise": False,
            "into": name,
            "sum": None,
            "total": seed,
        }
        for name, seed in zip(target_names, seeds)
    ]
    return {
        "op": "seed",
        "id": None,
        "outputs": ", ".join(target_names),
        "upstream": ", ".join(seeds),
        "formula": "",
        "rows": rows,
        "evaluated": True,
        "seed": True,
    }


def text(card, target="y"):
    """The card as lines of plain text (the player's text form, the GIF)."""
    if card is None:
        return []
    if card.get("forward"):  # the tangent player's card
        return tangent_card.text(card)
    if card.get("update"):  # the optimizer's update
        return update_card.text(card)
    if card.get("seed"):
        return [f"seed: {ratio(n, n)} = {row['total']}" for n, row in zip(card["outputs"].split(", "), card["rows"])]
    target = card.get("target") or target  # the sweep's target, as the player names it (loss)
    lines = [f"{card['op']} \u2192 {card['outputs']}: upstream {ratio(target, card['outputs'])} = {card['upstream']}"]
    if not card["rows"]:
        lines.append("  no input needs a gradient here")
    for row in card["rows"]:
        if row["elementwise"]:
            lines.append(
                f"  {wrt(row['input'])}: local {local_shown(row)}; "
                f"upstream \u00d7 local = {row['product'].split(' = ', 1)[0]} = {row['product'].split(' = ', 1)[1]}"
            )
        else:
            rule = row["local"] or card["formula"]
            lines.append(f"  {wrt(row['input'])}: {rule}; the rule gives {row['product']}")
        if row["sum"]:
            lines.append(f"    {row['into']} collects it: {row['sum']}")
        else:
            lines.append(f"    {row['into']} so far: {row['total']}")
    return lines


_TABLE = "border-collapse:collapse;font-size:12px;margin:2px 0"
_CELL = "border:1px solid #e5e7eb;padding:2px 6px"


def html(card, target="y"):
    """The card as a small HTML table (user text escaped)."""
    if card is None:
        return ""
    if card.get("forward"):  # the tangent player's card
        return tangent_card.html(card)
    if card.get("update"):  # the optimizer's update
        return update_card.html(card)
    e = fmt.html_text
    if card.get("seed"):
        body = "".join(
            f"<tr><td>seed</td><td><b>{e(ratio(n, n))} = {e(row['total'])}</b></td></tr>"
            for n, row in zip(card["outputs"].split(", "), card["rows"])
        )
        return f'<table class="tv-card" style="{_TABLE}">{body}</table>'
    head = (
        f"<tr><th colspan=5 style='text-align:left'>{e(card['op'])} \u2192 {e(card['outputs'])}"
        f" <span style='color:#6b7280;font-weight:normal'>{e(card['formula'])}</span></th></tr>"
        "<tr style='color:#6b7280'><td>to</td><td>upstream</td><td>local derivative</td>"
        "<td>upstream \u00d7 local</td><td>collected at the input</td></tr>"
    )
    body = []
    for row in card["rows"]:
        local = e(local_shown(row)) if row["elementwise"] else e(row["local"] or card["formula"])
        product = e(row["product"]) + _strip_html(row.get("element"))
        collected = e(row["sum"]) if row["sum"] else e(row["total"])
        body.append(
            f"<tr><td><b>{e(wrt(row['input']))}</b></td><td>{e(card['upstream'])}</td><td>{local}</td>"
            f"<td><b>{product}</b></td><td>{collected}</td></tr>"
        )
    if not card["rows"]:
        body.append("<tr><td colspan=5>no input needs a gradient here</td></tr>")
    return f'<table class="tv-card" style="{_TABLE}">{head}{"".join(body)}</table>'.replace(
        "<td>", f'<td style="{_CELL}">'
    )


def _strip_html(element):
    """The products of an array step as a small heatmap strip, the traced element outlined ("" for a scalar)."""
    if element is None or element["count"] > heatmaps.STRIP_CELLS:
        return ""
    caption = f"upstream \u00d7 local, element by element (blue &lt; 0 &lt; red); outlined: {element['at']}"
    return f"<br>{heatmaps.strip(element['values'], element['flat'])}<br><small>{caption}</small>"


def underflows(event, grad_norms):
    """The input positions of a BackwardStep whose gradient underflowed to 0 (upstream x local is not 0 in
    float64); ``grad_norms``: the step's (see :func:`tapeviz.viz.trace.norm_of`), so only the inputs that got
    exactly 0 are evaluated."""
    if 0.0 not in grad_norms or not event.upstream:
        return []
    described = evaluated_locals(None, event.entry)
    upstream = array_of(event.upstream[0])
    if not described or upstream is None:
        return []
    lost = []
    for position, norm in enumerate(grad_norms):
        if norm != 0.0 or position >= len(described) or described[position][1] is None:
            continue
        grad = array_of(event.grads[position])
        local = described[position][1]
        if grad is not None and np.shape(grad) == np.shape(local) and underflow_product(upstream, local, grad):
            lost.append(position)
    return lost
