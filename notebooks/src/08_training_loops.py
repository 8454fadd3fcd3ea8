# %% [markdown]
# # Lesson 8 — Custom training loops
#
# **Goal:** write the training loop yourself: forward pass and loss inside the
# tape, `gradient` after it, then `apply_gradients`. First linear regression
# with SGD, then with Adam (and a look at its moments), then gradient clipping
# between `gradient` and `apply_gradients`. Then a player steps through one
# whole training step of a model with layers: the forward pass, the loss, the
# reverse sweep to each weight's gradient, the clipping and Adam's update of
# each weight. Finally two models trained by one tape.

# %%
import numpy as np

import tapeviz as tf
from tapeviz import lessons

lessons.setup()
tf.random.set_seed(0)

# %% [markdown]
# ## Data: a noisy line
#
# 200 points around `y = 3x + 2`, made with a seeded generator so every run
# gives the same numbers.

# %%
rng = np.random.default_rng(0)
xs_np = rng.uniform(-1, 1, size=(200, 1)).astype("float32")
ys_np = (3.0 * xs_np + 2.0 + 0.1 * rng.normal(size=(200, 1))).astype("float32")
xs, ys = tf.constant(xs_np), tf.constant(ys_np)

# %% [markdown]
# ## The loop: record, differentiate, apply
#
# Each step runs the forward pass **inside** the tape (so it is recorded),
# computes the gradients **after** the block, and hands them to the optimizer,
# which updates the variables in place (`assign_sub`). A new tape every step:
# it records one step and is released by `gradient`.

# %% check
w = tf.Variable(0.0, name="w")
b = tf.Variable(0.0, name="b")
optimizer = tf.optimizers.SGD(learning_rate=0.1)


def loss_function(targets, predictions):
    return tf.reduce_mean((targets - predictions) ** 2)


for step in range(100):
    with tf.GradientTape() as tape:
        predictions = w * xs + b
        loss = loss_function(ys, predictions)
    gradients = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(gradients, [w, b]))
    if step % 25 == 0 or step == 99:
        print(f"step {step:3d}  loss {loss.numpy():.4f}  w {w.numpy():.3f}  b {b.numpy():.3f}")

# %% [markdown]
# ## The same with Adam
#
# Only the optimizer changes. Adam keeps two **slots** per variable, the running
# mean of the gradients `m` and of their squares `v`, and scales each step by
# them; you can look at them with `get_slot`.

# %% check
w = tf.Variable(0.0, name="w")
b = tf.Variable(0.0, name="b")
adam = tf.keras.optimizers.Adam(learning_rate=0.1)
for _step in range(100):
    with tf.GradientTape() as tape:
        loss = loss_function(ys, w * xs + b)
    gradients = tape.gradient(loss, [w, b])
    adam.apply_gradients(zip(gradients, [w, b]))
print(f"w {w.numpy():.3f}  b {b.numpy():.3f}  loss {loss.numpy():.4f}")
print("Adam's slots:", adam.get_slot_names())
print(f"m(w) = {adam.get_slot(w, 'm').numpy():.5f}   v(w) = {adam.get_slot(w, 'v').numpy():.6f}")
print("steps taken:", int(adam.iterations.numpy()))

# %% [markdown]
# `optimizer.minimize(loss_fn, var_list, tape=...)` wraps the same three
# steps; writing them out is what lets you *change* the gradients in between.
#
# ## Clipping between `gradient` and `apply_gradients`
#
# Gradient clipping, normalisation or any other transformation goes **after**
# `gradient` and **before** `apply_gradients`. Here a far-off start makes the
# first gradients huge; `tf.clip_by_global_norm` rescales them so their joint
# norm is at most 1.

# %% check
w = tf.Variable(50.0, name="w")
b = tf.Variable(-50.0, name="b")
with tf.GradientTape() as tape:
    loss = loss_function(ys, w * xs + b)
gradients = tape.gradient(loss, [w, b])
clipped, norm_before = tf.clip_by_global_norm(gradients, clip_norm=1.0)
print("norm before:", round(float(norm_before.numpy()), 2))
norm_after = tf.sqrt(tf.add_n([tf.reduce_sum(g**2) for g in clipped]))
print("norm after: ", round(float(norm_after.numpy()), 4))
tf.optimizers.SGD(learning_rate=0.1).apply_gradients(zip(clipped, [w, b]))
print(f"w {w.numpy():.3f}  b {b.numpy():.3f}")

# %% [markdown]
# (Optimizers also clip for you: `SGD(..., global_clipnorm=1.0)`, `clipnorm`,
# `clipvalue`.)
#
# ## One training step, played
#
# How does a gradient become a weight change? A model with two layers,
# `hidden` (2 `tanh` units) and `out`, learns the same line with Adam, its
# gradients clipped to a global norm of 1. Ten steps first, so that Adam's
# running means `m` and `v` have a history; then one more step, inside
# `tf.viz.record_update()`, which listens to the optimizer (through the same
# hooks as the pictures) and keeps every value it changed.

# %% check
tf.random.set_seed(0)
model = tf.keras.Sequential(
    [tf.keras.layers.Dense(2, activation="tanh", name="hidden"), tf.keras.layers.Dense(1, name="out")], name="model"
)
adam = tf.keras.optimizers.Adam(learning_rate=0.05)


def clipped_adam_step():
    with tf.GradientTape() as tape:
        predictions = model(xs)
        with tf.name_scope("loss"):  # the loss's ops fold into one box named "loss"
            loss = loss_function(ys, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    clipped, norm = tf.clip_by_global_norm(gradients, clip_norm=1.0)
    adam.apply_gradients(zip(clipped, model.trainable_variables))
    return tape, loss, norm


for _step in range(10):
    clipped_adam_step()
with tf.viz.record_update() as update:
    tape, loss, norm = clipped_adam_step()
print(f"step {int(adam.iterations.numpy())}: loss {loss.numpy():.4f}")
print(
    f"global norm of the gradients {norm.numpy():.4g}, so clip_by_global_norm scales them by "
    f"1 / {norm.numpy():.4g} = {1.0 / norm.numpy():.4g}"
)

# %% [markdown]
# Play it. Each layer is one box (`fold="scopes"`: a box per name scope; Keras
# puts each layer's ops in its own), so the whole step fits the page. The
# steps, in order:
#
# 1. **forward**: the ops appear on the tape as they run, layer by layer, then the loss;
# 2. **the reverse sweep**: from `d(loss)/d(loss) = 1` back through `loss`,
#    `out` and `hidden` to each weight's gradient (the red badges);
# 3. **clipping**: the global norm of all the gradients together and the
#    scale `clip_by_global_norm` multiplies them by (the badges show what the
#    optimizer gets);
# 4. **Adam**, one weight at a time: the card shows `m` and `v` moving toward
#    the new gradient, the step size `α` and the step `α·m / (√v + ε)` with
#    this step's numbers, and the weight before and after.
#
# To see inside a layer, open its box: `tf.viz.player(tape, update=update,
# fold="scopes", open=["model/hidden"])`.

# %%
tf.viz.player(tape, update=update, fold="scopes")

# %% [markdown]
# Compare the `g` rows of Adam's cards with the `step` rows. `update.last`
# holds what the player shows (for each weight: the gradient the optimizer got,
# the values before and after):

# %% check
gradient_sizes = np.concatenate([np.abs(row["gradient"]).ravel() for row in update.last["variables"]])
step_sizes = np.concatenate([np.abs(row["before"] - row["after"]).ravel() for row in update.last["variables"]])
print(
    f"|g|:    from {gradient_sizes.min():.3g} to {gradient_sizes.max():.3g}, "
    f"{gradient_sizes.max() / gradient_sizes.min():.0f} times apart"
)
print(
    f"|step|: from {step_sizes.min():.3g} to {step_sizes.max():.3g}, "
    f"{step_sizes.max() / step_sizes.min():.1f} times apart"
)

# %% [markdown]
# The gradients are far apart, the steps much less: Adam divides `m` by `√v`,
# so the size of each weight's gradient mostly cancels. For the same reason a
# factor common to all the gradients (clipping's scale) cancels in `m / √v`,
# up to `ε` and the history `m` and `v` carry from earlier steps, while SGD's
# step `lr·g` shrinks by the whole factor.
#
# ## Two models, one tape
#
# One tape records everything in its block, so several models can be trained
# together: collect their trainable variables in one list, take one gradient,
# apply it once. Here an encoder and a decoder learn to pass 4 numbers through
# a 2-number bottleneck.

# %% check
tf.random.set_seed(1)
encoder = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="tanh", name="code")], name="encoder")
decoder = tf.keras.Sequential([tf.keras.layers.Dense(4, name="output")], name="decoder")
data = tf.constant(np.random.default_rng(1).normal(size=(64, 4)).astype("float32") * 0.5)
optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)

for step in range(151):
    with tf.GradientTape() as tape:
        reconstruction = decoder(encoder(data))
        loss = tf.reduce_mean((data - reconstruction) ** 2)
    variables = encoder.trainable_variables + decoder.trainable_variables
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    if step % 50 == 0:
        print(f"step {step:3d}  reconstruction loss {loss.numpy():.4f}")
print([v.path for v in variables])  # a Keras weight: .name is "kernel", .path says whose

# %% [markdown]
# ## The Jacobian of a model's output with respect to its weights
#
# A persistent tape over one forward pass can also give `jacobian`s, e.g. how
# each of the decoder's 4 outputs for one example moves with each weight of its
# kernel (shape: outputs + kernel shape), something one might inspect at chosen
# epochs.

# %% check
with tf.GradientTape() as tape:
    out = decoder(encoder(data[:1]))
jac = tape.jacobian(out, decoder.trainable_variables[0])
print(jac.shape)

# %% [markdown]
# ## Exercises
#
# **1.** Write `train_step(w, b, xs, ys, optimizer)`: one training step that
# fits `w * xs + b` to `ys` with the mean squared error, and returns the loss.
# Which line must be inside the tape, and which after it? Run 200 of your steps
# with `SGD(learning_rate=0.1)` from `w = b = 0` on the `xs`, `ys` above: do
# you find the line? Then answer with the function itself: the checker trains
# fresh variables with it on a line of its own.

# %%
answer = ...  # your function: def train_step(w, b, xs, ys, optimizer): ..., then answer = train_step
lessons.check("08.regression", answer)

# %% [markdown]
# **2.** Predict with pencil and paper, then check with `tf.clip_by_global_norm`:
# two gradients, `[3, 4]` and `12`, clipped to a global norm of `6.5`. What is
# the clipped list? (The global norm treats all the numbers as one vector.)

# %%
answer = ...  # your prediction: [[..., ...], ...]
lessons.check("08.clip", answer)

# %% [markdown]
# Next: [lesson 9](09_digits.ipynb), a neural network on real data.
