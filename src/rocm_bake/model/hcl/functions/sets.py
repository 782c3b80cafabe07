"""Set functions: ``setunion``, ``setintersection``, ``setsubtract``,
``setsymmetricdifference``, ``sethaselement`` and ``setproduct``."""

from __future__ import annotations

from collections.abc import Sequence

from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_seq,
    define,
)
from rocm_bake.model.hcl.types import (
    ANY,
    SET_ANY,
    Type,
    convert,
    cty_equal,
    elem,
    make_set,
    type_of,
    unify,
)
from rocm_bake.model.hcl.values import ConversionError, ListValue, SetValue, Value


def _set_element_type(sets: Sequence[Value]) -> Type:
    types = [elem(type_of(s)) for s in sets if as_seq(s) or elem(type_of(s)) != ANY]
    if not types:
        return ANY
    unified = unify(types)
    if unified is None:
        raise CallError("given sets must all have compatible element types")
    return unified


def _as_sets(args: list[Value]) -> list[SetValue]:
    element = _set_element_type(args)
    out: list[SetValue] = []
    for index, arg in enumerate(args):
        try:
            converted = convert(arg, Type("set", element))
        except ConversionError as exc:
            raise ArgError(index, str(exc)) from None
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
    items, elem = as_seq(args[0]), args[1]
    return _member(elem, items)


def _setproduct(args: list[Value]) -> Value:
    if len(args) < 2:
        raise CallError("at least two arguments are required")
    element_types: list[Type] = []
    all_lists = True
    for index, arg in enumerate(args):
        ty = type_of(arg)
        if ty.name in ("set", "list"):
            element_types.append(elem(ty))
            all_lists = all_lists and ty.name == "list"
        elif ty.name == "tuple":
            unified = unify(ty.elements) if ty.elements else ANY
            if unified is None:
                raise ArgError(index, "all elements must be of the same type")
            element_types.append(unified)
        else:
            raise ArgError(index, "a set or a list is required")
    columns = [[convert(v, t) for v in as_seq(a)] for a, t in zip(args, element_types, strict=True)]
    rows: list[Value] = [[]]
    for column in columns:
        rows = [[*as_seq(row), value] for row in rows for value in column]
    if all_lists:
        return ListValue(rows)
    return make_set(rows)


_OTHER_SETS = Param("other_sets", SET_ANY)

TABLE: dict[str, Function] = {
    "sethaselement": define(
        "sethaselement", [Param("set", SET_ANY), Param("elem")], _sethaselement
    ),
    "setintersection": define(
        "setintersection", [Param("first_set", SET_ANY)], _setintersection, _OTHER_SETS
    ),
    "setproduct": define("setproduct", [], _setproduct, Param("sets")),
    "setsubtract": define("setsubtract", [Param("a", SET_ANY), Param("b", SET_ANY)], _setsubtract),
    "setsymmetricdifference": define(
        "setsymmetricdifference",
        [Param("first_set", SET_ANY)],
        _setsymmetricdifference,
        _OTHER_SETS,
    ),
    "setunion": define("setunion", [Param("first_set", SET_ANY)], _setunion, _OTHER_SETS),
}
