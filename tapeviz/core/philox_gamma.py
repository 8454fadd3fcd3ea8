"""TF's gamma sampler (``StatelessRandomGammaV3``, ``RandomGamma``) on a Philox stream, on NumPy.

Marsaglia and Tsang's method, as TF's kernel runs it: each output value
has its own stretch of 256 Philox blocks (output ``i`` starts ``256 i``
blocks into the stream), from which it reads double-precision normals
(Box-Muller, two per block) and uniforms (two per block) as it needs
them, each block's pair used last value first; alpha < 1 is boosted by a
further uniform to the power 1 / alpha, alpha == 1 is an exponential. All
arithmetic is in double, as TF's; the value is then rounded to the dtype.
"""

import math

import numpy as np

from tapeviz.core import philox as _philox

__all__ = ["gamma"]


class _Reader:
    """One output value's stretch of the stream: normals and uniforms drawn from it in TF's order."""

    def __init__(self, stream, output_index):
        self.stream = stream.skip(_philox.RESERVED_BLOCKS_PER_VALUE * output_index)
        self.normals, self.uniforms = [], []

    def _next_block(self):
        """The stream at the next unread block (one block: two doubles of either kind)."""
        block, self.stream = self.stream, self.stream.skip(1)
        return block

    def normal(self):
        if not self.normals:
            self.normals = list(_philox.normal(self._next_block(), 2, np.float64))  # TF reads index 1 first
        return float(self.normals.pop())

    def uniform(self):
        if not self.uniforms:
            self.uniforms = list(_philox.uniform(self._next_block(), 2, np.float64))
        return float(self.uniforms.pop())


def _one(reader, alpha):
    if alpha == 1.0:
        return -math.log1p(-reader.uniform())
    below_one = alpha < 1
    d = alpha + (2.0 / 3 if below_one else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    while True:
        x = reader.normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = reader.uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            value = d * v
            if below_one:
                value *= math.pow(reader.uniform(), 1 / alpha)
            return value


def gamma(stream, shape, alpha, dtype):
    """Gamma(alpha, 1) values of ``shape`` (``alpha``'s shape ends ``shape``), as TF's stateless gamma.

    Args:
        stream: the op's Philox stream.
        shape: the output's shape.
        alpha: the concentrations (a number or an array whose shape is the end of ``shape``).
        dtype: the output's float dtype (alpha is read in it, then in double).

    Returns:
        A NumPy array of ``shape`` and ``dtype``.

    Raises:
        ValueError: an ``alpha`` whose shape is not the end of ``shape``.
    """
    dtype = np.dtype(dtype)
    alphas = np.asarray(alpha, dtype)
    shape = tuple(int(n) for n in shape)
    if alphas.ndim and shape[len(shape) - alphas.ndim :] != alphas.shape:
        raise ValueError(f"alpha's shape {alphas.shape} must be the end of the output shape {shape}.")
    flat_alphas = alphas.reshape(-1).astype(np.float64)
    count = int(np.prod(shape, dtype=np.int64))
    per_alpha = count // max(flat_alphas.size, 1)
    out = np.empty(count, np.float64)
    for alpha_index, alpha_value in enumerate(flat_alphas):
        for sample in range(per_alpha):
            reader = _Reader(stream, alpha_index * per_alpha + sample)  # TF skips by the alpha-major index
            out[sample * flat_alphas.size + alpha_index] = _one(reader, float(alpha_value))
    return out.astype(dtype).reshape(shape)
