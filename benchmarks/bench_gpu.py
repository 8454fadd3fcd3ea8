"""GPU benchmark: tapeviz on CuPy against PyTorch on CUDA and CuPy written by hand.

Run: ``python benchmarks/bench_gpu.py [--quick]`` on a machine with an NVIDIA
GPU, CuPy (``pip install 'tapeviz[gpu]'``) and PyTorch. Each contender that
cannot run here (no CuPy, no PyTorch, no GPU) is skipped with its reason, and
the script still exits 0: with none of them it only prints the reasons.

Two training steps (forward, backward, plain SGD update), float32:

- MLP 4096-4096-4096-10, ReLU, batch 1024, softmax cross-entropy;
- CNN on 32x32x3 images, batch 256: Conv2D(32, 3x3, same) + ReLU, 2x2 max
  pool, Conv2D(64, 3x3, same) + ReLU, 2x2 max pool, Dense(10).

Contenders, given the same initial weights and batch (their losses are
checked to agree before timing):

- ``tapeviz``: GradientTape and tf.keras.optimizers.SGD on the CuPy backend;
- ``torch``: the same network in PyTorch (autograd, torch.optim.SGD), TF32
  off so that every contender multiplies in full float32;
- ``cupy``: the step written by hand in CuPy (im2col convolution, hand-derived
  backward), the same arithmetic with no tape.

Timing: rounds in which each contender runs a few steps in turn, the device
synchronised around each; the median per step. Targets (issue 13): tapeviz at
least 0.8x PyTorch's throughput on the MLP, and within 1.1x of hand-written
CuPy's step time.

The hand-written steps take the array module as an argument, so
tests/house/test_benchmark_baselines.py checks them against tapeviz on NumPy,
without a GPU.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

TARGETS = {"mlp_vs_torch_throughput": 0.8, "vs_hand_cupy_time": 1.1}
LR = 0.01
SIZES = {
    "full": {
        "mlp": {"dims": (4096, 4096, 4096, 10), "batch": 1024},
        "cnn": {"image": (32, 32, 3), "filters": (32, 64), "batch": 256},
    },
    "quick": {
        "mlp": {"dims": (1024, 1024, 1024, 10), "batch": 256},
        "cnn": {"image": (16, 16, 3), "filters": (16, 32), "batch": 64},
    },
}


# -- what can run here ------------------------------------------------------------------------------


def cupy_reason():
    """None when CuPy and a CUDA GPU are usable, else why not."""
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 'tapeviz[gpu]' on a machine with an NVIDIA GPU)"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "CuPy sees no CUDA GPU"
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means no usable GPU
        return f"CuPy has no usable CUDA GPU ({type(exc).__name__}: {exc})"
    return None


def torch_reason():
    """None when PyTorch with CUDA is usable, else why not."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed (pip install torch)"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA GPU"
    return None


# -- the networks' weights and data (host NumPy, shared by every contender) -------------------------


def mlp_problem(dims, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(dims[:-1], dims[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    x = rng.standard_normal((batch, dims[0])).astype(np.float32)
    y = rng.integers(0, dims[-1], batch).astype(np.int64)
    return params, x, y


def cnn_problem(image, filters, batch, seed=0, classes=10):
    rng = np.random.default_rng(seed)
    h, w, c = image
    params = []
    for c_in, c_out in zip((c,) + tuple(filters[:-1]), filters):
        params.append((rng.standard_normal((3, 3, c_in, c_out)) * np.sqrt(2.0 / (9 * c_in))).astype(np.float32))
        params.append(np.zeros(c_out, np.float32))
    flat = (h // 4) * (w // 4) * filters[-1]
    params.append((rng.standard_normal((flat, classes)) * np.sqrt(1.0 / flat)).astype(np.float32))
    params.append(np.zeros(classes, np.float32))
    x = rng.standard_normal((batch, h, w, c)).astype(np.float32)
    y = rng.integers(0, classes, batch).astype(np.int64)
    return params, x, y


# -- hand-written steps (xp: cupy, or numpy for the CPU check) --------------------------------------


def _softmax_cross_entropy(xp, logits, y):
    """Mean loss and its gradient with respect to the logits."""
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = xp.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    rows = xp.arange(n)
    loss = (xp.log(total[:, 0]) - shifted[rows, y]).mean()
    dlogits = e / total
    dlogits[rows, y] -= 1
    return loss, dlogits / np.float32(n)


class HandMLP:
    def __init__(self, xp, params, x, y):
        self.xp = xp
        self.params = [xp.array(p) for p in params]  # copies: the updates write in place
        self.x, self.y = xp.asarray(x), xp.asarray(y)

    def step(self):
        xp, p = self.xp, self.params
        activations, pre = [self.x], []
        for i in range(0, len(p) - 2, 2):
            z = activations[-1] @ p[i] + p[i + 1]
            pre.append(z)
            activations.append(xp.maximum(z, 0))
        logits = activations[-1] @ p[-2] + p[-1]
        loss, g = _softmax_cross_entropy(xp, logits, self.y)
        grads = [None] * len(p)
        for i in range(len(p) - 2, -1, -2):
            grads[i], grads[i + 1] = activations[i // 2].T @ g, g.sum(axis=0)
            if i:
                g = (g @ p[i].T) * (pre[i // 2 - 1] > 0)
        for param, grad in zip(p, grads):
            param -= np.float32(LR) * grad
        return loss


def _im2col(xp, x):
    n, h, w, c = x.shape
    padded = xp.zeros((n, h + 2, w + 2, c), x.dtype)
    padded[:, 1:-1, 1:-1, :] = x
    cols = xp.empty((n, h, w, 3, 3, c), x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, :, i, j, :] = padded[:, i : i + h, j : j + w, :]
    return cols.reshape(n * h * w, 9 * c)


def _col2im(xp, dcols, shape):
    n, h, w, c = shape
    dcols = dcols.reshape(n, h, w, 3, 3, c)
    dpadded = xp.zeros((n, h + 2, w + 2, c), dcols.dtype)
    for i in range(3):
        for j in range(3):
            dpadded[:, i : i + h, j : j + w, :] += dcols[:, :, :, i, j, :]
    return dpadded[:, 1:-1, 1:-1, :]


class HandCNN(HandMLP):
    def step(self):
        xp, p = self.xp, self.params
        h, saved = self.x, []
        for i in (0, 2):  # conv 3x3 same + relu, then a 2x2 max pool
            n, hh, ww, _ = h.shape
            cols = _im2col(xp, h)
            conv = (cols @ p[i].reshape(-1, p[i].shape[-1]) + p[i + 1]).reshape(n, hh, ww, -1)
            relu = xp.maximum(conv, 0)
            windows = relu.reshape(n, hh // 2, 2, ww // 2, 2, relu.shape[-1])
            pooled = windows.max(axis=(2, 4))
            saved.append((h.shape, cols, relu, windows, pooled))
            h = pooled
        flat = h.reshape(h.shape[0], -1)
        logits = flat @ p[4] + p[5]
        loss, g = _softmax_cross_entropy(xp, logits, self.y)
        grads = [None] * 6
        grads[4], grads[5] = flat.T @ g, g.sum(axis=0)
        d = (g @ p[4].T).reshape(h.shape)
        for i in (2, 0):
            shape, cols, relu, windows, pooled = saved[i // 2]
            # The pooled gradient goes where the window's max is; ties only happen
            # between zeros (ReLU outputs), whose gradient the ReLU mask drops anyway.
            hit = windows == pooled[:, :, None, :, None, :]
            dconv = (hit * d[:, :, None, :, None, :]).reshape(relu.shape) * (relu > 0)
            dconv2 = dconv.reshape(-1, dconv.shape[-1])
            grads[i], grads[i + 1] = (cols.T @ dconv2).reshape(p[i].shape), dconv2.sum(axis=0)
            if i:
                d = _col2im(xp, dconv2 @ p[i].reshape(-1, p[i].shape[-1]).T, shape)
        for param, grad in zip(p, grads):
            param -= np.float32(LR) * grad
        return loss


# -- tapeviz (on the active backend) ---------------------------------------------------------------


class TapevizStep:
    def __init__(self, kind, params, x, y):
        import tapeviz as tf

        self.tf, self.kind = tf, kind
        self.params = [tf.Variable(p) for p in params]
        self.x, self.y = tf.constant(x), tf.constant(y)
        self.optimizer = tf.keras.optimizers.SGD(learning_rate=LR)

    def forward(self):
        tf, p = self.tf, self.params
        h = self.x
        if self.kind == "mlp":
            for i in range(0, len(p) - 2, 2):
                h = tf.nn.relu(tf.matmul(h, p[i]) + p[i + 1])
        else:
            for i in (0, 2):
                h = tf.nn.relu(tf.nn.conv2d(h, p[i], 1, "SAME") + p[i + 1])
                h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.reshape(h, (h.shape[0], -1))
        return tf.matmul(h, p[-2]) + p[-1]

    def step(self):
        tf = self.tf
        with tf.GradientTape() as tape:
            logits = self.forward()
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(self.y, logits))
        grads = tape.gradient(loss, self.params)
        self.optimizer.apply_gradients(zip(grads, self.params))
        return loss


# -- PyTorch ---------------------------------------------------------------------------------------


class TorchStep:
    def __init__(self, kind, params, x, y):
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False  # full float32, as CuPy and tapeviz multiply
        torch.backends.cudnn.allow_tf32 = False
        self.torch, self.kind, dev = torch, kind, "cuda"
        if kind == "cnn":  # HWIO -> OIHW, NHWC -> NCHW
            params = [p.transpose(3, 2, 0, 1) if p.ndim == 4 else p for p in params]
            x = x.transpose(0, 3, 1, 2)
        self.params = [torch.tensor(np.ascontiguousarray(p), device=dev, requires_grad=True) for p in params]
        self.x = torch.tensor(np.ascontiguousarray(x), device=dev)
        self.y = torch.tensor(y, device=dev)
        self.optimizer = torch.optim.SGD(self.params, lr=LR)

    def step(self):
        torch, F, p = self.torch, self.torch.nn.functional, self.params
        h = self.x
        if self.kind == "mlp":
            for i in range(0, len(p) - 2, 2):
                h = torch.relu(h @ p[i] + p[i + 1])
        else:
            for i in (0, 2):
                h = F.max_pool2d(torch.relu(F.conv2d(h, p[i], p[i + 1], padding=1)), 2)
            h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)  # flatten in NHWC order, as the others do
        loss = F.cross_entropy(h @ p[-2] + p[-1], self.y)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss


# -- running ---------------------------------------------------------------------------------------


def contenders(kind, sizes):
    """{name: (step object, synchronise)} for what can run here, and {name: reason} for the rest."""
    problem = mlp_problem(**sizes["mlp"]) if kind == "mlp" else cnn_problem(**sizes["cnn"])
    ready, skipped = {}, {}
    reason = cupy_reason()
    if reason is None:
        import cupy

        from tapeviz import backend

        backend.use("cupy")
        sync = cupy.cuda.Device().synchronize
        ready["tapeviz"] = (TapevizStep(kind, *problem), sync)
        ready["cupy"] = ((HandCNN if kind == "cnn" else HandMLP)(cupy, *problem), sync)
    else:
        skipped["tapeviz"] = skipped["cupy"] = reason
    reason = torch_reason()
    if reason is None:
        import torch

        ready["torch"] = (TorchStep(kind, *problem), torch.cuda.synchronize)
    else:
        skipped["torch"] = reason
    return ready, skipped


def loss_value(loss):
    if hasattr(loss, "numpy"):  # a tapeviz Tensor
        return float(loss.numpy())
    if hasattr(loss, "item"):  # a torch tensor, a CuPy or NumPy 0-d array
        return float(loss.item())
    return float(loss)


def check_same_losses(ready, steps=2, rtol=2e-3):
    """Every contender's first losses agree (same weights, same batch): they do the same work."""
    losses = {name: [loss_value(step.step()) for _ in range(steps)] for name, (step, _) in ready.items()}
    names = list(losses)
    for name in names[1:]:
        np.testing.assert_allclose(
            losses[name],
            losses[names[0]],
            rtol=rtol,
            err_msg=f"{name} and {names[0]} disagree: they do not compute the same step",
        )
    return losses


def interleave(ready, rounds, steps):
    """Median seconds per step of each contender, timed in turn (warm-up round dropped)."""
    times = {name: [] for name in ready}
    for r in range(rounds + 1):
        for name, (step, sync) in ready.items():
            sync()
            start = time.perf_counter()
            for _ in range(steps):
                step.step()
            sync()
            if r:
                times[name].append((time.perf_counter() - start) / steps)
    return {name: statistics.median(t) for name, t in times.items()}


def describe_device():
    try:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        return f"{name}, CuPy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}"
    except Exception:  # noqa: BLE001 - only a description
        return "no CUDA device seen by CuPy"


def run(quick=False, rounds=None, steps=None):
    sizes = SIZES["quick" if quick else "full"]
    rounds = rounds or (3 if quick else 7)
    steps = steps or (3 if quick else 10)
    print(f"GPU benchmark ({'quick' if quick else 'full'} sizes): {describe_device()}")
    results = {}
    for kind in ("mlp", "cnn"):
        ready, skipped = contenders(kind, sizes)
        shape = sizes[kind]
        print(f"\n[{kind}] {shape}")
        for name, reason in skipped.items():
            print(f"  {name:8s} skipped: {reason}")
        if not ready:
            continue
        check_same_losses(ready)
        per_step = interleave(ready, rounds, steps)
        for name, seconds in per_step.items():
            print(f"  {name:8s} {seconds * 1e3:9.2f} ms/step  {1 / seconds:8.1f} steps/s")
        if "tapeviz" in per_step and "torch" in per_step:
            ratio = per_step["torch"] / per_step["tapeviz"]
            goal = TARGETS["mlp_vs_torch_throughput"] if kind == "mlp" else None
            verdict = "" if goal is None else (f"  (target >= {goal:.1f}x: {'met' if ratio >= goal else 'NOT met'})")
            print(f"  tapeviz throughput / PyTorch's: {ratio:.2f}x{verdict}")
            results[f"{kind}_vs_torch_throughput"] = ratio
        if "tapeviz" in per_step and "cupy" in per_step:
            ratio = per_step["tapeviz"] / per_step["cupy"]
            goal = TARGETS["vs_hand_cupy_time"]
            print(
                f"  tapeviz time / hand-written CuPy's: {ratio:.2f}x  (target <= {goal}x: {'met' if ratio <= goal else 'NOT met'})"
            )
            results[f"{kind}_vs_hand_cupy_time"] = ratio
    if not results:
        print("\nNothing to compare on this machine: run it where CuPy, PyTorch and a CUDA GPU are present.")
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few rounds (a smoke run)")
    parser.add_argument("--rounds", type=int, help="timed rounds (default 7, quick 3)")
    parser.add_argument("--steps", type=int, help="steps per contender per round (default 10, quick 3)")
    args = parser.parse_args(argv)
    run(args.quick, args.rounds, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
