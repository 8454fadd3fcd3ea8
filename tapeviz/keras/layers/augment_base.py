"""What Keras 3's image augmentation layers share: ``training``, seeds and ``factor``.

As Keras 3: an augmentation layer augments when called directly or inside a
model called directly (its ``call`` defaults ``training`` to True), and
passes images through at inference (``training=False``, ``predict``,
``evaluate``). Each layer owns a ``SeedGenerator(seed)`` and draws its
random parameters with ``keras.random`` from it, so a seeded layer gives
Keras's numbers on TF.
"""

import numpy as np

from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.base import Layer
from tapeviz.keras.ops._common import tensor

__all__ = ["AugmentationLayer", "BatchAugmentationLayer"]


class AugmentationLayer(Layer):
    """Base of the random image layers: ``call(images, training=True)`` draws, then transforms.

    Subclasses set ``_FACTOR_BOUNDS`` (or ``_USE_BASE_FACTOR = False``) and
    define ``random_transformation(images)`` and ``transform(images, t)``.
    """

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS = (-1, 1)
    _DRAWS_AT_INFERENCE = False  # Keras layers whose draw does not look at `training` move their seed on anyway
    _DRAWS = True  # False: no SeedGenerator (Keras's fixed layers make none, so take no default seed)

    def __init__(self, factor=None, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        from tapeviz.keras import config

        data_format = config.image_data_format() if data_format is None else str(data_format).lower()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                f"Received: data_format={data_format}"
            )
        self.data_format = data_format
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise ValueError(
                f"Layer {type(self).__name__} does not take a `factor` argument. Received: factor={factor}"
            )
        self.seed = seed
        self.generator = keras_random.SeedGenerator(seed) if self._DRAWS else None

    def _set_factor(self, factor):
        low_bound, high_bound = self._FACTOR_BOUNDS
        message = (
            "The `factor` argument should be a number (or a list of two numbers) in the range "
            f"[{low_bound}, {high_bound}]. Received: factor={factor}"
        )
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > high_bound or factor[1] < low_bound:
                raise ValueError(message)
            lower, upper = sorted(factor)
        elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
            if factor < low_bound or factor > high_bound:
                raise ValueError(message)
            factor = abs(factor)
            lower, upper = max(-factor, low_bound), factor
        else:
            raise ValueError(message)
        self.factor = (lower, upper)

    def call(self, inputs, training=True):
        """Augment ``inputs`` at training (pass them through, cast, otherwise).

        Args:
            inputs: one image (height, width, channels) or a batch of them.
            training: whether to augment (True when not given, as Keras).

        Returns:
            A Tensor of the layer's dtype.

        Raises:
            ValueError: inputs of rank other than 3 or 4.
        """
        images = tensor(inputs)
        if images.ndim not in (3, 4):
            raise ValueError(
                "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
                f"Received: data.shape={tuple(images.shape)}"
            )
        if training is None:  # not given, no outer flag: Keras's call signature default
            training = True
        if self.data_format == "channels_first":  # augmented channels-last, as the same numbers in the other layout
            from tapeviz.keras import ops

            to_last = (0, 2, 3, 1) if images.ndim == 4 else (1, 2, 0)
            to_first = (0, 3, 1, 2) if images.ndim == 4 else (2, 0, 1)
            return ops.transpose(self.augment(ops.transpose(images, to_last), bool(training)), to_first)
        return self.augment(images, bool(training))

    def augment(self, images, training):
        """Cast to the layer's dtype; at training, draw a transformation and apply it.

        Args:
            images: a 3-D or 4-D image tensor.
            training: whether to draw and apply a transformation.

        Returns:
            A Tensor.
        """
        images = self._to_compute_dtype(images)
        if not training and not self._DRAWS_AT_INFERENCE:
            return images
        transformation = self.random_transformation(images)
        if not training:
            return images
        return self.transform(images, transformation)

    def seed_or_generator(self, seed):
        """The ``seed`` a draw was given, else the layer's own SeedGenerator.

        Args:
            seed: None, an int or a SeedGenerator (a pipeline layer passes its own).

        Returns:
            What to pass to ``keras.random`` as ``seed``.
        """
        return self.generator if seed is None else seed

    def random_transformation(self, images, seed=None):
        """Draw this call's random parameters for ``images`` (from the layer's SeedGenerator).

        Args:
            images: the images of this call.
            seed: draw from this seed instead of the layer's generator (as Keras's pipeline layers do).

        Returns:
            What ``transform`` takes (each layer's own parameters).
        """
        raise NotImplementedError(f"{type(self).__name__} must define random_transformation(images).")

    def transform(self, images, transformation):
        """``images`` transformed by what ``random_transformation`` drew.

        Args:
            images: the images.
            transformation: what ``random_transformation`` returned.

        Returns:
            The transformed images.
        """
        raise NotImplementedError(f"{type(self).__name__} must define transform(images, transformation).")

    def _to_compute_dtype(self, images):
        from tapeviz.keras import ops

        return images if images.dtype.name == self._compute_dtype else ops.cast(images, self._compute_dtype)

    @staticmethod
    def batch_of(images):
        """The batch size (1 for a single image).

        Args:
            images: a 3-D or 4-D image tensor.

        Returns:
            An int.
        """
        return images.shape[0] if images.ndim == 4 else 1

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = {**super().get_config(), "seed": self.seed, "data_format": self.data_format}
        if self._USE_BASE_FACTOR:
            config["factor"] = self.factor
        return config


class BatchAugmentationLayer(AugmentationLayer):
    """An augmentation layer that transforms a batch: a single image is transformed as a batch of one (as Keras 3).

    Subclasses define ``transform_batch(images, transformation)``; they
    read their value ranges with ``check_value_range`` and move between
    ranges with ``rescale``.
    """

    _USE_BASE_FACTOR = False

    def transform(self, images, transformation):
        """``images`` transformed by what ``random_transformation`` drew (a single image as a batch of one).

        Args:
            images: one image or a batch.
            transformation: what ``random_transformation`` drew.

        Returns:
            The transformed images, of the input's rank.
        """
        from tapeviz.keras import ops

        if images.ndim == 3:
            return ops.squeeze(self.transform_batch(ops.expand_dims(images, 0), transformation), axis=0)
        return self.transform_batch(images, transformation)

    def transform_batch(self, images, transformation):
        """A batch of images transformed by what ``random_transformation`` drew.

        Args:
            images: a 4-D batch.
            transformation: what ``random_transformation`` drew.

        Returns:
            The transformed batch.
        """
        raise NotImplementedError(f"{type(self).__name__} must define transform_batch(images, transformation).")

    @staticmethod
    def check_value_range(value_range):
        """``value_range`` as a sorted list of two numbers.

        Args:
            value_range: the images' (low, high) range.

        Returns:
            ``[low, high]``.

        Raises:
            ValueError: anything but two numbers.
        """
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(
                f"The `value_range` argument should be a list of two numbers. Received: value_range={value_range}"
            )
        return sorted(value_range)

    @staticmethod
    def rescale(images, source, target, dtype="float32"):
        """``images`` moved linearly from the range ``source`` to ``target`` in ``dtype`` (Keras's
        ``_transform_value_range``; unchanged when the ranges are equal).

        Args:
            images: the images.
            source: the (low, high) range they are in.
            target: the (low, high) range to move them to.
            dtype: the dtype to compute in.

        Returns:
            The moved images.
        """
        from tapeviz.keras import ops

        if source[0] == target[0] and source[1] == target[1]:
            return images
        f = np.dtype(dtype).type
        images = ops.cast(images, dtype)
        unit = (images - f(source[0])) / (f(source[1]) - f(source[0]))
        return unit * (f(target[1]) - f(target[0])) + f(target[0])
