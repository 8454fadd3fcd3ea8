"""What AutoGraph's converted code calls (``ag__.if_stmt``...): Python control flow, or graph control flow
when the condition (or a loop variable, or the iterated tensor) comes from a traced function's inputs.

Eagerly, and for conditions a trace holds as constants, each runs the Python
statement itself; otherwise ``tf.cond`` / ``tf.while_loop`` (core.control_flow),
with TF's errors for what a graph cannot hold (a name bound in only one branch,
a loop variable undefined before the loop, a ``return`` in a tensor loop).
"""

from tapeviz.core import control_flow, state
from tapeviz.core.tensor import Tensor, convert_to_tensor


class Undefined:
    """A name not bound yet where a converted statement starts."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


def _undefined(value):
    return isinstance(value, Undefined)


def _math():
    from tapeviz.core.primitives import math

    return math


def not_(value):
    if isinstance(value, Tensor):
        return _math().logical_not(value)
    return not value


def and_(first, second):
    value = first()
    if isinstance(value, Tensor):
        return _math().logical_and(value, convert_to_tensor(second()))
    return value and second()


def or_(first, second):
    value = first()
    if isinstance(value, Tensor):
        return _math().logical_or(value, convert_to_tensor(second()))
    return value or second()


def if_stmt(test, true_fn, false_fn, values, names):
    """``names``' new values after ``if test: true_fn(*values) else: false_fn(*values)``."""
    if not control_flow.is_symbolic(test):
        return (true_fn if control_flow.as_bool(test, "The if condition") else false_fn)(*values)
    return control_flow.traced_cond(convert_to_tensor(test), lambda: true_fn(*values), lambda: false_fn(*values), names)


def if_exp(test, true_fn, false_fn):
    """``true_fn() if test else false_fn()``, a tf.cond when ``test`` is traced."""
    if not control_flow.is_symbolic(test):
        return true_fn() if control_flow.as_bool(test, "The condition") else false_fn()
    return control_flow.traced_cond(convert_to_tensor(test), true_fn, false_fn)


def while_stmt(test_fn, body_fn, values, names):
    """``names``' values after ``while test_fn(*values): values = body_fn(*values)``."""
    values = tuple(values)
    while True:  # as TF: a graph loop once the condition is a traced tensor, Python turns before that
        test = test_fn(*values)
        if control_flow.is_symbolic(test):
            return _graph_loop(test_fn, body_fn, values, names)
        if not control_flow.as_bool(test, "The loop condition"):
            return values
        values = tuple(body_fn(*values))


def _graph_loop(test_fn, body_fn, values, names):
    for name, value in zip(names, values):
        if _undefined(value):
            raise ValueError(f"'{name}' must be defined before the loop.")
    return tuple(control_flow.traced_while(test_fn, body_fn, values, names))


def for_stmt(iterable, extra_test, body_fn, values, names):
    """``names``' values after ``for item in iterable: values = body_fn(item, *values)`` (while ``extra_test``)."""
    values = tuple(values)
    if isinstance(iterable, Tensor) and state.local.tracers:
        # a TensorArray carried over a loop of known length is unrolled: its element shape may be unknown yet
        carries_array = any(control_flow.is_loop_composite(v) for v in values)
        if control_flow.is_symbolic(iterable) or (
            not carries_array and any(control_flow.is_symbolic(v) for v in values)
        ):
            return _graph_for(iterable, 0, extra_test, body_fn, values, names)
    for position, item in enumerate(iterable):
        if extra_test is not None:
            keep_going = extra_test(*values)
            if control_flow.is_symbolic(keep_going):
                if not isinstance(iterable, Tensor):
                    raise NotImplementedError(
                        "a break that depends on a tensor cannot end a loop over a Python collection; iterate "
                        "over a tensor (tf.range, tf.constant(...)) instead."
                    )
                return _graph_for(iterable, position, extra_test, body_fn, values, names)
            if not control_flow.as_bool(keep_going, "The loop condition"):
                break
        values = tuple(body_fn(item, *values))
    return values


def _graph_for(iterable, start, extra_test, body_fn, values, names):
    from tapeviz.core.primitives import array

    math = _math()
    count = array.shape(iterable, out_type="int32")[0]

    def test(index, *current):
        more = math.less(index, count)
        if extra_test is None:
            return more
        return math.logical_and(more, convert_to_tensor(extra_test(*current)))

    def body(index, *current):
        item = array.gather(iterable, index)
        return (index + 1, *body_fn(item, *current))

    first = convert_to_tensor(start, dtype="int32")
    result = _graph_loop(test, body, (first, *values), ("iteration", *names))
    return tuple(result[1:])


def if_test_with_return(test):
    if control_flow.is_symbolic(test):
        raise NotImplementedError(
            "tapeviz's AutoGraph cannot convert a return inside a tensor-dependent if that does not end both "
            "branches; assign the result to a variable and return it after the if."
        )
    return test


def _no_return_in_loop():
    return NotImplementedError(
        "a return statement cannot be placed inside this TensorFlow loop; this may happen if a return statement "
        "depends on a static Python condition such as a hyperparameter"
    )


def loop_test_with_return(test):
    if control_flow.is_symbolic(test):
        raise _no_return_in_loop()
    return test


def iter_with_return(iterable):
    if control_flow.is_symbolic(iterable):
        raise _no_return_in_loop()
    return iterable
