"""HCL values as plain Python data, with the conversions cty (HCL's type system) applies.

A value is one of: ``str``, ``bool``, ``decimal.Decimal`` (every number), ``None`` (null),
``list`` (HCL tuple or list) or ``dict`` with string keys (HCL object or map).
Numbers are Decimals so that ``48.5`` prints as ``48.5`` and ``1e3`` as ``1000``, the way
buildx prints them.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from decimal import Decimal
from typing import TypeAlias

Value: TypeAlias = "str | bool | Decimal | list[Value] | dict[str, Value] | None"

_CONTEXT = decimal.Context(prec=120, Emax=999999, Emin=-999999)


class ConversionError(ValueError):
    """A value cannot be converted to the type asked for."""


def number(text: str | int | float | Decimal) -> Decimal:
    """An HCL number from a literal, an int or a float (floats keep their shortest repr)."""
    if isinstance(text, float):
        return Decimal(repr(text))
    return _CONTEXT.create_decimal(text)


def is_number(value: Value) -> bool:
    return isinstance(value, Decimal)


def format_number(value: Decimal) -> str:
    """Format a number as cty does when it converts one to a string (``Text('f', -1)``)."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(_CONTEXT), "f")


def kind(value: Value) -> str:
    """The cty-ish kind of a value: string, number, bool, null, tuple or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, list):
        return "tuple"
    return "object"


def to_string(value: Value) -> str:
    """Convert a primitive to a string, or raise ConversionError."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return format_number(value)
    if value is None:
        raise ConversionError("a string is required, but the value is null")
    raise ConversionError(f"a string is required, not {kind(value)}")


_NUMBER_LITERAL = re.compile(r"^-?(\d+(\.\d+)?([eE][+-]?\d+)?)$")


def to_number(value: Value) -> Decimal:
    if isinstance(value, bool):
        raise ConversionError("a number is required, not bool")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, str):
        if _NUMBER_LITERAL.match(value):
            return number(value)
        raise ConversionError(f"a number is required; {value!r} is not a number")
    if value is None:
        raise ConversionError("a number is required, but the value is null")
    raise ConversionError(f"a number is required, not {kind(value)}")


def to_bool(value: Value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "1"):
            return True
        if value in ("false", "0"):
            return False
        raise ConversionError(f"a bool is required; {value!r} is not a bool")
    if value is None:
        raise ConversionError("a bool is required, but the value is null")
    raise ConversionError(f"a bool is required, not {kind(value)}")


def to_json(value: Value) -> str:
    """Compact JSON the way cty marshals values: keys sorted, Go's HTML-safe string escapes."""
    if isinstance(value, Decimal):
        return format_number(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return go_json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    items = (f"{go_json_string(k)}:{to_json(value[k])}" for k in sorted(value))
    return "{" + ",".join(items) + "}"


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
               "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json_string(text: str) -> str:
    """A JSON string literal as Go's encoding/json writes it."""
    encoded = json.dumps(text, ensure_ascii=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _GO_ESCAPES[m.group(0)], encoded)


def from_json(data: object) -> Value:
    """Turn decoded JSON into a value (JSON numbers become Decimals)."""
    if isinstance(data, bool) or data is None or isinstance(data, str):
        return data
    if isinstance(data, int | float):
        if isinstance(data, float) and not math.isfinite(data):
            raise ConversionError("numbers must be finite")
        return number(data)
    if isinstance(data, Decimal):
        return data
    if isinstance(data, list):
        return [from_json(v) for v in data]
    if isinstance(data, dict):
        return {str(k): from_json(v) for k, v in data.items()}
    raise ConversionError(f"unsupported JSON value {data!r}")


def loads_json(text: str) -> Value:
    """Decode JSON text into a value, keeping numbers exact."""
    return from_json(json.loads(text, parse_float=Decimal, parse_int=Decimal))


def equal(a: Value, b: Value) -> bool:
    """HCL's ``==``: same kind and same content (numbers by value)."""
    if kind(a) != kind(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b
