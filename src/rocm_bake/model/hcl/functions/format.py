"""``format`` and ``formatlist``: cty's printf, its verbs, flags, widths and ``[n]`` indexes."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from rocm_bake.model.hcl.bigfloat import binary, go_text
from rocm_bake.model.hcl.functions.encoding import json_text
from rocm_bake.model.hcl.functions.graphemes import graphemes
from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_str,
    define,
)
from rocm_bake.model.hcl.types import STRING
from rocm_bake.model.hcl.values import (
    ConversionError,
    ListValue,
    Value,
    go_json_string,
    go_quote,
    go_quote_rune,
    to_bool,
    to_number,
    to_string,
)


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
        f"unrecognized format character {go_quote_rune(fmt[pos])} at offset "
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
            return "true" if to_bool(arg) else "false"
        if verb.mode in "bdoxX":
            return _format_integer(verb, to_number(arg))
        if verb.mode in "eEfgG":
            return _format_float(verb, to_number(arg))
        if verb.mode in "sq":
            return _format_string(verb, to_string(arg))
    except ConversionError as exc:
        raise _FormatError(
            f"unsupported value for {go_quote(verb.raw)} at {verb.offset}: {exc}"
        ) from None
    raise _FormatError(
        f"unsupported format verb {go_quote_rune(verb.mode)} in {go_quote(verb.raw)} "
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
        return _pad_width(verb, go_text(arg, "g", -1))
    try:
        return _pad_width(verb, json_text(arg))
    except CallError as exc:
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
    x = binary(value) if value.is_finite() else Fraction(1, 2)
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
    text = go_text(value, verb.mode, prec)
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
        return go_format(as_str(args[0]), args[1:])
    except _FormatError as exc:
        if exc.about_args:
            raise ArgError(1, str(exc)) from None
        raise CallError(str(exc)) from None


def _formatlist(args: list[Value]) -> Value:
    fmt, rest = as_str(args[0]), args[1:]
    if not rest:
        return ListValue([_format([fmt])])
    length, chooser = -1, -1
    for i, arg in enumerate(rest):
        if isinstance(arg, list):
            if length == -1:
                length, chooser = len(arg), i
            elif len(arg) != length:
                raise ArgError(
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
            raise CallError(f"error on format iteration {iteration}: {exc}") from None
    return ListValue(results)


_ARGS = Param("args", allow_null=True)

TABLE: dict[str, Function] = {
    "format": define("format", [Param("format", STRING)], _format, _ARGS),
    "formatlist": define("formatlist", [Param("format", STRING)], _formatlist, _ARGS),
}
