"""The GIF rasteriser: each frame drawn with Pillow on the laid-out PNG, then written frame by frame.

Pillow is imported only here, inside the functions that draw; the frames are
made one at a time by a generator and appended by :class:`~tapeviz.viz.gif.GifWriter`,
so memory stays one frame whatever the length.
"""

from tapeviz.viz import card as cards
from tapeviz.viz import render
from tapeviz.viz.gif import GifWriter
from tapeviz.viz.svg_frames import badge_lines, svg_translate


def _font(size):
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "Arial.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


_PALETTE = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "highlight": (245, 158, 11),
    "badge": (254, 226, 226),
    "badge_edge": (185, 28, 28),
    "badge_text": (153, 27, 27),
    "flow": (220, 38, 38),
    "link": (124, 58, 237),
}


def _rgb(colour):
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def gif_images(animation, text_lines=3, max_size=(960, 720)):
    """The frames as Pillow images in one shared palette, made one at a time (a generator).

    A picture larger than ``max_size`` is shown through a window of that size
    that follows the highlighted node, as the HTML player scrolls to it.
    """
    import io

    from PIL import Image, ImageDraw

    animation.base_svg  # noqa: B018 - settles the layout (a wide picture is laid out again) before drawing it
    png = render.run_dot(animation.dot.replace("digraph tape {", "digraph tape {\n  graph [dpi=72]", 1), "png")
    rgb = Image.open(io.BytesIO(png)).convert("RGB")
    # One palette for every frame: the picture's colours plus ours, so frames need no quantising.
    colours = dict(
        _PALETTE, **{key: _rgb(animation.style[key]) for key in ("badge", "badge_edge", "badge_text", "flow")}
    )
    reserved = list(colours.values())
    base = rgb.quantize(colors=256 - len(reserved), dither=Image.Dither.NONE)
    palette = base.getpalette()[: 3 * (256 - len(reserved))]
    palette += [0] * (3 * (256 - len(reserved)) - len(palette))
    palette += [c for rgb_ in reserved for c in rgb_]
    base.putpalette(palette)
    ink = {name: 256 - len(reserved) + i for i, name in enumerate(colours)}
    dx, dy = svg_translate(animation.base_svg)
    font, small = _font(13), _font(11)
    top = 8 + 16 * (1 + text_lines)
    view_w, view_h = min(base.width, max_size[0]), min(base.height, max_size[1])
    width = max(view_w, 640)
    origin = [0, 0]  # the window's top-left corner in the picture

    def follow(box_):
        cx, cy = (box_[0] + box_[2]) / 2, (box_[1] + box_[3]) / 2
        for axis, centre, span, full in ((0, cx, view_w, base.width), (1, cy, view_h, base.height)):
            if not origin[axis] + 0.2 * span <= centre <= origin[axis] + 0.8 * span:
                origin[axis] = int(min(max(0, centre - span / 2), full - span))

    sprites = {}  # label -> its drawn badge: text is drawn once, not once per frame

    def sprite(label, is_badge):
        key = (label, is_badge)
        if key not in sprites:
            probe = ImageDraw.Draw(blank_probe)
            lines = badge_lines(label) if is_badge else [label]  # a long badge: two lines, as in the SVG
            w = int(max(probe.textlength(line, font=small) for line in lines)) + 9
            h = 16 + 13 * (len(lines) - 1)
            image = Image.new("P", (w, h + 1 if is_badge else 13), ink["white"])
            image.putpalette(palette)
            pen = ImageDraw.Draw(image)
            if is_badge:
                pen.rounded_rectangle((0, 0, w - 1, h), radius=4, fill=ink["badge"], outline=ink["badge_edge"])
                for row, line in enumerate(lines):
                    pen.text((4, 2 + 13 * row), line, fill=ink["badge_text"], font=small)
            else:
                pen.text((3, 0), label, fill=ink["flow"], font=small)
            sprites[key] = image
        return sprites[key]

    blank_probe = Image.new("P", (1, 1))

    def visible(x, y):
        return -200 <= x <= width + 50 and top - 50 <= y <= view_h + top + 50

    for frame, badges, edges in animation.states():
        canvas = Image.new("P", (width, view_h + top + 10), ink["white"])
        canvas.putpalette(palette)
        draw = ImageDraw.Draw(canvas)

        def at(x, y):
            return x + dx - origin[0], y + dy + top - origin[1]

        def box(nid):
            x0, y0, x1, y1 = animation.boxes[nid]
            return (*at(x0, y0), *at(x1, y1))

        if frame.get("node") in animation.boxes:
            x0, y0, x1, y1 = animation.boxes[frame["node"]]
            follow((x0 + dx, y0 + dy, x1 + dx, y1 + dy))
        canvas.paste(base.crop((origin[0], origin[1], origin[0] + view_w, origin[1] + view_h)), (0, top))
        for _backward, _forward, points in animation.routes:
            draw.line([at(x, y) for x, y in points], fill=ink["link"], width=1)
        hidden = set(frame.get("hidden", ()))
        for nid in hidden:
            if nid in animation.boxes:
                x0, y0, x1, y1 = box(nid)
                draw.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), fill=ink["white"])
        for eid in frame.get("flow", ()):
            points = [at(x, y) for x, y in animation.paths.get(eid, ())]
            if len(points) > 1:
                draw.line(points, fill=ink["flow"], width=3)
        for eid in sorted(edges):
            points = animation.paths.get(eid)
            if points:
                mx, my = points[len(points) // 2]
                spot = animation.spots.get(eid, (mx + 3, my - 7))  # the label's corner, as the SVG frames
                if spot is None:  # no clear place for it: not drawn, as in the SVG frames
                    continue
                x, y = at(*spot)
                if visible(x, y):
                    canvas.paste(sprite(edges[eid], False), (int(x), int(y)))
        if frame.get("node") in animation.boxes:
            x0, y0, x1, y1 = box(frame["node"])
            draw.rounded_rectangle((x0 - 4, y0 - 4, x1 + 4, y1 + 4), radius=6, outline=ink["highlight"], width=4)
        for nid in sorted(badges):
            if nid in animation.boxes and nid not in hidden:
                x0, y0, x1, y1 = animation.boxes[nid]
                x, y = at(*animation.spots.get(nid, (x1 + 3, y1 - 16)))
                if visible(x, y):
                    canvas.paste(sprite(badges[nid], True), (int(x), int(y)))
        # the caption and the card on top, over a blank band
        draw.rectangle((0, 0, width, top - 1), fill=ink["white"])
        lines = _wrap(draw, f"step {frame['index']}: {frame['caption']}", font, width - 12)[:2]
        lines += cards.text(frame.get("card"))[: text_lines + 1 - len(lines)]
        for row, content in enumerate(lines):
            draw.text((6, 4 + 16 * row), content, fill=ink["black"], font=font)
        yield canvas


def _wrap(draw, text, font, width):
    lines, line = [], ""
    for word in text.split(" "):
        if line and draw.textlength(line + " " + word, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    return lines


def save_gif(animation, path, duration_ms=900):
    """Write an animated GIF of the frames, made one at a time (Pillow is imported here, and only here)."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ImportError("Saving a GIF needs Pillow: pip install pillow (or tapeviz[viz]).") from None
    images = gif_images(animation)
    first = next(images)
    with GifWriter(path, first.size, duration_ms) as gif:
        gif.add(first)
        for image in images:
            gif.add(image)
    return path
