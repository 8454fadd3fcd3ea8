"""Keras masks: which timesteps of a tensor are real (True) and which are padding (False).

Keras 3 keeps a layer output's mask on the tensor (``_keras_mask``); tapeviz
tensors are immutable, so the mask lives in this side table, keyed by the
tensor's identity and dropped with it. ``Layer.__call__`` reads the input's
mask, passes it to ``call(mask=...)`` and records the output's
(``compute_mask``): ``Embedding(mask_zero=True)`` and ``Masking`` make masks,
layers with ``supports_masking`` pass them on, RNN layers use them.
"""

import weakref

__all__ = ["mask_of", "attach"]

_MASKS = {}  # id(tensor) -> (weak reference to the tensor, mask)


def mask_of(tensor):
    """The mask recorded for ``tensor``, or None."""
    entry = _MASKS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def attach(tensor, mask):
    """Record ``mask`` for ``tensor`` (None removes any); forgotten when the tensor is."""
    key = id(tensor)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(tensor, lambda _, key=key: _MASKS.pop(key, None))
    except TypeError:  # not weak-referenceable (a NumPy array): no mask to keep
        return
    _MASKS[key] = (ref, mask)
