"""Go's ``math.Log`` and ``math.Pow`` (the pure Go code, operation for operation), so that
``log`` and ``pow`` give buildx's float64 digits."""

from __future__ import annotations

import math

_LOG_CONSTANTS = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def go_log(x: float) -> float:
    """Go's math.Log (pure Go on amd64), operation for operation."""
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    l1, l2, l3, l4, l5, l6, l7 = _LOG_CONSTANTS
    f1, ki = math.frexp(x)
    if f1 < math.sqrt(2) / 2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (l1 + s4 * (l3 + s4 * (l5 + s4 * l7)))
    t2 = s4 * (l2 + s4 * (l4 + s4 * l6))
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + (t1 + t2)) + k * _LN2_LO)) - f)


def go_div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        negative = (a < 0) != (math.copysign(1, b) < 0)
        return -math.inf if negative else math.inf
    return a / b


def _odd_int(value: float) -> bool:
    if abs(value) >= 1 << 53:
        return False
    whole, frac = math.modf(value)
    return frac == 0 and int(whole) % 2 == 1


def _pow_special(x: float, y: float) -> float | None:
    """The special cases of Go's math.Pow (None when none applies)."""
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return x
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        negative_odd = math.copysign(1, x) < 0 and _odd_int(y)
        if y < 0:
            return -math.inf if negative_odd else math.inf
        return x if negative_odd else 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else math.inf
    if math.isinf(x):
        if x < 0:
            return go_pow(1 / x, -y)
        return 0.0 if y < 0 else math.inf
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    return None


def go_pow(x: float, y: float) -> float:
    """Go's math.Pow (pure Go on amd64), operation for operation."""
    special = _pow_special(x, y)
    if special is not None:
        return special
    yf, yi = math.modf(abs(y))
    if yf != 0 and x < 0:
        return math.nan
    if yi >= 1 << 63:
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else math.inf
    a1, ae = 1.0, 0
    if yf != 0:
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = math.exp(yf * go_log(x))
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if not -(1 << 12) <= xe <= (1 << 12):
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1, ae = 1 / a1, -ae
    return _go_ldexp(a1, ae)


def _go_ldexp(frac: float, exp: int) -> float:
    try:
        return math.ldexp(frac, exp)
    except OverflowError:
        return math.copysign(math.inf, frac)
