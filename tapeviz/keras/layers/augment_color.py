"""Keras 3's colour augmentation layers: RandomContrast and RandomBrightness.

Both draw one factor per image from the layer's SeedGenerator (as Keras 3)
and clip the result to ``value_range``; at inference images pass through.
"""

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import AugmentationLayer

__all__ = ["RandomContrast", "RandomBrightness"]


def _factor_shape(images):
    return (images.shape[0], 1, 1, 1) if images.ndim == 4 else (1, 1, 1)


class RandomContrast(AugmentationLayer):
    """Scale each image's distance from its per-channel mean by a random factor at training.

    ``factor`` in [0, 1] (or a pair): Keras 3.15 draws the scale from
    [1 - lower, 1 + upper], where a single number f gives lower = 0, upper = f.
    The result is clipped to ``value_range`` (default (0, 255)).
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, seed=seed, **kwargs)
        self.value_range = value_range

    def augment(self, images, training):
        if not training:
            return images
        scale = keras_random.uniform(
            _factor_shape(images),
            minval=1.0 - self.factor[0],
            maxval=1.0 + self.factor[1],
            seed=self.generator,
            dtype=self._compute_dtype,
        )
        mean = ops.mean(ops.mean(images, axis=-3, keepdims=True), axis=-2, keepdims=True)
        return ops.clip((images - mean) * scale + mean, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class RandomBrightness(AugmentationLayer):
    """Add a random delta, ``factor`` times the width of ``value_range``, to each image at training.

    ``factor`` in [-1, 1] (a number f means [-f, f], or a pair); the result
    is clipped to ``value_range`` (default (0, 255)).
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, seed=seed, **kwargs)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(
                f"The `value_range` argument should be a list of two numbers. Received: value_range={value_range}"
            )
        self.value_range = sorted(value_range)

    def augment(self, images, training):
        if not training:
            return images
        delta = keras_random.uniform(
            _factor_shape(images), minval=self.factor[0], maxval=self.factor[1], seed=self.generator
        )
        delta = ops.cast(delta * (self.value_range[1] - self.value_range[0]), images.dtype)
        return ops.clip(images + delta, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}
