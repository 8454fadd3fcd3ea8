"""Predict mode: what the player asks at each step, and how it judges an answer.

One spec for both players. The frames carry the questions as data
(``frame["ask"]``, built here from the step's card); the ipywidgets player
(:mod:`tapeviz.viz.widget`) judges with :class:`Quiz`, and the kernel-free
page's script (``static/player.js``) applies the same rules to the same data:
a number is read by :data:`NUMBER`, compared within :func:`close`'s
tolerance, a wrong answer gets the question's teaching message and one
retry, a second wrong answer reveals the value, and the score counts the
questions answered right the first time.

A reverse step asks, for each input that gets a gradient, its product
(upstream x local) and, where a gradient had already arrived at that input
(fan-out), the running sum. A forward step asks for the output's tangent.
Only single numbers are asked (an array has nothing to type in).

A question is a dict: ``row`` (the card row), ``cell`` ("product", "sum" or
"total": the card cell it fills), ``label`` (what to type), ``answer``
(float), ``reveal`` (the card's arithmetic, shown after the second wrong
answer), ``hints`` ([value, message] pairs: a likely wrong answer and the
misconception it shows), ``otherwise`` (the message for any other wrong
answer; ``{needed}`` in it stands for the local derivative the typed product
would need) and ``upstream`` (the divisor for ``{needed}``, or None).
"""

import math
import re

from tapeviz.viz import card_parts as parts
from tapeviz.viz import format as fmt
from tapeviz.viz.tangent_card import rate, total_text

# What counts as a typed number, in Python and in player.js alike: no hex, no "1_0", no "inf".
NUMBER = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
TRIES = 2  # a wrong answer gets one retry; the second wrong answer reveals the value
TOLERANCE = (1e-3, 5e-4)  # relative (to max(1, |answer|)) and absolute
ASKING = "your turn: work out each ? on the card, type it in its field and press check."
# Everything the players say, in one place (player.js gets this table as data).
SAID = {
    "asking": ASKING,
    "unreadable": "Type a number, like 6 or -0.4161.",
    "first": "\u2714 right first time",
    "second": "\u2714 right on the second try",
    "retry": "\u2718 not yet: {teaching} Try once more.",
    "revealed": "\u2718 not quite: it is {reveal}.",
    "score": "score: {first} of {answered} right first time",
    "nothing": "score: nothing answered yet",
}


def rules():
    """What player.js needs to judge as :func:`judge` does."""
    return {"number": NUMBER, "tries": TRIES, "tolerance": list(TOLERANCE), "said": SAID}


def close(got, want):
    """Right to the 4 significant digits the card shows (a sum of rounded numbers passes)."""
    return abs(got - want) <= TOLERANCE[0] * max(1.0, abs(want)) + TOLERANCE[1]


def read(typed):
    """The number typed, or None when it is not one."""
    text = str(typed)
    return float(text) if re.match(NUMBER, text) else None


def _question(row, cell, label, answer, reveal, hints, otherwise, upstream=None):
    kept = []
    for value, message in hints:  # a hint equal to the answer (or to an earlier hint) would mislead
        if value is None or not math.isfinite(value) or close(value, answer):
            continue
        if any(close(value, v) for v, _ in kept):
            continue
        kept.append([value, message])
    return {
        "row": row,
        "cell": cell,
        "label": label,
        "answer": answer,
        "reveal": reveal,
        "hints": kept,
        "otherwise": otherwise,
        "upstream": upstream if upstream else None,
    }


LEVELS = (True, "local")  # predict=True asks the products and sums; "local" first asks each local derivative too


def level_of(predict):
    """The predict level a player option names: False, True or "local" (a clear error for anything else)."""
    if predict in (False, None):
        return False
    if predict is True or predict == "local":
        return predict
    raise ValueError(
        f"predict={predict!r}: use predict=True (type each product) or predict='local' "
        "(also type each local derivative first)"
    )


def with_level(frames, level):
    """``frames`` with the questions of predict ``level``: at "local", each reverse step also asks for each
    input's local derivative before its product (the card hides it until then)."""
    if level != "local":
        return frames
    return [dict(f, ask=reverse_questions(f["card"], ask_local=True)) if f.get("kind") == "step" else f for f in frames]


def reverse_questions(card, ask_local=False):
    """The questions of one backward step's card, in the order they are asked; ``local``: also ask each
    input's local derivative (the rule at the recorded values) before its product (``ask_local``)."""
    if card is None or card.get("seed") or card.get("forward"):
        return []
    asked = []
    for index, row in enumerate(card["rows"]):
        numbers = row.get("numbers") or {}
        product = numbers.get("product")
        if product is None:
            continue  # an array, or a value the trace no longer holds: nothing to type in
        up, local = numbers.get("upstream"), numbers.get("local")
        shown_local = parts.local_shown(row) if row["elementwise"] else (row["local"] or card["formula"])
        if ask_local and row["elementwise"] and local is not None:
            asked.append(
                _question(
                    index,
                    "local",
                    f"{parts.wrt(row['input'])}: the local derivative {row['local']}",
                    local,
                    shown_local,
                    [
                        [
                            up,
                            "That is the upstream gradient: the local derivative is this op's own rule, "
                            "at the recorded values, before anything from upstream.",
                        ],
                        [product, "That is upstream \u00d7 local already: give the local derivative alone."],
                    ],
                    f"Put the recorded values into the rule {row['local']}: the inputs' values are on the picture.",
                )
            )
        if row["elementwise"] and up is not None and local is not None:
            hints = [
                [up, "That is the upstream gradient alone: multiply it by the local derivative."],
                [local, "That is the local derivative alone: multiply it by the upstream gradient."],
                [
                    up + local,
                    "You added the upstream gradient and the local derivative: the chain rule multiplies them.",
                ],
                [-product, "The sign is off: look again at the sign of each factor."],
            ]
            otherwise = (
                f"With the upstream {card['upstream']}, your answer would need a local derivative of "
                "{needed}: read the local derivative on the card again, then multiply."
            )
        else:
            hints = [[-product, "The sign is off: look again at the rule's sign."]]
            otherwise = f"Apply the rule {shown_local} to the upstream gradient {card['upstream']}."
            up = None
        asked.append(
            _question(
                index,
                "product",
                f"{parts.wrt(row['input'])}: upstream \u00d7 local",
                product,
                row["product"],
                hints,
                otherwise,
                up,
            )
        )
        before, after = numbers.get("before"), numbers.get("after")
        if row["sum"] and before is not None and after is not None:
            into = row["into"]
            asked.append(
                _question(
                    index,
                    "sum",
                    f"{into} collects: the running sum",
                    after,
                    row["sum"],
                    [
                        [
                            product,
                            f"That is this step's product alone: you forgot to add the gradient that "
                            f"already arrived at {into}.",
                        ],
                        [before, f"That is what had already arrived at {into}: add this step's product to it."],
                        [before * product, "You multiplied: gradients that meet at one tensor are added."],
                    ],
                    f"The running sum at {into} is the gradient already there (its badge) plus this step's product.",
                )
            )
    return asked


def tangent_questions(card, answer):
    """The forward step's question: the output's tangent (a single number), or none."""
    if card is None or card.get("seed") or answer is None or not math.isfinite(answer):
        return []
    products = [_product_value(row) for row in card["rows"] if row["elementwise"]]
    hints = []
    if len(products) > 1:
        hints = [[p, "That is one input's share: add every input's local \u00d7 tangent."] for p in products]
    otherwise = (
        "Multiply each input's tangent by its local derivative, then add them up."
        if card["elementwise"]
        else "Apply the rule above to the tangents coming in."
    )
    name = card["names"][0] if card["names"] else "the output"
    return [_question(0, "total", f"{rate(name)}: the output's tangent", answer, total_text(card), hints, otherwise)]


def _product_value(row):
    try:
        return float(row["product"].rsplit(" = ", 1)[1])
    except (AttributeError, IndexError, ValueError):
        return None


def judge(question, typed, wrong_before):
    """(status, message) for ``typed``: "right", "retry" (wrong, one more try), "revealed" (wrong again)
    or "unreadable" (not a number: no try used). ``wrong_before``: the wrong answers already given."""
    got = read(typed)
    if got is None:
        return "unreadable", SAID["unreadable"]
    if close(got, question["answer"]):
        return "right", SAID["second" if wrong_before else "first"]
    if wrong_before + 1 >= TRIES:
        return "revealed", SAID["revealed"].replace("{reveal}", question["reveal"])
    return "retry", SAID["retry"].replace("{teaching}", teaching(question, got))


def teaching(question, got):
    """The message for a wrong answer: the misconception it shows, or the question's general advice."""
    for value, message in question["hints"]:
        if close(got, value):
            return message
    needed = fmt.number(got / question["upstream"]) if question["upstream"] else "?"
    return question["otherwise"].replace("{needed}", needed)


def asks_anything(frames):
    """True when some frame has a question: otherwise (a recording, an optimizer's update alone) predict mode
    has nothing to ask, and the players show no predict box."""
    return any(frame.get("ask") for frame in frames)


class Quiz:
    """One player's predict-mode state: each question's answers so far, and the score."""

    def __init__(self, frames):
        self.frames = frames
        self.reset()

    def reset(self):
        self.given = {}  # (frame index, question position) -> {"status", "typed", "message", "wrong"}

    def questions(self, index):
        return self.frames[index].get("ask") or []

    def current(self, index):
        """The position of the question asked now on frame ``index``, or None when all are answered."""
        for position in range(len(self.questions(index))):
            if self.given.get((index, position), {}).get("status") not in ("right", "revealed"):
                return position
        return None

    def done(self, index):
        return self.current(index) is None

    def answer(self, index, typed):
        """Judge ``typed`` for the current question of frame ``index``: the updated record."""
        position = self.current(index)
        if position is None:
            return None
        record = self.given.setdefault((index, position), {"status": None, "typed": "", "message": "", "wrong": 0})
        status, message = judge(self.questions(index)[position], typed, record["wrong"])
        if status in ("retry", "revealed"):
            record["wrong"] += 1
        record.update(status=status, typed=str(typed), message=message)
        return dict(record, position=position)

    def pending(self, index):
        """{(row, cell): question number (1-based)} of the card cells still hidden on frame ``index``."""
        start = self.current(index)
        if start is None:
            return {}
        return {(q["row"], q["cell"]): n + 1 for n, q in enumerate(self.questions(index)) if n >= start}

    def score(self):
        """(right first time, answered): answered means right or revealed."""
        finished = [r for r in self.given.values() if r["status"] in ("right", "revealed")]
        first = sum(1 for r in finished if r["status"] == "right" and r["wrong"] == 0)
        return first, len(finished)

    def score_text(self):
        first, answered = self.score()
        return SAID["score"].format(first=first, answered=answered) if answered else SAID["nothing"]
