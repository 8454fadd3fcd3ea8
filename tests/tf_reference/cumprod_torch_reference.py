"""PyTorch's cumprod derivatives at zeros, pasted as TORCH_CUMPROD in tests/core/primitives/test_numeric_edges.py.

    python -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.13.0 numpy
    /tmp/torchenv/bin/python tests/tf_reference/cumprod_torch_reference.py

PyTorch differentiates cumprod exactly at zeros (the product of the other
factors); TF divides by x with div_no_nan and gives 0 there (see
numbers_reference.py). For each input: the first, second and third
derivatives of sum(cumprod(x)), each the gradient of the sum of the previous
one, in float64. Not collected by pytest; imports nothing from tapeviz.
"""

import torch

INPUTS = [[2.0, 0.0, 3.0, 4.0], [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 5.0], [2.0, 0.5, 3.0, 4.0]]

if __name__ == "__main__":
    print(f"# PyTorch {torch.__version__}")
    print("TORCH_CUMPROD = {")
    for xs in INPUTS:
        x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
        orders, f = [], torch.cumprod(x, 0).sum()
        for _ in range(3):
            (g,) = torch.autograd.grad(f, x, create_graph=True)
            orders.append(g.tolist())
            f = g.sum()
        print(f"    {tuple(xs)!r}: {orders!r},")
    print("}")
