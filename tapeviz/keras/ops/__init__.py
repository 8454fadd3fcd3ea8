"""``keras.ops``: Keras 3's backend-agnostic ops, on tapeviz tensors.

``from tapeviz.keras import ops`` (or ``keras.ops`` after
``import tapeviz.keras as keras``) gives the NumPy-style functions
(``ops.numpy``), the neural-network ones (``ops.nn``), linear algebra
(``ops.linalg``) and the core and math functions, all in one namespace as
Keras 3 has them. Each is composed of tapeviz's primitives, so it is
differentiable on the tape and drawn under its Keras name.
"""

from tapeviz.keras.ops import image, linalg, nn, numpy  # noqa: F401
from tapeviz.keras.ops.core import *  # noqa: F401,F403
from tapeviz.keras.ops.linalg import *  # noqa: F401,F403
from tapeviz.keras.ops.nn import *  # noqa: F401,F403
from tapeviz.keras.ops.numpy import *  # noqa: F401,F403
