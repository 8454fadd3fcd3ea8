"""Three logical CPUs for the tf.distribute tests, configured afresh for each test (TF: a fresh process)."""

import pytest

import tapeviz as tf


@pytest.fixture
def three_cpus():
    """Split the CPU into three logical CPUs; forget the configuration afterwards."""
    tf.config.reset_logical_devices()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(3)])
    yield tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
    tf.config.reset_logical_devices()
