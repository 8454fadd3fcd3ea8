"""Deterministic text for numbers and arrays, and escaping of user text.

Every string the visualizer puts in a picture goes through here, so golden
DOT files stay byte-identical between runs and machines, and user-chosen text
(variable names, scope names) can never break out of a label.
"""

import html
import math
import re

import numpy as np

SMALL = 6  # arrays with at most this many elements are shown in full


def number(x):
    """One number, always formatted the same way: 4 significant digits."""
    if isinstance(x, (bool, np.bool_)):
        return "True" if x else "False"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"  # never "-0": the sign of zero only confuses a reader
    return f"{x:.4g}"


def _nested(items):
    # Python scalars from tolist(): formatting them is far cheaper than NumPy scalars
    if isinstance(items, list):
        return "[" + ", ".join(_nested(item) for item in items) + "]"
    return number(items)


def preview(array, small=SMALL):
    """A short, deterministic summary of an array's values.

    Small arrays are printed in full; larger ones as ``mean/min/max``, with a
    count of non-finite elements when there are any.
    """
    array = np.asarray(array)
    if array.size <= small:
        return _nested(array.tolist())
    if array.dtype.kind == "b":
        return f"{int(array.sum())} of {array.size} True"
    data = array.astype(np.float64, copy=False)
    finite = np.isfinite(data)
    bad = int(array.size - finite.sum())
    if bad == array.size:
        return f"all {bad} non-finite"
    good = data[finite]
    text = f"mean {number(good.mean())}, min {number(good.min())}, max {number(good.max())}"
    if bad:
        text += f", {bad} non-finite"
    return text


def preview_lines(text):
    """A value's preview as the lines a picture writes it on: a summary ``mean a, min b, max c`` as
    ``mean a`` over ``min b, max c`` (half as wide, so a big tensor's node stays narrow), anything else as is."""
    head, sep, rest = text.partition(", min ")
    return [head, "min " + rest] if head.startswith("mean ") and sep else [text]


BADGE_LINE = 32  # characters of one line of a badge


def badge_text(what, value):
    """A gradient's badge: ``dy/dx = 6`` on one line, or, when that is longer than :data:`BADGE_LINE`
    (``d(loss)/d(model/hidden/kernel) = [[-0.04943, 0.4403]]``), what it is, then its value, on two lines
    (``\n`` between them): half as wide, and the value is not cut off."""
    line = f"{what} = {value}"
    if len(line) <= BADGE_LINE:
        return line
    return "\n".join([drawable(what + " ="), *wrap(value, BADGE_LINE + 2)])


def wrap(text, width):
    """``text`` on lines of about ``width`` characters, broken only after ``, `` (a summary's parts, an
    array's elements): never cut, so a badge shows its whole value (a single long piece keeps its line)."""
    lines, line = [], ""
    for piece in re.split(r"(?<=, )", drawable(text)):
        if line and len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    lines.append(line.rstrip())
    return lines


def edge_label(text):
    """A gradient by an edge: a summary by its mean (the card has its min and max), anything else whole."""
    return drawable(preview_lines(text)[0])


def shape_text(shape):
    """``()`` for scalars, ``(2, 3)`` otherwise."""
    return "(" + ", ".join(str(int(n)) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def short_dtype(name):
    """float32 -> f32, int64 -> i64, bool -> bool: labels stay narrow."""
    for long, short in (("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long) :]
    return name


def nbytes_text(n):
    """Bytes in B, KiB, MiB, GiB with one decimal."""
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


# What no picture, SVG or notebook can carry as is: control characters (NUL
# included), lone surrogates (not encodable as UTF-8), XML's non-characters,
# line/paragraph separators and the invisible bidirectional and zero-width
# format characters (which can make a name look like another).
_UNDRAWABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]"
)


def _escape_char(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def drawable(text):
    """``text`` with every character no picture can show written as a visible escape (``\\x00``).

    Idempotent, and the identity on ordinary text (any script, emoji, ...).
    """
    text = str(text)
    return _UNDRAWABLE.sub(_escape_char, text) if _UNDRAWABLE.search(text) else text


def clip(text, limit=40):
    """User text for a label: drawable, and at most ``limit`` characters, ending with an ellipsis
    when cut (before HTML escaping, so entities stay whole; never inside an escape)."""
    text = str(text)
    raw = text[:limit]  # never escape 16 KB to show 40 characters
    shown = drawable(raw)
    if len(shown) <= limit and len(raw) == len(text):
        return shown
    out, used = [], 0
    for char in raw:
        piece = drawable(char)
        if used + len(piece) > limit - 1:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out) + "\u2026"


NAME_LIMIT = 120  # characters of a user's name (a variable's, a scope, a function's) kept in a trace


def short_name(text, limit=NAME_LIMIT):
    """A user's name as pictures and pages keep it: whole up to ``limit`` characters; a longer one
    keeps its start and its end around an ellipsis (``model/encoder/…/kernel``), so a name of
    100,000 characters costs a page no more than one of ``limit``. None stays None."""
    if text is None or len(text) <= limit:
        return text
    tail = (limit - 1) // 3
    return text[: limit - 1 - tail] + "…" + text[len(text) - tail :]


def html_text(text):
    """Escape text for HTML, SVG and graphviz HTML-like labels (quotes included); undrawable
    characters become visible escapes."""
    return html.escape(drawable(text), quote=True)


DOT_STRING_LIMIT = 2000  # characters: Graphviz's scanner rejects a string over 16 KB (UTF-8, escaped)


def dot_string(text, limit=DOT_STRING_LIMIT):
    """A DOT double-quoted string literal of ``text``: drawable, at most ``limit`` characters.

    User text is written as HTML entities (Graphviz reads them in every string and
    writes them back into the SVG), so ``<script>`` or ``"]; a -> b [`` stay text
    and no markup reaches the DOT source; backslashes are doubled (Graphviz reads
    ``\\N``, ``\\l`` ... as escapes). Line breaks stay line breaks.
    """
    lines = str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    text = "\n".join(clip(line, limit) for line in lines)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    text = html.escape(text, quote=False).replace('"', "&quot;").replace("\\", "\\\\").replace("\n", "\\n")
    return '"' + text + '"'


def script_json(text):
    """JSON text made safe inside an HTML ``<script>`` element."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
