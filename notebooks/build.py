"""Build the lesson notebooks from their sources, executed, with stable outputs.

    .venv/bin/python notebooks/build.py            # every lesson
    .venv/bin/python notebooks/build.py 01 07      # only lessons whose name starts so

It runs the tapeviz of the checkout it lives in, and stops when ``import
tapeviz`` would find another one (from a git worktree: set PYTHONPATH).

Each lesson is written as ``notebooks/src/NN_name.py`` in the "percent"
format: cells start with a ``# %%`` line; ``# %% [markdown]`` cells hold
Markdown with each line behind ``# ``. Words after ``# %%`` set a cell's role:

* ``check``     its output teaches numbers: nbval compares it (tag ``nbval-check-output``);
* ``timing``    prints timings: run by nbval but never compared, and its output is
  not stored (a timing is different on every run and machine);
* ``ignore``    run, never compared (tag ``nbval-ignore-output``).

The notebook is written to ``notebooks/NN_name.ipynb`` and executed in place
with nbclient (working directory ``notebooks/``). Outputs are made
deterministic: no execution timings, widget model ids renumbered in order.

Stored outputs are made to show in a notebook opened before it is run. Such a
notebook is *untrusted*: JupyterLab sanitizes its HTML (an inline ``<svg>``
becomes a dump of its text, an ``<iframe>`` disappears), will not draw an
``image/svg+xml`` output, and does not draw ipywidgets. So in what is stored:

* every inline ``<svg>`` in an HTML output becomes an ``<img>`` whose source is
  that same SVG as a ``data:`` URI (the sanitizer keeps those): the same
  vector picture, trusted or not, in JupyterLab, on GitHub and in the docs;
  an output that is only an SVG (a heatmap) gets such an ``<img>`` as its HTML;
* a player (a widget, with a kernel-free copy in an ``<iframe>`` as its HTML)
  gets a still of its last step before the iframe, with a line saying to run
  the cell; a ``<style>`` rule hides the still wherever the iframe survives
  (the docs, a trusted notebook's HTML view).

Run a cell, and its new outputs are the live ones (trusted, interactive).

Exercises: a cell calling ``lessons.check("NAME", answer)`` is an exercise.
Its solution lives in ``tapeviz.lessons`` (``lessons.solution("NAME")`` shows
it), never in the notebook: the build runs each solution right after its
exercise cell, fails unless the check says "Correct", and then drops it.
"""

import base64
import html
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
ROLES = {"check", "timing", "ignore"}

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def parse(path):
    """Cells of a percent-format file: [(kind, roles, source)]."""
    cells = []
    kind, roles, lines = None, set(), []

    def flush():
        if kind is None:
            return
        body = "\n".join(lines).strip("\n")
        if kind == "markdown":
            body = "\n".join(re.sub(r"^# ?", "", line) for line in body.splitlines())
        cells.append((kind, roles, body))

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            flush()
            words = line[4:].split()
            kind = "markdown" if words[:1] == ["[markdown]"] else "code"
            roles = set(words[1:] if kind == "markdown" else words)
            unknown = roles - ROLES
            if unknown:
                raise ValueError(f"{path.name}: unknown cell role(s) {sorted(unknown)} in {line!r}")
            lines = []
        elif kind is not None:
            lines.append(line)
    flush()
    return cells


def notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for kind, roles, source in cells:
        if kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(source))
            continue
        cell = nbformat.v4.new_code_cell(source)
        tags = []
        if "check" in roles:
            tags.append("nbval-check-output")
        if "timing" in roles:
            tags += ["timing", "nbval-ignore-output"]
        if "ignore" in roles:
            tags.append("nbval-ignore-output")
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    for index, cell in enumerate(nb.cells):  # stable ids, not random ones
        cell["id"] = f"cell-{index:02d}"
    return nb


_HEX_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")  # also inside IPY_MODEL_<id>


def stabilise(nb):
    """Make outputs the same on every run: renumber widget ids, drop timings."""
    text = json.dumps(nb, sort_keys=False)
    names = {}

    def rename(match):
        return names.setdefault(match.group(0), f"{len(names) + 1:032x}")

    text = _HEX_ID.sub(rename, text)
    nb = nbformat.from_dict(json.loads(text))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        merged = []  # one stream output per run of prints (how they were flushed varies)
        for output in cell.outputs:
            if (
                output.output_type == "stream"
                and merged
                and merged[-1].output_type == "stream"
                and merged[-1].name == output.name
            ):
                merged[-1].text += output.text
            else:
                merged.append(output)
        cell.outputs = merged
        if "timing" in cell.metadata.get("tags", []):
            cell.outputs = [
                nbformat.v4.new_output(
                    "stream", name="stdout", text="(timings are not stored: run this cell to measure your machine)\n"
                )
            ]
    return nb


# -- outputs that render before the notebook is run ------------------------------------------
_SVG = re.compile(r"(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?(?:<!--.*?-->\s*)*(<svg\b.*?</svg>)", re.S)
STILL_CLASS = "tapeviz-still"

# Appended to the notebook while it runs, then removed: for each cell whose
# result is a player, the SVG of its last step and that step's caption.
_STILLS_CELL = """
import json as _json
_stills = {}
for _n, _v in Out.items():
    if hasattr(_v, "frame_svg") and hasattr(_v, "frames") and _v.frames:
        _last = len(_v.frames) - 1
        try:
            _svg = _v.frame_svg(_last)
        except Exception:  # no Graphviz: the stored player keeps its text form
            continue
        _stills[_n] = {"svg": _svg, "caption": f"step {_last} of {_last}: {_v.frames[_last]['caption']}"}
print(_json.dumps(_stills))
"""


def svg_image(svg):
    """An SVG as an ``<img>`` with a ``data:`` URI: drawn by JupyterLab even when untrusted."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="tapeviz drawing" style="max-width:100%">'


def still_html(svg, caption):
    """What an untrusted notebook shows for a player: its last step, and how to play it."""
    return (
        f"<style>.{STILL_CLASS}:has(+ iframe){{display:none}}</style>"
        f'<div class="{STILL_CLASS}">{svg_image(svg)}'
        f"<div>{html.escape(caption)}</div>"
        '<div style="color:#6b7280"><i>The player\'s last step, as stored. '
        "Run this cell to step through it.</i></div></div>"
    )


def portable(nb, stills):
    """Rewrite stored outputs so they show in an untrusted notebook (see the module's doc)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            data = output.get("data", {})
            page = data.get("text/html")
            if page is None and "image/svg+xml" in data:  # a drawing with only an SVG form (a heatmap)
                data["text/html"] = svg_image(data["image/svg+xml"])
                continue
            if page is None:
                continue
            if "application/vnd.jupyter.widget-view+json" in data:
                still = stills.get(str(cell.execution_count))
                if still:
                    page = still_html(still["svg"], still["caption"]) + page
            elif "<svg" in page:
                page = _SVG.sub(lambda m: svg_image(m.group(1)), page)
            data["text/html"] = page
    return nb


_CHECK = re.compile(r'lessons\.check\("([^"]+)"')
SOLUTION_TAG = "tapeviz-solution-run-by-build"


def with_solutions(nb):
    """The notebook with each exercise's solution in a cell right after it (tagged, to drop later)."""
    from tapeviz import lessons

    cells = []
    for cell in nb.cells:
        cells.append(cell)
        found = _CHECK.findall(cell.source) if cell.cell_type == "code" else []
        for exercise in found:
            code = lessons.EXERCISES[exercise].solution
            if not code:
                raise SystemExit(f"exercise {exercise} has no solution in tapeviz/lessons/catalogue.py")
            solution = nbformat.v4.new_code_cell(code)
            solution.metadata["tags"] = [SOLUTION_TAG]
            cells.append(solution)
    nb.cells = cells
    return nb


def without_solutions(nb, name):
    """Drop the solution cells again, after checking that every one of them was accepted."""
    kept = []
    for cell in nb.cells:
        if SOLUTION_TAG not in cell.metadata.get("tags", []):
            kept.append(cell)
            continue
        said = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        if "Correct" not in said:
            raise SystemExit(f"{name}: a solution is not accepted by its check:\n{cell.source}\n{said}")
    nb.cells = kept
    count = 0
    for cell in nb.cells:  # number the cells as one Run All of the notebook would
        if cell.cell_type == "code":
            count += 1
            cell.execution_count = count
            for output in cell.outputs:
                if output.output_type == "execute_result":
                    output.execution_count = count
    return nb


def build(path):
    name = path.stem
    target = HERE / f"{name}.ipynb"
    nb = with_solutions(notebook(parse(path)))
    nb.cells.append(nbformat.v4.new_code_cell(_STILLS_CELL.strip()))
    env_backup = dict(os.environ)
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        client = NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            record_timing=False,
            store_widget_state=True,
            resources={"metadata": {"path": str(HERE)}},
        )
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(env_backup)
    stills_cell = nb.cells.pop()
    errors = [
        c.source[:60]
        for c in nb.cells + [stills_cell]
        if c.cell_type == "code" and any(o.output_type == "error" for o in c.outputs)
    ]
    if errors:
        raise SystemExit(f"{name}: cells raised errors: {errors}")
    stills = json.loads("".join(o.get("text", "") for o in stills_cell.outputs if o.output_type == "stream"))
    nb = without_solutions(portable(stabilise(nb), stills), name)
    nbformat.write(nb, target)
    return target


def imported_tapeviz():
    """Where ``import tapeviz`` finds the package here, as the lessons' kernel will (same environment)."""
    spec = importlib.util.find_spec("tapeviz")
    return Path(spec.origin).resolve().parent if spec is not None and spec.origin else None


def check_checkout():
    """Stop unless the lessons will run this checkout's tapeviz.

    From a git worktree, ``import tapeviz`` finds whichever checkout the
    environment was installed from (an editable install points at one), so the
    notebooks would silently store another checkout's pictures and player.
    """
    want = (HERE.parent / "tapeviz").resolve()
    found = imported_tapeviz()
    if found != want:
        raise SystemExit(
            f"notebooks/build.py: `import tapeviz` finds {found or 'nothing'}, not this checkout's {want}, so the "
            "lessons would run another copy of tapeviz. Run it with this checkout first on the path: "
            f"PYTHONPATH={HERE.parent} python notebooks/build.py"
        )


def main(argv):
    check_checkout()
    sources = sorted(SRC.glob("[0-9][0-9]_*.py"))
    if argv:
        sources = [s for s in sources if any(s.stem.startswith(prefix) for prefix in argv)]
    for path in sources:
        print(f"building {path.stem} ...", flush=True)
        build(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
