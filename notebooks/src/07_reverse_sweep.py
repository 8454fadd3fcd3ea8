# %% [markdown]
# # Lesson 7 — The reverse sweep, step by step
#
# **Goal:** follow `tape.gradient` one recorded op at a time: the seed, each
# op's local rule, the gradients accumulating where a value fans out, first on
# a small expression and then on one training step. Then see why this
# *reverse* mode suits "many inputs, few outputs", with `ForwardAccumulator`
# (forward mode) as the contrast.

# %%
import os

import tapeviz as tf
from tapeviz import lessons

lessons.setup()
os.makedirs("exports", exist_ok=True)

# %% [markdown]
# ## A small expression with a fan-out
#
# `f(x, y) = x * y + sin(x)` uses `x` twice. The sweep starts at `f` with the
# seed `df/df = 1` and walks the tape backwards. At each step the player shows
# the op (highlighted), the **upstream** gradient arriving at its output, the
# **rule** from tapeviz's rules table, and what it **gives** each input. The
# two gradients that reach `x` are **summed** (fan-out accumulation):
# `df/dx = y + cos(x)`.

# %% check
x = tf.Variable(2.0, name="x")
y = tf.Variable(5.0, name="y")
with tf.GradientTape() as tape:
    f = x * y + tf.sin(x)
df_dx, df_dy = tape.gradient(f, [x, y])
print("df/dx =", df_dx.numpy(), " (y + cos x)")
print("df/dy =", df_dy.numpy(), " (x)")

# %% [markdown]
# Press **step ▶** to move through the sweep (or **play**, and pick a speed):

# %%
sweep = tf.viz.player(tape)
sweep

# %% [markdown]
# ### Your turn: predict each step
#
# The same sweep in **predict mode**. **What to do:** press **step ▶**, then
# fill in each `?` on the card in order, one field per `?`: first each input's
# product (upstream × local derivative, both on the card), and where a gradient
# had already arrived at that input (at `x`, which is used twice), the running
# sum it collects: the gradient on its badge plus this step's product. Type a
# number and press **check**. A wrong answer gets a hint and one more try; then
# the player shows the value. When every `?` is filled, **step ▶** moves on,
# and the score counts your answers right the first time.
#
# `predict="local"` hides the local derivatives too: before each product, work
# out the op's own rule at the recorded values (`d(x*y)/dx = y = 5`), then
# multiply. Start with `predict=True` below; when the products come easily,
# run `tf.viz.player(tape, predict="local")`.

# %%
tf.viz.player(tape, predict=True)

# %% [markdown]
# The same steps as text, one line per frame of the player:

# %% check
for frame in sweep.frames:
    print(f"step {frame['index']}: {frame['caption']}")

# %% [markdown]
# ## Sharing the animation
#
# The player's frames export to a self-contained HTML page that plays without
# Python or a network (for slides, a blog, the docs), to SVG frames, and to an
# animated GIF, shown here:

# %%
try:
    sweep.save_html("exports/sweep.html")
    sweep.save_gif("exports/sweep.gif")
    shown = lessons.embed_image("exports/sweep.gif", alt="the reverse sweep of f, as a GIF")
except tf.viz.GraphvizUnavailable as problem:  # exports are drawn by Graphviz's `dot`
    shown = lessons.Embedded(f"<p>{problem}</p>")
shown

# %% [markdown]
# ## One training step
#
# The tape of a real training step is the same story, only longer: a `Dense`
# layer (`MatMul`, then adding the bias) and a mean squared error. The sweep
# goes from the loss back to the kernel and the bias. Notice the ops' *name
# scopes* (`model/layer`, `mean_squared_error`) under their names: the names
# given to the model and its layer below.

# %% check
model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones", name="layer")], name="model")
inputs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
targets = tf.constant([[1.0], [2.0]])
loss_fn = tf.keras.losses.MeanSquaredError()

with tf.GradientTape() as tape:
    predictions = model(inputs)
    loss = loss_fn(targets, predictions)
gradients = tape.gradient(loss, model.trainable_variables)
for variable, gradient in zip(model.trainable_variables, gradients):
    print(variable.path, gradient.numpy().ravel())

# %%
tf.viz.player(tape)

# %% [markdown]
# ## Why *reverse* mode?
#
# One reverse sweep gives the gradient of **one** output with respect to
# **every** input at once: the cost is about one extra forward pass, whether
# there are 2 inputs or 2 million weights. That is why training (one scalar
# loss, many weights) uses it.
#
# **Forward mode** goes the other way: it pushes a *tangent* (a direction
# in input space) forward alongside the values and gives the derivative of
# **every output** along **one** input direction (a Jacobian-vector product).
# tapeviz has it as `tf.autodiff.ForwardAccumulator`. For a loss of `n`
# weights, forward mode needs `n` passes, one per weight:

# %% check
w = tf.constant([1.0, 2.0, 3.0, 4.0])


def loss_of(w):
    return tf.reduce_sum(w**2) + tf.reduce_prod(w)


with tf.GradientTape() as tape:
    tape.watch(w)
    loss = loss_of(w)
print("reverse mode, 1 sweep:  ", tape.gradient(loss, w).numpy())

columns = []
for i in range(4):  # one forward pass per input direction
    direction = tf.one_hot(i, 4)
    with tf.autodiff.ForwardAccumulator(primals=w, tangents=direction) as acc:
        loss = loss_of(w)
    columns.append(float(acc.jvp(loss).numpy()))
print("forward mode, 4 passes: ", columns)

# %% [markdown]
# The **tangent player** shows one forward pass at work, on `f(x, y) = x * y + sin(x)`
# from the top of this lesson. The tangents `dx/dt = 1`, `dy/dt = 0` (move `x`,
# hold `y`) flow **with** the arrows, in the order the ops ran. At each op the
# card multiplies each input's local derivative by the tangent arriving from it
# and sums over the inputs: that sum is the op's own tangent. The pass ends on
# `df/dt`, the derivative of `f` along that direction: the `df/dx` the reverse
# sweep found above, here as the gradient dotted with the tangent. It opens in
# predict mode: at each op, type its tangent (local × tangent in, summed over
# the inputs) before the player shows it.

# %% check
with tf.autodiff.ForwardAccumulator(primals=[x, y], tangents=[tf.constant(1.0), tf.constant(0.0)]) as acc:
    f = x * y + tf.sin(x)
print("forward mode, df/dt =", acc.jvp(f).numpy())
print("reverse mode, df/dx =", df_dx.numpy())

# %%
tf.viz.player(acc, predict=True)

# %% [markdown]
# With many outputs and few inputs the balance flips: forward mode gives a
# whole Jacobian *column* per pass, where reverse mode needs one sweep per
# output *row* (that is what `tape.jacobian` does).
#
# ## Exercises
#
# **1.** Predict, then compute with a tape: d/dx of `x*x + x` at `x = 3`. How
# many gradients arrive at `x`, and what is each? (Play the sweep to confirm:
# `tf.viz.player(tape)`.) Answer with the gradient the tape gives.

# %%
answer = ...
lessons.check("07.fanout", answer)

# %% [markdown]
# **2.** Forward mode: predict with pencil and paper, using the gradient the
# reverse sweep printed for `loss_of(w)` at `w = [1, 2, 3, 4]` above. A
# `ForwardAccumulator` with the tangents `[1, 1, 0, 0]` (move `w0` and `w1`
# together) gives `acc.jvp(loss)`: what number? Then check with the
# accumulator.

# %%
answer = ...  # your prediction for acc.jvp(loss)
lessons.check("07.tangent", answer)

# %% [markdown]
# **3.** Predict with pencil and paper, following the sweep backwards, then
# check with a tape: for `loss = tf.reduce_sum((w * xs + b - ys) ** 2)` with the
# values below, what gradient reaches `b`? (`b` is a single number added to
# every element of `w * xs`.)

# %%
w = tf.Variable(2.0, name="w")
b = tf.Variable(0.5, name="b")
xs = tf.constant([1.0, 2.0])
ys = tf.constant([3.0, 5.0])
answer = ...  # your prediction for d loss / d b
lessons.check("07.bias", answer)

# %% [markdown]
# Next: [lesson 8](08_training_loops.ipynb), custom training loops.
