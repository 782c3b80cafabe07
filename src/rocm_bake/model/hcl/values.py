"""HCL values as plain Python data, with the primitive conversions cty (HCL's type system) applies.

A value is one of: ``str``, ``bool``, ``decimal.Decimal`` (every number), ``None`` (null),
``list`` (HCL tuple or list) or ``dict`` with string keys (HCL object or map).
Numbers are Decimals so that ``48.5`` prints as ``48.5`` and ``1e3`` as ``1000``, the way
buildx prints them; cty holds them as 512-bit binary floats (see ``bigfloat``).

cty tells lists from tuples and sets, and maps from objects. A plain list is a tuple and a
plain dict an object; a cty list, set or map is a ListValue, SetValue or MapValue: subclasses
that behave as list and dict everywhere else but let functions (``concat``, ``equal``,
``element``, ``index``...) and the evaluator tell them apart, as buildx does. Type inference
and conversion between all of these are in ``types``.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from decimal import Decimal
from typing import TypeAlias, cast

from rocm_bake.model.hcl import bigfloat

Value: TypeAlias = "str | bool | Decimal | list[Value] | dict[str, Value] | None"


class ConversionError(ValueError):
    """A value cannot be converted to the type asked for."""


class Nil:
    """cty's NilVal: the value buildx (0.29.1) gives a typed variable that has no default and
    no value from the environment. It equals null and encodes as null, collections and
    for-expressions carry it, but converting it to any type fails (``string required``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NIL"


#: The one NilVal; not part of ``Value`` on purpose: only what must tell it apart does.
NIL: Value = cast("Value", Nil())


def is_nil(value: object) -> bool:
    return isinstance(value, Nil)


class ListValue(list[Value]):
    """A cty list: a sequence whose elements all have one type."""

    __slots__ = ()


class SetValue(list[Value]):
    """A cty set: distinct elements of one type, in cty's iteration order."""

    __slots__ = ()


class MapValue(dict[str, Value]):
    """A cty map: string keys to elements that all have one type."""

    __slots__ = ()


# Beyond this decimal exponent the model cannot print a number (buildx refuses literals from
# 1e2147483647 on as "Invalid number literal").
_MAX_EXPONENT = 999_999_999


def number(text: str | int | float | Decimal) -> Decimal:
    """An HCL number from a literal, an int or a float (floats keep their shortest repr).

    The Decimal is exact; cty's rounding to 512 bits happens where cty would see it (in
    arithmetic and when the number is printed).
    """
    value = Decimal(repr(text)) if isinstance(text, float) else Decimal(text)
    if value.is_finite() and value.adjusted() > _MAX_EXPONENT:
        raise ConversionError(f"the number {text} is too large")
    return value


def format_number(value: Decimal) -> str:
    """A number as cty converts it to a string (``Text('f', -1)`` of its 512-bit float):
    ``-0`` for negative zero, ``+Inf``/``-Inf``, at most 155 significant digits."""
    return bigfloat.format_f(value)


def kind(value: Value) -> str:
    """The cty-ish kind of a value: string, number, bool, null, tuple, list, set, object or map."""
    if value is None or is_nil(value):
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, SetValue):
        return "set"
    if isinstance(value, ListValue):
        return "list"
    if isinstance(value, list):
        return "tuple"
    if isinstance(value, MapValue):
        return "map"
    return "object"


# -- primitive conversions (cty's convert package, with its wording) ---------------------------


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
    raise ConversionError("string required")


_NUMBER_SYNTAX = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INF_SYNTAX = re.compile(r"([+-]?)[Ii]nf")


def parse_number(text: str) -> Decimal | None:
    """Go's big.ParseFloat(text, 10, ...) as cty uses it to read a string as a number."""
    if _NUMBER_SYNTAX.fullmatch(text):
        return Decimal(text)
    inf = _INF_SYNTAX.fullmatch(text)
    if inf:
        return Decimal(f"{inf.group(1)}Infinity")
    return None


def to_number(value: Value) -> Decimal:
    """Convert a primitive to a number (strings as Go reads them), or raise ConversionError."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, str):
        parsed = parse_number(value)
        if parsed is None:
            raise ConversionError("a number is required")
        return parsed
    if value is None:
        raise ConversionError("a number is required, but the value is null")
    raise ConversionError("number required")


def to_bool(value: Value) -> bool:
    """Convert a primitive to a bool ("true"/"1", "false"/"0"), or raise ConversionError."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "1"):
            return True
        if value in ("false", "0"):
            return False
        raise ConversionError("a bool is required")
    if value is None:
        raise ConversionError("a bool is required, but the value is null")
    raise ConversionError("bool required")


# -- Go's quoting ------------------------------------------------------------------------------

_SHORT_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
}


def _go_printable(char: str) -> bool:
    return char == " " or unicodedata.category(char)[0] not in "CZ"


def _go_escape_char(char: str, quote: str) -> str:
    if char == quote:
        return "\\" + char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if _go_printable(char):
        return char
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_quote(text: str) -> str:
    """Go's strconv.Quote (what ``%q`` prints)."""
    return '"' + "".join(_go_escape_char(c, '"') for c in text) + '"'


def go_quote_rune(char: str) -> str:
    """Go's strconv.QuoteRune."""
    return "'" + _go_escape_char(char, "'") + "'"


# -- JSON --------------------------------------------------------------------------------------


def to_json(value: Value) -> str:
    """Compact JSON the way cty marshals values: keys sorted, Go's HTML-safe string escapes."""
    if isinstance(value, Decimal):
        return format_number(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or is_nil(value):
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
