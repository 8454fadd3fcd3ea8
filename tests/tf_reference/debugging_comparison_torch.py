"""The same eight bugs on PyTorch, for docs/debugging.md: plainly, and under
torch.autograd.detect_anomaly() (pass any argument). Run with torch installed (never a tapeviz dependency):
python tests/tf_reference/debugging_comparison_torch.py [anomaly]
"""

import contextlib
import io
import sys
import warnings

import numpy as np
import torch


def norm_at_zero():
    x = torch.zeros(2, requires_grad=True)
    y = torch.sqrt((x * x).sum())
    y.backward()
    return x.grad


def log_zero_xent():
    logits = torch.tensor([[10.0, -10.0, -10.0]], requires_grad=True)
    labels = torch.tensor([[0.0, 1.0, 0.0]])
    p = torch.exp(logits) / torch.exp(logits).sum()
    p = p * (p > 1e-6).float()
    loss = -(labels * torch.log(p)).sum()
    loss.backward()
    return logits.grad


def numpy_activation():
    w = torch.tensor([[1.0, 2.0]], requires_grad=True)
    h = np.tanh((w @ torch.ones(2, 1)).detach().numpy())
    loss = torch.tensor(h).sum()
    loss.backward()
    return w.grad


def replaced_variable():
    w = torch.tensor(1.0, requires_grad=True)
    for _ in range(2):
        loss = (w * 3.0 - 1.0) ** 2
        loss.backward()
        w = w - 0.1 * w.grad
    return w.grad


def vanishing():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.normal(size=(8, 16)).astype("float32"))
    ws = [torch.tensor(rng.normal(size=(16, 16)).astype("float32"), requires_grad=True) for _ in range(20)]
    h = x
    for w in ws:
        h = torch.sigmoid(h @ w)
    h.sum().backward()
    return [float(ws[i].grad.norm()) for i in (0, 10, 19)]


def exploding():
    rng = np.random.default_rng(0)
    wh = torch.tensor((rng.normal(size=(16, 16)) * 1.5).astype("float32"), requires_grad=True)
    x = torch.tensor(rng.normal(size=(4, 16)).astype("float32"))
    h = x
    for _ in range(60):
        h = torch.relu(h @ wh * 0.9 + x)
    h.sum().backward()
    return float(wh.grad.norm())


class MySquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return -2.0 * x * dy


def wrong_custom_gradient():
    x = torch.tensor(3.0, requires_grad=True)
    MySquare.apply(x).backward()
    return x.grad


def where_nan():
    p = torch.tensor([0.5, 0.0], requires_grad=True)
    y = torch.where(p > 0, p * torch.log(p), torch.zeros(2)).sum()
    y.backward()
    return p.grad


BUGS = [
    norm_at_zero,
    log_zero_xent,
    numpy_activation,
    replaced_variable,
    vanishing,
    exploding,
    wrong_custom_gradient,
    where_nan,
]
anomaly = len(sys.argv) > 1
for bug in BUGS:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            if anomaly:
                with torch.autograd.detect_anomaly():
                    out = bug()
            else:
                out = bug()
        print(f"{bug.__name__}: returns {out!r}"[:200].replace("\n", " "))
    except Exception as e:
        print(f"{bug.__name__}: {type(e).__name__}: {str(e).splitlines()[0][:220]}")
    fwd = [line for line in err.getvalue().splitlines() if "debugging_comparison_torch.py" in line]
    if fwd:
        print("    forward traceback names:", fwd[-1].strip()[:120])
