"""tf.distribute and logical devices against TF 2.21: each case of tests/tf_reference/distribute_cases.py
(three logical CPUs, replicas, per-replica values and their printing, reductions, mirrored variables,
per-replica Generator streams, distributed datasets), compared with the values TF printed
(tests/tf_reference/distribute_values.json, written by distribute_reference.py)."""

import json
import pathlib

import pytest

import tapeviz as tf
from tests.tf_reference import distribute_cases

VALUES = json.loads((pathlib.Path(distribute_cases.__file__).parent / "distribute_values.json").read_text())


@pytest.fixture(autouse=True)
def three_cpus():
    """Three logical CPUs, as the cases expect; a fresh configuration for each test (TF: a fresh process)."""
    tf.config.reset_logical_devices()
    seen = distribute_cases.setup(tf)
    yield seen
    tf.config.reset_logical_devices()


def test_logical_device_configuration_matches_tf(three_cpus):
    assert json.loads(json.dumps(three_cpus)) == VALUES["setup"]


@pytest.mark.parametrize("name", sorted(distribute_cases.CASES))
def test_matches_tf(name):
    got = distribute_cases.run(tf, distribute_cases.CASES[name])
    assert json.loads(json.dumps(got)) == VALUES[name]
