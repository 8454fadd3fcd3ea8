"""One allocator state for every contender of a benchmark.

glibc hands large blocks (from 128 KiB, a threshold it then moves as blocks
are freed) straight to the kernel with mmap, and gives freed heap back.
A step that allocates arrays near that size then pays page faults or not
depending on what ran before it in the process: the same NumPy step was
measured at 12 ms and at 20 ms that way. Pinning both settings makes every
array come from the heap and stay there, so timings compare the work done,
not the allocator's history.
"""

import ctypes
import ctypes.util

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_LIMIT = 32 << 20  # glibc's largest mmap threshold on 64-bit; above every array made here
_TRIM_LIMIT = 1 << 30


def pin():
    """Keep freed memory and serve large blocks from the heap (glibc only); says what it did."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        done = libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_LIMIT) and libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_LIMIT)
    except (OSError, AttributeError, TypeError):
        done = False
    return "allocator pinned (glibc: no mmap, no trim)" if done else "allocator left as is (not glibc)"
