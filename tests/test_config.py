"""tf.config's logical (virtual) devices: splitting the CPU, listing the result, TF's errors."""

import pytest

import tapeviz as tf


@pytest.fixture(autouse=True)
def fresh_devices():
    tf.config.reset_logical_devices()
    yield
    tf.config.reset_logical_devices()


def test_splitting_the_cpu_lists_logical_cpus_in_order():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_logical_device_configuration(cpu) is None
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == ["/device:CPU:0", "/device:CPU:1"]
    assert tf.config.list_logical_devices("GPU") == []
    assert len(tf.config.get_logical_device_configuration(cpu)) == 2


def test_a_new_configuration_after_the_devices_were_used_is_refused_and_changes_nothing():
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.list_logical_devices()  # as TF: listing them starts the runtime
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    assert tf.config.get_logical_device_configuration(cpu) is None
    assert len(tf.config.list_logical_devices("CPU")) == 1


def test_cpu_settings_tf_refuses_are_refused():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="memory limit"):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration(memory_limit=10)])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_logical_device_configuration("cpu", [tf.config.LogicalDeviceConfiguration()])
    assert tf.config.get_logical_device_configuration(cpu) is None


def test_the_experimental_names_are_the_same_functions():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 3
    )
    assert len(tf.config.experimental.get_virtual_device_configuration(cpu)) == 3
    assert len(tf.config.experimental.list_logical_devices("CPU")) == 3
