"""Keras 3's geometric augmentation layers: RandomFlip, RandomRotation, RandomZoom, RandomTranslation, RandomCrop.

Each draws its parameters as Keras 3 does (the same ``keras.random`` calls,
in the same order, from the layer's SeedGenerator), builds Keras's
transform matrix in float32 and applies ``keras.ops.image.affine_transform``
(TF's projective-transform kernel), so a seeded layer gives Keras's images.
"""

import math

import numpy as np

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import AugmentationLayer
from tapeviz.keras.ops.affine import FILL_MODES, INTERPOLATIONS

__all__ = ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomCrop"]

HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL = "horizontal", "vertical", "horizontal_and_vertical"


class RandomFlip(AugmentationLayer):
    """Flip each image left-right and/or top-bottom with probability 1/2 at training.

    ``mode``: 'horizontal', 'vertical' or 'horizontal_and_vertical' (one coin
    per image decides both flips, as Keras 3).

    Args:
        mode: ``"horizontal"``, ``"vertical"`` or ``"horizontal_and_vertical"``.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: an unknown ``mode``.
    """

    _USE_BASE_FACTOR = False

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
            raise ValueError(
                f"RandomFlip layer {self.name} received an unknown mode argument {mode}. "
                f"Expected one of {HORIZONTAL!r}, {VERTICAL!r}, {HORIZONTAL_AND_VERTICAL!r}."
            )
        self.mode = mode

    def random_transformation(self, images, seed=None):
        shape = (images.shape[0], 1, 1, 1) if images.ndim == 4 else (1, 1, 1)
        return ops.less_equal(keras_random.uniform(shape, seed=self.seed_or_generator(seed)), 0.5)

    def transform(self, images, flips):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            flips: which images to flip, as ``random_transformation`` drew them.

        Returns:
            The transformed images.
        """
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=-2), images)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=-3), images)
        return images

    def get_config(self):
        return {**super().get_config(), "mode": self.mode}


class _AffineLayer(AugmentationLayer):
    """A layer that moves pixels by a per-image affine transform, read with ``interpolation`` and ``fill_mode``."""

    def _set_sampling(self, fill_mode, interpolation, fill_value):
        if fill_mode not in FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {FILL_MODES}.")
        if interpolation not in INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {INTERPOLATIONS}.")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def transform(self, images, matrices):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            matrices: the affine matrices ``random_transformation`` drew.

        Returns:
            The transformed images.
        """
        if images.ndim == 3:
            matrices = matrices[0]
        return ops.image.affine_transform(
            images, matrices, interpolation=self.interpolation, fill_mode=self.fill_mode, fill_value=self.fill_value
        )

    @staticmethod
    def height_width(images):
        """(height, width) of channels-last images, batched or not.

        Args:
            images: a 3-D or 4-D channels-last image tensor.

        Returns:
            ``(height, width)``, two ints.
        """
        return images.shape[-3], images.shape[-2]

    def get_config(self):
        return {
            **super().get_config(),
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "interpolation": self.interpolation,
        }


def _float32(tensor_or_array):
    return np.asarray(tensor_or_array.numpy() if hasattr(tensor_or_array, "numpy") else tensor_or_array, np.float32)


def rotation_matrices(angles_degrees, height, width):
    """Keras's ``_compute_affine_matrix`` for rotations about the image centre (float32, (batch, 8))."""
    f = np.float32
    angle = _float32(angles_degrees) * f(math.pi / 180.0)
    cx, cy = f(0.5) * (f(width) - f(1)), f(0.5) * (f(height) - f(1))
    cos, sin = np.cos(angle), np.sin(angle)
    a0, a1, b0, b1 = cos, -sin, sin, cos
    a2 = cx - cx * a0 - cy * a1
    b2 = cy - cx * b0 - cy * b1
    zeros = np.zeros_like(angle)
    return np.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)


class RandomRotation(_AffineLayer):
    """Rotate each image by a random angle in ``factor`` x 360 degrees (a fraction of a full turn) at training.

    Args:
        factor: a fraction of a full turn, or a (lower, upper) pair.
        fill_mode: how points outside the image are filled (``"reflect"``, ``"constant"``...).
        interpolation: ``"bilinear"`` or ``"nearest"``.
        seed: a seed for the layer's random draws.
        fill_value: the value ``fill_mode="constant"`` fills with.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    def __init__(
        self,
        factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(factor=factor, seed=seed, data_format=data_format, **kwargs)
        self._set_sampling(fill_mode, interpolation, fill_value)

    def random_transformation(self, images, seed=None):
        height, width = self.height_width(images)
        lower, upper = self.factor[0] * 360.0, self.factor[1] * 360.0
        angles = keras_random.uniform(
            (self.batch_of(images),), minval=lower, maxval=upper, seed=self.seed_or_generator(seed)
        )
        return rotation_matrices(angles, height, width)


def _range(factor, name, message, open_low):
    """(lower, upper) from a number or a pair, checked against (-1, 1] (or [-1, 1] when not ``open_low``)."""
    values = list(factor) if isinstance(factor, (tuple, list)) else [factor]
    if isinstance(factor, (tuple, list)) and len(values) != 2 or not all(isinstance(v, (int, float)) for v in values):
        raise ValueError(message + f"Received: {name}={factor}")
    for value in values:
        if value > 1.0 or (value <= -1.0 if open_low else value < -1.0):
            raise ValueError(message + f"Received: input_number={value}")
    if len(values) == 2:
        return tuple(sorted(values))
    return -abs(factor), abs(factor)


class RandomZoom(_AffineLayer):
    """Zoom each image in or out by a random factor at training.

    ``height_factor`` (and ``width_factor``, else the same zoom as the
    height): a fraction in (-1, 1] or a (lower, upper) pair; the image is
    scaled by 1 + that fraction about its centre (positive: zoom out).

    Args:
        height_factor: a fraction in (-1, 1] or a (lower, upper) pair.
        width_factor: likewise (the height's zoom when None).
        fill_mode: how points outside the image are filled (``"reflect"``, ``"constant"``...).
        interpolation: ``"bilinear"`` or ``"nearest"``.
        seed: a seed for the layer's random draws.
        fill_value: the value ``fill_mode="constant"`` fills with.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _USE_BASE_FACTOR = False
    _MESSAGE = (
        "The `height_factor` and `width_factor` arguments should be a number "
        "(or a list of two numbers) in the range (-1.0, 1.0]. "
    )

    def __init__(
        self,
        height_factor,
        width_factor=None,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _range(height_factor, "height_factor", self._MESSAGE, True)
        if width_factor is not None:
            self.width_lower, self.width_upper = _range(width_factor, "width_factor", self._MESSAGE, True)
        self._set_sampling(fill_mode, interpolation, fill_value)

    def random_transformation(self, images, seed=None):
        shape = (self.batch_of(images), 1)
        height_zoom = keras_random.uniform(
            shape, minval=1.0 + self.height_lower, maxval=1.0 + self.height_upper, seed=self.seed_or_generator(seed)
        )
        width_zoom = height_zoom
        if self.width_factor is not None:
            width_zoom = keras_random.uniform(
                shape, minval=1.0 + self.width_lower, maxval=1.0 + self.width_upper, seed=self.seed_or_generator(seed)
            )
        zx, zy = _float32(width_zoom)[:, 0], _float32(height_zoom)[:, 0]
        height, width = self.height_width(images)
        f = np.float32
        x_offset = ((f(width) - f(1)) / f(2)) * (f(1) - zx)
        y_offset = ((f(height) - f(1)) / f(2)) * (f(1) - zy)
        zeros = np.zeros_like(zx)
        return np.stack([zx, zeros, x_offset, zeros, zy, y_offset, zeros, zeros], axis=1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor}


class RandomTranslation(_AffineLayer):
    """Shift each image by a random fraction of its height and width at training.

    ``height_factor``, ``width_factor``: a fraction in [-1, 1] or a (lower,
    upper) pair; a positive shift moves the image down (right).

    Args:
        height_factor: a fraction in [-1, 1] or a (lower, upper) pair.
        width_factor: likewise.
        fill_mode: how points outside the image are filled (``"reflect"``, ``"constant"``...).
        interpolation: ``"bilinear"`` or ``"nearest"``.
        seed: a seed for the layer's random draws.
        fill_value: the value ``fill_mode="constant"`` fills with.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _USE_BASE_FACTOR = False
    _MESSAGE = (
        "The `height_factor` and `width_factor` arguments should be a number "
        "(or a list of two numbers) in the range [-1.0, 1.0]. "
    )

    def __init__(
        self,
        height_factor,
        width_factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _range(height_factor, "height_factor", self._MESSAGE, False)
        self.width_lower, self.width_upper = _range(width_factor, "width_factor", self._MESSAGE, False)
        self._set_sampling(fill_mode, interpolation, fill_value)

    def random_transformation(self, images, seed=None):
        shape = (self.batch_of(images), 1)
        height, width = self.height_width(images)
        dy = keras_random.uniform(
            shape, minval=self.height_lower, maxval=self.height_upper, seed=self.seed_or_generator(seed)
        )
        dx = keras_random.uniform(
            shape, minval=self.width_lower, maxval=self.width_upper, seed=self.seed_or_generator(seed)
        )
        ty, tx = _float32(dy)[:, 0] * np.float32(height), _float32(dx)[:, 0] * np.float32(width)
        ones, zeros = np.ones_like(tx), np.zeros_like(tx)
        return np.stack([ones, zeros, -tx, zeros, ones, -ty, zeros, zeros], axis=1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor}


class RandomCrop(AugmentationLayer):
    """A random (height, width) window of each batch at training (one window for the whole batch, as Keras 3).

    Images no larger than the window are centre-cropped to its aspect ratio
    and resized. At inference the images pass through unchanged (Keras 3.15
    does so too).

    Args:
        height: the window's height.
        width: the window's width.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        name: the layer's name.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    _USE_BASE_FACTOR = False

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        chosen = seed if seed is not None else keras_random.make_default_seed()  # drawn first, as Keras
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.seed = chosen
        self.height, self.width = int(height), int(width)

    def augment(self, images, training):
        if not training:
            return images
        return self.transform(self._to_compute_dtype(images), self.random_transformation(images))

    def random_transformation(self, images, seed=None):
        in_height, in_width = images.shape[-3], images.shape[-2]
        if in_height > self.height and in_width > self.width:
            top = keras_random.uniform(
                (), 0, maxval=float(in_height - self.height + 1), seed=self.seed_or_generator(seed)
            )
            left = keras_random.uniform(
                (), 0, maxval=float(in_width - self.width + 1), seed=self.seed_or_generator(seed)
            )
            return int(top.numpy()), int(left.numpy())
        crop_height = max(min(in_height, int(float(in_width * self.height) / self.width)), 1)
        crop_width = max(min(in_width, int(float(in_height * self.width) / self.height)), 1)
        return int(float(in_height - crop_height) / 2), int(float(in_width - crop_width) / 2)

    def transform(self, images, corner):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            corner: the window's corner ``random_transformation`` drew.

        Returns:
            The transformed images.
        """
        top, left = corner
        images = images[..., top : top + self.height, left : left + self.width, :]
        if images.shape[-3] != self.height or images.shape[-2] != self.width:
            images = ops.image.resize(images, (self.height, self.width), interpolation="bilinear")
        return images

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        rows = -2 if self.data_format == "channels_first" else -3
        shape[rows], shape[rows + 1] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}
