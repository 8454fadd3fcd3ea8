"""Finite-difference cases for every gradient rule, one module per op family.

Each module defines ``CASES``: a dict from primitive name to a ``Case``.
``tests/core/test_rules.py`` requires a case for every rule in the table.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class Case:
    """How to exercise one primitive: ``fn(*tensors)`` at float64 ``inputs``.

    Pick inputs away from kinks and ties (finite differences cannot see
    them; tests of TF's conventions there are separate). ``second_order``
    is False only for rules that are not twice differentiable.
    """

    fn: Callable
    inputs: list
    second_order: bool = True
    wrt: tuple = None  # which inputs to differentiate (default: all float ones)
    tol: float = 1e-5
    eps: float = 1e-6  # finite-difference step; larger for ops that round (float32 casts)
    notes: str = ""
    variables: bool = False  # pass the inputs as tf.Variable (differentiate through reads)

    def make_input(self, array):
        import tapeviz as tf

        return tf.Variable(array) if self.variables else tf.constant(array)


def rand(*shape, low=-1.0, high=1.0, seed=0):
    """Float64 uniform values, deterministic."""
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, size=shape)


def collect():
    from tests.rule_cases import array, complex, conv, custom, image, linalg, math, nn, scatter  # noqa: F401

    cases = {}
    for module in (math, array, linalg, nn, conv, custom, scatter, image, complex):
        for name, case in module.CASES.items():
            if name in cases:
                raise ValueError(f"Two cases for {name}")
            cases[name] = case
    return cases
