# %% [markdown]
# # Lesson 3 — Persistent tapes, several gradients, and releasing memory
#
# **Goal:** know when a tape can answer only once and when it can answer many
# times, what it keeps in memory meanwhile, and how to let go of it: `gradient`
# releases a normal tape, a persistent one lives until you `del` it. The
# memory view shows the bytes a tape holds.

# %%
import warnings

import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## A normal tape answers once
#
# To compute gradients the tape keeps the intermediate values of the forward
# pass (`x`, `y`...). By default those resources are **released as soon as
# `gradient()` returns**, so a second call is an error: there is nothing left
# to sweep.

# %% check
x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    z = y * y
print(tape.gradient(z, x))
try:
    tape.gradient(y, x)
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# ## A persistent tape answers many times
#
# `tf.GradientTape(persistent=True)` keeps its records until the tape object
# is garbage collected, so you can ask for several gradients of the same
# computation. Drop it with `del` when you are done.

# %% check
with tf.GradientTape(persistent=True) as persistent_tape:
    persistent_tape.watch(x)
    y = x * x
    z = y * y
dz_dx = persistent_tape.gradient(z, x)  # 108.0 (4 * x**3 at x = 3)
dy_dx = persistent_tape.gradient(y, x)  # 6.0
print("dz/dx =", dz_dx.numpy())
print("dy/dx =", dy_dx.numpy())

# %% [markdown]
# The picture shows both sweeps' tape: the same recorded ops, answered twice
# (the gradients written on the nodes are from the last call, `dy/dx`).

# %%
persistent_tape

# %% check
del persistent_tape  # release the tape's resources now
print("released")

# %% [markdown]
# ## What the tape holds: the memory view
#
# `tf.viz.memory(...)` plots the bytes a tape keeps for the backward pass (the
# intermediate tensors its recorded ops need), one event at a time. Here are
# two tapes over the same 5-layer computation on a 1000-element vector: a
# normal one and a persistent one.

# %%
v = tf.Variable(tf.ones([1000]), name="v")


def forward(v):
    h = v
    for _ in range(5):
        h = tf.tanh(h * 1.5)
    return tf.reduce_sum(h)


with tf.GradientTape() as plain:
    loss = forward(v)
plain.gradient(loss, v)

with tf.GradientTape(persistent=True) as kept:
    loss = forward(v)
kept.gradient(loss, v)

tf.viz.memory(plain, kept, labels=["non-persistent", "persistent"])

# %% [markdown]
# How to read it:
#
# * **Left of the dashed line** the ops are recorded: both tapes record the
#   same ops, so their lines coincide (the red dashed line runs on top of the
#   wide blue one), growing by one 1000-element float32 tensor (4000 bytes)
#   per op.
# * **The dashed line** is the `gradient()` call: the reverse sweep starts.
# * **The non-persistent tape** (blue) falls step by step: each swept op's
#   tensors are no longer needed, and when `gradient()` returns the tape has
#   released everything: 0 bytes. (tapeviz lets go of all of it at once when
#   `gradient` returns; the falling line shows what the sweep no longer needs,
#   which is what TensorFlow frees as it goes.)
# * **The persistent tape** (red) stays at its peak after `gradient()`: it
#   keeps everything for the next call, until you `del` it.
#
# That is the performance advice of the TensorFlow docs, made visible:
# use a non-persistent tape when you need one gradient, and when you need a
# persistent one, `del` it as soon as you are done.

# %% check
view = tf.viz.memory(plain, kept, labels=["non-persistent", "persistent"])
for label, points in view.series:  # (event number, bytes held, what happened)
    print(f"{label:>14}: peak {max(b for _, b, _ in points)} bytes, after gradient(): {points[-1][1]} bytes")
del kept

# %% [markdown]
# ## Use the `with` block, and ask for gradients after it
#
# * Always use the tape in a `with` statement: entering starts recording, and
#   leaving stops it, so only the computation you mean is captured.
# * Call `gradient` **after** the block. Inside the block of a persistent tape
#   the gradient computation itself would be recorded (useful only for higher
#   order derivatives, lesson 4), and the tape warns you:

# %% check
x = tf.Variable(2.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with tf.GradientTape(persistent=True) as tape:
        y = x**3
        inside = tape.gradient(y, x)
print(inside)
print("warning:", str(caught[0].message)[:120], "...")
print("ops on the tape, including the recorded gradient computation:", len(tape.recorded_ops))
del tape

# %% [markdown]
# A non-persistent tape that is re-entered after use starts afresh: it is a
# new recording, not a second answer from the old one.
#
# ## Exercise
#
# Write a function `two_gradients(x)` that records `y = x**3` and `z = y**2`
# on **one** tape, returns `[dy/dx, dz/dx]`, and releases the tape when it has
# both. (Which kind of tape can answer twice? And what does it hold until you
# release it?) Try it on the `x` below, then answer with the function itself:
# the checker calls it on a variable of its own and watches its tape.

# %%
x = tf.Variable(2.0)
answer = ...  # your function: def two_gradients(x): ..., then answer = two_gradients
lessons.check("03.two_gradients", answer)

# %% [markdown]
# Next: [lesson 4](04_higher_order.ipynb), tapes inside tapes.
