"""MultiHeadAttention, as Keras 3 builds it: query/key/value projections per head, scaled dot-product
attention (keras.ops), an output projection; weights ``query/kernel`` (dim, heads, key_dim) ... ``attention_output/bias``."""

import math

from tapeviz.keras import initializers, ops
from tapeviz.keras.layers.base import Layer

__all__ = ["MultiHeadAttention", "Attention", "AdditiveAttention"]


class _HeadProjection(Layer):
    """``einsum(equation, x, kernel) + bias``: one of MultiHeadAttention's four projections (Keras's EinsumDense)."""

    def __init__(self, equation, kernel_shape, bias_shape, kernel_initializer, bias_initializer, **kwargs):
        super().__init__(**kwargs)
        self.equation, self.kernel_shape, self.bias_shape = equation, kernel_shape, bias_shape
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_shape, initializer=self.kernel_initializer)
        self.bias = (
            self.add_weight(name="bias", shape=self.bias_shape, initializer=self.bias_initializer)
            if self.bias_shape is not None
            else None
        )

    def call(self, inputs):
        out = ops.einsum(self.equation, inputs, self.kernel)
        return out if self.bias is None else out + self.bias


class MultiHeadAttention(Layer):
    """``num_heads`` attention heads of size ``key_dim`` over (batch, steps, features) query/value/key.

    ``call(query, value, key=None, attention_mask=None, return_attention_scores=False,
    training=None, use_causal_mask=False)``; the attention is over the steps axis
    (``attention_axes=None``). Masked scores get -1e9 before the softmax, as Keras.

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head's queries and keys.
        value_dim: the size of each head's values (``key_dim`` when None).
        dropout: the dropout rate of the attention scores.
        use_bias: add a bias.
        output_shape: the output's last size (the query's when None).
        attention_axes: None only (attention over the steps).
        kernel_initializer: the kernel's initializer.
        bias_initializer: the bias's initializer.
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: ``attention_axes`` other than None.

    Raises:
        ValueError: ``attention_axes`` other than None.
    """

    def __init__(
        self,
        num_heads,
        key_dim,
        value_dim=None,
        dropout=0.0,
        use_bias=True,
        output_shape=None,
        attention_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if attention_axes is not None:
            raise ValueError("tapeviz's MultiHeadAttention attends over the steps axis only (attention_axes=None).")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim else self.key_dim
        self.dropout, self.use_bias, self.seed = dropout, use_bias, seed
        self._output_dim = output_shape if output_shape is None or isinstance(output_shape, int) else output_shape[-1]
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def _projection(self, name, equation, kernel_shape, bias_shape):
        return _HeadProjection(
            equation,
            kernel_shape,
            bias_shape if self.use_bias else None,
            self.kernel_initializer,
            self.bias_initializer,
            name=name,
        )

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections for a query, value and key of these shapes (the first call does it).

        Args:
            query_shape: the query's shape.
            value_shape: the value's shape (the query's when None).
            key_shape: the key's shape (the value's when None).
        """
        value_shape = value_shape or query_shape
        key_shape = key_shape or value_shape
        heads, key_dim, value_dim = self.num_heads, self.key_dim, self.value_dim
        out_dim = self._output_dim or query_shape[-1]
        self._query_dense = self._projection(
            "query", "abc,cde->abde", (query_shape[-1], heads, key_dim), (heads, key_dim)
        )
        self._key_dense = self._projection("key", "abc,cde->abde", (key_shape[-1], heads, key_dim), (heads, key_dim))
        self._value_dense = self._projection(
            "value", "abc,cde->abde", (value_shape[-1], heads, value_dim), (heads, value_dim)
        )
        self._output_dense = self._projection(
            "attention_output", "abcd,cde->abe", (heads, value_dim, out_dim), (out_dim,)
        )
        self._query_dense.build(query_shape)
        self._key_dense.build(key_shape)
        self._value_dense.build(value_shape)
        self._output_dense.build(tuple(query_shape[:-1]) + (heads, value_dim))

    def __call__(self, query, value=None, key=None, **kwargs):
        if value is None:
            raise TypeError("MultiHeadAttention needs `value`: layer(query, value) (self-attention: layer(x, x)).")
        if not self.built:
            self.build(tuple(query.shape), tuple(value.shape), None if key is None else tuple(key.shape))
            self.built = True
        return super().__call__(query, value=value, key=key, **kwargs)

    def call(
        self,
        query,
        value,
        key=None,
        query_mask=None,
        value_mask=None,
        key_mask=None,
        attention_mask=None,
        return_attention_scores=False,
        training=None,
        use_causal_mask=False,
    ):
        """Attend from each query step to the value steps, as ``keras.layers.MultiHeadAttention``.

        Args:
            query: [batch, target steps, features].
            value: [batch, source steps, features].
            key: the keys (``value`` when None).
            query_mask: a mask of the query's steps.
            value_mask: a mask of the value's steps.
            key_mask: a mask of the key's steps.
            attention_mask: a [batch, target, source] bool mask of allowed pairs.
            return_attention_scores: also return the scores.
            training: whether dropout applies.
            use_causal_mask: let each step attend only to earlier ones.

        Returns:
            The output, or ``(output, scores)``.
        """
        key = value if key is None else key
        q = self._query_dense(query) * (1.0 / math.sqrt(float(self.key_dim)))
        k = self._key_dense(key)
        v = self._value_dense(value)
        scores = ops.einsum("aecd,abcd->acbe", k, q)  # (batch, heads, query steps, key steps)
        mask = None if attention_mask is None else ops.cast(attention_mask, "bool")
        if use_causal_mask:
            steps_q, steps_k = scores.shape[-2], scores.shape[-1]
            causal = ops.cast(ops.tril(ops.ones((steps_q, steps_k))), "bool")
            mask = causal if mask is None else ops.logical_and(mask, causal)
        if mask is not None:
            mask = ops.expand_dims(mask, -3) if len(mask.shape) == 3 else mask
            scores = scores + (1.0 - ops.cast(mask, scores.dtype.name)) * -1e9
        weights = ops.softmax(scores, axis=-1)
        if training and self.dropout:
            from tapeviz.keras import random

            weights = random.dropout(weights, self.dropout, seed=self.seed)
        attended = ops.einsum("acbe,aecd->abcd", weights, v)
        output = self._output_dense(attended)
        return (output, weights) if return_attention_scores else output

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
        }


class Attention(Layer):
    """Dot-product (Luong) attention over ``[query, value]`` or ``[query, value, key]``:
    softmax(query @ key^T (* scale)) @ value; ``score_mode='concat'`` scores with sum(tanh(q + k)).

    Args:
        use_scale: learn a scale of the scores.
        score_mode: ``"dot"`` or ``"concat"``.
        dropout: the dropout rate of the attention scores.
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: an unknown ``score_mode``.

    Raises:
        ValueError: an unknown ``score_mode``.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. Received: score_mode={score_mode}"
            )
        self.use_scale, self.score_mode, self.dropout, self.seed = use_scale, score_mode, dropout, seed

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") if self.use_scale else None
        self.concat_score_weight = (
            self.add_weight(name="concat_score_weight", shape=(), initializer="ones")
            if self.score_mode == "concat"
            else None
        )

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.swapaxes(key, -2, -1))
            return scores * self.scale if self.scale is not None else scores
        summed = ops.expand_dims(query, -2) + ops.expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * ops.sum(ops.tanh(summed), axis=-1)

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        """Dot-product (or concat) attention of a query over a value.

        Args:
            inputs: ``[query, value]`` or ``[query, value, key]``.
            mask: ``[query_mask, value_mask]``, each or both None.
            training: whether dropout applies.
            return_attention_scores: also return the scores.
            use_causal_mask: let each query step attend only to earlier steps.

        Returns:
            The output, or ``(output, scores)``.

        Raises:
            ValueError: ``inputs`` that is not a list of two or three tensors.
        """
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(
                f"{type(self).__name__} layer must be called on a list of inputs, namely [query, value] or [query, value, key]. Received: inputs={inputs}."
            )
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        scores = self._scores(query, key)
        if use_causal_mask:
            steps_q, steps_v = scores.shape[-2], scores.shape[-1]
            causal = ops.cast(ops.tril(ops.ones((steps_q, steps_v))), "bool")
            scores = ops.where(ops.logical_not(causal), scores - 1.0e9, scores)
        weights = ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            from tapeviz.keras import random

            weights = random.dropout(weights, self.dropout, seed=self.seed)
        output = ops.matmul(weights, value)
        return (output, weights) if return_attention_scores else output

    def get_config(self):
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
        }


class AdditiveAttention(Attention):
    """Bahdanau attention: scores sum(scale * tanh(query + key)) over the features (``scale`` a weight per feature).

    Args:
        use_scale: learn a scale of the scores.
        dropout: the dropout rate of the inputs (or attention scores).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        dim = input_shape[0][-1]
        self.scale = (
            self.add_weight(name="scale", shape=(dim,), initializer="glorot_uniform") if self.use_scale else None
        )

    def _scores(self, query, key):
        summed = ops.tanh(ops.expand_dims(query, -2) + ops.expand_dims(key, -3))
        return ops.sum((self.scale if self.scale is not None else 1.0) * summed, axis=-1)
