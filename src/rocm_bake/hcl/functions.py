"""buildx's bake function library (``bake/hclparser/stdlib.go``) over plain values.

Every function takes its evaluated arguments and returns a value, or raises FunctionError.
The behaviour is that of cty's stdlib and hashicorp/go-cty-funcs as buildx 0.29 links them,
checked against the real buildx (see tests/unit/test_functions.py).

cty tells lists from tuples and sets, and maps from objects; the value model has only ``list``
and ``dict``. A plain list is a tuple and a plain dict an object. Functions that return a cty
list, set or map return ListValue, SetValue or MapValue, subclasses that behave as list and dict
everywhere else but let later calls (``concat``, ``equal``, ``element``, ``index``...) tell them
apart, as buildx does.

Numbers are emulated as cty keeps them: binary floats of 512 bits (``big.Float``), so that
``subtract(0.3, 0.1)`` and ``divide(1, 3)`` print the digits buildx prints.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import ipaddress
import json
import math
import re
import time
import unicodedata
import urllib.parse
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import (
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    Context,
    Decimal,
    InvalidOperation,
    localcontext,
)
from fractions import Fraction

from rocm_bake.hcl.types import ANY, BOOL, NUMBER, STRING, Type
from rocm_bake.hcl.values import (
    ConversionError,
    Value,
    format_number,
    go_json_string,
    to_json,
)

__all__ = [
    "FUNCTIONS",
    "FunctionError",
    "ListValue",
    "MapValue",
    "SetValue",
    "arithmetic",
    "convert",
    "cty_equal",
    "type_of",
    "unify",
]


class FunctionError(Exception):
    """A function call failed; the message names the function, as buildx's diagnostic does."""


class ListValue(list[Value]):
    """A cty list: a sequence whose elements all have one type."""

    __slots__ = ()


class SetValue(list[Value]):
    """A cty set: distinct elements of one type, in cty's iteration order."""

    __slots__ = ()


class MapValue(dict[str, Value]):
    """A cty map: string keys to elements that all have one type."""

    __slots__ = ()


Function = Callable[[list[Value]], Value]


class _ArgError(Exception):
    """cty's function.NewArgError: an argument (by index) is unsuitable."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


class _CallError(Exception):
    """An error returned by a function's implementation."""


# --------------------------------------------------------------------------------------------
# cty types: what a value is, unification, conversion
# --------------------------------------------------------------------------------------------

SET_ANY = Type("set", ANY)
LIST_ANY = Type("list", ANY)
LIST_STRING = Type("list", STRING)


def _elem(ty: Type) -> Type:
    return ty.element if ty.element is not None else ANY


def type_of(value: Value) -> Type:
    """The cty type of a value (null is dynamic; plain lists are tuples, dicts objects)."""
    if value is None:
        return ANY
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, str):
        return STRING
    if isinstance(value, Decimal):
        return NUMBER
    if isinstance(value, SetValue):
        return Type("set", _element_type(value))
    if isinstance(value, ListValue):
        return Type("list", _element_type(value))
    if isinstance(value, list):
        return Type("tuple", elements=tuple(type_of(v) for v in value))
    if isinstance(value, MapValue):
        return Type("map", _element_type(list(value.values())))
    attrs = tuple((k, type_of(value[k])) for k in sorted(value))
    return Type("object", attributes=attrs)


def _element_type(items: Sequence[Value]) -> Type:
    types = [type_of(v) for v in items if v is not None]
    if not types:
        return ANY
    return unify(types) or ANY


def _friendly(ty: Type, nested: bool = False) -> str:
    """cty's FriendlyName."""
    if ty == ANY:
        return "any single type" if nested else "dynamic"
    if ty.name in ("list", "set", "map"):
        return f"{ty.name} of {_friendly(_elem(ty), nested=True)}"
    return ty.name


_RANK = {"string": 0, "set": 0, "list": 1, "map": 1, "number": 1, "bool": 1, "tuple": 2}


def _generality(ty: Type) -> tuple[int, ...]:
    """Sort key putting the most general type first (cty's sortTypes preference)."""
    rank = _RANK.get(ty.name, 2)
    if ty.name in ("list", "set", "map"):
        return (rank, *_generality(_elem(ty)))
    return (rank,)


def unify(types: Sequence[Type]) -> Type | None:
    """cty's convert.UnifyUnsafe: one type all the given ones convert to, or None.

    Dynamic (null) members are ignored, as buildx does when it turns a tuple into a list.
    """
    concrete = [t for t in types if t != ANY]
    if not concrete:
        return ANY if types else None
    first = concrete[0]
    if all(t == first for t in concrete):
        return first
    objects = [t for t in concrete if t.name == "object"]
    tuples = [t for t in concrete if t.name == "tuple"]
    if objects and tuples:
        return None
    if len(objects) == len(concrete):
        return _unify_objects(objects)
    if len(tuples) == len(concrete):
        return _unify_tuples(tuples)
    candidates: list[Type] = []
    for ty in concrete:
        if ty not in candidates:
            candidates.append(ty)
    for want in sorted(candidates, key=_generality):
        if all(_can_convert(t, want) for t in concrete):
            return want
    return None


def _unify_tuples(tuples: list[Type]) -> Type | None:
    size = len(tuples[0].elements)
    if any(len(t.elements) != size for t in tuples):
        return _unify_to("list", [e for t in tuples for e in t.elements])
    elements: list[Type] = []
    for i in range(size):
        unified = unify([t.elements[i] for t in tuples])
        if unified is None:
            return None
        elements.append(unified)
    return Type("tuple", elements=tuple(elements))


def _unify_objects(objects: list[Type]) -> Type | None:
    names = [name for name, _ in objects[0].attributes]
    if any([name for name, _ in t.attributes] != names for t in objects):
        return _unify_to("map", [a for t in objects for _, a in t.attributes])
    attrs: list[tuple[str, Type]] = []
    for i, name in enumerate(names):
        unified = unify([t.attributes[i][1] for t in objects])
        if unified is None:
            return None
        attrs.append((name, unified))
    return Type("object", attributes=tuple(attrs))


def _unify_to(kind: str, members: list[Type]) -> Type | None:
    unified = unify(members) if members else ANY
    return None if unified is None else Type(kind, unified)


def _can_convert(src: Type, dst: Type) -> bool:
    """Whether cty has an (unsafe) conversion from src to dst."""
    if src == dst or ANY in (src, dst):
        return True
    if dst.is_primitive:
        return src.is_primitive and STRING in (src, dst)
    if dst.name in ("list", "set"):
        return _can_convert_to_collection(src, dst, ("list", "set"), "tuple")
    if dst.name == "map":
        return _can_convert_to_collection(src, dst, ("map",), "object")
    if dst.name == "tuple":
        if src.name == "tuple":
            return len(src.elements) == len(dst.elements) and all(
                _can_convert(s, d) for s, d in zip(src.elements, dst.elements, strict=True)
            )
        return src.name in ("list", "set") and all(
            _can_convert(_elem(src), d) for d in dst.elements
        )
    if src.name == "object":
        have = dict(src.attributes)
        return all(k in have and _can_convert(have[k], t) for k, t in dst.attributes)
    return src.name == "map" and all(_can_convert(_elem(src), t) for _, t in dst.attributes)


def _can_convert_to_collection(
    src: Type, dst: Type, collections: tuple[str, ...], structural: str
) -> bool:
    if src.name in collections:
        return _can_convert(_elem(src), _elem(dst))
    if src.name != structural:
        return False
    members = list(src.elements) if structural == "tuple" else [t for _, t in src.attributes]
    if _elem(dst) == ANY:
        return not members or unify(members) is not None
    return all(_can_convert(t, _elem(dst)) for t in members)


def convert(value: Value, to: Type) -> Value:
    """Convert a value to a type the way cty's convert.Convert does (null stays null)."""
    if value is None or to == ANY:
        return value
    if to.name == "string":
        return _to_string(value)
    if to.name == "number":
        return _to_number(value)
    if to.name == "bool":
        return _to_bool(value)
    if to.name in ("list", "set"):
        return _convert_sequence(value, to)
    if to.name == "map":
        return _convert_map(value, to)
    if to.name == "tuple":
        if not isinstance(value, list) or len(value) != len(to.elements):
            raise ConversionError("tuple required")
        return [convert(v, t) for v, t in zip(value, to.elements, strict=True)]
    if not isinstance(value, dict):
        raise ConversionError("object required")
    out: dict[str, Value] = {}
    for name, attr_type in to.attributes:
        if name not in value:
            raise ConversionError(f"attribute {go_quote(name)} is required")
        out[name] = convert(value[name], attr_type)
    return out


def _convert_sequence(value: Value, to: Type) -> Value:
    if not isinstance(value, list):
        raise ConversionError(f"{_friendly(to)} required")
    element = _elem(to)
    if element == ANY:
        types = [type_of(v) for v in value if v is not None]
        if types:
            unified = unify(types)
            if unified is None:
                raise ConversionError(f"all {to.name} elements must have the same type")
            element = unified
    items: list[Value] = []
    for index, item in enumerate(value):
        try:
            items.append(convert(item, element))
        except ConversionError as exc:
            if _elem(to) == ANY or str(exc).startswith("element "):
                raise
            raise ConversionError(f"element {index}: {exc}") from None
    if to.name == "set":
        return make_set(items)
    return ListValue(items)


def _convert_map(value: Value, to: Type) -> Value:
    if not isinstance(value, dict):
        raise ConversionError(f"{_friendly(to)} required")
    element = _elem(to)
    if element == ANY:
        types = [type_of(v) for v in value.values() if v is not None]
        if types:
            unified = unify(types)
            if unified is None:
                raise ConversionError("all map elements must have the same type")
            element = unified
    return MapValue({k: convert(v, element) for k, v in value.items()})


def _to_string(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return number_text(value)
    raise ConversionError("string required")


_NUMBER_SYNTAX = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INF_SYNTAX = re.compile(r"([+-]?)[Ii]nf")


def _parse_number(text: str) -> Decimal | None:
    """Go's big.ParseFloat(text, 10, ...) as cty uses it to read a string as a number."""
    if _NUMBER_SYNTAX.fullmatch(text):
        return Decimal(text)
    inf = _INF_SYNTAX.fullmatch(text)
    if inf:
        return Decimal(f"{inf.group(1)}Infinity")
    return None


def _to_number(value: Value) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, str) and not isinstance(value, bool):
        parsed = _parse_number(value)
        if parsed is None:
            raise ConversionError("a number is required")
        return parsed
    raise ConversionError("number required")


def _to_bool(value: Value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "1"):
            return True
        if value in ("false", "0"):
            return False
        raise ConversionError("a bool is required")
    raise ConversionError("bool required")


# --------------------------------------------------------------------------------------------
# equality and sets
# --------------------------------------------------------------------------------------------


def cty_equal(a: Value, b: Value) -> bool:
    """cty's Value.Equals: equal types and equal content (a list never equals a tuple)."""
    if a is None or b is None:
        return a is None and b is None
    if type_of(a) != type_of(b):
        return False
    return _same_content(a, b)


def _same_content(a: Value, b: Value) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cty_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(cty_equal(a[k], b[k]) for k in a)
    return a == b


def make_set(items: Sequence[Value]) -> SetValue:
    """A set of the given elements (all of one type): duplicates dropped, in cty's order."""
    unique: list[Value] = []
    for item in items:
        if not any(cty_equal(item, seen) for seen in unique):
            unique.append(item)
    return SetValue(sorted(unique, key=functools.cmp_to_key(_set_compare)))


def _set_compare(a: Value, b: Value) -> int:
    """cty's set ordering: nulls last, then primitives by value, others by their hash text."""
    if a is None or b is None:
        return (a is None) - (b is None)
    if isinstance(a, bool) and isinstance(b, bool):
        return int(a) - int(b)
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return (a > b) - (a < b)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    ka, kb = _hash_text(a).encode(), _hash_text(b).encode()
    return (ka > kb) - (ka < kb)


def _hash_text(value: Value) -> str:
    """cty's appendSetHashBytes."""
    if value is None:
        return "~"
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, Decimal):
        return _go_text(value, "g", 10)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, MapValue):
        return "{" + "".join(f"{go_quote(k)}:{_hash_text(value[k])};" for k in sorted(value)) + "}"
    if isinstance(value, dict):
        return "<" + "".join(f"{_hash_text(value[k])};" for k in sorted(value)) + ">"
    inner = "".join(f"{_hash_text(v)};" for v in value)
    if isinstance(value, ListValue | SetValue):
        return f"[{inner}]"
    return f"<{inner}>"


def _kind_name(value: Value) -> str:
    return _friendly(type_of(value))


# --------------------------------------------------------------------------------------------
# Go-flavoured text helpers
# --------------------------------------------------------------------------------------------

_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
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


def _go_quote_rune(char: str) -> str:
    return "'" + _go_escape_char(char, "'") + "'"


def _go_upper(text: str) -> str:
    """Go's strings.ToUpper: the simple (one rune to one rune) case mapping."""
    return "".join(_simple_case(c, str.upper) for c in text)


def _go_lower(text: str) -> str:
    return "".join("i" if c == "\u0130" else _simple_case(c, str.lower) for c in text)


def _simple_case(char: str, mapping: Callable[[str], str]) -> str:
    mapped = mapping(char)
    if len(mapped) == 1:
        return mapped
    titled = char.title()
    return titled if len(titled) == 1 and mapping is str.upper else char


def _go_title_rune(char: str) -> str:
    titled = char.title()
    if len(titled) == 1:
        return titled
    return _simple_case(char, str.upper)


def _title_separator(char: str) -> bool:
    """Go's strings.Title isSeparator."""
    if ord(char) <= 0x7F:
        return not (char.isascii() and (char.isalnum() or char == "_"))
    category = unicodedata.category(char)
    if category[0] == "L" or category == "Nd":
        return False
    return char in _GO_SPACE


def _go_title(text: str) -> str:
    out: list[str] = []
    previous = " "
    for char in text:
        out.append(_go_title_rune(char) if _title_separator(previous) else char)
        previous = char
    return "".join(out)


# Extended grapheme clusters (Unicode UAX #29), as go-textseg counts "characters".

_HANGUL_L = ((0x1100, 0x115F), (0xA960, 0xA97C))
_HANGUL_V = ((0x1160, 0x11A7), (0xD7B0, 0xD7C6))
_HANGUL_T = ((0x11A8, 0x11FF), (0xD7CB, 0xD7FB))
_PICTOGRAPHIC = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x21AA),
    (0x231A, 0x23FF),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25FE),
    (0x2600, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3299),
    (0x1F000, 0x1F1E5),
    (0x1F200, 0x1F3FA),
    (0x1F400, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
)


_PREPEND = (
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x0D4E, 0x0D4E),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x111C2, 0x111C3),
    (0x1193F, 0x1193F),
    (0x11941, 0x11941),
    (0x11A3A, 0x11A3A),
    (0x11A84, 0x11A89),
    (0x11D46, 0x11D46),
    (0x11F02, 0x11F02),
)


def _in_ranges(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


def _grapheme_class(char: str) -> str:
    code = ord(char)
    if char == "\r":
        return "CR"
    if char == "\n":
        return "LF"
    if char == "\u200d":
        return "ZWJ"
    if 0x1F1E6 <= code <= 0x1F1FF:
        return "RI"
    if _in_ranges(code, _PREPEND):
        return "Prepend"
    category = unicodedata.category(char)
    if category in ("Mn", "Me") or code == 0x200C or 0x1F3FB <= code <= 0x1F3FF:
        return "Extend"
    if 0xFF9E <= code <= 0xFF9F or 0xE0020 <= code <= 0xE007F:
        return "Extend"
    if category == "Mc" or code in (0x0E33, 0x0EB3):
        return "SpacingMark"
    if category in ("Cc", "Zl", "Zp") or (category == "Cf" and code not in (0x200C, 0x200D)):
        return "Control"
    return _hangul_or_other(code)


def _hangul_or_other(code: int) -> str:
    if _in_ranges(code, _HANGUL_L):
        return "L"
    if _in_ranges(code, _HANGUL_V):
        return "V"
    if _in_ranges(code, _HANGUL_T):
        return "T"
    if 0xAC00 <= code <= 0xD7A3:
        return "LV" if (code - 0xAC00) % 28 == 0 else "LVT"
    if _in_ranges(code, _PICTOGRAPHIC):
        return "Pict"
    return "Other"


_HANGUL_JOINS = {
    "L": ("L", "V", "LV", "LVT"),
    "LV": ("V", "T"),
    "V": ("V", "T"),
    "LVT": ("T",),
    "T": ("T",),
}


def _joins(prev: str, cur: str, state: dict[str, int]) -> bool:
    """Whether there is no grapheme boundary between two characters of these classes."""
    if prev == "CR" and cur == "LF":
        return True
    if prev in ("CR", "LF", "Control") or cur in ("CR", "LF", "Control"):
        return False
    if cur in _HANGUL_JOINS.get(prev, ()):
        return True
    if cur in ("Extend", "ZWJ", "SpacingMark") or prev == "Prepend":
        return True
    if prev == "ZWJ" and cur == "Pict" and state["pict_zwj"]:
        return True
    return prev == "RI" and cur == "RI" and state["ri"] % 2 == 1


def graphemes(text: str) -> list[str]:
    """Split text into extended grapheme clusters."""
    clusters: list[str] = []
    prev = ""
    state = {"ri": 0, "pict_zwj": 0, "pict": 0}
    for char in text:
        cls = _grapheme_class(char)
        if clusters and _joins(prev, cls, state):
            clusters[-1] += char
        else:
            clusters.append(char)
            state["pict"] = 0
        state["ri"] = state["ri"] + 1 if cls == "RI" else 0
        if cls == "Pict":
            state["pict"] = 1
        state["pict_zwj"] = int(cls == "ZWJ" and state["pict"] == 1)
        if cls not in ("Extend", "ZWJ", "Pict"):
            state["pict"] = 0
        prev = cls
    return clusters


# --------------------------------------------------------------------------------------------
# numbers: cty's 512-bit binary floats
# --------------------------------------------------------------------------------------------

_PREC = 512
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_WHOLE = "value must be a whole number, between -9223372036854775808 and 9223372036854775807"


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
    shift = _PREC - _binary_exponent(magnitude)
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


def _binary(value: Decimal) -> Fraction:
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
    half = Fraction(2) ** (binexp - _PREC - 1)
    lower, upper = x - half, x + half
    inclusive = (x / Fraction(2) ** (binexp - _PREC)).numerator % 2 == 0
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


def _is_integral(value: Decimal) -> bool:
    return value.is_finite() and value == value.to_integral_value()


def arithmetic(op: str, a: Decimal, b: Decimal) -> Decimal:
    """a op b (op one of + - * / %) as cty computes it: 512-bit floats, ties to even.

    HCL's arithmetic operators are these same operations in buildx.
    """
    if not (a.is_finite() and b.is_finite()):
        return _arith_infinite(op, a, b)
    if op in "+-*" and _is_integral(a) and _is_integral(b):
        exact = _decimal_op(op, a, b)
        if abs(exact) < (1 << _PREC):
            return exact
    fa, fb = _binary(a), _binary(b)
    if op == "/":
        if fb == 0:
            if fa == 0:
                raise _CallError("can't divide zero by zero or infinity by infinity")
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
    if op == "%":
        return a if b == 0 else a * b
    with localcontext(_WIDE) as ctx:
        ctx.traps[InvalidOperation] = True
        try:
            return {"+": a + b, "-": a - b, "*": a * b}[op] if op != "/" else a / b
        except ArithmeticError:
            raise _CallError("can't divide zero by zero or infinity by infinity") from None


def number_text(value: Decimal) -> str:
    """A number as a string (cty's ``Text('f', -1)``), infinities included."""
    if value.is_infinite():
        return "-Inf" if value.is_signed() else "+Inf"
    text = format_number(value)
    return "-0" if value == 0 and value.is_signed() else text


def _to_int(value: Decimal) -> int:
    """gocty's conversion of a number to a Go int."""
    if not _is_integral(value):
        raise ConversionError(_WHOLE)
    number = int(value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise ConversionError(_WHOLE)
    return number


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


def _go_text(value: Decimal, verb: str, prec: int) -> str:
    """Go's big.Float.Text(verb, prec) of a number held at 512 bits (verb e, E, f, g, G)."""
    if value.is_infinite():
        return "-Inf" if value.is_signed() else "+Inf"
    x = _binary(value)
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


# --------------------------------------------------------------------------------------------
# calling convention (cty's function.Function.Call)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Param:
    name: str
    type: Type = ANY
    allow_null: bool = False


def _define(
    name: str,
    params: Sequence[_Param],
    impl: Callable[[list[Value]], Value],
    var: _Param | None = None,
) -> Function:
    """A function value checking and converting its arguments as cty does."""

    def call(args: list[Value]) -> Value:
        try:
            return _finish(impl(_check_args(name, params, var, list(args))))
        except FunctionError:
            raise
        except _ArgError as exc:
            param = params[exc.index] if exc.index < len(params) else var
            pname = param.name if param is not None else "?"
            raise FunctionError(
                f'{name}: Invalid function argument; Invalid value for "{pname}" parameter: '
                f"{exc.message}."
            ) from None
        except RecursionError:
            raise FunctionError(f"{name}: value nested too deeply") from None
        except Exception as exc:  # every other failure is the function's error
            raise FunctionError(
                f'{name}: Error in function call; Call to function "{name}" failed: {exc}.'
            ) from None

    call.__name__ = name
    call.__qualname__ = name
    return call


def _check_args(
    name: str, params: Sequence[_Param], var: _Param | None, args: list[Value]
) -> list[Value]:
    if len(args) < len(params):
        least = "at least " if var is not None else ""
        raise FunctionError(
            f'{name}: Not enough function arguments; Function "{name}" expects {least}'
            f'{len(params)} argument(s). Missing value for "{params[len(args)].name}".'
        )
    if var is None and len(args) > len(params):
        raise FunctionError(
            f'{name}: Too many function arguments; Function "{name}" expects only '
            f"{len(params)} argument(s)."
        )
    out: list[Value] = []
    for i, arg in enumerate(args):
        param = params[i] if i < len(params) else var
        assert param is not None
        if arg is None:
            if not param.allow_null:
                raise _ArgError(i, "argument must not be null")
            out.append(None)
            continue
        try:
            out.append(convert(arg, param.type))
        except ConversionError as exc:
            raise _ArgError(i, str(exc)) from None
    return out


def _finish(result: Value) -> Value:
    if isinstance(result, str):
        return unicodedata.normalize("NFC", result)
    return result


def _str(value: Value) -> str:
    assert isinstance(value, str)
    return value


def _num(value: Value) -> Decimal:
    assert isinstance(value, Decimal)
    return value


def _seq(value: Value) -> list[Value]:
    assert isinstance(value, list)
    return value


def _int_arg(value: Value, index: int | None = None, prefix: str = "") -> int:
    """A whole-number argument (errors as an argument error when index is given)."""
    try:
        return _to_int(_num(value))
    except ConversionError as exc:
        if index is None:
            raise _CallError(f"{prefix}{exc}") from None
        raise _ArgError(index, f"{prefix}{exc}") from None


# --------------------------------------------------------------------------------------------
# string functions
# --------------------------------------------------------------------------------------------


def _upper(args: list[Value]) -> Value:
    return _go_upper(_str(args[0]))


def _lower(args: list[Value]) -> Value:
    return _go_lower(_str(args[0]))


def _title(args: list[Value]) -> Value:
    return _go_title(_str(args[0]))


def _reverse(args: list[Value]) -> Value:
    return "".join(reversed(graphemes(_str(args[0]))))


def _strlen(args: list[Value]) -> Value:
    return Decimal(len(graphemes(_str(args[0]))))


def _trimspace(args: list[Value]) -> Value:
    return _str(args[0]).strip("".join(_GO_SPACE))


def _trim(args: list[Value]) -> Value:
    return _str(args[0]).strip(_str(args[1]))


def _trimprefix(args: list[Value]) -> Value:
    return _str(args[0]).removeprefix(_str(args[1]))


def _trimsuffix(args: list[Value]) -> Value:
    return _str(args[0]).removesuffix(_str(args[1]))


_TRAILING_NEWLINES = re.compile(r"(?:\r\n?|\n)*\Z")


def _chomp(args: list[Value]) -> Value:
    text = _str(args[0])
    match = _TRAILING_NEWLINES.search(text)
    return text[: match.start()] if match else text


def _indent(args: list[Value]) -> Value:
    spaces = _int_arg(args[0])
    if spaces < 0:
        raise _CallError("panic in function implementation: strings: negative Repeat count")
    return _str(args[1]).replace("\n", "\n" + " " * spaces)


def _replace(args: list[Value]) -> Value:
    return _str(args[0]).replace(_str(args[1]), _str(args[2]))


def _split(args: list[Value]) -> Value:
    sep, text = _str(args[0]), _str(args[1])
    if sep == "":
        return ListValue(list(text))
    return ListValue(text.split(sep))


def _join(args: list[Value]) -> Value:
    sep, lists = _str(args[0]), args[1:]
    if not lists:
        raise _CallError("at least one list is required")
    items: list[str] = []
    for number, seq in enumerate(lists, start=1):
        for index, item in enumerate(_seq(seq)):
            if item is None:
                where = (
                    f"element {index} of list {number}" if len(lists) > 1 else f"element {index}"
                )
                raise _ArgError(number, f"{where} is null; cannot concatenate null values")
            items.append(_str(item))
    return sep.join(items)


def _sort(args: list[Value]) -> Value:
    items = _seq(args[0])
    for index, item in enumerate(items):
        if item is None:
            raise _CallError(f"given list element {index} is null; a null string cannot be sorted")
    return ListValue(sorted(items, key=lambda s: _str(s).encode()))


def _substr(args: list[Value]) -> Value:
    text = _str(args[0])
    offset, length = _int_arg(args[1]), _int_arg(args[2])
    clusters = graphemes(text)
    if offset < 0:
        offset += len(clusters)
    elif length == 0:
        return ""
    if offset > 0:
        if offset > len(clusters):
            return ""
        clusters = clusters[offset:]
    if length <= 0:  # a zero length only gets here with a negative offset: cty takes the rest
        return "".join(clusters)
    return "".join(clusters[:length])


def _sanitize(args: list[Value]) -> Value:
    return "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in _str(args[0]))


def _go_clean(path: str) -> str:
    """Go's path.Clean."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def _basename(args: list[Value]) -> Value:
    path = _str(args[0])
    if path == "":
        return "."
    path = path.rstrip("/")
    if path == "":
        return "/"
    return path.rsplit("/", 1)[-1]


def _dirname(args: list[Value]) -> Value:
    path = _str(args[0])
    return _go_clean(path[: path.rfind("/") + 1])


# --------------------------------------------------------------------------------------------
# format and formatlist (cty's printf)
# --------------------------------------------------------------------------------------------


@dataclass
class _Verb:
    raw: str = ""
    offset: int = 0
    argnum: int = 0
    mode: str = ""
    zero: bool = False
    sharp: bool = False
    plus: bool = False
    minus: bool = False
    space: bool = False
    width: int = -1
    prec: int = -1


_FLAG_NAMES = {"0": "zero", "#": "sharp", "-": "minus", "+": "plus", " ": "space"}


class _FormatError(Exception):
    def __init__(self, message: str, about_args: bool = False) -> None:
        super().__init__(message)
        self.about_args = about_args


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def go_format(fmt: str, args: Sequence[Value]) -> str:
    """cty's formatFSM: printf with cty's verbs, flags, width, precision and [n] indexes."""
    out: list[str] = []
    pos, size, next_arg, used = 0, len(fmt), 1, 0
    while pos < size:
        char = fmt[pos]
        if char != "%":
            out.append(char)
            pos += 1
            continue
        if pos + 1 < size and fmt[pos + 1] == "%":
            out.append("%")
            pos += 2
            continue
        verb, pos = _scan_verb(fmt, pos, next_arg)
        out.append(_format_one(verb, args))
        next_arg = verb.argnum + 1
        used = max(used, verb.argnum)
    if len(args) > used:
        detail = f"only {used} used by format string" if used else "no verbs in format string"
        raise _FormatError(f"too many arguments; {detail}", about_args=True)
    return "".join(out)


def _scan_digits(fmt: str, pos: int) -> tuple[int, int]:
    start = pos
    while pos < len(fmt) and fmt[pos].isascii() and fmt[pos].isdigit():
        pos += 1
    return (int(fmt[start:pos]) if pos > start else 0), pos


def _format_char_error(fmt: str, pos: int) -> _FormatError:
    if pos >= len(fmt):
        return _FormatError(f"invalid format string starting at offset {_byte_offset(fmt, pos)}")
    return _FormatError(
        f"unrecognized format character {_go_quote_rune(fmt[pos])} at offset "
        f"{_byte_offset(fmt, pos)}"
    )


def _scan_verb(fmt: str, start: int, next_arg: int) -> tuple[_Verb, int]:
    verb = _Verb(offset=_byte_offset(fmt, start), argnum=next_arg)
    pos = start + 1
    while pos < len(fmt) and fmt[pos] in _FLAG_NAMES:
        setattr(verb, _FLAG_NAMES[fmt[pos]], True)
        pos += 1
    if pos < len(fmt) and fmt[pos] == "[":
        pos += 1
        if pos >= len(fmt) or not "1" <= fmt[pos] <= "9":
            raise _format_char_error(fmt, pos)
        verb.argnum, pos = _scan_digits(fmt, pos)
        if pos >= len(fmt) or fmt[pos] != "]":
            raise _format_char_error(fmt, pos)
        pos += 1
    if pos < len(fmt) and "1" <= fmt[pos] <= "9":
        verb.width, pos = _scan_digits(fmt, pos)
    if pos < len(fmt) and fmt[pos] == ".":
        verb.prec, pos = _scan_digits(fmt, pos + 1)
    if pos >= len(fmt) or not (fmt[pos].isascii() and fmt[pos].isalpha()):
        raise _format_char_error(fmt, pos)
    verb.mode = fmt[pos]
    verb.raw = fmt[start : pos + 1]
    return verb, pos + 1


def _format_one(verb: _Verb, args: Sequence[Value]) -> str:
    if verb.argnum - 1 >= len(args):
        raise _FormatError(
            f"not enough arguments for {go_quote(verb.raw)} at {verb.offset}: need index "
            f"{verb.argnum} but have {len(args)} total"
        )
    arg = args[verb.argnum - 1]
    if verb.mode != "v" and arg is None:
        raise _FormatError(
            f"unsupported value for {go_quote(verb.raw)} at {verb.offset}: "
            "null value cannot be formatted"
        )
    try:
        if verb.mode == "v":
            return _format_as_is(verb, arg)
        if verb.mode == "t":
            return "true" if _to_bool(arg) else "false"
        if verb.mode in "bdoxX":
            return _format_integer(verb, _to_number(arg))
        if verb.mode in "eEfgG":
            return _format_float(verb, _to_number(arg))
        if verb.mode in "sq":
            return _format_string(verb, _to_string(arg))
    except ConversionError as exc:
        raise _FormatError(
            f"unsupported value for {go_quote(verb.raw)} at {verb.offset}: {exc}"
        ) from None
    raise _FormatError(
        f"unsupported format verb {_go_quote_rune(verb.mode)} in {go_quote(verb.raw)} "
        f"at offset {verb.offset}"
    )


def _pad_width(verb: _Verb, text: str) -> str:
    if verb.width < 0:
        return text
    given = len(graphemes(text))
    if given >= verb.width:
        return text
    pads = ("0" if verb.zero else " ") * (verb.width - given)
    return text + pads if verb.minus else pads + text


def _format_as_is(verb: _Verb, arg: Value) -> str:
    if not verb.sharp and isinstance(arg, str):
        return _pad_width(verb, arg)
    if not verb.sharp and isinstance(arg, Decimal):
        return _pad_width(verb, _go_text(arg, "g", -1))
    try:
        return _pad_width(verb, _json_text(arg))
    except _CallError as exc:
        raise _FormatError(
            f"unsupported value for {go_quote(verb.raw)} at {verb.offset}: {exc}"
        ) from None


def _sign(negative: bool, verb: _Verb) -> str:
    if negative:
        return "-"
    if verb.plus:
        return "+"
    return " " if verb.space else ""


def _format_integer(verb: _Verb, value: Decimal) -> str:
    x = _binary(value) if value.is_finite() else Fraction(1, 2)
    if x.denominator != 1:
        raise _FormatError(
            f"unsupported value for {go_quote(verb.raw)} at {verb.offset}: an integer is required"
        )
    number = x.numerator
    digits = {
        "b": format(abs(number), "b"),
        "d": str(abs(number)),
        "o": format(abs(number), "o"),
        "x": format(abs(number), "x"),
        "X": format(abs(number), "X"),
    }[verb.mode]
    prefix = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb.mode, "") if verb.sharp else ""
    zeros = 0
    if verb.prec >= 0:
        if len(digits) < verb.prec:
            zeros = verb.prec - len(digits)
        elif digits == "0" and verb.prec == 0:
            return ""
    sign = _sign(number < 0, verb)
    length = len(sign) + len(prefix) + zeros + len(digits)
    left = right = 0
    if verb.width > length:
        if verb.minus:
            right = verb.width - length
        elif verb.zero and verb.prec < 0:
            zeros = verb.width - length
        else:
            left = verb.width - length
    return " " * left + sign + prefix + "0" * zeros + digits + " " * right


def _format_float(verb: _Verb, value: Decimal) -> str:
    prec = verb.prec
    if prec < 0:
        prec = -1 if verb.mode in "gG" else 6
    text = _go_text(value, verb.mode, prec)
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    elif text.startswith("+"):
        sign, text = (" " if verb.space else "+"), text[1:]
    else:
        sign = _sign(False, verb)
    padding = max(verb.width - len(sign) - len(text), 0) if verb.width >= 0 else 0
    if verb.zero and not verb.minus and not value.is_infinite():
        return sign + "0" * padding + text
    if verb.minus:
        return sign + text + " " * padding
    return " " * padding + sign + text


def _format_string(verb: _Verb, text: str) -> str:
    if verb.prec > 0:
        text = "".join(graphemes(text)[: verb.prec])
    if verb.mode == "q":
        text = go_json_string(text)
    return _pad_width(verb, text)


def _format(args: list[Value]) -> Value:
    try:
        return go_format(_str(args[0]), args[1:])
    except _FormatError as exc:
        if exc.about_args:
            raise _ArgError(1, str(exc)) from None
        raise _CallError(str(exc)) from None


def _formatlist(args: list[Value]) -> Value:
    fmt, rest = _str(args[0]), args[1:]
    if not rest:
        return ListValue([_format([fmt])])
    length, chooser = -1, -1
    for i, arg in enumerate(rest):
        if isinstance(arg, list):
            if length == -1:
                length, chooser = len(arg), i
            elif len(arg) != length:
                raise _ArgError(
                    i + 1,
                    f"argument {i + 1} has length {len(arg)}, which is inconsistent with "
                    f"argument {chooser + 1} of length {length}",
                )
    if length == 0:
        return ListValue([])
    results: list[Value] = []
    for iteration in range(max(length, 1)):
        values = [arg[iteration] if isinstance(arg, list) else arg for arg in rest]
        try:
            results.append(unicodedata.normalize("NFC", go_format(fmt, values)))
        except _FormatError as exc:
            raise _CallError(f"error on format iteration {iteration}: {exc}") from None
    return ListValue(results)


# --------------------------------------------------------------------------------------------
# regular expressions: Go's RE2 syntax, translated for Python's re
# --------------------------------------------------------------------------------------------


class _RegexSyntaxError(Exception):
    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")
        self.code = code
        self.expr = expr


@dataclass(frozen=True)
class _GoRegex:
    pattern: re.Pattern[str]
    names: tuple[str, ...]  # one per capture group, "" when unnamed


_WORD = "[0-9A-Za-z_]"
_PERL_CLASSES: dict[str, tuple[tuple[int, int], ...]] = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
}
_POSIX_CLASSES: dict[str, tuple[tuple[int, int], ...]] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_MAX_RUNE = 0x10FFFF


def _negate_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    low = 0
    for lo, hi in _merge_ranges(ranges):
        if lo > low:
            out.append((low, lo - 1))
        low = hi + 1
    if low <= _MAX_RUNE:
        out.append((low, _MAX_RUNE))
    return out


def _merge_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


@functools.lru_cache(maxsize=64)
def _category_ranges(name: str) -> tuple[tuple[int, int], ...]:
    """Code point ranges of a Unicode general category (one letter or two) or "Any"."""
    if name == "Any":
        return ((0, _MAX_RUNE),)
    ranges: list[tuple[int, int]] = []
    start = -1
    for code in range(_MAX_RUNE + 2):
        inside = code <= _MAX_RUNE and unicodedata.category(chr(code)).startswith(name)
        if inside and start < 0:
            start = code
        elif not inside and start >= 0:
            ranges.append((start, code - 1))
            start = -1
    return tuple(ranges)


_CATEGORIES = frozenset(
    {
        "L",
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "M",
        "Mn",
        "Mc",
        "Me",
        "N",
        "Nd",
        "Nl",
        "No",
        "P",
        "Pc",
        "Pd",
        "Ps",
        "Pe",
        "Pi",
        "Pf",
        "Po",
        "S",
        "Sm",
        "Sc",
        "Sk",
        "So",
        "Z",
        "Zs",
        "Zl",
        "Zp",
        "C",
        "Cc",
        "Cf",
        "Cs",
        "Co",
        "Cn",
        "Any",
    }
)


def _class_char(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _emit_class(ranges: Sequence[tuple[int, int]], negate: bool) -> str:
    merged = _merge_ranges(ranges)
    if not merged:
        return "[^\\x00-\\U0010ffff]" if not negate else "[\\x00-\\U0010ffff]"
    body = "".join(
        _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in merged
    )
    return f"[{'^' if negate else ''}{body}]"


class _RegexTranslator:
    """Translate a Go (RE2) pattern into an equivalent Python pattern."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.flags = {"i": False, "m": False, "s": False, "U": False}
        self.names: list[str] = []
        self.depth = 0

    def error(self, code: str, expr: str | None = None) -> _RegexSyntaxError:
        return _RegexSyntaxError(code, self.src if expr is None else expr)

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.src[index] if index < len(self.src) else ""

    def translate(self) -> str:
        out = self.alternation()
        if self.pos < len(self.src):
            raise self.error("unexpected )")
        return out

    def alternation(self) -> str:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return "|".join(branches)

    def sequence(self) -> str:
        out: list[str] = []
        while self.pos < len(self.src) and self.peek() not in "|)":
            if self.src.startswith("\\Q", self.pos):
                out.extend(self.quoted())
                if out:
                    out[-1] = self.quantified(out[-1])
                continue
            atom = self.atom()
            if atom is None:
                continue
            if atom == "":
                raise self.error("missing argument to repetition operator", self.operator_text())
            out.append(self.quantified(atom))
        return "".join(out)

    def operator_text(self) -> str:
        repeat = self.repeat_at(self.pos)
        end = repeat[2] if repeat is not None else self.pos + 1
        if self.src[end : end + 1] == "?":
            end += 1
        return self.src[self.pos : end]

    def quoted(self) -> list[str]:
        self.pos += 2
        end = self.src.find("\\E", self.pos)
        text = self.src[self.pos :] if end < 0 else self.src[self.pos : end]
        self.pos = len(self.src) if end < 0 else end + 2
        return [self.literal(c) for c in text]

    def literal(self, char: str) -> str:
        escaped = re.escape(char)
        return f"(?i:{escaped})" if self.flags["i"] and char.lower() != char.upper() else escaped

    def atom(self) -> str | None:
        char = self.peek()
        if char in "*+?":
            return ""
        if char == "{" and self.repeat_at(self.pos) is not None:
            return ""
        self.pos += 1
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == ".":
            return "[\\s\\S]" if self.flags["s"] else "[^\\n]"
        if char == "^":
            return "(?:(?<![^\\n]))" if self.flags["m"] else "(?:\\A)"
        if char == "$":
            return "(?:(?![^\\n]))" if self.flags["m"] else "(?:\\Z)"
        if char == "\\":
            return self.escape()
        return self.literal(char)

    def repeat_at(self, pos: int) -> tuple[int, int, int] | None:
        """Parse ``{n}``, ``{n,}`` or ``{n,m}`` at pos: (min, max or -1, end) or None."""
        match = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.src, pos)
        if not match:
            return None
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else -1)
        return low, high, match.end()

    def quantified(self, atom: str) -> str:
        char = self.peek()
        start = self.pos
        if char in ("*", "+", "?"):
            self.pos += 1
            quantifier = char
        elif char == "{" and (repeat := self.repeat_at(self.pos)) is not None:
            low, high, end = repeat
            if low > 1000 or high > 1000 or (high != -1 and high < low):
                raise self.error("invalid repeat count", self.src[start:end])
            self.pos = end
            quantifier = self.src[start:end]
        else:
            return atom
        lazy = self.peek() == "?"
        if lazy:
            self.pos += 1
        if self.flags["U"]:
            lazy = not lazy
        nxt = self.peek()
        if nxt in ("*", "+", "?") or (nxt == "{" and self.repeat_at(self.pos) is not None):
            raise self.error("invalid nested repetition operator", self.src[start : self.pos + 1])
        return f"(?:{atom}){quantifier}{'?' if lazy else ''}"

    def group(self) -> str | None:
        name: str | None = None
        if self.peek() == "?":
            opening = self.pos - 1
            rest = self.src[self.pos + 1 :]
            if rest.startswith("P<") or rest.startswith("<"):
                self.pos += 3 if rest.startswith("P<") else 2
                end = self.src.find(">", self.pos)
                candidate = self.src[self.pos : end] if end >= 0 else ""
                if end < 0 or not re.fullmatch(r"[A-Za-z0-9_]+", candidate):
                    shown = self.src[opening : end + 1] if end >= 0 else self.src[opening:]
                    raise self.error("invalid named capture", shown)
                name = candidate
                self.pos = end + 1
            else:
                return self.flag_group()
        self.names.append(name or "")
        return "(" + self.group_body() + ")"

    def group_body(self) -> str:
        saved = dict(self.flags)
        self.depth += 1
        inner = self.alternation()
        if self.peek() != ")":
            raise self.error("missing closing )")
        self.pos += 1
        self.depth -= 1
        self.flags = saved
        return inner

    def flag_group(self) -> str | None:
        start = self.pos - 1
        match = re.compile(r"\?([imsU]*)(?:-([imsU]*))?([:)])").match(self.src, self.pos)
        if not match or (match.group(2) is not None and not match.group(2)):
            raise self.error("invalid or unsupported Perl syntax", self.src[start : start + 3])
        self.pos = match.end()
        if match.group(3) == ":":
            saved = dict(self.flags)
            self.set_flags(match.group(1), match.group(2) or "")
            body = self.group_body()
            self.flags = saved
            return f"(?:{body})"
        self.set_flags(match.group(1), match.group(2) or "")
        return None

    def set_flags(self, on: str, off: str) -> None:
        for flag in on:
            self.flags[flag] = True
        for flag in off:
            self.flags[flag] = False

    def escape(self) -> str:
        char = self.peek()
        if char == "":
            raise self.error("trailing backslash at end of expression", "")
        self.pos += 1
        simple = {"a": "\\x07", "f": "\\x0c", "t": "\\t", "n": "\\n", "r": "\\r", "v": "\\x0b"}
        if char in simple:
            return simple[char]
        if char == "A":
            return "(?:\\A)"
        if char == "z":
            return "(?:\\Z)"
        if char in "bB":
            return self.word_boundary(char == "b")
        ranges = self.class_escape(char)
        if ranges is not None:
            return self.wrap_class(_emit_class(ranges[0], ranges[1]))
        code = self.char_escape(char)
        return self.literal(chr(code))

    def word_boundary(self, at: bool) -> str:
        before, after = f"(?<={_WORD})", f"(?={_WORD})"
        nbefore, nafter = f"(?<!{_WORD})", f"(?!{_WORD})"
        if at:
            return f"(?:{before}{nafter}|{nbefore}{after})"
        return f"(?:{before}{after}|{nbefore}{nafter})"

    def wrap_class(self, cls: str) -> str:
        return f"(?i:{cls})" if self.flags["i"] else cls

    def class_escape(self, char: str) -> tuple[list[tuple[int, int]], bool] | None:
        """\\d \\s \\w (and negations), \\pX and \\p{X}: (ranges, negated) or None."""
        if char.lower() in _PERL_CLASSES:
            return list(_PERL_CLASSES[char.lower()]), char.isupper()
        if char not in "pP":
            return None
        negate = char == "P"
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            if end < 0:
                raise self.error("invalid character class range", self.src[self.pos - 2 :])
            name = self.src[self.pos + 1 : end]
            self.pos = end + 1
        else:
            name = self.peek()
            self.pos += 1
        if name.startswith("^"):
            negate, name = not negate, name[1:]
        if name not in _CATEGORIES:  # scripts (\p{Greek}) need tables Python does not ship
            raise self.error("unsupported Unicode class (only general categories)", name)
        return list(_category_ranges(name)), negate

    def char_escape(self, char: str) -> int:
        if char == "x":
            return self.hex_escape()
        if "0" <= char <= "7":
            nxt = self.peek()
            if char != "0" and not ("0" <= nxt <= "7"):
                raise self.error("invalid escape sequence", f"\\{char}")
            digits = char
            while len(digits) < 3 and "0" <= self.peek() <= "7":
                digits += self.peek()
                self.pos += 1
            return int(digits, 8)
        if char.isascii() and not char.isalnum():
            return ord(char)
        raise self.error("invalid escape sequence", f"\\{char}")

    def hex_escape(self) -> int:
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end >= 0 else ""
            if (
                end < 0
                or not re.fullmatch(r"[0-9A-Fa-f]{1,8}", digits)
                or int(digits, 16) > _MAX_RUNE
            ):
                raise self.error("invalid escape sequence", self.src[self.pos - 2 : end + 1])
            self.pos = end + 1
            return int(digits, 16)
        digits = self.src[self.pos : self.pos + 2]
        if not re.fullmatch(r"[0-9A-Fa-f]{2}", digits):
            raise self.error("invalid escape sequence", self.src[self.pos - 2 : self.pos + 2])
        self.pos += 2
        return int(digits, 16)

    def char_class(self) -> str:
        start = self.pos - 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            if self.pos >= len(self.src):
                raise self.error("missing closing ]", self.src[start:])
            char = self.peek()
            if char == "]" and not first:
                self.pos += 1
                break
            first = False
            ranges.extend(self.class_item())
        return self.wrap_class(_emit_class(ranges, negate))

    def class_item(self) -> list[tuple[int, int]]:
        if self.src.startswith("[:", self.pos):
            end = self.src.find(":]", self.pos + 2)
            if end >= 0:
                name = self.src[self.pos + 2 : end]
                negate = name.startswith("^")
                table = _POSIX_CLASSES.get(name.lstrip("^"))
                if table is None:
                    raise self.error("invalid character class range", self.src[self.pos : end + 2])
                self.pos = end + 2
                return _negate_ranges(table) if negate else list(table)
        low = self.class_char()
        if isinstance(low, list):
            return low
        if self.peek() == "-" and self.peek(1) not in ("]", ""):
            self.pos += 1
            high = self.class_char()
            if isinstance(high, list) or high < low:
                raise self.error("invalid character class range", self.src[self.pos - 3 : self.pos])
            return [(low, high)]
        return [(low, low)]

    def class_char(self) -> int | list[tuple[int, int]]:
        char = self.peek()
        self.pos += 1
        if char != "\\":
            return ord(char)
        esc = self.peek()
        self.pos += 1
        simple = {"a": 7, "f": 12, "t": 9, "n": 10, "r": 13, "v": 11}
        if esc in simple:
            return simple[esc]
        found = self.class_escape(esc)
        if found is not None:
            ranges, negate = found
            return _negate_ranges(ranges) if negate else ranges
        return self.char_escape(esc)


@functools.lru_cache(maxsize=256)
def _compile_go_regex(pattern: str) -> _GoRegex:
    translator = _RegexTranslator(pattern)
    python = translator.translate()
    try:
        compiled = re.compile(python)
    except re.error as exc:  # pragma: no cover - the translation is meant to be valid
        raise _RegexSyntaxError(f"unsupported pattern ({exc})", pattern) from None
    return _GoRegex(compiled, tuple(translator.names))


def _go_find_all(regex: _GoRegex, text: str) -> Iterator[re.Match[str]]:
    """Go's allMatches: successive matches, no empty match right after a previous one."""
    pos, prev_end = 0, -1
    while pos <= len(text):
        match = regex.pattern.search(text, pos)
        if match is None:
            return
        accept = True
        if match.end() == pos:
            if match.start() == prev_end:
                accept = False
            pos += 1
        else:
            pos = match.end()
        prev_end = match.end()
        if accept:
            yield match


def _regex_for_pattern(pattern: str) -> _GoRegex:
    try:
        regex = _compile_go_regex(pattern)
    except _RegexSyntaxError as exc:
        raise _ArgError(0, f"invalid regexp pattern: {exc.code} in {exc.expr}") from None
    named = [n for n in regex.names if n]
    if named and len(named) != len(regex.names):
        raise _ArgError(
            0, "invalid regexp pattern: cannot mix both named and unnamed capture groups"
        )
    return regex


def _regex_result(regex: _GoRegex, match: re.Match[str]) -> Value:
    if not regex.names:
        return match.group(0)
    groups: list[Value] = [match.group(i + 1) for i in range(len(regex.names))]
    if regex.names[0] == "":
        return groups
    return {name: groups[i] for i, name in enumerate(regex.names)}


def _regex(args: list[Value]) -> Value:
    regex = _regex_for_pattern(_str(args[0]))
    match = regex.pattern.search(_str(args[1]))
    if match is None:
        raise _CallError("pattern did not match any part of the given string")
    return _regex_result(regex, match)


def _regexall(args: list[Value]) -> Value:
    regex = _regex_for_pattern(_str(args[0]))
    return ListValue(_regex_result(regex, m) for m in _go_find_all(regex, _str(args[1])))


def _template_name(template: str) -> tuple[str, str] | None:
    """Go's regexp extract: the name after ``$`` and the rest of the template."""
    brace = template.startswith("{")
    body = template[1:] if brace else template
    size = 0
    for char in body:
        category = unicodedata.category(char)
        if not (category[0] == "L" or category == "Nd" or char == "_"):
            break
        size += 1
    if size == 0:
        return None
    name = body[:size]
    if brace:
        if size >= len(body) or body[size] != "}":
            return None
        size += 1
    return name, body[size:]


def _expand(regex: _GoRegex, template: str, match: re.Match[str]) -> str:
    out: list[str] = []
    while "$" in template:
        before, template = template.split("$", 1)
        out.append(before)
        if template.startswith("$"):
            out.append("$")
            template = template[1:]
            continue
        found = _template_name(template)
        if found is None:
            out.append("$")
            continue
        name, template = found
        out.append(_group_text(regex, name, match))
    out.append(template)
    return "".join(out)


def _group_text(regex: _GoRegex, name: str, match: re.Match[str]) -> str:
    number = -1
    if name.isascii() and name.isdigit() and not (name[0] == "0" and len(name) > 1):
        number = int(name)
    if number >= 0:
        if number <= len(regex.names):
            return match.group(number) or ""
        return ""
    for index, group_name in enumerate(regex.names, start=1):
        if group_name == name and match.start(index) >= 0:
            return match.group(index) or ""
    return ""


def _regex_replace(args: list[Value]) -> Value:
    text, pattern, template = _str(args[0]), _str(args[1]), _str(args[2])
    try:
        regex = _compile_go_regex(pattern)
    except _RegexSyntaxError as exc:
        raise _CallError(str(exc)) from None
    out: list[str] = []
    last = 0
    for match in _go_find_all(regex, text):
        out.append(text[last : match.start()])
        out.append(_expand(regex, template, match))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


# --------------------------------------------------------------------------------------------
# collection functions
# --------------------------------------------------------------------------------------------


def _length(args: list[Value]) -> Value:
    collection = args[0]
    if not isinstance(collection, list | MapValue):
        raise _CallError("collection must be a list, a map or a tuple")
    return Decimal(len(collection))


def _element(args: list[Value]) -> Value:
    seq, index = args[0], _num(args[1])
    if index < 0:
        raise _CallError("cannot use element function with a negative index")
    if not isinstance(seq, list) or isinstance(seq, SetValue):
        raise _CallError(f"cannot read elements from {_kind_name(seq)}")
    position = _int_arg(index, prefix="invalid index: ")
    if not seq:
        raise _CallError("cannot use element function with an empty list")
    return seq[position % len(seq)]


def _index(args: list[Value]) -> Value:
    collection, key = args
    if isinstance(collection, MapValue):
        if not isinstance(key, str):
            raise _CallError("key for map must be string")
        if key not in collection:
            raise _CallError("invalid index")
        return collection[key]
    if not isinstance(collection, list) or isinstance(collection, SetValue):
        raise _CallError("collection must be a list, a map or a tuple")
    listed = isinstance(collection, ListValue)
    if not isinstance(key, Decimal):
        raise _CallError(f"key for {'list' if listed else 'tuple'} must be number")
    try:
        position = _to_int(key)
    except ConversionError as exc:
        if listed:
            raise _CallError("invalid index") from None
        raise _CallError(f"invalid key for tuple: {exc}") from None
    if not 0 <= position < len(collection):
        if listed:
            raise _CallError("invalid index")
        raise _CallError(f"key must be between 0 and {len(collection)} inclusive")
    return collection[position]


def _hasindex(args: list[Value]) -> Value:
    collection, key = args
    if isinstance(collection, MapValue):
        return isinstance(key, str) and key in collection
    if not isinstance(collection, list) or isinstance(collection, SetValue):
        raise _CallError("collection must be a list, a map or a tuple")
    if not isinstance(key, Decimal) or not _is_integral(key):
        return False
    return 0 <= int(key) < len(collection)


def _contains(args: list[Value]) -> Value:
    seq, value = args
    if not isinstance(seq, list):
        raise _CallError("argument must be list, tuple, or set")
    return any(cty_equal(value, item) for item in seq)


def _distinct(args: list[Value]) -> Value:
    out: list[Value] = []
    for item in _seq(args[0]):
        if not any(cty_equal(item, seen) for seen in out):
            out.append(item)
    return ListValue(out)


def _chunklist(args: list[Value]) -> Value:
    items = _seq(args[0])
    if not items:
        return ListValue([])
    size = _int_arg(args[1], prefix="invalid size: ")
    if size < 0:
        raise _CallError("the size argument must be positive")
    if size == 0:
        return ListValue([ListValue(items)])
    return ListValue(ListValue(items[i : i + size]) for i in range(0, len(items), size))


def _flatten_into(out: list[Value], seq: list[Value]) -> None:
    for item in seq:
        if isinstance(item, list):
            _flatten_into(out, item)
        else:
            out.append(item)


def _flatten(args: list[Value]) -> Value:
    seq = args[0]
    if not isinstance(seq, list):
        raise _CallError("can only flatten lists, sets and tuples")
    out: list[Value] = []
    _flatten_into(out, seq)
    return out


def _concat(args: list[Value]) -> Value:
    if not args:
        raise _CallError("at least one argument is required")
    if all(isinstance(a, ListValue) and not isinstance(a, SetValue) for a in args):
        unified = unify([type_of(a) for a in args])
        if unified is not None:
            try:
                return ListValue(x for a in args for x in _seq(convert(a, unified)))
            except ConversionError as exc:
                raise _CallError(str(exc)) from None
    out: list[Value] = []
    for index, seq in enumerate(args):
        if not isinstance(seq, list) or isinstance(seq, SetValue):
            raise _ArgError(index, f"all arguments must be lists or tuples; got {_kind_name(seq)}")
        out.extend(seq)
    return out


def _coalesce(args: list[Value]) -> Value:
    unified = unify([type_of(a) for a in args])
    if unified is None:
        raise _CallError("all arguments must have the same type")
    for arg in args:
        if arg is not None:
            try:
                return convert(arg, unified)
            except ConversionError as exc:
                raise _CallError(str(exc)) from None
    raise _CallError("no non-null arguments")


def _coalescelist(args: list[Value]) -> Value:
    if not args:
        raise _CallError("at least one argument is required")
    if any(not isinstance(a, list) or isinstance(a, SetValue) for a in args):
        raise _CallError("coalescelist arguments must be lists or tuples")
    for arg in args:
        if _seq(arg):
            return arg
    raise _CallError("no non-null arguments")


def _compact(args: list[Value]) -> Value:
    return ListValue(item for item in _seq(args[0]) if item is not None and item != "")


def _keys(args: list[Value]) -> Value:
    mapping = args[0]
    if not isinstance(mapping, dict):
        raise _ArgError(0, "must have map or object type")
    keys: list[Value] = [*sorted(mapping)]
    return ListValue(keys) if isinstance(mapping, MapValue) else keys


def _values(args: list[Value]) -> Value:
    mapping = args[0]
    if not isinstance(mapping, dict):
        raise _CallError("values() requires a map as the first argument")
    values = [mapping[k] for k in sorted(mapping)]
    return ListValue(values) if isinstance(mapping, MapValue) else values


def _lookup(args: list[Value]) -> Value:
    mapping, key, default = args[0], _str(args[1]), args[2]
    if isinstance(mapping, MapValue):
        element = _element_type(list(mapping.values()))
        try:
            converted = convert(default, element)
        except ConversionError:
            raise _ArgError(
                2, "the default value must have the same type as the map elements"
            ) from None
        return mapping.get(key, converted)
    if not isinstance(mapping, dict):
        raise _ArgError(0, "lookup() requires a map as the first argument")
    return mapping.get(key, default)


def _merge(args: list[Value]) -> Value:
    present = [a for a in args if a is not None]
    for arg in args:
        if arg is not None and not isinstance(arg, dict):
            raise _CallError(f'arguments must be maps or objects, got "{_kind_name(arg)}"')
    out: dict[str, Value] = {}
    for arg in present:
        assert isinstance(arg, dict)
        out.update(arg)
    types = [type_of(a) for a in args]
    if args and present and all(t == types[0] for t in types) and types[0].name == "map":
        return MapValue(out)
    return out


def _reverselist(args: list[Value]) -> Value:
    seq = args[0]
    if not isinstance(seq, list):
        raise _ArgError(0, f"can only reverse list or tuple values, not {_kind_name(seq)}")
    if isinstance(seq, ListValue | SetValue):
        return ListValue(reversed(seq))
    return list(reversed(seq))


def _slice(args: list[Value]) -> Value:
    seq = args[0]
    if isinstance(seq, SetValue):
        raise _ArgError(
            0,
            "cannot slice a set, because its elements do not have indices; explicitly convert "
            "to a list if the ordering of the result is not important",
        )
    if not isinstance(seq, list):
        raise _ArgError(0, "must be a list or tuple value")
    start = _int_arg(args[1], 1, "invalid start index: ")
    if start < 0:
        raise _ArgError(1, "start index must not be less than zero")
    if start > len(seq):
        raise _ArgError(1, "start index must not be greater than the length of the list")
    end = _int_arg(args[2], 2, "invalid end index: ")
    if end < 0:
        raise _ArgError(2, "end index must not be less than zero")
    if end > len(seq):
        raise _ArgError(2, "end index must not be greater than the length of the list")
    if start > end:
        raise _ArgError(1, "start index must not be greater than end index")
    part = seq[start:end]
    return ListValue(part) if isinstance(seq, ListValue) else part


def _zipmap(args: list[Value]) -> Value:
    keys, values = _seq(args[0]), args[1]
    if not isinstance(values, list) or isinstance(values, SetValue):
        raise _CallError("values argument must be a list or tuple value")
    if len(keys) != len(values):
        raise _CallError(
            f"number of keys ({len(keys)}) does not match number of values ({len(values)})"
        )
    out: dict[str, Value] = {}
    for index, (key, value) in enumerate(zip(keys, values, strict=True)):
        if key is None:
            raise _CallError(f"keys list has null value at index {index}")
        out[_str(key)] = value
    return MapValue(out) if isinstance(values, ListValue) else out


def _range(args: list[Value]) -> Value:
    numbers = [_num(a) for a in args]
    one, zero = Decimal(1), Decimal(0)
    if len(numbers) == 1:
        start, end = zero, numbers[0]
        step = -one if end < 0 else one
    elif len(numbers) == 2:
        start, end = numbers
        step = -one if end < start else one
    elif len(numbers) == 3:
        start, end, step = numbers
    else:
        raise _CallError("must have one, two, or three arguments")
    down = step < 0
    if down and end > start:
        raise _ArgError(1, "end must be less than start when step is negative")
    if not down and end < start:
        raise _ArgError(1, "end must be greater than start when step is positive")
    values: list[Value] = []
    current = start
    while (current > end) if down else (current < end):
        if len(values) >= 1024:
            raise _CallError(
                "more than 1024 values were generated; either decrease the difference between "
                "start and end or use a smaller step"
            )
        values.append(current)
        current = arithmetic("+", current, step)
    return ListValue(values)


# --------------------------------------------------------------------------------------------
# set functions
# --------------------------------------------------------------------------------------------


def _set_element_type(sets: Sequence[Value]) -> Type:
    types = [_elem(type_of(s)) for s in sets if _seq(s) or _elem(type_of(s)) != ANY]
    if not types:
        return ANY
    unified = unify(types)
    if unified is None:
        raise _CallError("given sets must all have compatible element types")
    return unified


def _as_sets(args: list[Value]) -> list[SetValue]:
    element = _set_element_type(args)
    out: list[SetValue] = []
    for index, arg in enumerate(args):
        try:
            converted = convert(arg, Type("set", element))
        except ConversionError as exc:
            raise _ArgError(index, str(exc)) from None
        assert isinstance(converted, SetValue)
        out.append(converted)
    return out


def _member(value: Value, items: Sequence[Value]) -> bool:
    return any(cty_equal(value, item) for item in items)


def _setunion(args: list[Value]) -> Value:
    sets = _as_sets(args)
    return make_set([v for s in sets for v in s])


def _setintersection(args: list[Value]) -> Value:
    sets = _as_sets(args)
    return make_set([v for v in sets[0] if all(_member(v, s) for s in sets[1:])])


def _setsubtract(args: list[Value]) -> Value:
    first, second = _as_sets(args)
    return make_set([v for v in first if not _member(v, second)])


def _setsymmetricdifference(args: list[Value]) -> Value:
    sets = _as_sets(args)
    result: list[Value] = list(sets[0])
    for other in sets[1:]:
        result = [v for v in result if not _member(v, other)] + [
            v for v in other if not _member(v, result)
        ]
    return make_set(result)


def _sethaselement(args: list[Value]) -> Value:
    items, elem = _seq(args[0]), args[1]
    return _member(elem, items)


def _setproduct(args: list[Value]) -> Value:
    if len(args) < 2:
        raise _CallError("at least two arguments are required")
    element_types: list[Type] = []
    all_lists = True
    for index, arg in enumerate(args):
        ty = type_of(arg)
        if ty.name in ("set", "list"):
            element_types.append(_elem(ty))
            all_lists = all_lists and ty.name == "list"
        elif ty.name == "tuple":
            unified = unify(ty.elements) if ty.elements else ANY
            if unified is None:
                raise _ArgError(index, "all elements must be of the same type")
            element_types.append(unified)
        else:
            raise _ArgError(index, "a set or a list is required")
    columns = [[convert(v, t) for v in _seq(a)] for a, t in zip(args, element_types, strict=True)]
    rows: list[Value] = [[]]
    for column in columns:
        rows = [[*_seq(row), value] for row in rows for value in column]
    if all_lists:
        return ListValue(rows)
    return make_set(rows)


# --------------------------------------------------------------------------------------------
# number functions
# --------------------------------------------------------------------------------------------


def _binary_op(op: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return arithmetic(op, _num(args[0]), _num(args[1]))

    return impl


def _absolute(args: list[Value]) -> Value:
    return abs(_num(args[0]))


def _negate(args: list[Value]) -> Value:
    return _num(args[0]).copy_negate()  # keeps the sign of zero, as big.Float does


def _signum(args: list[Value]) -> Value:
    value = _num(args[0])
    return Decimal((value > 0) - (value < 0))


def _rounded(value: Decimal, rounding: str) -> Decimal:
    if not value.is_finite():
        return value
    whole = value.to_integral_value(rounding=rounding)
    return whole if whole != 0 else Decimal(0)


def _ceil(args: list[Value]) -> Value:
    return _rounded(_num(args[0]), ROUND_CEILING)


def _floor(args: list[Value]) -> Value:
    return _rounded(_num(args[0]), ROUND_FLOOR)


def _int(args: list[Value]) -> Value:
    value = _num(args[0])
    if value.is_infinite():
        raise _CallError("can't truncate infinity to an integer")
    return _rounded(value, ROUND_DOWN)


def _extreme(args: list[Value], biggest: bool) -> Value:
    if not args:
        raise _CallError("must pass at least one number")
    best = _num(args[0])
    for arg in args[1:]:
        value = _num(arg)
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
        raise _CallError("panic in function implementation: Float.SetFloat64(NaN)")
    if math.isinf(value):
        return Decimal("Infinity") if value > 0 else Decimal("-Infinity")
    return Decimal(repr(value))


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


def _go_log(x: float) -> float:
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


def _go_div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        negative = (a < 0) != (math.copysign(1, b) < 0)
        return -math.inf if negative else math.inf
    return a / b


def _log(args: list[Value]) -> Value:
    number, base = float(_num(args[0])), float(_num(args[1]))
    return _float_number(_go_div(_go_log(number), _go_log(base)))


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
            return _go_pow(1 / x, -y)
        return 0.0 if y < 0 else math.inf
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    return None


def _go_pow(x: float, y: float) -> float:
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
        a1 = math.exp(yf * _go_log(x))
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


def _pow(args: list[Value]) -> Value:
    return _float_number(_go_pow(float(_num(args[0])), float(_num(args[1]))))


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
        raise _ArgError(0, f"first argument must be a string, not {_kind_name(text)}")
    base = _int_arg(args[1], 1)
    if not 2 <= base <= 62:
        raise _ArgError(1, "base must be a whole number between 2 and 62 inclusive")
    number = _parse_go_int(text, base)
    if number is None:
        raise _ArgError(0, f"cannot parse {go_quote(text)} as a base {base} integer")
    return Decimal(number)


def _compare(op: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        a, b = _num(args[0]), _num(args[1])
        return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]

    return impl


def _and(args: list[Value]) -> Value:
    return bool(args[0]) and bool(args[1])


def _or(args: list[Value]) -> Value:
    return bool(args[0]) or bool(args[1])


def _not(args: list[Value]) -> Value:
    return not args[0]


def _equal(args: list[Value]) -> Value:
    return cty_equal(args[0], args[1])


def _notequal(args: list[Value]) -> Value:
    return not cty_equal(args[0], args[1])


# --------------------------------------------------------------------------------------------
# encodings, hashes, identifiers
# --------------------------------------------------------------------------------------------


def _check_finite(value: Value) -> None:
    if isinstance(value, Decimal) and value.is_infinite():
        raise _CallError("cannot serialize infinity as JSON")
    if isinstance(value, list):
        for item in value:
            _check_finite(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_finite(item)


def _json_text(value: Value) -> str:
    _check_finite(value)
    return to_json(value)


def _jsonencode(args: list[Value]) -> Value:
    return _json_text(args[0])


def _reject_constant(name: str) -> Value:
    raise ValueError(f"invalid character {_go_quote_rune(name[0])} looking for beginning of value")


def _jsondecode(args: list[Value]) -> Value:
    text = _str(args[0])
    try:
        data = json.loads(
            text, parse_float=Decimal, parse_int=Decimal, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as exc:
        raise _CallError(_json_error(exc)) from None
    return _from_decoded(data)


_JSON_CONTEXTS = {
    "Expecting ':' delimiter": "after object key",
    "Expecting property name enclosed in double quotes": (
        "looking for beginning of object key string"
    ),
    "Expecting value": "looking for beginning of value",
    "Invalid control character at": "in string literal",
}


def _json_error(exc: json.JSONDecodeError) -> str:
    """Go's encoding/json wording for a decoding error Python's json module reported."""
    if exc.msg == "Extra data":
        return "extraneous data after JSON object"
    doc, pos = exc.doc, exc.pos
    if exc.msg.startswith("Unterminated string"):
        return "unexpected EOF"
    if pos >= len(doc) or not doc[pos:].strip(" \t\r\n"):
        return "EOF"
    rest = doc[pos:]
    if exc.msg == "Expecting value" and any(
        word.startswith(rest) for word in ("null", "true", "false")
    ):
        return "unexpected EOF"
    char = _go_quote_rune(rest[0])
    if exc.msg == "Expecting ',' delimiter":
        inside = _json_container(doc[:pos])
        where = "after object key:value pair" if inside == "{" else "after array element"
        return f"invalid character {char} {where}"
    if exc.msg.startswith("Invalid \\escape"):
        return f"invalid character {_go_quote_rune(rest[1:2] or rest[0])} in string escape code"
    return (
        f"invalid character {char} {_JSON_CONTEXTS.get(exc.msg, 'looking for beginning of value')}"
    )


def _json_container(prefix: str) -> str:
    """The innermost open bracket of a JSON prefix (outside strings)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _from_decoded(data: object) -> Value:
    if data is None or isinstance(data, bool | str | Decimal):
        return data
    if isinstance(data, list):
        return [_from_decoded(v) for v in data]
    if isinstance(data, dict):
        return {str(k): _from_decoded(v) for k, v in data.items()}
    raise _CallError(f"unsupported JSON value {data!r}")


def _csv_records(text: str) -> Iterator[tuple[int, list[str]]]:
    """Go's encoding/csv reader (comma ``,``, strict quotes): (line number, fields)."""
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        line_number = index + 1
        line = lines[index]
        index += 1
        if line in ("\n", "\r\n", "\r"):
            continue
        fields: list[str] = []
        rest = _strip_newline(line)
        while True:
            if not rest.startswith('"'):
                cut = rest.find(",")
                field = rest if cut < 0 else rest[:cut]
                if '"' in field:
                    raise _CallError(
                        f'CSV parse error on line {line_number}: bare " in non-quoted-field'
                    )
                fields.append(field)
                if cut < 0:
                    break
                rest = rest[cut + 1 :]
                continue
            field, rest, index, done = _csv_quoted(rest[1:], lines, index, line_number)
            fields.append(field)
            if done:
                break
        yield line_number, fields


def _strip_newline(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line.rstrip("\n").rstrip("\r") if line.endswith(("\n", "\r")) else line


def _csv_quoted(
    rest: str, lines: list[str], index: int, line_number: int
) -> tuple[str, str, int, bool]:
    """A quoted field: (field, what follows it, next line index, record ended)."""
    parts: list[str] = []
    while True:
        quote = rest.find('"')
        if quote >= 0:
            parts.append(rest[:quote])
            rest = rest[quote + 1 :]
            if rest.startswith('"'):
                parts.append('"')
                rest = rest[1:]
            elif rest.startswith(","):
                return "".join(parts), rest[1:], index, False
            elif rest == "":
                return "".join(parts), "", index, True
            else:
                raise _CallError(
                    f'CSV parse error on line {line_number}: extraneous or missing " in '
                    "quoted-field"
                )
        elif index < len(lines):
            parts.append(rest + "\n")
            rest = _strip_newline(lines[index])
            index += 1
        else:
            raise _CallError(
                f'CSV parse error on line {line_number}: extraneous or missing " in quoted-field'
            )


def _csvdecode(args: list[Value]) -> Value:
    records = _csv_records(_str(args[0]))
    try:
        _, headers = next(records)
    except StopIteration:
        raise _CallError("missing header line") from None
    seen: set[str] = set()
    for name in headers:
        if name in seen:
            raise _CallError(f"duplicate column name {go_quote(name)}")
        seen.add(name)
    rows: list[Value] = []
    for line_number, fields in records:
        if len(fields) != len(headers):
            raise _CallError(f"CSV parse error on line {line_number}: wrong number of fields")
        row: dict[str, Value] = dict(zip(headers, fields, strict=True))
        rows.append(row)
    return ListValue(rows)


def _base64encode(args: list[Value]) -> Value:
    return base64.b64encode(_str(args[0]).encode()).decode()


def _base64decode(args: list[Value]) -> Value:
    text = _str(args[0])
    try:
        data = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        raise _CallError(f"failed to decode base64 data '{text}'") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _CallError(
            "the result of decoding the the provided string is not valid UTF-8"
        ) from None


def _urlencode(args: list[Value]) -> Value:
    return urllib.parse.quote_plus(_str(args[0]), safe="")


def _digest(algorithm: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return hashlib.new(algorithm, _str(args[0]).encode()).hexdigest()

    return impl


def _uuidv4(args: list[Value]) -> Value:
    return str(uuid.uuid4())


_UUID_NAMESPACES = {
    "dns": uuid.NAMESPACE_DNS,
    "url": uuid.NAMESPACE_URL,
    "oid": uuid.NAMESPACE_OID,
    "x500": uuid.NAMESPACE_X500,
}


def _uuidv5(args: list[Value]) -> Value:
    namespace, name = _str(args[0]), _str(args[1])
    space = _UUID_NAMESPACES.get(namespace)
    if space is None:
        try:
            space = uuid.UUID(namespace)
        except ValueError:
            reason = (
                f"invalid UUID length: {len(namespace)}"
                if len(namespace) not in (32, 36, 38, 45)
                else "invalid UUID format"
            )
            raise _CallError(f"uuidv5() doesn't support namespace {namespace} ({reason})") from None
    return str(uuid.uuid5(space, name))


def _bytes_required(args: list[Value]) -> Value:
    raise _ArgError(0, "bytes required")


# --------------------------------------------------------------------------------------------
# date and time
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Time:
    """An instant: seconds since the epoch (UTC), nanoseconds, and the zone offset."""

    seconds: int
    nanos: int
    offset: int

    def local(self) -> tuple[int, int, int, int, int, int, int]:
        """(year, month, day, hour, minute, second, weekday with Sunday 0) in its zone."""
        total = self.seconds + self.offset
        days, rest = divmod(total, 86400)
        year, month, day = _civil(days)
        return year, month, day, rest // 3600, rest % 3600 // 60, rest % 60, (days + 4) % 7


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


class _TimeParseError(Exception):
    def __init__(self, layout_elem: str, value_elem: str, message: str = "") -> None:
        super().__init__(message)
        self.layout_elem = layout_elem
        self.value_elem = value_elem
        self.message = message


_LAYOUT_WHAT = {
    "2006": "year",
    "01": "month",
    "02": "day of month",
    "15": "hour",
    "04": "minute",
    "05": "second",
    "Z07:00": "UTC offset",
}


def _getnum(value: str, fixed: bool) -> tuple[int, str] | None:
    if not value[:1].isdigit() or not value[:1].isascii():
        return None
    if not (value[1:2].isdigit() and value[1:2].isascii()):
        if fixed:
            return None
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def _skip(value: str, literal: str) -> str:
    if not value.startswith(literal):
        raise _TimeParseError(literal, value)
    return value[len(literal) :]


def _parse_number_elem(value: str, elem: str, fixed: bool, limit: int) -> tuple[int, str]:
    found = _getnum(value, fixed)
    if found is None:
        raise _TimeParseError(elem, value)
    number, rest = found
    if limit and not 0 <= number < limit:
        raise _TimeParseError(elem, rest, "out of range")
    return number, rest


def _go_parse_rfc3339(value: str) -> _Time:
    """Go's time.Parse(time.RFC3339, value), with its ParseError elements on failure."""
    if len(value) < 4 or not value[:4].isdigit() or not value[:4].isascii():
        raise _TimeParseError("2006", value)
    year, rest = int(value[:4]), value[4:]
    rest = _skip(rest, "-")
    month, rest = _parse_number_elem(rest, "01", True, 13)
    if month == 0:
        raise _TimeParseError("01", rest, "out of range")
    rest = _skip(rest, "-")
    day, rest = _parse_number_elem(rest, "02", True, 0)
    rest = _skip(rest, "T")
    hour, rest = _parse_number_elem(rest, "15", False, 24)
    rest = _skip(rest, ":")
    minute, rest = _parse_number_elem(rest, "04", True, 60)
    rest = _skip(rest, ":")
    second, rest = _parse_number_elem(rest, "05", True, 60)
    nanos = 0
    frac = re.match(r"[.,]([0-9]+)", rest)
    if frac:
        digits = frac.group(1)[:9]
        nanos = int(digits.ljust(9, "0"))
        rest = rest[frac.end() :]
    offset, rest = _parse_zone(rest)
    if rest:
        raise _TimeParseError("", rest, "extra text")
    if day < 1 or day > _days_in(month, year):
        raise _TimeParseError("", "", ": day out of range")
    days = _days_from_civil(year, month, day)
    seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
    return _Time(seconds, nanos, offset)


def _parse_zone(value: str) -> tuple[int, str]:
    if value.startswith("Z"):
        return 0, value[1:]
    if len(value) < 6 or value[3] != ":" or value[0] not in "+-":
        raise _TimeParseError("Z07:00", value)
    hours, minutes = _getnum(value[1:3], True), _getnum(value[4:6], True)
    if hours is None or minutes is None:
        raise _TimeParseError("Z07:00", value)
    rest = value[6:]
    if hours[0] > 24 or minutes[0] > 60:
        raise _TimeParseError("Z07:00", rest, "out of range")
    offset = hours[0] * 3600 + minutes[0] * 60
    return (-offset if value[0] == "-" else offset), rest


def _parse_timestamp(text: str) -> _Time:
    """cty's parseTimestamp: RFC 3339, with cty's wording of Go's errors."""
    try:
        return _go_parse_rfc3339(text)
    except _TimeParseError as err:
        raise ConversionError(_timestamp_error(err)) from None


def _timestamp_error(err: _TimeParseError) -> str:
    prefix = "not a valid RFC3339 timestamp"
    if err.layout_elem == "" and err.value_elem == "" and err.message:
        return prefix + err.message
    if err.layout_elem == "T":
        return f"{prefix}: missing required time introducer 'T'"
    if err.layout_elem in (":", "-"):
        if err.value_elem == "":
            return f"{prefix}: end of string where {go_quote(err.layout_elem)} is expected"
        return (
            f"{prefix}: found {go_quote(err.value_elem)} where {go_quote(err.layout_elem)} "
            "is expected"
        )
    what = _LAYOUT_WHAT.get(err.layout_elem, "timestamp segment")
    if err.value_elem == "":
        return f"{prefix}: end of string before {what}"
    return f"{prefix}: cannot use {go_quote(err.value_elem)} as {what}"


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def _zone_text(offset: int, colon: bool, utc_name: str | None) -> str:
    if offset == 0 and utc_name is not None:
        return utc_name
    sign = "-" if offset < 0 else "+"
    hours, minutes = divmod(abs(offset) // 60, 60)
    return f"{sign}{hours:02d}{':' if colon else ''}{minutes:02d}"


def _date_tokens(fmt: str) -> Iterator[str]:
    """cty's splitDateFormat."""
    pos = 0
    while pos < len(fmt):
        char = fmt[pos]
        if char == "'":
            if fmt.startswith("''", pos):
                yield "''"
                pos += 2
                continue
            end = pos + 1
            while end < len(fmt):
                if fmt[end] == "'":
                    if fmt.startswith("''", end):
                        end += 2
                        continue
                    break
                end += 1
            yield fmt[pos : end + 1]
            pos = end + 1
        elif char.isascii() and char.isalpha():
            end = pos
            while end < len(fmt) and fmt[end] == char:
                end += 1
            yield fmt[pos:end]
            pos = end
        else:
            end = pos + 1
            while (
                end < len(fmt)
                and fmt[end] != "'"
                and not (fmt[end].isascii() and fmt[end].isalpha())
            ):
                end += 1
            yield fmt[pos:end]
            pos = end


_DATE_VERB_ERRORS = {
    "Y": 'year must either be "YY" or "YYYY"',
    "M": 'month must be "M", "MM", "MMM", or "MMMM"',
    "D": 'day of month must either be "D" or "DD"',
    "E": 'day of week must either be "EEE" or "EEEE"',
    "h": '24-hour must either be "h" or "hh"',
    "H": '12-hour must either be "H" or "HH"',
    "m": 'minute must either be "m" or "mm"',
    "s": 'second must either be "s" or "ss"',
    "Z": "timezone must be Z, ZZZZ, or ZZZZZ",
}


def _date_verb(token: str, moment: _Time) -> str | None:
    year, month, day, hour, minute, second, weekday = moment.local()
    twelve = hour % 12 or 12
    size = len(token)
    table: dict[str, dict[int, str]] = {
        "Y": {2: f"{year % 100:02d}", 4: f"{year:04d}"},
        "M": {1: str(month), 2: f"{month:02d}", 3: _MONTHS[month - 1][:3], 4: _MONTHS[month - 1]},
        "D": {1: str(day), 2: f"{day:02d}"},
        "E": {3: _WEEKDAYS[weekday][:3], 4: _WEEKDAYS[weekday]},
        "h": {1: str(hour), 2: f"{hour:02d}"},
        "H": {1: str(twelve), 2: f"{twelve:02d}"},
        "A": {2: "AM" if hour < 12 else "PM"},
        "a": {2: "am" if hour < 12 else "pm"},
        "m": {1: str(minute), 2: f"{minute:02d}"},
        "s": {1: str(second), 2: f"{second:02d}"},
        "Z": {
            1: _zone_text(moment.offset, True, "Z"),
            3: _zone_text(moment.offset, False, "UTC"),
            4: _zone_text(moment.offset, False, None),
            5: _zone_text(moment.offset, True, None),
        },
    }
    return table.get(token[0], {}).get(size)


def _formatdate(args: list[Value]) -> Value:
    fmt, text = _str(args[0]), _str(args[1])
    try:
        moment = _parse_timestamp(text)
    except ConversionError as exc:
        raise _ArgError(1, str(exc)) from None
    out: list[str] = []
    for token in _date_tokens(fmt):
        if token.startswith("'"):
            if len(token) == 1 or not token.endswith("'"):
                raise _ArgError(0, "unterminated literal '")
            out.append("'" if token == "''" else token[1:-1].replace("''", "'"))
        elif token[0].isascii() and token[0].isalpha():
            out.append(_date_verb_or_error(token, moment))
        else:
            out.append(token)
    return "".join(out)


def _date_verb_or_error(token: str, moment: _Time) -> str:
    text = _date_verb(token, moment)
    if text is not None:
        return text
    letter = token[0]
    if letter in "Aa":
        raise _ArgError(
            0, f'invalid date format verb {go_quote(token)}: must be "{letter}{letter}"'
        )
    reason = _DATE_VERB_ERRORS.get(letter)
    if reason is None:
        raise _ArgError(0, f"invalid date format verb {go_quote(token)}")
    raise _ArgError(0, f"invalid date format verb {go_quote(token)}: {reason}")


_DURATION_UNITS = {
    "ns": 1,
    "us": 1000,
    "\u00b5s": 1000,
    "\u03bcs": 1000,
    "ms": 1000_000,
    "s": 1000_000_000,
    "m": 60 * 1000_000_000,
    "h": 3600 * 1000_000_000,
}


def _go_parse_duration(text: str) -> int:
    """Go's time.ParseDuration, in nanoseconds."""
    invalid = _CallError(f"time: invalid duration {go_quote(text)}")
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if rest == "":
        raise invalid
    total = 0
    while rest:
        match = re.match(r"(\d*)(?:\.(\d*))?", rest)
        assert match is not None
        whole, frac = match.group(1), match.group(2)
        if not whole and not frac:
            raise invalid
        rest = rest[match.end() :]
        unit_match = re.match(r"[^0-9.]+", rest)
        if unit_match is None:
            raise _CallError(f"time: missing unit in duration {go_quote(text)}")
        unit = unit_match.group(0)
        rest = rest[unit_match.end() :]
        if unit not in _DURATION_UNITS:
            raise _CallError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(text)}")
        scale = _DURATION_UNITS[unit]
        value = int(whole or "0") * scale
        if frac:
            value += int(float(int(frac)) * (float(scale) / 10 ** len(frac)))
        total += value
        if total > 1 << 63:
            raise invalid
    if not negative and total > _INT64_MAX:
        raise invalid
    return -total if negative else total


def _rfc3339(moment: _Time) -> str:
    year, month, day, hour, minute, second, _ = moment.local()
    zone = _zone_text(moment.offset, True, "Z")
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{zone}"


def _timeadd(args: list[Value]) -> Value:
    try:
        moment = _parse_timestamp(_str(args[0]))
    except ConversionError as exc:
        raise _CallError(str(exc)) from None
    nanos = moment.seconds * 1_000_000_000 + moment.nanos + _go_parse_duration(_str(args[1]))
    seconds, rest = divmod(nanos, 1_000_000_000)
    return _rfc3339(_Time(seconds, rest, moment.offset))


def _timestamp(args: list[Value]) -> Value:
    return _rfc3339(_Time(int(time.time()), 0, 0))


# --------------------------------------------------------------------------------------------
# CIDR (hashicorp/go-cty-funcs/cidr over apparentlymart/go-cidr)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Network:
    address: int
    prefix: int
    bits: int

    def text(self, address: int) -> str:
        if self.bits == 32:
            return str(ipaddress.IPv4Address(address))
        return str(ipaddress.IPv6Address(address))


def _parse_cidr(text: str) -> _Network:
    try:
        if "/" not in text:
            raise ValueError
        address_text, prefix_text = text.split("/", 1)
        if not (prefix_text.isascii() and prefix_text.isdigit()) or "%" in address_text:
            raise ValueError
        address = ipaddress.ip_address(address_text)
        bits = 32 if address.version == 4 else 128
        prefix = int(prefix_text)
        if prefix > bits:
            raise ValueError
    except ValueError:
        raise _CallError(f"invalid CIDR expression: invalid CIDR address: {text}") from None
    host_bits = bits - prefix
    masked = (int(address) >> host_bits) << host_bits
    return _Network(masked, prefix, bits)


def _insert(network: _Network, number: int, prefix: int) -> int:
    """go-cidr insertNumIntoIP (with big.Int's two's-complement Or and Bytes)."""
    value = (number << (network.bits - prefix)) | network.address
    return abs(value) & ((1 << network.bits) - 1)


def _cidrhost(args: list[Value]) -> Value:
    hostnum = _int_arg(args[1])
    network = _parse_cidr(_str(args[0]))
    host_bits = network.bits - network.prefix
    max_host = (1 << host_bits) - 1
    magnitude = abs(hostnum) & ((1 << 64) - 1)
    number = hostnum
    if hostnum < 0:
        magnitude = -hostnum - 1
        number = max_host - magnitude
    if magnitude > max_host:
        raise _CallError(
            f"prefix of {network.prefix} does not accommodate a host numbered {number}"
        )
    return network.text(_insert(network, number, network.bits))


def _cidrnetmask(args: list[Value]) -> Value:
    network = _parse_cidr(_str(args[0]))
    mask = ((1 << network.prefix) - 1) << (network.bits - network.prefix)
    return network.text(mask)


def _cidrsubnet(args: list[Value]) -> Value:
    newbits, netnum = _int_arg(args[1]), _int_arg(args[2])
    network = _parse_cidr(_str(args[0]))
    if newbits > 32:
        raise _CallError("may not extend prefix by more than 32 bits")
    prefix = network.prefix + newbits
    if prefix > network.bits:
        raise _CallError(
            f"insufficient address space to extend prefix of {network.prefix} by {newbits}"
        )
    if (abs(netnum) & ((1 << 64) - 1)) > (1 << newbits) - 1:
        raise _CallError(
            f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}"
        )
    return f"{network.text(_insert(network, netnum, prefix))}/{prefix}"


def _cidrsubnets(args: list[Value]) -> Value:
    network = _parse_cidr(_str(args[0]))
    lengths = args[1:]
    if not lengths:
        return ListValue([])
    full = (1 << network.bits) - 1
    first = min(_int_arg(lengths[0], 1) + network.prefix, network.bits)

    def mask(prefix: int) -> int:
        return full ^ ((1 << (network.bits - prefix)) - 1) if prefix else 0

    current_addr = ((network.address - 1) & full) & mask(first)
    current_prefix = first
    out: list[Value] = []
    for index, arg in enumerate(lengths, start=1):
        length = _int_arg(arg, index)
        if length < 1:
            raise _ArgError(index, "must extend prefix by at least one bit")
        if length > 32:
            raise _ArgError(index, "may not extend prefix by more than 32 bits")
        length += network.prefix
        if length > network.bits:
            family = "IPv4" if network.bits == 32 else "IPv6"
            raise _ArgError(
                index,
                f"would extend prefix to {length} bits, which is too long for an {family} address",
            )
        last = current_addr | (full ^ mask(current_prefix))
        subnet = last & mask(length)
        next_addr = ((subnet | (full ^ mask(length))) + 1) & full
        next_addr &= mask(length)
        outside = (next_addr & mask(network.prefix)) != network.address
        if next_addr == 0 or outside:
            raise _ArgError(
                index,
                f"not enough remaining address space for a subnet with a prefix of {length} "
                f"bits after {network.text(current_addr)}/{current_prefix}",
            )
        current_addr, current_prefix = next_addr, length
        out.append(f"{network.text(current_addr)}/{current_prefix}")
    return ListValue(out)


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------


def _p(name: str, ty: Type = ANY, allow_null: bool = False) -> _Param:
    return _Param(name, ty, allow_null)


_S, _N, _B = STRING, NUMBER, BOOL


def _string_fn(name: str, impl: Callable[[list[Value]], Value], param: str = "str") -> Function:
    return _define(name, [_p(param, _S)], impl)


def _registry() -> dict[str, Function]:
    d = _define
    two_numbers = [_p("a", _N), _p("b", _N)]
    sets_var = _p("other_sets", SET_ANY)
    table: dict[str, Function] = {
        "absolute": d("absolute", [_p("num", _N)], _absolute),
        "add": d("add", two_numbers, _binary_op("+")),
        "and": d("and", [_p("a", _B), _p("b", _B)], _and),
        "base64decode": _string_fn("base64decode", _base64decode),
        "base64encode": _string_fn("base64encode", _base64encode),
        "basename": _string_fn("basename", _basename, "path"),
        "byteslen": d("byteslen", [_p("buf")], _bytes_required),
        "bytesslice": d(
            "bytesslice", [_p("buf"), _p("offset", _N), _p("length", _N)], _bytes_required
        ),
        "ceil": d("ceil", [_p("num", _N)], _ceil),
        "chomp": _string_fn("chomp", _chomp),
        "chunklist": d("chunklist", [_p("list", LIST_ANY), _p("size", _N)], _chunklist),
        "cidrhost": d("cidrhost", [_p("prefix", _S), _p("hostnum", _N)], _cidrhost),
        "cidrnetmask": d("cidrnetmask", [_p("prefix", _S)], _cidrnetmask),
        "cidrsubnet": d(
            "cidrsubnet", [_p("prefix", _S), _p("newbits", _N), _p("netnum", _N)], _cidrsubnet
        ),
        "cidrsubnets": d("cidrsubnets", [_p("prefix", _S)], _cidrsubnets, _p("newbits", _N)),
        "coalesce": d("coalesce", [], _coalesce, _p("vals", allow_null=True)),
        "coalescelist": d("coalescelist", [], _coalescelist, _p("vals", allow_null=True)),
        "compact": d("compact", [_p("list", LIST_STRING)], _compact),
        "concat": d("concat", [], _concat, _p("seqs")),
        "contains": d("contains", [_p("list"), _p("value")], _contains),
        "csvdecode": _string_fn("csvdecode", _csvdecode),
        "dirname": _string_fn("dirname", _dirname, "path"),
        "distinct": d("distinct", [_p("list", LIST_ANY)], _distinct),
        "divide": d("divide", two_numbers, _binary_op("/")),
        "element": d("element", [_p("list"), _p("index", _N)], _element),
        "equal": d("equal", [_p("a", allow_null=True), _p("b", allow_null=True)], _equal),
        "flatten": d("flatten", [_p("list")], _flatten),
        "floor": d("floor", [_p("num", _N)], _floor),
        "format": d("format", [_p("format", _S)], _format, _p("args", allow_null=True)),
        "formatdate": d("formatdate", [_p("format", _S), _p("time", _S)], _formatdate),
        "formatlist": d("formatlist", [_p("format", _S)], _formatlist, _p("args", allow_null=True)),
        "greaterthan": d("greaterthan", two_numbers, _compare(">")),
        "greaterthanorequalto": d("greaterthanorequalto", two_numbers, _compare(">=")),
        "hasindex": d("hasindex", [_p("collection"), _p("key")], _hasindex),
        "indent": d("indent", [_p("spaces", _N), _p("str", _S)], _indent),
        "index": d("index", [_p("collection"), _p("key")], _index),
        "indexof": d("indexof", [_p("list"), _p("value")], _indexof),
        "int": d("int", [_p("num", _N)], _int),
        "join": d("join", [_p("separator", _S)], _join, _p("lists", LIST_STRING)),
        "jsondecode": _string_fn("jsondecode", _jsondecode),
        "jsonencode": d("jsonencode", [_p("val", allow_null=True)], _jsonencode),
        "keys": d("keys", [_p("inputMap")], _keys),
        "length": d("length", [_p("collection")], _length),
        "lessthan": d("lessthan", two_numbers, _compare("<")),
        "lessthanorequalto": d("lessthanorequalto", two_numbers, _compare("<=")),
        "log": d("log", [_p("num", _N), _p("base", _N)], _log),
        "lookup": d("lookup", [_p("inputMap"), _p("key", _S), _p("default")], _lookup),
        "lower": _string_fn("lower", _lower),
        "max": d("max", [], _max, _p("numbers", _N)),
        "md5": _string_fn("md5", _digest("md5")),
        "merge": d("merge", [], _merge, _p("maps", allow_null=True)),
        "min": d("min", [], _min, _p("numbers", _N)),
        "modulo": d("modulo", two_numbers, _binary_op("%")),
        "multiply": d("multiply", two_numbers, _binary_op("*")),
        "negate": d("negate", [_p("num", _N)], _negate),
        "not": d("not", [_p("val", _B)], _not),
        "notequal": d("notequal", [_p("a", allow_null=True), _p("b", allow_null=True)], _notequal),
        "or": d("or", [_p("a", _B), _p("b", _B)], _or),
        "parseint": d("parseint", [_p("number"), _p("base", _N)], _parseint),
        "pow": d("pow", [_p("num", _N), _p("power", _N)], _pow),
        "range": d("range", [], _range, _p("params", _N)),
        "regex": d("regex", [_p("pattern", _S), _p("string", _S)], _regex),
        "regex_replace": d(
            "regex_replace", [_p("str", _S), _p("substr", _S), _p("replace", _S)], _regex_replace
        ),
        "regexall": d("regexall", [_p("pattern", _S), _p("string", _S)], _regexall),
        "replace": d("replace", [_p("str", _S), _p("substr", _S), _p("replace", _S)], _replace),
        "reverse": _string_fn("reverse", _reverse),
        "reverselist": d("reverselist", [_p("list")], _reverselist),
        "sanitize": _string_fn("sanitize", _sanitize, "name"),
        "sethaselement": d("sethaselement", [_p("set", SET_ANY), _p("elem")], _sethaselement),
        "setintersection": d(
            "setintersection", [_p("first_set", SET_ANY)], _setintersection, sets_var
        ),
        "setproduct": d("setproduct", [], _setproduct, _p("sets")),
        "setsubtract": d("setsubtract", [_p("a", SET_ANY), _p("b", SET_ANY)], _setsubtract),
        "setsymmetricdifference": d(
            "setsymmetricdifference", [_p("first_set", SET_ANY)], _setsymmetricdifference, sets_var
        ),
        "setunion": d("setunion", [_p("first_set", SET_ANY)], _setunion, sets_var),
        "sha1": _string_fn("sha1", _digest("sha1")),
        "sha256": _string_fn("sha256", _digest("sha256")),
        "sha512": _string_fn("sha512", _digest("sha512")),
        "signum": d("signum", [_p("num", _N)], _signum),
        "slice": d("slice", [_p("list"), _p("start_index", _N), _p("end_index", _N)], _slice),
        "sort": d("sort", [_p("list", LIST_STRING)], _sort),
        "split": d("split", [_p("separator", _S), _p("str", _S)], _split),
        "strlen": _string_fn("strlen", _strlen),
        "substr": d("substr", [_p("str", _S), _p("offset", _N), _p("length", _N)], _substr),
        "subtract": d("subtract", two_numbers, _binary_op("-")),
        "timeadd": d("timeadd", [_p("timestamp", _S), _p("duration", _S)], _timeadd),
        "timestamp": d("timestamp", [], _timestamp),
        "title": _string_fn("title", _title),
        "trim": d("trim", [_p("str", _S), _p("cutset", _S)], _trim),
        "trimprefix": d("trimprefix", [_p("str", _S), _p("prefix", _S)], _trimprefix),
        "trimspace": _string_fn("trimspace", _trimspace),
        "trimsuffix": d("trimsuffix", [_p("str", _S), _p("suffix", _S)], _trimsuffix),
        "upper": _string_fn("upper", _upper),
        "urlencode": _string_fn("urlencode", _urlencode),
        "uuidv4": d("uuidv4", [], _uuidv4),
        "uuidv5": d("uuidv5", [_p("namespace", _S), _p("name", _S)], _uuidv5),
        "values": d("values", [_p("values")], _values),
        "zipmap": d("zipmap", [_p("keys", LIST_STRING), _p("values")], _zipmap),
    }
    return table


def _indexof(args: list[Value]) -> Value:
    seq, value = args
    if not isinstance(seq, list) or isinstance(seq, SetValue):
        raise _CallError("argument must be a list or tuple")
    if not seq:
        raise _CallError("cannot search an empty list")
    for position, item in enumerate(seq):
        if cty_equal(item, value):
            return Decimal(position)
    raise _CallError("item not found")


FUNCTIONS: Mapping[str, Function] = _registry()
