"""Frames -> files: the entry point that names the modules doing each job.

* :mod:`tapeviz.viz.animation`: the animation model (frames plus the one
  laid-out picture), shared with the ipywidgets player;
* :mod:`tapeviz.viz.svg_frames`: reading Graphviz's SVG and drawing each
  frame's state on it;
* :mod:`tapeviz.viz.html_page`: the self-contained, kernel-free HTML player
  (its script and styles ship as ``tapeviz/viz/static/player.js`` and ``.css``);
* :mod:`tapeviz.viz.gif_frames`: the GIF rasteriser (Pillow, imported only there).

``animate(tape).save_html(path)``, ``.save_gif(path)``, ``.save_svg_frames(prefix)``.
"""

from tapeviz.viz.animation import Animation, animate
from tapeviz.viz.gif_frames import gif_images, save_gif
from tapeviz.viz.html_page import html_player, iframe
from tapeviz.viz.svg_frames import FLOW, FORWARD_STYLE, HIGHLIGHT, LINK, REVERSE_STYLE, frame_svg

__all__ = [
    "Animation",
    "animate",
    "html_player",
    "iframe",
    "save_gif",
    "gif_images",
    "frame_svg",
    "HIGHLIGHT",
    "FLOW",
    "LINK",
    "REVERSE_STYLE",
    "FORWARD_STYLE",
]
