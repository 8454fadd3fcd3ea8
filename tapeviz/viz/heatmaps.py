"""Jacobians and Hessians as heatmaps: plain SVG, no plotting library.

``heatmap(tape.jacobian(y, x))`` draws a matrix (a tensor of any rank is
flattened to rows = the output's elements, columns = the input's) on a
diverging scale centred at zero: blue negative, white zero, red positive, so
the sign and the sparsity pattern of a derivative show at a glance. Small
matrices print their values in the cells.
"""

import numpy as np

from tapeviz.viz import format as fmt


def _colour(t):
    """t in [-1, 1] -> blue (-1) .. white (0) .. red (1)."""
    t = float(np.clip(t, -1.0, 1.0))
    blue, red, white = np.array([37, 99, 235]), np.array([220, 38, 38]), np.array([255, 255, 255])
    rgb = white + (red - white) * t if t >= 0 else white + (blue - white) * -t
    return "#" + "".join(f"{int(round(c)):02x}" for c in rgb)


def as_matrix(value, output_rank=None):
    """A 2-D float array from a jacobian/hessian tensor: the first ``output_rank`` axes are rows."""
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value, dtype=np.float64)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    if output_rank is None:
        output_rank = array.ndim // 2
    rows = int(np.prod(array.shape[:output_rank], dtype=np.int64)) if output_rank else 1
    return array.reshape(rows, -1)


class Heatmap:
    """An SVG heatmap of a matrix; shows itself in Jupyter; ``.svg`` is the text."""

    def __init__(self, value, title=None, output_rank=None, cell=None, row_label="output", column_label="input"):
        self.matrix = as_matrix(value, output_rank)
        self.title = title
        self.row_label, self.column_label = row_label, column_label
        rows, cols = self.matrix.shape
        self.cell = cell or max(4, min(36, int(480 / max(rows, cols))))

    @property
    def svg(self):
        m = self.matrix
        rows, cols = m.shape
        c = self.cell
        finite = m[np.isfinite(m)]
        scale = float(np.max(np.abs(finite))) if finite.size else 1.0
        scale = scale or 1.0
        left, top = 60, 34 if self.title else 18
        width, height = left + cols * c + 90, top + rows * c + 30
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica,Arial,sans-serif">',
            '<rect width="100%" height="100%" fill="white"/>',
        ]
        if self.title:
            parts.append(
                f'<text x="{left}" y="16" font-size="13" font-weight="bold">{fmt.html_text(self.title)}</text>'
            )
        show_values = c >= 30
        for i in range(rows):
            for j in range(cols):
                v = m[i, j]
                fill = _colour(v / scale) if np.isfinite(v) else "#fde047"
                parts.append(
                    f'<rect class="cell" x="{left + j * c}" y="{top + i * c}" width="{c}" height="{c}" '
                    f'fill="{fill}" stroke="#e5e7eb" stroke-width="0.5">'
                    f"<title>[{i}, {j}] = {fmt.number(v)}</title></rect>"
                )
                if show_values:
                    ink = "white" if np.isfinite(v) and abs(v) / scale > 0.6 else "#111827"
                    parts.append(
                        f'<text x="{left + j * c + c / 2}" y="{top + i * c + c / 2 + 4}" font-size="10" '
                        f'text-anchor="middle" fill="{ink}">{fmt.html_text(fmt.number(v))}</text>'
                    )
        parts.append(
            f'<text x="{left - 6}" y="{top + rows * c / 2}" font-size="11" text-anchor="end" '
            f'fill="#374151">{fmt.html_text(self.row_label)}</text>'
        )
        parts.append(
            f'<text x="{left + cols * c / 2}" y="{top + rows * c + 18}" font-size="11" text-anchor="middle" '
            f'fill="#374151">{fmt.html_text(self.column_label)}</text>'
        )
        # the colour scale
        x0 = left + cols * c + 16
        for k in range(11):
            t = 1 - k / 5
            parts.append(f'<rect x="{x0}" y="{top + k * 10}" width="12" height="10" fill="{_colour(t)}"/>')
        parts.append(f'<text x="{x0 + 16}" y="{top + 9}" font-size="10">{fmt.html_text(fmt.number(scale))}</text>')
        parts.append(f'<text x="{x0 + 16}" y="{top + 59}" font-size="10">0</text>')
        parts.append(f'<text x="{x0 + 16}" y="{top + 110}" font-size="10">{fmt.html_text(fmt.number(-scale))}</text>')
        parts.append("</svg>")
        return "".join(parts)

    def _repr_svg_(self):
        return self.svg

    def __repr__(self):
        return f"<Heatmap {self.matrix.shape[0]} x {self.matrix.shape[1]}: {fmt.preview(self.matrix)}>"


def heatmap(value, title=None, **options):
    """A Jacobian or Hessian (any tensor or array) drawn as a diverging SVG heatmap."""
    return Heatmap(value, title=title, **options)


STRIP_CELLS = 400  # arrays up to this many elements get a strip on a card; a larger one only its traced element


def strip(values, mark=None, width=160, height=14):
    """A small one-row heatmap of ``values`` (flattened, same diverging scale as :class:`Heatmap`) as SVG text,
    the element at flat index ``mark`` outlined: what an array step's card shows instead of a summary."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = flat[np.isfinite(flat)]
    scale = float(np.max(np.abs(finite))) if finite.size else 1.0
    scale = scale or 1.0
    cell = max(1.0, width / max(1, flat.size))
    total = cell * flat.size
    parts = [
        f'<svg class="tv-strip" xmlns="http://www.w3.org/2000/svg" width="{total + 2:.0f}" height="{height + 2}" '
        f'viewBox="-1 -1 {total + 2:.1f} {height + 2}">'
    ]
    for k, v in enumerate(flat):
        fill = _colour(v / scale) if np.isfinite(v) else "#fde047"
        parts.append(f'<rect x="{k * cell:.1f}" width="{cell:.1f}" height="{height}" fill="{fill}"/>')
    if mark is not None and 0 <= mark < flat.size:
        parts.append(
            f'<rect x="{mark * cell:.1f}" width="{cell:.1f}" height="{height}" fill="none" stroke="#111827" '
            'stroke-width="1.5"/>'
        )
    parts.append("</svg>")
    return "".join(parts)
