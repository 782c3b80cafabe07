"""Number functions: arithmetic (cty's 512-bit floats), rounding, extremes, comparisons,
``log``/``pow`` (float64, as Go computes them) and ``parseint``."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal

from rocm_bake.model.hcl.bigfloat import Float64Number, arithmetic
from rocm_bake.model.hcl.functions.gomath import go_div, go_log, go_pow
from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_num,
    define,
    int_arg,
    kind_name,
)
from rocm_bake.model.hcl.types import NUMBER
from rocm_bake.model.hcl.values import Value, go_quote


def _binary_op(op: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return arithmetic(op, as_num(args[0]), as_num(args[1]))

    return impl


def _absolute(args: list[Value]) -> Value:
    return abs(as_num(args[0]))


def _negate(args: list[Value]) -> Value:
    return as_num(args[0]).copy_negate()  # keeps the sign of zero, as big.Float does


def _signum(args: list[Value]) -> Value:
    """buildx's signum reads its argument as a Go int: whole numbers in int64 only."""
    value = as_num(args[0])
    if not value.is_finite() or value != value.to_integral_value() or not (
            -(2**63) <= value < 2**63):
        raise CallError("value must be a whole number, between -9223372036854775808 and "
                        "9223372036854775807")
    return Decimal((value > 0) - (value < 0))


def _rounded(value: Decimal, rounding: str) -> Decimal:
    if not value.is_finite():
        return value
    whole = value.to_integral_value(rounding=rounding)
    return whole if whole != 0 else Decimal(0)


def _ceil(args: list[Value]) -> Value:
    return _rounded(as_num(args[0]), ROUND_CEILING)


def _floor(args: list[Value]) -> Value:
    return _rounded(as_num(args[0]), ROUND_FLOOR)


def _int(args: list[Value]) -> Value:
    value = as_num(args[0])
    if value.is_infinite():
        raise CallError("can't truncate infinity to an integer")
    return _rounded(value, ROUND_DOWN)


def _extreme(args: list[Value], biggest: bool) -> Value:
    if not args:
        raise CallError("must pass at least one number")
    best = as_num(args[0])
    for arg in args[1:]:
        value = as_num(arg)
        if (value > best) if biggest else (value < best):
            best = value
    return best


def _max(args: list[Value]) -> Value:
    return _extreme(args, biggest=True)


def _min(args: list[Value]) -> Value:
    return _extreme(args, biggest=False)


def _float_number(value: float) -> Decimal:
    """cty.NumberFloatVal: a float64 result (NaN is a panic in buildx)."""
    if math.isnan(value):
        raise CallError("panic in function implementation: Float.SetFloat64(NaN)")
    if math.isinf(value):
        return Decimal("Infinity") if value > 0 else Decimal("-Infinity")
    if value.is_integer():
        return Decimal(repr(value))
    return Float64Number(repr(value))


def _log(args: list[Value]) -> Value:
    number, base = float(as_num(args[0])), float(as_num(args[1]))
    return _float_number(go_div(go_log(number), go_log(base)))


def _pow(args: list[Value]) -> Value:
    return _float_number(go_pow(float(as_num(args[0])), float(as_num(args[1]))))


def _digit_value(char: str, base: int) -> int:
    if "0" <= char <= "9":
        value = ord(char) - ord("0")
    elif "a" <= char <= "z":
        value = ord(char) - ord("a") + 10
    elif "A" <= char <= "Z":
        value = ord(char) - ord("A") + (10 if base <= 36 else 36)
    else:
        return base
    return value


def _parse_go_int(text: str, base: int) -> int | None:
    """Go's big.Int.SetString(text, base) for 2 <= base <= 62."""
    negative = text.startswith("-")
    digits = text[1:] if text[:1] in "+-" and text else text
    if not digits:
        return None
    total = 0
    for char in digits:
        value = _digit_value(char, base)
        if value >= base:
            return None
        total = total * base + value
    return -total if negative else total


def _parseint(args: list[Value]) -> Value:
    text = args[0]
    if not isinstance(text, str):
        raise ArgError(0, f"first argument must be a string, not {kind_name(text)}")
    base = int_arg(args[1], 1)
    if not 2 <= base <= 62:
        raise ArgError(1, "base must be a whole number between 2 and 62 inclusive")
    number = _parse_go_int(text, base)
    if number is None:
        raise ArgError(0, f"cannot parse {go_quote(text)} as a base {base} integer")
    return Decimal(number)


def _compare(op: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        a, b = as_num(args[0]), as_num(args[1])
        return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]

    return impl


_NUM = [Param("num", NUMBER)]
_TWO_NUMBERS = [Param("a", NUMBER), Param("b", NUMBER)]

TABLE: dict[str, Function] = {
    "absolute": define("absolute", _NUM, _absolute),
    "add": define("add", _TWO_NUMBERS, _binary_op("+")),
    "ceil": define("ceil", _NUM, _ceil),
    "divide": define("divide", _TWO_NUMBERS, _binary_op("/")),
    "floor": define("floor", _NUM, _floor),
    "greaterthan": define("greaterthan", _TWO_NUMBERS, _compare(">")),
    "greaterthanorequalto": define("greaterthanorequalto", _TWO_NUMBERS, _compare(">=")),
    "int": define("int", _NUM, _int),
    "lessthan": define("lessthan", _TWO_NUMBERS, _compare("<")),
    "lessthanorequalto": define("lessthanorequalto", _TWO_NUMBERS, _compare("<=")),
    "log": define("log", [Param("num", NUMBER), Param("base", NUMBER)], _log),
    "max": define("max", [], _max, Param("numbers", NUMBER)),
    "min": define("min", [], _min, Param("numbers", NUMBER)),
    "modulo": define("modulo", _TWO_NUMBERS, _binary_op("%")),
    "multiply": define("multiply", _TWO_NUMBERS, _binary_op("*")),
    "negate": define("negate", _NUM, _negate),
    "parseint": define("parseint", [Param("number"), Param("base", NUMBER)], _parseint),
    "pow": define("pow", [Param("num", NUMBER), Param("power", NUMBER)], _pow),
    "signum": define("signum", _NUM, _signum),
    "subtract": define("subtract", _TWO_NUMBERS, _binary_op("-")),
}
