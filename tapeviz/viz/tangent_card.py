"""The forward-mode card: what one op does to the tangents, with the recorded numbers.

Forward mode pushes a *tangent* (how fast each value moves when the inputs
move along a direction, ``d(value)/dt``) forward with the values. At each op
the card shows each incoming tangent, the input's local derivative evaluated
at the recorded values (derived from the op's rule, as on the reverse card:
``2*x = 6``), their product (``6 x 1 = 6``), and the sum over the inputs: the output's tangent (``3 + 3 = 6`` for ``x * x``).

An op whose derivative is not elementwise (a matmul, a reshape) gets the
rule's formula and the output's tangent the library computed for it (from
that op's gradient rule, applied twice: :func:`tapeviz.core.forward.op_jvp`).

A card is plain data (a dict of strings) like the reverse one, and
:mod:`tapeviz.viz.card`'s ``text`` and ``html`` hand a forward card to the
functions here.
"""

import numpy as np

from tapeviz.viz import card_parts as cards
from tapeviz.viz import format as fmt

TIMES = "\u00d7"
NOT_ELEMENTWISE = "not elementwise: see the rule above"


def shown(value):
    """A value for the card: a constant array as its one number, a summary in parentheses."""
    array = np.asarray(value)
    if array.size > 1 and np.all(array == array.flat[0]):
        array = array.flat[0]
    text = cards.value_text(array)
    return f"({text})" if ", " in text and not text.startswith("[") else text


def rate(name):
    """``dy/dt`` for short names, ``d(loss)/dt`` for longer ones: how fast ``name`` moves along the tangent."""
    return f"d{name}/dt" if cards.is_bare(name) else f"d({name})/dt"


def step_card(op, entry, tangents_in, tangents_out, name_of):
    """The card of one forward step.

    ``op``: the trace's op; ``entry``: the recorded op (live values);
    ``tangents_in`` / ``tangents_out``: one float64 array or None per input /
    output; ``name_of(tid)``: what the picture calls a tensor.
    """
    described = cards.evaluated_locals(op, entry)
    input_names = [name_of(t) for t in op["inputs"]]
    rows, products = [], []
    pick = None  # the element an array step traces: the first row's largest product, then the same on each row
    for position, (tid, tangent) in enumerate(zip(op["inputs"], tangents_in)):
        if tangent is None:
            continue  # this input does not move with the primals
        item = described[position] if described and position < len(described) else None
        row = {
            "tid": tid,
            "position": position,
            "input": input_names[position],
            "tangent": shown(tangent),
            "local": None,
            "local_value": None,
            "product": None,
            "elementwise": False,
        }
        if item is not None:
            local_text, local_value = item
            row["local"] = cards.named(local_text, op["name"], input_names)
            if local_value is not None:
                product = np.asarray(local_value, dtype=np.float64) * tangent
                row.update(elementwise=True, local_value=shown(local_value))
                row["product"] = f"{row['local_value']} {TIMES} {row['tangent']} = {shown(product)}"
                element = cards.traced(local_value, tangent, None, pick)
                if element is not None and (cards.is_big(local_value) or cards.is_big(tangent)):
                    # an array: one element traced through (the same one on every row), never summaries multiplied
                    row["product"], row["element"] = cards.traced_text(element, None), element
                    pick = element["flat"]
                products.append(product)
        rows.append(row)
    outputs = [name_of(t) for t in op["outputs"]]
    arrays = [cards.array_of(o) for o in (entry.outputs if entry is not None else ())]
    values = [cards.value_text(a) if a is not None else "?" for a in arrays]
    totals = [cards.value_text(t) if t is not None else "None" for t in tangents_out]
    elementwise = bool(rows) and all(r["elementwise"] for r in rows)
    summed = None
    if elementwise and len(products) > 1:
        parts = " + ".join(shown(p) for p in products)
        summed = f"{parts} = {totals[0]}"
        if pick is not None:  # arrays: the traced element's products, summed
            try:
                at = [
                    np.broadcast_to(p, np.broadcast_shapes(*(np.shape(q) for q in products))).flat[pick]
                    for p in products
                ]
            except (ValueError, IndexError):
                at = None
            if at is not None:
                where = rows[0]["element"]["at"] if rows[0].get("element") else f"element {pick}"
                summed = f"at {where}: {' + '.join(fmt.number(v) for v in at)} = {fmt.number(sum(at))}"
    return {
        "forward": True,
        "op": op["name"],
        "id": op["id"],
        "outputs": ", ".join(outputs) or op["id"],
        "names": outputs,
        "values": values,
        "formula": cards.formula_on_inputs(op, [t is not None for t in tangents_in], name_of),
        "rows": rows,
        "totals": totals,
        "sum": summed,
        "elementwise": elementwise,
        "evaluated": described is not None,
    }


def seed_card(names, tangents):
    """The first frame: each primal's tangent (``dx/dt = 1``)."""
    rows = [{"input": name, "tangent": tangent} for name, tangent in zip(names, tangents)]
    return {
        "forward": True,
        "seed": True,
        "op": "seed",
        "id": None,
        "outputs": ", ".join(names),
        "rows": rows,
        "formula": "",
    }


def total_text(card):
    """``dy/dt = 3 + 3 = 6``, or ``dy/dt = 6 (J x tangent, from the rule)`` where the op is not elementwise."""
    parts = []
    for name, total in zip(card["names"], card["totals"]):
        if card["sum"] and len(card["names"]) == 1:
            parts.append(f"{rate(name)} = {card['sum']}")
        elif card["elementwise"]:
            parts.append(f"{rate(name)} = {total}")
        else:
            parts.append(f"{rate(name)} = {total} (the Jacobian {TIMES} the tangent, computed from the op's rule)")
    return "; ".join(parts)


def caption(card):
    """One line: the op, its value, and how its tangent is made."""
    values = ", ".join(f"{n} = {v}" for n, v in zip(card["names"], card["values"]))
    if not card["rows"]:
        return f"{card['op']} \u2192 {values}: no input carries a tangent here."
    parts = []
    for row in card["rows"]:
        if row["elementwise"]:
            parts.append(f"from {row['input']}: local {cards.local_shown(row)}, {row['product']}")
        else:
            parts.append(f"from {row['input']}: tangent {row['tangent']}")
    rule = "" if card["elementwise"] else f"; not elementwise, the rule: {card['formula']}"
    return f"{card['op']} \u2192 {values}; " + "; ".join(parts) + f"{rule}; {total_text(card)}."


def text(card):
    """The card as lines of plain text (the GIF, the SVG frames)."""
    if card.get("seed"):
        return [f"tangent: {rate(row['input'])} = {row['tangent']}" for row in card["rows"]]
    values = ", ".join(f"{n} = {v}" for n, v in zip(card["names"], card["values"]))
    lines = [f"{card['op']} \u2192 {values}: its tangent is local {TIMES} tangent, summed over the inputs"]
    if not card["rows"]:
        lines.append("  no input carries a tangent here")
    for row in card["rows"]:
        if row["elementwise"]:
            lines.append(
                f"  from {row['input']}: tangent {row['tangent']}; local {cards.local_shown(row)}; "
                f"local {TIMES} tangent = {row['product']}"
            )
        else:
            lines.append(
                f"  from {row['input']}: tangent {row['tangent']}; not elementwise, the rule: {card['formula']}"
            )
    lines.append(f"  {total_text(card)}")
    return lines


_TABLE = "border-collapse:collapse;font-size:12px;margin:2px 0"
_CELL = "border:1px solid #e5e7eb;padding:2px 6px"


def html(card):
    """The card as a small HTML table (user text escaped)."""
    e = fmt.html_text
    if card.get("seed"):
        body = "".join(
            f"<tr><td>tangent</td><td><b>{e(rate(row['input']))} = {e(row['tangent'])}</b></td></tr>"
            for row in card["rows"]
        )
        return f'<table class="tv-card" style="{_TABLE}">{body}</table>'
    values = ", ".join(f"{n} = {v}" for n, v in zip(card["names"], card["values"]))
    head = (
        f"<tr><th colspan=4 style='text-align:left'>{e(card['op'])} \u2192 {e(values)}"
        f" <span style='color:#6b7280;font-weight:normal'>{e(card['formula'])}</span></th></tr>"
        "<tr style='color:#6b7280'><td>from</td><td>tangent in</td><td>local derivative</td>"
        f"<td>local {TIMES} tangent</td></tr>"
    )
    body = []
    for row in card["rows"]:
        local = e(cards.local_shown(row)) if row["elementwise"] else e(NOT_ELEMENTWISE)
        product = e(row["product"]) if row["elementwise"] else ""
        body.append(
            f"<tr><td><b>{e(row['input'])}</b></td><td>{e(row['tangent'])}</td><td>{local}</td><td>{product}</td></tr>"
        )
    if not card["rows"]:
        body.append("<tr><td colspan=4>no input carries a tangent here</td></tr>")
    body.append(f"<tr><td colspan=4><b>{e(total_text(card))}</b></td></tr>")
    return f'<table class="tv-card" style="{_TABLE}">{head}{"".join(body)}</table>'.replace(
        "<td>", f'<td style="{_CELL}">'
    ).replace("<td colspan=4>", f'<td colspan=4 style="{_CELL}">')


def compact(card):
    """What the kernel-free page needs of a forward card (short strings)."""
    if card.get("seed"):
        return {"fwd": 1, "seed": 1, "rows": [[rate(r["input"]), r["tangent"]] for r in card["rows"]]}
    values = ", ".join(f"{n} = {v}" for n, v in zip(card["names"], card["values"]))
    rows = [
        [
            r["input"],
            r["tangent"],
            cards.local_shown(r) if r["elementwise"] else NOT_ELEMENTWISE,
            r["product"] if r["elementwise"] else "",
        ]
        for r in card["rows"]
    ]
    return {
        "fwd": 1,
        "seed": 0,
        "op": card["op"],
        "out": values,
        "f": card["formula"],
        "rows": rows,
        "tot": total_text(card),
        "ans": card["totals"][0] if card["totals"] else "",
    }
