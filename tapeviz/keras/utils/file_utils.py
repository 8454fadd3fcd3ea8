"""Files written all or nothing (tapeviz.core.files): a temporary file beside the target, then ``os.replace``."""

from tapeviz.core.files import write_bytes


def write_text_atomically(path, text):
    """``text`` into ``path`` as UTF-8, all or nothing: never a half-written file."""
    write_bytes(path, text.encode("utf-8"))
