"""Every exercise of the lessons: its question, hint, check and solution.

Questions and hints never contain the answer; the hint is shown only after a
wrong answer. Where the student writes code, the answer is the function, run
by its judge (:mod:`tapeviz.lessons.judges`) on fresh inputs.
"""

from tapeviz.lessons import judges


class Exercise:
    """One exercise: its question, and either an ``expected`` value or a ``judge``.

    ``judge(answer) -> (ok, message)`` replaces the comparison (and may raise
    :class:`~tapeviz.lessons.answers.Refused`); ``mistakes`` pairs values a
    misconception gives with the message that names it, and ``otherwise``
    says what to look at for any other wrong value; ``solution`` is the
    code for the exercise cell, ending with the check. ``from_tape``: the answer
    must be what a gradient call returned (a typed number is refused).

    Args:
        question: what the student is asked.
        expected: the right value (or None with a ``judge``).
        hint: shown after a wrong answer.
        judge: a function of the answer returning ``(ok, message)``, instead of ``expected``.
        tolerance: how close a number must be to ``expected``.
        solution: the code of the exercise cell.
        mistakes: ``(value, message)`` pairs for the values a misconception gives.
        otherwise: what to say about any other wrong value.
        from_tape: the answer must come from a gradient call.
    """

    def __init__(
        self,
        question,
        expected=None,
        hint="",
        judge=None,
        tolerance=1e-4,
        solution="",
        mistakes=(),
        otherwise="",
        from_tape=False,
    ):
        self.question = question
        self.expected = expected
        self.hint = hint
        self.judge = judge
        self.tolerance = tolerance
        self.solution = solution.strip("\n")
        self.mistakes = tuple(mistakes)
        self.otherwise = otherwise  # what to look at when a wrong answer matches no known misconception
        self.from_tape = from_tape


EXERCISES = {
    # 01
    "01.cube": Exercise(
        "d/dx (x**3 + 2*x) at x = 2.0, from a tape?",
        14.0,
        "Record y = x**3 + 2*x inside the tape, then tape.gradient(y, x) after the block. Work out each term's "
        "derivative by hand and compare.",
        mistakes=[
            (12.0, "that is the derivative of x**3 alone: the 2*x term sends its own gradient too."),
            (16.0, "the derivative of 2*x is the constant 2, not 2x."),
        ],
        otherwise="did the tape record both terms? Compute y inside the with block, ask for dy/dx after it, "
        "and compare with your own derivative, term by term.",
        from_tape=True,
        solution="""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 3 + 2 * x
answer = tape.gradient(y, x)  # 3 * x**2 + 2 = 14
lessons.check("01.cube", answer)
""",
    ),
    "01.which_none": Exercise(
        "Predict [dy/da, dy/db, dy/dc] for y = a*b + c*c (a a variable, b watched, c never watched).",
        judge=judges.which_none,
        hint="What does the tape watch? Variables when read, and what you pass to tape.watch. Everything else "
        "is a plain number to it.",
        solution="""
# a: a trainable variable, watched when read. b: watched by hand. c: never watched.
answer = tape.gradient(y, [a, b, c])  # [b, a, None] = [3, 2, None]
lessons.check("01.which_none", answer)
""",
    ),
    # 02
    "02.which_watched": Exercise(
        "The names of the variables the tape watched, in order (a list of str)?",
        judge=judges.watched_names,
        hint="Watched: trainable variables read inside the block. tape.watched_variables() confirms it.",
        solution="""
answer = [v.name for v in tape.watched_variables()]  # w and b; not count (trainable=False), not unused (never read)
lessons.check("02.which_watched", answer)
""",
    ),
    "02.selective": Exercise(
        "Write selective(a, b): the gradients [d loss/d a, d loss/d b] of loss = a * b ** 3 from a tape that "
        "watches only b. Answer with the function.",
        judge=judges.selective,
        hint="tf.GradientTape(watch_accessed_variables=False), then tape.watch(b) inside the block.",
        solution="""
def selective(a, b):
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        loss = a * b ** 3
    return tape.gradient(loss, [a, b])  # [None, 3 * a * b**2]

print(selective(a, b))
answer = selective
lessons.check("02.selective", answer)
""",
    ),
    "02.unwatched_read": Exercise(
        "Predict [d total/d p, d total/d q] for the tape above (watch_accessed_variables=False, only p watched).",
        judge=judges.unwatched_read,
        hint="Reading a variable watches it only when the tape watches accessed variables. In the picture, is q "
        "a variable or a constant?",
        solution="""
# q is read, but this tape does not watch what it reads: q is a constant to it
answer = tape.gradient(total, [p, q])  # [q, None] = [3, None]
lessons.check("02.unwatched_read", answer)
""",
    ),
    # 03
    "03.two_gradients": Exercise(
        "Write two_gradients(x): [dy/dx, dz/dx] for y = x**3, z = y**2 from ONE tape, released when done. "
        "Answer with the function.",
        judge=judges.two_gradients,
        hint="Which kind of tape answers more than once? Release it with del when you have both gradients.",
        solution="""
def two_gradients(x):
    with tf.GradientTape(persistent=True) as tape:
        y = x ** 3
        z = y ** 2
    gradients = [tape.gradient(y, x), tape.gradient(z, x)]  # [3x^2, 6x^5]
    del tape  # done with it: let go of what it holds
    return gradients

print(two_gradients(x))
answer = two_gradients
lessons.check("03.two_gradients", answer)
""",
    ),
    # 04
    "04.third": Exercise(
        "Write third(x): the third derivative of x**4 at x, by nested tapes. Answer with the function.",
        judge=judges.third_derivative,
        hint="Three tapes; each gradient call must run inside the next outer tape, so that tape records it.",
        solution="""
def third(x):
    with tf.GradientTape() as t1:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t3:
                y = x ** 4
            d1 = t3.gradient(y, x)  # recorded by t2 and t1
        d2 = t2.gradient(d1, x)     # recorded by t1
    return t1.gradient(d2, x)

print(third(tf.Variable(2.0)))
answer = third
lessons.check("04.third", answer)
""",
    ),
    "04.hessian": Exercise(
        "Write hessian(x): the Hessian of f(x) = x0**2 * x1 (a 2x2 matrix), by nested tapes. Answer with the function.",
        judge=judges.hessian,
        hint="Inner tape: the gradient g of f. Outer tape: jacobian(g, x), with the inner gradient call inside it.",
        solution="""
def hessian(x):
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            f = x[0] ** 2 * x[1]
        g = inner.gradient(f, x)
    return outer.jacobian(g, x)

print(hessian(tf.Variable([1.0, 2.0])))
answer = hessian
lessons.check("04.hessian", answer)
""",
    ),
    "04.symmetric": Exercise(
        "Why is a Hessian symmetric? 'a', 'b' or 'c'.",
        judge=judges.choice(
            "b",
            "(b) H[i, j] and H[j, i] are the same mixed second derivative, taken in the other order; for smooth "
            "functions the order does not matter.",
            {
                "a": "jacobian does not symmetrise anything: it returns what the sweeps computed.",
                "c": "f = x0**2 * x1 is not symmetric in x0 and x1, yet its Hessian is.",
            },
        ),
        hint="Write H[0, 1] and H[1, 0] as derivatives: which variable is differentiated first?",
        solution="""
answer = "b"
lessons.check("04.symmetric", answer)
""",
    ),
    # 05
    "05.jacobian": Exercise(
        "The jacobian of y = x**2 with x = [1, 2, 3]?",
        [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]],
        "tape.jacobian(y, x) keeps every d y[i] / d x[j]: on which x does y[i] depend?",
        mistakes=[([2.0, 4.0, 6.0], "that is the gradient of sum(y): jacobian keeps each d y[i] / d x[j] apart.")],
        otherwise="3 outputs by 3 inputs: a 3 x 3 matrix whose row i holds d y[i] / d x[j] for every j.",
        solution="""
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x ** 2
answer = tape.jacobian(y, x)  # diagonal: dy[i]/dx[i] = 2 x[i]
lessons.check("05.jacobian", answer)
""",
    ),
    "05.row": Exercise(
        "Write row_one(x): row 1 of the Jacobian of y = [x0*x1, x1*x2], from ONE gradient call. Answer with the "
        "function.",
        judge=judges.row_one,
        hint="output_gradients weighs each element of y: which weights keep y[1] and drop y[0]?",
        solution="""
def row_one(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x[0] * x[1], x[1] * x[2]])
    # weights [0, 1]: the sweep starts from y[1] alone, so it gives d y[1] / dx = [0, x2, x1]
    return tape.gradient(y, x, output_gradients=tf.constant([0.0, 1.0]))

print(row_one(tf.constant([1.0, 2.0, 3.0])))
answer = row_one
lessons.check("05.row", answer)
""",
    ),
    "05.zero": Exercise(
        "The gradients [dy/dx, dy/dz] when y = x * 2 and z is unconnected, asking for zeros?",
        [2.0, 0.0],
        "unconnected_gradients= takes a tf.UnconnectedGradients value.",
        mistakes=[([2.0, None], "None is the default: ask the tape for zeros instead.")],
        otherwise="y = x * 2 gives dy/dx from its rule; z never reaches y, so its entry is the zero you asked for.",
        from_tape=True,
        solution="""
x, z = tf.Variable(1.0), tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = x * 2
answer = tape.gradient(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.ZERO)
lessons.check("05.zero", answer)
""",
    ),
    "05.none_or_zero": Exercise(
        "When is the default None better than a zero? 'a', 'b' or 'c'.",
        judge=judges.choice(
            "a",
            "(a) None says 'no path': a variable that never reached the loss is a bug you want to see, where a "
            "zero would look like a flat spot and train silently.",
            {
                "b": "at a minimum the path exists and the derivative is 0: the tape gives 0 there, never None.",
                "c": "adding gradients up is where zeros are handier: None must be handled first.",
            },
        ),
        hint="What does None tell you that 0 cannot?",
        solution="""
answer = "a"
lessons.check("05.none_or_zero", answer)
""",
    ),
    "05.batch": Exercise(
        "Predict the shapes [batch_jacobian(out, batch), jacobian(out, batch)] for a batch of shape [5, 3] "
        "and out = tf.tanh(batch @ layer) with layer of shape [3, 4].",
        judge=judges.batch_shapes,
        hint="out has shape [5, 4]. jacobian's shape is out.shape + batch.shape; batch_jacobian keeps the batch "
        "axis once.",
        solution="""
layer = tf.Variable(tf.ones([3, 4]))
batch = tf.ones([5, 3])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(batch)
    out = tf.tanh(batch @ layer)
answer = [tape.batch_jacobian(out, batch).shape, tape.jacobian(out, batch).shape]
del tape
lessons.check("05.batch", answer)
""",
    ),
    # 06
    "06.stopped": Exercise(
        "d/dx of x**2 * tf.stop_gradient(x) at x = 1.5, from a tape?",
        4.5,
        "To the tape, tf.stop_gradient(x) is a number that happens to equal x, not a function of x.",
        mistakes=[
            (6.75, "that is d(x**3)/dx: the tape does not see the stopped factor as x, so it is not x**3 to it."),
            (3.0, "that is d(x**2)/dx alone: the stopped factor is a constant, but it still multiplies."),
        ],
        otherwise="the tape differentiates x**2 only; the stopped factor is a constant with the value of x.",
        from_tape=True,
        solution="""
x = tf.Variable(1.5)
with tf.GradientTape() as tape:
    y = x ** 2 * tf.stop_gradient(x)  # the value is x**3, but the tape sees x**2 * c
answer = tape.gradient(y, x)           # 2x * c
lessons.check("06.stopped", answer)
""",
    ),
    "06.reverse": Exercise(
        "Write reverse_gradient(x): the identity going forward, the gradient negated going back. Answer with "
        "the function.",
        judge=judges.reverse_gradient,
        hint="@tf.custom_gradient; return a copy of x (tf.identity(x)) and a grad that turns the upstream "
        "gradient around.",
        solution="""
@tf.custom_gradient
def reverse_gradient(x):
    def grad(upstream):
        return -upstream
    return tf.identity(x), grad

x = tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = reverse_gradient(x) * 3.0
print(tape.gradient(y, x))  # the upstream 3, negated
answer = reverse_gradient
lessons.check("06.reverse", answer)
""",
    ),
    "06.softplus": Exercise(
        "Write a stable softplus(x) = log(1 + e^x) with @tf.custom_gradient, its rule computed from its value. "
        "Answer with the function.",
        judge=judges.softplus,
        hint="Value: max(x, 0) + log1p(e^(-|x|)). Rule: 1 - e^(-value), times the upstream gradient.",
        solution="""
@tf.custom_gradient
def softplus(x):
    value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))  # stable for any x

    def grad(upstream):
        return upstream * (1.0 - tf.exp(-value))  # e^x / (1 + e^x), from the value: never overflows

    return value, grad

x = tf.constant([0.0, 100.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = softplus(x)
print(tape.gradient(y, x))
answer = softplus
lessons.check("06.softplus", answer)
""",
    ),
    "06.why_finite": Exercise(
        "Why can 1 - e^(-value) never overflow? 'a', 'b' or 'c'.",
        judge=judges.choice(
            "c",
            "(c) softplus is positive, so -value < 0 and e^(-value) lies between 0 and 1: nothing can overflow.",
            {
                "a": "float64 overflows too, at about e^709: the rule avoids large exponents instead.",
                "b": "the tape applies your rule as written; it clips nothing.",
            },
        ),
        hint="What sign does the value of softplus have, and what does e^(negative) give?",
        solution="""
answer = "c"
lessons.check("06.why_finite", answer)
""",
    ),
    # 07
    "07.fanout": Exercise(
        "d/dx of x*x + x at x = 3 (x is used three times)?",
        7.0,
        "Count the edges leaving x: each use sends its own gradient back, and they add up at x.",
        mistakes=[
            (6.0, "that counts the two uses in x*x (x + x) but not the third use, + x."),
            (4.0, "the product sends back the OTHER factor to each of its two uses: two arrivals from x*x."),
            (3.0, "one arrival only: x has three uses, and each sends a gradient back."),
        ],
        otherwise="count the uses of x; each sends its own gradient back (for x*x, the other factor), and they add.",
        from_tape=True,
        solution="""
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    f = x * x + x
answer = tape.gradient(f, x)  # three arrivals, summed
tf.viz.player(tape)           # step through it: three gradients arrive at x
lessons.check("07.fanout", answer)
""",
    ),
    "07.bias": Exercise(
        "Predict d loss / d b for loss = reduce_sum((w*xs + b - ys)**2), w = 2, b = 0.5, xs = [1, 2], ys = [3, 5].",
        judge=judges.bias,
        hint="Follow the sweep: the Sum passes 1 to each element, the square 2r, and b was broadcast.",
        solution="""
with tf.GradientTape() as tape:
    loss = tf.reduce_sum((w * xs + b - ys) ** 2)
# residuals r = [2.5 - 3, 4.5 - 5]; each element sends 2r back to b; b was used by both
answer = tape.gradient(loss, b)
lessons.check("07.bias", answer)
""",
    ),
    "07.tangent": Exercise(
        "Predict acc.jvp(loss) for loss_of(w) at w = [1, 2, 3, 4] with tangents [1, 1, 0, 0].",
        judge=judges.forward_tangent,
        hint="Forward mode gives the derivative along the tangent: the gradient (printed above) dotted with it.",
        solution="""
with tf.autodiff.ForwardAccumulator(primals=w, tangents=tf.constant([1.0, 1.0, 0.0, 0.0])) as acc:
    loss = loss_of(w)
answer = acc.jvp(loss)
lessons.check("07.tangent", answer)
""",
    ),
    # 08
    "08.regression": Exercise(
        "Write train_step(w, b, xs, ys, optimizer): one step of fitting w * xs + b to ys (mean squared error). "
        "Answer with the function.",
        judge=judges.train_step,
        hint="Forward pass and loss inside a tape; tape.gradient(loss, [w, b]) after it; then "
        "optimizer.apply_gradients(zip(gradients, [w, b])).",
        solution="""
def train_step(w, b, xs, ys, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((ys - (w * xs + b)) ** 2)
    gradients = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(gradients, [w, b]))
    return loss

w, b = tf.Variable(0.0), tf.Variable(0.0)
optimizer = tf.optimizers.SGD(learning_rate=0.1)
for step in range(200):
    train_step(w, b, xs, ys, optimizer)
print(w.numpy(), b.numpy())
answer = train_step
lessons.check("08.regression", answer)
""",
    ),
    "08.clip": Exercise(
        "Predict: the gradients [[3, 4], 12] clipped to a global norm of 6.5?",
        judge=judges.clip,
        hint="The global norm is the length of all the numbers together; clipping scales them all by one factor.",
        solution="""
gradients = [tf.constant([3.0, 4.0]), tf.constant(12.0)]
clipped, norm = tf.clip_by_global_norm(gradients, clip_norm=6.5)
answer = clipped
lessons.check("08.clip", answer)
""",
    ),
    # 09
    "09.accuracy": Exercise(
        "Train your own digits model to at least 90% test accuracy, and answer with the model itself.",
        judge=judges.accuracy,
        hint="A Dense(64, relu) + Dense(10) model, Adam(1e-2), 10 epochs; answer = mine (the model, not a number).",
        solution="""
tf.random.set_seed(1)
mine = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
mine.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
             loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
mine.fit(x_train, y_train, epochs=10, batch_size=32, verbose=0)
answer = mine
lessons.check("09.accuracy", answer)
""",
    ),
    "09.keeps_path": Exercise(
        "For model(x), model.predict(x), tf.constant(model(x).numpy()), model(x) * 2.0: does the loss keep "
        "a path to the weights (four booleans)?",
        judge=judges.keeps_path,
        hint="The tape follows tapeviz ops only. Which of these hand back a NumPy array on the way?",
        solution="""
answer = [True, False, False, True]
batch, labels = x_test[:4], y_test[:4]
kernel = model.trainable_variables[0]
with tf.GradientTape(persistent=True) as tape:
    outputs = [model(batch), tf.constant(model.predict(batch, verbose=0)),
               tf.constant(model(batch).numpy()), model(batch) * 2.0]
    losses = [loss_fn(labels, out) for out in outputs]
print([tape.gradient(loss, kernel) is not None for loss in losses])  # the tape agrees
del tape
lessons.check("09.keeps_path", answer)
""",
    ),
    # 10
    "10.safe_where": Exercise(
        "Write safe_log(x): log(x) where x > 0, else 0, with a finite gradient everywhere. Answer with the function.",
        judge=judges.safe_log,
        hint="The branch not taken is differentiated too: feed the log a harmless value where x <= 0.",
        solution="""
def safe_log(x):
    ok = x > 0
    safe = tf.where(ok, x, tf.ones_like(x))  # log never sees a bad value
    return tf.where(ok, tf.math.log(safe), tf.zeros_like(x))

x = tf.constant([0.0, 2.0, 4.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = safe_log(x)
print(tape.gradient(y, x))
answer = safe_log
lessons.check("10.safe_where", answer)
""",
    ),
    "10.fix_rule": Exercise(
        "Fix bad_square's custom gradient: answer with your fixed function (gradcheck must pass).",
        judge=judges.fixed_rule,
        hint="The rule must multiply the upstream gradient by the local derivative of x * x.",
        solution="""
@tf.custom_gradient
def good_square(x):
    def grad(upstream):
        return upstream * 2.0 * x    # the local derivative, times what arrives from above
    return x * x, grad

print(tf.gradcheck(lambda x: tf.sin(x) + good_square(x), [0.5, 1.5]))
answer = good_square
lessons.check("10.fix_rule", answer)
""",
    ),
    # 11
    "11.fewer_ops": Exercise(
        "How many ops did the tape record with watch_accessed_variables=False and only W1 watched?",
        judge=judges.fewer_ops,
        hint="An op is recorded when one of its inputs depends on something watched. len(tape.recorded_ops) "
        "counts them.",
        solution="""
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(W1)
    forward()
answer = len(tape.recorded_ops)
print([entry.primitive.name for entry in tape.recorded_ops])
lessons.check("11.fewer_ops", answer)
""",
    ),
    # 12
    "12.trace_count": Exercise(
        "How many traces does the fresh tf.function h make over the calls listed above "
        "(h.experimental_get_tracing_count() afterwards)?",
        judge=judges.trace_count,
        hint="A call traces when its signature is new: each tensor's dtype and shape, each Python argument's "
        "value. Write down the signature of every call and count the different ones.",
        solution="""
@tf.function
def h(x):
    return x * 2

for x in [tf.constant(1.0), tf.constant(2.0), tf.constant([1.0, 2.0]), 2.0, 2.0, tf.constant(5.0)]:
    h(x)
answer = h.experimental_get_tracing_count()  # scalar float32, vector float32 [2], Python 2.0
lessons.check("12.trace_count", answer)
""",
    ),
    "12.why_once": Exercise(
        "Why does log hold one item after three calls? 'a', 'b' or 'c'.",
        judge=judges.choice(
            "c",
            "(c) the first call traced: it ran the Python, append included. The other two calls "
            "matched that signature and replayed only the recorded ops; append is not one of them.",
            {
                "a": "nothing is copied: the one item in log was appended while the Python body ran, on the first "
                "call, the only one that traced.",
                "b": "nothing is remembered per value: tf.print inside such a function prints every call's value, "
                "so the recorded ops run again on each call.",
            },
        ),
        hint="Which parts of f ran on its second call, earlier in this lesson: the Python print, the tf.print, "
        "or both?",
        solution="""
answer = "c"
lessons.check("12.why_once", answer)
""",
    ),
}
