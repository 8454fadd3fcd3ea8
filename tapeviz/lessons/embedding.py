"""Exported animations and images shown inline in a notebook."""

import html as _html


def embed_html(page, height=None):
    """Show a whole HTML page (e.g. an exported animation) inline, in an iframe.

    ``page`` is the HTML text, or the path of an ``.html`` file. The page keeps
    its own scripts and styles, so it plays the same inline as in a browser.

    Args:
        page: HTML text, or the path of an HTML file.
        height: the frame's height in pixels.

    Returns:
        An ``Embedded``.
    """
    from tapeviz.viz.export import iframe

    return Embedded(iframe(_read_page(page), height))


def embed_image(path, alt="animation"):
    """Show an image file (a GIF the player saved, a PNG) inline, inside the notebook itself.

    The picture is written into the HTML as a ``data:`` URI, so it shows in any
    notebook viewer, also before the notebook is run (JupyterLab keeps such
    images when it sanitizes an untrusted notebook; it drops iframes).

    Args:
        path: the image file.
        alt: the text for readers who cannot see it.

    Returns:
        An ``Embedded``.
    """
    import base64
    import mimetypes

    kind = mimetypes.guess_type(str(path))[0] or "image/png"
    with open(path, "rb") as handle:
        data = base64.b64encode(handle.read()).decode("ascii")
    return Embedded(
        f'<img src="data:{kind};base64,{data}" alt="{_html.escape(alt)}" style="max-width:100%">', f"<{alt}: {path}>"
    )


class Embedded:
    """HTML shown as is in a notebook (``_repr_html_``); its text form says what it is.

    Args:
        html: the HTML.
        text: what the text form says.
    """

    def __init__(self, html, text="<an embedded HTML page: open the notebook in Jupyter, or the docs, to see it play>"):
        self.html = html
        self.text = text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text


def _read_page(page):
    text = str(page)
    if not text.lstrip().startswith("<") and text.endswith((".html", ".htm")):
        with open(text, encoding="utf-8") as handle:
            return handle.read()
    return text
