"""How many threads a BLAS matrix product may use: one for small products.

OpenBLAS (NumPy's BLAS) splits every product it thinks large enough across
all cores, and its threads wait for each other by spinning. When another
process is busy on those cores (a class server with many kernels, a shared
CI machine), a thread that lost its core holds the others up for a
scheduler slice: a small MLP step measured 1.3 ms on one thread and
100-260 ms with OpenBLAS's default two (docs/backend.md has the figures).
Small products gain next to nothing from a second thread even on an idle
machine, so they run on one; products of at least ``SMALL_PRODUCT_FLOPS``
keep the library's threads (or the count set with
``tf.config.threading.set_intra_op_parallelism_threads``).

The switch uses threadpoolctl, when it is installed (it comes with
scikit-learn, so with ``tapeviz[lessons]``); without it the library decides
alone (set ``OPENBLAS_NUM_THREADS=1`` before starting Python for the same
effect). The thread count changes only when a product's size class differs
from the last one's, so a loop of small products pays nothing per product.
"""

import threading

SMALL_PRODUCT_FLOPS = 1 << 27  # about 130 MFLOP: a few ms on one core, where a second thread starts to pay

_lock = threading.Lock()
_libraries = None  # the BLAS libraries threadpoolctl found, looked up on the first product
_library_default = 1  # the library's own thread count, read before the first change
_large_threads = None  # threads for large products: the user's setting, else the library's default
_current = None  # the count last set, so that it changes only at a change of size class
_user_threads = 0  # tf.config.threading's intra-op setting (0: the library's default)


def _blas_libraries():
    global _libraries, _large_threads, _library_default
    with _lock:
        if _libraries is None:
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:
                _libraries = ()
            else:
                found = ThreadpoolController().lib_controllers
                _libraries = tuple(lib for lib in found if lib.user_api == "blas")
            _library_default = max([lib.num_threads for lib in _libraries], default=1)
            _large_threads = _user_threads or _library_default
    return _libraries


def _set(count):
    global _current
    for library in _libraries:
        library.set_num_threads(count)
    _current = count


def for_product(flops):
    """Set the BLAS thread count for a product of ``flops`` floating-point operations."""
    libraries = _libraries if _libraries is not None else _blas_libraries()
    if not libraries:
        return
    want = 1 if flops < SMALL_PRODUCT_FLOPS else _large_threads
    if want != _current:
        _set(want)


def set_threads(count):
    """Threads for large products (0: the library's default); small ones stay on one."""
    global _user_threads, _large_threads, _current
    count = int(count)
    if count < 0:
        raise ValueError(f"The number of threads must be 0 (the default) or positive, got {count}.")
    _user_threads = count
    _blas_libraries()
    _large_threads = count or _library_default
    _current = None  # the next product sets its count


def threads():
    """The intra-op setting (0: the library's default)."""
    return _user_threads
