"""The chain-rule card's local derivatives, derived from the rules, against finite differences.

Each derivative is written once, in its rule (beside its kernel in tapeviz.core.primitives); the
card's ``upstream x local = product`` takes the local derivative from the
rule itself (tapeviz.core.local_derivatives). Here the derived value of every
elementwise rule is checked against float64 central finite differences of the
primitive's own kernel, at the values recorded on each rule's case
(tests/rule_cases), and every other rule must at least say in words what its
local derivative is for each input that gets a gradient.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.local_derivatives import local_derivatives
from tapeviz.core.rules import RULES, Local, rule_named
from tapeviz.core.tensor import to_array
from tapeviz.viz.card_parts import named
from tests.rule_cases import collect

CASES = collect()


def test_every_rule_says_how_the_card_writes_its_local_derivative():
    missing = sorted(rule.name for rule in RULES.values() if not isinstance(rule.local, Local))
    assert not missing, f"rules whose local= is not an elementwise()/described() text: {missing}"


def test_rules_are_keyed_by_the_primitive_object():
    for primitive, rule in RULES.items():
        assert rule.primitive is primitive and rule_named(primitive.name) is rule
    with pytest.raises(TypeError, match="Primitive object"):
        tf.core.rules.defgrad("Sin", "d sin(x)/dx = cos(x)")


def _entries(case, name):
    """The recorded entries of primitive ``name`` in the case's forward pass and first-order sweep."""
    entries = []

    def listen(event):
        if event.kind == "op_executed" and event.entry.primitive.name == name:
            entries.append(event.entry)

    arrays = [np.array(a, dtype=np.float64) for a in case.inputs]
    with tf.events.listening(listen):
        tensors = [case.make_input(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            out = tf.reduce_sum(case.fn(*tensors) * 1.5)
        tape.gradient(out, tensors)
    return entries


def _inexact(tensor):
    """Gradients flow through float and complex tensors."""
    return tensor.dtype.is_floating or tensor.dtype.is_complex


def _gets_a_gradient(entry):
    """One bool per input: does the rule give it a gradient (upstream ones on every float output)?"""
    needs = tuple(_inexact(x) for x in entry.inputs)
    upstream = [tf.ones_like(o) if _inexact(o) else None for o in entry.outputs]
    with tf.core.state.no_tapes():
        grads = rule_named(entry.primitive.name).fn(entry, needs, *upstream)
    return [g is not None for g in (grads if isinstance(grads, (tuple, list)) else (grads,))]


def _kernel(entry):
    # A variable read has no kernel: its output is the variable's value.
    kernel = entry.primitive.kernel or (lambda v: v)
    return lambda *arrays: np.asarray(kernel(*arrays, **entry.attrs), dtype=np.float64)


def _finite_difference(entry, position, eps):
    """d(output)/d(input ``position``) per output element: move every element of that input at once
    (an elementwise output element depends on one element of it, broadcast or not)."""
    arrays = [np.asarray(to_array(t)) for t in entry.inputs]
    kernel = _kernel(entry)

    def at(shift):
        moved = list(arrays)
        moved[position] = arrays[position] + shift
        return kernel(*moved)

    return (at(eps) - at(-eps)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_derived_local_derivative_is_the_finite_difference(name):
    case = CASES[name]
    entries = _entries(case, name)  # a *Grad primitive runs in the sweep (depth 1)
    assert entries, f"the case for {name} never runs it"
    rule = rule_named(name)
    for entry in entries:
        described = local_derivatives(entry)
        assert len(described) == len(entry.inputs), f"{name}: one description per input"
        for position, (gets, item) in enumerate(zip(_gets_a_gradient(entry), described)):
            if not gets:
                continue
            if case.wrt is not None and position not in case.wrt:
                continue
            assert item is not None, f"{name}: input {position} gets a gradient but the card has no text for it"
            text, value = item
            assert isinstance(text, str) and text.strip()
            if not rule.local.elementwise:
                assert value is None
                continue
            assert value.shape == tuple(entry.outputs[0].shape), f"{name}: a local per output element"
            np.testing.assert_allclose(
                value,
                np.broadcast_to(_finite_difference(entry, position, case.eps), value.shape),
                rtol=max(case.tol, 1e-5),
                atol=max(case.tol, 1e-6),
                err_msg=f"{name}: derived local derivative of input {position} != finite differences",
            )


def _entry_of(fn, *values):
    seen = []
    with tf.events.listening(lambda e: e.kind == "op_executed" and seen.append(e.entry)):
        with tf.GradientTape() as tape:
            tensors = [tf.constant(v) for v in values]
            tape.watch(tensors)
            fn(*tensors)
    return seen[-1]


def test_a_constant_exponent_is_written_in_and_evaluated():
    (text, value), _ = local_derivatives(_entry_of(lambda x, n: x**n, 3.0, 2.0))
    assert text == "2*x" and float(value) == 6.0
    assert local_derivatives(_entry_of(lambda x, n: x**n, 3.0, 3.0))[0][0] == "3*x**2"


def test_a_broadcast_input_gets_its_local_at_every_output_element():
    # d(x*y)/dy = x for a scalar y: one local per element of x, not their sum.
    (_, dx), (_, dy) = local_derivatives(_entry_of(lambda x, y: x * y, [1.0, 2.0, 4.0], 10.0))
    np.testing.assert_array_equal(dx, [10.0, 10.0, 10.0])
    np.testing.assert_array_equal(dy, [1.0, 2.0, 4.0])


def test_the_card_puts_the_tensors_names_in_the_rules_symbols():
    assert named("y", "Mul", ["x", "x"]) == "x"
    assert named("x/(x²+y²)", "Atan2", ["a", "b"]) == "b/(b²+a²)"
    assert named("2*x", "Pow", ["w", "n"]) == "2*w"


def test_deriving_a_local_records_nothing_on_the_tapes_and_tells_the_session_recorder_nothing():
    entry = _entry_of(lambda x: tf.sin(x), 0.5)
    seen = []
    listener = seen.append  # one bound method, to unsubscribe the same object
    with tf.GradientTape() as outer:
        tf.events.subscribe(listener, untaped_sweep_ops=False)  # as the session recorder does
        try:
            ((text, value),) = local_derivatives(entry)
        finally:
            tf.events.unsubscribe(listener)
    assert text == "cos(x)" and np.isclose(float(value), np.cos(0.5))
    assert not seen and not outer._entries
