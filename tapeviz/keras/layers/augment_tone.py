"""Keras 3's tone layers: RandomSharpness, RandomPosterization (random), AutoContrast, Equalization (fixed).

RandomSharpness and RandomPosterization draw a factor per image on every
call (at inference too, as Keras 3) and change the images at training.
AutoContrast stretches every call, at inference too (as Keras 3.15);
Equalization equalizes at training only. Posterization and Equalization
go through integers (uint8 bits, a histogram), so they are computed on the
host and have no gradient (as in Keras). Images only: Keras's dict inputs
(labels, boxes, masks) are not taken.
"""

import numpy as np

from tapeviz.core.tensor import constant as _constant
from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import BatchAugmentationLayer
from tapeviz.keras.ops.blur import convolve_same

__all__ = ["RandomSharpness", "RandomPosterization", "AutoContrast", "Equalization"]


class RandomSharpness(BatchAugmentationLayer):
    """Sharpen (or blur) each image by a random factor at training: Keras's 3x3 smoothing kernel, blended.

    A factor f drawn from ``factor`` gives ``images + (1 - 2 f) (smoothed - images)``, clipped to
    ``value_range``: f = 0.5 keeps the image, below blurs, above sharpens.

    Args:
        factor: a number in [0, 1] or a (lower, upper) pair.
        value_range: the images' (low, high) range.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [0, 1] or a ``value_range`` that is not two numbers.
    """

    _FACTOR_BOUNDS = (0, 1)
    _DRAWS_AT_INFERENCE = True

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = self.check_value_range(value_range)

    def random_transformation(self, images, seed=None):
        return keras_random.uniform(
            (self.batch_of(images),), minval=self.factor[0], maxval=self.factor[1], seed=self.seed_or_generator(seed)
        )

    def transform_batch(self, images, factor):
        """A batch sharpened by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            factor: the per-image factors.

        Returns:
            The transformed batch, clipped to ``value_range``.
        """
        images = ops.cast(images, self._compute_dtype)
        sharpness = ops.reshape(ops.cast(factor * 2, self._compute_dtype), (-1, 1, 1, 1))
        dtype = np.dtype(self._compute_dtype).type
        edge, centre = dtype(1.0 / 13.0), dtype(5.0 / 13.0)
        kernel = np.array([[edge, edge, edge], [edge, centre, edge], [edge, edge, edge]], dtype)
        smoothed = convolve_same(images, kernel)
        images = images + (1.0 - sharpness) * (smoothed - images)
        return ops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class RandomPosterization(BatchAugmentationLayer):
    """Keep only the top b bits of each 8-bit value, b drawn per image from ``factor`` (1 to 8), at training.

    Args:
        factor: the bits to keep: a number in [1, 8] (b drawn from [1, factor)) or a (lower, upper) pair.
        value_range: the images' (low, high) range (mapped to [0, 255] for the bits).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [1, 8] or a ``value_range`` that is not two numbers.
    """

    _FACTOR_BOUNDS = (1, 8)
    _MAX_FACTOR = 8
    _DRAWS_AT_INFERENCE = True

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = self.check_value_range(value_range)

    def random_transformation(self, images, seed=None):
        batch = (self.batch_of(images),)
        if self.factor[0] != self.factor[1]:
            bits = keras_random.randint(
                batch, minval=self.factor[0], maxval=self.factor[1], seed=self.seed_or_generator(seed), dtype="uint8"
            ).numpy()
        else:
            bits = np.full(batch, self.factor[0], np.uint8)
        return (self._MAX_FACTOR - bits).astype(np.uint8)

    def transform_batch(self, images, shift):
        """A batch posterized by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            shift: the per-image number of low bits to drop.

        Returns:
            The transformed batch.
        """
        eight_bit = self.rescale(images, self.value_range, (0, 255), self._compute_dtype).numpy().astype(np.uint8)
        shift = np.asarray(shift, np.uint8).reshape(-1, 1, 1, 1)
        kept = np.left_shift(np.right_shift(eight_bit, shift), shift)
        out = _constant(kept.astype(self._compute_dtype))
        return self.rescale(out, (0, 255), self.value_range, self._compute_dtype)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class AutoContrast(BatchAugmentationLayer):
    """Stretch each channel of each image to the full ``value_range`` (its lowest value to the bottom, its
    highest to the top); a channel of one value is left as it is. Applied on every call, as Keras 3.15
    (which, with ``data_format="channels_first"``, stretches each column over its channels and rows instead).

    Args:
        value_range: the images' (low, high) range.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``value_range`` that is not two numbers.
    """

    _DRAWS = False

    def __init__(self, value_range=(0, 255), data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = self.check_value_range(value_range)

    def augment(self, images, training):
        return self.transform(images, None)

    def random_transformation(self, images, seed=None):
        return None

    def transform_batch(self, images, transformation):
        """A batch with each channel stretched.

        Args:
            images: a 4-D batch.
            transformation: unused (nothing is drawn).

        Returns:
            The stretched batch, in the layer's dtype.
        """
        original = ops.cast(images, self._compute_dtype)
        images = ops.cast(self.rescale(images, self.value_range, (0, 255), self._compute_dtype), self._compute_dtype)
        # Keras reduces axes 1 and 2 of the layout it is given: for channels_first, channels and rows
        axes = (1, 3) if self.data_format == "channels_first" else (1, 2)
        low = ops.min(images, axis=axes, keepdims=True)
        high = ops.max(images, axis=axes, keepdims=True)
        spread = ops.greater(high, low)  # Keras divides by 0 here and keeps the input where that made NaN
        scale = 255.0 / ops.where(spread, high - low, ops.ones_like(high))
        results = ops.clip(images * scale + (-low * scale), 0.0, 255.0)
        results = self.rescale(results, (0, 255), self.value_range, self._compute_dtype)
        return ops.where(spread, results, original)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class Equalization(BatchAugmentationLayer):
    """Equalize each channel's histogram (over the whole batch, as Keras 3) at training.

    Args:
        value_range: the images' (low, high) range.
        bins: the histogram's number of bins.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``value_range`` that is not two numbers.
    """

    _DRAWS = False

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = self.check_value_range(value_range)

    def random_transformation(self, images, seed=None):
        return None

    def transform_batch(self, images, transformation):
        """A batch with each channel equalized.

        Args:
            images: a 4-D batch.
            transformation: unused (nothing is drawn).

        Returns:
            The equalized batch, in the layer's dtype.
        """
        values = ops.cast(images, self._compute_dtype).numpy()
        low, high = self.value_range
        # Keras's `value_range != (0, 255)` compares a list with a tuple: it always rescales (by 1 for (0, 255))
        to_255, back = 255.0 / (high - low), (high - low) / 255.0
        channels = [
            self._equalize(values[..., i] * np.float32(to_255) - np.float32(low * to_255))
            for i in range(values.shape[-1])
        ]
        out = np.stack([c * back + low for c in channels], axis=-1)
        return _constant(out.astype(self._compute_dtype))

    def _equalize(self, channel):
        channel = channel.astype(np.float32)
        bins = self.bins
        index = np.clip((channel * np.float32(bins - 1) / np.float32(255)).astype(np.int32), 0, bins - 1)
        hist = np.bincount(index.ravel(), minlength=bins).astype(np.int32)
        if np.count_nonzero(hist) <= 1:
            return channel.astype(np.float64)
        cdf = np.cumsum(hist, dtype=np.int32)
        cdf_min = cdf[np.nonzero(cdf)[0][0]]
        denominator = cdf[-1] - cdf_min
        denominator = denominator if denominator != 0 else 1
        table = np.clip(np.round(((cdf - cdf_min) * 255) / np.float64(denominator)), 0, 255)
        lookup = np.clip((channel / np.float32(255.0)) * np.float32(bins - 1), 0, bins - 1).astype(np.int32)
        return table[lookup]

    def get_config(self):
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}
