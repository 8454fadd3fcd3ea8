"""How a gradient becomes a weight change: the optimizer's step, heard on the hooks.

``record_update()`` is a ``with`` block that listens while a training step
runs: the sweep's results (the gradients the tape returned), the optimizer's
``optimizer_step`` event (the gradients it was given, the learning rate, the
step number; the values before the step are read then, since nothing has
changed yet), and the ``variable_assigned`` events that follow (each slot's
and each variable's new value)::

    with tf.viz.record_update() as update:
        with tf.GradientTape() as tape:
            loss = ...
        gradients = tape.gradient(loss, variables)
        clipped, norm = tf.clip_by_global_norm(gradients, 1.0)
        optimizer.apply_gradients(zip(clipped, variables))
    tf.viz.player(tape, update=update)  # forward, sweep, clipping, update

:func:`update_frames` turns a recorded step into player frames on the tape's
picture: one frame for what happened between ``gradient`` and
``apply_gradients`` (the global norm and the scale, when the gradients were
scaled), then one per variable with the optimizer's arithmetic on a card
(Adam: ``m``, ``v``, the step size and the step), the numbers read from the
events. Cards are drawn by :mod:`tapeviz.viz.update_card`.
"""

import math
import threading
from contextlib import contextmanager

import numpy as np

from tapeviz.core import events
from tapeviz.core.tensor import to_array
from tapeviz.viz import format as fmt
from tapeviz.viz.card_parts import ratio

BADGE_LIMIT = 44


def _copy(value):
    """A float64 copy of a tensor's, variable's or array's value (the optimizer updates in place)."""
    if value is None:
        return None
    array = to_array(value) if not isinstance(value, np.ndarray) else value
    return np.array(np.asarray(array), dtype=np.float64)


class UpdateRecord:
    """The optimizer steps (and the sweeps before them) heard while subscribed.

    ``steps``: one dict per ``apply_gradients``: ``optimizer``, ``number``
    (1 for the first), ``learning_rate``, and ``variables``, a list of
    ``{"variable", "gradient", "raw", "before", "after", "slots": {name:
    {"before", "after"}}}`` (float64 arrays; ``raw`` is the gradient the
    tape returned, None if no sweep was heard).
    """

    def __init__(self):
        self.thread = threading.get_ident()  # a record hears its own thread's step, as trace() does
        self.steps = []
        self._sources = {}  # tape serial -> the sources of its open sweep
        self._raw = {}  # id(source) -> (source, the gradient a sweep returned for it)
        self._open = None  # the step still hearing assignments, and who is whom in it

    # -- listening ---------------------------------------------------------------------------
    def on_sweep_started(self, event):
        if threading.get_ident() != self.thread:
            return
        self._sources[event.tape] = event.sources

    def on_sweep_finished(self, event):
        if threading.get_ident() != self.thread:
            return
        for source, result in zip(self._sources.pop(event.tape, ()), event.results):
            if result is not None and hasattr(result, "shape"):
                self._raw[id(source)] = (source, _copy(result))

    def on_optimizer_step(self, event):
        if threading.get_ident() != self.thread:
            return
        optimizer = event.optimizer
        names = list(getattr(optimizer, "slot_names", ()))
        rows, whose = [], {}
        for position, (variable, gradient) in enumerate(zip(event.variables, event.gradients)):
            raw = self._raw.get(id(variable))
            slots = {}
            for name in names:
                slot = optimizer.get_slot(variable, name)
                slots[name] = {"before": _copy(slot), "after": None}
                whose[id(slot)] = (slot, position, name)
            whose[id(variable)] = (variable, position, None)
            rows.append(
                {
                    "variable": variable,
                    "gradient": _copy(gradient),
                    "raw": raw[1] if raw is not None and raw[0] is variable else None,
                    "before": _copy(variable),
                    "after": None,
                    "slots": slots,
                }
            )
        step = {
            "optimizer": optimizer,
            "number": int(event.step),
            "learning_rate": float(event.learning_rate),
            "variables": rows,
        }
        self.steps.append(step)
        self._open = (step, whose, getattr(optimizer, "iterations", None))

    def on_variable_assigned(self, event):
        if threading.get_ident() != self.thread:
            return
        if self._open is None:
            return
        step, whose, iterations = self._open
        if event.variable is iterations:
            self._open = None  # the step is counted: it is over
            return
        found = whose.get(id(event.variable))
        if found is None or found[0] is not event.variable:
            return
        _, position, slot = found
        row = step["variables"][position]
        target = row if slot is None else row["slots"][slot]
        target["after"] = _copy(event.variable)

    @property
    def last(self):
        """The last step heard (a dict, see the class), or None."""
        return self.steps[-1] if self.steps else None


@contextmanager
def record_update():
    """A ``with`` block recording the optimizer steps (and the sweeps) it runs: an :class:`UpdateRecord`.

    Returns:
        A context manager whose ``as`` target records the steps (pass it to ``player(tape, update=...)``).
    """
    record = UpdateRecord()
    events.subscribe(record)
    try:
        yield record
    finally:
        events.unsubscribe(record)


# -- frames -----------------------------------------------------------------------------------


def global_norm(arrays):
    """sqrt(sum of every array's squared entries), in float64."""
    return math.sqrt(sum(float(np.sum(np.square(a))) for a in arrays))


def scaling(step):
    """What happened between ``gradient`` and ``apply_gradients``: a dict, or None when unknown.

    ``kind``: "same" (the tape's gradients, unchanged), "scaled" (every gradient
    times one ``scale``: global-norm clipping) or "changed"; ``before`` and
    ``after``: the global norms of the tape's gradients and of the optimizer's.
    """
    rows = step["variables"]
    if not rows or any(row["raw"] is None or row["raw"].shape != row["gradient"].shape for row in rows):
        return None
    raw = [row["raw"] for row in rows]
    used = [row["gradient"] for row in rows]
    before, after = global_norm(raw), global_norm(used)
    result = {"before": before, "after": after, "scale": after / before if before else 1.0}
    close = [np.allclose(u, r, rtol=1e-5, atol=1e-12) for u, r in zip(used, raw)]
    if all(close):
        result["kind"] = "same"
    elif all(np.allclose(u, r * result["scale"], rtol=1e-4, atol=1e-12) for u, r in zip(used, raw)):
        result["kind"] = "scaled"
    else:
        result["kind"] = "changed"
    return result


def is_adam(optimizer):
    """Adam's update (not AMSGrad's): the card writes out its arithmetic."""
    return (
        all(hasattr(optimizer, a) for a in ("beta_1", "beta_2", "epsilon"))
        and tuple(getattr(optimizer, "slot_names", ())) == ("m", "v")
        and not getattr(optimizer, "amsgrad", False)
    )


def _badge(word, array):
    """``gets [..]`` / ``now [..]`` on as many lines as the value needs: a badge is never cut."""
    return "\n".join(fmt.wrap(f"{word} {fmt.preview(array)}", BADGE_LIMIT))


def _text(array, limit=BADGE_LIMIT):
    return fmt.clip(fmt.preview(array), limit)


def clip_card(step, found, name_of, target):
    """The card of the frame between ``gradient`` and ``apply_gradients``."""
    rows = [
        {"what": "global norm", "rule": "\u221a(sum of every gradient's squares)", "value": fmt.number(found["before"])}
    ]
    if found["kind"] == "scaled":
        rows.append(
            {
                "what": "scale",
                "rule": f"norm the optimizer got / global norm = {fmt.number(found['after'])} / "
                f"{fmt.number(found['before'])}",
                "value": fmt.number(found["scale"]),
            }
        )
    for row in step["variables"]:
        name = name_of(row["variable"])
        rows.append(
            {
                "what": ratio(target, name),
                "rule": f"{_text(row['raw'], 30)} \u00d7 {fmt.number(found['scale'])}"
                if found["kind"] == "scaled"
                else _text(row["raw"], 30),
                "value": _text(row["gradient"], 30),
            }
        )
    titles = {
        "same": "gradient \u2192 apply_gradients: unchanged",
        "scaled": "gradient \u2192 apply_gradients: every gradient \u00d7 the same scale (clipped by the global norm)",
        "changed": "gradient \u2192 apply_gradients: changed",
    }
    return {"update": True, "title": titles[found["kind"]], "rows": rows}


def clip_caption(found):
    before, after = fmt.number(found["before"]), fmt.number(found["after"])
    if found["kind"] == "same":
        return f"apply_gradients gets the gradients the tape returned, unchanged (their global norm is {before})."
    if found["kind"] == "scaled":
        return (
            f"Before apply_gradients every gradient was multiplied by {fmt.number(found['scale'])}: the global norm "
            f"of all the gradients together, \u221a(sum of their squares), is {before}, and "
            f"tf.clip_by_global_norm(gradients, {after}) scales them by {after} / max({before}, {after}) "
            f"so that their global norm is {after}."
        )
    return f"Between gradient and apply_gradients the gradients changed: global norm {before} before, {after} after."


def adam_rows(step, row, name):
    """Adam's arithmetic for one variable, with the recorded numbers."""
    optimizer = step["optimizer"]
    b1, b2, eps = float(optimizer.beta_1), float(optimizer.beta_2), float(optimizer.epsilon)
    t, lr = step["number"], step["learning_rate"]
    m, v = row["slots"]["m"], row["slots"]["v"]
    alpha = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
    change = row["before"] - row["after"]
    rows = [
        {"what": "g", "rule": "the gradient apply_gradients got", "value": _text(row["gradient"])},
        {
            "what": "m",
            "rule": f"{fmt.number(b1)}\u00b7m + {fmt.number(1 - b1)}\u00b7g = "
            f"{fmt.number(b1)}\u00b7{_text(m['before'], 30)} + {fmt.number(1 - b1)}\u00b7g",
            "value": _text(m["after"]),
        },
        {
            "what": "v",
            "rule": f"{fmt.number(b2)}\u00b7v + {fmt.number(1 - b2)}\u00b7g\u00b2 = "
            f"{fmt.number(b2)}\u00b7{_text(v['before'], 30)} + {fmt.number(1 - b2)}\u00b7g\u00b2",
            "value": _text(v["after"]),
        },
        {
            "what": "\u03b1",
            "rule": f"lr\u00b7\u221a(1 \u2212 \u03b2\u2082^t) / (1 \u2212 \u03b2\u2081^t) with lr = {fmt.number(lr)}, "
            f"t = {t}",
            "value": fmt.number(alpha),
        },
        {
            "what": "step",
            "rule": f"\u03b1\u00b7m / (\u221av + \u03b5), \u03b5 = {fmt.number(eps)}",
            "value": _text(change),
        },
        {
            "what": name,
            "rule": f"{name} \u2212 step = {_text(row['before'], 30)} \u2212 step",
            "value": _text(row["after"]),
        },
    ]
    return rows


def generic_rows(step, row, name):
    """Any optimizer: its gradient, each slot before and after, the variable before and after."""
    rows = [{"what": "g", "rule": "the gradient apply_gradients got", "value": _text(row["gradient"])}]
    for slot, values in row["slots"].items():
        rows.append({"what": slot, "rule": f"was {_text(values['before'], 30)}", "value": _text(values["after"])})
    rows.append(
        {"what": "step", "rule": "how far it moved (before \u2212 after)", "value": _text(row["before"] - row["after"])}
    )
    rows.append({"what": name, "rule": f"was {_text(row['before'], 30)}", "value": _text(row["after"])})
    return rows


def update_frames(record, node_of, name_of, target="loss", start=0):
    """Frames of ``record``'s last step: how the gradients reached the optimizer, then one per variable.

    ``node_of(variable)``: the picture's node for a variable (or None);
    ``name_of(variable)``: what the player calls it; ``target``: the loss's name.
    The first frame clears the sweep's badges: from then on the badges are the
    variables' (the gradient each one gets, then its new value).
    """
    step = record.last if isinstance(record, UpdateRecord) else record
    if step is None:
        raise ValueError(
            "No optimizer step was heard: run optimizer.apply_gradients(...) inside `with tf.viz.record_update()`."
        )
    if any(row["after"] is None for row in step["variables"]):
        raise ValueError("The optimizer step did not finish inside `with tf.viz.record_update()`; run it all inside.")
    frames = []

    def add(kind, node, caption, card, badges):
        frames.append(
            {
                "index": start + len(frames),
                "kind": kind,
                # the update's first frame starts the badges afresh: the sweep's labels on the
                # edges and the tensors are not what this part is about (nor do they crowd it)
                "clear": not frames,
                "node": node,
                "op": None,
                "caption": caption,
                "card": card,
                "set": badges,
                "edges": {},
                "flow": [],
                "upstream": [],
                "formula": "",
                "grads": [],
                "accumulated": [],
            }
        )

    found = scaling(step)
    if found is not None:
        badges = {}
        for row in step["variables"]:
            node = node_of(row["variable"])
            if node is not None and found["kind"] != "same":
                badges[node] = _badge("gets", row["gradient"])
        add("clip", None, clip_caption(found), clip_card(step, found, name_of, target), badges)
    optimizer = step["optimizer"]
    kind = type(optimizer).__name__
    adam = is_adam(optimizer)
    for row in step["variables"]:
        name = name_of(row["variable"])
        node = node_of(row["variable"])
        rows = adam_rows(step, row, name) if adam else generic_rows(step, row, name)
        how = (
            "m and v, the running means of g and g\u00b2, move toward this gradient; "
            "the step is \u03b1\u00b7m / (\u221av + \u03b5)"
            if adam
            else "its slots and the variable change"
        )
        caption = (
            f"{kind} step {step['number']} updates {name}: {how}; {name} moves from "
            f"{fmt.preview(row['before'])} to {fmt.preview(row['after'])}."
        )
        card = {"update": True, "title": f"{kind} updates {name} (step t = {step['number']})", "rows": rows}
        badges = {node: _badge("now", row["after"])} if node is not None else {}
        add("update", node, caption, card, badges)
    moved = ", ".join(name_of(row["variable"]) for row in step["variables"])
    add(
        "updated",
        None,
        f"Done: {kind} moved {moved}; optimizer.iterations is now {step['number']}. The next step records a new tape.",
        None,
        {},
    )
    return frames
