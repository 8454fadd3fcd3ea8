"""The digits CNN training step: tapeviz against the same step without it.

Network (the one tests/keras/trainers/test_training_end_to_end.py trains): Conv2D(16, 3x3,
'same', relu) -> MaxPooling2D(2) -> Flatten -> Dense(64, relu) -> Dense(10),
sparse softmax cross-entropy from logits, Adam. One step = forward, backward
and the Adam update. Two baselines, each doing the same arithmetic with no
tape:

- ``NumpyCNN``: written by hand the way one writes it in NumPy (np.pad and
  im2col for the convolution, windows gathered by a transpose and argmax for
  the pooling, ``sum`` over axes for the bias). The issue's target is on
  this ratio: at most 1.3.
- ``KernelsCNN``: the very kernels tapeviz runs (its primitives' ``kernel``
  functions), called in sequence on arrays. No kernel differs, so the ratio
  to it is what the tape, the Tensor objects, Keras and the optimizer add.

Run: ``python benchmarks/training_bench.py`` (or call ``run()``).
"""

import os
import time

# Multithreaded BLAS on tiny matrices is slower and erratic on a 2-core machine
# shared with other work; one thread is what both contenders get (effective
# only when numpy is not imported yet).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

TARGET = 1.3  # the bound on tapeviz / hand-written NumPy


# -- the two baselines: hand-written NumPy, and tapeviz's kernels without the tape ---------------------


def _im2col(x, k):
    n, h, w, c = x.shape
    p = k // 2
    padded = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    cols = np.empty((n, h, w, k, k, c), x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, :, :, i, j, :] = padded[:, i : i + h, j : j + w, :]
    return cols.reshape(n * h * w, k * k * c)


class _AdamState:
    """Adam with Keras's formulas (bias correction folded into the step size), on arrays."""

    def __init__(self, params):
        self.params = [p.copy() for p in params]  # kernel, bias, W1, b1, W2, b2
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def adam(self, grads, lr=1e-3, beta_1=0.9, beta_2=0.999, eps=1e-7):
        self.t += 1
        alpha = np.float32(lr) * np.sqrt(1 - np.float32(beta_2) ** self.t) / (1 - np.float32(beta_1) ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m += (g - m) * (1 - beta_1)
            v += (g * g - v) * (1 - beta_2)
            p -= m * alpha / (np.sqrt(v) + eps)


class NumpyCNN(_AdamState):
    """The network's forward and backward written by hand in NumPy."""

    def step(self, x, y):
        k, kb, w1, b1, w2, b2 = self.params
        n, h, w, _ = x.shape
        f = k.shape[-1]
        # forward
        cols = _im2col(x, 3)
        conv = (cols @ k.reshape(-1, f)).reshape(n, h, w, f) + kb
        relu = np.maximum(conv, 0)
        tiles = relu.reshape(n, h // 2, 2, w // 2, 2, f).transpose(0, 1, 3, 5, 2, 4).reshape(n, h // 2, w // 2, f, 4)
        arg = np.argmax(tiles, axis=-1)
        pooled = np.take_along_axis(tiles, arg[..., None], -1)[..., 0]
        flat = pooled.reshape(n, -1)
        z1 = flat @ w1 + b1
        a1 = np.maximum(z1, 0)
        logits = a1 @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        loss = -np.mean(np.log(probs[np.arange(n), y]))
        # backward
        dlogits = probs
        dlogits[np.arange(n), y] -= 1
        dlogits /= n
        dw2, db2 = a1.T @ dlogits, dlogits.sum(0)
        dz1 = (dlogits @ w2.T) * (z1 > 0)
        dw1, db1 = flat.T @ dz1, dz1.sum(0)
        dpooled = (dz1 @ w1.T).reshape(pooled.shape)
        routed = np.where(arg[..., None] == np.arange(4), dpooled[..., None], np.float32(0))
        drelu = routed.reshape(n, h // 2, w // 2, f, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(n, h, w, f)
        dconv = drelu * (conv > 0)
        dk = (cols.T @ dconv.reshape(-1, f)).reshape(k.shape)
        dkb = dconv.sum(axis=(0, 1, 2))
        self.adam((dk, dkb, dw1, db1, dw2, db2))
        return loss


class KernelsCNN(_AdamState):
    """The same step through tapeviz's own kernels, called directly on arrays: no tape, no Tensors."""

    def __init__(self, params):
        super().__init__(params)
        from tapeviz.core.primitive import PRIMITIVES

        self.kernel = {name: p.kernel for name, p in PRIMITIVES.items()}

    def step(self, x, y):
        K = self.kernel
        k, kb, w1, b1, w2, b2 = self.params
        n = x.shape[0]
        conv_attrs = {"strides": (1, 1), "padding": "SAME"}
        pool_attrs = {"ksize": (2, 2), "strides": (2, 2), "padding": "VALID"}
        # forward
        conv = K["AddV2"](K["Conv2D"](x, k, **conv_attrs), kb)
        relu = K["Relu"](conv)
        pooled = K["MaxPool"](relu, **pool_attrs)
        flat = pooled.reshape(n, -1)
        z1 = K["AddV2"](K["MatMul"](flat, w1, False, False), b1)
        a1 = K["Relu"](z1)
        logits = K["AddV2"](K["MatMul"](a1, w2, False, False), b2)
        losses, backprop = K["SparseSoftmaxCrossEntropyWithLogits"](logits, y)
        loss = K["Sum"](losses, (0,), False) / np.float32(n)
        # backward
        dlogits = backprop / np.float32(n)
        dw2, db2 = K["MatMul"](a1, dlogits, True, False), K["Sum"](dlogits, (0,), False)
        dz1 = K["ReluGrad"](K["MatMul"](dlogits, w2, False, True), a1)
        dw1, db1 = K["MatMul"](flat, dz1, True, False), K["Sum"](dz1, (0,), False)
        dpooled = K["MatMul"](dz1, w1, False, True).reshape(pooled.shape)
        dconv = K["ReluGrad"](K["MaxPoolGrad"](relu, dpooled, **pool_attrs), relu)
        dk = K["Conv2DBackpropFilter"](x, dconv, k.shape, **conv_attrs)
        dkb = K["Sum"](dconv, (0, 1, 2), False)
        self.adam((dk, dkb, dw1, db1, dw2, db2))
        return loss


# -- the tapeviz step -----------------------------------------------------------------------------------


def digits_batch(batch_size):
    """The first ``batch_size`` training digits, as (n, 8, 8, 1) float32 images and int labels."""
    from tapeviz.datasets import load_digits

    (x_train, y_train), _ = load_digits()
    return x_train[:batch_size, ..., None], y_train[:batch_size]


class TapevizCNN:
    """The network as a Keras Sequential model, trained by the seeds' custom loop."""

    def __init__(self, seed=0):
        import tapeviz as tf

        self.tf = tf
        L = tf.keras.layers
        tf.random.set_seed(seed)
        self.model = tf.keras.Sequential(
            [
                tf.keras.Input(shape=(8, 8, 1)),
                L.Conv2D(16, 3, padding="same", activation="relu"),
                L.MaxPooling2D(2),
                L.Flatten(),
                L.Dense(64, activation="relu"),
                L.Dense(10),
            ]
        )
        self.optimizer = tf.keras.optimizers.Adam(1e-3)
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(self, x, y):
        tf, model = self.tf, self.model
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss


def check_same_step(batch_size=32, steps=3):
    """tapeviz and both baselines compute the same losses and the same updated weights."""
    x, y = digits_batch(batch_size)
    ours = TapevizCNN()
    baselines = [cls(ours.model.get_weights()) for cls in (NumpyCNN, KernelsCNN)]
    xt, yt = ours.tf.constant(x), ours.tf.constant(y)
    for _ in range(steps):
        loss = float(ours.step(xt, yt))
        for baseline in baselines:
            np.testing.assert_allclose(baseline.step(x, y), loss, rtol=1e-5)
    for baseline in baselines:
        for ours_w, theirs_w in zip(ours.model.get_weights(), baseline.params):
            np.testing.assert_allclose(ours_w, theirs_w, rtol=1e-4, atol=1e-6)


# -- timing -------------------------------------------------------------------------------------------


def best_times(contenders, repeats, rounds=15):
    """Each contender's best average over ``repeats`` calls, timed in interleaved rounds.

    Interleaving spreads the machine's changing load over all contenders
    alike; the best round is the one least disturbed.
    """
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            for _ in range(repeats):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / repeats)
    return best


def measure(batch_size=32, repeats=20):
    """Seconds per step: {'tapeviz': ..., 'numpy': ..., 'kernels': ...} for one batch size."""
    x, y = digits_batch(batch_size)
    ours = TapevizCNN()
    numpy_cnn, kernels_cnn = NumpyCNN(ours.model.get_weights()), KernelsCNN(ours.model.get_weights())
    xt, yt = ours.tf.constant(x), ours.tf.constant(y)
    contenders = {
        "tapeviz": lambda: ours.step(xt, yt),
        "numpy": lambda: numpy_cnn.step(x, y),
        "kernels": lambda: kernels_cnn.step(x, y),
    }
    for fn in contenders.values():
        fn()  # warm-up: builds, slots, caches
    return best_times(contenders, max(2, repeats * 32 // batch_size))


def run(batch_sizes=(32, 128, 512)):
    """Print the step times and the ratios for each batch size."""
    import allocator

    allocator.pin()  # every contender on the same allocator (see allocator.py)
    check_same_step()
    print("digits CNN training step (conv 16x3x3 same + relu, maxpool 2, dense 64 relu, dense 10, Adam)")
    print(f"{'batch':>6} {'tapeviz ms':>11} {'numpy ms':>9} {'kernels ms':>11} {'/numpy':>7} {'/kernels':>9}")
    results = {}
    for batch in batch_sizes:
        t = measure(batch)
        results[batch] = t["tapeviz"] / t["numpy"]
        print(
            f"{batch:>6} {t['tapeviz'] * 1e3:>11.3f} {t['numpy'] * 1e3:>9.3f} {t['kernels'] * 1e3:>11.3f} "
            f"{results[batch]:>7.2f} {t['tapeviz'] / t['kernels']:>9.2f}"
        )
    over = [f"batch {batch}: {ratio:.2f}" for batch, ratio in results.items() if ratio > TARGET]
    print(
        f"tapeviz / numpy target <= {TARGET}: "
        + ("met at every batch size" if not over else "OVER at " + ", ".join(over))
    )
    print("(tapeviz / kernels is what the tape, the Tensors, Keras and the optimizer add; no target)")
    return results


if __name__ == "__main__":
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [os.path.dirname(here), here]  # the repo (uninstalled), and allocator.py beside this file
    run()
