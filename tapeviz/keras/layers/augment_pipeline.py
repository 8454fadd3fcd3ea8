"""Keras 3's layers made of other augmentation layers: RandomColorJitter, RandAugment and AugMix.

As Keras 3, the inner layers draw from the outer layer's SeedGenerator (in
Keras's order), so a seeded pipeline gives Keras's images; both draw at
training only. Images only: Keras's dict inputs (labels, boxes, masks) are
not taken.
"""

import random as python_random

from tapeviz.keras import ops
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.augment_base import BatchAugmentationLayer
from tapeviz.keras.layers.augment_color import RandomBrightness, RandomContrast, Solarization
from tapeviz.keras.layers.augment_geometry import RandomRotation, RandomTranslation
from tapeviz.keras.layers.augment_hsv import RandomColorDegeneration, RandomHue, RandomSaturation
from tapeviz.keras.layers.augment_tone import AutoContrast, Equalization, RandomPosterization, RandomSharpness
from tapeviz.keras.layers.augment_warp import RandomShear

__all__ = ["RandomColorJitter", "RandAugment", "AugMix"]


class RandomColorJitter(BatchAugmentationLayer):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn (those given a factor), at training.

    Args:
        value_range: the images' (low, high) range.
        brightness_factor: RandomBrightness's ``factor``, or None to skip it.
        contrast_factor: RandomContrast's ``factor``, or None to skip it.
        saturation_factor: RandomSaturation's ``factor``, or None to skip it.
        hue_factor: RandomHue's ``factor``, or None to skip it.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).
    """

    def __init__(
        self,
        value_range=(0, 255),
        brightness_factor=None,
        contrast_factor=None,
        saturation_factor=None,
        hue_factor=None,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        kinds = [
            (brightness_factor, RandomBrightness),
            (contrast_factor, RandomContrast),
            (saturation_factor, RandomSaturation),
            (hue_factor, RandomHue),
        ]
        self.steps = [
            kind(factor=f, value_range=value_range, seed=seed, data_format=data_format)
            for f, kind in kinds
            if f is not None
        ]

    def random_transformation(self, images, seed=None):
        return self.seed_or_generator(seed)

    def transform_batch(self, images, seed):
        """A batch through each inner layer in turn, each drawing from ``seed`` as it goes (as Keras).

        Args:
            images: a 4-D batch.
            seed: the generator the inner layers draw from.

        Returns:
            The transformed batch.
        """
        images = ops.cast(images, self._compute_dtype)
        for step in self.steps:
            images = step.transform(images, step.random_transformation(images, seed=seed))
        return ops.cast(images, self._compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "brightness_factor": self.brightness_factor,
            "contrast_factor": self.contrast_factor,
            "saturation_factor": self.saturation_factor,
            "hue_factor": self.hue_factor,
        }


class RandAugment(BatchAugmentationLayer):
    """``num_ops`` operations drawn from Keras's eleven (shear, translation, rotation, brightness, colour
    degeneration, contrast, sharpness, posterization, solarization, auto-contrast, equalization), each of
    strength ``factor``, applied in turn to the whole batch, at training.

    Args:
        value_range: the images' (low, high) range.
        num_ops: how many operations to apply.
        factor: the operations' strength, a number in [0, 1] or a (lower, upper) pair.
        interpolation: ``"bilinear"`` or ``"nearest"`` for the geometric operations.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [0, 1].
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        value_range=(0, 255),
        num_ops=2,
        factor=0.5,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range, self.num_ops, self.interpolation = value_range, num_ops, interpolation
        self._set_factor(factor)
        f, r, layout = self.factor, value_range, {"data_format": data_format}
        self.operations = [
            RandomShear(x_factor=f, y_factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomTranslation(height_factor=f, width_factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomRotation(factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomBrightness(factor=f, value_range=r, seed=seed, **layout),
            RandomColorDegeneration(factor=f, value_range=r, seed=seed, **layout),
            RandomContrast(factor=f, value_range=r, seed=seed, **layout),
            RandomSharpness(factor=f, value_range=r, seed=seed, **layout),
            RandomPosterization(factor=max(1, int(8 * f[1])), value_range=r, seed=seed, **layout),
            Solarization(addition_factor=f, threshold_factor=f, value_range=r, seed=seed, **layout),
            AutoContrast(value_range=r, **layout),
            Equalization(value_range=r, **layout),
        ]

    def random_transformation(self, images, seed=None):
        seed = self.seed_or_generator(seed)
        chosen = keras_random.randint((self.num_ops,), 0, len(self.operations), seed=seed).numpy()
        return chosen, [op.random_transformation(images, seed=seed) for op in self.operations]

    def transform_batch(self, images, drawn):
        """A batch through the operations ``random_transformation`` chose, in turn.

        Args:
            images: a 4-D batch.
            drawn: the chosen operations' indices and every operation's own draw.

        Returns:
            The transformed batch.
        """
        chosen, transformations = drawn
        images = ops.cast(images, self._compute_dtype)
        for index in chosen:
            op = self.operations[int(index)]
            images = ops.cast(op.transform(images, transformations[int(index)]), self._compute_dtype)
        return images

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_ops": self.num_ops,
            "factor": self.factor,
            "interpolation": self.interpolation,
        }


class AugMix(BatchAugmentationLayer):
    """AugMix: ``num_chains`` chains of up to ``chain_depth`` random operations, mixed with Dirichlet weights,
    then blended with the input by a Beta-drawn weight, at training.

    As Keras 3.15, each chain step picks its operation (or none) with Python's ``random.choice`` (so
    ``keras.utils.set_random_seed`` fixes the picks) and every other number comes from the layer's
    SeedGenerator.

    Args:
        value_range: the images' (low, high) range.
        num_chains: how many chains to mix.
        chain_depth: the most operations per chain.
        factor: the operations' strength, a number in [0, 1] or a (lower, upper) pair.
        alpha: the Dirichlet and Beta concentration.
        all_ops: also brightness, colour degeneration, contrast and sharpness (else seven operations).
        interpolation: ``"bilinear"`` or ``"nearest"`` for the geometric operations.
        seed: a seed for the layer's random draws.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: a ``factor`` outside [0, 1].
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        value_range=(0, 255),
        num_chains=3,
        chain_depth=3,
        factor=0.3,
        alpha=1.0,
        all_ops=True,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range, self.num_chains, self.chain_depth = value_range, num_chains, chain_depth
        self._set_factor(factor)
        self.alpha, self.all_ops, self.interpolation = alpha, all_ops, interpolation
        f, r, layout = self.factor, value_range, {"data_format": data_format}
        self.operations = [
            RandomShear(x_factor=f, y_factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomTranslation(height_factor=f, width_factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomRotation(factor=f, interpolation=interpolation, seed=seed, **layout),
            RandomPosterization(factor=max(1, int(8 * f[1])), value_range=r, seed=seed, **layout),
            Solarization(addition_factor=f, threshold_factor=f, value_range=r, seed=seed, **layout),
            AutoContrast(value_range=r, **layout),
            Equalization(value_range=r, **layout),
        ]
        if all_ops:
            self.operations += [
                RandomBrightness(factor=f, value_range=r, seed=seed, **layout),
                RandomColorDegeneration(factor=f, value_range=r, seed=seed, **layout),
                RandomContrast(factor=f, value_range=r, seed=seed, **layout),
                RandomSharpness(factor=f, value_range=r, seed=seed, **layout),
            ]

    def random_transformation(self, images, seed=None):
        seed = self.seed_or_generator(seed)
        gammas = keras_random.gamma([self.num_chains], alpha=self.alpha, seed=seed)
        chain_weights = gammas / ops.sum(gammas, axis=-1, keepdims=True)
        keep = keras_random.beta((), alpha=self.alpha, beta=self.alpha, seed=seed)
        chains = []
        for _ in range(self.num_chains):
            steps = []
            for _ in range(self.chain_depth):
                op = python_random.choice(self.operations + [None])
                if op is not None:
                    steps.append((op, op.random_transformation(images, seed=seed)))
            chains.append(steps)
        return chain_weights, keep, chains

    def transform_batch(self, images, drawn):
        """A batch mixed from its chains as ``random_transformation`` drew them.

        Args:
            images: a 4-D batch.
            drawn: the chains' weights, the input's share and each chain's operations with their draws.

        Returns:
            The mixed batch, clipped to ``value_range``.
        """
        chain_weights, keep, chains = drawn
        dtype = self._compute_dtype
        images = ops.cast(images, dtype)
        chain_weights, keep = ops.cast(chain_weights, dtype), ops.cast(keep, dtype)
        mixed = ops.zeros_like(images)
        for index, steps in enumerate(chains):
            chained = images
            for op, transformation in steps:
                chained = op.transform(chained, transformation)
            mixed = mixed + chained * chain_weights[index]
        images = keep * images + (1 - keep) * mixed
        return ops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_chains": self.num_chains,
            "chain_depth": self.chain_depth,
            "factor": self.factor,
            "alpha": self.alpha,
            "all_ops": self.all_ops,
            "interpolation": self.interpolation,
        }
