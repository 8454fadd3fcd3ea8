"""``tf.keras.layers``."""

from tapeviz.keras.layers.activations import ELU, LeakyReLU, ReLU, Softmax  # noqa: F401
from tapeviz.keras.layers.base import InputSpec, Layer  # noqa: F401
from tapeviz.keras.layers.conv import (  # noqa: F401
    Conv1D, Conv2D, Conv2DTranspose, Convolution1D, Convolution2D, Convolution2DTranspose, MaxPool2D, MaxPooling2D,
)
from tapeviz.keras.layers.core import (  # noqa: F401
    Activation, Dense, Dropout, Embedding, Flatten, Input, InputLayer, Reshape,
)
from tapeviz.keras.layers.merging import (  # noqa: F401
    Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract,
    add, average, concatenate, maximum, minimum, multiply, subtract,
)
from tapeviz.keras.layers.normalization import BatchNormalization, LayerNormalization  # noqa: F401
from tapeviz.keras.layers.pooling import (  # noqa: F401
    AveragePooling1D, AveragePooling2D, AvgPool2D, GlobalAveragePooling1D, GlobalAveragePooling2D,
    GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPooling1D,
)
from tapeviz.keras.layers.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell  # noqa: F401

__all__ = ["Layer", "InputSpec", "Dense", "Flatten", "Dropout", "Activation", "Embedding", "Reshape",
           "InputLayer", "Input", "BatchNormalization", "LayerNormalization", "Conv1D", "Conv2D", "Conv2DTranspose",
           "Convolution1D", "Convolution2D", "Convolution2DTranspose", "MaxPooling1D", "MaxPooling2D", "MaxPool2D",
           "AveragePooling1D", "AveragePooling2D", "AvgPool2D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "ReLU", "LeakyReLU", "Softmax", "ELU",
           "Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
           "concatenate", "add", "subtract", "multiply", "average", "maximum", "minimum",
           "RNN", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell"]
