"""Property tests: random programs of elementwise ops, broadcasting, reductions and
matmul, differentiated by the tape and checked against central finite differences
(float64). Deterministic (derandomize=True), so CI sees the same programs every run.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tapeviz as tf
from tapeviz.core import finite_differences as testing

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None)

UNARY = {
    "exp": lambda x: tf.exp(tf.tanh(x)),  # bounded argument: no overflow along long chains
    "tanh": tf.tanh,
    "sin": tf.sin,
    "square": tf.square,
    "sigmoid": tf.sigmoid,
    "neg": lambda x: -x,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (tf.square(b) + 1.5),  # denominators kept away from zero
}
REDUCE = {"sum": tf.reduce_sum, "mean": tf.reduce_mean}


# -- programs ------------------------------------------------------------------------------------


@st.composite
def programs(draw):
    """(input shapes, number of leading inputs, steps): each step makes a new value
    from earlier ones. Matmul steps append their right-hand matrix to the inputs."""
    rank = draw(st.integers(0, 3).map(lambda r: (2, 3, 1, 0)[r]))  # simplest examples are not scalars
    base = tuple(draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank)))
    shapes = []
    for _ in range(draw(st.integers(2, 3))):
        # broadcast-compatible with `base`: drop leading dims, set some to 1
        keep = rank - draw(st.integers(0, rank))
        shape = tuple(1 if draw(st.booleans()) else n for n in base[rank - keep :])
        shapes.append(shape)
    leading = len(shapes)
    values = list(shapes)  # the shape of every value so far (leading inputs first)
    steps = []
    for _ in range(draw(st.integers(3, 7))):
        kind = draw(st.sampled_from(["binary", "matmul", "unary", "reduce", "binary", "unary"]))
        i = draw(st.integers(0, len(values) - 1))
        shape = values[i]
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY))), i))
            values.append(shape)
        elif kind == "binary":
            j = draw(st.integers(0, len(values) - 1))
            try:
                out = np.broadcast_shapes(shape, values[j])
            except ValueError:
                continue
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))), i, j))
            values.append(out)
        elif kind == "reduce":
            r = len(shape)
            axis = draw(st.one_of(st.none(), st.integers(-r, r - 1))) if r else None
            keepdims = draw(st.booleans())
            steps.append(("reduce", draw(st.sampled_from(sorted(REDUCE))), i, axis, keepdims))
            if axis is None:
                out = (1,) * r if keepdims else ()
            else:
                out = list(shape)
                if keepdims:
                    out[axis] = 1
                else:
                    del out[axis]
                out = tuple(out)
            values.append(out)
        else:  # matmul with a new input matrix, on a rank-2 (or batched rank-3) value
            if len(shape) < 2:
                continue
            k = draw(st.integers(1, 3))
            shapes.append(shape[:-2] + (shape[-1], k))
            steps.append(("matmul", i, len(shapes) - 1))
            values.append(shape[:-1] + (k,))
    # the output combines the last value with the first input, so every program
    # depends on at least one input and the sweep sees fan-out
    return shapes, leading, steps


def run(program, inputs):
    _, leading, steps = program
    values = list(inputs[:leading])
    for step in steps:
        kind = step[0]
        if kind == "unary":
            values.append(UNARY[step[1]](values[step[2]]))
        elif kind == "binary":
            values.append(BINARY[step[1]](values[step[2]], values[step[3]]))
        elif kind == "reduce":
            _, name, i, axis, keepdims = step
            values.append(REDUCE[name](values[i], axis=axis, keepdims=keepdims))
        else:
            values.append(tf.matmul(values[step[1]], inputs[step[2]]))
    return values[-1] * tf.reduce_sum(values[0]) + tf.reduce_mean(tf.tanh(values[-1]))


def arrays_for(program, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, size=shape) for shape in program[0]]


def check(program, seed, make_input=tf.constant):
    arrays = arrays_for(program, seed)
    fn = lambda *xs: run(program, list(xs))  # noqa: E731
    weights = testing.projection_weights(fn, arrays, seed=seed, make_input=make_input)
    analytic = testing.analytic_gradients(fn, arrays, weights, make_input=make_input)
    numeric = testing.numeric_gradients(fn, arrays, weights, eps=1e-6, make_input=make_input)
    for position, (a, n, x) in enumerate(zip(analytic, numeric, arrays)):
        a = np.zeros_like(x) if a is None else a
        assert a.shape == x.shape, f"input {position}: gradient shape {a.shape} != {x.shape}"
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-7, err_msg=f"input {position}: {program}")


@SETTINGS
@given(programs(), st.integers(0, 2**16))
def test_random_programs_match_finite_differences(program, seed):
    check(program, seed)


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(programs(), st.integers(0, 2**16))
def test_random_programs_through_variables(program, seed):
    check(program, seed, make_input=tf.Variable)


@SETTINGS
@given(
    st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.sampled_from(sorted(BINARY)),
    st.integers(0, 2**16),
)
def test_broadcast_gradient_has_the_source_shape(shape, ones, op, seed):
    """d/dx and d/dy of a broadcasting binary op sum back to each input's shape."""
    small = tuple(1 if o else n for n, o in zip(shape, ones))[len(shape) // 2 :]
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, size=shape), rng.uniform(-1, 1, size=small)
    fn = lambda x, y: BINARY[op](x, y)  # noqa: E731
    weights = testing.projection_weights(fn, [a, b], seed=seed)
    analytic = testing.analytic_gradients(fn, [a, b], weights)
    numeric = testing.numeric_gradients(fn, [a, b], weights)
    for g, n, x in zip(analytic, numeric, (a, b)):
        assert g.shape == x.shape
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7)


@SETTINGS
@given(programs(), st.integers(0, 2**16))
def test_persistent_tape_gives_the_same_gradient_twice(program, seed):
    inputs = [tf.constant(a) for a in arrays_for(program, seed)]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(inputs)
        out = run(program, inputs)
    first = tape.gradient(out, inputs, unconnected_gradients="zero")
    second = tape.gradient(out, inputs, unconnected_gradients="zero")
    for a, b in zip(first, second):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
