"""No NumPy warning reaches the user from a tapeviz kernel (issue 17): TF returns inf/nan silently.

Each sweep runs in a fresh interpreter, because warning filters are process state:
under ``python -W error``, under ``warnings.simplefilter("error")`` set after
the import (as ``pytest -W error`` does, in front of tapeviz's own filter), and
with the default filters (nothing may be printed).
"""

import subprocess
import sys

import pytest

SWEEP = r"""
import inspect, sys, warnings
import numpy as np
import tapeviz as tf

if sys.argv[1] == "error-after-import":
    warnings.simplefilter("error")
SPECIAL = [0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45]
SKIP = {"py_function", "numpy_function", "print", "function", "vectorized_map", "map_fn",
        "while_loop", "cond", "case", "switch_case", "custom_gradient", "recompute_grad"}
leaks, ran = [], 0


def floats(y):
    ys = y if isinstance(y, (list, tuple)) else [y]
    return [v for v in ys if hasattr(v, "dtype") and v.dtype.is_floating]


def probe(name, fn, *args):
    # forward, first and second derivative; an op that refuses these arguments is skipped
    global ran
    try:
        with tf.GradientTape() as outer:
            outer.watch(args[0])
            with tf.GradientTape(persistent=True) as inner:
                for a in args:
                    inner.watch(a)
                y = floats(fn(*args))
            grads = inner.gradient(y, list(args))
        if grads[0] is not None:
            outer.gradient(grads[0], args[0])
        ran += 1
    except Warning as w:
        leaks.append(f"{name}: {type(w).__name__}: {w}")
    except Exception:
        pass


for dtype in (tf.float32, tf.float64):
    x = tf.constant(SPECIAL, dtype)
    cases = {
        "x": (x,), "x2d": (tf.reshape(x, [2, 5]),), "x,x": (x, x),
        "x,1-x": (x, tf.constant(1.0, dtype) - x), "empty": (tf.zeros([0, 3], dtype),),
    }
    for module_name, module in (("tf", tf), ("math", tf.math), ("nn", tf.nn), ("linalg", tf.linalg)):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if name.startswith("_") or name in SKIP or not callable(fn) or inspect.isclass(fn):
                continue
            for label, args in cases.items():
                probe(f"{module_name}.{name}({label})", fn, *args)


def update(name, fn):
    global ran
    try:
        fn()
        ran += 1
    except Warning as w:
        leaks.append(f"{name}: {type(w).__name__}: {w}")


# variable updates (in place, and with a tensor still holding the old value) and optimizer steps
v = tf.Variable([np.inf, 1.0, 3e38])
update("assign_add in place", lambda: v.assign_add([-np.inf, 1.0, 3e38]))
held = v.read_value()
update("assign_sub", lambda: v.assign_sub([np.inf, 1.0, -3e38]))
optimizers = {
    "SGD momentum": tf.keras.optimizers.SGD(0.1, momentum=0.9),
    "SGD clipnorm": tf.keras.optimizers.SGD(0.1, clipnorm=1.0),
    "Adam": tf.keras.optimizers.Adam(),
    "AdamW": tf.keras.optimizers.AdamW(weight_decay=0.1),
    "RMSprop": tf.keras.optimizers.RMSprop(centered=True),
    "Adagrad": tf.keras.optimizers.Adagrad(),
}
for name, opt in optimizers.items():
    w = tf.Variable([np.inf, 0.0, 3e38, 1.0])
    update(name, lambda: opt.apply_gradients([(tf.constant([np.inf, np.nan, 3e38, 0.0]), w)]))
assert float(tf.math.log(0.0)) == -np.inf
print("leaks:", sorted(set(leaks)))
print("ran:", ran)
"""


def _sweep(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "flags, mode",
    [(["-W", "error"], "startup"), ([], "error-after-import"), ([], "default-filters")],
    ids=["python -W error", "simplefilter error after import", "default filters"],
)
def test_no_numpy_warning_leaves_a_kernel_forward_or_backward(flags, mode):
    done = _sweep(*flags, "-c", SWEEP, mode)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert lines["leaks"] == "[]"
    assert int(lines["ran"]) > 1000  # the sweep reached the ops, not only their argument checks
    assert "Warning" not in done.stderr, done.stderr  # default filters: nothing printed either


def test_user_numpy_code_still_warns_after_a_quiet_rerun():
    script = (
        "import warnings, numpy as np, tapeviz as tf\n"
        "warnings.simplefilter('error')\n"
        "assert float(tf.math.log(0.0)) == -np.inf  # reran quietly\n"
        "try:\n    np.log(np.zeros(1))\nexcept RuntimeWarning:\n    print('still warns')\n"
    )
    done = _sweep("-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "still warns"
