"""Keras 3's mixing and erasing layers: MixUp and CutMix (each image mixed with another of the batch) and
RandomErasing (a random rectangle of each image overwritten).

They draw in Keras 3's order from the layer's SeedGenerator (the partner
of each image from ``keras.random.shuffle``, the mix weights from
``keras.random.beta``, TF's gamma kernel), so a seeded layer gives Keras's
images. Images only: Keras's dict inputs (the labels these
layers mix too, boxes, masks) are not taken.
"""

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import BatchAugmentationLayer

__all__ = ["MixUp", "CutMix", "RandomErasing"]


def _rectangle_bounds(layer, batch, length, ratio, seed):
    """Keras's crop bounds along one axis: a span ``ratio`` x ``length`` long, starting at a uniform fraction."""
    dtype = layer._compute_dtype
    crop = ops.cast(ratio * length, dtype)
    start = keras_random.uniform((batch,), minval=0, maxval=1, dtype=dtype, seed=seed) * (length - crop)
    return start[:, None, None, None], (start + crop)[:, None, None, None]


def _rectangle_mask(layer, images, x_bounds, y_bounds):
    """(batch, height, width, channels) booleans: inside each image's rectangle."""
    dtype, height, width = layer._compute_dtype, images.shape[-3], images.shape[-2]
    grid_y, grid_x = ops.meshgrid(ops.arange(height, dtype=dtype), ops.arange(width, dtype=dtype), indexing="ij")
    grid_y, grid_x = grid_y[None, :, :, None], grid_x[None, :, :, None]
    (x0, x1), (y0, y1) = x_bounds, y_bounds
    inside = ops.logical_and(
        ops.logical_and(ops.greater_equal(grid_x, x0), ops.less(grid_x, x1)),
        ops.logical_and(ops.greater_equal(grid_y, y0), ops.less(grid_y, y1)),
    )
    return ops.repeat(inside, images.shape[-1], axis=-1)


class MixUp(BatchAugmentationLayer):
    """Replace each image by w x image + (1 - w) x another image of the batch, w ~ Beta(alpha, alpha), at training.

    As Keras 3 the draws are made on every call (at inference too).

    Args:
        alpha: the Beta distribution's two parameters.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _DRAWS_AT_INFERENCE = True

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.alpha = alpha

    def random_transformation(self, images, seed=None):
        seed, batch = self.seed_or_generator(seed), self.batch_of(images)
        order = keras_random.shuffle(ops.arange(0, batch, dtype="int64"), seed=seed)
        weights = keras_random.beta((batch,), self.alpha, self.alpha, seed=seed)
        return order, weights

    def transform_batch(self, images, drawn):
        """A batch mixed as ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            drawn: each image's partner (a permutation) and its weight.

        Returns:
            The mixed batch.
        """
        order, weights = drawn
        images = ops.cast(images, self._compute_dtype)
        weights = ops.cast(ops.reshape(weights, (-1, 1, 1, 1)), self._compute_dtype)
        partners = ops.take(images, order, axis=0)
        return weights * images + (1.0 - weights) * partners

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class CutMix(BatchAugmentationLayer):
    """Paste a random rectangle of another image of the batch into each image, at training (batches only).

    The rectangle's area is 1 - w of the image's, w ~ Beta(a, a) with a drawn from ``factor``.

    Args:
        factor: a number in [0, 1] (a drawn from [0, f]) or a (lower, upper) pair.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [0, 1].
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)

    def augment(self, images, training):
        images = self._to_compute_dtype(images)
        if not training or images.ndim == 3:  # Keras draws nothing for a single image
            return images
        return self.transform_batch(images, self.random_transformation(images))

    def random_transformation(self, images, seed=None):
        seed, dtype = self.seed_or_generator(seed), self._compute_dtype
        batch, height, width = images.shape[0], images.shape[-3], images.shape[-2]
        alpha = keras_random.uniform((), minval=self.factor[0], maxval=self.factor[1], dtype=dtype, seed=seed) + 1e-6
        weights = keras_random.beta((batch,), alpha, alpha, seed=seed, dtype=dtype)
        ratio = ops.sqrt(1.0 - weights)
        x_bounds = _rectangle_bounds(self, batch, width, ratio, seed)
        y_bounds = _rectangle_bounds(self, batch, height, ratio, seed)
        inside = _rectangle_mask(self, images, x_bounds, y_bounds)
        order = keras_random.shuffle(ops.arange(0, batch, dtype="int32"), seed=seed)
        return order, inside

    def transform_batch(self, images, drawn):
        """A batch with the rectangles ``random_transformation`` drew pasted in.

        Args:
            images: a 4-D batch.
            drawn: each image's partner (a permutation) and the (batch, height, width, channels) mask to paste.

        Returns:
            The mixed batch.
        """
        order, inside = drawn
        return ops.where(inside, ops.take(images, order, axis=0), images)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomErasing(BatchAugmentationLayer):
    """Overwrite a random rectangle of each image, with a random probability, at training.

    The rectangle's sides are sqrt(s) of the image's, s drawn from
    ``scale`` per side; it is filled with ``fill_value`` (a number or one
    per channel), or, when that is None, with normal noise x the top of
    ``value_range``, clipped to ``value_range`` (as Keras 3.15).

    Args:
        factor: the probability to erase, a number in [0, 1] (drawn from [0, f]) or a (lower, upper) pair.
        scale: the rectangle's size, a (lower, upper) pair in [0, 1] (or one number f: [0, f]).
        fill_value: None (noise), a number, or three numbers.
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` or ``scale`` outside [0, 1].
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        factor=1.0,
        scale=(0.02, 0.33),
        fill_value=None,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        factor = self.factor
        self._set_factor(scale)
        self.scale, self.factor = self.factor, factor
        self.fill_value, self.value_range = fill_value, value_range

    def random_transformation(self, images, seed=None):
        seed, dtype, batch = self.seed_or_generator(seed), self._compute_dtype, self.batch_of(images)
        sides = ops.sqrt(
            keras_random.uniform((batch, 2), minval=self.scale[0], maxval=self.scale[1], dtype=dtype, seed=seed)
        )
        x_bounds = _rectangle_bounds(self, batch, images.shape[-2], sides[:, 0], seed)
        y_bounds = _rectangle_bounds(self, batch, images.shape[-3], sides[:, 1], seed)
        inside = _rectangle_mask(self, images, x_bounds, y_bounds)
        probability = keras_random.uniform((batch,), minval=self.factor[0], maxval=self.factor[1], seed=seed)
        threshold = keras_random.uniform((batch,), minval=0.0, maxval=1.0, seed=seed)
        return ops.less(threshold, probability), inside, self._fill(images, seed)

    def _fill(self, images, seed):
        dtype, shape = self._compute_dtype, tuple(images.shape)
        if self.fill_value is None and self.data_format == "channels_first":  # Keras draws the noise in its layout
            first = (shape[0], shape[3], shape[1], shape[2]) if len(shape) == 4 else (shape[2], shape[0], shape[1])
            noise = keras_random.normal(first, dtype=dtype, seed=seed) * self.value_range[1]
            fill = ops.transpose(noise, (0, 2, 3, 1) if len(shape) == 4 else (1, 2, 0))
        elif self.fill_value is None:
            fill = keras_random.normal(shape, dtype=dtype, seed=seed) * self.value_range[1]
        elif isinstance(self.fill_value, (tuple, list)) and len(self.fill_value) == 3:
            fill = ops.full(shape, ops.convert_to_tensor(list(self.fill_value), dtype=dtype), dtype=dtype)
        elif isinstance(self.fill_value, (int, float)) and not isinstance(self.fill_value, bool):
            fill = ops.ones(shape, dtype=dtype) * self.fill_value
        else:
            raise ValueError("The `fill_value` argument should be a number (or a list of three numbers) ")
        return ops.clip(fill, self.value_range[0], self.value_range[1])

    def transform_batch(self, images, drawn):
        """A batch with the rectangles ``random_transformation`` drew overwritten.

        Args:
            images: a 4-D batch.
            drawn: which images to erase, the rectangles' mask and the fill.

        Returns:
            The erased batch.
        """
        apply, inside, fill = drawn
        images = ops.cast(images, self._compute_dtype)
        erased = ops.where(inside, fill, images)
        return ops.where(ops.reshape(apply, (-1, 1, 1, 1)), erased, images)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
        }
