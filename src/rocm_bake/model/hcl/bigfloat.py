"""cty's numbers: binary floats of 512 bits (Go's ``big.Float``), held as Decimals.

A number is a ``Decimal``; cty keeps it as the nearest 512-bit binary float, rounding ties to
even. ``arithmetic`` computes as cty does (so ``0.1 + 0.2`` and ``1 / 3`` give buildx's digits),
``format_f`` prints what cty prints for a number (``Text('f', -1)``) and ``go_text`` is Go's
``big.Float.Text`` for the other verbs.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation, localcontext
from fractions import Fraction

PREC = 512
# Any decimal of at most this many significant digits survives the trip through a 512-bit
# float unchanged (floor((PREC - 1) * log10(2))), so it is already the shortest text.
_EXACT_DIGITS = 153


class NumberError(Exception):
    """An operation cty refuses (zero by zero, infinity by infinity)."""


class Float64Number(Decimal):
    """A fraction cty holds as a 53-bit float (``NumberFloatVal``: log, pow). It prints as
    the model prints it, but arithmetic with it runs at a precision cty takes from its
    operands, which the model does not track: the model refuses that, naming it."""

    __slots__ = ()


def _binary_exponent(x: Fraction) -> int:
    """e such that 2**(e-1) <= x < 2**e, for x > 0."""
    num, den = x.numerator, x.denominator
    exp = num.bit_length() - den.bit_length()
    at_least = num >= (den << exp) if exp >= 0 else (num << -exp) >= den
    return exp + 1 if at_least else exp


def _round_bits(x: Fraction) -> Fraction:
    """Round to the nearest 512-bit binary float, ties to even (big.Float.SetPrec)."""
    if x == 0:
        return x
    magnitude = abs(x)
    shift = PREC - _binary_exponent(magnitude)
    num, den = magnitude.numerator, magnitude.denominator
    if shift >= 0:
        num <<= shift
    else:
        den <<= -shift
    quotient, rest = divmod(num, den)
    if 2 * rest > den or (2 * rest == den and quotient & 1):
        quotient += 1
    rounded = Fraction(quotient, 1 << shift) if shift >= 0 else Fraction(quotient << -shift)
    return rounded if x > 0 else -rounded


def binary(value: Decimal) -> Fraction:
    """The 512-bit float cty holds for a (finite) number."""
    return _round_bits(Fraction(value))


def _decimal_exponent(x: Fraction) -> int:
    """k such that 10**k <= x < 10**(k+1), for x > 0."""
    k = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


def _shortest_digits(x: Fraction) -> tuple[str, int]:
    """Shortest decimal digits identifying the 512-bit float x > 0 (Go's roundShortest).

    Returns (digits, exp) meaning 0.digits * 10**exp.
    """
    binexp = _binary_exponent(x)
    half = Fraction(2) ** (binexp - PREC - 1)
    lower, upper = x - half, x + half
    inclusive = (x / Fraction(2) ** (binexp - PREC)).numerator % 2 == 0
    k = _decimal_exponent(x)
    for n in range(1, 400):
        unit = Fraction(10) ** (k + 1 - n)
        count = math.floor(x / unit)
        down, up = count * unit, (count + 1) * unit
        ok_down = down > lower or (inclusive and down == lower)
        ok_up = up < upper or (inclusive and up == upper)
        if ok_down and ok_up:
            diff = (x - down) - (up - x)
            if diff > 0 or (diff == 0 and count % 2 == 1):
                count += 1
        elif ok_up:
            count += 1
        elif not ok_down:
            continue
        digits = str(count)
        exp = k + 1 - n + len(digits)
        return digits.rstrip("0"), exp
    raise AssertionError("no shortest representation")  # pragma: no cover


def _from_binary(x: Fraction, zero_sign: bool = False) -> Decimal:
    """The number cty prints for a 512-bit float (its shortest decimal)."""
    if x == 0:
        return Decimal("-0") if zero_sign else Decimal(0)
    digits, exp = _shortest_digits(abs(x))
    sign = "-" if x < 0 else ""
    return Decimal(f"{sign}0.{digits}E{exp}").normalize(_WIDE)


_WIDE = Context(prec=2000, Emax=999999999, Emin=-999999999)


_LIMIT = Decimal(1 << PREC)


def is_integral(value: Decimal) -> bool:
    return value.is_finite() and value == value.to_integral_value()


def _exact_integer(value: Decimal) -> bool:
    """A whole number a 512-bit float holds exactly (so integer arithmetic is cty's)."""
    return is_integral(value) and abs(value) < _LIMIT


def format_f(value: Decimal) -> str:
    """The text cty gives a number (``Text('f', -1)``): ``-0``, ``+Inf``, <= 155 digits."""
    if value.is_infinite():
        return "-Inf" if value.is_signed() else "+Inf"
    if value.is_zero():
        return "-0" if value.is_signed() else "0"
    normal = value.normalize(_WIDE)
    if len(normal.as_tuple().digits) <= _EXACT_DIGITS:
        return format(normal, "f")
    return go_text(value, "f", -1)


def arithmetic(op: str, a: Decimal, b: Decimal) -> Decimal:
    """a op b (op one of + - * / %) as cty computes it: 512-bit floats, ties to even.

    HCL's arithmetic operators are these same operations in buildx.
    """
    if isinstance(a, Float64Number) or isinstance(b, Float64Number):
        raise NumberError("arithmetic on a fractional result of log or pow is not supported "
                          "by the model yet (cty keeps it as a 53-bit float)")
    if not (a.is_finite() and b.is_finite()):
        return _arith_infinite(op, a, b)
    if op in "+-*" and _exact_integer(a) and _exact_integer(b):
        exact = _decimal_op(op, a, b)
        if abs(exact) < _LIMIT:
            return exact
    fa, fb = binary(a), binary(b)
    if op == "/":
        if fb == 0:
            if fa == 0:
                raise NumberError("can't divide zero by zero or infinity by infinity")
            return Decimal("Infinity") if (fa > 0) != b.is_signed() else Decimal("-Infinity")
        result = fa / fb
    elif op == "%":
        return _modulo(a, b, fa, fb)
    else:
        result = {"+": fa + fb, "-": fa - fb, "*": fa * fb}[op]
    rounded = _round_bits(result)
    if rounded == 0:
        return _signed_zero(op, a, b)
    return _from_binary(rounded)


def _decimal_op(op: str, a: Decimal, b: Decimal) -> Decimal:
    with localcontext(_WIDE):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return a * b


def _signed_zero(op: str, a: Decimal, b: Decimal) -> Decimal:
    if op in "*/":
        negative = a.is_signed() != b.is_signed()
    elif op == "+":
        negative = a.is_signed() and b.is_signed() and a == 0 and b == 0
    else:
        negative = a.is_signed() and not b.is_signed() and a == 0 and b == 0
    return Decimal("-0") if negative else Decimal(0)


def _modulo(a: Decimal, b: Decimal, fa: Fraction, fb: Fraction) -> Decimal:
    if fb == 0:
        return a
    ratio = _round_bits(fa / fb)
    truncated = math.trunc(ratio)
    work = _round_bits(fb * truncated)
    result = _round_bits(fa - work)
    return _from_binary(result, zero_sign=a.is_signed() and a == 0)


def _arith_infinite(op: str, a: Decimal, b: Decimal) -> Decimal:
    if op == "%":  # buildx fails here (a big.Float panic, or "can't use modulo...")
        raise NumberError("can't use modulo with zero and infinity")
    with localcontext(_WIDE) as ctx:
        ctx.traps[InvalidOperation] = True
        try:
            operations: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
                "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
            return operations[op](a, b)  # only the one asked for: 0 * inf must not run
        except ArithmeticError:
            raise NumberError("can't divide zero by zero or infinity by infinity") from None


# Go's big.Float formatting (math/big/ftoa.go), on the exact decimal value of the float.


@dataclass
class _GoDecimal:
    """0.mant * 10**exp, mant without trailing zeros (Go's math/big decimal)."""

    mant: str
    exp: int

    def at(self, i: int) -> str:
        return self.mant[i] if 0 <= i < len(self.mant) else "0"

    def round(self, n: int) -> None:
        if n < 0 or n >= len(self.mant):
            return
        if self._should_round_up(n):
            self.round_up(n)
        else:
            self.round_down(n)

    def _should_round_up(self, n: int) -> bool:
        if self.mant[n] == "5" and n + 1 == len(self.mant):
            return n > 0 and int(self.mant[n - 1]) % 2 == 1
        return self.mant[n] >= "5"

    def round_up(self, n: int) -> None:
        if n < 0 or n >= len(self.mant):
            return
        while n > 0 and self.mant[n - 1] >= "9":
            n -= 1
        if n == 0:
            self.mant = "1"
            self.exp += 1
            return
        self.mant = self.mant[: n - 1] + chr(ord(self.mant[n - 1]) + 1)

    def round_down(self, n: int) -> None:
        if n < 0 or n >= len(self.mant):
            return
        self.mant = self.mant[:n].rstrip("0")
        if not self.mant:
            self.exp = 0


def _exact_decimal(x: Fraction) -> _GoDecimal:
    """The exact decimal expansion of a binary float x >= 0."""
    if x == 0:
        return _GoDecimal("", 0)
    den = x.denominator
    shift = den.bit_length() - 1
    digits = str(x.numerator * 5**shift)
    exp = len(digits) - shift
    return _GoDecimal(digits.rstrip("0"), exp)


def _fmt_e(dec: _GoDecimal, verb: str, prec: int) -> str:
    out = dec.mant[0] if dec.mant else "0"
    if prec > 0:
        frac = dec.mant[1 : prec + 1]
        out += "." + frac + "0" * (prec - len(frac))
    exp = dec.exp - 1 if dec.mant else 0
    sign = "-" if exp < 0 else "+"
    return f"{out}{verb}{sign}{abs(exp):02d}"


def _fmt_f(dec: _GoDecimal, prec: int) -> str:
    if dec.exp > 0:
        whole = dec.mant[: dec.exp]
        out = whole + "0" * (dec.exp - len(whole))
    else:
        out = "0"
    if prec > 0:
        out += "." + "".join(dec.at(dec.exp + i) for i in range(prec))
    return out


def go_text(value: Decimal, verb: str, prec: int) -> str:
    """Go's big.Float.Text(verb, prec) of a number held at 512 bits (verb e, E, f, g, G)."""
    if value.is_infinite():
        return "-Inf" if value.is_signed() else "+Inf"
    x = binary(value)
    sign = "-" if value.is_signed() else ""
    return sign + _ftoa(abs(x), verb, prec)


def _ftoa(x: Fraction, verb: str, prec: int) -> str:
    shortest = prec < 0
    if shortest:
        dec = _GoDecimal(*_shortest_digits(x)) if x else _GoDecimal("", 0)
        lower = verb.lower()
        if lower == "e":
            prec = len(dec.mant) - 1
        elif lower == "f":
            prec = max(len(dec.mant) - dec.exp, 0)
        else:
            prec = len(dec.mant)
    else:
        dec = _exact_decimal(x)
        if verb in "eE":
            dec.round(1 + prec)
        elif verb == "f":
            dec.round(dec.exp + prec)
        else:
            prec = max(prec, 1)
            dec.round(prec)
    if verb in "eE":
        return _fmt_e(dec, verb, prec)
    if verb == "f":
        return _fmt_f(dec, prec)
    eprec = prec
    if eprec > len(dec.mant) and len(dec.mant) >= dec.exp:
        eprec = len(dec.mant)
    if shortest:
        eprec = 6
    exp = dec.exp - 1
    if exp < -4 or exp >= eprec:
        prec = min(prec, len(dec.mant))
        return _fmt_e(dec, "e" if verb == "g" else "E", prec - 1)
    if prec > dec.exp:
        prec = len(dec.mant)
    return _fmt_f(dec, max(prec - dec.exp, 0))
