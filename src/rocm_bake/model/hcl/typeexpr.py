"""Read a ``type = ...`` constraint expression (``list(string)``, ``object({a = number})``)."""

from __future__ import annotations

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl.tree import Node, Rule, position
from rocm_bake.model.hcl.types import ANY, BOOL, NUMBER, STRING, Type

_PRIMITIVES = {"string": STRING, "number": NUMBER, "bool": BOOL, "any": ANY}
_COLLECTIONS = ("list", "set", "map")


def type_constraint(node: Rule, filename: str) -> Type:
    """The type a constraint expression names; anything else is an error at its position."""
    kind = node.kind
    if kind == "ExprTermRule":
        return type_constraint(node.expression, filename)
    if kind == "IdentifierRule":
        name = str(node.token.value)
        if name in _PRIMITIVES:
            return _PRIMITIVES[name]
    if kind == "FunctionCallRule":
        return _call(node, filename)
    raise _error(node, filename, "Invalid type specification; expected a type such as string, "
                                 "number, bool, any, list(T), set(T), map(T), tuple([...]) or "
                                 "object({...})")


def _call(node: Rule, filename: str) -> Type:
    name = str(node.identifiers[0].token.value)
    args = list(node.arguments.arguments) if node.arguments is not None else []
    if len(args) != 1:
        raise _error(node, filename, f"Invalid type specification; {name}() takes one argument")
    arg = _unwrap(args[0])
    if name in _COLLECTIONS:
        return Type(name, element=type_constraint(arg, filename))
    if name == "tuple" and arg.kind == "TupleRule":
        return Type("tuple", elements=tuple(type_constraint(e, filename) for e in arg.elements))
    if name == "object" and arg.kind == "ObjectRule":
        attrs = tuple((_key(e.key, filename), type_constraint(e.expression, filename))
                      for e in arg.elements)
        return Type("object", attributes=tuple(sorted(attrs)))
    raise _error(node, filename, f"Invalid type specification; unknown type function {name}()")


def _unwrap(node: Rule) -> Rule:
    while node.kind == "ExprTermRule":
        node = node.expression
    return node


def _key(key: Rule, filename: str) -> str:
    inner = key.value if key.kind == "ObjectElemKeyRule" else key.expression
    inner = _unwrap(inner)
    if inner.kind == "IdentifierRule":
        return str(inner.token.value)
    raise _error(key, filename, "Invalid type specification; object attribute names must be "
                                "identifiers")


def _error(node: Node, filename: str, message: str) -> HCLError:
    line, column = position(node)
    return HCLError(message, filename, line, column)
