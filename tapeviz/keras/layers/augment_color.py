"""Keras 3's colour augmentation layers: RandomContrast, RandomBrightness, RandomGrayscale, RandomInvert,
Solarization.

Each draws its factors per image from the layer's SeedGenerator (as Keras 3)
and clip the result to ``value_range``; at inference images pass through.
"""

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import AugmentationLayer

__all__ = ["RandomContrast", "RandomBrightness", "RandomGrayscale", "RandomInvert", "Solarization"]


def _factor_shape(images):
    return (images.shape[0], 1, 1, 1) if images.ndim == 4 else (1, 1, 1)


class RandomContrast(AugmentationLayer):
    """Scale each image's distance from its per-channel mean by a random factor at training.

    ``factor`` in [0, 1] (or a pair): Keras 3.15 draws the scale from
    [1 - lower, 1 + upper], where a single number f gives lower = 0, upper = f.
    The result is clipped to ``value_range`` (default (0, 255)).

    Args:
        factor: a number in [0, 1] or a pair (see above).
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, seed=seed, **kwargs)
        self.value_range = value_range

    def augment(self, images, training):
        if not training:
            return images
        return self.transform(images, self.random_transformation(images))

    def random_transformation(self, images, seed=None):
        return keras_random.uniform(
            _factor_shape(images),
            minval=1.0 - self.factor[0],
            maxval=1.0 + self.factor[1],
            seed=self.seed_or_generator(seed),
            dtype=self._compute_dtype,
        )

    def transform(self, images, scale):
        """``images`` with each one's contrast scaled by what ``random_transformation`` drew.

        Args:
            images: the images.
            scale: the per-image contrast factors.

        Returns:
            The transformed images, clipped to ``value_range``.
        """
        mean = ops.mean(ops.mean(images, axis=-3, keepdims=True), axis=-2, keepdims=True)
        return ops.clip((images - mean) * scale + mean, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class RandomBrightness(AugmentationLayer):
    """Add a random delta, ``factor`` times the width of ``value_range``, to each image at training.

    ``factor`` in [-1, 1] (a number f means [-f, f], or a pair); the result
    is clipped to ``value_range`` (default (0, 255)).

    Args:
        factor: a number in [-1, 1] or a pair (see above).
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``value_range`` that is not two numbers.
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
        return self.transform(images, self.random_transformation(images))

    def random_transformation(self, images, seed=None):
        delta = keras_random.uniform(
            _factor_shape(images), minval=self.factor[0], maxval=self.factor[1], seed=self.seed_or_generator(seed)
        )
        return delta * (self.value_range[1] - self.value_range[0])

    def transform(self, images, delta):
        """``images`` brightened by what ``random_transformation`` drew.

        Args:
            images: the images.
            delta: the per-image amounts to add.

        Returns:
            The transformed images, clipped to ``value_range``.
        """
        return ops.clip(images + ops.cast(delta, images.dtype), self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class RandomGrayscale(AugmentationLayer):
    """Turn each image grey (its luma in every channel) with probability ``factor`` at training.

    As Keras 3, the coin is drawn on every call, at inference too (the seed moves on), and used at training.

    Args:
        factor: the probability, in [0, 1].
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [0, 1].
    """

    _USE_BASE_FACTOR = False

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.grayscale_factor = factor

    def augment(self, images, training):
        images = self._to_compute_dtype(images)
        draws = keras_random.uniform((self.batch_of(images),), minval=0, maxval=1, seed=self.generator)
        if not training:
            return images
        apply = ops.reshape(ops.less(draws, self.grayscale_factor), (-1, 1, 1, 1))
        if images.ndim == 3:
            apply = apply[0]
        return ops.where(apply, ops.image.rgb_to_grayscale(images), images)

    def get_config(self):
        return {**super().get_config(), "factor": self.grayscale_factor}


class RandomInvert(AugmentationLayer):
    """Replace each image by ``value_range[1] - image`` with a random probability drawn from ``factor``.

    Args:
        factor: the probability (or a range it is drawn from).
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(factor=factor, seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range

    def random_transformation(self, images, seed=None):
        batch = (self.batch_of(images),)
        probability = keras_random.uniform(
            batch, minval=self.factor[0], maxval=self.factor[1], seed=self.seed_or_generator(seed)
        )
        threshold = keras_random.uniform(batch, minval=0, maxval=1, seed=self.seed_or_generator(seed))
        return ops.less(threshold, probability)

    def transform(self, images, apply):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            apply: which images to invert, as ``random_transformation`` drew them.

        Returns:
            The transformed images.
        """
        apply = ops.reshape(apply, (-1, 1, 1, 1))
        if images.ndim == 3:
            apply = apply[0]
        return ops.where(apply, self.value_range[1] - images, images)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class Solarization(AugmentationLayer):
    """Add a random ``addition_factor`` x 255 to each image, then invert the values above a random
    ``threshold_factor`` x 255 (both on the (0, 255) scale, mapped from ``value_range``).

    Args:
        addition_factor: a fraction (or pair) of 255 to add.
        threshold_factor: a fraction (or pair) of 255 above which values are inverted.
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``value_range`` that is not two numbers.
    """

    _USE_BASE_FACTOR = False
    _MESSAGE = (
        "The `addition_factor` and `threshold_factor` arguments should be a number (or a list of two numbers) "
        "in the range [0, 1]. "
    )

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = self._unit_range(addition_factor, "addition_factor")
        self.threshold_factor = self._unit_range(threshold_factor, "threshold_factor")
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(
                f"The `value_range` argument should be a list of two numbers. Received: value_range={value_range}"
            )
        self.value_range = sorted(value_range)

    def _unit_range(self, factor, name):
        values = list(factor) if isinstance(factor, (tuple, list)) else [factor]
        if isinstance(factor, (tuple, list)) and len(values) != 2:
            raise ValueError(self._MESSAGE + f"Received: {name}={factor}")
        for value in values:
            if not isinstance(value, (int, float)) or value > 1.0 or value < 0:
                raise ValueError(self._MESSAGE + f"Received: input_number={value}")
        return tuple(sorted(values)) if len(values) == 2 else (0, factor)

    def _rescale(self, images, source, target):
        if tuple(source) == tuple(target):
            return images
        unit = (images - float(source[0])) / (float(source[1]) - float(source[0]))
        return unit * (float(target[1]) - float(target[0])) + float(target[0])

    def random_transformation(self, images, seed=None):
        shape = (images.shape[0], 1, 1, 1) if images.ndim == 4 else (1, 1, 1)
        dtype = self._compute_dtype
        low, high = self.addition_factor
        additions = keras_random.uniform(
            shape, minval=low, maxval=high * 255, seed=self.seed_or_generator(seed), dtype=dtype
        )
        low, high = self.threshold_factor
        thresholds = keras_random.uniform(
            shape, minval=low, maxval=high * 255, seed=self.seed_or_generator(seed), dtype=dtype
        )
        return additions, thresholds

    def transform(self, images, drawn):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            drawn: the additions and thresholds ``random_transformation`` drew.

        Returns:
            The transformed images.
        """
        additions, thresholds = drawn
        results = ops.clip(self._rescale(images, self.value_range, (0, 255)) + additions, 0, 255)
        results = ops.where(ops.less(results, thresholds), results, 255 - results)
        return self._rescale(results, (0, 255), self.value_range)

    def get_config(self):
        return {
            **super().get_config(),
            "addition_factor": self.addition_factor,
            "threshold_factor": self.threshold_factor,
            "value_range": self.value_range,
        }
