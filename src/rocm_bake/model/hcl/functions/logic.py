"""Boolean functions and equality: ``and``, ``or``, ``not``, ``equal``, ``notequal``."""

from __future__ import annotations

from rocm_bake.model.hcl.functions.params import Function, Param, define
from rocm_bake.model.hcl.types import BOOL, cty_equal
from rocm_bake.model.hcl.values import Value


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


_TWO_BOOLS = [Param("a", BOOL), Param("b", BOOL)]
_TWO_VALUES = [Param("a", allow_null=True), Param("b", allow_null=True)]

TABLE: dict[str, Function] = {
    "and": define("and", _TWO_BOOLS, _and),
    "equal": define("equal", _TWO_VALUES, _equal),
    "not": define("not", [Param("val", BOOL)], _not),
    "notequal": define("notequal", _TWO_VALUES, _notequal),
    "or": define("or", _TWO_BOOLS, _or),
}
