"""Dates and times: ``formatdate``, ``timeadd`` and ``timestamp``, with Go's RFC 3339 parser
and duration syntax and cty's wording of their errors."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from rocm_bake.model.hcl.functions.params import (
    INT64_MAX,
    ArgError,
    CallError,
    Function,
    Param,
    as_str,
    define,
)
from rocm_bake.model.hcl.types import STRING
from rocm_bake.model.hcl.values import ConversionError, Value, go_quote


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
    fmt, text = as_str(args[0]), as_str(args[1])
    try:
        moment = _parse_timestamp(text)
    except ConversionError as exc:
        raise ArgError(1, str(exc)) from None
    out: list[str] = []
    for token in _date_tokens(fmt):
        if token.startswith("'"):
            if len(token) == 1 or not token.endswith("'"):
                raise ArgError(0, "unterminated literal '")
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
        raise ArgError(0, f'invalid date format verb {go_quote(token)}: must be "{letter}{letter}"')
    reason = _DATE_VERB_ERRORS.get(letter)
    if reason is None:
        raise ArgError(0, f"invalid date format verb {go_quote(token)}")
    raise ArgError(0, f"invalid date format verb {go_quote(token)}: {reason}")


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
    invalid = CallError(f"time: invalid duration {go_quote(text)}")
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
            raise CallError(f"time: missing unit in duration {go_quote(text)}")
        unit = unit_match.group(0)
        rest = rest[unit_match.end() :]
        if unit not in _DURATION_UNITS:
            raise CallError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(text)}")
        scale = _DURATION_UNITS[unit]
        value = int(whole or "0") * scale
        if frac:
            value += int(float(int(frac)) * (float(scale) / 10 ** len(frac)))
        total += value
        if total > 1 << 63:
            raise invalid
    if not negative and total > INT64_MAX:
        raise invalid
    return -total if negative else total


def _rfc3339(moment: _Time) -> str:
    year, month, day, hour, minute, second, _ = moment.local()
    zone = _zone_text(moment.offset, True, "Z")
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{zone}"


def _timeadd(args: list[Value]) -> Value:
    try:
        moment = _parse_timestamp(as_str(args[0]))
    except ConversionError as exc:
        raise CallError(str(exc)) from None
    nanos = moment.seconds * 1_000_000_000 + moment.nanos + _go_parse_duration(as_str(args[1]))
    seconds, rest = divmod(nanos, 1_000_000_000)
    return _rfc3339(_Time(seconds, rest, moment.offset))


def _timestamp(args: list[Value]) -> Value:
    return _rfc3339(_Time(int(time.time()), 0, 0))


TABLE: dict[str, Function] = {
    "formatdate": define(
        "formatdate", [Param("format", STRING), Param("time", STRING)], _formatdate
    ),
    "timeadd": define("timeadd", [Param("timestamp", STRING), Param("duration", STRING)], _timeadd),
    "timestamp": define("timestamp", [], _timestamp),
}
