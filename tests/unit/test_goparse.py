"""Go's parsing rules for environment overrides, as observed from buildx 0.29.1."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rocm_bake.model.bake import goparse


@pytest.mark.parametrize(("text", "expected"), [
    ("1", True), ("t", True), ("TRUE", True), ("True", True), ("0", False), ("F", False),
    ("yes", None), ("tRuE", None), ("", None),
])
def test_parse_bool(text: str, expected: bool | None) -> None:
    assert goparse.parse_bool(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("7", Decimal(7)), (".5", Decimal("0.5")), ("5.", Decimal(5)), ("+5", Decimal(5)),
    ("1_000", Decimal(1000)), ("0x1p4", Decimal(16)), ("48.5", Decimal("48.5")),
    ("auto", None), ("0x10", None), ("1__0", None), ("_1", None), ("1_", None), (" 5", None),
    ("inf", None), ("NaN", None), ("1e400", None),
])
def test_parse_float(text: str, expected: Decimal | None) -> None:
    assert goparse.parse_float(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("a,b", ["a", "b"]), ('a,"b,c"', ["a", "b,c"]), ("1, 2", ["1", " 2"]), ("", None),
])
def test_parse_csv(text: str, expected: list[str] | None) -> None:
    assert goparse.parse_csv(text) == expected
