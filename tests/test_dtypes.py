"""``tf.dtypes`` and ``tf.config.run_functions_eagerly``, against TF 2.21 (tests/tf_reference/dtype_rules_*)."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import dtype_rules_cases

REFERENCE = json.loads((pathlib.Path(__file__).parent / "tf_reference" / "dtype_rules_values.json").read_text())

# TF's dtypes NumPy has no element type for (and tf.dtypes.experimental, which holds only such types).
NO_NUMPY_TYPE = {"bfloat16", "resource", "variant", "qint8", "qint16", "qint32", "quint8", "quint16"}
NO_NUMPY_TYPE |= {"QUANTIZED_DTYPES", "experimental"}


def test_tf_dtypes_has_tfs_names_but_the_types_numpy_lacks():
    missing = set(REFERENCE["dir(tf.dtypes)"]) - set(dir(tf.dtypes))
    assert missing == NO_NUMPY_TYPE
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.cast is tf.cast and tf.dtypes.DType is tf.DType


def test_each_dtype_reports_what_tf_reports():
    got = json.loads(json.dumps(dtype_rules_cases.dtype_facts(tf)))
    for name, want in REFERENCE["dtypes"].items():
        assert got[name] == want, name


def test_saturate_cast_clamps_as_tf_does():
    assert json.loads(json.dumps(dtype_rules_cases.saturate_facts(tf))) == REFERENCE["saturate_cast"]


def test_saturate_cast_passes_the_gradient_where_it_did_not_clamp():
    x = tf.Variable([-2.0, 0.5, 3.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.dtypes.saturate_cast(x * x, tf.float16) * 1.0)
    # float16's range is not reached: the clamp is the identity, d(x*x)/dx = 2x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [-4.0, 1.0, 6.0])
    big = tf.Variable([1e6, 2.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.cast(tf.saturate_cast(big, tf.float16), tf.float64))
    np.testing.assert_allclose(tape.gradient(y, big).numpy(), [0.0, 1.0])


def test_the_unsigned_dtypes_hold_their_ranges():
    x = tf.constant([0, 2**32 - 1], dtype=tf.uint32)
    assert x.dtype == tf.dtypes.uint32 and (x // 2).numpy().tolist() == [0, 2**31 - 1]
    assert tf.constant([2**64 - 1], dtype=tf.uint64).numpy().tolist() == [2**64 - 1]


def test_run_functions_eagerly_runs_the_body_every_call():
    assert "run_functions_eagerly" in REFERENCE["dir(tf.config)"]
    calls = []

    @tf.function
    def double(x):
        calls.append(1)  # a Python side effect: once per trace, or once per call when eager
        return x * 2

    double(tf.constant(1.0))
    double(tf.constant(2.0))
    assert len(calls) == 1
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        assert double(tf.constant(3.0)).numpy() == 6.0
        double(tf.constant(4.0))
        assert len(calls) == 3
    finally:
        tf.config.run_functions_eagerly(False)
    assert not tf.config.functions_run_eagerly()
    double(tf.constant(5.0))
    assert len(calls) == 3


@pytest.mark.parametrize("alias", ["experimental_run_functions_eagerly", "experimental_functions_run_eagerly"])
def test_tfs_older_names_are_the_same_switch(alias):
    assert alias in REFERENCE["dir(tf.config)"] and callable(getattr(tf.config, alias))
