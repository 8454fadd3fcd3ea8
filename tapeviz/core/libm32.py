"""float32 ``log`` and ``sincos`` as glibc computes them, vectorised on NumPy.

TF's CPU kernels call the C library for Box-Muller's ``logf`` and
``sincosf``. glibc's versions (since 2.28: a table lookup and a short
polynomial evaluated in double, then one rounding to float) are not
correctly rounded: about one value in a hundred differs by one ulp from
``float32(log(float64(x)))``. To give TF's normals bit for bit, the same
algorithms run here on whole arrays, with the same tables and the same
double arithmetic. glibc's FMA build fuses the multiply-adds; on every
input Box-Muller can give (the 2**23 uniform floats, and the angles made
from them) the float results are the same either way, so plain NumPy
arithmetic gives them (checked against the C library on all of them once,
and on a sample by the tests where a C library is there to call).
"""

import numpy as np

__all__ = ["logf", "sincosf"]

# -- logf: log(x) = log1p(z / c - 1) + log(c) + k ln2, with 16 table points c --------------------

_LOG_INVC = np.array(
    [float.fromhex(h) for h in (
        "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
        "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
        "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
        "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1",
    )]
)  # fmt: skip
_LOG_LOGC = np.array(
    [float.fromhex(h) for h in (
        "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2", "-0x1.b31d8a68224e9p-3",
        "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3", "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4",
        "-0x1.252f438e10c1ep-5", "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4",
        "0x1.526e57720db08p-3", "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2",
    )]
)  # fmt: skip
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOG_POLY = [float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]
_LOG_OFF = np.uint32(0x3F330000)  # z is brought into [OFF, 2 OFF]


def logf(x):
    """glibc's ``logf`` of positive, normal float32 values (the Box-Muller radius needs no more)."""
    x = np.asarray(x, np.float32)
    if np.any(~(x >= np.float32(2.0**-126))) or np.any(np.isinf(x)):
        raise ValueError("libm32.logf takes positive, normal, finite float32 values.")
    bits = x.view(np.uint32)
    offset = bits - _LOG_OFF
    index = (offset >> np.uint32(19)) % np.uint32(16)
    k = (offset.view(np.int32) >> np.int32(23)).astype(np.float64)
    z = (bits - (offset & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    r = z * _LOG_INVC[index] - 1.0
    y0 = k * _LN2 + _LOG_LOGC[index]
    r2 = r * r
    y = _LOG_POLY[1] * r + _LOG_POLY[2]
    y = _LOG_POLY[0] * r2 + y
    y = y * r2 + (y0 + r)
    return np.where(bits == np.uint32(0x3F800000), np.float32(0.0), y.astype(np.float32))


# -- sincosf: reduce by pi/2 (one multiply-subtract below 120), then two short polynomials -----------

_HALF_PI = float.fromhex("0x1.921FB54442D18p0")
_TWO_OVER_PI_2_24 = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi, scaled by 2**24
_COS = [float.fromhex(h) for h in (
    "0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16",
)]  # fmt: skip
_SIN = [float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")]
_TOP12_PI_4, _TOP12_TINY, _TOP12_120 = 0x3F4, 0x398, 0x42F  # top 12 bits of float(pi/4), 2**-12, 120


def sincosf(x):
    """glibc's ``sincosf`` of float32 values below 120 in magnitude: ``(sin, cos)`` as float32 arrays."""
    x = np.asarray(x, np.float32)
    top = (x.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    if np.any(top >= _TOP12_120):
        raise ValueError("libm32.sincosf takes float32 values below 120 in magnitude.")
    wide = x.astype(np.float64)
    small = top < _TOP12_PI_4
    n = np.where(small, 0, ((wide * _TWO_OVER_PI_2_24).astype(np.int32) + 0x800000) >> 24)
    reduced = np.where(small, wide, wide - n.astype(np.float64) * _HALF_PI)
    sign = np.where((n & 3) == 0, 1.0, np.where((n & 3) == 3, 1.0, -1.0))  # the sine's sign per quadrant
    flip = np.where(n & 2, -1.0, 1.0)  # quadrants 2 and 3 evaluate -cos
    r = reduced * sign
    r2 = reduced * reduced
    r4 = r2 * r2
    r3 = r2 * r
    cos_tail = r2 * (flip * _COS[4]) + flip * _COS[3]
    sin_tail = r2 * _SIN[2] + _SIN[1]
    cos_head = r2 * (flip * _COS[1]) + flip * _COS[0]
    r5 = r3 * r2
    r6 = r4 * r2
    sin_part = r3 * _SIN[0] + r
    cos_part = r4 * (flip * _COS[2]) + cos_head
    s = (r5 * sin_tail + sin_part).astype(np.float32)
    c = (r6 * cos_tail + cos_part).astype(np.float32)
    odd = (n & 1).astype(bool)
    sin, cos = np.where(odd, c, s), np.where(odd, s, c)
    tiny = top < _TOP12_TINY
    return np.where(tiny, x, sin), np.where(tiny, np.float32(1.0), cos)
