# %% [markdown]
# # Lesson 12 — Tracing and retracing: what `tf.function` does with your Python
#
# **Goal:** see what `@tf.function` does with your Python: it **traces** the
# function once per input signature (running the Python and recording its
# ops), then **replays** the recorded ops. You will see which side effects run
# only while tracing, which calls make a new trace, how `input_signature`
# avoids retracing, what the traced graph looks like, that gradients through
# it are the eager ones, and what happens when the Python reads a tensor's
# value.

# %%
import re
import sys
import warnings

import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## Python runs while tracing, ops run on every call
#
# `f` below has two prints: Python's `print`, and `tf.print`, an op. We call
# it three times with scalars of the same dtype and shape. (`tf.print` writes to
# standard error unless told otherwise, as in TensorFlow; here it writes to
# standard output, so both prints appear in one stream, in order.)


# %% check
@tf.function
def f(x):
    print("Python print: tracing with", x)
    tf.print("tf.print: running with", x, output_stream=sys.stdout)
    return x * x


for value in [1.0, 2.0, 3.0]:
    f(tf.constant(value))
print("traces so far:", f.experimental_get_tracing_count())

# %% [markdown]
# The Python `print` ran **once**, on the first call, and it saw a symbolic
# tensor (`Tensor("x:0", ...)`, no value): that call *traced* `f`, running its
# Python on a placeholder and recording the ops (`tf.print`, `Mul`). The next
# two calls had the same signature (a float32 scalar), so they *replayed* the
# recorded ops: `tf.print` ran each time with the call's value, the Python
# `print` never again. Any Python side effect (appending to a list, counting
# calls, reading a clock) behaves like that `print`.
#
# ## What makes a new trace
#
# The signature is each tensor argument's **dtype and shape**, and each Python
# argument's **value**. A call whose signature was seen replays; any other
# traces again. Watch the count (and the Python `print`):

# %% check
calls = [
    ("same signature, new value", lambda: f(tf.constant(4.0))),
    ("new dtype (int32)", lambda: f(tf.constant(4))),
    ("new shape ([2])", lambda: f(tf.constant([1.0, 2.0]))),
    ("same shape [2] again", lambda: f(tf.constant([5.0, 6.0]))),
    ("Python value 2.0", lambda: f(2.0)),
    ("Python value 2.0 again", lambda: f(2.0)),
    ("Python value 3.0", lambda: f(3.0)),
]
for label, call in calls:
    before = f.experimental_get_tracing_count()
    call()
    after = f.experimental_get_tracing_count()
    print(f"  -> {label}: count {before} -> {after}", "(retraced)" if after > before else "(replayed)", flush=True)

# %% [markdown]
# A Python number is part of the signature by its value: `f(2.0)` and
# `f(3.0)` are two traces, so passing a changing Python number (a step
# counter, a learning rate) retraces on every new value. Pass a tensor
# instead: `f(tf.constant(step))`.
#
# The warning above is TensorFlow's, word for word: when 5 of a function's
# last 10 calls traced, the call that traced says so (twice at most). Here we
# retraced on purpose; in a training loop it means a signature keeps changing.
#
# ## `input_signature`: one trace for any length
#
# Every new shape retraces because the trace records the shapes it saw.
# `input_signature` fixes the signature up front; a `None` dimension accepts
# any size, so vectors of every length share one trace.


# %% check
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def squared_norm(v):
    return tf.reduce_sum(v * v)


for n in [1, 2, 3, 10]:
    print(f"length {n:>2}:", squared_norm(tf.ones([n])).numpy())
print("traces:", squared_norm.experimental_get_tracing_count())
try:
    squared_norm(tf.ones([2, 2]))  # a matrix does not fit [None]
except TypeError as error:
    print("TypeError:", str(error)[:118], "...")

# %% [markdown]
# ## The traced graph
#
# `tf.viz.show(f)` draws a `tf.function`'s latest trace (pass a concrete
# function, from `f.get_concrete_function(...)`, to draw that one): the
# inputs it was traced with (ellipses, as tensors are in every picture; the
# `None` dimension is drawn as `-1`), the recorded ops (blue boxes, as the
# tape draws forward ops), and what it returns (ringed twice). Here `v` enters
# `Mul` twice (`v * v`). Printing the concrete function gives its signature, as
# TensorFlow prints it.

# %% check
concrete = squared_norm.get_concrete_function()
print(concrete)

# %%
tf.viz.show(squared_norm)

# %% [markdown]
# ## Gradients through a traced function
#
# A replay runs the recorded ops through the ordinary op path, so a
# `GradientTape` around the call records them: the gradient is the eager one.

# %% check
w = tf.Variable([1.0, 2.0, 3.0], name="w")


def loss_of(w):
    return tf.reduce_sum(tf.sin(w) * w)


traced_loss = tf.function(loss_of)
with tf.GradientTape() as traced_tape:
    traced = traced_loss(w)
recorded = [op.primitive.name for op in traced_tape.recorded_ops]  # before gradient() releases them
traced_gradient = traced_tape.gradient(traced, w)
with tf.GradientTape() as tape:
    eager = loss_of(w)
eager_gradient = tape.gradient(eager, w)
print("traced:", traced_gradient.numpy())
print("eager: ", eager_gradient.numpy())
print("the same:", bool(tf.reduce_all(traced_gradient == eager_gradient)))
print("ops the tape recorded from the traced call:", recorded)

# %% [markdown]
# The tape around the traced call: it recorded the replayed ops one by one,
# as it records eager code (`w` feeds both `Sin` and `Mul`), so the sweep,
# and each gradient written on the picture, is the eager one.

# %%
traced_tape

# %% [markdown]
# ## When the Python decides on a tensor's value
#
# A trace has no value to decide on yet, so a Python `if` or `while` on a
# tensor is rewritten first, as TensorFlow's AutoGraph does: the `if` becomes
# `tf.cond`, whose trace holds *both* branches and picks one on every call
# (`tf.autograph.to_code(absolute)` shows the rewritten Python).


# %% check
@tf.function
def absolute(x):
    if x > 0:  # a Python `if` on a tensor's value: AutoGraph makes it a tf.cond
        return x
    return -x


results = [float(absolute(tf.constant(2.0))), float(absolute(tf.constant(-3.0)))]
print("results:", results)
print("traces:", absolute.experimental_get_tracing_count())
print("ops:", [node.op for node in absolute.get_concrete_function(tf.constant(1.0)).graph.nodes])

# %% [markdown]
# One trace serves both signs: its graph is a comparison and one `If` node.
# What no rewrite can turn into ops, `float(x)` or `x.numpy()`, makes the
# function run **eagerly** from then on, with one warning. (The warning names
# the file and line: here it is replaced by `<cell>`, which differs on every run.)


# %% check
@tf.function
def halved(x):
    return tf.constant(float(x) / 2)  # a Python float of a traced tensor


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = [float(halved(tf.constant(2.0))), float(halved(tf.constant(-3.0)))]
print("results:", results)
for warning in caught:
    text = re.sub(r" at \S+:\d+", " at <cell>", str(warning.message))
    print(f"{warning.category.__name__}: {text}")
print("runs eagerly:", halved.runs_eagerly, "| traces:", halved.experimental_get_tracing_count())

# %% [markdown]
# Both results are right, and the function keeps no trace at all (a count of
# 0): it is plain Python now. The fix the warning names: tensor ops that
# compute the value, `x / 2`, which a trace records.
#
# ## Exercises
#
# **1.** Predict, before running anything: a fresh `@tf.function` `h(x)` is
# called, in this order, with `tf.constant(1.0)`, `tf.constant(2.0)`,
# `tf.constant([1.0, 2.0])`, the Python float `2.0`, the Python float `2.0`
# again, and `tf.constant(5.0)`. What is `h.experimental_get_tracing_count()`
# afterwards? (A whole number.)

# %%
answer = ...
lessons.check("12.trace_count", answer)

# %% [markdown]
# **2.** A `@tf.function` appends its argument to a Python list `log`, and is
# called three times:

# %% check
log = []


@tf.function
def remember(x):
    log.append(x)
    return x


for value in [1.0, 2.0, 3.0]:
    remember(tf.constant(value))
print("items in log after three calls:", len(log))

# %% [markdown]
# Three calls, yet `log` holds one item. Why? One letter:
#
# * **a** Python lists are copied into the trace, so later appends go to the copy.
# * **b** `tf.function` remembers each call's result and skips the function.
# * **c** The Python body ran only while tracing; the next two calls replayed
#   the recorded ops, and `append` is Python, not an op.

# %%
answer = ...  # "a", "b" or "c"
lessons.check("12.why_once", answer)

# %% [markdown]
# That is the whole series. Where next: the documentation (`./dev.sh docs`
# builds it) has the concepts, the details of `tf.function` in tapeviz, the
# hooks API (write your own listener) and the map of every difference from
# TensorFlow.
