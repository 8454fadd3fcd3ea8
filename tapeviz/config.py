"""``tf.config`` and ``tf.device``: which devices the active backend offers.

tapeviz computes on the CPU with NumPy, or on a GPU with CuPy when the
backend is switched (``TAPEVIZ_BACKEND=cupy`` or ``tapeviz.backend.use("cupy")``).
"""

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


def list_logical_devices(device_type=None):
    """The logical devices, one per physical device, as TF names them (``/device:CPU:0``).

    Args:
        device_type: ``"CPU"`` or ``"GPU"`` to list only those; None lists all.

    Returns:
        A list of ``LogicalDevice``.
    """
    return [
        LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
        for d in list_physical_devices(device_type)
    ]


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
