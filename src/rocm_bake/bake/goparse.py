"""Go's ``strconv.ParseBool`` / ``ParseFloat`` and ``encoding/csv`` rules, as buildx applies them
to environment overrides."""

from __future__ import annotations

import csv
import math
import re

from rocm_bake.hcl import values
from rocm_bake.hcl.values import Value

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
    """One CSV record, as Go's encoding/csv reads it; None if malformed (or empty: Go reads EOF)."""
    if text == "":
        return None
    try:
        rows = list(csv.reader([text], strict=True, delimiter=delimiter))
    except csv.Error:
        return None
    return rows[0] if rows else []
