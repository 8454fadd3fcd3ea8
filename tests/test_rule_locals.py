"""Every rule describes its local derivative for the chain-rule card, and the description is right.

The player's card shows ``upstream x local = product`` at each backward step.
``local`` (see tapeviz.core.gradients) evaluates the local derivative at the
recorded values; for elementwise rules the product must be exactly what the
rule computed (summed back over broadcast axes), which is checked here on the
finite-difference case of every rule.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.gradients import RULES, local_derivatives
from tests.rule_cases import collect

CASES = collect()


def test_every_rule_describes_its_local_derivative():
    missing = sorted(name for name, rule in RULES.items() if rule.local is None)
    assert not missing, f"gradient rules without local= (the chain-rule card needs it): {missing}"


def _sum_to(array, shape):
    """Undo broadcasting, as the rules' unbroadcast does."""
    while array.ndim > len(shape):
        array = array.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and array.shape[axis] != 1:
            array = array.sum(axis=axis, keepdims=True)
    return array.reshape(shape)


def _steps_of(case, name):
    """The backward steps of primitive ``name`` in the case's first-order sweep."""
    steps = []

    def listen(event):
        if event.kind == "backward_step" and event.entry.primitive.name == name:
            steps.append(event)

    arrays = [np.array(a, dtype=np.float64) for a in case.inputs]
    with tf.events.listening(listen):
        tensors = [case.make_input(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            out = tf.reduce_sum(case.fn(*tensors) * 1.5)
        tape.gradient(out, tensors)
    return steps


@pytest.mark.parametrize("name", sorted(CASES))
def test_local_times_upstream_is_the_rules_gradient(name):
    steps = _steps_of(CASES[name], name)
    assert steps, f"the case for {name} never differentiates it"
    for step in steps:
        entry = step.entry
        inputs = [np.asarray(t) for t in entry.inputs]  # host values, as the card passes them
        outputs = [np.asarray(t) for t in entry.outputs]
        described = local_derivatives(name, inputs, outputs, entry.attrs)
        assert len(described) == len(inputs), f"{name}: one description per input"
        for position, (grad, need, item) in enumerate(zip(step.grads, step.needs, described)):
            if grad is None or not need:
                continue
            assert item is not None, f"{name}: input {position} gets a gradient but has no local derivative"
            text, value = item
            assert isinstance(text, str) and text.strip()
            if value is None:
                continue  # not elementwise: the card shows the text and the rule's product
            upstream = np.asarray(step.upstream[0]).astype(np.float64)
            product = _sum_to(np.broadcast_to(upstream * value, value.shape), inputs[position].shape)
            np.testing.assert_allclose(
                product,
                np.asarray(grad).astype(np.float64),
                rtol=1e-5,
                atol=1e-6,
                err_msg=f"{name}: upstream x local != the rule's gradient for input {position}",
            )


def test_a_constant_exponent_is_written_in():
    x = np.array(3.0)
    described = local_derivatives("Pow", [x, np.array(2.0)], [x**2], {})
    assert described[0][0] == "2*x" and float(described[0][1]) == 6.0
    assert local_derivatives("Pow", [x, np.array(3.0)], [x**3], {})[0][0] == "3*x**2"
