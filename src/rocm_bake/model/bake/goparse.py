"""Go's ``strconv.ParseBool`` / ``ParseFloat`` and ``encoding/csv`` rules, as buildx applies them
to environment overrides."""

from __future__ import annotations

import math
import re

from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.values import Value

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}

_DIGITS = r"(?:\d(?:_?\d)*)"
_DECIMAL = rf"(?:{_DIGITS}\.?(?:{_DIGITS})?|\.{_DIGITS})(?:[eE][+-]?\d+)?"
_HEX = r"0[xX](?:_?[0-9a-fA-F])*\.?(?:[0-9a-fA-F]_?)*[pP][+-]?\d+"
_FLOAT = re.compile(rf"^[+-]?(?:{_DECIMAL}|{_HEX})$")
_SPECIAL = re.compile(r"^[+-]?(?:inf|infinity|nan)$", re.IGNORECASE)


def parse_bool(text: str) -> bool | None:
    """The bool Go reads from text, or None when Go would fail."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def parse_float(text: str) -> Value:
    """The number Go's ParseFloat reads (as a float64), or None when buildx would reject it."""
    if _SPECIAL.match(text):
        return None
    if not _FLOAT.match(text):
        return None
    try:
        number = float.fromhex(text.replace("_", "")) if "x" in text.lower() else float(text)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    return values.number(number)


def parse_csv(text: str, delimiter: str = ",") -> list[str] | None:
    """One CSV record, as Go's encoding/csv (buildx's csvvalue) reads it; None if malformed
    (a bare ``"`` in an unquoted field, text after a closing quote) or empty."""
    if text == "":
        return None
    fields: list[str] = []
    i = 0
    while True:
        if i < len(text) and text[i] == '"':
            value, i = _quoted(text, i + 1, delimiter)
            if value is None:
                return None
        else:
            end = text.find(delimiter, i)
            end = len(text) if end < 0 else end
            value = text[i:end]
            if '"' in value:
                return None
            i = end
        fields.append(value)
        if i >= len(text):
            return fields
        i += 1  # the delimiter


def _quoted(text: str, i: int, delimiter: str) -> tuple[str | None, int]:
    out = []
    while i < len(text):
        char = text[i]
        if char != '"':
            out.append(char)
            i += 1
        elif i + 1 < len(text) and text[i + 1] == '"':
            out.append('"')
            i += 2
        elif i + 1 == len(text) or text[i + 1] == delimiter:
            return "".join(out), i + 1
        else:
            return None, i
    return None, i
