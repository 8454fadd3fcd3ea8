"""``set_random_seed``: one seed for Python, NumPy, tapeviz and keras.random."""

import numpy as np


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy, ``tf.random`` and keras.random's global SeedGenerator, as Keras does.

    Args:
        seed: an int.

    Raises:
        ValueError: a seed that is not an int.
    """
    import random

    from tapeviz import random as tf_random

    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    from tapeviz.keras import random as keras_random

    random.seed(seed)
    np.random.seed(seed)
    tf_random.set_seed(seed)
    keras_random.reset_global_seed_generator(seed)  # keras.random draws with seed=None repeat too
