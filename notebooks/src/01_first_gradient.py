# %% [markdown]
# # Lesson 1 — What a tape records: your first gradient
#
# **Goal:** compute the derivative of `y = x**2` at `x = 3.0` with a
# `GradientTape`, *see* what the tape recorded and how the gradient `6.0` flows
# back, and learn the first rule of watching: **variables are watched, constants
# need `tape.watch`**.
#
# tapeviz runs TensorFlow's `GradientTape` code on NumPy, so we import it under
# the name TensorFlow users know.

# %%
import tapeviz as tf
from tapeviz import lessons

lessons.setup()  # the visualizer records every tape from here on

# %% [markdown]
# ## Automatic differentiation with a tape
#
# *Automatic differentiation* computes exact derivatives of a program by
# applying the chain rule to the operations it runs. `tf.GradientTape` does it
# in two passes:
#
# 1. **Forward:** inside the `with` block, every operation on a watched value is
#    *recorded* onto the tape (an ordered list of entries: op, inputs, outputs).
# 2. **Backward:** `tape.gradient(target, source)`, called *after* the block,
#    walks the tape **in reverse** (reverse-mode differentiation), turning the
#    gradient of each op's output into gradients of its inputs.
#
# Everything runs eagerly, line by line, like plain Python:

# %% check
print(tf.executing_eagerly())

# %% check
x = tf.Variable(3.0, name="x")

with tf.GradientTape() as tape:
    y = x**2

dy_dx = tape.gradient(y, x)
print(dy_dx)  # 2 * x = 6.0

# %% [markdown]
# `y` is an ordinary tensor with a value (9.0); the tape kept the recipe that
# made it. A tape that is the last expression of a cell **draws itself**: the
# ops it recorded (boxes), the tensors (ovals), the watched variable `x` and the
# target. The gradient the last `gradient` call computed is written on the nodes.

# %%
tape

# %% [markdown]
# The same tape, as a table of entries (what `tape.recorded_ops` holds while the
# tape is alive). `ReadVariableOp` is the tape noting that the variable was read.
# A table has no room for drawings, so it names every tensor by an id: `t0` is
# the variable `x`, `t1` the value read from it, `t2` the exponent 2 and `t3`
# is `y`. Its sweep line `d(t3)/d(t0)` is the picture's `dy/dx`:

# %% check
print(tf.viz.table(tf.viz.trace_of(tape)))

# %% [markdown]
# ## Watching the reverse sweep
#
# The player steps through the backward pass: start from the *seed*
# `dy/dy = 1`, then for each recorded op (last to first) apply its local rule,
# here `d(x**2)/dx = 2*x`, and pass the result on. Press **step ▶** (or play):
# the highlighted node moves, and the gradient (∂) accumulated so far appears on
# the nodes.

# %%
tf.viz.player(tape)

# %% [markdown]
# ### Your turn: predict each step
#
# The same player in **predict mode**. **What to do:** press **step ▶**; the
# card hides what this step computes behind `? (1)`. Multiply the upstream
# gradient by the local derivative (both on the card), type the product into
# field 1 and press **check**. A wrong answer gets a hint and one more try;
# then the player shows the value. When every `?` is filled, **step ▶** moves
# on. The score under the fields counts your answers right the first time.
# Untick **predict** to see every step again (and start the score afresh).

# %%
tf.viz.player(tape, predict=True)

# %% [markdown]
# ## Variables are watched, constants need `watch`
#
# A tape only records what depends on something it **watches**. Every
# trainable `tf.Variable` read inside the block is watched automatically. A
# `tf.constant` is not: use `tape.watch(x)` inside the block, before using it.

# %% check
x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
dy_dx = tape.gradient(y, x)  # computed outside the block
print(dy_dx)
print("Value:", dy_dx.numpy())

# %% [markdown]
# Forget the `watch`, and the tape records nothing: the gradient is `None`, not
# zero: "no path from the target to this source".

# %% check
x = tf.constant(3.0)
with tf.GradientTape() as forgetful:
    y = x * x
print(forgetful.gradient(y, x))
print(len(forgetful.recorded_ops), "ops recorded")

# %% [markdown]
# `tf.explain` says why, in plain words (lesson 10 shows every cause):

# %% check
print(tf.explain(forgetful, y, x))

# %% [markdown]
# ## The recording, op by op
#
# A slightly longer function, `f(x) = x * sin(x) + 1`, and the forward pass
# replayed: each op appears on the tape in the order it ran.

# %%
x = tf.Variable(2.0, name="x")
with tf.GradientTape() as tape:
    f = x * tf.sin(x) + 1.0
print(tape.gradient(f, x))  # sin(x) + x cos(x)
tf.viz.recording_player(tape)

# %% [markdown]
# ## Exercises
#
# Each exercise ends with `lessons.check(...)`, which tells you whether your
# answer is right and, if not, what to look at. Try first; if you are stuck,
# `lessons.solution("01.cube")` shows a solution.
#
# **1.** With a `Variable` `x = 2.0`, compute the derivative of
# `y = x**3 + 2*x` with a tape. Work it out by hand first, so you know what the
# tape should say. Put the tape's answer in `answer` and run the cell.

# %%
x = tf.Variable(2.0)
answer = ...  # your code: a tape, then tape.gradient
lessons.check("01.cube", answer)

# %% [markdown]
# **2.** Predict before you run the tape: `a` is a variable, `b` a constant the
# tape watches, `c` a constant nobody watches, and `y = a*b + c*c`. What are
# `[dy/da, dy/db, dy/dc]`? Write your prediction as a list of numbers (with
# `None` where you expect no gradient), check it, and only then ask the tape.

# %%
a = tf.Variable(2.0)
b = tf.constant(3.0)
c = tf.constant(4.0)
with tf.GradientTape() as tape:
    tape.watch(b)
    y = a * b + c * c
answer = ...  # your prediction, e.g. [1.0, 2.0, 3.0]
lessons.check("01.which_none", answer)

# %% [markdown]
# ## What you saw
#
# * A `GradientTape` records the ops run inside its `with` block, then
#   `gradient` sweeps them backwards (reverse mode).
# * Trainable variables are watched automatically; tensors need `tape.watch`.
# * An unwatched source gives `None`, and `tf.explain` tells you why.
#
# Next: [lesson 2](02_watching.ipynb), everything about watching.
