"""Keras 3's warping layers: RandomShear, RandomPerspective, RandomElasticTransform, RandomGaussianBlur.

Each draws at training only, in Keras 3's order, from the layer's
SeedGenerator, and applies ``keras.ops.image`` (``affine_transform``,
``perspective_transform``, ``elastic_transform``, ``gaussian_blur``), so a seeded layer gives
Keras's images and is differentiable in them. Images only: Keras's dict
inputs (labels, bounding boxes, masks) are not taken.
"""

import numpy as np

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import BatchAugmentationLayer
from tapeviz.keras.ops.affine import FILL_MODES, INTERPOLATIONS
from tapeviz.keras.ops.coordinates import FILL_MODES as COORDINATE_FILL_MODES

__all__ = ["RandomShear", "RandomPerspective", "RandomElasticTransform", "RandomGaussianBlur"]


def _check_sampling(interpolation, fill_mode=None):
    if fill_mode is not None and fill_mode not in FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {FILL_MODES}.")
    if interpolation not in INTERPOLATIONS:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {INTERPOLATIONS}.")


def _coins(layer, batch, seed):
    """Keras's 'apply with a random probability': a probability from ``factor``, then a threshold below it."""
    probability = keras_random.uniform((batch,), minval=layer.factor[0], maxval=layer.factor[1], seed=seed)
    threshold = keras_random.uniform((batch,), minval=0.0, maxval=1.0, seed=seed)
    return ops.less(threshold, probability)


class RandomShear(BatchAugmentationLayer):
    """Shear each image along x and y by random amounts at training.

    Args:
        x_factor: a number in [0, 1] (drawn from [-f, f]) or a (lower, upper) pair: the x shear.
        y_factor: likewise for y.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_mode: how points outside the image are filled (``"reflect"``, ``"wrap"``, ``"constant"``, ``"nearest"``).
        fill_value: the value ``fill_mode="constant"`` fills with.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a factor outside [0, 1].
        NotImplementedError: an unknown ``fill_mode`` or ``interpolation``.
    """

    _MESSAGE = "The `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. "

    def __init__(
        self,
        x_factor=0.0,
        y_factor=0.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.x_factor, self.y_factor = x_factor, y_factor  # as given: Keras's config of the ranges cannot be reloaded
        self.x_range = self._shear_range(x_factor, "x_factor")
        self.y_range = self._shear_range(y_factor, "y_factor")
        _check_sampling(interpolation, fill_mode)
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, fill_value

    def _shear_range(self, factor, name):
        values = list(factor) if isinstance(factor, (tuple, list)) else [factor]
        if (
            isinstance(factor, (tuple, list))
            and len(values) != 2
            or not all(isinstance(v, (int, float)) for v in values)
        ):
            raise ValueError(self._MESSAGE + f"Received: {name}={factor}")
        for value in values:
            if value > 1.0 or value < 0.0:
                raise ValueError(self._MESSAGE + f"Received: input_number={value}")
        return tuple(sorted(values)) if len(values) == 2 else (-abs(factor), abs(factor))

    def random_transformation(self, images, seed=None):
        seed, shape, dtype = self.seed_or_generator(seed), (self.batch_of(images), 1), self._compute_dtype
        coin = keras_random.uniform(shape, minval=0, maxval=1, seed=seed, dtype=dtype)
        direction = ops.where(ops.greater(coin, 0.5), -ops.ones_like(coin), ops.ones_like(coin))
        shear_y = keras_random.uniform(shape, minval=self.y_range[0], maxval=self.y_range[1], seed=seed, dtype=dtype)
        shear_x = keras_random.uniform(shape, minval=self.x_range[0], maxval=self.x_range[1], seed=seed, dtype=dtype)
        return (ops.concatenate([shear_x, shear_y], axis=1) * direction).numpy()

    def transform_batch(self, images, shears):
        """A batch sheared by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            shears: (batch, 2) x and y shears.

        Returns:
            The sheared batch.
        """
        ones, zeros = np.ones(len(shears), np.float32), np.zeros(len(shears), np.float32)
        matrices = np.stack([ones, shears[:, 0], zeros, shears[:, 1], ones, zeros, zeros, zeros], axis=1)
        return ops.image.affine_transform(
            images, matrices, interpolation=self.interpolation, fill_mode=self.fill_mode, fill_value=self.fill_value
        )

    def get_config(self):
        return {
            **super().get_config(),
            "x_factor": self.x_factor,
            "y_factor": self.y_factor,
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "fill_value": self.fill_value,
        }


class RandomPerspective(BatchAugmentationLayer):
    """Move each image's four corners by random amounts (a perspective warp), with a random probability, at training.

    Args:
        factor: the probability to warp, a number in [0, 1] (drawn from [0, f]) or a (lower, upper) pair.
        scale: how far corners move, in [0, 1]: up to half that times their coordinates.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_value: the value read outside the image.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` or ``scale`` outside [0, 1].
        NotImplementedError: an unknown ``interpolation``.
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None, data_format=None, **kwargs
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. Received: scale={scale}")
        _check_sampling(interpolation)
        self.scale, self.interpolation, self.fill_value = scale, interpolation, fill_value

    def random_transformation(self, images, seed=None):
        seed, batch = self.seed_or_generator(seed), self.batch_of(images)
        height, width = images.shape[-3], images.shape[-2]
        apply = _coins(self, batch, seed)
        moves = keras_random.uniform(
            (batch, 4, 2), minval=-0.5 * self.scale, maxval=0.5 * self.scale, seed=seed, dtype=self._compute_dtype
        ).numpy()
        corners = [[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1], [width - 1, height - 1]]
        start = np.repeat(np.asarray([corners], self._compute_dtype), batch, axis=0)
        return apply, start, start + start * moves

    def transform_batch(self, images, drawn):
        """A batch warped by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            drawn: which images to warp, and their start and end corner points.

        Returns:
            The warped batch.
        """
        apply, start, end = drawn
        warped = ops.image.perspective_transform(
            images, start, end, interpolation=self.interpolation, fill_value=self.fill_value
        )
        return ops.where(ops.reshape(apply, (-1, 1, 1, 1)), warped, images)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_value": self.fill_value,
        }


class RandomElasticTransform(BatchAugmentationLayer):
    """Warp each image by a smooth random displacement field, with a random probability, at training.

    As Keras 3.15: one distortion strength d is drawn from ``scale`` per
    call; the displacements have ``alpha`` = max(height, width) x 0.1 d and
    ``sigma`` = min(height, width) x 0.05 d (``keras.ops.image.elastic_transform``,
    whose seed is drawn from the layer's generator when the images are
    transformed); the result is clipped to ``value_range``.

    Args:
        factor: the probability to warp, a number in [0, 1] (drawn from [0, f]) or a (lower, upper) pair.
        scale: the distortion strength, a number in [0, 1] or a (lower, upper) pair.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_mode: ``"reflect"``, ``"wrap"``, ``"constant"`` or ``"nearest"`` (``"mirror"`` is accepted here
            and refused by the op, as Keras on TF).
        fill_value: what ``"constant"`` reads outside the image.
        value_range: the images' (low, high) range.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` or ``scale`` outside [0, 1].
        NotImplementedError: an unknown ``interpolation`` or ``fill_mode``.
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
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
        if interpolation not in INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {INTERPOLATIONS}.")
        if fill_mode not in COORDINATE_FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {COORDINATE_FILL_MODES}.")
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, fill_value
        self.value_range = value_range

    def random_transformation(self, images, seed=None):
        if self.scale[1] == 0 or self.factor[1] == 0:
            return None
        seed = self.seed_or_generator(seed)
        apply = _coins(self, self.batch_of(images), seed)
        strength = keras_random.uniform(
            (), minval=self.scale[0], maxval=self.scale[1], seed=seed, dtype=self._compute_dtype
        ).numpy()
        return apply, strength, seed

    def transform_batch(self, images, drawn):
        """A batch warped by what ``random_transformation`` drew (the field's seed is drawn now).

        Args:
            images: a 4-D batch.
            drawn: which images to warp, the distortion strength and the generator to draw the field from.

        Returns:
            The transformed batch, clipped to ``value_range``.
        """
        if drawn is None:
            return images
        apply, strength, seed = drawn
        height, width = images.shape[1], images.shape[2]
        f = np.dtype(self._compute_dtype).type
        alpha, sigma = f(max(height, width)) * (f(0.1) * strength), f(min(height, width)) * (f(0.05) * strength)
        warped = ops.image.elastic_transform(
            images,
            alpha=alpha,
            sigma=sigma,
            interpolation=self.interpolation,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            seed=seed,
        )
        images = ops.where(ops.reshape(apply, (-1, 1, 1, 1)), warped, images)
        return ops.cast(ops.clip(images, self.value_range[0], self.value_range[1]), self._compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
        }


class RandomGaussianBlur(BatchAugmentationLayer):
    """Blur each image with a Gaussian of random width, with a random probability, at training.

    One sigma pair is drawn per call (for the whole batch), as Keras 3.

    Args:
        factor: the probability to blur, a number in [0, 1] (drawn from [0, f]) or a (lower, upper) pair.
        kernel_size: an odd int or a pair of odd ints.
        sigma: a number in [0, 1] (sigma drawn from [0, f]) or a (lower, upper) pair.
        value_range: the images' (low, high) range (the result is clipped to it).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: a seed for the layer's random draws.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: an even ``kernel_size``, or a ``factor`` or ``sigma`` outside [0, 1].
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), data_format=None, seed=None, **kwargs
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.kernel_size = self._odd_sizes(kernel_size)
        factor = self.factor
        self._set_factor(sigma)  # the same bounds and message as `factor`, as Keras
        self.sigma, self.factor = self.factor, factor
        self.value_range = value_range

    @staticmethod
    def _odd_sizes(size):
        message = f"kernel_size must be an odd number. Received: kernel_size={size}"
        if isinstance(size, (tuple, list)):
            if len(size) != 2:
                raise ValueError(
                    f"The `kernel_size` argument should be a number (or a list of two numbers) Received: kernel_size={size}"
                )
            if size[0] % 2 == 0 or size[1] % 2 == 0:
                raise ValueError(message)
            return tuple(size)
        if not isinstance(size, (int, float)) or size % 2 == 0:
            raise ValueError(message)
        return size, size

    def random_transformation(self, images, seed=None):
        seed = self.seed_or_generator(seed)
        apply = _coins(self, self.batch_of(images), seed)
        sigma = keras_random.uniform(
            (2,), minval=self.sigma[0], maxval=self.sigma[1], seed=seed, dtype=self._compute_dtype
        )
        return apply, sigma + 1e-6

    def transform_batch(self, images, drawn):
        """A batch blurred by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            drawn: which images to blur, and the sigma pair.

        Returns:
            The transformed batch, clipped to ``value_range``.
        """
        apply, sigma = drawn
        images = ops.cast(images, self._compute_dtype)
        blurred = ops.image.gaussian_blur(images, kernel_size=self.kernel_size, sigma=sigma)
        images = ops.where(ops.reshape(apply, (-1, 1, 1, 1)), blurred, images)
        return ops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "kernel_size": self.kernel_size,
            "sigma": self.sigma,
            "value_range": self.value_range,
        }
