# %% [markdown]
# # Lesson 2 — Watching: what the tape pays attention to
#
# **Goal:** predict, for any value, whether the tape will give you a gradient
# for it. You will meet trainable and non-trainable variables, tensors,
# integers, `watch_accessed_variables=False` and `watched_variables()`, and
# see in the graph which sources were watched.

# %%
import warnings

import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## Trainable variables are watched as soon as they are read
#
# Make trainable values `tf.Variable`s (their default is `trainable=True`):
# the tape watches every trainable variable **accessed** inside its block. A
# variable created with `trainable=False` (a step counter, a running mean) is
# not watched, so its gradient is `None`.

# %% check
w = tf.Variable(2.0, name="w")
b = tf.Variable(1.0, name="b")
step = tf.Variable(10.0, name="step", trainable=False)

with tf.GradientTape() as tape:
    y = w * 3.0 + b + step

dw, db, dstep = tape.gradient(y, [w, b, step])
print("dy/dw    =", dw)
print("dy/db    =", db)
print("dy/dstep =", dstep)

# %% [markdown]
# `watched_variables()` lists what the tape watched, in the order the variables
# were created. In the picture, the watched variables `w` and `b` are green
# boxes with their gradients (∂). `step` is not a variable there at all: the
# tape did not watch it, so it recorded nothing about reading it, and its value
# `10` enters the last addition as a plain constant (a dashed oval), like the
# `3.0` in `w * 3.0`. That is what "not watched" means: to the tape it is a
# number, not something it can differentiate.

# %% check
print([v.name for v in tape.watched_variables()])

# %%
tape

# %% [markdown]
# If you *do* want the gradient for a non-trainable variable, watch it
# explicitly, just as you would a tensor:

# %% check
with tf.GradientTape() as tape:
    tape.watch(step)
    y = w * 3.0 + b + step
print(tape.gradient(y, step))

# %% [markdown]
# ## Tensors must be watched
#
# A `tf.constant` (or any computed tensor) is a value, not state: the tape
# only follows it after `tape.watch(x)`. You can watch a list or any nested
# structure at once.

# %% check
x = tf.constant(3.0)
z = tf.constant(4.0)
with tf.GradientTape() as tape:
    tape.watch([x, z])
    r = tf.sqrt(x * x + z * z)
print(tape.gradient(r, {"x": x, "z": z}))

# %% [markdown]
# ## Integers are never differentiated
#
# Gradients live on the real numbers: integer tensors are not watched, the
# tape warns you, and the gradient is `None`. Cast to a float *before* the tape.

# %% check
i = tf.constant(3)  # an int32 tensor
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with tf.GradientTape() as tape:
        tape.watch(i)
        y = i * i
print("warning:", caught[0].message)
print("gradient:", tape.gradient(y, i))

# %% check
i_float = tf.cast(i, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(i_float)
    y = i_float * i_float
print(tape.gradient(y, i_float))

# %% [markdown]
# ## Choosing what to watch: `watch_accessed_variables=False`
#
# With `watch_accessed_variables=False` the tape watches **only** what you pass
# to `watch`. Ops on unwatched variables are not recorded at all, which also
# saves time and memory (lesson 11).

# %% check
variable_a = tf.Variable(3.0, name="x1")
variable_b = tf.Variable(2.0, name="x2")

with tf.GradientTape(persistent=True, watch_accessed_variables=False) as disable_tracking_tape:
    disable_tracking_tape.watch(variable_a)
    y = variable_a**2  # gradients will be available for variable_a
    z = variable_b**3  # no gradient: variable_b is not watched

print(disable_tracking_tape.gradient(y, variable_a))
print(disable_tracking_tape.gradient(z, variable_b))
print("watched:", [v.name for v in disable_tracking_tape.watched_variables()])
print("recorded ops:", len(disable_tracking_tape.recorded_ops))
del disable_tracking_tape

# %% [markdown]
# ## The rule, in one table
#
# | value | watched automatically? | gradient without `watch` |
# |---|---|---|
# | `tf.Variable(...)` (trainable) | yes, when read inside the block | a tensor |
# | `tf.Variable(..., trainable=False)` | no | `None` |
# | `tf.constant(...)`, computed tensors | no | `None` |
# | integer tensors | never (even with `watch`) | `None` |
# | any variable with `watch_accessed_variables=False` | no | `None` |
#
# ## Exercises
#
# **1.** Predict first: the cell below creates four variables and reads some of
# them inside a tape. Which variables does the tape watch? Answer with the
# list of their names, in the order `watched_variables()` would give them,
# then confirm with `tape.watched_variables()`.

# %%
unused = tf.Variable(7.0, name="unused")
w = tf.Variable(1.5, name="w")
b = tf.Variable(0.5, name="b")
count = tf.Variable(0.0, name="count", trainable=False)
with tf.GradientTape() as tape:
    loss = (w * 2.0 + b - 1.0) ** 2 + count
answer = ...  # your prediction: a list of names, e.g. ["..."]
lessons.check("02.which_watched", answer)

# %% [markdown]
# **2.** Write a function `selective(a, b)` that records `loss = a * b ** 3`
# on a tape that watches **only** `b`, and returns `[d loss/d a, d loss/d b]`.
# Try it on the `a` and `b` below (which of the two can still be a number?),
# then answer with the function itself: the checker calls it on variables of
# its own and looks at the tape it made.

# %%
a = tf.Variable(1.0)
b = tf.Variable(2.0)
answer = ...  # your function: def selective(a, b): ..., then answer = selective
lessons.check("02.selective", answer)

# %% [markdown]
# **3.** Predict first, with the picture below to check you: this tape does not
# watch what it reads, and only `p` is watched by hand. `q` is read twice. What
# are `[d total/d p, d total/d q]`? (A list of numbers, `None` where you expect
# no gradient.)

# %%
p = tf.Variable(2.0, name="p")
q = tf.Variable(3.0, name="q")
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(p)
    total = p * q + q * q
answer = ...  # your prediction: [d total/d p, d total/d q]
lessons.check("02.unwatched_read", answer)

# %% [markdown]
# The tape's picture: `p` is the only variable on it. `q`'s value enters
# `p * q` as a plain constant (a dashed oval), and `q * q`, which depends on
# nothing watched, was not recorded at all: its value, 9, enters the addition
# as a constant too.

# %%
tape

# %% [markdown]
# Next: [lesson 3](03_persistent.ipynb), tapes that can be asked more than once.
