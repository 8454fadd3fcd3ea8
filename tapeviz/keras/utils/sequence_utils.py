"""``keras.utils.pad_sequences``: ragged sequences to one array."""

import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """Lists of different lengths as one (n, maxlen) array, as Keras 3.

    Shorter ones are filled with ``value`` ('pre': in front, 'post': after);
    longer ones lose their start ('pre') or end ('post'). ``maxlen`` defaults
    to the longest sequence.

    Args:
        sequences: a list of lists (or arrays).
        maxlen: the length to pad or cut to (the longest when None).
        dtype: the result's dtype.
        padding: ``"pre"`` or ``"post"``: where the padding goes.
        truncating: ``"pre"`` or ``"post"``: which end is cut.
        value: the padding value.

    Returns:
        A NumPy array (n, maxlen).

    Raises:
        ValueError: something that is not a list of sequences, an unknown ``padding`` or
            ``truncating``, a string ``value`` for a numeric dtype, or samples of different shapes.

    Example:
        >>> import tapeviz as tf
        >>> tf.keras.utils.pad_sequences([[1, 2], [3]], maxlen=3)
        array([[0, 1, 2],
               [0, 0, 3]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    lengths, sample_shape = [], ()
    for x in sequences:
        if not hasattr(x, "__len__"):
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {x}")
        lengths.append(len(x))
        if len(x) and not sample_shape:
            sample_shape = np.asarray(x).shape[1:]
    maxlen = max(lengths, default=0) if maxlen is None else maxlen
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.issubdtype(np.dtype(dtype), np.object_)
    if isinstance(value, str) and dtype is not object and not is_text:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {i} is different from expected shape {sample_shape}"
            )
        if maxlen == 0:
            continue
        if padding == "post":
            out[i, : len(trunc)] = trunc
        else:
            out[i, -len(trunc) :] = trunc
    return out
