"""Plain-text box tables laid out as Keras 3's ``model.summary()`` prints them.

Keras renders its summary through rich (box style HEAVY_HEAD, one space of
padding, a rule between rows); this writes the same characters with string
formatting so tapeviz needs no rich. The layout rules are rich's: fixed
column widths shrunk evenly to fit the table width, greedy word wrapping,
a word longer than its cell cut with an ellipsis.
"""

import re

_WORD = re.compile(r"\s*\S+\s*")
_ELLIPSIS = "\u2026"


def column_widths(line_length, positions):
    """Each column's width from Keras's relative ``positions`` (cumulative fractions of ``line_length``)."""
    widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    return widths


def _shrink(widths, excess):
    """Take ``excess`` cells from the columns as evenly as possible (rich's ``ratio_reduce``, round-half-even)."""
    result, remaining, count = [], excess, len(widths)
    for width in widths:
        taken = min(width, round(remaining / count))
        result.append(width - taken)
        remaining -= taken
        count -= 1
    return result


def cell_widths(table_width, widths):
    """The text width inside each column once the table (edges and separators included) fits ``table_width``."""
    padded = [w + 2 for w in widths]
    room = max(table_width - (len(widths) + 1), 0)
    if sum(padded) > room:
        padded = _shrink(padded, sum(padded) - room)
    return [max(w - 2, 0) for w in padded]


def _truncate(text, width):
    return text if len(text) <= width else text[: max(width - 1, 0)] + _ELLIPSIS


def wrap(text, width, justify="left"):
    """``text`` broken into lines of exactly ``width`` characters, as rich wraps a table cell."""
    if width <= 0:  # a column squeezed to nothing shows nothing
        return [""]
    lines, line, used = [], "", 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        length = len(word.rstrip())
        if width - used >= length or not line:
            line += word
            used += len(word)
        else:
            lines.append(line)
            line, used = word, len(word)
    lines.append(line)
    out = []
    for line in lines:
        if len(line) > width:  # whitespace past the edge goes first, then the ellipsis
            stripped = line.rstrip()
            line = line[: max(width, len(stripped))]
        if justify == "left":
            out.append(_truncate(line, width).ljust(width))
            continue
        line = _truncate(line.rstrip(), width)
        if justify == "right":
            out.append(line.rjust(width))
        else:  # centre, the odd space on the right
            left = (width - len(line)) // 2
            out.append((" " * left + line).ljust(width))
    return out


def render(header, rows, widths, justify, table_width):
    """The table as lines: heavy header box, a light rule between rows."""
    inner = cell_widths(table_width, widths)

    def rule(left, fill, mid, right):
        return left + mid.join(fill * (w + 2) for w in inner) + right

    def row_lines(cells, bar, bottom=False):
        wrapped = [wrap(str(cell), w, j) for cell, w, j in zip(cells, inner, justify)]
        height = max(len(lines) for lines in wrapped)
        # rich sets header cells on the bottom line of a wrapped header, body cells at the top
        padded = [
            ([" " * w] * (height - len(lines)) + lines) if bottom else (lines + [" " * w] * (height - len(lines)))
            for lines, w in zip(wrapped, inner)
        ]
        return [bar + bar.join(f" {cell_lines[i]} " for cell_lines in padded) + bar for i in range(height)]

    lines = [rule("┏", "━", "┳", "┓"), *row_lines(header, "┃", bottom=True), rule("┡", "━", "╇", "┩")]
    for index, cells in enumerate(rows):
        if index:
            lines.append(rule("├", "─", "┼", "┤"))
        lines += row_lines(cells, "│")
    lines.append(rule("└", "─", "┴", "┘"))
    return lines


def readable_bytes(size):
    """``1234.0`` -> ``'1.21 KB'``: Keras's memory figure (powers of 1024, two decimals)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"
