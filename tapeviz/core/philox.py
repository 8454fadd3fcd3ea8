"""TensorFlow's Philox-4x32-10 counter-based generator and its distributions, on NumPy.

One code path for every random number tapeviz draws: ``tf.random.*``, the
``stateless_*`` ops, ``tf.random.Generator``, ``tf.data`` shuffles and
Keras's seeded draws all come here, so a seeded program gives TF's numbers.

A stream is a ``Philox(key, counter)``: a 64-bit key and a 128-bit counter.
Block ``i`` of the stream is the Philox function of ``counter + i`` under
the key: four uint32 words. The distributions read blocks as TF's
``random_distributions.h`` does (everything vectorised over blocks):

- uniform floats: 23 (float32), 52 (float64) or 10 (float16) random mantissa
  bits under exponent 0, minus one: values in [0, 1);
- uniform ints: ``lo + bits % (hi - lo)``, full-range ints: the raw bits;
- normals: Box-Muller on pairs of uniform floats;
- truncated normals: each group of outputs has its own stretch of 256
  blocks and keeps the Box-Muller values with ``|x| < 2``, in order.

Box-Muller needs ``log``, ``sqrt`` and ``sin``/``cos``. For float32 (and
float16, drawn in float32) they are glibc's float32 algorithms, as TF's
kernel calls them (``tapeviz.core.libm32``): TF's values bit for bit. For
float64 they are NumPy's, which agree with glibc's double functions but
for about one value in 600, one ulp apart.
"""

import dataclasses

import numpy as np

from tapeviz.core import libm32

__all__ = [
    "Philox",
    "blocks",
    "blocks_at",
    "uniform",
    "uniform_int",
    "full_int",
    "normal",
    "truncated_normal",
    "key_counter_from_seed_pair",
    "permutation",
    "swaps_order",
    "categorical",
    "words",
    "buffer_shuffle",
    "RESERVED_BLOCKS_PER_VALUE",
]

_MASK32 = 0xFFFFFFFF
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # key schedule (golden ratio, sqrt(3) - 1)
_ROUNDS = 10

RESERVED_BLOCKS_PER_VALUE = 256  # TF's stateful ops move the counter this far per value drawn


def _words(value, count):
    """``value`` (a non-negative int) as ``count`` uint32 words, low word first."""
    return tuple((value >> (32 * i)) & _MASK32 for i in range(count))


@dataclasses.dataclass(frozen=True)
class Philox:
    """A Philox stream: a 64-bit ``key`` and a 128-bit ``counter`` (Python ints)."""

    key: int
    counter: int = 0

    @classmethod
    def from_seeds(cls, seed, seed2):
        """TF's ``PhiloxRandom(seed, seed2)``: the key is ``seed``, the counter's high half ``seed2``."""
        return cls(int(seed) % (1 << 64), (int(seed2) % (1 << 64)) << 64)

    def skip(self, count):
        """The stream ``count`` blocks further on (the counter wraps at 2**128, as TF's)."""
        return Philox(self.key, (self.counter + int(count)) % (1 << 128))

    def first_block(self):
        """Block 0 as four Python ints."""
        return tuple(int(w) for w in blocks(self, 1)[0])


def blocks(stream, count, start=0):
    """Blocks ``start .. start + count - 1`` of ``stream``: a (count, 4) uint32 array."""
    return blocks_at(stream, np.arange(count, dtype=np.uint64) + np.uint64(start))


def blocks_at(stream, offsets):
    """The blocks at ``offsets`` (uint64 array, any shape) past the stream's counter: shape + (4,) uint32."""
    offsets = np.asarray(offsets, np.uint64)
    flat = offsets.reshape(-1)
    out = np.empty((flat.size, 4), np.uint32)
    for start in range(0, flat.size, _CHUNK):  # chunks that stay in cache: several times faster than one pass
        out[start : start + _CHUNK] = _rounds(stream, flat[start : start + _CHUNK])
    return out.reshape(offsets.shape + (4,))


_CHUNK = 1 << 15


def _rounds(stream, offsets):
    """Philox-4x32-10 of ``counter + offsets`` under the stream's key, vectorised over the offsets."""
    low = np.uint64(stream.counter & ((1 << 64) - 1)) + offsets  # wraps silently: the carry is found below
    carry = (low < offsets).astype(np.uint64)
    high = np.uint64(stream.counter >> 64) + carry
    mask, shift = np.uint64(_MASK32), np.uint64(32)
    c = [low & mask, low >> shift, high & mask, high >> shift]
    k0, k1 = _words(stream.key, 2)
    for round_index in range(_ROUNDS):
        p0 = _M0 * c[0]
        p1 = _M1 * c[2]
        c = [(p1 >> shift) ^ c[1] ^ np.uint64(k0), p1 & mask, (p0 >> shift) ^ c[3] ^ np.uint64(k1), p0 & mask]
        if round_index < _ROUNDS - 1:
            k0, k1 = (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32
    return np.stack(c, axis=-1)


def key_counter_from_seed_pair(seed0, seed1):
    """The stream a stateless op's seed ``[seed0, seed1]`` names (TF scrambles it with one Philox block)."""
    counter = (int(seed0) % (1 << 64)) | ((int(seed1) % (1 << 64)) << 64)
    mix = Philox(0x02461E29_3EC8F720, counter).first_block()
    return Philox(mix[0] | (mix[1] << 32), (mix[2] | (mix[3] << 32)) << 64)


# -- how many values one block makes, per dtype -------------------------------------------------


def _per_block(dtype):
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _flat_blocks(stream, n, per_block):
    """Enough blocks for ``n`` values at ``per_block`` values each, flattened to uint32 words."""
    return blocks(stream, -(-n // per_block)).reshape(-1)


def _unit_float32(words):
    """uint32 words -> float32 in [0, 1): 23 random mantissa bits (TF's Uint32ToFloat)."""
    return ((words & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def _unit_float16(words):
    """uint32 words -> float16 in [0, 1): the low 10 bits as mantissa (TF's Uint16ToHalf)."""
    bits = ((words & np.uint32(0x3FF)) | np.uint32(0x3C00)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def _unit_float64(hi_words, lo_words):
    """Pairs of uint32 words -> float64 in [0, 1): 20 + 32 mantissa bits (TF's Uint64ToDouble)."""
    bits = ((hi_words.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | lo_words.astype(np.uint64)
    return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _bits64(words):
    """Pairs of uint32 words (low word first) as uint64."""
    return words[0::2].astype(np.uint64) | (words[1::2].astype(np.uint64) << np.uint64(32))


def uniform(stream, n, dtype):
    """``n`` uniform values in [0, 1) of a float ``dtype`` (float16, float32, float64)."""
    dtype = np.dtype(dtype)
    words = _flat_blocks(stream, n, _per_block(dtype))
    if dtype == np.float64:
        return _unit_float64(words[0::2], words[1::2])[:n]
    if dtype == np.float16:
        return _unit_float16(words)[:n]
    return _unit_float32(words)[:n].astype(dtype)


def uniform_int(stream, n, low, high, dtype):
    """``n`` ints in [low, high) (``low``/``high`` broadcastable scalars), as TF: ``low + bits % range``."""
    dtype = np.dtype(dtype)
    words = _flat_blocks(stream, n, _per_block(dtype))
    if dtype.itemsize == 8:
        span = np.asarray(high, np.int64).astype(np.uint64) - np.asarray(low, np.int64).astype(np.uint64)
        offset = (_bits64(words)[:n] % span).astype(np.int64)
        return (np.asarray(low, np.int64) + offset).astype(dtype)
    span = np.asarray(high, np.int64).astype(np.uint32) - np.asarray(low, np.int64).astype(np.uint32)
    offset = (words[:n] % span).astype(np.int32)
    return (np.asarray(low).astype(np.int32) + offset).astype(dtype)


def full_int(stream, n, dtype):
    """``n`` ints over the whole range of ``dtype`` (the raw random bits)."""
    dtype = np.dtype(dtype)
    words = _flat_blocks(stream, n, _per_block(dtype))
    if dtype.itemsize == 8:
        return _bits64(words)[:n].view(np.uint64).astype(np.uint64).view(dtype)
    return words[:n].view(dtype)


def _box_muller32(words):
    """TF's BoxMullerFloat on consecutive word pairs: two float32 normals per pair, interleaved.

    ``log`` and ``sincos`` are glibc's float32 ones (``libm32``), as TF's
    kernel calls them, so the values are TF's bit for bit.
    """
    out = np.empty(words.shape[0], np.float32)
    for start in range(0, words.shape[0], 2 * _CHUNK):  # in chunks that stay in cache
        part = words[start : start + 2 * _CHUNK]
        u1 = np.maximum(_unit_float32(part[0::2]), np.float32(1.0e-7))
        angle = (2.0 * np.pi * _unit_float32(part[1::2]).astype(np.float64)).astype(np.float32)
        radius = np.sqrt(np.float32(-2.0) * libm32.logf(u1))
        sin, cos = libm32.sincosf(angle)
        out[start : start + 2 * _CHUNK : 2] = sin * radius
        out[start + 1 : start + 2 * _CHUNK : 2] = cos * radius
    return out


def _box_muller64(words):
    """TF's BoxMullerDouble on consecutive groups of four words: two float64 normals per group."""
    u1 = np.maximum(_unit_float64(words[0::4], words[1::4]), 1.0e-7)
    angle = 2.0 * np.pi * _unit_float64(words[2::4], words[3::4])
    radius = np.sqrt(-2.0 * np.log(u1))
    out = np.empty(words.shape[0] // 2, np.float64)
    out[0::2] = np.sin(angle) * radius
    out[1::2] = np.cos(angle) * radius
    return out


def normal(stream, n, dtype):
    """``n`` standard normal values of a float ``dtype`` (Box-Muller, as TF)."""
    dtype = np.dtype(dtype)
    words = _flat_blocks(stream, n, _per_block(dtype))
    if dtype == np.float64:
        return _box_muller64(words)[:n]
    return _box_muller32(words)[:n].astype(dtype)


def truncated_normal(stream, n, dtype):
    """``n`` standard normal values with ``|x| < 2``, as TF's TruncatedNormalDistribution.

    Output group ``g`` (4 values; 2 for float64) reads the single words of the
    stream from block ``g * 256`` on (128 for float64), turns them into
    Box-Muller values in order and keeps the first ones inside the cut.
    """
    dtype = np.dtype(dtype)
    size = _per_block(dtype)
    skip = size * RESERVED_BLOCKS_PER_VALUE // 4
    groups = -(-n // size)
    out = np.empty((groups, size), dtype)
    todo = np.arange(groups)
    depth = 2  # blocks per group in the first round: ~95% of values are kept, so nearly every group is done
    first = np.zeros(groups, np.int64)  # the next block each group reads
    found = np.zeros(groups, np.int64)
    while todo.size:
        index = (todo[:, None] * skip + first[todo][:, None] + np.arange(depth)[None, :]).reshape(-1)
        words = blocks_at(stream, index.astype(np.uint64)).reshape(todo.size, depth * 4)
        if dtype == np.float64:
            values = _box_muller64(words.reshape(-1)).reshape(todo.size, -1)
        else:
            values = _box_muller32(words.reshape(-1)).reshape(todo.size, -1)
        kept = np.abs(values) < 2.0
        rank = np.cumsum(kept, axis=1) - 1 + found[todo][:, None]
        take = kept & (rank < size)
        rows, cols = np.nonzero(take)
        out[todo[rows], rank[rows, cols]] = values[rows, cols].astype(dtype)
        found[todo] = np.minimum(found[todo] + kept.sum(axis=1), size)
        first[todo] += depth
        todo = todo[found[todo] < size]
        depth = 1  # the few groups left need a value or two more
    return out.reshape(-1)[:n]


def permutation(stream, size):
    """TF's RandomShuffle order of ``size`` items: Fisher-Yates swaps ``i <-> i + word_i % (size - i)``."""
    if size >= 1 << 32:
        raise ValueError("tapeviz shuffles fewer than 2**32 items (TF switches to 64-bit draws there).")
    if size < 2:
        return np.arange(size)
    words = blocks(stream, -(-(size - 1) // 4)).reshape(-1)[: size - 1]
    return swaps_order(np.arange(size - 1) + words % np.arange(size, 1, -1, dtype=np.uint32), size)


def swaps_order(targets, size):
    """The order left by swapping position ``i`` with ``targets[i]`` (>= i) for i = 0, 1, ..., without a loop.

    Position ``i`` is final after step ``i``, and takes the item at
    ``targets[i]`` then. That item is the one the last earlier step aimed at
    the same place carried there (or the place's own, if none did), and what
    a step carries is, by the same rule, what stood at its own place: a chain
    of "last earlier step aiming here", followed to its start by pointer
    jumping (log steps of array indexing).
    """
    targets = np.asarray(targets, np.int64)
    steps = np.arange(size - 1)
    by_target = np.lexsort((steps, targets))  # steps grouped by target, in step order
    sorted_targets = targets[by_target]
    starts_group = np.ones(size - 1, bool)
    starts_group[1:] = sorted_targets[1:] != sorted_targets[:-1]
    previous = np.full(size - 1, -1)  # the last earlier step with the same target
    previous[by_target[~starts_group]] = by_target[np.flatnonzero(~starts_group) - 1]
    ends_group = np.ones(size - 1, bool)
    ends_group[:-1] = starts_group[1:]
    aimed_here = np.full(size, -1)  # per place: the last step aiming at it (a place's own step aims at or past it)
    aimed_here[sorted_targets[ends_group]] = by_target[ends_group]
    own = aimed_here[: size - 1] == steps
    aimed_here[: size - 1][own] = previous[steps[own]]
    origin = np.where(aimed_here >= 0, aimed_here, np.arange(size))
    while True:  # follow each chain to the place whose own item it carries
        further = origin[origin]
        if np.array_equal(further, origin):
            break
        origin = further
    order = np.empty(size, np.int64)
    carried = np.where(previous >= 0, origin[np.maximum(previous, 0)], targets)
    order[: size - 1] = np.where(targets != steps, carried, origin[: size - 1])
    order[size - 1] = origin[size - 1]
    return order


def categorical(stream, logits, num_samples):
    """TF's Multinomial on the CPU: per row, ``num_samples`` classes drawn from softmax(row) (int64, [rows, n]).

    As TF: an unnormalised running total of ``exp(logit - max)`` over the
    finite logits, one uniform float64 per sample (two words each, rows in
    turn) times the total, and the first class whose running total exceeds it.
    """
    logits = np.asarray(logits)
    rows, classes = logits.shape
    finite = np.isfinite(logits)
    top = np.where(finite, logits, -np.inf).max(axis=1, initial=np.finfo(logits.dtype).min)
    weights = np.where(finite, np.exp(logits.astype(np.float64) - top.astype(np.float64)[:, None]), 0.0)
    cdf = np.cumsum(weights, axis=1)
    words = _flat_blocks(stream, rows * num_samples * 2, 4)[: rows * num_samples * 2]
    targets = (_unit_float64(words[0::2], words[1::2]).reshape(rows, num_samples)) * cdf[:, -1:]
    return (cdf[:, None, :] <= targets[:, :, None]).sum(axis=2).astype(np.int64)


def words(stream, chunk=256):
    """The stream's uint32 words one by one, as TF's SingleSampleAdapter reads them (drawn ``chunk`` blocks at a time)."""
    start = 0
    while True:
        yield from blocks(stream, chunk, start).reshape(-1).tolist()
        start += chunk


def buffer_shuffle(source, buffer_size, stream):
    """TF's ShuffleDataset order: items of ``source`` through a circular buffer of ``buffer_size``.

    As TF's iterator: keep the buffer full, emit the item at a random offset
    (a word modulo the items held) from the oldest slot, and move the oldest
    item into the emptied slot.
    """
    draw = words(stream)
    buffer = [None] * buffer_size
    start = end = 0
    source = iter(source)
    exhausted = False
    while True:
        while not exhausted and end - start < buffer_size:
            item = next(source, _END)
            if item is _END:
                exhausted = True
            else:
                buffer[end % buffer_size] = item
                end += 1
        if end == start:
            return
        index = (start + next(draw) % (end - start)) % buffer_size
        yield buffer[index]
        buffer[index] = buffer[start % buffer_size]
        buffer[start % buffer_size] = None
        start += 1


_END = object()
