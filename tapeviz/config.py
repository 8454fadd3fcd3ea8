"""``tf.config`` and ``tf.device``: which devices the active backend offers.

tapeviz computes on the CPU with NumPy, or on a GPU with CuPy when the
backend is switched (``TAPEVIZ_BACKEND=cupy`` or ``tapeviz.backend.use("cupy")``).
"""

import collections
from contextlib import contextmanager
from dataclasses import dataclass

from tapeviz import backend
from tapeviz.backend import threads as _threads


@dataclass(frozen=True)
class PhysicalDevice:
    """A device as ``tf.config.list_physical_devices`` lists it: ``name`` and ``device_type`` ("CPU", "GPU").

    Args:
        name: the device's name (``"/physical_device:CPU:0"``).
        device_type: ``"CPU"`` or ``"GPU"``.
    """

    name: str
    device_type: str


def list_physical_devices(device_type=None):
    """The CPU, plus the GPUs when the CuPy backend is active, as TF lists them.

    Args:
        device_type: ``"CPU"`` or ``"GPU"`` to list only those; None lists all.

    Returns:
        A list of ``PhysicalDevice``.

    Example:
        >>> import tapeviz as tf
        >>> [d.device_type for d in tf.config.list_physical_devices("CPU")]
        ['CPU']
    """
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    if backend.name() == "cupy":  # pragma: no cover - needs a GPU
        count = backend.xp.cuda.runtime.getDeviceCount()
        devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(count)]
    if device_type is None:
        return devices
    return [d for d in devices if d.device_type == device_type.upper()]


@dataclass(frozen=True)
class LogicalDevice:
    """A device as ``tf.config.list_logical_devices`` lists it: ``name`` ("/device:CPU:0") and ``device_type``.

    Args:
        name: the device's name (``"/device:CPU:0"``).
        device_type: ``"CPU"`` or ``"GPU"``.
    """

    name: str
    device_type: str


class LogicalDeviceConfiguration(
    collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"]
    )
):
    """One logical device to make of a physical one (``tf.config.LogicalDeviceConfiguration``).

    Three of them on the CPU give three logical CPUs (``/device:CPU:0``...``:2``),
    the devices a ``tf.distribute.MirroredStrategy`` can run its replicas on.
    They are names only here: every replica computes on the one backend.

    Args:
        memory_limit: the device's memory in MB (GPUs only, as TF).
        experimental_priority: TF's stream priority (GPUs only).
        experimental_device_ordinal: TF's ordering of virtual GPUs (GPUs only).
    """

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


class _LogicalDevices:
    """The logical device configuration of each physical device, and whether the devices are in use."""

    configured = {}  # physical device name -> list of LogicalDeviceConfiguration
    initialized = False


def _check_physical(device):
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


def set_logical_device_configuration(device, logical_devices):
    """Split physical ``device`` into the logical devices ``logical_devices`` describe (TF's virtual devices).

    As in TF, it must come before the devices are first used (listed with
    ``list_logical_devices`` or given to a strategy); the same configuration again is allowed.

    Args:
        device: a ``PhysicalDevice`` from ``list_physical_devices``.
        logical_devices: a list of ``LogicalDeviceConfiguration``.

    Raises:
        ValueError: an unknown device, or settings TF refuses for it (a memory limit on a CPU, none on a GPU).
        RuntimeError: a new configuration after the devices were initialized.
    """
    _check_physical(device)
    logical_devices = list(logical_devices)
    for config in logical_devices:
        if device.device_type == "CPU":
            for field in ("memory_limit", "experimental_priority", "experimental_device_ordinal"):
                if getattr(config, field) is not None:
                    raise ValueError(
                        "Setting memory limit on CPU virtual devices is currently not supported"
                        if field == "memory_limit"
                        else f"Setting {field} on CPU virtual  devices is currently not supported"  # TF's two spaces
                    )
        elif config.memory_limit is None:
            raise ValueError("Setting memory limit is required for GPU virtual devices")
    if _LogicalDevices.configured.get(device.name) == logical_devices:
        return
    if _LogicalDevices.initialized:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _LogicalDevices.configured[device.name] = logical_devices


def get_logical_device_configuration(device):
    """The logical device configuration set for ``device``, or None.

    Args:
        device: a ``PhysicalDevice``.

    Returns:
        A list of ``LogicalDeviceConfiguration``, or None.

    Raises:
        ValueError: an unknown device.
    """
    _check_physical(device)
    configured = _LogicalDevices.configured.get(device.name)
    return None if configured is None else list(configured)


def initialize_logical_devices():
    """Mark the logical devices as in use: their configuration can no longer change (TF's runtime start)."""
    _LogicalDevices.initialized = True


def reset_logical_devices():
    """Forget every logical device configuration and allow a new one (for tests: TF restarts its process)."""
    _LogicalDevices.configured = {}
    _LogicalDevices.initialized = False


def list_logical_devices(device_type=None):
    """The logical devices, as TF names them (``/device:CPU:0``): one per physical device, or as configured.

    Listing them initializes them, as in TF: their configuration is fixed from then on.

    Args:
        device_type: ``"CPU"`` or ``"GPU"`` to list only those; None lists all.

    Returns:
        A list of ``LogicalDevice``.
    """
    initialize_logical_devices()
    devices, counts = [], {}
    for physical in list_physical_devices(device_type):
        for _ in _LogicalDevices.configured.get(physical.name) or [None]:
            index = counts.get(physical.device_type, 0)
            counts[physical.device_type] = index + 1
            devices.append(LogicalDevice(f"/device:{physical.device_type}:{index}", physical.device_type))
    return devices


class experimental:  # noqa: N801 - TF's namespace name
    """``tf.config.experimental``: TF's older names for the logical (virtual) device configuration."""

    VirtualDeviceConfiguration = LogicalDeviceConfiguration
    set_virtual_device_configuration = staticmethod(set_logical_device_configuration)
    get_virtual_device_configuration = staticmethod(get_logical_device_configuration)
    list_logical_devices = staticmethod(list_logical_devices)
    list_physical_devices = staticmethod(list_physical_devices)


@contextmanager
def device(name):
    """Accept ``with tf.device(...)``; placement follows the backend, not this name.

    The backend decides where tensors live (NumPy: CPU, CuPy: GPU), so code
    that pins ops to a device runs unchanged and its ops run on the backend.

    Args:
        name: a device name such as ``"/CPU:0"`` or ``"/GPU:0"`` (or None).

    Returns:
        A context manager.

    Raises:
        TypeError: a name that is not a string (when the ``with`` block is entered).
    """
    if not isinstance(name, str):
        raise TypeError(f"tf.device takes a device name string such as '/CPU:0', got {name!r}.")
    yield name


class threading:  # noqa: N801 - TF's namespace name
    """``tf.config.threading``: how many threads the matrix products may use.

    ``set_intra_op_parallelism_threads(n)`` caps BLAS's threads for large
    products at ``n`` (0: the library's default); small products always run
    on one thread (see tapeviz/backend/threads.py and docs/backend.md). The
    inter-op setting is accepted and kept: tapeviz runs one op at a time.
    """

    _inter_op = 0

    @staticmethod
    def set_intra_op_parallelism_threads(num_threads):
        """How many threads one op may use (BLAS).

        Args:
            num_threads: the count (0: the library's choice).
        """
        _threads.set_threads(num_threads)

    @staticmethod
    def get_intra_op_parallelism_threads():
        """What ``set_intra_op_parallelism_threads`` set (0: the library's choice).

        Returns:
            An int.
        """
        return _threads.threads()

    @staticmethod
    def set_inter_op_parallelism_threads(num_threads):
        """Kept for TF code: ops run one at a time here.

        Args:
            num_threads: kept and returned by the getter.
        """
        threading._inter_op = int(num_threads)

    @staticmethod
    def get_inter_op_parallelism_threads():
        """What ``set_inter_op_parallelism_threads`` last set.

        Returns:
            An int.
        """
        return threading._inter_op


_run_eagerly = [False]  # one flag for the process, as TF's


def run_functions_eagerly(run_eagerly):
    """``True``: every ``tf.function`` runs its Python body on each call, as plain eager code (to debug it with
    print and breakpoints); ``False`` (the default): they trace and replay again.

    Args:
        run_eagerly: a bool.

    Example:
        >>> import tapeviz as tf
        >>> tf.config.run_functions_eagerly(True)
        >>> tf.config.functions_run_eagerly()
        True
        >>> tf.config.run_functions_eagerly(False)
    """
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether ``tf.function`` bodies run as plain Python now (``run_functions_eagerly``).

    Returns:
        A bool.
    """
    return _run_eagerly[0]


experimental_run_functions_eagerly = run_functions_eagerly  # TF's older names for the same switch
experimental_functions_run_eagerly = functions_run_eagerly
