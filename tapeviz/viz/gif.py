"""An animated GIF written frame by frame, so memory stays one frame whatever the length.

Pillow's own multi-frame writer keeps every frame until the end (to merge
identical ones); a 500-step sweep then holds gigabytes. Here each frame is
compared with the previous one, only the changed rectangle is encoded (by
Pillow, as a one-frame GIF in memory) and its image block is appended to the
file with its offset, its own colour table and its delay. The result is a
standard GIF89a that loops.
"""

import contextlib
import io
import struct

import numpy as np

from tapeviz.core.files import atomic_write


class GifWriter:
    """``with GifWriter(path, (w, h), delay_ms) as gif: gif.add(image)`` for each frame."""

    def __init__(self, path, size, delay_ms=900):
        self.path, self.size = path, size
        self.delay = max(2, int(round(delay_ms / 10)))  # GIF delays are in 1/100 s
        self.previous = None
        self.count = 0
        self.handle = None
        self._closing = None

    def __enter__(self):
        # all or nothing: the GIF appears at its path only once its last frame is written
        self._closing = contextlib.ExitStack()
        self.handle = self._closing.enter_context(atomic_write(self.path))
        width, height = self.size
        self.handle.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0, 0, 0))
        # NETSCAPE2.0: loop forever
        self.handle.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.handle.write(b"\x3b")
        return self._closing.__exit__(*exc)

    def add(self, image):
        """Append one frame (an image of the writer's size, any mode Pillow can save as GIF)."""
        if image.size != tuple(self.size):
            raise ValueError(f"GIF frames must all be {self.size}, got {image.size}.")
        pixels = np.asarray(image)
        box = (0, 0, *self.size) if self.previous is None else _changed(self.previous, pixels)
        self.previous = pixels
        if box is None:
            box = (0, 0, 1, 1)  # nothing changed: a one-pixel frame keeps the timing
        left, top, right, bottom = box
        self.handle.write(b"\x21\xf9\x04\x04" + struct.pack("<H", self.delay) + b"\x00\x00")
        self.handle.write(_image_block(image.crop(box), left, top))
        self.count += 1


def _changed(before, after):
    """(left, top, right, bottom) of the pixels that differ, or None."""
    diff = before != after
    if diff.ndim == 3:
        diff = diff.any(axis=2)
    rows = np.flatnonzero(diff.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(diff[rows[0] : rows[-1] + 1].any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _image_block(image, left, top):
    """The image descriptor, colour table and LZW data of ``image``, placed at (left, top)."""
    buffer = io.BytesIO()
    image.save(buffer, format="GIF")
    data = buffer.getvalue()
    packed = data[10]
    table = 3 * 2 ** ((packed & 7) + 1) if packed & 0x80 else 0
    colours = data[13 : 13 + table]
    position = 13 + table
    while data[position] == 0x21:  # skip Pillow's extensions
        position += 2
        while data[position]:
            position += data[position] + 1
        position += 1
    if data[position] != 0x2C:
        raise ValueError("unexpected GIF layout from Pillow")
    width, height, local = struct.unpack("<HHB", data[position + 5 : position + 10])
    position += 10
    if local & 0x80:  # Pillow used a local table: take it instead
        size = 3 * 2 ** ((local & 7) + 1)
        colours, position, packed = data[position : position + size], position + size, local
    end = len(data) - 1  # the trailer
    flags = ((0x80 | (packed & 7)) if colours else 0) | (local & 0x40)  # keep Pillow's interlacing
    return b"\x2c" + struct.pack("<HHHHB", left, top, width, height, flags) + colours + data[position:end]
