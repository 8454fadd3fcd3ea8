"""Folding a large tape into a picture Graphviz lays out in well under 2 s.

Graphviz needs seconds per thousand nodes, and nobody can read a thousand
nodes anyway. The budget (``max_nodes``, 300) counts visible nodes plus the
ranks that long edges skip (:func:`long_edges`): a variable read at every
step of a loop makes few nodes but many long edges, which cost Graphviz far
more than nodes do. Over budget, a tape is folded, in this order of preference:

1. by **name scope** (layers and losses use ``tf.name_scope``): the deepest
   scope level that fits the budget, so a model folds to its layers and a
   smaller one to its layers' parts;
2. by **repetition**: ops outside folded scopes whose primitive sequence
   repeats (a Python loop body) fold into ONE box per loop,
   "2,500 x [Mul -> AddV2]", whatever the loop's length;
3. as a last resort, into consecutive **segments**.

A fold never mixes tapes, derivative orders or name scopes: in a nested
(higher-order) tape the forward loop and each backward loop fold apart.

Tensors a fold hides: those made and used inside it, constants only it uses,
and, when a fold sends out more than :data:`MAX_FOLD_OUTPUTS` tensors (the
outputs of 2,500 parallel ops), all of those, drawn as one edge from the fold
to each op that uses them. Variables, watched tensors and targets stay.

``open`` names what to unfold (``show(tape, open=["model/dense_1", "op12"])``):
a scope shows the ops directly in it (sub-scopes stay folded); an op id opens
the loop or segment that starts there: a loop shows its first and last
iterations, its middle stays one box (which opens the same way).
The plan is a dict ``op id -> fold key``; ops not in it are shown as they are.
"""

import math
import re

FOLD_KINDS = ("scope:", "repeat:", "segment:")
MAX_FOLD_OUTPUTS = 2  # more tensors leaving one fold are drawn as direct edges
SKIPS_PER_NODE = 10  # ranks skipped by long edges that cost Graphviz about what one node does
SHORT_BODY = 16  # loop bodies up to this many ops are always looked for
SEARCHED_PERIODS = 12  # and the longer ones at which steps recur most often
GRAM_WIDTHS = (1, 4, 16)  # runs of steps whose recurrence distances are counted
MIN_REPEATS = 3  # a body seen fewer times is not called a loop
LASTING_REPEATS = 8  # a loop of this many turns never dissolves into segments


def unit_of(plan, op):
    """The unit an op is drawn in: its fold key, or its own id."""
    return plan.get(op["id"], op["id"])


def is_fold(unit):
    return unit.startswith(FOLD_KINDS)


def flows(ops, plan, alias):
    """(producer, consumers): tensor (as drawn) -> the unit making it / the units using it."""
    producer, consumers = {}, {}
    for op in ops:
        unit = unit_of(plan, op)
        for t in op["outputs"]:
            producer[alias.get(t, t)] = unit
        for t in op["inputs"]:
            consumers.setdefault(alias.get(t, t), set()).add(unit)
    return producer, consumers


def hidden_tensors(ops, plan, alias, keep=frozenset()):
    """(hidden, producer, consumers): the tensors a plan hides, and the flows they were found by."""
    producer, consumers = flows(ops, plan, alias)
    hidden = set()
    leaving = {}  # fold -> tensors it sends out
    for t in set(producer) | set(consumers):
        if t in keep:
            continue
        made_by = producer.get(t)
        units = consumers.get(t, set()) | ({made_by} if made_by is not None else set())
        if len(units) == 1:
            if is_fold(next(iter(units))):
                hidden.add(t)  # lives inside one fold, or a constant only it uses
        elif made_by is not None and is_fold(made_by):
            leaving.setdefault(made_by, []).append(t)
    for outs in leaving.values():
        if len(outs) > MAX_FOLD_OUTPUTS:
            hidden.update(outs)
    return hidden, producer, consumers


def count_nodes(ops, plan, alias, keep=frozenset(), flow=None):
    """Visible nodes (ops, folds, tensors) if ``plan`` is applied."""
    hidden, producer, consumers = flow or hidden_tensors(ops, plan, alias, keep)
    units = {unit_of(plan, op) for op in ops}
    return len(units) + len(set(producer) | set(consumers)) - len(hidden)


def long_edges(ops, plan, alias, keep=frozenset(), flow=None):
    """How many ranks the picture's edges skip in all (Graphviz's "virtual nodes").

    Ranks are longest paths in tape order; a tensor nothing made (a variable, a
    constant) sits just above its first user, as Graphviz puts it. An edge from
    a variable used at every step of a long loop skips many ranks, and
    Graphviz's time grows much faster than the node count with these: 25
    steps of ``z = z * w + c`` drawn op by op (100 nodes) took it 1.5 s, 30
    steps 10 s.
    """
    hidden, producer, _ = flow or hidden_tensors(ops, plan, alias, keep)
    rank, edges, leaf_uses = {}, set(), {}
    for op in ops:
        unit = unit_of(plan, op)
        here = rank.get(unit, 0)
        for t in op["inputs"]:
            t = alias.get(t, t)
            source = producer.get(t) if t in hidden else t
            if source is None or source == unit:
                continue
            if source in rank:
                here = max(here, rank[source] + 1)
                edges.add((source, unit))
            elif t not in producer:
                leaf_uses.setdefault(source, set()).add(unit)
        rank[unit] = here
        for t in op["outputs"]:
            t = alias.get(t, t)
            if t not in hidden:
                rank[t] = max(rank.get(t, 0), here + 1)
                edges.add((unit, t))
    skipped = sum(max(0, rank[dst] - rank[src] - 1) for src, dst in edges)
    for users in leaf_uses.values():
        first = min(rank[u] for u in users)
        skipped += sum(rank[u] - first for u in users)
    return skipped


def cost(ops, plan, alias, keep=frozenset()):
    """The budget's measure: visible nodes, plus the ranks long edges skip, weighted."""
    flow = hidden_tensors(ops, plan, alias, keep)
    return count_nodes(ops, plan, alias, keep, flow) + long_edges(ops, plan, alias, keep, flow) / SKIPS_PER_NODE


# -- 1. scopes ---------------------------------------------------------------------------------------


def _scope_key(scope, level, opened):
    """The fold key of an op in ``scope`` at ``level``, or None to show it."""
    if not scope:
        return None
    parts = scope.split("/")
    opened_depth = 0
    for prefix in opened:
        p = prefix.strip("/").split("/")
        if parts[: len(p)] == p:
            opened_depth = max(opened_depth, len(p))
    if opened_depth and len(parts) <= opened_depth:
        return None  # directly inside an opened scope: shown
    return "scope:" + "/".join(parts[: max(level, opened_depth + 1)])


def _drop_singletons(plan):
    sizes = {}
    for key in plan.values():
        sizes[key] = sizes.get(key, 0) + 1
    return {op: key for op, key in plan.items() if sizes[key] > 1}


def _by_scope(ops, level, opened):
    plan = {}
    for op in ops:
        key = _scope_key(op["scope"], level, opened)
        if key is not None:
            plan[op["id"]] = key
    return _drop_singletons(plan)


def scope_boxes(ops, opened=()):
    """The plan folding each innermost name scope into one box (a model's layers, a loss), unless opened."""
    depth = max((len(op["scope"].split("/")) for op in ops if op["scope"]), default=0)
    return _by_scope(ops, depth, tuple(opened)) if depth else {}


def _scope_plan(ops, budget, opened, alias, keep):
    """(plan, fits): the deepest scope level that fits, else the shallowest."""
    depth = max((len(op["scope"].split("/")) for op in ops if op["scope"]), default=0)
    scoped = {}
    for level in range(depth, 0, -1):
        scoped = _by_scope(ops, level, opened)
        if cost(ops, scoped, alias, keep) <= budget:
            return scoped, True
    return scoped, False


# -- 2. loops ----------------------------------------------------------------------------------------


def _general(scope):
    """A scope with its numbers dropped: the steps of ``name_scope(f"step{i}")`` are one place."""
    return re.sub(r"\d+", "#", scope)


def regions(ops, plan, contiguous=False, general=False):
    """Runs of ops not in ``plan`` that may fold together: same tapes, order and scope, in order.

    Ops already folded (scopes) between two free ops do not break a run, unless ``contiguous``.
    ``general``: scopes that differ only by numbers count as one.
    """
    runs, last = [], None
    for op in ops:
        if op["id"] in plan:
            if contiguous:
                last = None
            continue
        key = (tuple(op["tapes"]), op["depth"], _general(op["scope"]) if general else op["scope"])
        if key != last:
            runs.append([])
            last = key
        runs[-1].append(op)
    return runs


def _signatures(run):
    """What must match for two ops to be the same step of a loop: the primitive.

    (Adding the variables an op reads would split loops over lists of weights,
    ``[w * w for w in ws]``, and misalign a loop whose first turn reads ``x``.)
    """
    return [op["name"] for op in run]


def _periods(names, lo, hi):
    """Loop-body lengths worth trying: every short one, and the distances at which the same
    run of steps recurs most often (a long body recurs at its length; runs of a few steps
    recur inside it too, so longer runs are counted as well)."""
    limit = (hi - lo) // MIN_REPEATS
    distances = {}
    for width in GRAM_WIDTHS:
        last = {}
        for i in range(lo, hi - width + 1):
            gram = tuple(names[i : i + width]) if width > 1 else names[i]
            j = last.get(gram)
            if j is not None:
                distances[i - j] = distances.get(i - j, 0) + 1
            last[gram] = i
    frequent = sorted(distances, key=lambda d: (-distances[d], d))[:SEARCHED_PERIODS]
    return sorted(p for p in set(range(1, SHORT_BODY + 1)) | set(frequent) if p <= limit)


def _best_repeat(names, lo, hi):
    """(start, period, repeats) of the repeat covering most of ``names[lo:hi]``, or None."""
    best = None
    for period in _periods(names, lo, hi):
        i = lo
        while i + period < hi:
            if names[i] != names[i + period]:
                i += 1
                continue
            start = i
            while i + period < hi and names[i] == names[i + period]:
                i += 1
            repeats = (i + period - start) // period
            covered = repeats * period
            # prefer more ops covered, then the shorter body (the loop, not two turns of it)
            if repeats >= MIN_REPEATS and (best is None or covered > best[2] * best[1]):
                best = (start, period, repeats)
    return best


def _repeats(names, lo, hi, found):
    """Greedy: the largest repeat in ``names[lo:hi]``, then the same on each side."""
    stack = [(lo, hi)]
    while stack:
        lo, hi = stack.pop()
        best = _best_repeat(names, lo, hi)
        if best is None:
            continue
        start, period, repeats = best
        end = start + period * repeats
        found.append((start, period, repeats))
        stack += [(lo, start), (end, hi)]


def _loop_plan(run, opened):
    plan = {}
    found = []
    _repeats(_signatures(run), 0, len(run), found)
    for start, period, repeats in found:
        # an opened loop shows its first and last turns; its middle is a loop again
        while run[start]["id"] in opened and repeats >= MIN_REPEATS:
            start, repeats = start + period, repeats - 2
        if run[start]["id"] in opened or repeats < 2:
            continue
        ops = run[start : start + period * repeats]
        key = f"repeat:{ops[0]['id']}:{period}:{repeats}"
        for op in ops:
            plan[op["id"]] = key
    return plan


def loops(ops):
    """Every loop among ``ops``, whatever a picture's budget: {fold key ("repeat:<first op>:<period>:<turns>"):
    [member ops in order]}; turn ``k`` is ``members[k * period:(k + 1) * period]``. Found as a folded picture
    finds them (the same tapes, order and name scope, a body repeated at least :data:`MIN_REPEATS` times)."""
    found = {}
    for run in regions(ops, {}):
        by_id = {op["id"]: op for op in run}
        for op_id, key in _loop_plan(run, ()).items():
            found.setdefault(key, []).append(by_id[op_id])
    return found


def turns(key, members):
    """The turns of a loop (:func:`loops`, or a view's folded loop): a list of lists of ops, first turn first."""
    _kind, _first, period, _repeats = key.split(":")
    period = int(period)
    return [members[k : k + period] for k in range(0, len(members), period)]


def _loops_through_scopes(ops, scoped, opened):
    """(plan, loops): loops found with scope numbers ignored, each replacing the scope boxes it
    runs through; a loop inside one scope box stays in it."""
    found = {}
    for run in regions(ops, {}, general=True):
        for op_id, key in _loop_plan(run, opened).items():
            found.setdefault(key, []).append(op_id)
    loops = {
        op_id: key
        for key, members in found.items()
        if len({scoped.get(m) for m in members}) > 1 or scoped.get(members[0]) is None
        for op_id in members
    }
    return _drop_singletons(dict(scoped, **loops)), loops


# -- 3. segments -------------------------------------------------------------------------------------


def _segment_plan(run, size, opened):
    plan = {}
    for start in range(0, len(run), size):
        chunk = run[start : start + size]
        if len(chunk) < 2 or chunk[0]["id"] in opened:
            continue
        for op in chunk:
            plan[op["id"]] = f"segment:{chunk[0]['id']}"
    return plan


def plan(ops, budget=300, opened=(), alias=None, keep=frozenset()):
    """The fold plan for ``ops`` (the visible ops, in order) within ``budget`` nodes."""
    alias = alias or {}
    opened = tuple(opened)
    if cost(ops, {}, alias, keep) <= budget:
        return {}
    scoped, fits = _scope_plan(ops, budget, opened, alias, keep)
    if fits:
        return scoped
    # Scopes alone do not fit: fold each loop among the other ops into one box.
    ids = set(opened)
    loops = {}
    for run in regions(ops, scoped):
        loops.update(_loop_plan(run, ids))
    merged = dict(scoped, **loops)
    if cost(ops, merged, alias, keep) <= budget:
        return merged
    # Still too many: a loop may run through many scopes (one per step:
    # name_scope(f"step{i}")); such a loop replaces their boxes.
    merged, loops = _loops_through_scopes(ops, scoped, ids)
    if cost(ops, merged, alias, keep) <= budget:
        return merged
    # Still too many: cut what is left into segments of consecutive ops, doubling their
    # size until it fits. A short loop (a few turns: often a chance repeat in code with no
    # loop) dissolves into the segments once they are longer than it is.
    loop_sizes = {}
    for key in loops.values():
        loop_sizes[key] = loop_sizes.get(key, 0) + 1
    lasting = {key for key in loop_sizes if int(key.rsplit(":", 1)[1]) >= LASTING_REPEATS}
    scoped = {op: key for op, key in merged.items() if key.startswith("scope:")}
    free = len(ops) - len(scoped)
    size = max(2, math.ceil(free / max(1, budget // 3)))
    while True:
        segmented = dict(scoped, **{op: key for op, key in loops.items() if key in lasting or loop_sizes[key] >= size})
        for run in regions(ops, dict(segmented), contiguous=True):
            segmented.update(_segment_plan(run, size, ids))
        if cost(ops, segmented, alias, keep) <= budget or size >= free:
            return segmented
        size *= 2


def describe(key, members):
    """(title, subtitle, how to open) for a fold key and its member ops."""
    kind, _, rest = key.partition(":")
    n = len(members)
    span = f"{members[0]['id']}\u2013{members[-1]['id']}"
    if kind == "scope":
        return rest, f"{n:,} ops", rest
    if kind == "repeat":
        _first, period, repeats = rest.split(":")
        body = " \u2192 ".join(op["name"] for op in members[: int(period)][:4])
        if int(period) > 4:
            body += " \u2026"
        return f"{int(repeats):,} \u00d7 [{body}]", f"{n:,} ops, {span}", members[0]["id"]
    return span, f"{n:,} ops", members[0]["id"]
