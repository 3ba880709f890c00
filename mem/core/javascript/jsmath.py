"""``Math.log`` and ``Math.pow`` as V8 computes them, to the last bit.

V8 (Node 20, V8 11.3) implements both with fdlibm: ``log`` is ``__ieee754_log`` (e_log.c) and
``Math.pow`` is ``base::ieee754::legacy::pow`` (e_pow.c with ECMAScript's special cases). glibc,
behind ``math.log``/``math.pow``, rounds differently by one ulp for some inputs, so these are
line-by-line ports working on the 32-bit halves of doubles as the C macros do. Python floats are
IEEE doubles rounded to nearest, so every operation rounds as in the C code.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

__all__ = ["log", "log1p_weight", "pow"]

_DOUBLE = struct.Struct("<d")
_WORDS = struct.Struct("<Ii")  # little-endian: (low word unsigned, high word signed)
_pack: Callable[[float], bytes] = _DOUBLE.pack
_unpack: Callable[[bytes], tuple[float]] = _DOUBLE.unpack
_words: Callable[[bytes], tuple[int, int]] = _WORDS.unpack
_pack_words: Callable[[int, int], bytes] = struct.Struct("<II").pack
_ZERO_LOW = b"\x00\x00\x00\x00"
_NAN = math.nan
_INF = math.inf


def _from_words(high: int, low: int) -> float:
    return _unpack(_pack_words(low & 0xFFFFFFFF, high & 0xFFFFFFFF))[0]


def _set_high(d: float, high: int) -> float:
    return _unpack(_pack(d)[:4] + (high & 0xFFFFFFFF).to_bytes(4, "little"))[0]


def _clear_low(d: float) -> float:
    """SET_LOW_WORD(d, 0)."""
    return _unpack(_ZERO_LOW + _pack(d)[4:])[0]


_LN2_HI = 6.93147180369123816490e-01  # 3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 3dea39ef 35793c76
_TWO54 = 1.80143985094819840000e16  # 43500000 00000000
_LG1 = 6.666666666666735130e-01  # 3FE55555 55555593
_LG2 = 3.999999999940941908e-01  # 3FD99999 9997FA04
_LG3 = 2.857142874366239149e-01  # 3FD24924 94229359
_LG4 = 2.222219843214978396e-01  # 3FCC71C5 1D8E78AF
_LG5 = 1.818357216161805012e-01  # 3FC74664 96CB03DE
_LG6 = 1.531383769920937332e-01  # 3FC39A09 D078C69F
_LG7 = 1.479819860511658591e-01  # 3FC2F112 DF3E5244


def log(x: float) -> float:
    """Math.log: fdlibm __ieee754_log."""
    x = float(x)
    lx, hx = _words(_pack(x))
    k = 0
    if hx < 0x00100000:  # x < 2**-1022: zero, negative, NaN with the sign bit, or subnormal
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -_INF
        if hx < 0:
            return _NAN
        k -= 54
        x *= _TWO54
        hx = _words(_pack(x))[1]
    if hx >= 0x7FF00000:
        return x + x
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = _set_high(x, hx | (i ^ 0x3FF00000))  # normalize x or x/2 into [sqrt(2)/2, sqrt(2))
    k += i >> 20
    f = x - 1.0
    if (0x000FFFFF & (2 + hx)) < 3:  # -2**-20 <= f < 2**-20
        if f == 0.0:
            if k == 0:
                return 0.0
            dk = float(k)
            return dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0:
            return f - r
        dk = float(k)
        return dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    dk = float(k)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    i |= j
    r = t2 + t1
    if i > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)


def log1p_weight(frequency: int) -> float:
    """``1 + Math.log(frequency)``: the weight of a term seen ``frequency`` times."""
    return 1.0 + log(frequency)


_BP = (1.0, 1.5)
_DP_H = (0.0, 5.84962487220764160156e-01)  # 0x3FE2B803, 0x40000000
_DP_L = (0.0, 1.35003920212974897128e-08)  # 0x3E4CFDEB, 0x43CFD006
_TWO53 = 9007199254740992.0  # 0x43400000, 0x00000000
_HUGE = 1.0e300
_TINY = 1.0e-300
_L1 = 5.99999999999994648725e-01  # 0x3FE33333, 0x33333303
_L2 = 4.28571428578550184252e-01  # 0x3FDB6DB6, 0xDB6FABFF
_L3 = 3.33333329818377432918e-01  # 0x3FD55555, 0x518F264D
_L4 = 2.72728123808534006489e-01  # 0x3FD17460, 0xA91D4101
_L5 = 2.30660745775561754067e-01  # 0x3FCD864A, 0x93C9DB65
_L6 = 2.06975017800338417784e-01  # 0x3FCA7E28, 0x4A454EEF
_P1 = 1.66666666666666019037e-01  # 0x3FC55555, 0x5555553E
_P2 = -2.77777777770155933842e-03  # 0xBF66C16C, 0x16BEBD93
_P3 = 6.61375632143793436117e-05  # 0x3F11566A, 0xAF25DE2C
_P4 = -1.65339022054652515390e-06  # 0xBEBBBD41, 0xC5D26BF1
_P5 = 4.13813679705723846039e-08  # 0x3E663769, 0x72BEA4D0
_LG2_ = 6.93147180559945286227e-01  # 0x3FE62E42, 0xFEFA39EF
_LG2_H = 6.93147182464599609375e-01  # 0x3FE62E43, 0x00000000
_LG2_L = -1.90465429995776804525e-09  # 0xBE205C61, 0x0CA86C39
_OVT = 8.0085662595372944372e-17  # -(1024-log2(ovfl+.5ulp))
_CP = 9.61796693925975554329e-01  # 0x3FEEC709, 0xDC3A03FD = 2/(3ln2)
_CP_H = 9.61796700954437255859e-01  # 0x3FEEC709, 0xE0000000 = (float)cp
_CP_L = -7.02846165095275826516e-09  # 0xBE3E2FE0, 0x145B01F5 = tail of cp_h
_IVLN2 = 1.44269504088896338700e00  # 0x3FF71547, 0x652B82FE = 1/ln2
_IVLN2_H = 1.44269502162933349609e00  # 0x3FF71547, 0x60000000 = 24b 1/ln2
_IVLN2_L = 1.92596299112661746887e-08  # 0x3E54AE0B, 0xF85DDF44 = 1/ln2 tail


def _reciprocal(x: float) -> float:
    """1/x with IEEE division by zero (Python raises instead)."""
    return math.copysign(_INF, x) if x == 0.0 else 1.0 / x


def pow(x: float, y: float) -> float:
    """Math.pow / ``**``: V8's base::ieee754::legacy::pow (fdlibm __ieee754_pow)."""
    x = float(x)
    y = float(y)
    lx, hx = _words(_pack(x))
    ly, hy = _words(_pack(y))
    ix = hx & 0x7FFFFFFF
    iy = hy & 0x7FFFFFFF

    if (iy | ly) == 0:  # x**0 = 1, even for NaN x
        return 1.0
    if ix > 0x7FF00000 or (ix == 0x7FF00000 and lx) or iy > 0x7FF00000 or (iy == 0x7FF00000 and ly):
        return x + y  # NaN; unlike C99, 1**NaN is NaN in JS

    # yisint: 0 = y not an integer, 1 = odd integer, 2 = even integer (only needed for x < 0)
    yisint = 0
    if hx < 0:
        if iy >= 0x43400000:
            yisint = 2
        elif iy >= 0x3FF00000:
            k = (iy >> 20) - 0x3FF
            if k > 20:
                j = ly >> (52 - k)
                if (j << (52 - k)) == ly:
                    yisint = 2 - (j & 1)
            elif ly == 0:
                j = iy >> (20 - k)
                if (j << (20 - k)) == iy:
                    yisint = 2 - (j & 1)

    if ly == 0:
        if iy == 0x7FF00000:  # y is +-inf
            if ((ix - 0x3FF00000) | lx) == 0:
                return _NAN  # (+-1)**+-inf is NaN in JS
            if ix >= 0x3FF00000:
                return y if hy >= 0 else 0.0
            return -y if hy < 0 else 0.0
        if iy == 0x3FF00000:  # y is +-1
            return _reciprocal(x) if hy < 0 else x
        if hy == 0x40000000:  # y is 2
            return x * x
        if hy == 0x3FE00000 and hx >= 0:  # y is 0.5, x >= +0
            return math.sqrt(x)

    ax = abs(x)
    if lx == 0 and (ix == 0x7FF00000 or ix == 0 or ix == 0x3FF00000):  # x is +-0, +-inf, +-1
        z = _reciprocal(ax) if hy < 0 else ax
        if hx < 0:
            if ((ix - 0x3FF00000) | yisint) == 0:
                return _NAN  # (-1)**non-integer
            if yisint == 1:
                return -z
        return z

    negative = hx < 0
    if negative and yisint == 0:
        return _NAN  # (x<0)**non-integer
    s = -1.0 if negative and yisint == 1 else 1.0

    if iy > 0x41E00000:  # |y| > 2**31
        if iy > 0x43F00000:  # |y| > 2**64: must over/underflow
            if ix <= 0x3FEFFFFF:
                return _HUGE * _HUGE if hy < 0 else _TINY * _TINY
            return _HUGE * _HUGE if hy > 0 else _TINY * _TINY
        if ix < 0x3FEFFFFF:
            return s * _HUGE * _HUGE if hy < 0 else s * _TINY * _TINY
        if ix > 0x3FF00000:
            return s * _HUGE * _HUGE if hy > 0 else s * _TINY * _TINY
        # |1-x| <= 2**-20: log(x) by x - x^2/2 + x^3/3 - x^4/4
        t = ax - 1.0
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
        u = _IVLN2_H * t
        v = t * _IVLN2_L - w * _IVLN2
        t1 = _clear_low(u + v)
        t2 = v - (t1 - u)
    else:
        # log2(ax) = n + t1 + t2, t1 with 29 trailing zero bits
        n = 0
        if ix < 0x00100000:  # subnormal x
            ax *= _TWO53
            n -= 53
            ix = _words(_pack(ax))[1]
        n += (ix >> 20) - 0x3FF
        j = ix & 0x000FFFFF
        ix = j | 0x3FF00000
        if j <= 0x3988E:  # |x| < sqrt(3/2)
            k = 0
        elif j < 0xBB67A:  # |x| < sqrt(3)
            k = 1
        else:
            k = 0
            n += 1
            ix -= 0x00100000
        ax = _set_high(ax, ix)
        bp = _BP[k]
        u = ax - bp
        v = 1.0 / (ax + bp)
        ss = u * v
        s_h = _clear_low(ss)
        t_h = _from_words(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0)
        t_l = ax - (t_h - bp)
        s_l = v * ((u - s_h * t_h) - s_h * t_l)
        s2 = ss * ss
        r = s2 * s2 * (_L1 + s2 * (_L2 + s2 * (_L3 + s2 * (_L4 + s2 * (_L5 + s2 * _L6)))))
        r += s_l * (s_h + ss)
        s2 = s_h * s_h
        t_h = _clear_low(3.0 + s2 + r)
        t_l = r - ((t_h - 3.0) - s2)
        u = s_h * t_h
        v = s_l * t_h + t_l * ss
        p_h = _clear_low(u + v)
        p_l = v - (p_h - u)
        z_h = _CP_H * p_h
        z_l = _CP_L * p_h + p_l * _CP + _DP_L[k]
        t = float(n)
        t1 = _clear_low(((z_h + z_l) + _DP_H[k]) + t)
        t2 = z_l - (((t1 - t) - _DP_H[k]) - z_h)

    # y*log2(x) = p_h + p_l, with y split as y1 + (y - y1)
    y1 = _clear_low(y)
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    i, j = _words(_pack(z))
    if j >= 0x40900000:  # z >= 1024
        if ((j - 0x40900000) | i) != 0 or p_l + _OVT > z - p_h:
            return s * _HUGE * _HUGE
    elif (j & 0x7FFFFFFF) >= 0x4090CC00:  # z <= -1075
        # C compares j (as unsigned) with 0xc090cc00, i.e. z == -1075 exactly
        if (j & 0xFFFFFFFF) != 0xC090CC00 or i != 0 or p_l <= z - p_h:
            return s * _TINY * _TINY

    # 2**(p_h + p_l) = 2**n * exp((p_h + p_l - n) * ln2), n = nearest integer to z
    i = j & 0x7FFFFFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE00000:  # |z| > 0.5
        n = j + (0x00100000 >> (k + 1))
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF
        t = _from_words(n & ~(0x000FFFFF >> k), 0)
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = _clear_low(p_l + p_h)
    u = t * _LG2_H
    v = (p_l - (t - p_h)) * _LG2_ + t * _LG2_L
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    r = (z * t1) / ((t1 - 2.0) - (w + z * w))
    z = 1.0 - (r - z)
    j = _words(_pack(z))[1] + (n << 20)
    if (j >> 20) <= 0:
        z = math.ldexp(z, n)  # subnormal result: one correctly rounded scaling, as scalbn
    else:
        z = _set_high(z, j)
    return s * z
