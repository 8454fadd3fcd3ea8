"""Every GradientTape example in the seed documents, run on tapeviz.

The code is verbatim from ../shared/seeds/*.txt except ``import tapeviz as tf``;
the numbers asserted are the ones the documents print or promise. (The
training-loop patterns are tested with the keras stack.)
"""

import tapeviz as tf


def test_basic_gradient_of_variable(capsys):
    # seed 000, Example 1
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    dy_dx = tape.gradient(y, x)
    print(dy_dx)  # Output: 6.0
    assert dy_dx.numpy() == 6.0
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\n"


def test_gradient_with_manual_watch():
    # seed 000, Example 2
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    dy_dx = tape.gradient(y, x)
    assert dy_dx.numpy() == 6.0
    assert dy_dx.dtype == tf.float32


def test_basic_gradient_x_times_x():
    # seed 002, Basic Gradient Calculation
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dy_dx = tape.gradient(y, x)
    assert dy_dx.numpy() == 6.0


def test_higher_order_with_persistent_outer_tape():
    # seed 002, Higher Order Gradients
    x = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as tape1:
        with tf.GradientTape() as tape2:
            y = x * x
        dy_dx = tape2.gradient(y, x)
    d2y_dx2 = tape1.gradient(dy_dx, x)
    assert dy_dx.numpy() == 2.0
    assert d2y_dx2.numpy() == 2.0


def test_seed_004_constant_repr():
    # seed 004, In [2]: the repr (TF 2.0 also showed an id=, later versions do not)
    x = tf.constant(3.0)
    assert repr(x) == "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>"


def test_seed_004_watch_and_print(capsys):
    # seed 004, In [3]
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dy_dx = tape.gradient(y, x)  # Will compute to 6.0

    print(dy_dx)
    print("Value:", dy_dx.numpy())
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\nValue: 6.0\n"


def test_seed_004_nested_tapes(capsys):
    # seed 004, In [4]
    x = tf.constant(3.0)
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        with tf.GradientTape() as tape3:
            tape3.watch(x)
            y = x * x
        dy_dx = tape3.gradient(y, x)
    d2y_d2x = tape2.gradient(dy_dx, x)

    print("Function: y = x * x, x = 3.0")
    print("First Derivative:", dy_dx.numpy())
    print("Second Derivative:", d2y_d2x.numpy())
    assert capsys.readouterr().out == ("Function: y = x * x, x = 3.0\nFirst Derivative: 6.0\nSecond Derivative: 2.0\n")


def test_seed_004_persistent_tape(capsys):
    # seed 004, In [5]
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as persistent_tape:
        persistent_tape.watch(x)
        y = x * x
        z = y * y
    dz_dx = persistent_tape.gradient(z, x)  # 108.0 (4*x^3 at x = 3)
    dy_dx = persistent_tape.gradient(y, x)  # 6.0
    print("First derivative of function y = x ^ 4 at x = 3 is", dz_dx.numpy())

    # Drop the reference to the tape
    del persistent_tape
    assert dz_dx.numpy() == 108.0
    assert dy_dx.numpy() == 6.0
    assert capsys.readouterr().out == "First derivative of function y = x ^ 4 at x = 3 is 108.0\n"


def test_seed_004_disable_automatic_tracking(capsys):
    # seed 004, In [6]
    variable_a = tf.Variable(3.0, name="x1")
    variable_b = tf.Variable(2.0, name="x2")

    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as disable_tracking_tape:
        disable_tracking_tape.watch(variable_a)
        y = variable_a**2  # Gradients will be available for `variable_a`.
        z = variable_b**3  # No gradients will be available since `variable_b` is
        # not being watched.
    gradient_1 = disable_tracking_tape.gradient(y, variable_a)  # 6.0
    gradient_2 = disable_tracking_tape.gradient(z, variable_b)  # None

    print(gradient_1)
    print(gradient_2)
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\nNone\n"
    assert disable_tracking_tape.watched_variables() == (variable_a,)


def test_gradient_tape_signature_defaults():
    # seed 004: GradientTape(persistent=False, watch_accessed_variables=True)
    tape = tf.GradientTape()
    assert tape.persistent is False
    assert tape.watch_accessed_variables is True


def test_gradient_of_list_of_variables_keeps_shapes():
    # seed 003: "handle lists of variables, providing gradients for each variable
    # independently, maintaining their shapes"
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    b = tf.Variable([0.5, -0.5])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.matmul(tf.constant([[1.0, 1.0]]), w) + b)
    grads = tape.gradient(loss, [w, b])
    assert isinstance(grads, list)
    assert grads[0].shape == (2, 2) and grads[1].shape == (2,)
    assert grads[0].numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert grads[1].numpy().tolist() == [1.0, 1.0]
