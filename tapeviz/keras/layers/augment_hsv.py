"""Keras 3's hue and saturation layers: RandomHue, RandomSaturation, RandomColorDegeneration.

Each draws its per-image factor from the layer's SeedGenerator on every
call (at inference too, as Keras 3: the seed moves on) and changes the
images only at training. Images only: Keras's dict inputs (labels, boxes,
masks, which these layers pass through) are not taken.
"""

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import BatchAugmentationLayer

__all__ = ["RandomHue", "RandomSaturation", "RandomColorDegeneration"]

EPSILON = 1e-7  # keras.config.epsilon()'s default, as Keras's RandomSaturation adds it


class _FactorLayer(BatchAugmentationLayer):
    """A colour layer with a ``factor``, a ``value_range`` and a draw made at every call."""

    _USE_BASE_FACTOR = True
    _DRAWS_AT_INFERENCE = True

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor=factor, seed=seed, data_format=data_format, **kwargs)
        self.value_range = self.check_value_range(value_range)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class RandomHue(_FactorLayer):
    """Turn each image's hue by a random amount at training.

    Keras 3's draws: a coin per image for the direction, then an amount in
    ``factor`` (a number f in [0, 1] means [0, f]); the hue moves by
    direction x amount / 2 of a full turn.

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

    def random_transformation(self, images, seed=None):
        seed = self.seed_or_generator(seed)
        batch = (self.batch_of(images),)
        coin = keras_random.uniform(batch, seed=seed)
        direction = ops.where(ops.greater(coin, 0.5), -ops.ones_like(coin), ops.ones_like(coin))
        amount = keras_random.uniform(batch, minval=self.factor[0], maxval=self.factor[1], seed=seed)
        return direction * amount * 0.5

    def transform_batch(self, images, shift):
        """A batch with each image's hue turned by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            shift: the per-image hue shifts (fractions of a turn).

        Returns:
            The transformed batch in ``value_range``.
        """
        images = self.rescale(ops.cast(images, self._compute_dtype), self.value_range, (0, 1))
        hsv = ops.image.rgb_to_hsv(images)
        hue = hsv[..., 0] + ops.cast(shift, images.dtype)[:, None, None]
        hue = ops.where(ops.greater(hue, 1.0), hue - 1.0, hue)
        hue = ops.where(ops.less(hue, 0.0), hue + 1.0, hue)
        images = ops.clip(ops.image.hsv_to_rgb(ops.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1)), 0, 1)
        return ops.cast(self.rescale(images, (0, 1), self.value_range), self._compute_dtype)


class RandomSaturation(_FactorLayer):
    """Scale each image's saturation by a random factor at training.

    As Keras 3.15: a number f drawn from ``factor`` becomes the scale
    f / (1 - f + epsilon); the images go to HSV as they are (Keras does not
    rescale them to [0, 1] first) and the scaled saturation is clipped to
    ``value_range``.

    Args:
        factor: a number in [-1, 1] or a (lower, upper) pair.
        value_range: the images' (low, high) range.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [-1, 1] or a ``value_range`` that is not two numbers.
    """

    def random_transformation(self, images, seed=None):
        factor = keras_random.uniform(
            (self.batch_of(images),),
            minval=self.factor[0],
            maxval=self.factor[1],
            seed=self.seed_or_generator(seed),
        )
        return factor / (1 - factor + EPSILON)

    def transform_batch(self, images, scale):
        """A batch with each image's saturation scaled by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            scale: the per-image saturation scales.

        Returns:
            The transformed batch.
        """
        hsv = ops.image.rgb_to_hsv(images)
        saturation = hsv[..., 1] * ops.cast(scale, self._compute_dtype)[:, None, None]
        saturation = ops.clip(saturation, self.value_range[0], self.value_range[1])
        return ops.image.hsv_to_rgb(ops.stack([hsv[..., 0], saturation, hsv[..., 2]], axis=-1))


class RandomColorDegeneration(_FactorLayer):
    """Blend each image towards its greyscale version by a random factor at training.

    Args:
        factor: a number in [-1, 1] or a (lower, upper) pair: the blend (0 keeps the image, 1 is grey).
        value_range: the images' (low, high) range (the result is clipped to it).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [-1, 1] or a ``value_range`` that is not two numbers.
    """

    def random_transformation(self, images, seed=None):
        return keras_random.uniform(
            (self.batch_of(images), 1, 1, 1),
            minval=self.factor[0],
            maxval=self.factor[1],
            seed=self.seed_or_generator(seed),
        )

    def transform_batch(self, images, blend):
        """A batch blended towards grey by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            blend: the per-image blends, shape (batch, 1, 1, 1).

        Returns:
            The transformed batch, clipped to ``value_range``.
        """
        images = ops.cast(images, self._compute_dtype)
        grey = ops.image.rgb_to_grayscale(images)
        images = images + ops.cast(blend, self._compute_dtype) * (grey - images)
        return ops.cast(ops.clip(images, self.value_range[0], self.value_range[1]), self._compute_dtype)

    def compute_output_shape(self, input_shape):
        """The output shape: the input's (RGB images only).

        Args:
            input_shape: the images' shape.

        Returns:
            ``input_shape`` as a tuple.

        Raises:
            ValueError: a rank other than 3 or 4, or a channel count other than 3.
        """
        if len(input_shape) not in (3, 4):
            raise ValueError(
                "Invalid images rank: expected rank 3 (single image) or 4 (batch of images). "
                f"Received: input_shape={input_shape}"
            )
        channels = input_shape[-3 if self.data_format == "channels_first" else -1]
        if channels is not None and channels != 3:
            raise ValueError(f"Input images must have 3 channels, but received images with {channels} channels.")
        return tuple(input_shape)
