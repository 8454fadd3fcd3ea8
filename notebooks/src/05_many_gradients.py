# %% [markdown]
# # Lesson 5 — Gradients of many things
#
# **Goal:** ask one tape for many gradients at once: nested structures of
# targets and sources, weighted targets with `output_gradients`, sources the
# target does not depend on (`None` or zero), and whole derivative matrices
# with `jacobian` and `batch_jacobian`.

# %%
import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## Sources: any nested structure, answered in the same structure
#
# `sources` may be a variable, a list, a tuple or a dict (nested as deep as you
# like); the gradients come back in that same structure, each with the shape of
# its source, no concatenation needed. This is how a model's
# `trainable_variables` (a list of differently shaped weights) get their
# gradients in one call.

# %% check
weights = {
    "kernel": tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="kernel"),
    "bias": tf.Variable([0.5, -0.5], name="bias"),
}
x = tf.constant([[1.0, 1.0]])

with tf.GradientTape() as tape:
    y = tf.matmul(x, weights["kernel"]) + weights["bias"]
    loss = tf.reduce_sum(y**2)

grads = tape.gradient(loss, weights)
for name, g in grads.items():
    print(name, g.shape, g.numpy().tolist())

# %% [markdown]
# ## Several targets are summed
#
# A list (or dict) of targets, or a non-scalar target, is differentiated as
# the **sum** of all its elements: `gradient([f, g], x)` is the gradient of
# `f + g`.

# %% check
x = tf.Variable(2.0, name="x")
with tf.GradientTape() as tape:
    f = x**2
    g = 3.0 * x
print(tape.gradient([f, g], x))  # 2x + 3 = 7

# %% [markdown]
# ## Weighing the targets: `output_gradients`
#
# `output_gradients` sets the seed of the reverse sweep: instead of 1 for each
# target element, each element's gradient is multiplied by your weight. The
# result is a vector-Jacobian product `w^T J`: one reverse sweep, whatever the
# number of sources.

# %% check
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x**2
print(tape.gradient(y, x, output_gradients=tf.constant([1.0, 10.0, 100.0])))

# %% [markdown]
# Watch the seed in the player: at step 0 the sweep starts from `[1, 10, 100]`
# on `y` instead of ones; at step 1 the rule of `**` multiplies it element by
# element by `2x = [2, 4, 6]`, and `x` gets `[2, 40, 600]`.

# %%
tf.viz.player(tape)

# %% [markdown]
# ## Unconnected sources: `None` or zero
#
# When the target does not depend on a source at all, the answer is `None` by
# default: "there is no path", which is different from "the derivative is 0".
# If zeros are more convenient (to add gradients up, say), ask for them with
# `unconnected_gradients`.

# %% check
x = tf.Variable(1.0, name="x")
unused = tf.Variable(5.0, name="unused")
with tf.GradientTape(persistent=True) as tape:
    y = x * 2.0
print(tape.gradient(y, [x, unused]))
print(tape.gradient(y, [x, unused], unconnected_gradients=tf.UnconnectedGradients.ZERO))
del tape

# %% [markdown]
# ## The whole matrix: `jacobian`
#
# `gradient` sums over the target. To keep every `d y[i] / d x[j]`, ask for the
# Jacobian: shape `y.shape + x.shape`. tapeviz runs one reverse sweep per target
# element (TensorFlow vectorises them; the numbers are the same).

# %% check
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.stack([x[0] * x[1], x[1] * x[2]])
jacobian = tape.jacobian(y, x)
print(jacobian)

# %% [markdown]
# As a heatmap, one row per element of `y`, one column per element of `x`:
# the white cells are the zeros, where `y[i]` does not depend on `x[j]`.

# %%
tf.viz.heatmap(jacobian, title="d y[i] / d x[j]")

# %% [markdown]
# ## Per example: `batch_jacobian`
#
# In a batch, example `i`'s outputs depend only on example `i`'s inputs.
# `batch_jacobian(y, x)` returns, for each example, its own Jacobian, of shape
# `[batch, y_size, x_size]`, without the zero blocks between examples.

# %% check
layer = tf.Variable([[1.0, -1.0], [2.0, 0.5]], name="layer")
batch = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
with tf.GradientTape() as tape:
    tape.watch(batch)
    out = tf.tanh(tf.matmul(batch, layer))
per_example = tape.batch_jacobian(out, batch)
print(per_example.shape)
print(per_example[0])

# %% [markdown]
# The TensorFlow guides also use the Jacobian of a **model's output with respect
# to its weights**, e.g. to inspect a model at a given epoch: lesson 8 does that.
#
# ## Exercises
#
# **1.** The Jacobian of `y = x ** 2` at `x = [1, 2, 3]`. Before you run it:
# which entries are zero, and why?

# %%
x = tf.constant([1.0, 2.0, 3.0])
answer = ...
lessons.check("05.jacobian", answer)

# %% [markdown]
# **2.** `output_gradients` weighs the elements of the target. Use that to
# write `row_one(x)`: **row 1** of the Jacobian of
# `y = tf.stack([x[0] * x[1], x[1] * x[2]])` (compare with the one printed by
# `jacobian` above), that is `d y[1] / dx`, from a **single** `gradient` call.
# Try it at `x = [1, 2, 3]`, then answer with the function: the checker calls
# it at a point of its own and counts the gradient calls.

# %%
answer = ...  # your function: def row_one(x): ..., then answer = row_one
lessons.check("05.row", answer)

# %% [markdown]
# **3.** With `x = tf.Variable(1.0)`, `z = tf.Variable(1.0)` and `y = x * 2`,
# get `[dy/dx, dy/dz]` with a zero (not `None`) for `z`.

# %%
answer = ...
lessons.check("05.zero", answer)

# %% [markdown]
# **4.** When would you rather have the default `None` than a zero? One letter:
#
# * **a** To notice a variable that never reached the loss: a bug you want to
#   see, where a zero would train on silently.
# * **b** At a minimum, where the derivative is 0.
# * **c** When you add gradients up.

# %%
answer = ...  # "a", "b" or "c"
lessons.check("05.none_or_zero", answer)

# %% [markdown]
# **5.** Predict before you run anything: a batch of shape `[5, 3]` goes
# through `out = tf.tanh(batch @ layer)` with `layer` of shape `[3, 4]`. What
# are the shapes of `tape.batch_jacobian(out, batch)` and of
# `tape.jacobian(out, batch)`? Answer `[shape, shape]`, each a list of ints,
# then check with a tape.

# %%
answer = ...  # your prediction: [[...], [...]]
lessons.check("05.batch", answer)

# %% [markdown]
# Next: [lesson 6](06_steering.ipynb), steering where gradients flow.
