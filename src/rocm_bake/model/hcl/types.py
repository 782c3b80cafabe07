"""cty's types: the constraints of ``variable`` blocks (``type = list(string)``), the type of a
value, unification and conversion (``convert``, the one conversion of the model), equality and
the order of sets."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from rocm_bake.model.hcl import bigfloat
from rocm_bake.model.hcl.values import (
    ConversionError,
    ListValue,
    MapValue,
    SetValue,
    Value,
    go_json_string,
    go_quote,
    is_nil,
    to_bool,
    to_json,
    to_number,
    to_string,
)

PRIMITIVES = ("string", "number", "bool")


@dataclass(frozen=True)
class Type:
    """A cty type constraint.

    ``name`` is one of string, number, bool, any, list, set, map, tuple, object.
    Collections carry ``element``; tuples ``elements``; objects ``attributes``.
    """

    name: str
    element: Type | None = None
    elements: tuple[Type, ...] = ()
    attributes: tuple[tuple[str, Type], ...] = field(default=())

    def friendly_name(self, nested: bool = False) -> str:
        """The name buildx prints for a declared type (cty's FriendlyNameForConstraint)."""
        if self.name == "any":
            return "any single type" if nested else "any type"
        if self.element is not None:
            return f"{self.name} of {self.element.friendly_name(nested=True)}"
        return self.name

    @property
    def is_primitive(self) -> bool:
        return self.name in PRIMITIVES


STRING = Type("string")
NUMBER = Type("number")
BOOL = Type("bool")
ANY = Type("any")
LIST_ANY = Type("list", ANY)
LIST_STRING = Type("list", STRING)
SET_ANY = Type("set", ANY)


# -- the type of a value, unification, conversion ----------------------------------------------


def elem(ty: Type) -> Type:
    """The element type of a collection type (dynamic when it has none)."""
    return ty.element if ty.element is not None else ANY


def type_of(value: Value) -> Type:
    """The cty type of a value (null is dynamic; plain lists are tuples, dicts objects)."""
    if value is None or is_nil(value):
        return ANY
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, str):
        return STRING
    if isinstance(value, Decimal):
        return NUMBER
    if isinstance(value, SetValue):
        return Type("set", element_type(value))
    if isinstance(value, ListValue):
        return Type("list", element_type(value))
    if isinstance(value, list):
        return Type("tuple", elements=tuple(type_of(v) for v in value))
    if isinstance(value, MapValue):
        return Type("map", element_type(list(value.values())))
    attrs = tuple((k, type_of(value[k])) for k in sorted(value))
    return Type("object", attributes=attrs)


def element_type(items: Sequence[Value]) -> Type:
    types = [type_of(v) for v in items if v is not None and not is_nil(v)]
    if not types:
        return ANY
    return unify(types) or ANY


def friendly(ty: Type, nested: bool = False) -> str:
    """cty's FriendlyName."""
    if ty == ANY:
        return "any single type" if nested else "dynamic"
    if ty.name in ("list", "set", "map"):
        return f"{ty.name} of {friendly(elem(ty), nested=True)}"
    return ty.name


_RANK = {"string": 0, "set": 0, "list": 1, "map": 1, "number": 1, "bool": 1, "tuple": 2}


def _generality(ty: Type) -> tuple[int, ...]:
    """Sort key putting the most general type first (cty's sortTypes preference)."""
    rank = _RANK.get(ty.name, 2)
    if ty.name in ("list", "set", "map"):
        return (rank, *_generality(elem(ty)))
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
        if all(can_convert(t, want) for t in concrete):
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


def can_convert(src: Type, dst: Type) -> bool:
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
                can_convert(s, d) for s, d in zip(src.elements, dst.elements, strict=True)
            )
        return src.name in ("list", "set") and all(can_convert(elem(src), d) for d in dst.elements)
    if src.name == "object":
        have = dict(src.attributes)
        return all(k in have and can_convert(have[k], t) for k, t in dst.attributes)
    return src.name == "map" and all(can_convert(elem(src), t) for _, t in dst.attributes)


def _can_convert_to_collection(
    src: Type, dst: Type, collections: tuple[str, ...], structural: str
) -> bool:
    if src.name in collections:
        return can_convert(elem(src), elem(dst))
    if src.name != structural:
        return False
    members = list(src.elements) if structural == "tuple" else [t for _, t in src.attributes]
    if elem(dst) == ANY:
        return not members or unify(members) is not None
    return all(can_convert(t, elem(dst)) for t in members)


def convert(value: Value, to: Type) -> Value:
    """Convert a value to a type the way cty's convert.Convert does (null stays null)."""
    if value is None or to == ANY:
        return value
    if is_nil(value):
        raise ConversionError(f"{friendly(to)} required")
    if to.name == "string":
        return to_string(value)
    if to.name == "number":
        return to_number(value)
    if to.name == "bool":
        return to_bool(value)
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
        raise ConversionError(f"{friendly(to)} required")
    if any(is_nil(v) for v in value):  # a NilVal element has no type to unify
        raise ConversionError(f"{friendly(to)} required")
    element = elem(to)
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
            if elem(to) == ANY or str(exc).startswith("element "):
                raise
            raise ConversionError(f"element {index}: {exc}") from None
    if to.name == "set":
        return make_set(items)
    return ListValue(items)


def _convert_map(value: Value, to: Type) -> Value:
    if not isinstance(value, dict) or any(is_nil(v) for v in value.values()):
        raise ConversionError(f"{friendly(to)} required")
    element = elem(to)
    if element == ANY:
        types = [type_of(v) for v in value.values() if v is not None]
        if types:
            unified = unify(types)
            if unified is None:
                raise ConversionError("all map elements must have the same type")
            element = unified
    return MapValue({k: convert(v, element) for k, v in value.items()})


# -- equality and sets -------------------------------------------------------------------------


def cty_equal(a: Value, b: Value) -> bool:
    """cty's Value.Equals: equal types and equal content (a list never equals a tuple)."""
    a, b = (None if is_nil(a) else a), (None if is_nil(b) else b)
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
        return bigfloat.go_text(value, "g", 10)
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


# -- JSON as cty marshals a value of a declared type ------------------------------------------


def type_json(ty: Type) -> str:
    """cty's JSON spelling of a type: ``"string"``, ``["list","string"]``, ``["object",{...}]``."""
    if ty.name == "any":
        return '"dynamic"'
    if ty.name in PRIMITIVES:
        return f'"{ty.name}"'
    if ty.name in ("list", "set", "map"):
        return f'["{ty.name}",{type_json(elem(ty))}]'
    if ty.name == "tuple":
        return '["tuple",[' + ",".join(type_json(t) for t in ty.elements) + "]]"
    fields = ",".join(f"{go_json_string(k)}:{type_json(t)}" for k, t in sorted(ty.attributes))
    return '["object",{' + fields + "}]"


def typed_json(value: Value, ty: Type) -> str:
    """cty's JSON for a value of a declared type: where the type is ``any`` the value is
    wrapped with its own type, ``{"value":...,"type":...}``."""
    if value is None or is_nil(value):
        return "null"
    if ty.name == "any":
        actual = type_of(value)
        return f'{{"value":{typed_json(value, actual)},"type":{type_json(actual)}}}'
    if ty.name in ("list", "set") and isinstance(value, list):
        return "[" + ",".join(typed_json(v, elem(ty)) for v in value) + "]"
    if ty.name == "tuple" and isinstance(value, list):
        return "[" + ",".join(typed_json(v, t) for v, t in zip(value, ty.elements,
                                                                 strict=False)) + "]"
    if ty.name in ("map", "object") and isinstance(value, dict):
        attrs = dict(ty.attributes)
        return "{" + ",".join(
            f"{go_json_string(k)}:{typed_json(value[k], attrs.get(k, elem(ty)))}"
            for k in sorted(value)) + "}"
    return to_json(value)
