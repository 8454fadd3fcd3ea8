"""TF 2.21's retracing warning and reduce_retracing, behind tests/core/test_retracing.py.

Run with TensorFlow installed: python tests/tf_reference/retracing_reference.py > tests/tf_reference/retracing_values.json

Each case calls one tf.function with a sequence of arguments and records, per
call, whether it traced, the shapes the trace saw, and the warnings TF logged
(the function's repr, which holds an address, is replaced by ``{function}``).
"""

import itertools
import json
import logging
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402


class Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


_serial = itertools.count()


def _shape(tensor):
    return None if tensor.shape.rank is None else list(tensor.shape)


def run_case(python_function, calls, **options):
    """[[traced?, trace's shapes or None, [warnings]], ...] for each call of calls (a list of arg tuples)."""
    collect = Collect()
    logger = tf.get_logger()
    logger.addHandler(collect)
    seen = []

    def traced(*args):
        seen.append([_shape(a) if tf.is_tensor(a) else a for a in args])
        return python_function(*args)

    # TF keeps its count per code object: each case gets its own
    traced.__code__ = traced.__code__.replace(co_name=f"traced_{next(_serial)}")
    f = tf.function(traced, **options)
    rows = []
    try:
        for args in calls:
            before = len(seen)
            collect.messages.clear()
            f(*args)
            text = [m.replace(repr(traced), "{function}") for m in collect.messages]
            rows.append([len(seen) > before, seen[-1] if len(seen) > before else None, text])
    finally:
        logger.removeHandler(collect)
    return rows


def shapes(*sizes):
    return [(tf.ones(s),) for s in sizes]


def main():
    cases = {}
    # distinct Python values: every call traces
    cases["python_values_12"] = run_case(lambda n: n + 1, [(n,) for n in range(12)])
    # traces mixed with replays: the window is the last 10 calls
    pattern = [0, 1, 0, 2, 0, 3, 0, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 9, 10, 11, 12, 13, 14, 15]
    cases["mixed"] = run_case(lambda n: n + 1, [(n,) for n in pattern])
    # shapes without and with reduce_retracing
    sizes = [[1], [2], [3], [4], [5], [6], [2, 2], [3, 3], [7], [2, 2, 2], [1]]
    cases["shapes"] = run_case(lambda x: x * 2, shapes(*sizes))
    cases["shapes_reduce_retracing"] = run_case(lambda x: x * 2, shapes(*sizes), reduce_retracing=True)
    mats = [[2, 3], [4, 3], [5, 3], [4, 7], [1, 1], [6, 6, 6]]
    cases["matrices_reduce_retracing"] = run_case(lambda x: x * 2, shapes(*mats), reduce_retracing=True)
    mixed_values = [(tf.ones([1]), 1), (tf.ones([2]), 1), (tf.ones([3]), 2), (tf.ones([4]), 2), (tf.ones([5]), 1)]
    cases["shapes_and_values_reduce_retracing"] = run_case(lambda x, n: x * n, mixed_values, reduce_retracing=True)

    # the detector is kept per Python code object: tf.function made again in a loop counts together
    collect = Collect()
    tf.get_logger().addHandler(collect)

    def g(x):
        return x + 1

    for _ in range(7):
        tf.function(g)(tf.constant(1.0))
    tf.get_logger().removeHandler(collect)
    cases["new_function_each_call"] = [m.replace(repr(g), "{function}") for m in collect.messages]

    # a method: what the warning names
    collect = Collect()
    tf.get_logger().addHandler(collect)

    class Model(tf.Module):
        @tf.function
        def step(self, n):
            return n

    model = Model()
    for n in range(5):
        model.step(n)
    tf.get_logger().removeHandler(collect)
    # named by the plain function's repr (the class's, not a bound method's)
    cases["method"] = [re.sub(r" at 0x[0-9a-f]+>", " at ADDR>", m) for m in collect.messages]

    json.dump({"tensorflow": tf.__version__, "cases": cases}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
