"""Preprocessing layers: Rescaling (x * scale + offset) and Normalization ((x - mean) / std, learned by ``adapt``)."""

import numpy as np

from tapeviz.keras import ops
from tapeviz.keras.layers.base import Layer

__all__ = ["Rescaling", "Normalization", "Resizing", "CenterCrop", "CategoryEncoding"]

EPSILON = 1e-7


class Rescaling(Layer):
    """``inputs * scale + offset`` (e.g. ``Rescaling(1 / 255)`` for images).

    Args:
        scale: the factor.
        offset: added after scaling.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        x = ops.cast(inputs, self._dtype)
        return x * ops.cast(self.scale, self._dtype) + ops.cast(self.offset, self._dtype)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class Normalization(Layer):
    """``(inputs - mean) / max(sqrt(variance), 1e-7)`` per feature along ``axis``.

    ``mean``/``variance`` are given, or learned from data by ``adapt(data)``
    (statistics over every axis but ``axis``); ``invert=True`` maps back.
    The statistics are non-trainable weights ``mean``, ``variance``, ``count``
    (``count`` stays 0 after ``adapt``, as in Keras 3.15).

    Args:
        axis: the axis (or axes) with their own mean and variance.
        mean: the mean, instead of ``adapt``.
        variance: the variance, with ``mean``.
        invert: undo the normalization instead.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: ``mean`` without ``variance``, or ``variance`` without ``mean``.

    Raises:
        ValueError: ``mean`` without ``variance``, or ``variance`` without ``mean``.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis or ())
        if (mean is None) != (variance is None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        self.input_mean, self.input_variance, self.invert = mean, variance, invert

    def _stat_shape(self, input_shape):
        ndim = len(input_shape)
        kept = {a % ndim for a in self.axis}
        return tuple(input_shape[i] if i in kept else 1 for i in range(ndim))

    def build(self, input_shape):
        self._broadcast_shape = self._stat_shape(input_shape)
        shape = tuple(input_shape[a] for a in sorted(a % len(input_shape) for a in self.axis))
        if self.input_mean is not None:
            self._given = (
                ops.reshape(ops.cast(self.input_mean, self._dtype), self._broadcast_shape),
                ops.reshape(ops.cast(self.input_variance, self._dtype), self._broadcast_shape),
            )
            return
        self.adapt_mean = self.add_weight(name="mean", shape=shape, initializer="zeros", trainable=False)
        self.adapt_variance = self.add_weight(name="variance", shape=shape, initializer="ones", trainable=False)
        self.count = self.add_weight(name="count", shape=(), initializer="zeros", trainable=False, dtype="int64")

    @property
    def mean(self):
        """The mean as a tensor of the broadcast shape (``[[...]]`` for ``axis=-1``), as Keras 3; None before build."""
        return self._statistic(0)

    @property
    def variance(self):
        """The variance, as ``mean``."""
        return self._statistic(1)

    def _statistic(self, which):
        if not self.built:
            return None
        if self.input_mean is not None:
            return self._given[which]
        weight = self.adapt_mean if which == 0 else self.adapt_variance  # read now: adapt and loading change it
        return ops.cast(ops.reshape(weight, self._broadcast_shape), self._dtype)

    def adapt(self, data):
        """Learn ``mean`` and ``variance`` from ``data`` (an array, tensor, or tf.data Dataset of batches).

        Args:
            data: an array, a tensor, or a Dataset of batches.
        """
        if hasattr(data, "as_numpy_iterator"):
            data = np.concatenate([np.asarray(b) for b in data.as_numpy_iterator()])
        array = np.asarray(ops.convert_to_numpy(data), np.float64)
        if array.ndim == 1:
            array = array[:, None]
        if not self.built:
            self.build((None,) + array.shape[1:])
        ndim = array.ndim
        reduce = tuple(i for i in range(ndim) if i not in {a % ndim for a in self.axis})
        self.adapt_mean.assign(array.mean(axis=reduce).reshape(self.adapt_mean.shape).astype(self._dtype))
        self.adapt_variance.assign(array.var(axis=reduce).reshape(self.adapt_variance.shape).astype(self._dtype))

    def call(self, inputs):
        x = ops.cast(inputs, self._dtype)
        if self.input_mean is not None:
            mean, variance = self._given
        else:
            mean = ops.reshape(self.adapt_mean, self._broadcast_shape)
            variance = ops.reshape(self.adapt_variance, self._broadcast_shape)
        if self.invert:
            return mean + x * ops.maximum(ops.sqrt(variance), EPSILON)
        return (x - mean) / ops.maximum(ops.sqrt(variance), EPSILON)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "invert": self.invert}


class Resizing(Layer):
    """Resize images to (height, width) with 'bilinear' or 'nearest' (keras.ops.image.resize).

    Args:
        height: the output height.
        width: the output width.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        crop_to_aspect_ratio: crop to the target's aspect ratio before resizing.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height, self.width, self.interpolation = int(height), int(width), interpolation
        self.crop_to_aspect_ratio, self.data_format = crop_to_aspect_ratio, data_format

    def call(self, inputs):
        return ops.image.resize(
            inputs,
            (self.height, self.width),
            interpolation=self.interpolation,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            data_format=self.data_format,
        )

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "interpolation": self.interpolation}


class CenterCrop(Layer):
    """The central (height, width) part of images at least that large.

    Args:
        height: the output height.
        width: the output width.
        data_format: ``"channels_last"`` only.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: ``data_format="channels_first"``.

    Raises:
        ValueError: ``data_format="channels_first"``.
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError("tapeviz's CenterCrop supports data_format='channels_last' only.")
        self.height, self.width = int(height), int(width)

    def call(self, inputs):
        """The center ``height`` x ``width`` crop of each image.

        Args:
            inputs: images (batch, height, width, channels) or one image.

        Returns:
            The cropped images.

        Raises:
            ValueError: images smaller than the crop.
        """
        h, w = inputs.shape[-3], inputs.shape[-2]
        if h < self.height or w < self.width:
            raise ValueError(
                f"tapeviz's CenterCrop needs images at least {self.height}x{self.width}, got {h}x{w} "
                "(Keras resizes smaller images first); resize them with Resizing before."
            )
        top, left = (h - self.height) // 2, (w - self.width) // 2
        return inputs[..., top : top + self.height, left : left + self.width, :]

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


class CategoryEncoding(Layer):
    """Integer category ids to vectors of ``num_tokens``: 'multi_hot' (default), 'one_hot' or 'count'.

    Args:
        num_tokens: the number of categories.
        output_mode: ``"multi_hot"``, ``"one_hot"`` or ``"count"``.
        sparse: False only.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: an unknown ``output_mode``, no ``num_tokens``, or ``sparse=True``.

    Raises:
        ValueError: an unknown ``output_mode``, no ``num_tokens``, or ``sparse=True``.
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if num_tokens is None:
            raise ValueError(
                "num_tokens must be set to use this layer. If the number of tokens is not known beforehand, use the IntegerLookup layer instead."
            )
        if output_mode not in ("multi_hot", "one_hot", "count"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if sparse:
            raise ValueError("tapeviz has no sparse tensors: use CategoryEncoding(sparse=False).")
        self.num_tokens, self.output_mode = int(num_tokens), output_mode

    def call(self, inputs, count_weights=None):
        """Encode integer category ids as one-hot, multi-hot or count vectors.

        Args:
            inputs: integer category ids.
            count_weights: a weight per id, for ``output_mode="count"``.

        Returns:
            The encoded Tensor.
        """
        ids = ops.convert_to_tensor(inputs)
        if self.output_mode == "one_hot":
            if len(ids.shape) > 1 and ids.shape[-1] == 1:
                ids = ops.squeeze(ids, axis=-1)
            return ops.one_hot(ids, self.num_tokens, dtype=self._dtype)
        single = len(ids.shape) == 1
        rows = ops.expand_dims(ids, 0) if single else ids
        hot = ops.one_hot(rows, self.num_tokens, dtype=self._dtype)
        out = ops.sum(hot, axis=-2) if self.output_mode == "count" else ops.max(hot, axis=-2)
        return out[0] if single else out

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode}
