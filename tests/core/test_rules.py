"""Every rule in the table against central finite differences (float64), first and second order."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tapeviz.core.rules import RULES

RULE_NAMES = {rule.name for rule in RULES.values()}
from tests.rule_cases import collect

CASES = collect()


def test_every_rule_has_a_case():
    missing = sorted(RULE_NAMES - set(CASES))
    assert not missing, f"gradient rules without a finite-difference case: {missing}"


def test_every_case_names_a_rule():
    assert not sorted(set(CASES) - RULE_NAMES)


def _inputs(case):
    return [np.array(a, dtype=np.float64) for a in case.inputs]


def _recorded_primitives(case, arrays):
    seen = set()

    def listen(event):
        if event.kind == "op_executed" and event.tapes:
            seen.add(event.entry.primitive.name)

    with tf.events.listening(listen):
        tensors = [case.make_input(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            out = case.fn(*tensors)
        tape.gradient(out, tensors)
    return seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_exercises_its_primitive(name):
    case = CASES[name]
    assert name in _recorded_primitives(case, _inputs(case)), f"the case for {name} never runs it on a tape"


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order(name):
    case = CASES[name]
    arrays = _inputs(case)
    make = case.make_input
    weights = testing.projection_weights(case.fn, arrays, make_input=make)
    analytic = testing.analytic_gradients(case.fn, arrays, weights, make_input=make)
    numeric = testing.numeric_gradients(case.fn, arrays, weights, eps=case.eps, make_input=make)
    for position, (a, n) in enumerate(zip(analytic, numeric)):
        if case.wrt is not None and position not in case.wrt:
            continue
        assert a is not None, f"{name}: no gradient for input {position}"
        np.testing.assert_allclose(a, n, rtol=case.tol, atol=case.tol, err_msg=f"{name} input {position}")


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.second_order))
def test_second_order(name):
    case = CASES[name]
    arrays = _inputs(case)
    make = case.make_input
    weights = testing.projection_weights(case.fn, arrays, make_input=make)
    rng = np.random.default_rng(1)
    vectors = [rng.uniform(-1, 1, size=a.shape) for a in arrays]
    analytic = testing.hessian_vector(case.fn, arrays, weights, vectors, make_input=make)
    numeric = testing.numeric_hessian_vector(
        case.fn, arrays, weights, vectors, eps=max(case.eps, 1e-5), make_input=make
    )
    for position, (a, n) in enumerate(zip(analytic, numeric)):
        if case.wrt is not None and position not in case.wrt:
            continue
        if a is None:  # linear in this input: the second derivative is zero
            np.testing.assert_allclose(n, 0.0, atol=1e-4, err_msg=f"{name} input {position}")
        else:
            np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-4, err_msg=f"{name} input {position}")
