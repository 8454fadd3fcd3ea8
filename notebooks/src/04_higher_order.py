# %% [markdown]
# # Lesson 4 — Nested tapes and higher-order derivatives
#
# **Goal:** compute second (and third) derivatives by nesting tapes, and *see*
# why it works: the outer tape records the inner tape's gradient computation,
# so the second derivative is just the gradient of the first gradient's graph.
# Then build a Hessian with `jacobian`.

# %%
import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## Two tapes, two derivatives
#
# The inner tape records `y = x * x`. Its `gradient` call runs *inside* the
# outer tape's block, so every op of that backward computation is recorded by
# the outer tape, which can then differentiate `dy_dx` itself.

# %% check
x = tf.Variable(2.0, name="x")
with tf.GradientTape(persistent=True) as tape1:
    with tf.GradientTape() as tape2:
        y = x * x
    dy_dx = tape2.gradient(y, x)
d2y_dx2 = tape1.gradient(dy_dx, x)
print("dy/dx   =", dy_dx.numpy())  # 2x = 4
print("d2y/dx2 =", d2y_dx2.numpy())  # 2

# %% [markdown]
# ## The picture: the outer tape recorded the inner gradient
#
# Each tape is a frame, labelled with the name you gave it: the outer frame
# is `tape1`, and the frame inside it is `tape2` (tensors carry their names
# too: `y`, `dy_dx`). The frame inside shows that `y = x * x` was recorded by
# **both** tapes.
#
# The amber ops sit only in the outer frame: they are `tape2.gradient`'s own
# computation, which ran while `tape1` was still recording. Read them from the
# top: the seed `dy/dy = 1` (a constant), the rule of `Mul`
# (`d(a*b)/da = b`, `d(a*b)/db = a`, here two products `1 * x`), and the
# `AddN` that sums the two gradients arriving at `x` (fan-out): `dy/dx = 2x = 4`
# is that `AddN`'s output. `tape1.gradient(dy_dx, x)` then swept back through
# those amber ops, which gives `d2y/dx2 = 2` (the `∂` on `x`).

# %%
tape1

# %% [markdown]
# The same with constants and `watch`, as in the TensorFlow docs, at `x = 3`:

# %% check
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

# %% [markdown]
# Play both sweeps, one after the other (`sweep="all"`): first `tape3`'s own
# sweep, which ends on `dy/dx`; then `tape2`'s sweep, which walks back through
# the ops that first sweep recorded (the seed, the two products of `Mul`'s
# rule, the `AddN` at the fan-out) and ends on the second derivative. It opens
# in predict mode: type each product and running sum before the player shows
# it (untick **predict** to just watch). The dotted lines link each backward op
# to the forward op it differentiates.

# %%
tf.viz.player(tape2, sweep="all", predict=True)

# %% [markdown]
# ## Deeper: a chain of tapes
#
# Every extra tape adds one order. With `sin`, the derivatives cycle
# `cos, -sin, -cos`:

# %% check
x = tf.Variable(0.5, name="x")
with tf.GradientTape() as t1:
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t3:
            y = tf.sin(x)
        d1 = t3.gradient(y, x)
    d2 = t2.gradient(d1, x)
d3 = t1.gradient(d2, x)
print([round(float(d.numpy()), 4) for d in (d1, d2, d3)])

# %% [markdown]
# ## Hessians with `jacobian`
#
# For a function of a vector, the inner tape gives the gradient vector `g`, and
# the outer tape's `jacobian(g, x)` gives the matrix of second derivatives, the
# **Hessian** `H[i, j] = d2 f / dx_i dx_j`.

# %% check
x = tf.Variable([1.0, 2.0], name="x")
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        f = x[0] ** 2 * x[1] + tf.sin(x[1])
    g = inner.gradient(f, x)
hessian = outer.jacobian(g, x)
print("gradient:", g.numpy())
print("Hessian:\n", hessian.numpy())

# %% [markdown]
# The same matrix as a heatmap (red positive, blue negative, white zero): the
# symmetry about the diagonal is visible at a glance.

# %%
tf.viz.heatmap(hessian, title="Hessian of f at x = [1, 2]")

# %% [markdown]
# ## Exercises
#
# **1.** Write a function `third(x)` that returns the third derivative of
# `x**4` at `x`, computed by tapes. How many tapes do you need, and which
# `gradient` call must run inside which tape? Try it at `x = tf.Variable(2.0)`,
# then answer with the function itself: the checker calls it at points of its
# own and counts the tapes and gradient calls.

# %%
answer = ...  # your function: def third(x): ..., then answer = third
lessons.check("04.third", answer)

# %% [markdown]
# **2.** Write `hessian(x)`: the Hessian of `f(x) = x0**2 * x1` at a vector
# `x` (a 2x2 matrix), by nested tapes. Work out the gradient `[2 x0 x1, x0**2]`
# by hand first: which entry of the Hessian is 0? Answer with the function.

# %%
answer = ...  # your function: def hessian(x): ..., then answer = hessian
lessons.check("04.hessian", answer)

# %% [markdown]
# **3.** Every Hessian above is symmetric. Why? Answer with one letter.
#
# * **a** `jacobian` symmetrises the matrix it returns.
# * **b** `H[i, j]` and `H[j, i]` are the same second derivative, taken in the
#   other order, and for smooth functions the order does not matter.
# * **c** Because `f` treats `x0` and `x1` the same way.

# %%
answer = ...  # "a", "b" or "c"
lessons.check("04.symmetric", answer)

# %% [markdown]
# Next: [lesson 5](05_many_gradients.ipynb), gradients of many things at once.
