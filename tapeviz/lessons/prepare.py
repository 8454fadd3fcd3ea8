"""``lessons.setup()``: what every lesson notebook runs first."""

import numpy as np


def setup(precision=4):
    """Prepare a lesson notebook.

    * turns on the visualizer's recorder (``tapeviz.viz.watch_all()``) so every
      tape made from now on can be drawn and its reverse sweep played, even
      after a non-persistent tape released what it held;
    * keeps the tensors every gradient call returns, so an exercise that asks for
      a gradient computed by a tape can tell it from a typed number;
    * prints NumPy arrays with ``precision`` digits, so outputs stay short.

    Args:
        precision: the digits NumPy prints.
    """
    import tapeviz.viz as viz
    from tapeviz.lessons import provenance

    viz.watch_all()
    provenance.start()
    np.set_printoptions(precision=precision, suppress=True)
