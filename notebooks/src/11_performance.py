# %% [markdown]
# # Lesson 11 — Performance: what the tape costs
#
# **Goal:** measure what recording costs against hand-written gradients, see
# the memory a persistent tape keeps, make the tape record less with
# `watch_accessed_variables=False`, and run on a GPU when there is one.
#
# Timings differ on every machine and every run, so cells that print them are
# marked: their output is not stored in this notebook. Run them to see your
# numbers. Counts of ops and bytes are exact, and shown.

# %%
import time

import numpy as np

import tapeviz as tf
from tapeviz import lessons

lessons.setup()
# One BLAS thread for every matrix product, the tape's and NumPy's alike: tapeviz gives large
# products more threads than NumPy code written by hand gets, and a comparison on unequal
# cores would measure threads, not the tape.
tf.config.threading.set_intra_op_parallelism_threads(1)


def best_times(*fns, rounds=5, number=10):
    """Each function's best time per call, in milliseconds, over `rounds` of `number` calls.

    The functions take turns, round after round, so a busy moment of the machine
    falls on all of them alike; the best round is the one least disturbed.
    """
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()  # once before timing: the first call pays for what later calls reuse
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / number * 1e3)
    return best


# %% [markdown]
# ## The tape against hand-written gradients
#
# A two-layer network's gradient, twice: once by the tape, once by hand, with
# the chain rule written out in NumPy (the "manual gradients" alternative).
# Both give the same numbers:

# %% check
rng = np.random.default_rng(0)
X = rng.normal(size=(256, 64)).astype("float32")
Y = rng.normal(size=(256, 10)).astype("float32")
W1 = tf.Variable(rng.normal(size=(64, 128)).astype("float32") * 0.1, name="W1")
W2 = tf.Variable(rng.normal(size=(128, 10)).astype("float32") * 0.1, name="W2")
x, y = tf.constant(X), tf.constant(Y)


def with_tape():
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, W1))
        loss = tf.reduce_mean((tf.matmul(h, W2) - y) ** 2)
    return tape.gradient(loss, [W1, W2])


def by_hand():
    w1, w2 = W1.numpy(), W2.numpy()
    a = X @ w1
    h = np.maximum(a, 0)
    d_out = 2 * (h @ w2 - Y) / Y.size
    d_w2 = h.T @ d_out
    d_w1 = X.T @ ((d_out @ w2.T) * (a > 0))
    return d_w1, d_w2


for tape_grad, hand_grad in zip(with_tape(), by_hand()):
    print(tape_grad.shape, "same numbers:", bool(np.allclose(tape_grad.numpy(), hand_grad, atol=1e-6)))

# %% [markdown]
# Now time them. `lessons.setup()` turned on the visualizer's **recorder**, so
# that every tape of these lessons can be drawn: it keeps what each tape
# recorded and every step of each gradient (the arrays by reference, within a
# byte budget), and that costs time too, mostly in memory. A program that
# draws nothing runs without it, so the cell times the tape both ways: with the
# recorder on (as in every lesson), and off (`tf.viz.stop_watching()`, then
# `tf.viz.watch_all()` to turn it back on).

# %% timing
hand_ms, recorded_ms = best_times(by_hand, with_tape)
tf.viz.stop_watching()
(plain_ms,) = best_times(with_tape)
tf.viz.watch_all()
print(f"by hand:                 {hand_ms:8.3f} ms")
print(f"tape, recorder on:       {recorded_ms:8.3f} ms = {recorded_ms / hand_ms:5.1f} x by hand")
print(f"tape, recorder off:      {plain_ms:8.3f} ms = {plain_ms / hand_ms:5.1f} x by hand")

# %% [markdown]
# **What the ratio measures:** the time of one gradient by the tape divided
# by the time of the same gradient written by hand in NumPy (the best of 5
# rounds of 10 calls each, on one core), on your machine, now: the numbers
# above are yours, and they change from run to run. Compare the two tape lines: the difference is
# what watching costs, the price of the pictures. From here on the cells
# time the tape with the recorder off, as a program that draws nothing runs it.
#
# The ratio is not one fixed "overhead" either: every op costs the tape
# the same Python bookkeeping (recording the op, looking up its rule, summing
# at fan-outs) whatever its size, while the arithmetic grows with the
# matrices. So the ratio depends on the sizes. Measure it for a tiny network,
# this one, and a larger one:


# %% timing
def tape_over_hand(batch, inputs, hidden, outputs):
    """The tape's time / the hand-written time, for one gradient of the two-layer network."""
    r = np.random.default_rng(1)
    xs, ys = r.normal(size=(batch, inputs)).astype("float32"), r.normal(size=(batch, outputs)).astype("float32")
    w1 = tf.Variable(r.normal(size=(inputs, hidden)).astype("float32") * 0.1)
    w2 = tf.Variable(r.normal(size=(hidden, outputs)).astype("float32") * 0.1)
    xt, yt = tf.constant(xs), tf.constant(ys)

    def taped():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(tf.nn.relu(tf.matmul(xt, w1)), w2) - yt) ** 2)
        return tape.gradient(loss, [w1, w2])

    def hand():
        a1, a2 = w1.numpy(), w2.numpy()
        a = xs @ a1
        h = np.maximum(a, 0)
        d_out = 2 * (h @ a2 - ys) / ys.size
        return xs.T @ ((d_out @ a2.T) * (a > 0)), h.T @ d_out

    taped_ms, hand_ms = best_times(taped, hand, number=3)
    return taped_ms / hand_ms


tf.viz.stop_watching()  # time the tape as a program that draws nothing runs it
for label, sizes in [
    ("tiny   16 x 8 -> 16 -> 2      ", (16, 8, 16, 2)),
    ("lesson 256 x 64 -> 128 -> 10  ", (256, 64, 128, 10)),
    ("larger 1024 x 256 -> 512 -> 10", (1024, 256, 512, 10)),
]:
    print(f"{label}: the tape takes {tape_over_hand(*sizes):.1f} x the hand-written time")
tf.viz.watch_all()

# %% [markdown]
# Read your numbers: the smaller the ops, the larger the ratio. With a tiny
# network the tape's per-op bookkeeping *is* the cost, and the ratio is at its
# largest; with larger matrices the products dominate and the ratio comes
# close to 1. It may even dip a little below 1 for the larger network: both
# run the same five matrix products, which now take nearly all the time, and
# a few percent either way is the memory layout of the temporaries and the
# noise of your machine, not a tape faster than arithmetic. (If your numbers
# do not fall in that order, run the cell again: another program on your
# machine may have taken the time.) Hand-written gradients can be faster,
# but every model change means re-deriving them: the tape's flexibility is
# what you pay for. (TensorFlow's `tf.function` compiles a step into a graph
# to cut the per-op cost; tapeviz's `@tf.function` traces the same way but
# replays the ops one by one, so that every op can still be seen: it saves
# no time.)
#
# What the tape did for that gradient, exactly:

# %% check
with tf.GradientTape() as tape:
    h = tf.nn.relu(tf.matmul(x, W1))
    loss = tf.reduce_mean((tf.matmul(h, W2) - y) ** 2)
print("recorded ops:", len(tape.recorded_ops))
print("names:", [entry.primitive.name for entry in tape.recorded_ops])

# %% [markdown]
# ## Memory: what a persistent tape keeps
#
# To differentiate, the tape keeps the tensors the rules need (here the
# `256 x 128` hidden activations, among others). A normal tape lets go of
# them when `gradient` returns; a persistent one keeps them until it is deleted.

# %% check
with tf.GradientTape() as plain:
    loss = tf.reduce_mean((tf.matmul(tf.nn.relu(tf.matmul(x, W1)), W2) - y) ** 2)
plain.gradient(loss, [W1, W2])
with tf.GradientTape(persistent=True) as kept:
    loss = tf.reduce_mean((tf.matmul(tf.nn.relu(tf.matmul(x, W1)), W2) - y) ** 2)
kept.gradient(loss, [W1, W2])

view = tf.viz.memory(plain, kept, labels=["non-persistent", "persistent"])
for label, points in view.series:
    print(
        f"{label:>14}: peak {max(b for _, b, _ in points) / 1024:.0f} KiB, "
        f"after gradient(): {points[-1][1] / 1024:.0f} KiB"
    )

# %%
view

# %% check
del kept  # the persistent tape's memory goes with it
print("deleted")

# %% [markdown]
# ## Record less: `watch_accessed_variables=False`
#
# Fine-tuning only the last layer? By default the tape watches *every*
# trainable variable it sees, so it records the whole network. Watching only
# what you differentiate skips recording ops that touch nothing watched:


# %% check
def forward():
    h = tf.nn.relu(tf.matmul(x, W1))
    return tf.reduce_mean((tf.matmul(h, W2) - y) ** 2)


with tf.GradientTape() as everything:
    forward()
with tf.GradientTape(watch_accessed_variables=False) as head_only:
    head_only.watch(W2)
    forward()
print("watching all variables:", len(everything.recorded_ops), "ops recorded")
print("watching W2 only:      ", len(head_only.recorded_ops), "ops recorded")
kept = tf.viz.memory(everything, head_only, labels=["all", "W2 only"])
for label, points in kept.series:
    print(f"{label:>8}: the tape holds {max(b for _, b, _ in points) / 1024:.0f} KiB for its gradient")

# %% [markdown]
# The first layer's three ops (reading `W1`, its `MatMul`, the `Relu`) touch
# nothing watched, so they run but are not recorded, and the tape keeps none of
# their tensors: the `256 x 128` activations stay out of its memory. Time
# saved is the bookkeeping of those three ops, a few microseconds each:


# %% timing
tf.viz.stop_watching()  # as above: the tape alone, without the visualizer's recorder


def step_all():
    with tf.GradientTape() as tape:
        loss = forward()
    return tape.gradient(loss, W2)


def step_head():
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(W2)
        loss = forward()
    return tape.gradient(loss, W2)


all_ms, head_ms = best_times(step_all, step_head)
print(f"all: {all_ms:.3f} ms   W2 only: {head_ms:.3f} ms   saved: {all_ms - head_ms:+.3f} ms")
tf.viz.watch_all()

# %% [markdown]
# A few microseconds of about two hundred: small here, and a busy machine can
# hide it (run the cell again, and compare the "saved" lines). Both tapes run
# the same forward pass, and neither computes a gradient for `W1` (a sweep
# follows only the paths to the sources you ask for), so recording is all
# that differs. The saving grows with the part you freeze: fine-tuning the
# head of a deep network skips recording, and keeping, the whole body. The
# memory saved, above, is exact every time.

# %% [markdown]
# ## CPU or GPU
#
# tapeviz computes with NumPy on the CPU, or with CuPy on an NVIDIA GPU
# (`pip install 'tapeviz[gpu]'`, then `TAPEVIZ_BACKEND=cupy` before starting
# Python, or `tapeviz.backend.use("cupy")`). The same code runs on both; as in
# TensorFlow, `tf.config.list_physical_devices("GPU")` says what there is.

# %% check
gpus = tf.config.list_physical_devices("GPU")
print("backend:", tf.backend.name())
print("GPUs:", gpus if gpus else "none here: everything runs on the CPU with NumPy")

# %% timing
if gpus:
    big = tf.Variable(tf.random.normal([2048, 2048]))

    def gpu_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(big, big) ** 2)
        return tape.gradient(loss, big).numpy()

    print(f"GPU step: {best_times(gpu_step, number=5)[0]:.1f} ms")
else:
    print("no GPU: skipped")

# %% [markdown]
# ## Exercise
#
# Predict first: with `watch_accessed_variables=False` and **only `W1`**
# watched, which ops of `forward()` get recorded? (An op is recorded when one
# of its inputs depends on something watched.) Then count them with
# `len(tape.recorded_ops)`.

# %%
answer = ...
lessons.check("11.fewer_ops", answer)

# %% [markdown]
# Next: [lesson 12](12_tracing.ipynb), what `tf.function` does with your Python.
