# %% [markdown]
# # Lesson 10 — Debugging gradients
#
# **Goal:** when a gradient is `None`, zero or NaN, find out why in seconds.
# You will trigger every usual cause of a `None` gradient and let `tf.explain`
# name it, fall into the NaN trap of `tf.where` and climb out with
# `tf.find_nonfinite`, catch a wrong custom gradient with `tf.gradcheck`, and
# let `tf.viz.diagnose` find three real bugs (a lost variable, `log(0)`, a
# vanishing gradient) with the line that caused each.

# %%

import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## "Why is my gradient None?" — every cause
#
# Each function below makes a tape, a target and a source the way real code
# goes wrong. `tf.explain(tape, target, source)` walks what the tape recorded
# and names the first break on the path.


# %%
def never_watched():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    return tape, y, x


def non_trainable():
    x = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = x * x
    return tape, y, x


def integer_source():
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape, y, x


def computed_outside():
    x = tf.Variable(3.0)
    y = x * x  # before the tape started
    with tf.GradientTape() as tape:
        z = y + 1.0
    return tape, z, x


def inside_stop_recording():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
        z = y + 1.0
    return tape, z, x


def stopped():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(x * x)
    return tape, y, x


def not_differentiable():
    x = tf.Variable([0.2, 0.9, 0.4])
    with tf.GradientTape() as tape:
        best = tf.cast(tf.argmax(x), tf.float32)
    return tape, best, x


def through_numpy():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
        z = tf.constant(y.numpy()) * 2.0  # y left the tape's world and came back as a constant
    return tape, z, x


def variable_replaced():
    x = tf.Variable(3.0)
    x = x + 1.0  # x is now a Tensor, no longer the variable
    with tf.GradientTape() as tape:
        y = x * x
    return tape, y, x


def tape_already_used():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
        z = y * 2.0
    tape.gradient(z, x)  # a non-persistent tape answers once...
    return tape, y, x  # ...and here we would ask again


SCENARIOS = [
    never_watched,
    non_trainable,
    integer_source,
    computed_outside,
    inside_stop_recording,
    stopped,
    not_differentiable,
    through_numpy,
    variable_replaced,
    tape_already_used,
]

# %% [markdown]
# The verdicts (a short code per cause):

# %% check
import warnings

verdicts = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # integer_source warns, as it should
    for scenario in SCENARIOS:
        tape, target, source = scenario()
        verdicts[scenario.__name__] = tf.explain(tape, target, source)
for name, verdict in verdicts.items():
    print(f"{name:>22}: {verdict.cause}")

# %% [markdown]
# And in words, with the fix. A variable made without a name (TF calls it
# `Variable`) is called by the Python name that holds it, here the loop's
# `source`, as the scenarios' results are called `target`:

# %%
for name, verdict in verdicts.items():
    print(f"--- {name}\n{verdict}\n")

# %% [markdown]
# An explanation also draws what the tape saw between source and target, with
# the one op where the path breaks highlighted in red. Here that is the `Mul`
# of the variable `x` by itself (`y = x * x`, marked *not recorded*) that ran
# inside `stop_recording()`. The tensors made inside the function have no
# names the picture could find, so they are drawn as `#` and a number, and the
# message calls them the same: the one out of `Mul` is the function's `y`, the
# constant is the `1.0`, and `z` is drawn as `target`, the name the loop above
# gave it:

# %%
verdicts["inside_stop_recording"]

# %% [markdown]
# Three more messages above call tensors `#` and a number. Each is drawn in
# its own explanation's picture: the `Mul` that ran before the tape started,
# the `ArgMax` no gradient passes through, and the constant that came back
# from NumPy (red), beside the tensor whose value it copied:

# %%
from IPython.display import display

for name in ("computed_outside", "not_differentiable", "through_numpy"):
    display(verdicts[name])

# %% [markdown]
# ## Don't differentiate what is not differentiable
#
# `argmax`, `round` and casts to integers have no useful derivative: the tape
# lets no gradient through them (above: `not_differentiable`). Use a smooth
# stand-in instead (softmax probabilities instead of `argmax`).
#
# ## The NaN trap: `tf.where` around a `log`
#
# "Take the log where `x > 0`, else 0" looks safe, and the *value* is fine. But
# the gradient of the branch *not taken* is still computed: at `x = 0`,
# `d log(x)/dx = 1/0 = inf`, and `tf.where`'s rule multiplies it by 0:
# `0 * inf = nan`.

# %% check
x = tf.constant([0.0, 2.0, 4.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
print("value:   ", y.numpy())
print("gradient:", tape.gradient(y, x).numpy())

# %% [markdown]
# `tf.find_nonfinite(tape)` points at the first op whose value or gradient
# went non-finite, and says what to do:

# %%
finding = tf.find_nonfinite(tape)
print(finding)
finding

# %% [markdown]
# ## Checking a custom gradient: `tf.gradcheck`
#
# A hand-written gradient (lesson 6) can be wrong without any error. `gradcheck`
# compares the tape's gradients with finite differences and, when they differ,
# checks each op's rule on its own to find the culprit. Here the custom
# gradient of `x**2` forgot the factor 2:


# %% check
@tf.custom_gradient
def bad_square(x):
    def grad(upstream):
        return upstream * x  # should be 2 * x

    return x * x, grad


def f(x):
    return tf.sin(x) + bad_square(x)


result = tf.gradcheck(f, [0.5, 1.5])
print(bool(result))
print(result)

# %%
result

# %% [markdown]
# The picture is the tape `gradcheck` made itself: your `f` on its argument
# `x` (`Sin`, `bad_square` as one op, `AddV2`), then the checker's own two
# ops: a `Mul` by `random weights` (a constant of fixed random numbers, one per
# element of `f`'s output) and a `Sum` into `checked sum`, one number whose
# gradient checks every element of `x` at once. The `Mul` marked *not recorded* is the `x * x` inside
# `bad_square`: a custom gradient's inside is never recorded.
#
# ## One call for every bug: `tf.viz.diagnose`
#
# `explain`, `find_nonfinite` and the player's captions are views of one
# diagnosis. `tf.viz.diagnose(tape, target, sources)` gives all of it at once,
# after `gradient()` came back wrong, as you meet a bug: a list of findings,
# each with the `cause`, the `op`, the tensor's `name`, **your** line
# (`where`), the sweep `step` the player jumps to, and a `message` with the fix.
# Three bugs people really write:
#
# **A training loop that loses its variable.** `w = w - lr * g` makes `w` a
# new tensor; the next tape does not watch it, and the gradient is `None`.

# %% check
w = tf.Variable(2.0, name="w")
for step in range(2):
    with tf.GradientTape() as tape:
        loss = (w * 3.0 - 1.0) ** 2
    g = tape.gradient(loss, w)
    print("step", step, "gradient:", g)
    if g is None:
        break
    w = w - 0.1 * g  # the bug: use w.assign_sub(0.1 * g)
diagnosis = tf.viz.diagnose(tape, loss, w)
for finding in diagnosis.findings:
    print(finding.cause, "|", finding.op, "|", finding.where)

# %% [markdown]
# **A hand-written cross-entropy that takes `log(0)`.** One probability
# underflowed to 0; the loss and every gradient are NaN.

# %% check
logits = tf.Variable([[10.0, -10.0, -10.0]], name="logits")
labels = tf.constant([[0.0, 1.0, 0.0]])
with tf.GradientTape() as tape:
    p = tf.exp(logits) / tf.reduce_sum(tf.exp(logits))
    p = p * tf.cast(p > 1e-6, tf.float32)  # tiny probabilities become exactly 0
    loss = -tf.reduce_sum(labels * tf.math.log(p))
print("gradient:", tape.gradient(loss, logits).numpy())
diagnosis = tf.viz.diagnose(tape, loss, logits)
(finding,) = diagnosis.findings
print(finding.cause, "|", finding.op, "|", finding.where)
print(finding.message)

# %% [markdown]
# The picture rings the `Log` that made the first `-inf` (the fix:
# `tf.nn.softmax_cross_entropy_with_logits`, or clip `p` away from 0):

# %%
diagnosis

# %% [markdown]
# **A deep stack of sigmoids.** No NaN, no `None`: the first layers just stop
# learning, because each sigmoid multiplies the gradient by at most 0.25.
# `diagnose` sees the magnitude, and `tf.viz.gradient_norms` gives the norm of
# the gradient arriving at each layer (name scope), from the loss back:

# %% check
import numpy as np

rng = np.random.default_rng(0)
inputs = tf.constant(rng.normal(size=(8, 16)).astype("float32"))
weights = [tf.Variable(rng.normal(size=(16, 16)).astype("float32"), name=f"w{i}") for i in range(20)]
with tf.GradientTape() as tape:
    h = inputs
    for i, weight in enumerate(weights):
        with tf.name_scope(f"layer{i}"):
            h = tf.sigmoid(tf.matmul(h, weight))
    loss = tf.reduce_sum(h)
grads = tape.gradient(loss, weights)
print(f"|dloss/dw19| = {np.linalg.norm(grads[19]):.3g},  |dloss/dw0| = {np.linalg.norm(grads[0]):.3g}")
(finding,) = tf.viz.diagnose(tape, loss, weights).findings
print(finding.cause, "|", finding.op, "|", finding.where)
print(finding.message)

# %%
tf.viz.gradient_norms(tape, loss).plot()

# %% [markdown]
# PyTorch finds the NaN of the second bug with `detect_anomaly` and a rerun,
# and TensorFlow with `tf.debugging.enable_check_numerics()` (it works here
# too); neither says a word about the first or the third.
# The page "Debugging a gradient" of the documentation (`docs/debugging.md`)
# compares the three, bug by bug.
#
# ## Exercises
#
# **1.** Write `safe_log(x)`: `log(x)` where `x > 0`, else `0`, like the
# `tf.where` computation above, but with a finite gradient everywhere. Which
# branch produced the NaN, and how can that branch never see a bad value? Try
# it at the `x` below, then answer with the function itself: the checker calls
# it at points of its own, negative ones too.

# %%
x = tf.constant([0.0, 2.0, 4.0])
answer = ...  # your function: def safe_log(x): ..., then answer = safe_log
lessons.check("10.safe_where", answer)

# %% [markdown]
# **2.** `gradcheck` blamed the custom gradient of `bad_square` above. Write a
# fixed `good_square` (same value `x * x`, a correct rule) and answer with the
# function itself: the checker runs `tf.gradcheck` on `sin(x) + good_square(x)`.

# %%
answer = ...  # your fixed function, e.g. answer = good_square
lessons.check("10.fix_rule", answer)

# %% [markdown]
# Next: [lesson 11](11_performance.ipynb), what the tape costs.
