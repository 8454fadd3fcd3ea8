"""Seeded programs print TF 2.21's numbers: tf.random, Generator, stateless_*, categorical,
shuffle, tf.data shuffles, Keras 3's initializers, keras.random and SeedGenerator.

The programs are in tests/tf_reference/random_programs.py (the same code ran on
TensorFlow); their values, in random_values.json, come from random_reference.py.
Floats are compared by their bits; float64 normals (NumPy's log/sin/cos, not
glibc's) may be one ulp apart, and Orthogonal's QR of TF's numbers is compared
to 1e-6.
"""

import ctypes
import ctypes.util
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import libm32, philox

HERE = pathlib.Path(__file__).parent / "tf_reference"
sys.path.insert(0, str(HERE))
from random_programs import CLOSE, PROGRAMS, ULP1  # noqa: E402

REFERENCE = json.loads((HERE / "random_values.json").read_text())["programs"]


@pytest.fixture(autouse=True)
def fresh_seeds():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def _bits(array):
    array = np.ascontiguousarray(array)
    return array.view(f"u{array.itemsize}") if array.dtype.kind == "f" else array


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_gives_tfs_numbers(name):
    got = PROGRAMS[name](tf)
    want = REFERENCE[name]
    assert len(got) == len(want)
    for index, (array, record) in enumerate(zip(got, want)):
        where = f"{name}[{index}]"
        assert array.dtype.name == record["dtype"], where
        assert list(array.shape) == record["shape"], where
        bits = _bits(array).ravel()
        if "sha256" in record:
            assert bits[:16].tolist() == record["bits"], where
            assert hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest() == record["sha256"], where
        elif name in CLOSE:
            expected = np.asarray(record["bits"], bits.dtype).view(array.dtype).reshape(array.shape)
            np.testing.assert_allclose(array, expected, rtol=0, atol=1e-6)
        elif name in ULP1 and array.dtype.kind == "f":
            expected = np.asarray(record["bits"], bits.dtype).view(array.dtype)
            np.testing.assert_array_max_ulp(array.ravel(), expected, maxulp=1)
        else:
            assert bits.tolist() == record["bits"], where


def test_philox_block_is_the_published_known_answer():
    # Random123's known-answer test for Philox-4x32-10: counter and key all ones
    block = philox.blocks(philox.Philox(key=2**64 - 1, counter=2**128 - 1), 1)[0]
    assert block.tolist() == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


def test_counter_carries_across_its_words():
    stream = philox.Philox(key=5, counter=2**64 - 2)
    across = philox.blocks(stream, 4)
    one_by_one = [philox.blocks(stream.skip(i), 1)[0] for i in range(4)]
    np.testing.assert_array_equal(across, np.stack(one_by_one))
    assert philox.Philox(key=5, counter=2**128 - 1).skip(1).counter == 0


def _libm():
    name = ctypes.util.find_library("m")
    if name is None or sys.platform != "linux":
        pytest.skip("needs the C library's libm (Linux) to compare with")
    libm = ctypes.CDLL(name)
    libm.logf.restype = ctypes.c_float
    libm.logf.argtypes = [ctypes.c_float]
    libm.sinf.restype = libm.cosf.restype = ctypes.c_float
    libm.sinf.argtypes = libm.cosf.argtypes = [ctypes.c_float]
    return libm


def test_libm32_agrees_with_the_c_library_on_box_mullers_inputs():
    libm = _libm()
    rng = np.random.default_rng(0)
    mantissas = rng.integers(0, 2**23, size=3000, dtype=np.uint32)
    unit = (mantissas | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)
    radius_in = np.maximum(unit, np.float32(1e-7))
    angle = (2.0 * np.pi * unit.astype(np.float64)).astype(np.float32)
    logs = libm32.logf(radius_in)
    sins, coss = libm32.sincosf(angle)
    for x, a, log, sin, cos in zip(radius_in.tolist(), angle.tolist(), logs, sins, coss):
        assert np.float32(libm.logf(x)) == log, x
        assert np.float32(libm.sinf(a)) == sin and np.float32(libm.cosf(a)) == cos, a


def test_libm32_refuses_inputs_outside_its_range():
    with pytest.raises(ValueError, match="positive"):
        libm32.logf(np.float32([0.0]))
    with pytest.raises(ValueError, match="below 120"):
        libm32.sincosf(np.float32([200.0]))


@pytest.mark.parametrize("size", [2, 3, 7, 50, 1000])
def test_swaps_order_is_the_swap_loop(size):
    rng = np.random.default_rng(size)
    for _ in range(20):
        targets = np.array([i + rng.integers(0, size - i) for i in range(size - 1)], np.int64)
        order = list(range(size))
        for i, j in enumerate(targets.tolist()):
            order[i], order[j] = order[j], order[i]
        assert philox.swaps_order(targets, size).tolist() == order


def test_dataset_shuffle_with_a_small_buffer_matches_the_whole_buffer_rule():
    # a buffer as large as the data is a Fisher-Yates shuffle; one a third as large must mix only locally
    whole = [int(x) for x in tf.data.Dataset.range(30).shuffle(30, seed=1)]
    local = [int(x) for x in tf.data.Dataset.range(30).shuffle(10, seed=1)]
    assert sorted(whole) == sorted(local) == list(range(30))
    assert all(value < position + 10 for position, value in enumerate(local))  # nothing jumps past the buffer


def test_default_seeds_follow_the_last_seeding_call():
    import random

    make = tf.keras.initializers.GlorotUniform
    tf.keras.utils.set_random_seed(3)  # Keras's rule: Python's random, as reseeded
    assert make().seed == random.Random(3).randint(1, int(1e9))
    tf.random.set_seed(3)  # only TF's seed (Keras leaves the weights to chance): a sequence it restarts
    first = make().seed
    tf.random.set_seed(3)
    assert make().seed == first
    tf.keras.utils.set_random_seed(3)
    assert make().seed == random.Random(3).randint(1, int(1e9))
