# %% [markdown]
# # Lesson 6 — Steering the flow of gradients
#
# **Goal:** decide what the tape records and how gradients flow back:
# `tf.stop_gradient` (a value that counts as a constant), `tape.stop_recording()`
# (a block the tape does not see), `tape.reset()` (start the recording over)
# and `tf.custom_gradient` (your own backward rule, here a numerically stable
# `log1pexp`).

# %%
import tapeviz as tf
from tapeviz import lessons

lessons.setup()

# %% [markdown]
# ## `tf.stop_gradient`: use the value, block the gradient
#
# `tf.stop_gradient(t)` returns `t`'s value, but to the tape it is a constant:
# no gradient flows through it. Use it when parts of a computation should not be
# differentiated (a target network, a fixed baseline).

# %% check
x = tf.Variable(3.0, name="x")
with tf.GradientTape() as tape:
    y = x * tf.stop_gradient(x)  # value x**2 = 9, but d/dx treats the 2nd x as 3.0
print(y.numpy(), tape.gradient(y, x).numpy())

# %% [markdown]
# In the graph, `x` feeds `Mul` twice: directly, and through `StopGradient`
# (marked *no gradient*, the edge into it a red dead end). The gradient that
# reaches `StopGradient`'s output (`∂ 3`, the other factor) stops there:
# nothing passes back through it to `x`. Only the direct edge delivers, so
# `x` gets `3`, not `2x = 6`.

# %%
tape

# %% [markdown]
# ## `tape.stop_recording()`: a block the tape does not see
#
# Inside `with tape.stop_recording():` the tape is paused. Anything computed
# there is a constant to it. Typical use: logging or metrics in the middle of a
# training step, without paying for their recording.

# %% check
x = tf.Variable(3.0, name="x")
with tf.GradientTape() as tape:
    y = x * x
    with tape.stop_recording():
        logged = y * 2.0  # not recorded
    total = y + logged  # recorded, but `logged` is a constant here
print(tape.gradient(total, x))  # d(x^2)/dx = 6, not 18

# %% [markdown]
# The picture has no op for `logged = y * 2.0`: the tape never saw it. The
# value of `logged` (`18`) enters the final addition as a plain constant
# (a dashed oval), so the sweep gives `x` only what comes through `y`.

# %%
tape

# %% [markdown]
# ## `tape.reset()`: forget and start over
#
# `reset()` drops everything recorded so far (and what was watched), as if a
# new tape had just started. Handy in a loop that only needs the last pass.

# %% check
x = tf.Variable(3.0, name="x")
with tf.GradientTape() as tape:
    discarded = x * x
    tape.reset()
    kept = x * 5.0
print(tape.gradient(kept, x))

# %% [markdown]
# ## `tf.custom_gradient`: your own backward rule
#
# `log(1 + e^x)` is simple, but its automatic gradient `e^x / (1 + e^x)` is
# `inf / inf = nan` for large `x`:

# %% check
x = tf.constant([0.0, 100.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    naive = tf.math.log(1.0 + tf.exp(x))
print("value:   ", naive.numpy())
print("gradient:", tape.gradient(naive, x).numpy())

# %% [markdown]
# With `@tf.custom_gradient` the function returns its value **and** a function
# computing the gradient from the upstream one. Here the rule is written in the
# stable form `1 - 1 / (1 + e^x)`, and the value as `x + log(1 + e^-x)` for
# positive `x`, so both stay finite.


# %% check
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(-tf.abs(x))
    value = tf.maximum(x, 0.0) + tf.math.log1p(e)  # stable for any x

    def grad(upstream):
        return upstream * (1.0 - 1.0 / (1.0 + tf.exp(x)))

    return value, grad


x = tf.constant([0.0, 100.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = log1pexp(x)
print("value:   ", y.numpy())
print("gradient:", tape.gradient(y, x).numpy())

# %% [markdown]
# On the tape the whole of `log1pexp` is **one** op: the `exp`, `maximum` and
# `log1p` inside it are not recorded, and during the sweep that op's rule is
# your `grad`. (Lesson 10 checks a custom gradient against finite differences
# with `tf.gradcheck`.)

# %%
tape

# %% [markdown]
# ## Exercises
#
# **1.** Predict, then compute with a tape: d/dx of `x**2 * tf.stop_gradient(x)`
# at `x = 1.5`. Its value is that of `x**3`; is its gradient the `3x**2` of `x**3`?
# Answer with the gradient the tape gives.

# %%
answer = ...
lessons.check("06.stopped", answer)

# %% [markdown]
# **2.** Write `reverse_gradient(x)`: the identity going forward, but with the
# gradient **negated** going back (the trick of domain-adversarial training).
# Try it on `reverse_gradient(x) * 3` at `x = 1`, then answer with the function
# itself: the checker calls it on inputs of its own, with upstream gradients of
# its own.

# %%
answer = ...  # your function, e.g. answer = reverse_gradient
lessons.check("06.reverse", answer)

# %% [markdown]
# **3.** Write your own stable `softplus(x) = log(1 + e^x)` with
# `@tf.custom_gradient`, whose rule uses the **value** instead of `exp(x)`:
# `d/dx log(1 + e^x) = e^x / (1 + e^x) = 1 - e^(-value)`. Try it at
# `x = [0, 100]`, then answer with the function: the checker tries it at large
# and negative `x` too.

# %%
answer = ...  # your function, e.g. answer = softplus
lessons.check("06.softplus", answer)

# %% [markdown]
# **4.** Why can `1 - e^(-value)` never overflow? One letter:
#
# * **a** NumPy computes it in float64.
# * **b** The tape clips large gradients.
# * **c** `value` is always positive, so `e^(-value)` lies between 0 and 1.

# %%
answer = ...  # "a", "b" or "c"
lessons.check("06.why_finite", answer)

# %% [markdown]
# Next: [lesson 7](07_reverse_sweep.ipynb), the reverse sweep step by step.
