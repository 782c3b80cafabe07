"""Type constraints of ``variable`` blocks (``type = list(string)``) and conversion to them."""

from __future__ import annotations

from dataclasses import dataclass, field

from rocm_bake.hcl.values import (
    ConversionError,
    Value,
    kind,
    to_bool,
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

    def friendly_name(self) -> str:
        """The name buildx prints in ``--list=variables`` (cty's FriendlyName)."""
        if self.name == "any":
            return "dynamic"
        if self.element is not None:
            return f"{self.name} of {self.element.friendly_name()}"
        return self.name

    @property
    def is_primitive(self) -> bool:
        return self.name in PRIMITIVES


STRING = Type("string")
NUMBER = Type("number")
BOOL = Type("bool")
ANY = Type("any")


def convert(value: Value, to: Type) -> Value:
    """Convert a value to a type as cty's ``convert.Convert`` does (null stays null)."""
    if value is None or to.name == "any":
        return value
    if to.name == "string":
        return to_string(value)
    if to.name == "number":
        return to_number(value)
    if to.name == "bool":
        return to_bool(value)
    if to.name in ("list", "set"):
        return _convert_sequence(value, to)
    if to.name == "tuple":
        return _convert_tuple(value, to)
    if to.name == "map":
        return _convert_map(value, to)
    return _convert_object(value, to)


def _convert_sequence(value: Value, to: Type) -> Value:
    if not isinstance(value, list):
        raise ConversionError(f"{to.friendly_name()} required, not {kind(value)}")
    assert to.element is not None
    out = [convert(v, to.element) for v in value]
    if to.name == "set":
        unique: list[Value] = []
        for item in out:
            if item not in unique:
                unique.append(item)
        return unique
    return out


def _convert_tuple(value: Value, to: Type) -> Value:
    if not isinstance(value, list) or len(value) != len(to.elements):
        raise ConversionError(f"tuple of {len(to.elements)} elements required")
    return [convert(v, t) for v, t in zip(value, to.elements, strict=True)]


def _convert_map(value: Value, to: Type) -> Value:
    if not isinstance(value, dict):
        raise ConversionError(f"{to.friendly_name()} required, not {kind(value)}")
    assert to.element is not None
    return {k: convert(v, to.element) for k, v in value.items()}


def _convert_object(value: Value, to: Type) -> Value:
    if not isinstance(value, dict):
        raise ConversionError(f"object required, not {kind(value)}")
    out: dict[str, Value] = {}
    for name, attr_type in to.attributes:
        if name not in value:
            raise ConversionError(f"attribute {name!r} is required")
        out[name] = convert(value[name], attr_type)
    return out
